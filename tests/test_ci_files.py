"""The pre-commit hook manifest and the composite GitHub Action: valid, and they do what
they say on a real project (locked from the local index)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from pre_commit.clientlib import load_manifest  # type: ignore[import-untyped]

from tests.lock_index import LOCK_CONFIG, LockIndex, serve, wheels_fixture  # noqa: F401 (fixture)
from tfenv.cli import main
from tfenv.config import load_config
from tfenv.kb import KnowledgeBase
from tfenv.lock import LockOptions, lock_project

ROOT = Path(__file__).parent.parent
MANIFEST = ROOT / ".pre-commit-hooks.yaml"
ACTION = ROOT / "action.yml"
TFENV = Path(sys.executable).parent / ("tfenv.exe" if os.name == "nt" else "tfenv")


@pytest.fixture
def project(wheels: Path, tmp_path: Path, kb: KnowledgeBase) -> Path:
    """A project with 'out = "locks"', locked for its cpu target."""
    folder = tmp_path / "project"
    folder.mkdir()
    text = LOCK_CONFIG.read_text("utf-8").replace("[targets.gpu]", 'out = "locks"\n\n[targets.gpu]')
    text = text.split("[targets.gpu]")[0] + '[targets.cpu]\nos = "linux"\nno-gpu = true\n'
    (folder / "tfenv.toml").write_text(text, "utf-8")
    for index in serve(LockIndex(wheels)):
        opts = LockOptions(index_url=index.url, cache_dir=tmp_path / "cache", retries=0)
        lock_project(kb, load_config(folder), opts)
    return folder


def _hand_edit(project: Path) -> None:
    path = project / "locks" / "requirements.cpu.txt"
    path.write_text(path.read_text("utf-8").replace("six==1.16.0", "six==1.15.0"), "utf-8")


# -- pre-commit ------------------------------------------------------------------------


def test_the_manifest_is_valid_for_pre_commit() -> None:
    hooks = {h["id"]: h for h in load_manifest(str(MANIFEST))}
    assert set(hooks) == {"tfenv-lock-check", "tfenv-check-upgrade"}
    check = hooks["tfenv-lock-check"]
    assert check["entry"] == "tfenv lock --check"
    assert check["language"] == "python"
    assert check["pass_filenames"] is False
    pattern = re.compile(check["files"])
    for name in ("pyproject.toml", "sub/tfenv.toml", "locks/pylock.gpu.toml"):
        assert pattern.search(name), name
    for name in ("requirements.txt", "src/app.py", "pylock.toml"):
        assert not pattern.search(name), name
    assert hooks["tfenv-check-upgrade"]["stages"] == ["manual"]


def test_the_hook_entries_run(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What pre-commit runs (entry + args, in the repository's root)."""
    hooks = {h["id"]: h for h in load_manifest(str(MANIFEST))}
    monkeypatch.chdir(project)
    check = shlex.split(hooks["tfenv-lock-check"]["entry"])
    assert check[0] == "tfenv"
    assert main(check[1:]) == 0
    upgrade = shlex.split(hooks["tfenv-check-upgrade"]["entry"])
    assert main([*upgrade[1:], "--to", "2.15"]) == 0
    _hand_edit(project)
    assert main(check[1:]) == 1


@pytest.mark.live
def test_pre_commit_try_repo(project: Path, tmp_path: Path) -> None:
    """pre-commit itself installs tfenv from this checkout and runs the hook (network)."""
    if not os.environ.get("TFENV_TRY_REPO"):
        pytest.skip("set TFENV_TRY_REPO=1: pre-commit pip-installs tfenv from the index")
    git = shutil.which("git")
    assert git is not None
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.update(GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t")
    env.update(GIT_COMMITTER_EMAIL="t@t")
    for argv in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "locks"]):
        subprocess.run([git, *argv], cwd=project, env=env, check=True)
    cmd = [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "tfenv-lock-check"]
    cmd += ["--all-files"]
    ok = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    _hand_edit(project)
    bad = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, check=False)
    assert bad.returncode == 1
    assert "edited by hand" in bad.stdout


# -- the GitHub Action -----------------------------------------------------------------


def _action() -> dict[str, Any]:
    doc: dict[str, Any] = yaml.safe_load(ACTION.read_text("utf-8"))
    return doc


def _expand(value: str, inputs: Mapping[str, str]) -> str:
    """GitHub's ${{ inputs.x }} and ${{ github.action_path }}, as the runner expands them."""

    def one(m: re.Match[str]) -> str:
        expr = m.group(1).strip()
        if expr.startswith("inputs."):
            return inputs[expr[len("inputs.") :]]
        assert expr == "github.action_path", expr
        return str(ROOT)

    return re.sub(r"\$\{\{(.*?)\}\}", one, value)


def _run_step(
    step: Mapping[str, Any], work: Path, given: Mapping[str, str], env: Mapping[str, str]
) -> subprocess.CompletedProcess[str]:
    inputs = {k: str(v.get("default", "")) for k, v in _action()["inputs"].items()}
    inputs.update(given)
    step_env = {k: _expand(str(v), inputs) for k, v in step.get("env", {}).items()}
    bash = shutil.which("bash")
    assert bash is not None
    return subprocess.run(
        [bash, "-c", step["run"]],
        cwd=work,
        env={**os.environ, **env, **step_env},
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_action_declares_its_inputs_and_steps() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    for name, spec in action["inputs"].items():
        assert spec["description"], name
        assert "default" in spec, name
    steps = action["runs"]["steps"]
    assert [s["name"] for s in steps] == [
        "Install tfenv",
        "tfenv lock --check",
        "tfenv check-upgrade",
    ]
    for step in steps:
        assert step["shell"] == "bash"
        assert "${{" not in step["run"], "inputs reach scripts through env, never inline"
    assert "tfenv lock --check" in steps[1]["run"].replace('"$TFENV"', "tfenv")
    assert "--markdown" in steps[2]["run"]
    assert "GITHUB_STEP_SUMMARY" in steps[2]["run"]
    assert "!cancelled()" in steps[2]["if"]  # the report comes even when the locks are stale


def test_the_action_steps_on_a_project(project: Path, tmp_path: Path) -> None:
    steps = {s["name"]: s for s in _action()["runs"]["steps"]}
    summary = tmp_path / "summary.md"
    summary.touch()
    env = {"TFENV": str(TFENV), "GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(tmp_path)}
    given = {"config": str(project), "to": "2.15"}

    check = _run_step(steps["tfenv lock --check"], project, given, env)
    assert check.returncode == 0, check.stderr
    assert summary.read_text("utf-8") == ""
    upgrade = _run_step(steps["tfenv check-upgrade"], project, given, env)
    assert upgrade.returncode == 0, upgrade.stderr
    report = summary.read_text("utf-8")
    assert report.startswith("#")  # Markdown
    assert "cpu" in report

    _hand_edit(project)
    summary.write_text("", "utf-8")
    check = _run_step(steps["tfenv lock --check"], project, given, env)
    assert check.returncode == 1
    assert "requirements.cpu.txt (target 'cpu'): edited by hand" in check.stderr
    assert "edited by hand" in summary.read_text("utf-8")

    bad = _run_step(steps["tfenv check-upgrade"], project, {**given, "to": "9.9"}, env)
    assert bad.returncode == 2  # bad input fails the job even without fail-on-upgrade-blocker


@pytest.mark.live
def test_the_action_install_step(tmp_path: Path) -> None:
    """pip installs tfenv from this checkout, as the action does (network: build backend)."""
    if not os.environ.get("TFENV_TRY_REPO"):
        pytest.skip("set TFENV_TRY_REPO=1: pip installs tfenv's build backend from the index")
    step = _action()["runs"]["steps"][0]
    github_env = tmp_path / "github_env"
    env = {"GITHUB_ENV": str(github_env), "RUNNER_TEMP": str(tmp_path)}
    done = _run_step(step, tmp_path, {"python": sys.executable}, env)
    assert done.returncode == 0, done.stderr
    tfenv = github_env.read_text("utf-8").strip().split("=", 1)[1]
    out = subprocess.run([tfenv, "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("tfenv ")
