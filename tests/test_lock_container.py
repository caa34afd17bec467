"""A container target in the lock configuration: the image brings TensorFlow and CUDA, the
lock pins the project's own dependencies to install in it (with hashes)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lock_index import LockIndex, build_wheels, serve
from tfenv.config import load_config
from tfenv.kb import KnowledgeBase
from tfenv.lock import LockOptions, lock_project

CONFIG = """\
tensorflow = "2.15"
python = "3.11"
dependencies = ["tinydep"]

[targets.box]
os = "linux"
cc = "8.0"
driver = "535.104.05"
glibc = "2.31"
manager = "container"
"""


@pytest.fixture
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LockIndex]:
    yield from serve(LockIndex(build_wheels(tmp_path_factory.mktemp("wheels"))))


def test_container_target_locks_the_projects_dependencies(index: LockIndex, tmp_path: Path) -> None:
    (tmp_path / "tfenv.toml").write_text(CONFIG, "utf-8")
    opts = LockOptions(index_url=index.url, cache_dir=tmp_path / "uv", retries=0)
    lock_project(KnowledgeBase(), load_config(tmp_path), opts)
    text = (tmp_path / "requirements.box.txt").read_text("utf-8")
    assert "route container" in text
    assert "tinydep==1.0" in text
    assert "six==1.16.0" in text
    assert "tensorflow==" not in text  # the image carries TensorFlow
    assert "--hash=sha256:" in text
