"""Property test: random machines and requests against the solver and the independent checker.

Every plan the solver returns must pass ``tests.checker.check_plan``; every
unsatisfiable answer must say why (a conflict) and what to do (a suggestion);
and the same question must always get the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.checker import check_plan
from tests.snapshot import frozen_kb
from tfenv.api import build_request, build_target
from tfenv.models.plan import Resolution
from tfenv.models.target import MachineArgs
from tfenv.resolver import resolve

KB = frozen_kb()  # module level: Hypothesis strategies are built at import time

_NUM = tuple[int, ...]


def _key(text: str) -> _NUM:
    return tuple(int(p) for p in text.split("."))


CCS = tuple(sorted({str(m.compute_capability) for m in KB.gpus.models}, key=_key))
TF_RELEASES = tuple(str(r.version) for r in KB.index.releases("tensorflow"))

ARCHES = {
    "linux": ("x86_64", "aarch64"),
    "wsl2": ("x86_64",),
    "windows": ("x86_64",),
    "macos": ("x86_64", "arm64"),
}

# real NVIDIA driver versions, Linux (.run / distro packages) and Windows, branches 396..580
DRIVERS = (
    "396.26",
    "396.54",
    "410.48",
    "410.79",
    "418.39",
    "418.87.01",
    "430.50",
    "440.33.01",
    "440.64",
    "450.51.05",
    "450.80.02",
    "452.39",
    "455.23.05",
    "460.32.03",
    "461.79",
    "465.19.01",
    "470.57.02",
    "470.82.01",
    "470.199.02",
    "472.12",
    "495.29.05",
    "510.47.03",
    "511.65",
    "515.65.01",
    "517.48",
    "520.61.05",
    "525.60.13",
    "525.147.05",
    "528.33",
    "530.30.02",
    "535.104.05",
    "535.183.01",
    "537.13",
    "545.23.08",
    "546.01",
    "550.54.15",
    "550.127.05",
    "552.22",
    "555.42.06",
    "560.35.03",
    "560.94",
    "565.57.01",
    "566.36",
    "570.86.15",
    "570.124.06",
    "572.16",
    "575.51.03",
    "576.02",
    "580.65.06",
    "580.88",
)
PYTHONS = tuple(f"3.{m}" for m in range(7, 15))
GLIBCS = ("2.17", "2.27", "2.31", "2.35")


@dataclass(frozen=True)
class Case:
    machine: MachineArgs
    tf: str
    manager: str
    allow_cpu: bool
    no_gpu: bool

    def flags(self) -> str:
        """The case as the equivalent command line, for failure messages."""
        m = self.machine
        parts = [f"--tf '{self.tf}'", f"--os {m.os}", f"--arch {m.arch}"]
        for flag, value in (
            ("--cc", m.cc),
            ("--driver", m.driver),
            ("--python", m.python),
            ("--glibc", m.glibc),
        ):
            if value is not None:
                parts.append(f"{flag} {value}")
        if self.no_gpu:
            parts.append("--no-gpu")
        if self.allow_cpu:
            parts.append("--allow-cpu")
        parts.append(f"--manager {self.manager}")
        return "tfenv resolve " + " ".join(parts)


def _optional(values: tuple[str, ...]) -> st.SearchStrategy[Optional[str]]:
    return st.one_of(st.none(), st.sampled_from(values))


@st.composite
def tf_specs(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(("latest", "series", "release", "range")))
    if kind == "latest":
        return "latest"
    if kind == "series":
        return f"2.{draw(st.integers(0, 21))}"
    if kind == "release":
        return draw(st.sampled_from(TF_RELEASES))
    lo = draw(st.integers(0, 20))
    hi = draw(st.integers(lo + 1, 22))
    return f">=2.{lo},<2.{hi}"


@st.composite
def cases(draw: st.DrawFn) -> Case:
    os_ = draw(st.sampled_from(tuple(ARCHES)))
    arch = draw(st.sampled_from(ARCHES[os_]))
    no_gpu = draw(st.booleans())
    cc = None if no_gpu else draw(_optional(CCS))
    glibc = draw(_optional(GLIBCS)) if os_ in ("linux", "wsl2") else None
    machine = MachineArgs(
        os=os_,
        arch=arch,
        cc=cc,
        no_gpu=no_gpu,
        driver=draw(_optional(DRIVERS)),
        glibc=glibc,
        python=draw(_optional(PYTHONS)),
    )
    return Case(
        machine=machine,
        tf=draw(tf_specs()),
        manager=draw(st.sampled_from(("auto", "pip", "conda", "container"))),
        allow_cpu=draw(st.booleans()),
        no_gpu=no_gpu,
    )


def solve(case: Case) -> Resolution:
    request = build_request(KB, case.tf, case.manager, case.allow_cpu, case.no_gpu)
    target = build_target(KB, case.machine)
    return resolve(KB, target, request)


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(cases())
def test_every_answer_is_sound(case: Case) -> None:
    res = solve(case)
    if res.plan is not None:
        problems = check_plan(KB, res)
        assert problems == [], f"{case.flags()}\n  plan: {res.plan.to_dict()}\n  {problems}"
        assert res.conflicts == (), case.flags()
        assert res.suggestions == (), case.flags()
    else:
        assert res.conflicts, f"{case.flags()}: unsatisfiable without a conflict sentence"
        assert all(c.strip() for c in res.conflict_sentences), (case.flags(), res.conflicts)
        assert res.suggestions, f"{case.flags()}: unsatisfiable without a suggestion"
        assert all(s.strip() for s in res.suggestion_sentences), (case.flags(), res.suggestions)
    again = solve(case)
    assert again.to_dict() == res.to_dict(), f"{case.flags()}: two solves differ"


def test_strategy_covers_the_catalog() -> None:
    """The drawn values are the real ones (guards against an empty or shrunken KB list)."""
    assert "8.6" in CCS
    assert "12.0" in CCS
    assert "3.5" in CCS
    assert "2.15.1" in TF_RELEASES
    assert "2.0.0" in TF_RELEASES
    for driver in DRIVERS:
        assert 396 <= int(driver.split(".")[0]) <= 580
