"""The solver on a synthetic knowledge base, case by case, as resolvelib tests its core.

``tests/kb_synthetic`` is a complete, hand-written data folder of invented releases,
drivers and GPUs; ``tests/cases/synthetic.yaml`` holds machine + request -> the
expected plan, or the expected conflict (the rule kinds it reports, and its words).
Every rule in :data:`tfenv.rules.RULES` must be exercised by some case: a plan whose
release it constrained, a conflict it reported, or a failure :func:`tfenv.rules.failures`
finds for a release on a case's machine.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.version import Version

from tests.case_expect import assert_conflict_texts
from tests.checker import check_plan
from tests.test_resolve_cases import check_target, run_case
from tfenv import rules
from tfenv.kb import KnowledgeBase, gpu_families
from tfenv.kb.errors import load as load_errors
from tfenv.kb.releases import tf_options
from tfenv.models.conflict import Conflict
from tfenv.models.plan import Resolution
from tfenv.refresh.gpu_table import README_FILE, generate, parse_readme
from tfenv.routes.container import container_view
from tfenv.rules.model import TfCandidate

HERE = Path(__file__).parent
ROOT = HERE / "kb_synthetic"
CASES: list[dict[str, Any]] = yaml.safe_load((HERE / "cases" / "synthetic.yaml").read_text("utf-8"))
BY_ID = {case["id"]: case for case in CASES}
KB = KnowledgeBase(ROOT)  # hand-made data

# the solver's own conflict kinds (not rules): what the request and the routes require
OWN_TOPICS = {
    "No install route fits": "route",
    "The requested package manager cannot install it": "manager",
    "GPU support was required": "accelerator",
}


@cache
def outcome(case_id: str) -> Resolution:
    """The resolution of one case (solved once per session)."""
    return run_case(KB, {"os": "linux", **BY_ID[case_id]["args"]})


def conflict_kind(conflict: Conflict) -> str:
    """The kind of one conflict, read from the heading its sentence starts with (and the same
    as the kind it carries)."""
    kind = _sentence_kind(conflict.sentence)
    carried = "pre" if conflict.message == "conflict.only-prereleases" else conflict.kind
    assert kind == carried, (kind, conflict)
    return kind


def _sentence_kind(sentence: str) -> str:
    if sentence.startswith("No TensorFlow release matching"):
        return "request"
    if sentence.startswith("Only pre-releases match"):
        return "pre"
    topics = {r.topic: r.kind for r in rules.RULES} | OWN_TOPICS
    for topic, kind in topics.items():
        if sentence.startswith(f"{topic}:"):
            return kind
    return f"unknown: {sentence}"


def context(res: Resolution) -> rules.Context:
    """The rules' view of the case's machine (a container brings its own Linux and Python)."""
    target = container_view(res.target) if res.request.manager == "container" else res.target
    return rules.Context(KB, target, res.request)


def candidate(ctx: rules.Context, package: str, version: str, accel: str) -> TfCandidate:
    """``package==version`` built for ``accel``, as the solver sees it on the case's machine."""
    options = tf_options(KB, package, ctx.target.platform.key)
    option = next(o for o in options if o.version == Version(version))
    return TfCandidate("tensorflow", f"{package}=={version}/{accel}", version, 0, option, accel)


def placed_kinds(res: Resolution) -> set[str]:
    """The kinds of every requirement the plan's release places (and its pinned CUDA/cuDNN)."""
    plan = res.plan
    assert plan is not None
    ctx = context(res)
    tf = candidate(ctx, plan.package, plan.tensorflow, plan.accelerator)
    return {r.kind for r in rules.with_pinned(ctx, tf)}


def failed_kinds(case: dict[str, Any]) -> set[str]:
    """The kinds :func:`tfenv.rules.failures` finds for the case's named release."""
    spec = case["failures"]
    ctx = context(outcome(case["id"]))
    tf = candidate(ctx, spec.get("package", "tensorflow"), spec["release"], spec["accel"])
    return {f.rule.kind for f in rules.failures(ctx, tf)}


def evidence(case: dict[str, Any]) -> set[str]:
    """The rule kinds a case exercises: constrained its plan, reported, or found failing."""
    res = outcome(case["id"])
    found = placed_kinds(res) if res.plan else {conflict_kind(c) for c in res.conflicts}
    return found | (failed_kinds(case) if "failures" in case else set())


# -- the knowledge base itself ---------------------------------------------------------------


def test_synthetic_kb_loads_and_validates() -> None:
    kb = KnowledgeBase(ROOT)
    kb.load_all()
    assert load_errors(ROOT)
    assert [str(r.version) for r in kb.index.releases("tensorflow")] == [
        "2.90.0",
        "2.90.1",
        "2.91.0rc0",
        "2.91.0",
        "2.91.1",
        "2.92.0",
        "2.93.0rc0",
    ]


def _sources(value: object) -> list[str]:
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            if key == "source":
                out += [item] if isinstance(item, str) else list(item)
            else:
                out += _sources(item)
        return out
    if isinstance(value, list):
        return [s for item in value for s in _sources(item)]
    return []


def test_every_synthetic_fact_says_it_is_invented() -> None:
    files = sorted(p for p in ROOT.rglob("*") if p.suffix in (".yaml", ".json"))
    assert len(files) == 27
    for path in files:
        sources = _sources(yaml.safe_load(path.read_text("utf-8")))
        assert sources, path
        assert all(s.startswith("synthetic: ") for s in sources), path


# the invented README table that nvidia/gpus-readme.json is generated from
README = """## Compatible GPUs

| Product Name          | PCI ID |
| --------------------- | ------ |
| NVIDIA Synthetic S86  | 5002   |
| NVIDIA Synthetic S100 | 5101   |
"""


def test_generated_gpu_table_follows_the_synthetic_chip_rules() -> None:
    """``gpus-readme.json`` is what ``tfenv refresh --gpus`` makes of the invented README
    with ``nvidia/gpu-families.yaml`` (which only the refresh reads)."""
    shipped = json.loads((ROOT / README_FILE).read_text("utf-8"))
    source, retrieved = shipped["source"], shipped["retrieved"]
    assert generate(parse_readme(README), gpu_families.load(ROOT), source, retrieved) == shipped
    assert [(m.name, m.generated) for m in KB.gpus.matches("S86")] == [
        ("NVIDIA Synthetic S86", True)
    ]


# -- the cases ---------------------------------------------------------------------------------


def test_case_ids_are_unique() -> None:
    assert len(BY_ID) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case: dict[str, Any]) -> None:
    res = outcome(case["id"])
    expect = dict(case["expect"])
    check_target(res, expect.pop("target", {}))
    if expect.pop("status", "ok") == "unsatisfiable":
        _check_conflict(res, expect)
    else:
        _check_plan(case, res, expect)
    if "failures" in case:
        assert failed_kinds(case) == set(case["failures"]["kinds"])


def _check_conflict(res: Resolution, expect: dict[str, Any]) -> None:
    assert res.plan is None, f"expected no plan, got {res.plan}"
    assert res.conflicts
    assert res.suggestions
    assert {conflict_kind(c) for c in res.conflicts} == set(expect["kinds"]), res.conflicts
    assert_conflict_texts(res, expect)


def _check_plan(case: dict[str, Any], res: Resolution, expect: dict[str, Any]) -> None:
    assert res.plan is not None, res.conflicts
    got = res.plan.to_dict()
    for key, want in expect.items():
        if key in ("warnings", "reasons"):
            if not want:
                assert got[key] == [], got[key]
            for text in want:
                assert any(text in w for w in got[key]), got[key]
        else:
            assert got[key] == want, (key, got)
    assert check_plan(KB, res) == []
    # every rule holds for the chosen release on this machine, and the named ones applied
    ctx = context(res)
    tf = candidate(ctx, res.plan.package, res.plan.tensorflow, res.plan.accelerator)
    assert rules.failures(ctx, tf) == []
    assert set(case.get("rules", ())) <= placed_kinds(res)


def test_every_rule_is_exercised_by_a_case() -> None:
    """A new rule needs a synthetic case (and the facts) that exercise it."""
    exercised = set().union(*(evidence(c) for c in CASES))
    missing = [r.kind for r in rules.RULES if r.kind not in exercised]
    assert missing == [], f"no case in tests/cases/synthetic.yaml exercises {missing}"
