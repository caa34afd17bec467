"""The files ``resolve --emit`` writes speak the interface language (issue 23).

For machines down every route, ``--emit DIR --lang zh`` leaves no English sentence in the
files' prose (comment lines, INSTALL.md outside its code blocks) once commands, names,
paths and quotes are out (the detector of tests/test_zh_explain_all.py); the Windows
scripts stay pure ASCII and English; the header's regenerate command, run again, writes
the same bytes in either language (it keeps the GPU's name and ``--lang``); and the POSIX
activation script, sourced under ``set -e`` by bash and dash without a working ``python``,
does not end the shell (trial finding R9).
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Optional

import pytest

from tests.golden_emit import CASES as GOLDEN_CASES
from tests.golden_emit import OUT as GOLDEN
from tests.golden_emit import render as render_golden
from tests.test_emit import ROUTES
from tests.test_zh_explain_all import SNAPSHOT, _provenances, english_sentences
from tfenv.cli import main
from tfenv.emit.requirements_txt import CODING
from tfenv.kb import KnowledgeBase

#: name -> resolve's flags: every route of tests/test_emit.py, and the guides' machines
MACHINES: dict[str, tuple[str, ...]] = {
    **{f"route-{name}": argv for name, (argv, _route, _files) in ROUTES.items()},
    "windows10-gtx1060-tf2.3": ("--os", "windows", "--gpu", "GTX 1060", "--tf", "2.3"),
    "wsl2-rtx3070ti-laptop": ("--os", "wsl2", "--gpu", "RTX 3070 Ti Laptop", "--driver", "552.22"),
    "linux-rtx3060-tf2.15": (
        *("--os", "linux", "--gpu", "RTX 3060", "--driver", "550.54.14"),
        *("--python", "3.11", "--tf", "2.15"),
    ),
    "container": (
        "--os",
        "linux",
        "--gpu",
        "RTX 3060",
        "--driver",
        "550.54.14",
        "--manager",
        "container",
    ),
    "unknown-gpu-with-cc": ("--os", "linux", "--gpu", "My Card", "--cc", "8.6", "--python", "3.11"),
}
_WINDOWS_SCRIPTS = (".bat", ".ps1")
_CHINESE = re.compile(r"[\u4e00-\u9fff]")
#: a command a sentence gives after its colon ("安装后验证：docker run ..."), up to a "；"
_COMMAND = re.compile(r"(?<=\uff1a)(?:tfenv|docker|python|conda|\.) [^\uff1b]*")


def emit(lang: Optional[str], argv: tuple[str, ...], folder: Path) -> dict[str, bytes]:
    """``tfenv --lang LANG resolve ARGV --emit FOLDER``: the files written, by relative path
    (``lang`` None: no --lang, so TFENV_LANG's English, unless ARGV says otherwise)."""
    out, err = io.StringIO(), io.StringIO()
    flags = ["--lang", lang] if lang else []
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*flags, "resolve", *argv, "--emit", str(folder)])
    assert code == 0, out.getvalue() + err.getvalue()
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def prose(name: str, text: str) -> list[str]:
    """The lines of ``text`` a person reads as sentences: comment lines (without the
    PEP 263 line), or INSTALL.md outside its code blocks."""
    if name.endswith(".md"):
        lines, fenced = [], False
        for line in text.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced:
                lines.append(line)
        return lines
    if name.endswith(".json"):
        return []
    return [
        line.strip().lstrip("#").strip()
        for line in text.splitlines()
        if line.strip().startswith("#") and line + "\n" != CODING
    ]


@pytest.fixture(scope="module")
def sources() -> list[str]:
    """Every source citation the knowledge base holds, longest first (as explain's test)."""
    found = {s for p in _provenances(KnowledgeBase(SNAPSHOT)) for s in p.sources}
    return sorted(found, key=len, reverse=True)


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, dict[str, bytes]]]:
    """machine -> language -> the files written."""
    root = tmp_path_factory.mktemp("emit-lang")
    return {
        machine: {lang: emit(lang, argv, root / machine / lang) for lang in ("en", "zh")}
        for machine, argv in MACHINES.items()
    }


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_emitted_prose_reads_as_chinese(
    machine: str, both: dict[str, dict[str, dict[str, bytes]]], sources: list[str]
) -> None:
    files = both[machine]["zh"]
    assert files
    for name, data in files.items():
        if name.endswith(_WINDOWS_SCRIPTS):
            continue
        lines = prose(name, data.decode("utf-8"))
        if not lines:
            continue
        assert _CHINESE.search("\n".join(lines)), name
        left = english_sentences(_COMMAND.sub(" ", "\n".join(lines)), sources, "")
        assert left == [], f"{machine} {name}: {left}"


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_windows_scripts_are_ascii_english_in_every_language(
    machine: str, both: dict[str, dict[str, dict[str, bytes]]]
) -> None:
    """cmd.exe reads a batch file in the console's code page, Windows PowerShell 5.1 a
    script without a BOM in the ANSI one: the scripts are ASCII, the same English text
    whatever the language but for the regenerate command's ``--lang zh``."""
    en, zh = both[machine]["en"], both[machine]["zh"]
    scripts = [name for name in zh if name.endswith(_WINDOWS_SCRIPTS)]
    for name in scripts:
        assert zh[name].isascii(), name
        assert zh[name] == en[name].replace(b" --emit DIR", b" --lang zh --emit DIR"), name
    assert bool(scripts) == ("windows10" in machine)  # conda+pip on Windows: none


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_files_that_are_not_ascii_say_utf_8(
    machine: str, both: dict[str, dict[str, dict[str, bytes]]]
) -> None:
    """pip before 24.2 reads a requirements file in the locale's encoding unless a PEP 263
    line says otherwise (GBK on Chinese Windows): a Chinese one starts with that line, an
    English one (ASCII) is as it was."""
    for lang in ("en", "zh"):
        for name, data in both[machine][lang].items():
            if name.endswith(".txt"):
                assert data.startswith(CODING.encode()) == (not data.isascii()), (lang, name)
                assert data.isascii() or lang == "zh", name


@pytest.mark.parametrize("machine", sorted(MACHINES))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_regenerate_command_writes_the_same_bytes(
    machine: str, lang: str, both: dict[str, dict[str, dict[str, bytes]]], tmp_path: Path
) -> None:
    """The header's command, split as a shell splits it, writes every file again, byte for
    byte: the GPU by its name (R9: not only --cc), the language where it is not English."""
    files = both[machine][lang]
    header = next(
        text for text in (d.decode("utf-8") for d in files.values()) if "tfenv resolve " in text
    )
    command = re.search(r"(tfenv resolve .*) --emit DIR", header)
    assert command is not None
    words = shlex.split(command.group(1))
    assert ("--lang" in words) == (lang != "en")
    argv = MACHINES[machine]
    if "--gpu" in argv:
        assert "--gpu" in words, command.group(1)
    again = emit(None, tuple(words[2:]), tmp_path / "again")
    assert again == files


def test_the_gpu_name_is_quoted_for_the_target_shell(
    both: dict[str, dict[str, dict[str, bytes]]],
) -> None:
    linux = both["linux-rtx3060-tf2.15"]["en"]["requirements.txt"].decode()
    assert "--gpu 'NVIDIA GeForce RTX 3060' --cc 8.6 " in linux
    windows = both["windows10-gtx1060-tf2.3"]["zh"]["activate-tfenv.bat"].decode()
    assert '--gpu "NVIDIA GeForce GTX 1060" --cc "6.1" --lang zh --emit DIR' in windows
    unknown = both["unknown-gpu-with-cc"]["zh"]["requirements.txt"].decode()
    assert "--gpu 'My Card' --cc 8.6 " in unknown


def test_a_name_windows_cannot_take_falls_back_to_the_capability(tmp_path: Path) -> None:
    """A GPU name that is not ASCII cannot be a cmd.exe/PowerShell word: the line names
    the compute capability alone, and the scripts stay ASCII."""
    argv = (
        "--os",
        "windows",
        "--gpu",
        "Karte Ü",
        "--cc",
        "8.6",
        "--tf",
        "2.10",
        "--driver",
        "552.22",
    )
    files = emit("zh", argv, tmp_path / "out")
    for name, data in files.items():
        if name.endswith(_WINDOWS_SCRIPTS):
            assert data.isascii(), name
            assert b"Karte \\xdc" in data, name
            assert b"--gpu" not in data, name


# --- sourced under set -e without python (R9) ---------------------------------------------


def _shells() -> list[str]:
    return [s for s in ("bash", "dash") if shutil.which(s)]


@pytest.mark.parametrize("shell", _shells())
@pytest.mark.parametrize("python", ["none", "failing"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_activation_sourced_under_set_e_without_python_goes_on(
    shell: str, python: str, lang: str, both: dict[str, dict[str, dict[str, bytes]]], tmp_path: Path
) -> None:
    script = tmp_path / "activate-tfenv.sh"
    script.write_bytes(both["linux-rtx3060-tf2.15"][lang]["activate-tfenv.sh"])
    bin_dir = tmp_path / "bin"  # PATH: no python at all, or one that fails
    bin_dir.mkdir()
    if python == "failing":
        stub = bin_dir / "python"
        stub.write_text("#!/bin/sh\nexit 3\n")
        stub.chmod(0o755)
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    done = subprocess.run(
        [str(shutil.which(shell)), "-c", f"set -e; . {shlex.quote(str(script))}; echo went on"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "went on\n"
    assert done.stderr == ""


def test_activation_still_finds_the_wheels(
    both: dict[str, dict[str, dict[str, bytes]]], tmp_path: Path
) -> None:
    """With a python that names a site-packages holding nvidia-* wheels, the script sets
    the loader path and XLA's folder (the change for R9 keeps what it did)."""
    script = tmp_path / "activate-tfenv.sh"
    script.write_bytes(both["linux-rtx3060-tf2.15"]["zh"]["activate-tfenv.sh"])
    site = tmp_path / "site"
    (site / "nvidia" / "cudnn" / "lib").mkdir(parents=True)
    ptxas = site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
    ptxas.parent.mkdir(parents=True)
    ptxas.write_text("#!/bin/sh\n")
    ptxas.chmod(0o755)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "python"
    stub.write_text(f"#!/bin/sh\necho {shlex.quote(str(site))}\n")
    stub.chmod(0o755)
    for shell in _shells():
        done = subprocess.run(
            [
                str(shutil.which(shell)),
                "-c",
                f'set -e; . "{script}"; echo "$LD_LIBRARY_PATH"; echo "$XLA_FLAGS"',
            ],
            capture_output=True,
            text=True,
            env={"PATH": f"{bin_dir}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path)},
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        lib, xla = done.stdout.splitlines()
        assert lib == str(site / "nvidia" / "cudnn" / "lib")
        assert xla == f"--xla_gpu_cuda_data_dir={site}/nvidia/cuda_nvcc"


# --- golden files --------------------------------------------------------------------------


def test_golden_emitted_files_in_both_languages() -> None:
    """The English files are what they were (R9's changes aside: the GPU's name in the
    regenerate command, the script that survives ``set -e``); the Chinese ones reviewed."""
    want = GOLDEN.read_text("utf-8")
    got = render_golden()
    assert want.count("\n=== ") >= 2 * len(GOLDEN_CASES) - 1, "the golden file lost its cases"
    diff = "".join(
        difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=1)
    )
    assert got == want, f"tests/golden/emit.txt differs (python -m tests.golden_emit):\n{diff}"
