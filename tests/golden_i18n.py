"""Golden output in both languages: a few machines the Chinese guides start from, asked in
English and in Chinese (tests/test_i18n_output.py compares with tests/golden/i18n.txt).

Regenerate with ``python -m tests.golden_i18n`` (only when a change of wording or of a
translation is intended: review the diff).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from pathlib import Path

from tests import snapshot

OUT = Path(__file__).parent / "golden" / "i18n.txt"

#: name -> tfenv's arguments; each is asked with --lang en and with --lang zh
CASES: dict[str, list[str]] = {
    # Windows 10, GTX 1060, TensorFlow 2.3: the seed guides' most common machine
    "windows-gtx1060-tf2.3": ["resolve", "--os", "windows", "--gpu", "GTX 1060", "--tf", "2.3"],
    # a gaming laptop on WSL2 (the driver is the Windows one)
    "wsl2-rtx3070ti-laptop": [
        "resolve",
        "--os",
        "wsl2",
        "--gpu",
        "RTX 3070 Ti Laptop",
        "--driver",
        "552.22",
        "--python",
        "3.11",
    ],
    # nothing fits: the conflict and the ways out
    "linux-old-driver-tf2.15": [
        "resolve",
        "--os",
        "linux",
        "--gpu",
        "RTX 3060",
        "--driver",
        "470.82.01",
        "--python",
        "3.11",
        "--tf",
        "2.15",
    ],
    # bad input: one paragraph, exit 2
    "bad-os": ["resolve", "--os", "beos"],
}

LANGUAGES = ("en", "zh")


def run(argv: list[str]) -> tuple[int, str, str]:
    from tfenv.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def render() -> str:
    parts = []
    for name, argv in CASES.items():
        for lang in LANGUAGES:
            code, out, err = run(["--lang", lang, *argv])
            shown = " ".join(a if " " not in a else repr(a) for a in argv)
            parts.append(f"=== {name} [{lang}]\n$ tfenv --lang {lang} {shown}\n[exit {code}]\n")
            parts.append(out)
            if err:
                parts.append(f"[stderr]\n{err}")
    return "".join(parts)


if __name__ == "__main__":
    os.environ["TFENV_DATA_DIR"] = str(snapshot.SNAPSHOT)
    os.environ["TFENV_LANG"] = "en"
    OUT.write_text(render(), "utf-8")
    sys.stdout.write(f"wrote {OUT}\n")
