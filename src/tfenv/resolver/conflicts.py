"""Turn resolvelib's causes into plain sentences. The only place that words conflicts.

A requirement carries its sentence and its rule (:mod:`tfenv.rules`); this module
groups alike causes, names the newest release that failed and the range of the
others, and adds the rule's fact of the target ("but this machine's driver is
470.82.01 (given)").
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv import rules
from tfenv.rules.model import TfCandidate, fact_candidates

if TYPE_CHECKING:
    from collections.abc import Sequence

    from resolvelib.structs import RequirementInformation

    from tfenv.models.target import Request, Target
    from tfenv.resolver.factory import Factory
    from tfenv.rules.model import Candidate, Requirement

    Cause = RequirementInformation[Requirement, Candidate]

__all__ = ["conflict_sentences"]

# the solver's own kinds (not rules): what the request and the routes require
_OWN_TOPICS = {
    "route": "No install route fits",
    "manager": "The requested package manager cannot install it",
    "accelerator": "GPU support was required",
}
_FIXED = ("platform", "gpu", "driver")


def conflict_sentences(causes: Sequence[Cause], factory: Factory) -> tuple[str, ...]:
    target, request = factory.target, factory.request
    groups: dict[str, list[Cause]] = defaultdict(list)
    facts = fact_candidates(target)
    for cause in _complete(causes, factory):
        req = cause.requirement
        if cause.parent is None and req.identifier in _FIXED:
            continue  # "the target driver" itself is no reason
        fact = facts.get(req.identifier) if req.identifier in _FIXED else None
        if fact is not None and req.test(fact):
            continue  # the target meets it: another requirement on the same fact failed
        groups[cause.requirement.kind or cause.requirement.identifier].append(cause)
    out = [
        _sentence(kind, groups[kind], target, request) for kind in sorted(groups, key=_kind_order)
    ]
    if "request" in groups and not request.pre and _only_prereleases_match(factory):
        out.append(f"Only pre-releases match '{request.tf_text}': pass --pre to consider them.")
    return tuple(dict.fromkeys(out))


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
    return found.topic if found is not None else _OWN_TOPICS.get(kind, "Conflict")


def _sentence(kind: str, causes: list[Cause], target: Target, request: Request) -> str:
    with_parent = [(c, c.parent) for c in causes if c.parent is not None]
    if not with_parent:
        return _root_sentence(kind, causes, target, request)
    newest, parent = max(with_parent, key=lambda cp: _version(cp[1]))
    text = f"{_topic(kind)}: {parent.label} needs {newest.requirement.text}"
    others = sorted({_version(p) for _, p in with_parent} - {_version(parent)})
    if len(others) == 1:
        text += f"; the older release {others[0]} fails the same way"
    elif others:
        text += f"; {len(others)} older releases ({others[0]} to {others[-1]}) fail the same way"
    found = rules.rule(kind)
    fact = found.target_fact(target) if found is not None else None
    return f"{text}, {fact}." if fact else f"{text}."


def _root_sentence(kind: str, causes: list[Cause], target: Target, request: Request) -> str:
    if kind == "request":
        return (
            f"No TensorFlow release matching '{request.tf_text}' is a candidate for "
            f"{target.platform}."
        )
    texts = "; ".join(sorted({c.requirement.text for c in causes}))
    return f"{_topic(kind)}: {texts}."


def _version(c: Optional[Candidate]) -> Version:
    return c.option.version if isinstance(c, TfCandidate) else Version("0")
