"""Why an ok plan is not the newest: one :class:`~tfenv.models.conflict.Skipped` per newer
series (and per newer Python when the Python was left open).

Each newer series is answered by the rules its newest release fails on the target's fixed
facts (:func:`tfenv.rules.failures`, the same check ``conflicts.py`` completes resolvelib's
causes with), as structured conflicts: no second solver, no sentence parsing. Only a
release that no rule rejects on the fixed facts (what stops it is a route, or a choice the
solver made) is solved once, pinned, and its conflicts are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv import rules
from tfenv.models.conflict import Conflict, Skipped
from tfenv.resolver.conflicts import ABSENT, bare_label
from tfenv.rules.model import TfCandidate

if TYPE_CHECKING:
    from dataclasses import replace

    from tfenv.models.plan import Plan
    from tfenv.resolver.factory import Factory
else:  # without importing dataclasses (see tfenv.models._record)
    from tfenv.models._record import replace

__all__ = ["skipped_of"]

# the reason a line names first: what no setting of this machine changes (its GPU, its
# platform), then the rules' own order (a stable sort keeps it)
_FIRST = {
    k: i
    for i, k in enumerate(
        ("gpu-code", "cuda-gpu-range", "cudnn-gpu", "gpu-platform", "no-wheel", "stub", "metal")
    )
}


def skipped_of(f: Factory, plan: Plan) -> tuple[Skipped, ...]:
    """The newer series (newest first) and the newer Python the plan does not take."""
    chosen = Version(plan.tensorflow)
    newest: dict[Version, TfCandidate] = {}
    for c in f.candidates("tensorflow"):
        if not isinstance(c, TfCandidate) or c.accel != plan.accelerator:
            continue
        v = c.option.version
        if v <= chosen or c.option.broken or not f.request.allows(v, c.option.yanked):
            continue  # known-broken releases are named in the plan's reasons already
        key = Version(f"{v.major}.{v.minor}")
        if key not in newest or newest[key].option.version < v:
            newest[key] = c
    out: list[Skipped] = []
    for series in sorted(newest, reverse=True):
        found = _why_not(f, newest[series])
        if not found:
            continue
        last = out[-1] if out else None
        if last is not None and last.subject == "tensorflow" and _alike(last.conflicts, found):
            out[-1] = replace(last, oldest=str(series))  # one line for a run failing alike
        else:
            out.append(Skipped("tensorflow", str(series), found))
    python = _newer_python(f, plan)
    if python is not None:
        out.append(python)
    return tuple(out)


def _alike(a: tuple[Conflict, ...], b: tuple[Conflict, ...]) -> bool:
    """The same first reason: the same rule on the same fact, and the same need unless the
    rule is about what the machine is (its GPU, its platform: the need names the release)."""

    def key(c: Conflict) -> tuple[object, ...]:
        need = () if c.kind in _FIRST else c.requirements
        return (c.kind, c.fact, need)

    return bool(a) and bool(b) and key(a[0]) == key(b[0])


def _why_not(f: Factory, c: TfCandidate) -> tuple[Conflict, ...]:
    version = str(c.option.version)
    found = sorted(rules.failures(f.context, c), key=lambda x: _FIRST.get(x.rule.kind, 99))
    absent = [x for x in found if x.rule.kind in ABSENT]
    if absent:  # nothing to install here: that alone, and no accelerator in its name
        found = absent[:1]
    if found:
        seen: set[str] = set()
        out = []
        for failure in found:
            label = bare_label(c) if absent else c.label
            conflict = failure.conflict(f.target, label, version)
            if conflict.sentence not in seen:  # one rule may place the same need twice
                seen.add(conflict.sentence)
                out.append(conflict)
        return tuple(out)
    return _solved(f, version)


def _solved(f: Factory, version: str) -> tuple[Conflict, ...]:
    """What keeps ``version`` out when no rule on the fixed facts does: one pinned solve."""
    from tfenv.resolver import solve_once

    wanted = f"=={version}"
    pinned = replace(f.request, tf=SpecifierSet(wanted), tf_text=wanted)
    answer = solve_once(f.kb, f.target, pinned)
    return () if answer.ok else answer.conflicts


def _newer_python(f: Factory, plan: Plan) -> Optional[Skipped]:
    """With the Python left open, the plan takes the newest its release has wheels for; a
    newer Python that other releases serve is named with the release's own range."""
    if f.target.python is not None or plan.python is None:
        return None
    have = Version(plan.python)
    newer = sorted(
        {
            p
            for c in f.candidates("tensorflow")
            if isinstance(c, TfCandidate) and f.request.allows(c.option.version, c.option.yanked)
            for p in c.option.pythons
            if p > have
        }
    )
    if not newer:
        return None
    chosen = next(
        c
        for c in f.candidates("tensorflow")
        if isinstance(c, TfCandidate)
        and str(c.option.version) == plan.tensorflow
        and c.accel == plan.accelerator
    )
    ctx = replace(f.context, target=replace(f.target, python=newer[0]))
    found = rules.failures(ctx, chosen, ("python",), pinned=False)
    if not found:
        return None
    conflicts = tuple(x.conflict(f.target, chosen.label, plan.tensorflow) for x in found[:1])
    return Skipped("python", str(newer[0]), conflicts)
