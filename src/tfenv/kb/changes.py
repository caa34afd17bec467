"""Breaking or behaviour changes between releases (``tfenv/data/tensorflow/changes.yaml``)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional

from packaging.version import Version

from tfenv.kb._fields import Node, Provenance, unique_by_id
from tfenv.kb._files import load_node

__all__ = ["CHANGES_FILE", "CHANGE_KINDS", "Change", "load_changes"]

CHANGES_FILE = "tensorflow/changes.yaml"
CHANGE_KINDS = frozenset(
    {"keras", "platform", "gpu-arch", "cuda", "cudnn", "glibc", "python", "packaging", "api"}
)


@dataclass(frozen=True)
class Change:
    """A breaking or behaviour change that first appears in ``since``."""

    id: str
    since: Version
    kind: str
    summary: str
    action: str
    provenance: Provenance
    # who it concerns: None = everyone; "cuda" = CUDA installs on Linux/WSL2;
    # "tensorflow-gpu" = environments that install the tensorflow-gpu package
    concerns: Optional[str] = None
    # "change": something to act on going up; "gain": it only adds something (info going
    # up; going back below ``since`` loses it, a warning)
    effect: str = "change"
    undo: Optional[str] = None  # what to do going below ``since`` (None: a generic sentence)
    issue: Optional[str] = None  # the known issue that describes the same trap (reported once)


CHANGE_CONCERNS = frozenset({"cuda", "tensorflow-gpu"})
CHANGE_EFFECTS = ("change", "gain")


def _change(node: Node) -> Change:
    node.only(
        "id",
        "since",
        "kind",
        "summary",
        "action",
        "concerns",
        "effect",
        "undo",
        "issue",
        "source",
        "retrieved",
    )
    return Change(
        id=node.get("id").kebab_id(),
        since=node.get("since").version(),
        kind=node.get("kind").choice(*sorted(CHANGE_KINDS)),
        summary=node.get("summary").text(),
        action=node.get("action").text(),
        provenance=node.provenance(),
        concerns=node.opt("concerns").opt_choice(*sorted(CHANGE_CONCERNS)),
        effect=node.opt("effect").opt_choice(*CHANGE_EFFECTS) or "change",
        undo=node.opt("undo").opt_text(),
        issue=node.get("issue").kebab_id() if node.has("issue") else None,
    )


@lru_cache(maxsize=8)
def load_changes(root: Optional[Path] = None) -> tuple[Change, ...]:
    """Read ``tensorflow/changes.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(CHANGES_FILE, root).only("changes")
    return unique_by_id(doc.get("changes"), _change)
