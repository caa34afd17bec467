"""``check-upgrade --relock``: every pin of the current lock against a fresh lock (local index)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.lock_index import (  # the fixtures: wheels, index
    LockIndex,
    index_fixture,  # noqa: F401
    lock_project_folder,
    wheels_fixture,  # noqa: F401
)
from tests.snapshot import frozen_kb
from tfenv.cli import main
from tfenv.config import load_config
from tfenv.lock import LockOptions, lock_project


def test_relock_diffs_every_pin(
    index: LockIndex,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = lock_project_folder(tmp_path)
    monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    opts = LockOptions(index_url=index.url, only=("cpu",), retries=0, timeout_s=10.0)
    lock_project(frozen_kb(), load_config(project), opts)
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
    tf = changes["tensorflow-cpu"]  # the cpu target installs the CPU-only distribution
    assert (tf["old"], tf["new"]) == ("2.15.1", "2.16.1")
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
