"""Live: ``tfenv install`` of TensorFlow 2.21 for the CPU on Python 3.12 from the real
package index (uv's default, or the configured one), from the plan and from a lockfile;
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
tensorflow = "2.21"
python = "3.12"
[targets.here]
os = "linux"
arch = "x86_64"
no-gpu = true
"""


@pytest.fixture(autouse=True)
def _cache(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UV_CACHE_DIR", str(live_uv_cache(request, tmp_path)))
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)


def _installed(capsys: pytest.CaptureFixture[str], env: Path, *argv: str) -> dict[str, object]:
    started = time.monotonic()
    code = main(["install", str(env), *argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err[-4000:]
    doc = json.loads(out)
    assert doc["status"] == "ok"
    findings = doc["verify"]["findings"]
    assert findings[0]["title"] == "import tensorflow works: 2.21.0"
    print(
        f"installed in {time.monotonic() - started:.0f} s:",
        [(s["step"], s["seconds"]) for s in doc["steps"]],
    )
    trained = subprocess.run(
        [str(env / "bin" / "python"), "-c", TRAIN], capture_output=True, text=True, timeout=600
    )
    assert "TRAINED 2.21.0 1" in trained.stdout, trained.stderr[-4000:]
    return dict(doc)


def test_live_install_cpu_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _installed(capsys, tmp_path / "env", "--no-gpu", "--python", "3.12", "--tf", "2.21")
    plan = doc["plan"]
    assert isinstance(plan, dict)
    assert plan["tensorflow"] == "2.21.0"


def test_live_install_cpu_lockfile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tfenv.toml").write_text(CONFIG)
    assert main(["lock", "--config", str(tmp_path)]) == 0
    capsys.readouterr()
    doc = _installed(capsys, tmp_path / "env", "--target", "here", "--config", str(tmp_path))
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
