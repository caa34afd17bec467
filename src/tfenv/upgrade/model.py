"""The answer of ``check-upgrade``: findings per target, and the exit status they imply."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Optional

from tfenv.models.conflict import Conflict, Suggestion

__all__ = [
    "SEVERITIES",
    "Held",
    "PackageChange",
    "Severity",
    "TargetReport",
    "UpgradeFinding",
    "UpgradeReport",
]

Severity = Literal["blocker", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("blocker", "warning", "info")


@dataclass(frozen=True)
class UpgradeFinding:
    """One change that matters on one target, with the way out and where the fact comes from."""

    severity: Severity
    kind: str  # python, platform, gpu-arch, cuda, cudnn, glibc, keras, packaging, api, issue
    summary: str
    fix: str
    sources: tuple[str, ...] = ()
    ref: Optional[str] = None  # the knowledge-base record id, when there is one
    conflicts: tuple[Conflict, ...] = ()  # the solver's, when it is what blocks

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "severity": self.severity,
            "kind": self.kind,
            "summary": self.summary,
            "fix": self.fix,
            "sources": list(self.sources),
            "ref": self.ref,
        }
        if self.conflicts:
            out["conflicts"] = [c.to_dict() for c in self.conflicts]
        return out


@dataclass(frozen=True)
class PackageChange:
    """One package whose pin changes: ``old``/``new`` are versions or specifiers (or None)."""

    name: str
    change: Literal["added", "removed", "changed"]
    old: Optional[str]
    new: Optional[str]
    why: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "change": self.change,
            "old": self.old,
            "new": self.new,
            "why": self.why,
        }


@dataclass(frozen=True)
class Held:
    """A target the team keeps on a TensorFlow of its own (its ``tensorflow`` key in the
    configuration) that the move's release does not match: it does not move, so it is
    not checked and does not count towards the exit status."""

    tensorflow: str  # the target's own request, as written ("2.10")
    config: str  # the configuration file
    table: str  # the target's table in it ("targets.old", "tool.tfenv.targets.old")
    sentence: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "tensorflow": self.tensorflow,
            "config": self.config,
            "table": self.table,
            "sentence": self.sentence,
        }


@dataclass(frozen=True)
class TargetReport:
    """Everything ``check-upgrade`` found for one target machine."""

    name: str
    machine: str  # Target.describe()
    from_version: Optional[str]
    to_version: Optional[str]  # what the new plan installs, or the release that was checked
    resolves: Optional[bool]  # None: not checked (a held target)
    current: Optional[dict[str, Any]] = None  # Plan.to_dict() of the current version
    new: Optional[dict[str, Any]] = None  # Plan.to_dict() of the new version
    findings: tuple[UpgradeFinding, ...] = ()  # what the move changes
    # what holds before and after the move alike: reported once, not a change (a standing
    # warning never fails --strict; a standing blocker still blocks)
    standing: tuple[UpgradeFinding, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    packages: tuple[PackageChange, ...] = ()
    packages_basis: Optional[str] = None  # how the package diff was made; None: no diff
    held: Optional[Held] = None  # kept on its own TensorFlow by the team: not moving

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def status(self) -> str:
        if self.held is not None:
            return "held"
        # a release this target cannot run blocks, even where the current one could not either
        if self.count("blocker") or any(f.severity == "blocker" for f in self.standing):
            return "blocked"
        return "warnings" if self.count("warning") else "safe"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "machine": self.machine,
            "status": self.status,
            "from": self.from_version,
            "to": self.to_version,
            "resolves": self.resolves,
            "current_plan": self.current,
            "new_plan": self.new,
            "findings": [f.to_dict() for f in self.findings],
            "standing": [f.to_dict() for f in self.standing],
            "conflicts": [c.to_dict() for c in self.conflicts],
            "suggestions": [s.to_dict() for s in self.suggestions],
            "packages": {
                "basis": self.packages_basis,
                "changes": [p.to_dict() for p in self.packages],
            },
            "held": self.held.to_dict() if self.held is not None else None,
        }


@dataclass(frozen=True)
class UpgradeReport:
    """The whole answer: where from, where to, and one report per target."""

    from_text: str  # what the current state is ("2.12.1 from requirements.txt")
    to_text: str  # what was asked for ("2.16")
    direction: Literal["upgrade", "downgrade", "same"]
    targets: tuple[TargetReport, ...]
    notes: tuple[str, ...] = field(default=())
    folder: Optional[str] = (
        None  # the configuration's folder: Markdown shows paths below it relative
    )

    @property
    def blocked(self) -> bool:
        return any(t.status == "blocked" for t in self.targets)

    @property
    def warned(self) -> bool:
        return any(t.status not in ("safe", "held") for t in self.targets)

    def exit_code(self, strict: bool = False) -> int:
        if self.blocked or (strict and self.warned):
            return 1
        return 0

    def to_dict(self, strict: bool = False) -> dict[str, Any]:
        return {
            "from": self.from_text,
            "to": self.to_text,
            "direction": self.direction,
            "status": "blocked" if self.blocked else ("warnings" if self.warned else "safe"),
            "strict": strict,
            "exit_code": self.exit_code(strict),
            "targets": [t.to_dict() for t in self.targets],
            "notes": list(self.notes),
        }
