"""Releases that are broken or carry a trap (``tfenv/data/tensorflow/known_issues.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional, Union

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.kb._fields import Node, Provenance, unique_by_id
from tfenv.kb._files import load_node
from tfenv.kb.tensorflow import platform_set

__all__ = [
    "KNOWN_ISSUES_FILE",
    "REMEDIES",
    "KnownIssue",
    "load_known_issues",
]

KNOWN_ISSUES_FILE = "tensorflow/known_issues.yaml"
SEVERITIES = ("broken", "warning")
REMEDIES = ("pin-cuda-wheels",)

Severity = Literal["broken", "warning"]
VersionLike = Union[Version, str]


@dataclass(frozen=True)
class KnownIssue:
    """A release (range) that is broken or has a trap on some platforms.

    ``package`` is the distribution the issue is about (``tensorflow`` unless stated,
    e.g. ``tensorflow-gpu`` or ``tensorflow-macos``); ``applies`` is a specifier on its
    version; an empty ``platforms`` means every platform.
    """

    id: str
    package: str
    applies: SpecifierSet
    platforms: frozenset[str]
    severity: Severity
    summary: str
    prefer: Optional[Version]
    provenance: Provenance
    routes: frozenset[str] = frozenset()  # install routes concerned; empty: every route
    compute_capability: Optional[SpecifierSet] = None  # GPUs concerned; None: every machine
    remedy: Optional[str] = None  # what a plan does that avoids it ("pin-cuda-wheels")
    python: Optional[SpecifierSet] = None  # Pythons concerned; None: every Python
    action: str = ""  # what to do about it (the fix check-upgrade gives)

    def concerns(
        self, route: str, cc: Optional[Version] = None, python: Optional[Version] = None
    ) -> bool:
        """Whether the issue concerns a plan on ``route`` for a GPU of capability ``cc`` and
        Python ``python`` (an unknown Python may be a concerned one)."""
        if self.routes and route not in self.routes:
            return False
        if self.python is not None and python is not None and not self.python.contains(python):
            return False
        if self.compute_capability is None:
            return True
        return cc is not None and self.compute_capability.contains(cc)

    def matches(
        self, version: VersionLike, platform: Optional[str] = None, package: str = "tensorflow"
    ) -> bool:
        """Whether the issue hits ``package==version`` on ``platform`` (None: any platform)."""
        if package != self.package:
            return False
        if platform is not None and self.platforms and platform not in self.platforms:
            return False
        v = version if isinstance(version, Version) else Version(version)
        return self.applies.contains(v, prereleases=True)


def _issue(node: Node) -> KnownIssue:
    node.only(
        "id",
        "package",
        "applies",
        "platforms",
        "severity",
        "summary",
        "prefer",
        "routes",
        "compute_capability",
        "python",
        "remedy",
        "action",
        "source",
        "retrieved",
    )
    severity = node.get("severity").choice(*SEVERITIES)
    package = node.opt("package")
    return KnownIssue(
        id=node.get("id").kebab_id(),
        package="tensorflow" if package.is_null else package.text(),
        applies=node.get("applies").specifier(empty=False),
        platforms=platform_set(node.get("platforms")),
        severity="broken" if severity == "broken" else "warning",
        summary=node.get("summary").text(),
        prefer=node.get("prefer").opt_version(),
        provenance=node.provenance(),
        routes=frozenset(node.opt("routes").texts()) if node.has("routes") else frozenset(),
        compute_capability=node.opt("compute_capability").opt_specifier(empty=False),
        remedy=node.opt("remedy").opt_choice(*REMEDIES),
        python=node.opt("python").opt_specifier(empty=False),
        action=node.get("action").text(),
    )


@lru_cache(maxsize=8)
def load_known_issues(root: Optional[Path] = None) -> tuple[KnownIssue, ...]:
    """Read ``tensorflow/known_issues.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(KNOWN_ISSUES_FILE, root).only("issues")
    return unique_by_id(doc.get("issues"), _issue)
