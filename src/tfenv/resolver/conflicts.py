"""Turn resolvelib's causes into :class:`~tfenv.models.conflict.Conflict` values.

A requirement carries its text and its rule (:mod:`tfenv.rules`); this module groups
alike causes, names the newest release that failed and the older ones, and adds the
rule's fact of the target (this machine's driver is 470.82.01, given). The sentences are
worded from these values in one place, :mod:`tfenv.models.messages`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv import rules
from tfenv.i18n import N_, _
from tfenv.models.conflict import Conflict
from tfenv.rules.model import TfCandidate, fact_candidates

if TYPE_CHECKING:
    from collections.abc import Sequence

    from resolvelib.structs import RequirementInformation

    from tfenv.models.target import Target
    from tfenv.resolver.factory import Factory
    from tfenv.rules.model import Candidate, Requirement

    Cause = RequirementInformation[Requirement, Candidate]

__all__ = ["ABSENT", "bare_label", "conflicts_of"]

# rules that say a release has nothing to install here (no wheel for the platform, no
# installable one, no CUDA build): a release that fails one is reported only there, under
# the first of these it fails, so every release is counted once and is not called a
# "CUDA build" where it has none
ABSENT = ("no-wheel", "stub", "gpu-platform")

# the solver's own kinds (not rules): what the request and the routes require
_OWN_TOPICS = {
    "route": N_("No install route fits"),
    "manager": N_("The requested package manager cannot install it"),
    "accelerator": N_("GPU support was required"),
}
_FIXED = ("platform", "gpu", "driver")


def conflicts_of(causes: Sequence[Cause], factory: Factory) -> tuple[Conflict, ...]:
    """What keeps every candidate out, one conflict per rule, in the rules' order."""
    target, request = factory.target, factory.request
    groups: dict[str, list[Cause]] = defaultdict(list)
    cpu_allowed = "cpu" in factory.accelerators()
    facts = fact_candidates(target)
    for cause in _complete(causes, factory):
        req = cause.requirement
        if cause.parent is None and req.identifier in _FIXED:
            continue  # "the target driver" itself is no reason
        held = facts.get(req.identifier) if req.identifier in _FIXED else None
        if held is not None and req.test(held):
            continue  # resolvelib lists every requirement on the fact; only failing ones count
        if cause.requirement.kind == "accelerator" and cpu_allowed:
            continue  # a CPU plan was allowed: the accelerator tried first is no reason
        groups[cause.requirement.kind or cause.requirement.identifier].append(cause)
    _count_once(groups)
    out = [_conflict(kind, groups[kind], factory) for kind in sorted(groups, key=_kind_order)]
    if "request" in groups and not request.pre and _only_prereleases_match(factory):
        out.append(Conflict("conflict.only-prereleases", "request", request=request.tf_text))
    return tuple(_distinct(out))


def _count_once(groups: dict[str, list[Cause]]) -> None:
    """A release with nothing to install here is reported only under the first
    :data:`ABSENT` rule it fails (its other failures would count it twice)."""
    placed: set[int] = set()
    for kind in (*ABSENT, *(k for k in groups if k not in ABSENT)):
        if kind not in groups:
            continue
        kept = [c for c in groups[kind] if c.parent is None or id(c.parent) not in placed]
        if kind in ABSENT:
            placed.update(id(c.parent) for c in kept if c.parent is not None)
        had_release = any(c.parent is not None for c in groups[kind])
        if had_release and not any(c.parent is not None for c in kept):
            del groups[kind]  # every release it named is reported elsewhere
        else:
            groups[kind] = kept


def bare_label(c: Candidate) -> str:
    """ "TensorFlow 2.21.0": a release without the accelerator of its candidate."""
    if not isinstance(c, TfCandidate):
        return c.label
    name = "TensorFlow" if c.option.package == "tensorflow" else c.option.package
    return f"{name} {c.option.version}"


def _distinct(found: list[Conflict]) -> list[Conflict]:
    """The first conflict of each sentence (two kinds may say the same)."""
    seen: set[str] = set()
    out = []
    for c in found:
        if c.sentence not in seen:
            seen.add(c.sentence)
            out.append(c)
    return out


def _only_prereleases_match(factory: Factory) -> bool:
    from tfenv.kb.releases import known_versions

    spec = factory.request.tf
    found = [v for v in known_versions(factory.kb) if spec.contains(v, prereleases=True)]
    return bool(found) and all(v.is_prerelease for v in found)


def _complete(causes: Sequence[Cause], factory: Factory) -> list[Cause]:
    """resolvelib stops at the first conflict of each candidate; users want all of them.

    Every rule a rejected release places on a fact of the target (its platform, GPU,
    driver, and Python when fixed) is checked, and each one that fails is added.
    """
    from resolvelib.structs import RequirementInformation

    out = list(causes)
    seen = {(c.requirement.kind, c.requirement.text, id(c.parent)) for c in causes}
    parents = {id(c.parent): c.parent for c in causes if c.parent is not None}
    for parent in parents.values():
        for failure in rules.failures(factory.context, parent, pinned=False):
            req = failure.requirement
            if (req.kind, req.text, id(parent)) not in seen:
                out.append(RequirementInformation(req, parent))
    return out


def _kind_order(kind: str) -> int:
    order = [r.kind for r in rules.RULES]
    return order.index(kind) if kind in order else len(order)


def _topic(kind: str) -> str:
    found = rules.rule(kind)
    return _(found.topic if found is not None else _OWN_TOPICS.get(kind, N_("Conflict")))


def _conflict(kind: str, causes: list[Cause], factory: Factory) -> Conflict:
    with_parent = [(c, c.parent) for c in causes if c.parent is not None]
    if not with_parent:
        return _request_conflict(kind, causes, factory)
    newest, parent = max(with_parent, key=lambda cp: _version(cp[1]))
    others = sorted({_version(p) for _, p in with_parent} - {_version(parent)})
    found = rules.rule(kind)
    return Conflict(
        "conflict.release",
        kind,
        topic=_topic(kind),
        release=bare_label(parent) if kind in ABSENT else parent.label,
        version=str(_version(parent)) if isinstance(parent, TfCandidate) else None,
        older=tuple(str(v) for v in others),
        requirements=(newest.requirement.text,),
        fact=found.fact_of(factory.target) if found is not None else None,
        fix=newest.requirement.fix,
    )


def _request_conflict(kind: str, causes: list[Cause], factory: Factory) -> Conflict:
    target: Target = factory.target
    if kind == "request":
        return Conflict(
            "conflict.no-release",
            kind,
            request=factory.request.tf_text,
            platform=str(target.platform),
        )
    fixes = sorted({c.requirement.fix for c in causes if c.requirement.fix})
    return Conflict(
        "conflict.request",
        kind,
        topic=_topic(kind),
        requirements=tuple(sorted({c.requirement.text for c in causes})),
        fix="; ".join(fixes),
    )


def _version(c: Optional[Candidate]) -> Version:
    return c.option.version if isinstance(c, TfCandidate) else Version("0")
