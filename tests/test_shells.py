"""The one command renderer: POSIX words through a real bash, Windows words through a
tokenizer that follows cmd.exe's and PowerShell's documented rules (tests/winshell.py),
and through Wine's cmd.exe where Wine is installed."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.winshell import Unsafe, both, c_argv, cmd_line, powershell_argv
from tfenv.kb import KnowledgeBase
from tfenv.shells import UnsafeWord, command, set_variable, shell_for, word

WORDS = [
    "tensorflow==2.10.1",
    "tensorflow[and-cuda]==2.15.1",
    "numpy<2",
    "numpy>=1.23,<2",
    "python=3.10",
    "cudatoolkit=11.2.2",
    "tensorflow=2.15.0=cuda118*",
    "3.10",
    "2.10.1",
    "-c",
    "--override-channels",
    "conda-forge",
    "tf-2.10.1",
    "a b",
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin",
    "C:\\tools\\",
    "x&calc",
    "a|b",
    "(x)",
    "a^b",
    "@x",
    "#x",
    "{x}",
    "a;b",
    "it's",
    "--",
]

REFUSED = ["", "50%", "%PATH%", "a!b", "$env:PATH", "a`b", 'say "hi"', "a b\\", "caf\u00e9", "a\nb"]


@pytest.mark.parametrize("text", WORDS)
def test_windows_word_reads_the_same_in_cmd_and_powershell(text: str) -> None:
    line = command(["python", "-m", "pip", "install", text], "windows")
    assert both(line) == ["python", "-m", "pip", "install", text]
    assert "'" not in line.replace("it's", "")


@pytest.mark.parametrize("text", REFUSED)
def test_windows_refuses_what_a_shell_would_change(text: str) -> None:
    with pytest.raises(UnsafeWord) as info:
        word(text, "windows")
    assert info.value.exit_code == 2
    assert "\n" not in info.value.paragraph


def test_the_tokenizer_itself_catches_the_posix_form() -> None:
    """What #22 saw: the POSIX form in cmd.exe passes the single quotes on to pip."""
    before = "python -m pip install 'tensorflow==2.10.1'"  # how every route wrote it
    assert c_argv(cmd_line(before))[-1] == "'tensorflow==2.10.1'"
    with pytest.raises(Unsafe):
        cmd_line(command(["pip", "install", "numpy<2"], "posix"))  # '<' outside "..."
    with pytest.raises(Unsafe):
        powershell_argv("tfenv resolve --python 3.10")  # a bare number to PowerShell


def test_program_word_must_be_bare_on_windows() -> None:
    with pytest.raises(UnsafeWord):
        command(["C:\\Program Files\\x.exe", "-V"], "windows")
    assert command(["conda", "activate", "tf-2.10.1"], "windows") == "conda activate tf-2.10.1"


def test_shell_for() -> None:
    assert shell_for("windows") == "windows"
    assert shell_for("wsl2") == shell_for("linux") == shell_for("macos") == "posix"


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize("text", [*WORDS, *REFUSED[:-1], "$(touch pwned)", "`id`", "a\\"])
def test_posix_words_through_bash(text: str, tmp_path: object) -> None:
    line = command([sys.executable, "-c", "import sys; print(repr(sys.argv[1:]))", text], "posix")
    out = subprocess.run(["bash", "-c", line], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == repr([text])


def test_posix_never_breaks_a_line() -> None:
    assert "\n" not in word("a\nb", "posix")


_WINE = shutil.which("wine64") or shutil.which("wine") or shutil.which("/usr/lib/wine/wine64")


def _wine_cmd(tmp: Path, lines: list[str]) -> list[str]:
    """Run ``lines`` as a batch file in Wine's cmd.exe; its output lines."""
    assert _WINE is not None
    bat = tmp / "t.bat"
    bat.write_bytes(("@echo off\r\n" + "".join(f"{x}\r\n" for x in lines)).encode("ascii"))
    env = {"WINEDEBUG": "-all", "WINEPREFIX": str(tmp / "prefix"), "HOME": str(tmp)}
    env["PATH"] = "/usr/bin:/bin"
    out = subprocess.run(
        [_WINE, "cmd", "/c", "Z:" + str(bat).replace("/", "\\")],
        capture_output=True,
        timeout=300,
        env=env,
    )
    return out.stdout.decode("ascii", "replace").replace("\r\n", "\n").splitlines()


@pytest.mark.skipif(_WINE is None, reason="Wine is not installed (apt-get install wine64)")
def test_windows_words_through_wines_cmd(tmp_path: Path) -> None:
    """Wine's cmd.exe, running a batch file, echoes each line as it would hand it to a
    program: no expansion, no redirection, no command split; and it does expand a %VAR%
    inside double quotes (why the renderer refuses %)."""
    lines = [command(["echo", "pip", "install", text], "windows") for text in WORDS]
    got = _wine_cmd(tmp_path, [*lines, 'echo "%OS%"'])
    assert got[: len(lines)] == [line[len("echo ") :] for line in lines]
    assert got[len(lines)] != '"%OS%"'


def test_set_variable_per_shell() -> None:
    value = "C:\\CUDA\\v11.2\\bin;C:\\it's;%PATH%"
    assert set_variable("PATH", value, "cmd") == 'set "PATH=C:\\CUDA\\v11.2\\bin;C:\\it\'s;%PATH%"'
    assert set_variable("PATH", value, "powershell") == (
        "$env:PATH = 'C:\\CUDA\\v11.2\\bin;C:\\it''s;' + $env:PATH"
    )
    assert set_variable("X", "a", "posix") == 'export X="a"'


@pytest.mark.parametrize("value", ['a"b', "50%x", "a!b", "caf\u00e9", "a\r\nb"])
def test_set_variable_refuses_what_cmd_would_change(value: str) -> None:
    for script in ("cmd", "powershell"):
        with pytest.raises(UnsafeWord):
            set_variable("X", value, script)
    with pytest.raises(ValueError, match="variable name"):
        set_variable("X;calc", "a", "cmd")


def test_regenerate_line_survives_a_spec_cmd_would_change(kb: KnowledgeBase) -> None:
    """--tf '>=2.9,!=2.9.0': '!' is refused on Windows, so the line names the release picked."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from tfenv.emit._header import regenerate_command
    from tfenv.models.driver import DriverVersion
    from tfenv.models.target import Request, Target
    from tfenv.resolver import resolve

    target = Target("windows", "x86_64", python=Version("3.10"), cc=Version("8.6"),
                    gpu_name="NVIDIA GeForce RTX 3070", driver=DriverVersion("516.94"))  # fmt: skip
    text = ">=2.9,!=2.9.0,<2.11"
    res = resolve(kb, target, Request(tf=SpecifierSet(text), tf_text=text))
    assert res.plan is not None
    line = regenerate_command(res)
    assert line.startswith(f'tfenv resolve --tf "{res.plan.tensorflow}" --os windows')
    assert both(line)[3] == res.plan.tensorflow


def test_a_powershell_script_path_with_a_space_is_run_by_the_call_operator() -> None:
    """A quoted path alone is a string to PowerShell (printed, not run): a path that is not
    a bare word gets ``&`` and a single-quoted literal, an apostrophe doubled in it."""
    from tfenv.shells import powershell_script

    assert powershell_script("C:\\envs\\tf23\\Scripts\\Activate.ps1") == (
        "C:\\envs\\tf23\\Scripts\\Activate.ps1"
    )
    assert powershell_script("C:\\Users\\Li Wei\\tf23\\Scripts\\Activate.ps1") == (
        "& 'C:\\Users\\Li Wei\\tf23\\Scripts\\Activate.ps1'"
    )
    assert powershell_script("C:\\Users\\O'Neil\\a b\\Activate.ps1") == (
        "& 'C:\\Users\\O''Neil\\a b\\Activate.ps1'"
    )
    with pytest.raises(UnsafeWord):
        powershell_script("C:\\Users\\李\\Activate.ps1")
