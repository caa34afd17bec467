"""The solver against data-driven cases (tests/cases/resolve.yaml) and an independent checker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.checker import check_plan
from tfenv.api import build_request, build_target
from tfenv.kb import KnowledgeBase
from tfenv.models.plan import Resolution
from tfenv.models.target import MachineArgs
from tfenv.resolver import resolve

FILES = sorted((Path(__file__).parent / "cases").glob("resolve*.yaml"))
CASES = [case for path in FILES for case in yaml.safe_load(path.read_text("utf-8"))]


def test_the_cases_are_read() -> None:
    """Not vacuous: every case file is found (an empty parametrization only skips), and no
    id hides another."""
    assert [p.name for p in FILES] == ["resolve.yaml", "resolve_edge.yaml", "resolve_minors.yaml"]
    assert len(CASES) > 100
    assert len({c["id"] for c in CASES}) == len(CASES)


def run_case(kb: KnowledgeBase, args: dict[str, Any]) -> Resolution:
    machine = MachineArgs(
        os=args.get("os"),
        arch=args.get("arch"),
        gpu=args.get("gpu"),
        cc=args.get("cc"),
        no_gpu=bool(args.get("no_gpu")),
        driver=args.get("driver"),
        glibc=args.get("glibc"),
        python=args.get("python"),
    )
    request = build_request(
        kb,
        args.get("tf"),
        args.get("manager", "auto"),
        bool(args.get("allow_cpu")),
        bool(args.get("no_gpu")),
        bool(args.get("pre")),
    )
    return resolve(kb, build_target(kb, machine), request)


def check_target(res: Resolution, want: dict[str, Any]) -> None:
    """``expect.target``: facts of the machine as tfenv took them (arch, cc, gpu name, notes)."""
    t = res.target
    got = {"arch": t.arch, "os": t.os, "cc": str(t.cc) if t.cc else None, "gpu": t.gpu_name}
    for key, value in want.items():
        if key == "notes":
            for text in value:
                assert any(text in n for n in t.notes), t.notes
        else:
            assert got[key] == value, (key, got)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(kb: KnowledgeBase, case: dict[str, Any]) -> None:
    res = run_case(kb, case["args"])
    expect = dict(case["expect"])
    check_target(res, expect.pop("target", {}))
    if expect.pop("status", "ok") == "unsatisfiable":
        _check_unsatisfiable(res, expect)
        return
    assert res.plan is not None, res.conflicts
    got = res.plan.to_dict()
    for key, want in expect.items():
        if key in ("warnings", "reasons"):
            for text in want:
                assert any(text in w for w in got[key]), got[key]
        elif key.startswith("not_in_"):
            for text in want:
                assert not any(text in w for w in got[key[len("not_in_") :]]), got
        else:
            assert got[key] == want, (key, got)
    assert check_plan(kb, res) == []


def _check_unsatisfiable(res: Resolution, expect: dict[str, Any]) -> None:
    assert res.plan is None, f"expected no plan, got {res.plan}"
    said = {
        "conflicts": " ".join(res.conflict_sentences),
        "suggestions": " ".join(res.suggestion_sentences),
    }
    for key in ("conflicts", "suggestions"):
        for text in expect.get(key, []):
            assert text in said[key], said[key]
        for text in expect.get(f"not_in_{key}", []):
            assert text not in said[key], said[key]
