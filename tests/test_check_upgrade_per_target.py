"""``check-upgrade`` for a team whose targets pin TensorFlow versions of their own: each
target's upgrade is judged from its own current version (its ``tensorflow`` in its table),
the others from the team's. Versions are named relative to the knowledge base."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.upgrade.inputs import newest

KB = KnowledgeBase.from_environment()

CONFIG = """\
[tool.tfenv]
tensorflow = "{shared}"
python = "3.10"

[tool.tfenv.targets.cluster]
os = "linux"
gpu = "A100"
driver = "550.54.15"
glibc = "2.31"

[tool.tfenv.targets.old-k80]
os = "linux"
cc = "3.7"
driver = "470.82.01"
glibc = "2.31"
tensorflow = "{own}"
"""


def last_of(series: str) -> str:
    return str(newest(KB, SpecifierSet(f"=={series}.*")))


def check(capsys: pytest.CaptureFixture[str], path: Path, *argv: str) -> tuple[int, Any]:
    capsys.readouterr()
    code = main(["check-upgrade", "--config", str(path), *argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, json.loads(out)


@pytest.fixture
def team(tmp_path: Path) -> Path:
    path = tmp_path / "tfenv.toml"
    path.write_text(CONFIG.format(shared="2.14", own="2.10"), encoding="utf-8")
    return path


def test_each_target_starts_from_its_own_version(
    capsys: pytest.CaptureFixture[str], team: Path
) -> None:
    code, data = check(capsys, team, "--to", "2.16")
    start = {t["name"]: t["from"] for t in data["targets"]}
    assert start == {"cluster": last_of("2.14"), "old-k80": last_of("2.10")}
    assert {t["name"]: t["to"] for t in data["targets"]} == {
        "cluster": last_of("2.16"),
        "old-k80": last_of("2.16"),
    }
    k80 = next(t for t in data["targets"] if t["name"] == "old-k80")
    assert k80["status"] == "blocked"  # Kepler: 2.16 has no code for it
    assert code == 1


def test_a_target_already_on_the_release_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "tfenv.toml"
    path.write_text(CONFIG.format(shared="2.14", own="2.16"), encoding="utf-8")
    _, data = check(capsys, path, "--to", "2.16")
    k80 = next(t for t in data["targets"] if t["name"] == "old-k80")
    assert k80["from"] == k80["to"] == last_of("2.16")
    cluster = next(t for t in data["targets"] if t["name"] == "cluster")
    assert cluster["from"] == last_of("2.14")


def test_a_target_filter_keeps_the_targets_own_version(
    capsys: pytest.CaptureFixture[str], team: Path
) -> None:
    _, data = check(capsys, team, "--to", "2.16", "--target", "old-k80")
    assert [(t["name"], t["from"]) for t in data["targets"]] == [("old-k80", last_of("2.10"))]


def test_a_move_below_one_targets_version_is_a_downgrade(
    capsys: pytest.CaptureFixture[str], team: Path
) -> None:
    capsys.readouterr()
    code = main(["check-upgrade", "--config", str(team), "--to", "2.12"])
    _, err = capsys.readouterr()
    assert code == 2
    assert "older than the current" in err
    assert last_of("2.14") in err
