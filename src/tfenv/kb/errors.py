"""The catalog of known TensorFlow/CUDA error messages (``data/errors.yaml``).

Each :class:`ErrorEntry` has regular expressions that recognise the message, the cause,
the fix and where the text came from. Patterns are compiled when the file is read, so a
broken pattern is reported as ``errors.yaml: at errors[3].patterns[1]: ...``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Literal, Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.models.platform import PLATFORM_KEYS

__all__ = ["ERRORS_FILE", "SEVERITIES", "Applies", "ErrorEntry", "load"]

ERRORS_FILE = "errors.yaml"
SEVERITIES = ("problem", "warning", "harmless")
_PLATFORMS = frozenset(PLATFORM_KEYS)
_KEYS = (
    "id",
    "title",
    "severity",
    "patterns",
    "cause",
    "fix",
    "applies",
    "source",
    "retrieved",
)

Severity = Literal["problem", "warning", "harmless"]


@dataclass(frozen=True)
class Applies:
    """Where an entry applies: platforms (empty: all) and TensorFlow versions (None: all)."""

    platforms: frozenset[str] = frozenset()
    tensorflow: Optional[SpecifierSet] = None


@dataclass(frozen=True)
class ErrorEntry:
    id: str
    title: str
    severity: Severity
    patterns: tuple[re.Pattern[str], ...]
    cause: str
    fix: str
    applies: Applies
    provenance: Provenance


def _kebab(node: Node) -> str:
    text = node.text()
    if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", text):
        raise node.fail(f"{text!r} is not a kebab-case id")
    return text


def _pattern(node: Node) -> re.Pattern[str]:
    text = node.text()
    try:
        return re.compile(text, re.IGNORECASE)
    except re.error as exc:
        raise node.fail(f"{text!r} is not a valid regular expression ({exc})") from None


def _applies(node: Node) -> Applies:
    if node.is_null:
        return Applies()
    node.only("platforms", "tensorflow")
    platforms = frozenset(node.opt("platforms").texts()) if node.has("platforms") else frozenset()
    unknown = platforms - _PLATFORMS
    if unknown:
        raise node.get("platforms").fail(f"unknown platform(s) {', '.join(sorted(unknown))}")
    spec: Optional[SpecifierSet] = None
    if node.has("tensorflow"):
        tf = node.get("tensorflow")
        try:
            spec = SpecifierSet(tf.text())
        except InvalidSpecifier:
            raise tf.fail(f"{tf.text()!r} is not a version specifier") from None
    return Applies(platforms=platforms, tensorflow=spec)


def _entry(node: Node) -> ErrorEntry:
    node.only(*_KEYS)
    severity = node.get("severity").text()
    if severity not in SEVERITIES:
        raise node.get("severity").fail(f"{severity!r} is not one of {', '.join(SEVERITIES)}")
    patterns = tuple(_pattern(p) for p in node.get("patterns").items())
    if not patterns:
        raise node.get("patterns").fail("an entry needs at least one pattern")
    return ErrorEntry(
        id=_kebab(node.get("id")),
        title=node.get("title").text(),
        severity=severity,  # type: ignore[arg-type]  # checked against SEVERITIES above
        patterns=patterns,
        cause=node.get("cause").text(),
        fix=node.get("fix").text(),
        applies=_applies(node.opt("applies")),
        provenance=node.provenance(),
    )


@lru_cache(maxsize=8)
def load(root: Optional[Path] = None) -> tuple[ErrorEntry, ...]:
    """Read ``errors.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(ERRORS_FILE, root).only("errors")
    out: list[ErrorEntry] = []
    seen: set[str] = set()
    for item in doc.get("errors").items():
        entry = _entry(item)
        if entry.id in seen:
            raise item.get("id").fail(f"id {entry.id!r} appears twice")
        seen.add(entry.id)
        out.append(entry)
    return tuple(out)
