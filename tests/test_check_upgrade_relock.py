"""``check-upgrade --relock``: every pin of the current lock against a fresh lock (local index)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lock_index import LockIndex, build_wheels, serve
from tfenv.cli import main
from tfenv.config import load_config
from tfenv.kb import KnowledgeBase
from tfenv.lock import LockOptions, lock_project

CONFIG = Path(__file__).parent / "data" / "lock" / "tfenv.toml"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_wheels(tmp_path_factory.mktemp("wheels"))


@pytest.fixture
def index(wheels: Path) -> Iterator[LockIndex]:
    yield from serve(LockIndex(wheels))


def test_relock_diffs_every_pin(
    index: LockIndex,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    shutil.copy(CONFIG, project / "tfenv.toml")
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    opts = LockOptions(index_url=index.url, only=("cpu",), retries=0, timeout_s=10.0)
    lock_project(KnowledgeBase(), load_config(project), opts)
    lockfile = project / "requirements.cpu.txt"
    assert "numpy==1.26.4" in lockfile.read_text("utf-8")
    code = main(
        [
            "check-upgrade",
            "--config",
            str(project / "tfenv.toml"),
            "--target",
            "cpu",
            "--from-file",
            str(lockfile),
            "--to",
            "2.16.1",
            "--relock",
            "--index-url",
            index.url,
            "--json",
        ]
    )
    data = json.loads(capsys.readouterr().out)
    (target,) = data["targets"]
    changes = {c["name"]: c for c in target["packages"]["changes"]}
    # 2.16.1's (stand-in) wheel no longer requires numpy: only a full re-lock sees it go
    assert changes["numpy"]["change"] == "removed"
    assert (changes["tensorflow"]["old"], changes["tensorflow"]["new"]) == ("2.15.1", "2.16.1")
    assert "six" not in changes
    assert "tinydep" not in changes
    assert "fresh lock" in target["packages"]["basis"]
    assert code == 0, target["findings"]  # warnings only (Keras 3): not a blocker
    assert not list(project.glob("*.tmp"))
    assert lockfile.read_text("utf-8").count("==") > 3


def test_relock_needs_a_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "check-upgrade",
            "--from",
            "2.15",
            "--to",
            "2.16",
            "--os",
            "linux",
            "--no-gpu",
            "--python",
            "3.11",
            "--relock",
        ]
    )
    assert code == 2
    assert "--relock needs" in capsys.readouterr().err
