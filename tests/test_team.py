"""One TensorFlow version for the team: the newest every target runs, or who blocks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfenv.config import load_config
from tfenv.errors import ConfigError, UnsatisfiableError
from tfenv.kb import KnowledgeBase
from tfenv.lock import plan_team
from tfenv.team import team_resolve


def _config(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tfenv.toml").write_text(text)
    return tmp_path


TEAM = """
python = "3.11"
[targets.cluster]
os = "linux"
cc = "8.0"
driver = "535.104.05"
[targets.mac]
os = "macos"
arch = "arm64"
[targets.cpu]
os = "linux"
no-gpu = true
"""


def test_newest_common_version(tmp_path: Path, kb: KnowledgeBase) -> None:
    team = team_resolve(kb, load_config(_config(tmp_path, TEAM)))
    assert team.ok
    assert team.tensorflow is not None
    plans = {n: r.plan for n, r in team.resolutions}
    assert all(p is not None and p.tensorflow == team.tensorflow for p in plans.values())
    assert plans["cluster"] is not None
    assert plans["cluster"].route == "pip"


def test_old_driver_lowers_the_team_version(tmp_path: Path, kb: KnowledgeBase) -> None:
    text = TEAM + '[targets.old]\nos = "linux"\ncc = "7.0"\ndriver = "470.57.02"\n'
    new = team_resolve(kb, load_config(_config(tmp_path, TEAM)))
    team = team_resolve(kb, load_config(_config(tmp_path, text)))
    assert team.ok
    assert team.tensorflow is not None
    assert new.tensorflow is not None
    from packaging.version import Version

    assert Version(team.tensorflow) < Version(new.tensorflow)
    assert dict(team.newest)["old"] == team.tensorflow


def test_windows_gpu_blocks_2_15(tmp_path: Path, kb: KnowledgeBase) -> None:
    text = 'tensorflow = "2.15"\n' + TEAM + '[targets.wingpu]\nos = "windows"\ncc = "8.6"\n'
    team = team_resolve(kb, load_config(_config(tmp_path, text)))
    assert not team.ok
    assert [b.target for b in team.blockers] == ["wingpu"]
    assert "target 'wingpu' has no TensorFlow stack at all" in team.explain()
    msg = "\n".join(team.explain_lines())  # the reasons and ways out, a line each
    assert msg.startswith("- Target 'wingpu' has no TensorFlow stack at all:")
    assert "No CUDA build of TensorFlow for this platform" in msg
    assert "WSL2" in msg  # the way out
    with pytest.raises(UnsatisfiableError) as err:
        plan_team(kb, load_config(tmp_path))
    assert err.value.exit_code == 1


def test_unknown_gpu_names_the_target(tmp_path: Path, kb: KnowledgeBase) -> None:
    text = '[targets.x]\nos = "linux"\ngpu = "Voodoo 5"\n'
    with pytest.raises(ConfigError) as err:
        team_resolve(kb, load_config(_config(tmp_path, text)))
    assert err.value.key == "targets.x"
