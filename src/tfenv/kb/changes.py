"""Breaking or behaviour changes between releases (``tfenv/data/tensorflow/changes.yaml``)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

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
from tfenv.models.choices import CHANGE_KINDS

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = ["CHANGES_FILE", "CHANGE_KINDS", "Change", "load_changes"]

CHANGES_FILE = "tensorflow/changes.yaml"
CHANGE_CONCERNS = frozenset({"cuda", "tensorflow-gpu"})
CHANGE_EFFECTS = ("change", "gain")


@dataclass(frozen=True)
class Change:
    """A breaking or behaviour change that first appears in ``since``."""

    id: str = fact(Node.kebab_id)
    since: Version = fact(Node.version)
    kind: str = fact(choice(*sorted(CHANGE_KINDS)))
    summary: str = fact()
    action: str = fact()
    provenance: Provenance = sourced()
    # who it concerns: None = everyone; "cuda" = CUDA installs on Linux/WSL2;
    # "tensorflow-gpu" = environments that install the tensorflow-gpu package
    concerns: Optional[str] = fact(opt_choice(*sorted(CHANGE_CONCERNS)), default=None)
    # "change": something to act on going up; "gain": it only adds something (info going
    # up; going back below ``since`` loses it, a warning)
    effect: str = fact(lambda n: n.opt_choice(*CHANGE_EFFECTS) or "change", default="change")
    # what to do going below ``since`` (None: a generic sentence)
    undo: Optional[str] = fact(Node.opt_text, default=None)
    # the known issue that describes the same trap (reported once)
    issue: Optional[str] = fact(Node.kebab_id, default=None)
    # the prose in other languages (zh:), read with tfenv.kb.prose.prose
    translations: Translations = translated("summary", "action", "undo")


@lru_cache(maxsize=8)
def load_changes(root: Optional[Path] = None) -> tuple[Change, ...]:
    """Read ``tensorflow/changes.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(CHANGES_FILE, root).only("changes")
    return unique_by_id(doc.get("changes"), lambda node: read_record(Change, node))
