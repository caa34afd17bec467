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
    _, data = check(capsys, team, "--to", "2.16")
    start = {t["name"]: t["from"] for t in data["targets"]}
    assert start == {"cluster": last_of("2.14"), "old-k80": last_of("2.10")}
    assert {t["name"]: t["to"] for t in data["targets"]} == {
        "cluster": last_of("2.16"),
        "old-k80": last_of("2.10"),  # held by the team on its own version: it stays
    }


def test_a_target_pinned_below_the_move_is_held_not_blocked(
    capsys: pytest.CaptureFixture[str], team: Path
) -> None:
    """The team keeps old-k80 on 2.10 on purpose: moving the team to 2.16 does not move
    it, so its Kepler GPU (no code in 2.16) must not fail the gate, even with --strict
    (the cluster's warnings aside)."""
    code, data = check(capsys, team, "--to", "2.16")
    k80 = next(t for t in data["targets"] if t["name"] == "old-k80")
    assert k80["status"] == "held"
    assert k80["findings"] == []
    assert k80["resolves"] is None
    assert k80["held"]["tensorflow"] == "2.10"
    assert k80["held"]["table"] == "tool.tfenv.targets.old-k80"
    assert k80["held"]["config"] == str(team)
    assert 'tensorflow = "2.10"' in k80["held"]["sentence"]
    assert data["status"] != "blocked"
    assert code == 0
    capsys.readouterr()
    assert main(["check-upgrade", "--config", str(team), "--to", "2.16", "--strict"]) == 1
    text = capsys.readouterr().out
    ten = last_of("2.10")
    assert f"== old-k80: {ten} -> {ten}  [held by the team]" in text
    assert "[tool.tfenv.targets.old-k80]" in text
    assert "BLOCKED" not in text
    assert "not moving and not checked: old-k80." in text


def test_a_held_target_alone_passes_the_gate_in_every_format(
    capsys: pytest.CaptureFixture[str], team: Path
) -> None:
    argv = ["check-upgrade", "--config", str(team), "--to", "2.16", "--target", "old-k80"]
    for form in ("--json", "--markdown", None):
        capsys.readouterr()
        code = main([*argv, "--strict", *([form] if form else [])])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "BLOCKED" not in out
        assert '"blocked"' not in out
        assert "BLOCKER" not in out
    capsys.readouterr()
    main([*argv, "--markdown"])
    md = capsys.readouterr().out
    assert f"| old-k80 | {last_of('2.10')} | {last_of('2.10')} | held by the team | - | - |" in md
    assert "[tool.tfenv.targets.old-k80] in tfenv.toml" in md  # relative in a PR comment


def test_a_target_whose_own_request_takes_the_release_moves(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "tfenv.toml"
    path.write_text(CONFIG.format(shared="2.14", own="<2.17"), encoding="utf-8")
    code, data = check(capsys, path, "--to", "2.16", "--target", "old-k80")
    assert data["targets"][0]["status"] == "blocked"
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


def test_a_target_held_above_the_move_does_not_make_it_a_downgrade(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The team moves 2.14 -> 2.15 while keeping old-k80 on 2.16 of its own: the move is
    an upgrade of the targets that move, and old-k80 is held."""
    path = tmp_path / "tfenv.toml"
    path.write_text(CONFIG.format(shared="2.14", own="2.16"), encoding="utf-8")
    code, data = check(capsys, path, "--to", "2.15")
    assert data["direction"] == "upgrade"
    assert {t["name"]: t["status"] for t in data["targets"]}["old-k80"] == "held"
    assert code == 0
