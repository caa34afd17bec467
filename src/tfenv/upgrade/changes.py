"""Knowledge-base lookups: which releases lie between two versions, and which
recorded changes (``tensorflow/changes.yaml``) explain a boundary crossed on the way.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import Version

from tfenv.kb.index import OLDEST_TF

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.changes import Change

__all__ = ["between", "boundary", "crossed", "sources_of", "stable_releases", "window"]


def stable_releases(kb: KnowledgeBase) -> tuple[Version, ...]:
    """TensorFlow releases from ``OLDEST_TF`` (2.0), no pre-releases, no yanked ones, ascending."""
    return tuple(
        r.version
        for r in kb.index.releases("tensorflow")
        if not r.version.is_prerelease and not r.yanked and r.version >= OLDEST_TF
    )


def between(kb: KnowledgeBase, start: Version, end: Version) -> list[Version]:
    """Stable releases after ``start`` up to and including ``end``, in walking order."""
    if start <= end:
        return [v for v in stable_releases(kb) if start < v <= end]
    return [v for v in reversed(stable_releases(kb)) if end <= v < start]


def boundary(
    kb: KnowledgeBase, start: Version, end: Version, value: Callable[[Version], Hashable]
) -> Optional[tuple[Version, Version]]:
    """Walking from ``start`` to ``end``: (last release like ``start``, first one unlike it)."""
    before = value(start)
    prev = start
    for v in between(kb, start, end):
        if value(v) != before:
            return prev, v
        prev = v
    return None


def window(kb: KnowledgeBase, kinds: Iterable[str], a: Version, b: Version) -> tuple[Change, ...]:
    """Changes of ``kinds`` whose ``since`` lies in (min(a, b), max(a, b)]."""
    lo, hi = min(a, b), max(a, b)
    wanted = set(kinds)
    return tuple(c for c in kb.changes if c.kind in wanted and lo < c.since <= hi)


def crossed(kb: KnowledgeBase, start: Version, end: Version) -> tuple[Change, ...]:
    """Every change crossed between the two versions (either direction)."""
    lo, hi = min(start, end), max(start, end)
    return tuple(c for c in kb.changes if lo < c.since <= hi)


def sources_of(changes: Iterable[Change]) -> tuple[str, ...]:
    out: list[str] = []
    for change in changes:
        out += change.provenance.sources[:1]
    return tuple(dict.fromkeys(out))
