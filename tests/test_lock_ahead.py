"""uv runs started before planning (``tfenv.lock.ahead``): used only when equal in every
input to a planned run, so the files are those of a lock without them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest

from tests.lock_index import (  # the fixtures: wheels, index
    LockIndex,
    index_fixture,  # noqa: F401
    lock_project_folder,
    wheels_fixture,  # noqa: F401
)
from tfenv.cli import main
from tfenv.lock import ahead, pip


@pytest.fixture
def records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "records"

    def path(key: Optional[str]) -> Optional[Path]:
        return None if key is None else folder / f"{key}.json"

    monkeypatch.setattr(ahead, "_path", path)
    return folder


class Counted:
    """Counts uv processes started, and those cancelled without their result being used."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started = 0
        self._cancelled: set[int] = set()
        self._used: set[int] = set()
        real_init, real_result = pip.UvRun.__init__, pip.UvRun.result
        real_cancel = pip.UvRun.cancel
        counter = self

        def init(self: pip.UvRun, *a: Any, **kw: Any) -> None:
            counter.started += 1
            real_init(self, *a, **kw)

        def result(self: pip.UvRun) -> dict[str, Any]:
            counter._used.add(id(self))
            return real_result(self)

        def cancel(self: pip.UvRun) -> None:
            if id(self) not in counter._used:
                counter._cancelled.add(id(self))
            real_cancel(self)

        monkeypatch.setattr(pip.UvRun, "__init__", init)
        monkeypatch.setattr(pip.UvRun, "result", result)
        monkeypatch.setattr(pip.UvRun, "cancel", cancel)

    @property
    def cancelled(self) -> int:
        return len(self._cancelled)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_a_relock_starts_the_recorded_runs_and_writes_the_same_bytes(
    index: LockIndex,
    tmp_path: Path,
    records: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = lock_project_folder(tmp_path)
    args = ["lock", "--config", str(project), "--index-url", index.url, "-q"]
    args += ["--cache-dir", str(tmp_path / "cache")]
    counted = Counted(monkeypatch)
    assert main(args) == 0
    assert counted.started == 4  # gpu, cpu, win, mac: four distinct runs, nothing ahead
    assert len(list(records.glob("*.json"))) == 1
    first = _snapshot(project)

    counted = Counted(monkeypatch)
    assert main(args) == 0
    assert counted.started == 4  # the same four, started ahead and used
    assert counted.cancelled == 0
    assert _snapshot(project) == first

    # another dependency: a new key, nothing started ahead, the files follow the change
    text = (project / "tfenv.toml").read_text("utf-8")
    (project / "tfenv.toml").write_text(text.replace('["tinydep"]', "[]"), "utf-8")
    counted = Counted(monkeypatch)
    assert main(args) == 0
    assert counted.started == 4
    assert "tinydep" not in (project / "requirements.cpu.txt").read_text("utf-8")


def test_a_stale_record_is_cancelled_not_used(
    index: LockIndex,
    tmp_path: Path,
    records: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = lock_project_folder(tmp_path)
    args = ["lock", "--config", str(project), "--index-url", index.url, "-q", "--target", "cpu"]
    args += ["--cache-dir", str(tmp_path / "cache")]
    assert main(args) == 0
    alone = _snapshot(project)
    (record,) = records.glob("*.json")
    # a record whose run no target plans now (as after a knowledge-base change)
    record.write_text(record.read_text("utf-8").replace('"3.11"', '"3.10"'), "utf-8")
    counted = Counted(monkeypatch)
    assert main(args) == 0
    assert counted.started == 2  # the recorded one, then the planned one
    assert counted.cancelled == 1
    assert _snapshot(project) == alone


def test_unreadable_records_are_ignored(records: Path, tmp_path: Path) -> None:
    config = tmp_path / "tfenv.toml"
    config.write_text("[targets.a]\nos = 'linux'\n", "utf-8")
    key = ahead.run_key(tmp_path, ("a",))
    assert key is not None
    assert key == ahead.run_key(config.parent, ("a",))
    assert key != ahead.run_key(tmp_path, ("b",))
    assert ahead.run_key(tmp_path / "missing", ()) is None
    records.mkdir()
    (records / f"{key}.json").write_text("{not json", "utf-8")
    assert ahead.start(key, 4) == {}
    (records / f"{key}.json").write_text('[{"index_url": 1}]', "utf-8")
    assert ahead.start(key, 4) == {}
    assert ahead.start(None, 4) == {}


def test_the_key_covers_the_files_a_configuration_comes_from() -> None:
    from tfenv.config import CONFIG_FILES

    assert ahead._CONFIG_NAMES == CONFIG_FILES
