"""Live: ``tfenv install`` of TensorFlow 2.21 for the CPU on Python 3.12 from the real
package index (uv's default, or the configured one), from the plan and from a lockfile (and
from lockfiles of two old releases whose runtime constraints decide whether they import:
2.3 on Python 3.8, protobuf; 2.10 on Python 3.10, NumPy);
the Verify step runs in the new environment, and a Keras model trains one step there
(needs network and ~1 GB of downloads once; uv's cache is kept between runs;
run with ``-m live``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.lock_index import live_uv_cache
from tfenv.cli import main

pytestmark = pytest.mark.live

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


@pytest.fixture(autouse=True)
def _cache(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_CACHE_DIR", str(live_uv_cache(request, tmp_path)))
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def _installed(
    capsys: pytest.CaptureFixture[str], env: Path, *argv: str, release: str = "2.21.0"
) -> dict[str, object]:
    started = time.monotonic()
    code = main(["install", str(env), *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err[-4000:]
    doc = json.loads(out)
    assert doc["status"] == "ok"
    findings = doc["verify"]["findings"]
    assert findings[0]["title"] == f"import tensorflow works: {release}"
    print(
        f"installed in {time.monotonic() - started:.0f} s:",
        [(s["step"], s["seconds"]) for s in doc["steps"]],
    )
    trained = subprocess.run(
        [str(env / "bin" / "python"), "-c", TRAIN], capture_output=True, text=True, timeout=600
    )
    assert f"TRAINED {release} 1" in trained.stdout, trained.stderr[-4000:]
    return dict(doc)


def test_live_install_cpu_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _installed(capsys, tmp_path / "env", "--no-gpu", "--python", "3.12", "--tf", "2.21")
    plan = doc["plan"]
    assert isinstance(plan, dict)
    assert plan["tensorflow"] == "2.21.0"


@pytest.mark.parametrize(
    ("tf", "python", "release", "pinned"),
    [
        ("2.21", "3.12", "2.21.0", None),
        ("2.10", "3.10", "2.10.1", "numpy"),  # declares numpy>=1.20; NumPy 2 breaks its import
        ("2.3", "3.8", "2.3.4", "protobuf"),  # declares protobuf>=3.9.2; 4+ breaks its import
    ],
)
def test_live_install_cpu_lockfile(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    tf: str,
    python: str,
    release: str,
    pinned: str | None,
) -> None:
    (tmp_path / "tfenv.toml").write_text(CONFIG.format(tf=tf, python=python))
    assert main(["lock", "--config", str(tmp_path)]) == 0
    capsys.readouterr()
    lockfile = (tmp_path / "requirements.here.txt").read_text()
    if pinned is not None:  # the runtime constraint reached the lockfile's pins
        assert f"\n{pinned}==" in lockfile
    doc = _installed(
        capsys, tmp_path / "env", "--target", "here", "--config", str(tmp_path), release=release
    )
    assert doc["source"] == {"lock": str(tmp_path / "requirements.here.txt"), "target": "here"}


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
    doc = _installed(capsys, tmp_path / "env", *gpu, "--python", "3.12", "--tf", "2.21")
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
