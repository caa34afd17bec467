"""Releases that are broken or carry a trap (``tfenv/data/tensorflow/known_issues.yaml``)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Optional, Union

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique_by_id
from tfenv.kb._files import load_node
from tfenv.kb._schema import (
    Translations,
    choice,
    fact,
    opt_choice,
    read_record,
    sourced,
    translated,
)
from tfenv.kb.prose import prose
from tfenv.kb.tensorflow import platform_set
from tfenv.models.choices import REMEDIES

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "KNOWN_ISSUES_FILE",
    "REMEDIES",
    "KnownIssue",
    "load_known_issues",
]

KNOWN_ISSUES_FILE = "tensorflow/known_issues.yaml"
SEVERITIES = ("broken", "warning")

Severity = Literal["broken", "warning"]
VersionLike = Union[Version, str]


def _opt_spec(node: Node) -> Optional[SpecifierSet]:
    return node.opt_specifier(empty=False)


def _summary(node: Node) -> str:
    """A summary; ``{gpu}`` (the GPU at hand, see KnownIssue.text_for) is its one placeholder."""
    text = node.text()
    if "{" in text.replace("{gpu}", ""):
        raise node.fail(_("the only placeholder a summary may carry is {gpu}"))
    return text


@dataclass(frozen=True)
class KnownIssue:
    """A release (range) that is broken or has a trap on some platforms.

    ``package`` is the distribution the issue is about (``tensorflow`` unless stated,
    e.g. ``tensorflow-gpu`` or ``tensorflow-macos``); ``applies`` is a specifier on its
    version; an empty ``platforms`` means every platform.
    """

    id: str = fact(Node.kebab_id)
    package: str = fact(lambda n: "tensorflow" if n.is_null else n.text(), missing="tensorflow")
    applies: SpecifierSet = fact(lambda n: n.specifier(empty=False))
    platforms: frozenset[str] = fact(platform_set)
    severity: Severity = fact(choice(*SEVERITIES))
    summary: str = fact(_summary)
    prefer: Optional[Version] = fact(Node.opt_version)
    provenance: Provenance = sourced()
    # install routes concerned; empty: every route
    routes: frozenset[str] = fact(lambda n: frozenset(n.texts()), default=frozenset())
    # GPUs concerned; None: every machine
    compute_capability: Optional[SpecifierSet] = fact(_opt_spec, default=None)
    # what a plan does that avoids it ("pin-cuda-wheels")
    remedy: Optional[str] = fact(opt_choice(*REMEDIES), default=None)
    python: Optional[SpecifierSet] = fact(_opt_spec, default=None)  # None: every Python
    action: str = fact(required=True, default="")  # what to do about it (check-upgrade's fix)
    # the prose in other languages (zh:), read with tfenv.kb.prose.prose
    translations: Translations = translated("summary", "action")

    def text_for(self, cc: Optional[Version] = None) -> str:
        """The summary for a GPU of capability ``cc``: ``{gpu}`` in it names that GPU
        ("compute capability 10.0"), or the GPUs the issue concerns when ``cc`` is unknown."""
        if cc is not None:
            gpu = _("compute capability {cc}").format(cc=cc)
        elif self.compute_capability is not None:
            gpu = _("GPUs of compute capability {spec}").format(spec=self.compute_capability)
        else:
            gpu = _("this GPU")
        return prose(self, "summary").replace("{gpu}", gpu)

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


@lru_cache(maxsize=8)
def load_known_issues(root: Optional[Path] = None) -> tuple[KnownIssue, ...]:
    """Read ``tensorflow/known_issues.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(KNOWN_ISSUES_FILE, root).only("issues")
    return unique_by_id(doc.get("issues"), lambda node: read_record(KnownIssue, node))
