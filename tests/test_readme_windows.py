"""The Windows set-up lines of the README and of docs/zh: one for cmd.exe, one for PowerShell
(Windows PowerShell 5.1, which has no ``&&``), each run as Windows would run it as far as this
machine can: the cmd.exe line by Wine's cmd.exe (the programs it starts are stand-ins that say
what they were given), the PowerShell line by the PowerShell grammar, and the tfenv command
they end in by tfenv itself, which must give the plan the line promises."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.winshell import both
from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.shells import command

ROOT = Path(__file__).parent.parent
DOCS = [ROOT / "README.md", ROOT / "docs" / "zh" / "index.md"]
#: the programs the set-up line runs, in order, and the words each is given
PROGRAMS = ["py", ".venv\\Scripts\\pip", ".venv\\Scripts\\tfenv"]
TFENV = [
    *("resolve", "--os", "windows", "--gpu", "RTX 3060", "--driver", "552.22"),
    *("--python", "3.10"),
]
EXPECTED = [["py", "-m", "venv", ".venv"], [PROGRAMS[1], "install", "."], [PROGRAMS[2], *TFENV]]
_WINE = shutil.which("wine64") or shutil.which("wine") or shutil.which("/usr/lib/wine/wine64")


def _blocks(path: Path, fence: str) -> list[str]:
    text = path.read_text("utf-8")
    return re.findall(rf"```{fence}\n(.*?)\n```", text, flags=re.S)


def _setup(path: Path, fence: str) -> str:
    (line,) = [b for b in _blocks(path, fence) if b.startswith("py -m venv")]
    assert "\n" not in line
    return line


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_each_doc_has_one_line_per_windows_shell_and_the_posix_lines(doc: Path) -> None:
    cmd, powershell = _setup(doc, "bat"), _setup(doc, "powershell")
    assert cmd == _setup(DOCS[0], "bat")  # the same lines in every language
    assert powershell == _setup(DOCS[0], "powershell")
    posix = [b for b in _blocks(doc, "") if b.startswith("python3 -m venv")]
    assert len(posix) == 2


def test_the_cmd_line_chains_the_three_commands_tfenv_writes() -> None:
    parts = _setup(DOCS[0], "bat").split(" && ")
    assert [both(p) for p in parts] == EXPECTED
    # the tfenv words as tfenv's one shell module writes them for Windows (quoted numbers)
    assert parts[2].split(" ", 1)[1] == command(["tfenv", *TFENV], "windows").split(" ", 1)[1]


def test_the_powershell_line_is_the_cmd_line_without_and_and() -> None:
    """Windows PowerShell 5.1 has no pipeline chain operators (``&&``, ``||``)."""
    powershell = _setup(DOCS[0], "powershell")
    assert "&&" not in powershell
    assert "||" not in powershell
    assert powershell.split("; ") == _setup(DOCS[0], "bat").split(" && ")


def test_the_powershell_line_parses_as_three_plain_commands() -> None:
    grammar = pytest.importorskip("tests.test_powershell_grammar")
    line = _setup(DOCS[0], "powershell")
    for parser in grammar.PARSERS:
        root = parser.parse(line.encode("utf-8")).root_node
        assert not root.has_error, str(root)
        (statements,) = root.children
        pipelines = [c for c in statements.named_children if c.type == "pipeline"]
        assert len(pipelines) == 3, str(root)
        for pipeline in pipelines:  # one command each: no && or || chain (PowerShell 7 only)
            assert [c.type for c in pipeline.named_children] == ["pipeline_chain"], str(root)
    statements = line.split("; ")
    assert [grammar.ps_argv(s) for s in statements] == EXPECTED


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_tfenv_command_gives_the_plan_for_that_machine(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    capsys.readouterr()
    code = main(["--lang", lang, *TFENV])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "RTX 3060" in out
    assert "Python 3.10" in out
    assert "TensorFlow 2.10" in out  # the last with GPU support on native Windows


@pytest.mark.skipif(_WINE is None, reason="Wine is not installed (apt-get install wine64)")
def test_the_cmd_line_runs_in_wines_cmd(tmp_path: Path) -> None:
    """cmd.exe runs the three commands in order, each with its words: ``py`` is a batch
    file that says what it was given and makes ``.venv\\Scripts\\pip`` and ``tfenv``
    stand-ins that do the same."""
    assert _WINE is not None
    work = tmp_path / "w"
    work.mkdir()
    py = [
        "@echo ARGV: py %*",
        "@mkdir .venv\\Scripts",
        "@echo @echo ARGV: .venv\\Scripts\\pip %%* > .venv\\Scripts\\pip.bat",
        "@echo @echo ARGV: .venv\\Scripts\\tfenv %%* > .venv\\Scripts\\tfenv.bat",
    ]
    (work / "py.bat").write_bytes(("\r\n".join(py) + "\r\n").encode("ascii"))
    line = _setup(DOCS[0], "bat")
    env = {"WINEDEBUG": "-all", "WINEPREFIX": str(tmp_path / "prefix"), "HOME": str(tmp_path)}
    env["PATH"] = "/usr/bin:/bin"
    # typed at cmd.exe's prompt (its stdin): 'cmd /c LINE' would have Wine re-quote the
    # line, and a batch file would not come back from the .bat stand-ins
    typed = f"{line}\r\nexit\r\n".encode("ascii")
    done = subprocess.run(
        [_WINE, "cmd"], input=typed, cwd=work, capture_output=True, timeout=300, env=env
    )
    out = done.stdout.decode("ascii", "replace").replace("\r\n", "\n")
    said = [s.split("ARGV: ", 1)[1].strip() for s in out.splitlines() if "ARGV: " in s]
    assert [both(s) for s in said] == EXPECTED, out


def test_the_zh_guides_policy_commands_are_the_knowledge_bases(kb: KnowledgeBase) -> None:
    """docs/zh gives PowerShell's execution-policy commands (to activate an environment):
    the ones the plans give, from conda.yaml's sourced fact."""
    policy = kb.conda.execution_policy
    shown = [b for b in _blocks(DOCS[1], "powershell") if not b.startswith("py -m venv")]
    assert shown == [
        command(list(policy.current_user), "windows"),
        command(list(policy.process), "windows"),
    ]
    for line in shown:
        assert both(line) == line.split()
