"""PowerShell's execution policy: wherever a native Windows plan has a ``.ps1`` to run (venv's
Activate.ps1, activate-tfenv.ps1, conda's PowerShell profile), the plan (text, ``--json``,
INSTALL.md, ``tfenv install``'s steps and activation hint) gives the step that allows it,
from a sourced fact of the knowledge base, in English and Chinese."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.winshell import both
from tfenv import api
from tfenv.cli import main
from tfenv.emit import plan_files
from tfenv.kb import KnowledgeBase
from tfenv.models.target import MachineArgs
from tfenv.shells import command

PAGE = "https://learn.microsoft.com/powershell/module/microsoft.powershell.core/about/about_execution_policies"
CURRENT_USER = "Set-ExecutionPolicy -ExecutionPolicy RemoteSigned -Scope CurrentUser"
PROCESS = "Set-ExecutionPolicy -ExecutionPolicy Bypass -Scope Process"
WINDOWS = ("--os", "windows", "--gpu", "RTX 3060", "--driver", "552.22", "--python", "3.10")
#: native Windows plans that run a .ps1: the system route (venv's Activate.ps1 and
#: activate-tfenv.ps1) and conda+pip (conda's PowerShell profile)
PS1_PLANS = {
    "system": (*WINDOWS, "--tf", "2.10", "--manager", "pip"),
    "conda+pip": (*WINDOWS, "--tf", "2.10"),
}
#: plans without a .ps1: WSL2 and Linux take bash
NO_PS1_PLANS = {
    "wsl2-conda+pip": ("--os", "wsl2", "--gpu", "RTX 3060", "--driver", "552.22", "--tf", "2.11"),
    "linux-system": ("--os", "linux", "--cc", "7.5", "--driver", "535.104.05", "--tf", "2.2"),
}


def _resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    code = main(["resolve", *argv])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


def test_the_fact_is_sourced_from_microsofts_page(kb: KnowledgeBase) -> None:
    policy = kb.conda.execution_policy
    assert policy.client_default == "Restricted"
    assert policy.page == PAGE
    assert command(list(policy.current_user), "windows") == CURRENT_USER
    assert command(list(policy.process), "windows") == PROCESS
    assert any("about_Execution_Policies" in s for s in policy.provenance.sources)
    assert policy.provenance.retrieved == "2026-12-08"


@pytest.mark.parametrize("name", PS1_PLANS)
def test_windows_plans_that_run_a_ps1_give_the_step(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    argv = PS1_PLANS[name]
    text = _resolve(capsys, *argv)
    assert f"[route: {name}]" in text
    for said in (CURRENT_USER, PROCESS, PAGE, "Restricted"):
        assert said in text
    steps = json.loads(_resolve(capsys, *argv, "--json"))["plan"]["steps"]
    (step,) = [s for s in steps if CURRENT_USER in s]
    assert PROCESS in step
    assert PAGE in step


@pytest.mark.parametrize("name", PS1_PLANS)
def test_install_md_gives_the_step_before_activating(kb: KnowledgeBase, name: str) -> None:
    argv = PS1_PLANS[name]
    res = api.resolve(
        "2.10",
        machine=MachineArgs(os="windows", gpu="RTX 3060", driver="552.22", python="3.10"),
        manager="pip" if "--manager" in argv else "auto",
        kb=kb,
    )
    guide = plan_files(res)["INSTALL.md"]
    assert CURRENT_USER in guide
    assert PROCESS in guide
    policy_at = guide.index(CURRENT_USER)
    activate = "conda activate" if name == "conda+pip" else "Activate.ps1 in PowerShell"
    assert policy_at < guide.index(activate)


def test_the_step_speaks_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["--lang", "zh", "resolve", *PS1_PLANS["system"]]) == 0
    out = capsys.readouterr().out
    assert "执行策略" in out
    assert CURRENT_USER in out
    assert PROCESS in out


@pytest.mark.parametrize("name", NO_PS1_PLANS)
def test_plans_for_a_posix_shell_do_not(capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert "Set-ExecutionPolicy" not in _resolve(capsys, *NO_PS1_PLANS[name])


def test_the_commands_read_the_same_in_powershell_and_as_words() -> None:
    """Each command is one plain PowerShell command (the grammar test's reader, and
    tests/winshell.py's), its words as the knowledge base gives them."""
    grammar = pytest.importorskip("tests.test_powershell_grammar")
    for line in (CURRENT_USER, PROCESS):
        assert grammar.ps_argv(line) == line.split()
        assert both(line) == line.split()


def test_install_leaves_the_step_to_do_on_windows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [str(tmp_path / "e"), *PS1_PLANS["system"], "--dry-run"]
    capsys.readouterr()
    assert main(["install", *argv]) == 0
    left = capsys.readouterr().out.split("Still to do by hand:")[1]
    assert CURRENT_USER in left


@pytest.mark.parametrize("conda", [False, True], ids=["venv", "conda"])
def test_installs_activation_hint_names_the_policy_on_windows(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str], conda: bool
) -> None:
    """After an install for Windows, the PowerShell line follows cmd.exe's activate.bat."""
    from tfenv.commands.install import _print_done
    from tfenv.install.create import Layout
    from tfenv.install.source import Source
    from tfenv.install.steps import Outcome, Step

    res = api.resolve("2.15", machine=MachineArgs(os="windows", no_gpu=True), kb=kb)
    layout = Layout(Path("C:/envs/tf"), "windows", conda=conda)
    done = Step("verify", "Verify", outcome="ok")
    out = Outcome(Source(res), layout, [done], "conda" if conda else "uv")
    capsys.readouterr()
    _print_done(out)
    printed = capsys.readouterr().out
    line = printed.splitlines()[-1]
    assert CURRENT_USER in line
    assert PROCESS in line
    assert ("conda init powershell" in line) == conda
    assert ("Activate.ps1" in line) != conda
