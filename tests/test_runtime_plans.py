"""The plans tfenv prints install what the runtime sweep ran.

``tools/runtime_sweep.py`` installs each release x Python x flavour into a fresh venv and
trains a Keras step (``tools/runtime_sweep_state.json`` records every cell: the versions that
ran, and the bounds it had to find). These tests tie that experiment to the lines ``tfenv
resolve`` prints for the same machine (Linux x86_64, a CPU or a Turing GPU on a new driver):
the plan installs the distribution the cell installed, carries every bound the cell needed,
and excludes none of the versions that ran. A plan that drifted from the experiment (a
constraint lost, a distribution changed, a bound tighter than what ran) fails here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

import tfenv

pytestmark = pytest.mark.shipped_kb

STATE = Path(__file__).resolve().parent.parent / "tools" / "runtime_sweep_state.json"
CELLS: dict[str, dict[str, Any]] = json.loads(STATE.read_text(encoding="utf-8"))["cells"]
# A GPU every release 2.0-2.x builds for, on a driver newer than every release's floor.
GPU = {"cc": "7.5", "driver": "580.65.06"}


def _plan(cell: dict[str, Any]) -> Any:
    machine = GPU if cell["flavour"] == "gpu" else {"no_gpu": True}
    res = tfenv.resolve(
        "==" + cell["release"], os="linux", arch="x86_64", python=cell["python"], pre=True,
        **machine,
    )  # fmt: skip
    assert res.ok, [c.sentence for c in res.conflicts]
    assert res.plan is not None
    return res.plan


def _bound(package: str, requirement: str) -> tuple[str, SpecifierSet]:
    return canonicalize_name(package), SpecifierSet(requirement)


def _ran(cell: dict[str, Any]) -> dict[str, str]:
    """The versions of the run that trained the Keras step."""
    if cell["bare"] == "ran":
        return dict(cell["bare_versions"])
    assert cell["constrained"] == "ran", "a cell that never ran proves no plan"
    return dict(cell["constrained_versions"])


@pytest.mark.parametrize("key", sorted(CELLS))
def test_the_printed_plan_installs_what_ran(key: str) -> None:
    cell = CELLS[key]
    plan = _plan(cell)
    printed = {canonicalize_name(Requirement(line).name): Requirement(line) for line in plan.pip}
    tensorflow = printed.get(canonicalize_name(cell["distribution"]))
    assert tensorflow is not None, f"{key}: the plan installs {plan.package}, not the sweep's"
    assert tensorflow.specifier == SpecifierSet("==" + cell["release"])
    needed = {_bound(f["package"], f["requirement"]) for f in cell["findings"]}
    carried = {_bound(c.package, c.requirement) for c in plan.constraints}
    assert needed <= carried, f"{key}: the plan lost a bound the sweep needed"
    for package, _spec in carried:
        assert package in printed, f"{key}: {package}'s bound is not on the printed line"
    ran: dict[str, Version] = {canonicalize_name(n): Version(v) for n, v in _ran(cell).items()}
    for package, spec in carried - _tensorboard_bounds(plan, ran):
        if package in ran:
            assert spec.contains(ran[package], prereleases=True), (
                f"{key}: the plan excludes {package} {ran[package]}, which ran"
            )


def _tensorboard_bounds(plan: Any, ran: dict[str, Version]) -> set[tuple[str, SpecifierSet]]:
    """The plan's bounds that TensorBoard needs to start (tools/tensorboard_check.py), not
    TensorFlow to import: the sweep's cell ran TensorFlow with a setuptools they exclude.
    Each is carried only where the cell installed a TensorBoard that does not start beside
    the setuptools it resolved."""
    from tfenv.kb.runtime import load as load_runtime
    from tfenv.kb.tensorboard import load

    bound = load()
    components = {c.id: c.component for c in load_runtime().constraints}
    found = set()
    for c in plan.constraints:
        if components[c.id] == "tensorboard":
            assert bound.breaks(ran["tensorboard"], ran.get("setuptools")), c.id
            found.add(_bound(c.package, c.requirement))
    return found


def test_every_cell_ran() -> None:
    """No recorded cell is left broken: a release the sweep could not make run is not
    silently planned."""
    broken = [k for k, c in CELLS.items() if "ran" not in (c["bare"], c["constrained"])]
    assert broken == []


def test_a_plan_whose_tensorboard_needs_setuptools_below_82_carries_it_with_its_reason() -> None:
    """TensorFlow 2.20's plan installs TensorBoard 2.20, which does not start with setuptools
    82 (tools/tensorboard_check.py): the printed line has the bound, the reason says why."""
    res = tfenv.resolve("==2.20.0", os="linux", arch="x86_64", python="3.12", no_gpu=True)
    assert res.plan is not None
    assert "setuptools<82" in res.plan.pip
    (pin,) = [c for c in res.plan.constraints if c.package == "setuptools"]
    assert pin.reason.startswith(
        "setuptools<82: the TensorBoard that TensorFlow 2.20.0's plan installs cannot start"
    )
    assert "No module named 'pkg_resources'" in pin.reason
