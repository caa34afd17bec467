"""What each side needs of its dependencies to run (``tensorflow/runtime.yaml``), compared.

A runtime constraint (``numpy<2`` for TensorFlow 2.10.1) that the new plan needs and the
current one does not is a warning: the project's own requirements must allow it. One that
goes away is news: what it excluded becomes possible from the first release on the way that
neither needs it nor declares a bound excluding it itself (``NumPy 2 becomes possible from
TensorFlow 2.18``). Constraints both sides share are no change and are not reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import InvalidVersion, Version

from tfenv.models.plan import excluded
from tfenv.upgrade.changes import between
from tfenv.upgrade.model import UpgradeFinding

if TYPE_CHECKING:
    from tfenv.kb.index import WheelSet
    from tfenv.kb.runtime import RuntimeConstraint
    from tfenv.models.plan import Plan
    from tfenv.upgrade.checks import Facts

__all__ = ["runtime_changes"]


def runtime_changes(f: Facts, old: Optional[Plan], new: Optional[Plan]) -> list[UpgradeFinding]:
    """The runtime constraints that differ between the current and the new plan."""
    if old is None or new is None:
        return []
    before = {(c.package, c.requirement): c.id for c in old.constraints}
    after = {(c.package, c.requirement): c.id for c in new.constraints}
    records = {c.id: c for c in f.kb.runtime.constraints}
    out = []
    for key in sorted(after.keys() - before.keys()):
        out.append(_appears(f, records[after[key]]))
    for key in sorted(before.keys() - after.keys()):
        out.append(_goes_away(f, records[before[key]], old.python, new.python))
    return out


def _appears(f: Facts, c: RuntimeConstraint) -> UpgradeFinding:
    declared = c.declared or f"no bound on {c.package}"
    return UpgradeFinding(
        "warning",
        "runtime",
        f"TensorFlow {f.end} needs {c.line} to run: it declares {declared} but cannot import "
        f"or run with {excluded(c.package, c.requirement)} ({c.error.rstrip('.')})",
        f"The new plan and tfenv's lockfiles pin {c.line}; the project's own requirements "
        f"must allow it (code that needs {excluded(c.package, c.requirement)} cannot move)",
        c.sources,
        c.id,
    )


def _goes_away(
    f: Facts, c: RuntimeConstraint, old_py: Optional[str], new_py: Optional[str]
) -> UpgradeFinding:
    bound = _upper(c.requirement)
    first, declared = _first_free(f, c, new_py or old_py, bound)
    what = excluded(c.package, c.requirement)
    if bound is not None and declared is None:
        summary = f"Installing {what} becomes possible from TensorFlow {first}"
    else:
        summary = f"{c.line} is no longer needed from TensorFlow {first}"
        if declared is not None:
            summary += f" (its own requirement {declared} still excludes {what})"
    summary += f": TensorFlow {f.start} needs {c.line} to run ({c.error.rstrip('.')})"
    return UpgradeFinding(
        "info",
        "runtime",
        summary,
        f"None needed: the new plan does not pin {c.line}",
        c.sources,
        c.id,
    )


def _upper(requirement: str) -> Optional[Version]:
    """X of a requirement ``<X`` (None for any other form)."""
    if "," in requirement or not requirement.startswith("<") or requirement.startswith("<="):
        return None
    try:
        return Version(requirement[1:])
    except InvalidVersion:
        return None


def _first_free(
    f: Facts, c: RuntimeConstraint, python: Optional[str], bound: Optional[Version]
) -> tuple[Version, Optional[str]]:
    """The first release on the way (with wheels for the Python, measured by the runtime
    sweep) that does not need ``c`` and whose own Requires-Dist admits ``bound``; where none
    does, the new release and, if it still excludes ``bound`` itself, what it declares."""
    from tfenv.kb.index import declared as declared_by

    measured = {r.release for r in f.kb.runtime.results}
    for v in between(f.kb, f.start, f.end):
        wheels = _wheels(f, v, python)
        if wheels is None or (python and c.line in _lines(f, v, python)):
            continue
        if v not in measured and v != f.end:
            continue  # not swept: whether it runs without the constraint is not known
        declared = declared_by(wheels.requires, c.package, python)
        if bound is None or declared is None or declared.contains(bound):
            return v, None
    wheels = _wheels(f, f.end, python)
    declared = declared_by(wheels.requires, c.package, python) if wheels is not None else None
    if bound is None or declared is None or declared.contains(bound):
        return f.end, None
    return f.end, f"{c.package}{declared}"


def _lines(f: Facts, v: Version, python: str) -> set[str]:
    return {x.line for x in f.kb.runtime.constraints_for(v, python)}


def _wheels(f: Facts, v: Version, python: Optional[str]) -> Optional[WheelSet]:
    opt = f.option(v)
    if opt is None or opt.wheels is None:
        return None
    return opt.wheels if python is None else opt.wheels.for_python(python)
