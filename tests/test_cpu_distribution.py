"""CPU plans install the CPU-only distribution (tensorflow-cpu) where the release has a real
wheel of it for the platform and Python that is smaller than tensorflow's, and say why with
the recorded sizes; elsewhere (a stub, no wheel, no smaller) they install tensorflow. The
releases come from the index data."""

from __future__ import annotations

from typing import Optional

import pytest

from tests.test_resolve_cases import run_case
from tfenv.kb import KnowledgeBase
from tfenv.kb.index import WheelSet
from tfenv.kb.releases import tf_options

PLATFORMS = {"linux_x86_64": "linux", "windows_x86_64": "windows"}


def _cpu_wheels(kb: KnowledgeBase, version: object, platform: str) -> Optional[WheelSet]:
    rel = kb.index.release("tensorflow-cpu", str(version))
    return rel.wheelset(platform) if rel is not None else None


@pytest.mark.parametrize("platform", sorted(PLATFORMS))
def test_cpu_plans_follow_the_recorded_wheels(kb: KnowledgeBase, platform: str) -> None:
    seen = {"tensorflow-cpu": 0, "tensorflow": 0}
    for opt in tf_options(kb, "tensorflow", platform)[:12]:  # the newest dozen
        if opt.yanked or opt.version.is_prerelease or not opt.pythons or opt.wheels is None:
            continue
        py = str(opt.pythons[0])
        ws = _cpu_wheels(kb, opt.version, platform)
        smaller = ws is not None and not ws.is_stub and ws.serves(py) and ws.size < opt.wheels.size
        args = {"os": PLATFORMS[platform], "no_gpu": True, "python": py, "tf": str(opt.version)}
        plan = run_case(kb, args).plan
        assert plan is not None, (platform, opt.version)
        want = "tensorflow-cpu" if smaller else "tensorflow"
        assert plan.package == want, (platform, opt.version, plan.package)
        assert plan.pip[0] == f"{want}=={opt.version}"
        if smaller:
            assert ws is not None
            why = next(r for r in plan.reasons if r.startswith(f"tensorflow-cpu {opt.version}:"))
            assert f"{ws.size / 1e6:.0f} MB" in why
            assert f"{opt.wheels.size / 1e6:.0f} MB" in why
        seen[want] += 1
    if platform == "linux_x86_64":  # Linux's tensorflow wheel carries CUDA: the CPU one is smaller
        assert seen["tensorflow-cpu"] > 0
    else:  # Windows' tensorflow wheels are CPU builds already
        assert seen["tensorflow"] > 0
