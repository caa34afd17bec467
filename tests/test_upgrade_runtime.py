"""``check-upgrade`` and the runtime constraints (``tensorflow/runtime.yaml``): one that
appears or goes away between the two sides is reported, one both sides share is not.
The releases come from the data: a constraint's own release, a neighbour that lacks it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from packaging.version import Version

from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.kb.releases import tf_options
from tfenv.kb.runtime import RuntimeConstraint


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    """The runtime findings of a move on a Linux CPU machine (both sides must resolve)."""
    capsys.readouterr()
    main(["check-upgrade", "--os", "linux", "--no-gpu", "--glibc", "2.31", *argv, "--json"])
    target = json.loads(capsys.readouterr().out)["targets"][0]
    assert target["current_plan"] is not None, target
    assert target["new_plan"] is not None, target
    findings: list[dict[str, Any]] = target["findings"]
    runtime = [f for f in findings if f["kind"] == "runtime"]
    old = {c["line"] for c in target["current_plan"]["constraints"]}
    new = {c["line"] for c in target["new_plan"]["constraints"]}
    assert len(runtime) == len(old ^ new), (old, new, runtime)  # reported when they differ
    return runtime


def _a_constraint(kb: KnowledgeBase) -> tuple[RuntimeConstraint, Version, str, Version]:
    """A recorded constraint, a release and Python it applies to, and a newer release with
    wheels for that Python that needs no constraint on the package."""
    releases = [o for o in tf_options(kb, "tensorflow", "linux_x86_64") if not o.version.pre]
    for c in kb.runtime.constraints:
        for opt in releases:
            for py in opt.pythons:
                if not c.applies(opt.version, str(py)):
                    continue
                free = [
                    o.version
                    for o in releases
                    if o.version > opt.version
                    and py in o.pythons
                    and not any(
                        x.package == c.package
                        for x in kb.runtime.constraints_for(o.version, str(py))
                    )
                ]
                if free:
                    return c, opt.version, str(py), max(free)
    raise AssertionError("the runtime data has no constraint with a free newer release")


def test_a_constraint_that_goes_away_is_news(
    capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    c, old, py, new = _a_constraint(kb)
    found = _check(capsys, "--from", str(old), "--to", str(new), "--python", py)
    assert [f["ref"] for f in found] == [c.id]
    assert found[0]["severity"] == "info"
    assert f"TensorFlow {old} needs {c.line} to run" in found[0]["summary"]
    assert found[0]["sources"] == list(c.sources)


def test_a_constraint_that_appears_is_a_warning_with_the_pin(
    capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    c, old, py, new = _a_constraint(kb)
    found = _check(
        capsys, "--from", str(new), "--to", str(old), "--python", py, "--allow-downgrade"
    )
    assert [f["ref"] for f in found] == [c.id]
    assert found[0]["severity"] == "warning"
    assert f"TensorFlow {old} needs {c.line} to run" in found[0]["summary"]
    assert c.line in found[0]["fix"]


def test_a_constraint_both_sides_need_is_no_change(
    capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    """Two releases that need the same bound (by package and requirement): nothing to say."""
    releases = [o for o in tf_options(kb, "tensorflow", "linux_x86_64") if not o.version.pre]
    for a in releases:
        for b in releases:
            if b.version <= a.version:
                continue
            for py in set(a.pythons) & set(b.pythons):
                lines_a = {x.line for x in kb.runtime.constraints_for(a.version, str(py))}
                lines_b = {x.line for x in kb.runtime.constraints_for(b.version, str(py))}
                if lines_a and lines_a == lines_b:
                    found = _check(
                        capsys,
                        "--from",
                        str(a.version),
                        "--to",
                        str(b.version),
                        "--python",
                        str(py),
                    )
                    assert found == []
                    return
    pytest.skip("the runtime data has no two releases that share their constraints")
