"""`tfenv doctor` on an environment with real nvidia-* wheels from the configured index, on
a machine without a GPU (a CPU CI runner): healthy as it is, and checked for the GPU
machine it is meant for with --host. Needs network (about 25 MB, a few seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tfenv.cli import main

WHEELS = ("nvidia-cuda-runtime-cu12==12.2.140", "nvidia-cuda-nvcc-cu12==12.2.140")

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        Path("/proc/driver/nvidia/version").exists(), reason="needs a machine without a GPU"
    ),
]


@pytest.fixture(scope="module")
def prefix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """TensorFlow 2.15.1's metadata and two of its CUDA wheels, installed for real."""
    root = tmp_path_factory.mktemp("live") / "env"
    site = root / "lib" / "python3.11" / "site-packages"
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--only-binary",
           ":all:", "--disable-pip-version-check", "--target", str(site), *WHEELS]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=300)
    info = site / "tensorflow-2.15.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.1\n")
    return root


def _doctor(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["doctor", "--json", *argv])
    doc = json.loads(capsys.readouterr().out)
    return code, {f["id"]: f for f in doc["findings"]}


def test_real_wheels_without_a_gpu_are_healthy(
    prefix: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    code, found = _doctor(["--prefix", str(prefix)], capsys)
    assert code == 0, found
    assert all(f["status"] == "ok" for f in found.values())
    assert found["tensorflow"]["title"].startswith("tensorflow 2.15.1 (pip): a CUDA build")


def test_real_wheels_checked_for_the_gpu_machine(
    prefix: Path,
    gpu_host_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("LD_LIBRARY_PATH", raising=False)
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    argv = ["--prefix", str(prefix), "--host", str(gpu_host_file), "--load-libraries"]
    code, found = _doctor(argv, capsys)
    assert code == 1  # 2 of the 12 wheels TensorFlow 2.15.1 pins are installed
    assert found["pin-nvidia-cuda-runtime-cu12"]["status"] == "ok"
    assert found["pin-nvidia-cuda-nvcc-cu12"]["status"] == "ok"
    assert found["pin-nvidia-cudnn-cu12"]["fix"] == (
        "python -m pip install 'nvidia-cudnn-cu12==8.9.4.25'"
    )
    cudart = found["lib-cudart"]
    assert cudart["status"] == "ok", cudart
    assert "loads" in cudart["title"]
    assert "version 12.2" in cudart["detail"]  # cudaRuntimeGetVersion of the real library
    # TensorFlow 2.14+ finds the wheel's ptxas and libdevice without PATH or XLA_FLAGS,
    # unless /usr/local/cuda comes first (a CUDA toolkit on this machine): then it says so
    ptxas = found["xla-ptxas"]
    if Path("/usr/local/cuda/bin/ptxas").is_file():
        assert ptxas["status"] in ("warning", "problem"), ptxas
        assert "XLA runs the ptxas /usr/local/cuda finds first" in ptxas["title"]
        assert "not the nvidia-cuda-nvcc wheel's (CUDA 12.2)" in ptxas["title"]
    else:
        assert ptxas["status"] == "ok", ptxas
        assert "nvidia-cuda-nvcc wheel" in ptxas["detail"]
        assert "CUDA 12.2" in ptxas["detail"]
    assert found["xla-libdevice"]["status"] == "ok"
    assert found["driver"]["status"] == "ok"
