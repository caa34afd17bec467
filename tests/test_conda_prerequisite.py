"""Where conda comes from (issue #22): a conda route's plan says to install Miniforge (or use
an installed Anaconda/Miniconda) and, on Windows, which prompt runs conda, unless the plan is
for this machine and conda was found on it; ``--emit`` writes INSTALL.md for the conda routes
as numbered steps with each command in the target's shell form; the system route's check is
the plan's Verify command.

Releases, files and names come from the frozen knowledge base (tests/kb_snapshot), never
from literals here.
"""

from __future__ import annotations

import json
import re
from typing import Optional

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.winshell import both
from tfenv import api
from tfenv.emit import plan_files
from tfenv.host.profile import HostProfile
from tfenv.i18n import using
from tfenv.install.source import Source
from tfenv.install.steps import remaining_steps
from tfenv.kb import KnowledgeBase
from tfenv.kb.conda import CondaInstaller
from tfenv.models.driver import DriverVersion
from tfenv.models.plan import Resolution, verify_command
from tfenv.models.target import MachineArgs, Request, Target
from tfenv.report import resolution_text
from tfenv.resolver import resolve
from tfenv.routes.conda_steps import CONDA_FOUND

_CHINESE = re.compile(r"[\u4e00-\u9fff]")
# a code block under a numbered step (indented; the Environment section's are not)
_FENCED = re.compile(r"^   ```[a-z]*\n((?:   [^`\n][^\n]*\n)+?)   ```$", re.MULTILINE)


def _newest_windows_gpu_series(kb: KnowledgeBase) -> Version:
    """The last series with a native-Windows CUDA build (TensorFlow's own table)."""
    series = [b.series for b in kb.builds if b.windows is not None and b.windows.cuda]
    assert series, "the snapshot records no native-Windows GPU series"
    return max(series)


def _gpu(kb: KnowledgeBase) -> tuple[str, Version]:
    """A GPU of compute capability 8.6 from the catalogue (the issue's laptop's class)."""
    model = kb.gpus.lookup("RTX 3070 Ti Laptop")
    return model.name, model.compute_capability


def _resolve(
    kb: KnowledgeBase,
    os: str,
    series: Optional[Version] = None,
    manager: str = "auto",
    detected: frozenset[str] = frozenset(),
    python: Optional[str] = None,
) -> Resolution:
    name, cc = _gpu(kb)
    target = Target(
        os,
        "x86_64",
        python=Version(python) if python else None,
        cc=cc,
        gpu_name=name,
        driver=DriverVersion("551.86"),
        detected=detected,
    )
    spec = SpecifierSet(f"=={series}.*") if series else SpecifierSet()
    text = str(series) if series else "latest"
    return resolve(kb, target, Request(tf=spec, tf_text=text, manager=manager))


def _windows_conda(kb: KnowledgeBase, detected: frozenset[str] = frozenset()) -> Resolution:
    res = _resolve(kb, "windows", _newest_windows_gpu_series(kb), detected=detected)
    assert res.plan is not None, res.conflicts
    assert res.plan.route == "conda+pip", "the issue's default Windows route"
    return res


def _installer(kb: KnowledgeBase) -> CondaInstaller:
    return kb.conda.installer


def _mentions_installer(text: str, found: CondaInstaller) -> bool:
    return any(name in text for _subdir, name in found.files) or found.page in text


# -- the prerequisite ------------------------------------------------------------------------


def test_windows_conda_plan_says_where_conda_comes_from(kb: KnowledgeBase) -> None:
    res = _windows_conda(kb)
    plan = res.plan
    assert plan is not None
    found = _installer(kb)
    file = found.file(res.target.platform.conda_subdir)
    assert file is not None
    assert len(plan.steps) == 2  # then PowerShell's execution policy (test_execution_policy)
    step = plan.steps[0]
    assert "Set-ExecutionPolicy" in plan.steps[1]
    for fact in (
        found.name,
        found.page,
        file,
        found.url(file),
        found.windows_prompt,
        found.anaconda_prompt,
        " ".join(found.powershell_init),
    ):
        assert fact in step, fact
    assert both(" ".join(found.powershell_init)) == list(found.powershell_init)
    # shown in the text, before the commands it is about, and in --json
    text = resolution_text(res)
    assert text.index("Steps:\n  1. conda: ") < text.index("Install:\n  conda create ")
    doc = json.loads(json.dumps(res.to_dict()))
    assert doc["plan"]["steps"] == list(plan.steps)


def test_the_installer_facts_are_sourced_and_dated(kb: KnowledgeBase) -> None:
    found = _installer(kb)
    assert found.provenance.sources
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", found.provenance.retrieved)
    assert found.download.count("{file}") == 1
    # every file is named after the installer, one per conda subdir
    assert all(name.startswith(found.name) for _subdir, name in found.files)


def test_the_prerequisite_in_chinese(kb: KnowledgeBase) -> None:
    with using("zh"):
        res = _windows_conda(kb)
    assert res.plan is not None
    step = res.plan.steps[0]
    found = _installer(kb)
    assert _CHINESE.search(step)
    assert found.windows_prompt in step  # the shortcut's name, as Windows shows it
    assert " ".join(found.powershell_init) in step


@pytest.mark.parametrize("os", ["linux", "wsl2"])
def test_linux_and_wsl2_conda_plans_name_the_linux_installer(kb: KnowledgeBase, os: str) -> None:
    res = _resolve(kb, os, _newest_windows_gpu_series(kb), manager="conda")
    plan = res.plan
    assert plan is not None, res.conflicts
    assert plan.route in ("conda", "conda+pip")
    found = _installer(kb)
    file = found.file(res.target.platform.conda_subdir)
    assert file is not None
    (step,) = plan.steps
    assert f"bash {file}" in step
    assert found.url(file) in step
    assert found.windows_prompt not in step
    assert ("WSL2" in step) == (os == "wsl2")


def test_no_prerequisite_where_conda_was_found_here(kb: KnowledgeBase) -> None:
    res = _windows_conda(kb, detected=frozenset({"os", CONDA_FOUND}))
    assert res.plan is not None
    # only PowerShell's execution policy is left (for conda's profile in PowerShell)
    (step,) = res.plan.steps
    assert "Set-ExecutionPolicy" in step
    assert not _mentions_installer(resolution_text(res), _installer(kb))


@pytest.mark.parametrize(
    ("os", "manager"),
    [("linux", "auto"), ("linux", "container"), ("windows", "pip")],
)
def test_routes_without_conda_have_no_prerequisite(
    kb: KnowledgeBase, os: str, manager: str
) -> None:
    """The pip route, the container route, the system route: no conda to install."""
    series = _newest_windows_gpu_series(kb) if manager == "pip" else None
    res = _resolve(kb, os, series, manager=manager)
    plan = res.plan
    assert plan is not None, res.conflicts
    assert "conda" not in plan.route
    text = resolution_text(res) + json.dumps(res.to_dict())
    assert not _mentions_installer(text, _installer(kb)), plan.route
    assert not any(
        f.startswith("INSTALL") and _mentions_installer(t, _installer(kb))
        for f, t in plan_files(res).items()
    )


def _host() -> HostProfile:
    return HostProfile(os="linux", arch="x86_64", python=Version("3.11"))


@pytest.mark.parametrize("found", [True, False])
def test_build_target_detects_conda_on_this_machine_only(kb: KnowledgeBase, found: bool) -> None:
    here = api.build_target(kb, MachineArgs(), detect=_host, conda_here=lambda: found)
    assert (CONDA_FOUND in here.detected) == found
    other = api.build_target(kb, MachineArgs(os="linux"), conda_here=lambda: True)
    assert CONDA_FOUND not in other.detected  # not this machine: the plan says it


def test_install_leaves_the_prerequisite_out_of_what_is_left(kb: KnowledgeBase) -> None:
    """tfenv install ran conda, so conda is there: only PowerShell's execution policy is
    left to do by hand (for conda's profile in PowerShell)."""
    res = _windows_conda(kb)
    assert res.plan is not None
    assert res.plan.steps
    assert remaining_steps(Source(res)) == res.plan.steps[1:]
    assert "Set-ExecutionPolicy" in res.plan.steps[1]
    # a dry run where no conda-family tool is found keeps it
    assert remaining_steps(Source(res), conda_here=False) == res.plan.steps


# -- INSTALL.md ------------------------------------------------------------------------------


def _blocks(guide: str) -> list[str]:
    """The commands in INSTALL.md's numbered steps (each in an indented code block)."""
    return [line.strip() for block in _FENCED.findall(guide) for line in block.splitlines()]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_windows_install_md_numbers_every_step(kb: KnowledgeBase, lang: str) -> None:
    with using(lang):
        res = _windows_conda(kb)
        files = plan_files(res)
    plan = res.plan
    assert plan is not None
    guide = files["INSTALL.md"]
    commands = [*plan.commands, plan.verify]
    # the prerequisite, then one step per command, then Verify
    for i in range(1, len(plan.steps) + len(commands) + 1):
        assert f"\n{i}. " in guide, i
    assert f"\n{len(plan.steps) + len(commands) + 1}. " not in guide
    assert "\n1. " + plan.steps[0] in guide
    assert _blocks(guide) == commands
    assert "```bat" in guide
    assert "```sh" not in guide
    if lang == "zh":
        assert _CHINESE.search(guide.split("## ", 2)[1])


def test_windows_install_md_commands_read_the_same_in_cmd_and_powershell(
    kb: KnowledgeBase,
) -> None:
    """Every line of the guide's code blocks through the cmd.exe/PowerShell tokenizer
    (tests/winshell.py), for every native-Windows GPU series on its default route."""
    seen = 0
    for build in kb.builds:
        if build.windows is None or not build.windows.cuda:
            continue
        res = _resolve(kb, "windows", build.series)
        if res.plan is None or "conda" not in res.plan.route:
            continue
        guide = plan_files(res)["INSTALL.md"]
        lines = _blocks(guide)
        assert lines
        for line in lines:
            argv = both(line)
            assert argv[0] in ("conda", "python"), line
        seen += 1
    assert seen, "no native-Windows series planned on a conda route"


def test_linux_install_md_sources_the_activation_script(kb: KnowledgeBase) -> None:
    res = _resolve(kb, "wsl2", _newest_windows_gpu_series(kb))
    plan = res.plan
    assert plan is not None
    assert plan.route == "conda+pip"
    assert plan.env
    files = plan_files(res)
    guide = files["INSTALL.md"]
    assert "activate-tfenv.sh" in files
    lines = _blocks(guide)
    assert lines == [*plan.commands, "source ./activate-tfenv.sh", plan.verify]
    assert "```sh" in guide
    assert "```bat" not in guide


# -- the system route's check is the plan's Verify command -----------------------------------


@pytest.mark.parametrize("os", ["windows", "linux"])
def test_system_route_checks_with_the_plans_verify(kb: KnowledgeBase, os: str) -> None:
    res = _resolve(kb, os, _newest_windows_gpu_series(kb), manager="pip")
    plan = res.plan
    assert plan is not None, res.conflicts
    assert plan.route == "system"
    assert plan.verify == verify_command("cuda")
    (check,) = [s for s in plan.steps if s.startswith("Verify: ")]
    assert check.startswith(f"Verify: {plan.verify} lists ")
