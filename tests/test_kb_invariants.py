"""Invariants of the shipped knowledge base: what holds whatever releases it records.

Every other solver and wording test runs on the frozen snapshot (tests/snapshot.py); these
read the shipped data and name no release: they hold the day ``tfenv refresh`` adds one
(tests/test_fake_release.py runs them on a copy with one more release).
"""

from __future__ import annotations

import pytest
from packaging.version import Version

from tests.checker import check_plan
from tfenv.api import build_request, build_target
from tfenv.kb import KnowledgeBase
from tfenv.kb.releases import known_versions
from tfenv.models.plan import Resolution
from tfenv.models.target import MachineArgs
from tfenv.resolver import resolve

pytestmark = pytest.mark.shipped_kb

#: machines every release line should be answered for (a plan, or conflicts and ways out)
MACHINES = {
    "linux-ampere": MachineArgs(os="linux", cc="8.6", driver="570.124.06", python="3.12"),
    "linux-cpu": MachineArgs(os="linux", no_gpu=True),
    "linux-kepler": MachineArgs(os="linux", gpu="Tesla K80", driver="470.82.01"),
    "linux-aarch64": MachineArgs(os="linux", arch="aarch64", no_gpu=True),
    "wsl2-ada": MachineArgs(os="wsl2", cc="8.9", driver="560.94"),
    "windows-gpu": MachineArgs(os="windows", cc="8.6", driver="535.104.05"),
    "macos-arm": MachineArgs(os="macos", arch="arm64"),
    "macos-x86": MachineArgs(os="macos", arch="x86_64"),
}


def _resolve(kb: KnowledgeBase, machine: MachineArgs, tf: str | None = None) -> Resolution:
    request = build_request(kb, tf, "auto", False, bool(machine.no_gpu), False)
    return resolve(kb, build_target(kb, machine), request)


def _newest_final(kb: KnowledgeBase, platform: str) -> Version:
    """The newest final release of ``tensorflow`` with a wheel for ``platform``."""
    return max(
        r.version
        for r in kb.index.releases("tensorflow")
        if not r.version.is_prerelease and not r.yanked and platform in r.wheels
    )


def test_the_whole_knowledge_base_loads(shipped_kb: KnowledgeBase) -> None:
    shipped_kb.load_all()
    assert known_versions(shipped_kb) == tuple(sorted(set(known_versions(shipped_kb))))


def test_latest_on_a_cpu_box_is_the_newest_final_release(shipped_kb: KnowledgeBase) -> None:
    """Named relative to the newest: whatever the index holds, a CPU-only Linux machine gets
    its newest final release (no pre-release unless asked)."""
    res = _resolve(shipped_kb, MACHINES["linux-cpu"])
    assert res.plan is not None, res.conflict_sentences
    assert Version(res.plan.tensorflow) == _newest_final(shipped_kb, "linux_x86_64")


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_machine_gets_a_checked_plan_or_worded_conflicts(
    shipped_kb: KnowledgeBase, name: str
) -> None:
    res = _resolve(shipped_kb, MACHINES[name])
    if res.plan is not None:
        assert check_plan(shipped_kb, res) == []
        assert not res.conflicts
        return
    assert res.conflicts
    assert res.suggestions
    for c in res.conflicts:
        assert c.sentence.endswith(".")
        assert c.kind
    for s in res.suggestion_sentences:
        assert s.endswith(".")


@pytest.mark.parametrize("name", ["linux-ampere", "linux-cpu", "wsl2-ada"])
def test_each_recent_series_resolves_or_says_why(shipped_kb: KnowledgeBase, name: str) -> None:
    """The five newest stable series: each gives a checked plan or conflicts naming a release
    of that series."""
    series = sorted(
        {(v.major, v.minor) for v in known_versions(shipped_kb) if not v.is_prerelease}
    )[-5:]
    for major, minor in series:
        res = _resolve(shipped_kb, MACHINES[name], f"{major}.{minor}")
        if res.plan is not None:
            assert res.plan.tensorflow.startswith(f"{major}.{minor}.")
            assert check_plan(shipped_kb, res) == []
        else:
            assert any(
                (c.version or "").startswith(f"{major}.{minor}.") or c.kind == "request"
                for c in res.conflicts
            ), res.conflict_sentences
