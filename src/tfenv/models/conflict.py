"""Why nothing fits, and the ways out, as values (worded by :mod:`tfenv.models.messages`).

A :class:`Conflict` is one rule that the candidate releases fail, grouped the way the
solver reports it: the rule (``kind``) and its heading, the newest release that failed and
the older ones the rule rejects too, what the rule requires, the fact of the target it is
about (and whether that fact was detected or given) and what makes it hold. A
:class:`Suggestion` is one way out: a message id and the values its sentence names.
``to_dict`` gives the fields and the sentence (``--json``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from tfenv.models import messages

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = ["Conflict", "Skipped", "Suggestion", "TargetFact"]


@dataclass(frozen=True)
class TargetFact:
    """The fact of the target a conflict is about: ``key`` as in ``Target.detected``
    ("driver", "gpu", "python", "glibc"), ``text`` as the rule says it ("this machine's
    driver is 470.82.01"), ``origin`` "detected", "given" or None (not a fact one gives),
    ``value`` the fact itself ("470.82.01"; the compute capability for "gpu")."""

    key: Optional[str]
    text: str
    origin: Optional[str] = None
    value: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "value": self.value, "origin": self.origin, "text": self.text}


@dataclass(frozen=True)
class Conflict:
    """One reason nothing fits.

    ``message`` is ``conflict.release`` (a rule releases fail: ``release`` is the newest,
    ``older`` the versions of the others, oldest first), ``conflict.request`` (what the
    request or the routes require, with no release to name), ``conflict.no-release`` or
    ``conflict.only-prereleases`` (nothing matches ``request`` on ``platform``).
    """

    message: str
    kind: str  # the rule's kind ("driver", "python", ...) or the solver's own ("route", ...)
    topic: str = ""  # the rule's heading: "The NVIDIA driver is too old"
    release: Optional[str] = None  # "TensorFlow 2.15.1 (CUDA build)"
    version: Optional[str] = None  # "2.15.1"
    older: tuple[str, ...] = ()  # the older releases the rule rejects too
    requirements: tuple[str, ...] = ()  # what is required ("an NVIDIA driver >= 525.60.13 ...")
    fact: Optional[TargetFact] = None
    fix: str = ""  # what makes it hold: "Install an NVIDIA driver >= 525.60.13"
    request: Optional[str] = None  # the --tf text, for the request's own conflicts
    platform: Optional[str] = None  # the target's platform, for the request's own conflicts

    @property
    def sentence(self) -> str:
        return messages.conflict_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "kind": self.kind,
            "topic": self.topic or None,
            "release": self.release,
            "version": self.version,
            "older": list(self.older),
            "requirements": list(self.requirements),
            "fact": self.fact.to_dict() if self.fact else None,
            "fix": self.fix or None,
            "request": self.request,
            "platform": self.platform,
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class Suggestion:
    """One way out: the message id of its sentence and the values it names (a release,
    a driver floor, the command to run)."""

    message: str
    fields: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, message: str, **fields: object) -> Suggestion:
        return cls(message, tuple((k, str(v)) for k, v in fields.items()))

    @property
    def sentence(self) -> str:
        return messages.suggestion_sentence(self)

    @property
    def keeps_gpu(self) -> bool:
        """Whether following it keeps the GPU in use (a CPU-only plan does not)."""
        return self.message not in messages.GIVES_UP_GPU

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "fields": dict(self.fields), "sentence": self.sentence}


@dataclass(frozen=True)
class Skipped:
    """A newer choice an ok plan does not take, and why: ``subject`` "tensorflow" (a newer
    series: ``name`` "2.17") or "python" (a newer Python: ``name`` "3.13"); ``conflicts``
    are the rules its newest release fails here (``failure.*`` sentences), in the rules'
    order. Consecutive series that fail alike are one value, ``oldest`` to ``name``."""

    subject: str
    name: str
    conflicts: tuple[Conflict, ...] = ()
    oldest: Optional[str] = None  # the oldest series of a run that fails alike ("2.11")

    @property
    def sentence(self) -> str:
        return messages.skipped_sentence(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "subject": self.subject,
            "name": self.name,
            "oldest": self.oldest,
            "rules": [c.kind for c in self.conflicts],
            "conflicts": [c.to_dict() for c in self.conflicts],
            "sentence": self.sentence,
        }
