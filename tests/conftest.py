from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.host.profile import GpuInfo, HostProfile
from tfenv.kb import KnowledgeBase


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The shipped knowledge base, loaded once."""
    return KnowledgeBase()


@pytest.fixture
def gpu_host_file(tmp_path: Path) -> Path:
    """A host file of an RTX 3090 machine (driver 535.104.05), as ``tfenv detect`` writes it."""
    host = tmp_path / "gpu-host.json"
    profile = HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        driver="535.104.05",
        driver_cuda=Version("12.2"),
        gpus=(GpuInfo(0, "NVIDIA GeForce RTX 3090", Version("8.6"), "nvml"),),
    )
    host.write_text(profile.to_json())
    return host
