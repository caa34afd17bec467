"""A container target in the lock configuration: the image brings TensorFlow and CUDA, the
lock pins the project's own dependencies to install in it (with hashes)."""

from __future__ import annotations

from pathlib import Path

from tests.lock_index import LockIndex, index_fixture, wheels_fixture  # noqa: F401 (fixtures)
from tests.snapshot import frozen_kb
from tfenv.config import load_config
from tfenv.lock import LockOptions, lock_project

CONFIG = """\
tensorflow = "{tf}"
python = "3.11"
dependencies = ["tinydep"]

[targets.box]
os = "linux"
cc = "8.0"
driver = "535.104.05"
glibc = "2.31"
manager = "container"
"""


def _lock(index: LockIndex, tmp_path: Path, tf: str) -> str:
    (tmp_path / "tfenv.toml").write_text(CONFIG.format(tf=tf), "utf-8")
    opts = LockOptions(index_url=index.url, cache_dir=tmp_path / "uv", retries=0)
    lock_project(frozen_kb(), load_config(tmp_path), opts)
    return (tmp_path / "requirements.box.txt").read_text("utf-8")


def test_official_image_target_locks_the_projects_dependencies(
    index: LockIndex, tmp_path: Path
) -> None:
    """2.16.1's official image carries TensorFlow: the lock pins only the project's own."""
    text = _lock(index, tmp_path, "2.16.1")
    assert "route container" in text
    assert "tinydep==1.0" in text
    assert "six==1.16.0" in text
    assert "tensorflow==" not in text  # the image carries TensorFlow
    assert "--hash=sha256:" in text


def test_cuda_base_target_locks_tensorflow_and_its_cuda_wheels(
    index: LockIndex, tmp_path: Path
) -> None:
    """2.15.1 has no official image: the plan installs tensorflow[and-cuda] on NVIDIA's CUDA
    base image, so the lock pins TensorFlow and its CUDA wheels, with hashes."""
    text = _lock(index, tmp_path, "2.15")
    assert "tensorflow==2.15.1" in text
    assert "nvidia-cudnn-cu12==8.9.4.25" in text
    assert "tinydep==1.0" in text
    assert text.count("--hash=sha256:") >= 5
