"""Golden emitted files in both languages: what ``resolve --emit DIR`` writes for a few
machines, asked in English and in Chinese (tests/test_emit_language.py compares with
tests/golden/emit.txt, on the frozen knowledge base).

Regenerate with ``python -m tests.golden_emit`` (only when a change of wording, of a
translation or of a file's form is intended: review the diff).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

from tests import snapshot

OUT = Path(__file__).parent / "golden" / "emit.txt"

#: name -> resolve's flags; each is asked with --lang en and with --lang zh
CASES: dict[str, list[str]] = {
    # the seed guides' machine: INSTALL.md, the Windows scripts, requirements.txt
    "windows-gtx1060-tf2.3": ["--os", "windows", "--gpu", "GTX 1060", "--tf", "2.3"],
    # pip with the CUDA wheels: requirements.txt and activate-tfenv.sh
    "linux-rtx3060-tf2.15": [
        *("--os", "linux", "--gpu", "RTX 3060", "--driver", "550.54.14"),
        *("--python", "3.11", "--tf", "2.15"),
    ],
    # conda: environment.yml
    "linux-conda": [
        *("--os", "linux", "--gpu", "RTX 3060", "--driver", "550.54.14"),
        *("--python", "3.11", "--tf", "2.15", "--manager", "conda"),
    ],
    # conda+pip on native Windows (issue #22): INSTALL.md with Miniforge and the prompts
    "windows-conda+pip": [
        *("--os", "windows", "--gpu", "RTX 3070 Ti Laptop", "--driver", "531.79"),
        *("--tf", "2.10", "--python", "3.10"),
    ],
    # conda+pip on WSL2: the Linux installer inside WSL2, activate-tfenv.sh after activate
    "wsl2-conda+pip": [
        *("--os", "wsl2", "--gpu", "RTX 3060", "--driver", "550.54.14"),
        *("--tf", "2.11", "--python", "3.10"),
    ],
    # the container route: Dockerfile and devcontainer.json
    "linux-container": [
        *("--os", "linux", "--gpu", "RTX 3060", "--driver", "550.54.14"),
        *("--tf", "2.17", "--manager", "container"),
    ],
    # Apple silicon: the tensorflow-metal pairing's comment
    "m2-mac": ["--os", "macos", "--arch", "arm64", "--python", "3.11", "--tf", "2.16"],
}

LANGUAGES = ("en", "zh")


def emitted(lang: str, argv: list[str]) -> dict[str, str]:
    """The files ``tfenv --lang LANG resolve ARGV --emit DIR`` writes: path -> text."""
    from tfenv.cli import main
    from tfenv.emit.record import RECORD

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "out"
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            code = main(["--lang", lang, "resolve", *argv, "--emit", str(folder)])
        assert code == 0, argv
        return {
            p.relative_to(folder).as_posix(): p.read_bytes().decode("utf-8")
            for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != RECORD  # its hashes follow the files (test_emit_record)
        }


def render() -> str:
    parts = []
    for name, argv in CASES.items():
        for lang in LANGUAGES:
            shown = " ".join(a if " " not in a else repr(a) for a in argv)
            parts.append(f"=== {name} [{lang}]\n$ tfenv --lang {lang} resolve {shown}\n")
            for path, text in emitted(lang, argv).items():
                parts.append(f"--- {path}\n{text.replace(chr(13), '<CR>')}")
    return "".join(parts)


if __name__ == "__main__":
    os.environ["TFENV_DATA_DIR"] = str(snapshot.SNAPSHOT)
    os.environ["TFENV_LANG"] = "en"
    OUT.write_text(render(), "utf-8")
    sys.stdout.write(f"wrote {OUT}\n")
