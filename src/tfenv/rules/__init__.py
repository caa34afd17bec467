"""The compatibility rules, one object each, and how they are evaluated.

The solver turns every rule into requirements (:func:`requirements_for`);
``check-upgrade`` walks releases with the same rules, and ``doctor`` and
``explain`` evaluate them against a machine (:func:`failures`). Each rule lives in
its own module with its sentence, its fix, the target fact it reports and its
source (the knowledge-base record it reads). The order of :data:`RULES` is the
order in which conflicts are reported.

Adding a rule is a new :class:`~tfenv.rules.base.Rule` in a module of this
package, listed here; ``docs/architecture.md`` walks through one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

from tfenv.i18n import _
from tfenv.models import choices, messages
from tfenv.models.conflict import Conflict
from tfenv.rules.base import Context, Rule
from tfenv.rules.cuda_build import CUDA, CUDNN, GPU_PLATFORM
from tfenv.rules.cudnn_arch import CUDNN_ARCH
from tfenv.rules.driver import DRIVER
from tfenv.rules.gpu_code import GPU_CODE, JIT_DRIVER
from tfenv.rules.image_driver import IMAGE_DRIVER
from tfenv.rules.metal import METAL
from tfenv.rules.model import Candidate, Requirement, VersionCandidate, fact_candidates
from tfenv.rules.toolkit import CUDA_GPU_RANGE, CUDNN_CUDA, CUDNN_GPU
from tfenv.rules.wheels import GLIBC, NO_WHEEL, PYTHON, STUB

if TYPE_CHECKING:
    from dataclasses import dataclass

    from tfenv.models.target import Target
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "DRIVER",
    "GLIBC",
    "NO_WHEEL",
    "RULES",
    "Context",
    "Failure",
    "Rule",
    "failures",
    "requirements_for",
    "rule",
    "with_pinned",
]

RULES: tuple[Rule, ...] = (
    DRIVER,
    JIT_DRIVER,
    IMAGE_DRIVER,
    PYTHON,
    GPU_CODE,
    CUDA_GPU_RANGE,
    CUDNN_GPU,
    CUDNN_ARCH,
    GPU_PLATFORM,
    NO_WHEEL,
    STUB,
    GLIBC,
    METAL,
    CUDA,
    CUDNN,
    CUDNN_CUDA,
)
_BY_KIND = {r.kind: r for r in RULES}
# every kind of move check-upgrade reports for a rule is a kind changes.yaml may record
choices.check_registry(
    "the rules' change kinds",
    frozenset(r.change_kind for r in RULES if r.change_kind) - choices.CHANGE_KINDS,
    frozenset(),
)
_FIXED = ("platform", "gpu", "driver", "python")


def rule(kind: str) -> Optional[Rule]:
    """The rule whose requirements have ``kind`` (None for the solver's own kinds)."""
    return _BY_KIND.get(kind)


def requirements_for(ctx: Context, candidate: Candidate) -> tuple[Requirement, ...]:
    """Every requirement the rules place on the stack for ``candidate``."""
    out: list[Requirement] = []
    for r in RULES:
        if r.on == candidate.identifier:
            out.extend(r.needs(ctx, candidate))
    return tuple(out)


@dataclass(frozen=True)
class Failure:
    """A requirement the target's facts do not meet, and the rule it comes from."""

    rule: Rule
    requirement: Requirement

    def conflict(self, target: Target, release: str, version: Optional[str]) -> Conflict:
        """The failure as a conflict of ``release`` (worded by :mod:`tfenv.models.messages`)."""
        return Conflict(
            "conflict.release",
            self.rule.kind,
            topic=_(self.rule.topic),
            release=release,
            version=version,
            requirements=(self.requirement.text,),
            fact=self.rule.fact_of(target),
            fix=self.requirement.fix,
        )

    def sentence(self, target: Target, release: str) -> str:
        """ "TensorFlow 2.15.1 needs an NVIDIA driver >= 525.60.13 (...), but this machine's
        driver is 470.82.01 (given)"."""
        return messages.failure_sentence(self.conflict(target, release, None))


def failures(
    ctx: Context,
    candidate: Candidate,
    kinds: Optional[Iterable[str]] = None,
    *,
    pinned: bool = True,
) -> list[Failure]:
    """The requirements ``candidate`` places on the target's fixed facts that fail.

    The facts are the target's platform, GPU, driver and (when it fixes one) Python.
    With ``pinned``, where a candidate pins the CUDA or cuDNN version, the rules of
    that version are checked too (a CUDA toolkit's GPU range, cuDNN's minimum GPU).
    """
    wanted = set(kinds) if kinds is not None else None
    facts = fact_candidates(ctx.target)
    out: list[Failure] = []
    for req in with_pinned(ctx, candidate) if pinned else requirements_for(ctx, candidate):
        found = rule(req.kind)
        if found is None or (wanted is not None and req.kind not in wanted):
            continue
        fact = facts.get(req.identifier) if req.identifier in _FIXED else None
        if fact is not None and not req.test(fact):
            out.append(Failure(found, req))
    return out


def with_pinned(ctx: Context, candidate: Candidate) -> tuple[Requirement, ...]:
    """:func:`requirements_for` ``candidate``, and those of the CUDA and cuDNN versions it
    pins (the solver reaches them through its ``cuda`` and ``cudnn`` candidates)."""
    reqs = requirements_for(ctx, candidate)
    out = list(reqs)
    for req in reqs:
        if req.identifier in ("cuda", "cudnn") and req.keys is not None and len(req.keys) == 1:
            from packaging.version import Version

            v = Version(req.keys[0])
            pinned = VersionCandidate(req.identifier, req.keys[0], str(v), 0, v)
            out.extend(requirements_for(ctx, pinned))
    return tuple(out)
