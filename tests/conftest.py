from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.version import Version

from tests import snapshot
from tfenv.host.profile import GpuInfo, HostProfile
from tfenv.kb import KnowledgeBase


def pytest_configure(config: pytest.Config) -> None:
    """Every test (and every tfenv it starts) reads the frozen snapshot of the knowledge
    base, unless it is marked ``shipped_kb`` (tests/snapshot.py)."""
    os.environ["TFENV_DATA_DIR"] = str(snapshot.SNAPSHOT)
    # English, whatever the locale of the machine running the tests (tests/test_i18n.py
    # chooses Chinese where it means to)
    os.environ["TFENV_LANG"] = "en"
    # a suite started in the background of a non-interactive shell (`cmd &`, nohup) inherits
    # SIGINT ignored, and so would every tfenv it starts: the tests that send SIGINT would
    # see it ignored. A handler here (not SIG_IGN) is reset to the default in children.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _knowledge_base(request: pytest.FixtureRequest) -> Iterator[None]:
    if request.node.get_closest_marker("shipped_kb") is None:
        os.environ["TFENV_DATA_DIR"] = str(snapshot.SNAPSHOT)  # a test may have changed it
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        shipped = snapshot.shipped_dir()
        if shipped is None:
            mp.delenv("TFENV_DATA_DIR", raising=False)
        else:
            mp.setenv("TFENV_DATA_DIR", str(shipped))
        yield


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The frozen snapshot of the knowledge base, loaded once."""
    return snapshot.frozen_kb()


@pytest.fixture(scope="session")
def shipped_kb() -> KnowledgeBase:
    """The shipped knowledge base (for tests marked ``shipped_kb``), loaded once."""
    return snapshot.shipped_kb()


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
