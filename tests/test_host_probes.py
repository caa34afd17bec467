"""The real probes, on this machine: time limits, missing tools, metadata, NVML."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

from tfenv.host import _wanted_package
from tfenv.host.probes import NvmlReading, Probes


def test_run_missing_command() -> None:
    out = Probes().run(["/nonexistent/nvidia-smi"])
    assert out.returncode is None
    assert out.problem is not None
    assert out.problem.startswith("it cannot be run")


def test_run_time_limit() -> None:
    out = Probes(timeout=0.2).run([sys.executable, "-c", "import time; time.sleep(5)"])
    assert out.problem == "it did not answer within 0.2 s"


def test_run_output() -> None:
    out = Probes().run(
        [sys.executable, "-c", "import sys; print('a'); print('b', file=sys.stderr)"]
    )
    assert (out.returncode, out.stdout, out.stderr.strip()) == (0, "a\n", "b")
    assert out.text == "a\n\nb\n"


def test_read_and_exists(tmp_path: Path) -> None:
    f = tmp_path / "version"
    f.write_text("535.104.05\n", "utf-8")
    probes = Probes()
    assert probes.read(str(f)) == "535.104.05\n"
    assert probes.read(str(tmp_path / "missing")) is None
    assert probes.exists(str(f))
    assert probes.glob(str(tmp_path / "ver*")) == [str(f)]


def _dist(site: Path, folder: str, name: str, version: str) -> None:
    d = site / folder
    d.mkdir()
    (d / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", "utf-8"
    )


def test_distributions_from_metadata_without_importing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _dist(tmp_path, "tensorflow-2.15.1.dist-info", "tensorflow", "2.15.1")
    _dist(tmp_path, "nvidia_cudnn_cu12-8.9.7.29.dist-info", "nvidia-cudnn-cu12", "8.9.7.29")
    _dist(tmp_path, "tf_keras-2.15.1.dist-info", "tf_keras", "2.15.1")
    _dist(tmp_path, "numpy-1.26.4.dist-info", "numpy", "1.26.4")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = dict(Probes().distributions(_wanted_package))
    assert found["tensorflow"] == "2.15.1"
    assert found["nvidia-cudnn-cu12"] == "8.9.7.29"
    assert found["tf_keras"] == "2.15.1"
    assert "numpy" not in found
    assert "tensorflow" not in sys.modules


class _Err(Exception):
    pass


def _fake_pynvml(fail_init: bool = False) -> Any:
    m: Any = types.ModuleType("pynvml")

    def init() -> None:
        if fail_init:
            raise _Err("Driver Not Loaded")

    def mig(h: int) -> list[int]:
        if h == 0:
            raise _Err("Not Supported")
        return [1, 1]

    class Mem:
        total = 85899345920

    m.nvmlInit = init
    m.nvmlShutdown = lambda: None
    m.nvmlSystemGetDriverVersion = lambda: b"535.104.05"
    m.nvmlSystemGetCudaDriverVersion_v2 = lambda: 12020
    m.nvmlDeviceGetCount = lambda: 2
    m.nvmlDeviceGetHandleByIndex = lambda i: i
    m.nvmlDeviceGetName = lambda h: ["NVIDIA TITAN V", "NVIDIA A100-SXM4-80GB"][h]
    m.nvmlDeviceGetCudaComputeCapability = lambda h: [(7, 0), (8, 0)][h]
    m.nvmlDeviceGetMemoryInfo = lambda h: Mem()
    m.nvmlDeviceGetMigMode = mig
    m.nvmlDeviceGetUUID = lambda h: f"GPU-{h}"
    return m


def test_nvml_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    reading = Probes(env={}).nvml()
    assert isinstance(reading, NvmlReading)
    assert (reading.driver, reading.cuda) == ("535.104.05", 12020)
    assert [(g.name, g.cc, g.mig, g.uuid) for g in reading.gpus] == [
        ("NVIDIA TITAN V", (7, 0), False, "GPU-0"),
        ("NVIDIA A100-SXM4-80GB", (8, 0), True, "GPU-1"),
    ]


def test_nvml_failure_is_a_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml(fail_init=True))
    assert Probes(env={}).nvml() == "NVML failed: Driver Not Loaded"


def test_nvml_can_be_switched_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", _fake_pynvml())
    assert Probes(env={"TFENV_DETECT_NVML": "0"}).nvml() is None
