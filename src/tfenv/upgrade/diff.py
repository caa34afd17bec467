"""Package-level difference: the current pins against the new version's plan.

With a lock: its pins against the new plan's top-level pins and the new
release's declared requirements (``Requires-Dist`` from the index data, and the
``and-cuda`` extra where the plan uses it): pins that must move, packages added
and packages no longer required. Not a full re-lock: transitive pins may move too
(``tfenv lock`` re-locks). Without a lock: the two releases' declared requirements.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from packaging.markers import UndefinedEnvironmentName
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tfenv.i18n import _
from tfenv.models.platform import platform
from tfenv.upgrade.current import TF_PACKAGES
from tfenv.upgrade.model import PackageChange

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Plan
    from tfenv.upgrade.checks import Facts
    from tfenv.upgrade.current import CurrentState

__all__ = ["declared", "package_diff", "plan_pins"]


def package_diff(
    kb: KnowledgeBase,
    f: Facts,
    current: CurrentState,
    cur_plan: Optional[Plan],
    new_plan: Optional[Plan],
) -> tuple[str, tuple[PackageChange, ...]]:
    python = f.target.python
    cur_cuda = _uses_and_cuda(cur_plan) or any(
        n.startswith("nvidia-") for n in (current.pins or {})
    )
    old = declared(kb, f.start, f.target.platform.key, python, cur_cuda)
    # no new plan (the move is blocked here): the same route as now, so the CUDA wheels the
    # lock holds are not counted as "no longer required"
    new_cuda = _uses_and_cuda(new_plan) if new_plan is not None else cur_cuda
    new = declared(kb, f.end, f.target.platform.key, python, new_cuda)
    if current.pins is None:
        basis = _("tensorflow {old} vs {new}: declared requirements (no lockfile given)").format(
            old=f.start, new=f.end
        )
        pinned = (plan_pins(cur_plan) if cur_plan else {}, plan_pins(new_plan) if new_plan else {})
        return basis, tuple(_requirements_diff(old, new, f.end, pinned))
    pins = current.pins
    top = plan_pins(new_plan) if new_plan else {"tensorflow": str(f.end)}
    out = _top_level(pins, top)
    out += _against_lock(pins, old, new, f.end, set(top))
    basis = _(
        "{origin} pins vs the new plan's top-level pins and tensorflow {new}'s "
        "declared requirements (not a full re-lock; run 'tfenv lock' for one)"
    ).format(origin=current.origin, new=f.end)
    return basis, tuple(sorted(out, key=lambda c: (c.change, c.name)))


def _uses_and_cuda(plan: Optional[Plan]) -> bool:
    return plan is not None and any("[and-cuda]" in p for p in plan.pip)


def declared(
    kb: KnowledgeBase, version: Version, platform: str, python: Optional[Version], and_cuda: bool
) -> dict[str, Requirement]:
    """tensorflow ``version``'s requirements on ``platform``, markers evaluated."""
    release = kb.index.release("tensorflow", version)
    wheels = release.wheelset(platform, str(python) if python else None) if release else None
    if wheels is None and release is not None:
        wheels = release.wheelset(platform)
    if wheels is None:
        return {}
    lines = list(wheels.requires) + (list(wheels.and_cuda or ()) if and_cuda else [])
    env = _environment(platform, python)
    out: dict[str, Requirement] = {}
    for line in lines:
        try:
            req = Requirement(line)
            if req.marker is not None and not req.marker.evaluate(env):
                continue
        except (InvalidRequirement, UndefinedEnvironmentName):
            continue
        out[canonicalize_name(req.name)] = req
    return out


def _environment(key: str, python: Optional[Version]) -> dict[str, str]:
    return {**platform(key).environment(str(python) if python else "3.11"), "extra": ""}


def plan_pins(plan: Plan) -> dict[str, str]:
    """The exact top-level pins of a plan: pip ``name==v`` and conda ``name=v`` specs."""
    out: dict[str, str] = {}
    for spec in plan.pip:
        try:
            req = Requirement(spec)
        except InvalidRequirement:
            continue
        exact = [s.version for s in req.specifier if s.operator == "=="]
        if exact:
            out[canonicalize_name(req.name)] = exact[0]
    for spec in plan.conda:
        found = re.match(r"^([A-Za-z0-9_.\-]+)=([0-9][^=*\s]*)", spec)
        if found:
            out.setdefault(found.group(1).lower(), found.group(2).rstrip("."))
    return out


def _top_level(pins: Mapping[str, str], top: Mapping[str, str]) -> list[PackageChange]:
    out: list[PackageChange] = []
    for name, version in top.items():
        old = pins.get(name)
        if old is None:
            top_level = _("top-level pin of the new plan")
            out.append(PackageChange(name, "added", None, version, top_level))
        elif not _same(old, version):
            out.append(
                PackageChange(name, "changed", old, version, _("top-level pin of the new plan"))
            )
    for name in TF_PACKAGES:
        if name in pins and name not in top and name != "tensorflow-base":
            replaced = _("replaced by tensorflow")
            out.append(PackageChange(name, "removed", pins[name], None, replaced))
    return out


def _against_lock(
    pins: Mapping[str, str],
    old: Mapping[str, Requirement],
    new: Mapping[str, Requirement],
    end: Version,
    top: set[str],
) -> list[PackageChange]:
    out: list[PackageChange] = []
    for name, req in new.items():
        if name in top or name in TF_PACKAGES:
            continue
        have = pins.get(name)
        spec = str(req.specifier) or "any version"
        if have is None:
            required = _("required by tensorflow {release}").format(release=end)
            out.append(PackageChange(name, "added", None, spec, required))
        elif not _satisfies(req, have):
            why = _("tensorflow {release} requires {requirement}").format(
                release=end, requirement=f"{name}{req.specifier}"
            )
            out.append(PackageChange(name, "changed", have, spec, why))
    for name in old:
        if name not in new and name in pins and name not in top and name not in TF_PACKAGES:
            why = _("no longer required by tensorflow {release}").format(release=end)
            out.append(PackageChange(name, "removed", pins[name], None, why))
    return out


def _requirements_diff(
    old: Mapping[str, Requirement],
    new: Mapping[str, Requirement],
    end: Version,
    pinned: tuple[Mapping[str, str], Mapping[str, str]] = ({}, {}),
) -> list[PackageChange]:
    """The declared requirements compared; where a plan pins a package itself (the CUDA
    wheels of a ranged and-cuda extra), its pin stands for the requirement."""
    out: list[PackageChange] = []
    for name, req in sorted(new.items()):
        spec = str(req.specifier) or "any version"
        after = f"=={pinned[1][name]}" if name in pinned[1] else spec
        why = _("requirement changed")
        if after != spec:
            why = _("the new plan pins it; tensorflow {release} requires {spec}").format(
                release=end, spec=spec
            )
        if name not in old:
            if after != spec:
                why = _("required by tensorflow {release}, the new plan pins it")
            else:
                why = _("required by tensorflow {release}")
            why = why.format(release=end)
            out.append(PackageChange(name, "added", None, after, why))
            continue
        was = str(old[name].specifier) or "any version"
        before = f"=={pinned[0][name]}" if name in pinned[0] else was
        if before != after:
            out.append(PackageChange(name, "changed", before, after, why))
    for name in sorted(set(old) - set(new)):
        before = str(old[name].specifier) or "any version"
        why = _("no longer required by tensorflow {release}").format(release=end)
        out.append(PackageChange(name, "removed", before, None, why))
    return out


def _satisfies(req: Requirement, version: str) -> bool:
    try:
        return req.specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return True


def _same(a: str, b: str) -> bool:
    try:
        return Version(a) == Version(b)
    except InvalidVersion:
        return a == b
