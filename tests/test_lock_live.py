"""Live: lock ``tensorflow[and-cuda]==2.15.1`` for Linux x86_64 / Python 3.11, and the
CUDA-library cases of 2.21 (tests/data/lock/cuda_libs.yaml), from the configured index
(needs network; run in CI with ``-m live``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.lock_cases import LockCase, check_lockfiles, load_cases
from tests.lock_index import live_uv_cache
from tfenv.config import load_config
from tfenv.kb import KnowledgeBase
from tfenv.lock import LockOptions, lock_project

pytestmark = pytest.mark.live

CONFIG = """
tensorflow = "2.15.1"
python = "3.11"
[targets.cluster]
os = "linux"
arch = "x86_64"
cc = "8.0"
driver = "535.104.05"
glibc = "2.31"
"""


def _options(request: pytest.FixtureRequest, tmp_path: Path) -> LockOptions:
    cache = live_uv_cache(request, tmp_path)
    return LockOptions(cache_dir=cache, timeout_s=60.0, environ=os.environ)


def test_live_lock_and_cuda(
    request: pytest.FixtureRequest, tmp_path: Path, kb: KnowledgeBase
) -> None:
    (tmp_path / "tfenv.toml").write_text(CONFIG)
    opts = _options(request, tmp_path)
    lock_project(kb, load_config(tmp_path), opts)
    text = (tmp_path / "requirements.cluster.txt").read_text()
    for pin in (
        "tensorflow==2.15.1",
        "nvidia-cudnn-cu12==8.9.4.25",
        "nvidia-cublas-cu12==12.2.5.6",
        "nvidia-cuda-runtime-cu12==12.2.140",
    ):
        assert pin in text, pin
    entries = text.split("\n")
    pins = [i for i, ln in enumerate(entries) if "==" in ln and not ln.startswith("#")]
    assert len(pins) > 20
    for i in pins:  # every entry is followed by at least one hash
        assert entries[i].endswith("\\")
        assert entries[i + 1].strip().startswith("--hash=sha256:")
    assert (tmp_path / "pylock.cluster.toml").is_file()


LIVE_CASES = [c for c in load_cases() if c.live]


@pytest.mark.parametrize("case", LIVE_CASES, ids=[c.id for c in LIVE_CASES])
def test_live_lock_pins_the_cuda_libs_policy(
    case: LockCase, request: pytest.FixtureRequest, tmp_path: Path, kb: KnowledgeBase
) -> None:
    """2.21 on the configured index: the extra's ranges would give cuDNN 9.28 and CUDA 12.9
    wheels; the lock pins the build versions (9.3.0.75, 12.5), or with cuda-libs = "newest"
    the newest the GPU and driver run, and its header says what it pins."""
    (tmp_path / "tfenv.toml").write_text(case.config, "utf-8")
    opts = _options(request, tmp_path)
    lock_project(kb, load_config(tmp_path), opts)
    check_lockfiles(tmp_path, case)
