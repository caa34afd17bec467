"""What a compatibility rule is.

A rule turns the facts of the knowledge base into requirements that one kind of
candidate (a TensorFlow release, a CUDA version, a cuDNN series) places on the
stack, each with its sentence and what makes it hold. It also says the fact of the
target a failure is about ("this machine's driver is 470.82.01 (given)") and the
heading under which failures are grouped ("The NVIDIA driver is too old").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Literal, Optional

from tfenv.i18n import _

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.kb import KnowledgeBase
    from tfenv.models.conflict import TargetFact
    from tfenv.models.target import Request, Target
    from tfenv.rules.model import Candidate, Requirement

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = ["Context", "Rule"]


@dataclass(frozen=True)
class Context:
    """The knowledge base, the machine and the request the rules apply to."""

    kb: KnowledgeBase
    target: Target
    request: Optional[Request] = None
    in_image: bool = False  # the request asks for a route that runs in a container image


# a fact's key in Target.detected -> the Target attribute that holds its value
_ATTRIBUTE = {"gpu": "cc"}

Needs = Callable[[Context, "Candidate"], "tuple[Requirement, ...]"]
Fact = Callable[["Target"], Optional[str]]


@dataclass(frozen=True)
class Rule:
    kind: str  # the requirements' kind: "driver", "python", "gpu-code", ...
    topic: str  # the heading of a conflict: "The NVIDIA driver is too old" (N_: _() it)
    on: str  # the identifier whose candidates carry the requirements: "tensorflow"
    needs: Needs  # the requirements one candidate places on the stack
    fact: Optional[Fact] = None  # the target's fact a failure is about
    fact_key: Optional[str] = None  # its name in Target.detected ("driver", "gpu", ...)
    reads: Literal["index", "builds", "compute", "none"] = "builds"  # what decides it
    change_kind: Optional[str] = None  # the changes.yaml kind that records a move of it
    # whether a change of that kind crossed by a move is the source of this rule's failure
    # (False: the kind's changes are about other GPUs, e.g. the PTX ISA rule's gpu-arch)
    cites_changes: bool = True
    check_hint: str = ""  # how to read the fact on a machine ("'nvidia-smi' shows it"; N_)

    def sources(self, kb: KnowledgeBase, version: Version) -> tuple[str, ...]:
        """Where the facts that decide this rule for ``version`` come from."""
        if self.reads == "index":
            release = kb.index.release("tensorflow", version)
            return release.provenance.sources[:1] if release else ()
        if self.reads == "builds":
            build = kb.builds.for_version(version)
            return build.provenance.sources[:1] if build else ()
        if self.reads == "compute":
            build = kb.builds.for_version(version)
            compute = build.compute if build else None
            return compute.provenance.sources[:1] if compute else ()
        return ()

    def fact_of(self, target: Target) -> Optional[TargetFact]:
        """The target's fact a failure is about, and whether it was detected or given."""
        if self.fact is None:
            return None
        text = self.fact(target)
        if text is None:
            return None
        from tfenv.models.conflict import TargetFact

        if self.fact_key is None:
            return TargetFact(None, text)
        origin = "detected" if self.fact_key in target.detected else "given"
        value = getattr(target, _ATTRIBUTE.get(self.fact_key, self.fact_key), None)
        return TargetFact(self.fact_key, text, origin, None if value is None else str(value))

    def target_fact(self, target: Target) -> Optional[str]:
        """ "but this machine's driver is 470.82.01 (given)", or None."""
        fact = self.fact_of(target)
        if fact is None:
            return None
        if fact.origin is None:
            return _("but {fact}").format(fact=fact.text)
        from tfenv.models.messages import render

        return _("but {fact}").format(fact=render(f"fact.{fact.origin}", {"fact": fact.text}))
