"""Live: ``tfenv install`` of TensorFlow 2.21 for the CPU on Python 3.12 from the real
package index (uv's default, or the configured one), from the plan and from a lockfile;
the Verify step runs in the new environment, and a Keras model trains one step there
(needs network and ~1 GB of downloads once; uv's cache is kept between runs;
run with ``-m live``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.lock_index import live_uv_cache
from tfenv.cli import main

# the plans as users get them today: the shipped knowledge base (setuptools<82 beside
# TensorBoard < 2.21, which the seeded setuptools of a uv environment would break)
pytestmark = [pytest.mark.live, pytest.mark.shipped_kb]

TRAIN = (
    "import numpy as np, tensorflow as tf\n"
    "m = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])\n"
    "m.compile('sgd', 'mse')\n"
    "h = m.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=1, verbose=0)\n"
    "print('TRAINED', tf.__version__, len(h.history['loss']))\n"
)
CONFIG = """
tensorflow = "{tf}"
python = "{python}"
[targets.here]
os = "linux"
arch = "x86_64"
no-gpu = true
"""
# (--tf, Python, the release the plan gives): 2.21.0 (pinned exactly: these tests plan with
# the shipped knowledge base, where a later 2.21 patch may land), and the last series with
# native Windows GPU builds, on the Pythons the issue names
CASES = [("2.21.0", "3.12", "2.21.0"), ("2.10", "3.10", "2.10.1")]
# lockfiles also of 2.3 on Python 3.8, whose runtime constraint is on protobuf (2.10's is on
# NumPy): (package, the major it must stay under) for each old release, checked in the lock
HELD = {"2.10.1": ("numpy", 2), "2.3.4": ("protobuf", 4)}
LOCK_CASES = [*CASES, ("2.3", "3.8", "2.3.4")]


@pytest.fixture(autouse=True)
def _cache(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_CACHE_DIR", str(live_uv_cache(request, tmp_path)))
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def _python(version: str) -> None:
    from tfenv.install.create import find_uv
    from tfenv.install.interpreters import find_python

    if find_python(version, "linux", os.environ) is None and find_uv(os.environ) is None:
        pytest.skip(f"no Python {version} here (PATH, pyenv) and no uv to fetch one")


def _trains(env: Path, release: str) -> None:
    trained = subprocess.run(
        [str(env / "bin" / "python"), "-c", TRAIN], capture_output=True, text=True, timeout=600
    )
    assert f"TRAINED {release} 1" in trained.stdout, trained.stderr[-4000:]


def _installed(
    capsys: pytest.CaptureFixture[str], env: Path, release: str, *argv: str, code: int = 0
) -> dict[str, object]:
    started = time.monotonic()
    got = main(["install", str(env), *argv, "--json"])
    out, err = capsys.readouterr()
    assert got == code, err[-4000:]
    doc = json.loads(out)
    assert doc["status"] == ("ok" if code == 0 else "problem")
    findings = doc["verify"]["findings"]
    assert findings[0]["title"] == f"import tensorflow works: {release}"
    print(
        f"installed {release} in {time.monotonic() - started:.0f} s:",
        [(s["step"], s["seconds"]) for s in doc["steps"]],
    )
    _trains(env, release)
    _own_pip(env)
    return dict(doc)


def _own_pip(env: Path) -> None:
    """After activation in a real bash, ``pip`` is the environment's own, and a fix as
    doctor prints it (``ENV/bin/python3 -m pip install ...``) installs into it."""
    script = (
        '. "$1/bin/activate" && command -v pip && "$1/bin/python3" -m pip install -q '
        '--disable-pip-version-check "six>=1.16" && python -c "import six; print(six.__file__)"'
    )
    ran = subprocess.run(
        ["bash", "-c", script, "bash", str(env)], capture_output=True, text=True, timeout=300
    )
    assert ran.returncode == 0, ran.stderr[-4000:]
    which, six = ran.stdout.split()
    assert which == str(env / "bin" / "pip")
    assert six.startswith(str(env / "lib"))


@pytest.mark.parametrize(("tf", "python", "release"), CASES)
def test_live_install_cpu_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tf: str, python: str, release: str
) -> None:
    _python(python)
    doc = _installed(capsys, tmp_path / "env", release, "--no-gpu", "--python", python, "--tf", tf)
    plan = doc["plan"]
    assert isinstance(plan, dict)
    assert plan["tensorflow"] == release


@pytest.mark.parametrize(("tf", "python", "release"), LOCK_CASES)
def test_live_install_cpu_lockfile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tf: str, python: str, release: str
) -> None:
    _python(python)
    (tmp_path / "tfenv.toml").write_text(CONFIG.format(tf=tf, python=python))
    assert main(["lock", "--config", str(tmp_path)]) == 0
    capsys.readouterr()
    if release in HELD:  # the runtime constraint reached the lock's pins
        package, under = HELD[release]
        lock = (tmp_path / "requirements.here.txt").read_text()
        pinned = re.search(rf"^{package}==(\d+)\.", lock, re.MULTILINE)
        assert pinned is not None, lock
        assert int(pinned.group(1)) < under
    doc = _installed(
        capsys, tmp_path / "env", release, "--target", "here", "--config", str(tmp_path)
    )
    assert doc["source"] == {"lock": str(tmp_path / "requirements.here.txt"), "target": "here"}


def test_live_install_2_10_gpu_system_route(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TensorFlow 2.10 for a GPU on Linux has no CUDA wheels (the system route): the Python
    side is installed from the real index, doctor finds no CUDA 11.2 here, the steps left
    by hand follow, and the environment still trains on the CPU."""
    _python("3.10")
    gpu = ["--gpu", "RTX 3060", "--driver", "535.104.05", "--manager", "pip"]
    env = tmp_path / "env"
    doc = _installed(capsys, env, "2.10.1", *gpu, "--python", "3.10", "--tf", "2.10", code=1)
    assert doc["plan"]["route"] == "system"  # type: ignore[index]
    titles = [f["title"] for f in doc["verify"]["findings"]]  # type: ignore[index]
    assert "libcudart.so.11.0 not found" in titles, titles
    remaining = " ".join(doc["remaining"])  # type: ignore[arg-type]
    assert "CUDA Toolkit 11.2.2" in remaining
    assert "cuDNN 8.1" in remaining


# Measured for 2.21 on Python 3.12 (2026-12-03): uv's cache grows by 5.1 GB (the wheels
# unpacked); the environment takes 65 MB more where it shares the cache's file system
# (hard links), a second 5 GB where it does not.
GIB = 2**30


def test_live_install_gpu_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CUDA wheels installed too; on a machine without an NVIDIA GPU the Verify step
    says so and why (detection's note: no driver), and the environment still trains on
    the CPU; the activation script puts the wheels' libraries on the loader path."""
    from tfenv.host import detect

    cache = Path(os.environ["UV_CACHE_DIR"])
    while not cache.exists():
        cache = cache.parent
    shared = tmp_path.stat().st_dev == cache.stat().st_dev
    need = 6 * GIB if shared else 11 * GIB
    free = min(shutil.disk_usage(tmp_path).free, shutil.disk_usage(cache).free)
    if free < need:
        pytest.skip(f"the CUDA wheels need {need // GIB} GiB here; {free / GIB:.1f} GiB free")

    gpu = ["--gpu", "RTX 3060", "--driver", "535.104.05"]
    doc = _installed(capsys, tmp_path / "env", "2.21.0", *gpu, "--python", "3.12", "--tf", "2.21")
    verify = doc["verify"]
    assert isinstance(verify, dict)
    titles = " ".join(f["title"] for f in verify["findings"])
    if detect().has_gpu:
        assert "GPUs visible" in titles
    else:
        assert "A CUDA build that sees no GPU" in titles
        assert verify["notes"]
    activated = subprocess.run(
        ["bash", "-c", f'. "{tmp_path}/env/bin/activate" && echo "$LD_LIBRARY_PATH"'],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "/site-packages/nvidia/cudnn/lib" in activated.stdout
