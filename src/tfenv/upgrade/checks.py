"""Blockers: can this target run the new release as it is?

The same rules the solver uses (:mod:`tfenv.rules`), checked for the new release on
this target. When it fails one, the walk from the current release finds the
boundary: the last release that passed (the one to stay on) and the first that
failed, whose recorded changes (``changes.yaml``) are the source of the finding.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import Version

from tfenv import rules
from tfenv.i18n import _
from tfenv.kb.releases import TfOption, tf_options
from tfenv.models import messages
from tfenv.rules.model import TfCandidate
from tfenv.upgrade.changes import boundary, sources_of, window
from tfenv.upgrade.model import Severity, UpgradeFinding

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import Target

__all__ = ["Facts", "blockers"]

# the order findings are reported in; without a wheel nothing else counts, and without
# a CUDA build for the platform neither does the GPU
_ORDER = (
    "no-wheel",
    "stub",
    "python",
    "glibc",
    "gpu-platform",
    "gpu-code",
    "cuda-gpu-range",
    "cudnn-gpu",
    "driver",
    "jit-driver",
    "metal",
)
_ALONE = ("no-wheel", "stub")
_LAST = ("gpu-platform",)


@dataclass(frozen=True)
class Facts:
    """The question: ``target`` moving from ``start`` to ``end``."""

    kb: KnowledgeBase
    target: Target
    start: Version
    end: Version
    wants_gpu: str  # "cuda", "metal" or "" (the accelerator the target uses now)
    python_severity: Severity = "blocker"  # "warning" when the Python was only inferred

    def option(self, v: Version) -> Optional[TfOption]:
        opts = tf_options(self.kb, "tensorflow", self.target.platform.key)
        return next((o for o in opts if o.version == v), None)

    @property
    def up(self) -> bool:
        return self.end >= self.start

    @property
    def accel(self) -> str:
        if self.wants_gpu == "cuda" and self.target.has_nvidia_gpu:
            return "cuda"
        return "metal" if self.wants_gpu == "metal" else "cpu"

    def failures(self, v: Version) -> list[rules.Failure]:
        """The rules release ``v`` fails on this target."""
        opt = self.option(v)
        if opt is None:
            return []
        c = TfCandidate("tensorflow", str(v), f"TensorFlow {v}", 0, opt, self.accel)
        return rules.failures(rules.Context(self.kb, self.target), c, _ORDER)

    def requirement_text(self, v: Version, kind: str) -> Optional[str]:
        """What release ``v`` requires under rule ``kind`` (whether or not it holds)."""
        opt = self.option(v)
        if opt is None:
            return None
        c = TfCandidate("tensorflow", str(v), f"TensorFlow {v}", 0, opt, self.accel)
        ctx = rules.Context(self.kb, self.target)
        return next((r.text for r in rules.requirements_for(ctx, c) if r.kind == kind), None)


def blockers(f: Facts) -> list[UpgradeFinding]:
    """Every rule the new release fails here, each with its boundary and its fix."""
    if f.option(f.end) is None:
        return [_not_on_index(f)]
    failed = {x.rule.kind: x for x in f.failures(f.end)}
    out: list[UpgradeFinding] = []
    for kind in _ORDER:
        if kind in failed:
            out.append(_finding(f, failed[kind]))
            if kind in _ALONE:
                return out[-1:]
            if kind in _LAST:
                return out
    out += [x for x in (_unknown(f, rules.DRIVER), _unknown(f, rules.GLIBC)) if x is not None]
    return out


def _finding(f: Facts, failure: rules.Failure) -> UpgradeFinding:
    rule = failure.rule

    def holds(v: Version) -> bool:
        return all(x.rule.kind != rule.kind for x in f.failures(v))

    conflict = failure.conflict(f.target, f"TensorFlow {f.end}", str(f.end))
    summary = messages.failure_sentence(conflict)
    severity = f.python_severity if rule.kind == "python" else "blocker"
    found = _walked(f, rule, holds, summary, failure.requirement.fix, severity)
    return replace(found, conflicts=(conflict,))


def _walked(
    f: Facts,
    rule: rules.Rule,
    holds: Callable[[Version], bool],
    summary: str,
    fix_of_rule: str,
    severity: Severity,
) -> UpgradeFinding:
    fix = fix_of_rule
    edge = boundary(f.kb, f.start, f.end, holds)
    prev, first = edge if edge else (None, f.end)
    if prev is not None and holds(prev):
        if fix and f.up:
            fix = _("{fix}, or stay on TensorFlow {release}")
        elif fix:
            fix = _("{fix}, or go no lower than TensorFlow {release}")
        elif f.up:
            fix = _("Stay on TensorFlow {release}")
        else:
            fix = _("Go no lower than TensorFlow {release}")
        fix = fix.format(fix=fix_of_rule, release=prev)
    kind = rule.change_kind or rule.kind
    changes = (
        window(f.kb, (kind,), prev if prev is not None else f.start, first)
        if rule.cites_changes
        else ()
    )
    sources = sources_of(changes) or rule.sources(f.kb, first)
    ref = changes[0].id if len(changes) == 1 else None
    return UpgradeFinding(severity, kind, summary, messages.sentences((fix,)), sources, ref)


def _unknown(f: Facts, rule: rules.Rule) -> Optional[UpgradeFinding]:
    """A warning where the new release needs more of a fact this machine did not give."""
    assert rule.fact_key is not None
    if getattr(f.target, rule.fact_key) is not None:
        return None
    old, new = f.requirement_text(f.start, rule.kind), f.requirement_text(f.end, rule.kind)
    if new is None or _plain(old, f.start) == _plain(new, f.end):
        return None  # the same need on both sides ("the manylinux floor of <release>'s wheels")
    summary = _(
        "TensorFlow {release} needs {requirement}; this machine's {fact} is not known"
    ).format(release=f.end, requirement=new, fact=rule.fact_key)
    fix = _("Check that this machine meets it ({hint}), or give --{fact}").format(
        hint=_(rule.check_hint), fact=rule.fact_key
    )

    def value(v: Version) -> Optional[str]:
        return _plain(f.requirement_text(v, rule.kind), v)

    edge = boundary(f.kb, f.start, f.end, value)
    first = edge[1] if edge else f.end
    kind = rule.change_kind or rule.kind
    changes = window(f.kb, (kind,), edge[0] if edge else f.start, first)
    sources = sources_of(changes) or rule.sources(f.kb, first)
    ref = changes[0].id if len(changes) == 1 else None
    return UpgradeFinding("warning", kind, summary, messages.sentences((fix,)), sources, ref)


def _plain(text: Optional[str], v: Version) -> Optional[str]:
    """A requirement's words without the release they were said of."""
    return text.replace(str(v), "<release>") if text is not None else None


def _not_on_index(f: Facts) -> UpgradeFinding:
    summary = _(
        "TensorFlow {release} cannot be installed on {platform}: no wheel on the index"
    ).format(release=f.end, platform=f.target.platform)

    def listed(v: Version) -> bool:
        return f.option(v) is not None

    return _walked(f, rules.NO_WHEEL, listed, summary, "", "blocker")
