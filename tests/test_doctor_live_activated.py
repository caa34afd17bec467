"""The proof of issue #33's doctor part, live: an environment with a real TensorFlow 2.10.1
under NumPy 2.0.2 (it cannot import), activated in a real bash; ``tfenv doctor`` with no
flags finds the NumPy problem in the activated environment and prints a fix; the fix, taken
from that output and run as printed in the same bash, mends it, and doctor then says healthy.
Needs the network (about 300 MB, cached by uv) and a Python 3.10."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

_SCRIPT = r"""
set -u
. "$ENV_DIR/bin/activate"
if [ -n "${BREAK:-}" ]; then
    command -v pip > pip.path
    pip install -q "$BREAK" > break.log 2>&1 || exit 7
fi
"$TFENV" doctor > first.txt 2>&1
echo "$?" > first.rc
grep -c '^ *fix: ' first.txt > fixes.count || true
fix=$(sed -n 's/^ *fix: //p' first.txt)
printf '%s\n' "$fix" > fix.txt
eval "$fix" > fix.log 2>&1
echo "$?" > fix.rc
"$TFENV" doctor > second.txt 2>&1
echo "$?" > second.rc
"""


def _python310() -> str:
    """A Python 3.10 that runs (a pyenv shim of a version not selected does not)."""
    candidates = [str(p) for p in sorted(Path.home().glob(".pyenv/versions/3.10.*/bin/python3.10"))]
    candidates += [p for p in (shutil.which("python3.10"),) if p]
    for python in candidates:
        done = subprocess.run([python, "--version"], capture_output=True, check=False)
        if done.returncode == 0:
            return python
    pytest.skip("needs a Python 3.10 interpreter")


def _tool(name: str) -> str:
    here = Path(sys.executable).parent / name
    found = str(here) if here.exists() else shutil.which(name)
    if not found:
        pytest.skip(f"needs {name} (the test extra installs it)")
    return os.path.abspath(found)


@pytest.mark.skipif(sys.platform == "win32", reason="a real bash and a POSIX venv")
def test_doctor_in_an_activated_bash_finds_numpy_2_and_its_fix_mends_it(tmp_path: Path) -> None:
    uv, tfenv = _tool("uv"), _tool("tfenv")
    env_dir = tmp_path / "tf210"
    subprocess.run([uv, "venv", "--seed", "-q", "-p", _python310(), str(env_dir)], check=True)
    install = [uv, "pip", "install", "-q", "--python", str(env_dir / "bin" / "python")]
    subprocess.run([*install, "tensorflow-cpu==2.10.1", "numpy==2.0.2"], check=True, timeout=900)
    _break_and_mend(tmp_path, env_dir, tfenv)


@pytest.mark.shipped_kb  # the plan as users get it today (setuptools<82 included)
@pytest.mark.skipif(sys.platform == "win32", reason="a real bash and a POSIX venv")
def test_an_environment_tfenv_install_made_broken_by_its_own_pip_is_mended_by_doctors_fix(
    tmp_path: Path,
) -> None:
    """The same, on an environment ``tfenv install`` made (the CPU plan of 2.10 on Python
    3.10): after activation, ``pip`` is the environment's own, and NumPy 2 put in with it
    breaks TensorFlow; doctor with no flags finds it, and its fix mends it."""
    tfenv = _tool("tfenv")
    env_dir = tmp_path / "tf210"
    _python310()
    done = subprocess.run(
        [tfenv, "install", str(env_dir), "--tf", "2.10", "--no-gpu", "--python", "3.10"],
        capture_output=True, text=True, timeout=1500, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    _break_and_mend(tmp_path, env_dir, tfenv, breaks="numpy==2.0.2")
    assert (tmp_path / "pip.path").read_text().strip() == f"{env_dir}/bin/pip"


def _break_and_mend(tmp_path: Path, env_dir: Path, tfenv: str, breaks: str = "") -> None:
    environ = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    environ.update(ENV_DIR=str(env_dir), TFENV=tfenv, BREAK=breaks)
    environ.pop("CUDA_VISIBLE_DEVICES", None)
    subprocess.run(["bash", "-c", _SCRIPT], cwd=tmp_path, env=environ, check=True, timeout=900)

    def read(name: str) -> str:
        return (tmp_path / name).read_text()

    first = read("first.txt")
    assert read("first.rc").strip() == "1", first
    assert first.startswith(
        f"Checking: {env_dir}/bin/python3 (the activated virtual environment, VIRTUAL_ENV)\n"
    ), first
    assert "[PROBLEM] numpy 2.0.2 is installed, but TensorFlow 2.10.1 cannot import" in first
    fixes = read("fix.txt").strip().splitlines()
    assert read("fixes.count").strip() == str(len(fixes)), first  # a fix per problem
    assert f"{env_dir}/bin/python3 -m pip install 'numpy<2'" in fixes
    if not breaks:  # uv installed setuptools 84 beside TensorBoard 2.10, which cannot start
        assert fixes[1:] == [f"{env_dir}/bin/python3 -m pip install 'setuptools<82'"]
    else:  # tfenv install's plan pins setuptools<82: NumPy is the one problem
        assert len(fixes) == 1, first
    assert read("fix.rc").strip() == "0", read("fix.log")
    second = read("second.txt")
    assert read("second.rc").strip() == "0", second
    assert "numpy 1." in second
    assert "satisfies numpy<2 (TensorFlow 2.10.1)" in second
    assert "0 problems" in second
    # and the environment imports now (what the fix promised)
    done = subprocess.run(
        [str(env_dir / "bin" / "python"), "-c", "import tensorflow as tf; print(tf.__version__)"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.stdout.strip().endswith("2.10.1"), done.stderr[-2000:]
