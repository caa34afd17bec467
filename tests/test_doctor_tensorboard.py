"""doctor and TensorBoard's setuptools bound (``tensorflow/tensorboard.yaml``): a TensorBoard
before the fixed release beside a setuptools without ``pkg_resources`` (or none) is a problem
with the pip command that fixes it; a fixed TensorBoard or a setuptools below the bound is
not. Fake site-packages here; a real venv in the live test."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from tfenv.cli import main
from tfenv.kb.tensorboard import load

BOUND = load()


def _dist(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _env(tmp_path: Path, tensorboard: str, setuptools: Optional[str], tf: bool = True) -> Path:
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    if tf:
        _dist(site, "tensorflow-cpu", "2.15.1")
    _dist(site, "tensorboard", tensorboard)
    if setuptools is not None:
        _dist(site, "setuptools", setuptools)
    return tmp_path / "env"


def _doctor(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> tuple[int, dict[str, dict[str, Any]]]:
    capsys.readouterr()
    code = main(["doctor", "--json", *argv, "--no-gpu", "--os", "linux"])
    doc = json.loads(capsys.readouterr().out)
    return code, {f["id"]: f for f in doc["findings"]}


def test_old_tensorboard_with_setuptools_82_is_a_problem_with_the_pip_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found = _doctor(capsys, ["--prefix", str(_env(tmp_path, "2.15.2", "84.2.1"))])
    f = found["tensorboard"]
    assert code == 1
    assert f["status"] == "problem"
    assert f["title"] == "TensorBoard 2.15.2 cannot start with setuptools 84.2.1"
    assert f["fix"] == "python -m pip install 'setuptools<82'"
    assert "No module named 'pkg_resources'" in f["detail"]
    assert f"Upgrading TensorBoard to {BOUND.fixed}" in f["detail"]


def test_old_tensorboard_without_setuptools_is_a_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, found = _doctor(capsys, ["--prefix", str(_env(tmp_path, "2.20.0", None, tf=False))])
    assert code == 1
    assert found["tensorboard"]["title_code"]["code"] == "tensorboard-no-setuptools"
    assert found["tensorboard"]["fix"] == "python -m pip install 'setuptools<82'"


@pytest.mark.parametrize(
    ("tensorboard", "setuptools"), [("2.20.0", "81.0.0"), ("2.21.0", "84.2.1"), ("2.21.0", None)]
)
def test_tensorboard_that_starts_is_not_flagged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tensorboard: str, setuptools: Optional[str]
) -> None:
    _code, found = _doctor(capsys, ["--prefix", str(_env(tmp_path, tensorboard, setuptools))])
    assert "tensorboard" not in found


@pytest.mark.live
def test_real_venv_tensorboard_2_20_flagged_and_the_printed_fix_makes_it_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    venv = tmp_path / "venv"
    subprocess.run([uv, "venv", "-q", "--seed", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    reqs = ["tensorboard==2.20.0", "setuptools==82.0.0"]
    subprocess.run([uv, "pip", "install", "-q", "--python", py, *reqs], check=True, timeout=600)
    tb = [str(venv / "bin" / "tensorboard"), "--version"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    before = subprocess.run(tb, capture_output=True, text=True, timeout=120, env=env)
    assert before.returncode != 0
    assert "No module named 'pkg_resources'" in before.stderr
    code, found = _doctor(capsys, ["--interpreter", py])
    assert code == 1
    fix = found["tensorboard"]["fix"]
    subprocess.run(["bash", "-c", fix], check=True, timeout=300, env=env, capture_output=True)
    after = subprocess.run(tb, capture_output=True, text=True, timeout=120, env=env)
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip() == "2.20.0"
    _code, found = _doctor(capsys, ["--interpreter", py])
    assert "tensorboard" not in found


@pytest.mark.shipped_kb
def test_the_runtime_setuptools_bound_is_left_to_the_tensorboard_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shipped_kb: Any
) -> None:
    """runtime.yaml carries setuptools<82 for the releases whose plans install an old
    TensorBoard; an environment that upgraded TensorBoard to a fixed one is healthy."""
    from packaging.version import Version

    tf = Version("2.20.0")
    assert any(c.package == "setuptools" for c in shipped_kb.runtime.constraints_for(tf, "3.12"))
    site = tmp_path / "env" / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    _dist(site, "tensorflow-cpu", str(tf))
    _dist(site, "tensorboard", str(BOUND.fixed))
    _dist(site, "setuptools", "84.2.1")
    code, found = _doctor(capsys, ["--prefix", str(tmp_path / "env")])
    assert "runtime-setuptools" not in found
    assert "tensorboard" not in found
    assert code == 0, [f["title"] for f in found.values() if f["status"] == "problem"]
