"""The catalog of known TensorFlow/CUDA error messages (``data/errors.yaml``).

Each :class:`ErrorEntry` has regular expressions that recognise the message, the cause,
the fix and where the text came from. Patterns are compiled when the file is read, so a
broken pattern is reported as ``errors.yaml: at errors[3].patterns[1]: ...``.

Pasted logs can be megabytes on one line, so searching must stay linear and cheap: each
pattern is a :class:`CatalogPattern` that first checks, with a plain substring search,
the longest piece of literal text every match must contain (most texts contain none of
it), and only then runs the regular expression. The patterns themselves avoid
backtracking that grows with the line (see tests/test_hardening.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Optional

from packaging.specifiers import SpecifierSet

from tfenv.i18n import _, ngettext
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
from tfenv.models.platform import PLATFORM_KEYS

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "ANSWERS",
    "ERRORS_FILE",
    "SEVERITIES",
    "Applies",
    "CatalogPattern",
    "ErrorEntry",
    "load",
    "required_literal",
]

ERRORS_FILE = "errors.yaml"
SEVERITIES = ("problem", "warning", "harmless")
_PLATFORMS = frozenset(PLATFORM_KEYS)
#: the answers ``tfenv explain`` knows how to give (``answer:`` of an entry); each one asks
#: the knowledge base, the rules or the solver about what the message names
ANSWERS = (
    "cc",
    "conda-cuda",
    "conda-cudatoolkit",
    "conda-platform",
    "container-brand",
    "container-require",
    "container-runtime",
    "cudnn-pair",
    "dll",
    "driver-floor",
    "driver-ptxas",
    "glibc",
    "kernel-module",
    "metal",
    "nvrtc",
    "pip-backtrack",
    "pip-conflict",
    "pip-index",
    "pip-wheel-tag",
    "ptx-isa",
    "ptx-invalid",
    "ptxas-arch",
    "ptxas-missing",
    "ptxas-old",
    "runtime-numpy",
    "runtime-protobuf",
    "protobuf-runtime-version",
    "tensorboard-missing",
    "tensorboard-setuptools",
    "smi-header",
    "soname",
    "tensorflow-gpu",
    "windows-gpu",
    "windows-runtime",
    "xla-ptx",
    "zlib",
)

Severity = Literal["problem", "warning", "harmless"]


def _platforms(node: Node) -> frozenset[str]:
    platforms = frozenset(node.texts())
    unknown = platforms - _PLATFORMS
    if unknown:
        raise node.fail(
            ngettext("unknown platform {names}", "unknown platforms {names}", len(unknown)).format(
                names=", ".join(sorted(unknown))
            )
        )
    return platforms


@dataclass(frozen=True)
class Applies:
    """Where an entry applies: platforms (empty: all) and TensorFlow versions (None: all)."""

    platforms: frozenset[str] = fact(_platforms, default=frozenset())
    tensorflow: Optional[SpecifierSet] = fact(Node.specifier, default=None)


class CatalogPattern:
    """A case-insensitive pattern with a literal pre-check; ``search`` is ``re``'s."""

    __slots__ = ("_needle", "_regex", "pattern")

    def __init__(self, source: str) -> None:
        self._regex = re.compile(source, re.IGNORECASE)
        self.pattern = source
        self._needle = required_literal(source).casefold()

    def search(self, text: str) -> Optional[re.Match[str]]:
        if self._needle and self._needle not in _casefolded(text):
            return None
        return self._regex.search(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        """Every match (no pre-check: call after :meth:`search` found one)."""
        return self._regex.finditer(text)


_last_folded: list[tuple[str, str]] = []


def _casefolded(text: str) -> str:
    """``text.casefold()``, remembered for the last text (every pattern searches it)."""
    if _last_folded and _last_folded[0][0] is text:
        return _last_folded[0][1]
    folded = text.casefold()
    _last_folded[:] = [(text, folded)]
    return folded


def required_literal(source: str) -> str:
    """The longest text every match of the regular expression ``source`` contains, read
    from its top level (groups, classes and alternatives contribute nothing); ``""`` when
    there is none or the pattern has a top-level ``|``."""
    runs: list[str] = []
    run: list[str] = []
    for kind, char in _top_level(source):
        if kind == "|":
            return ""
        if kind == "+" and run:  # one is there, and what follows joins its last copy
            runs.append("".join(run))
            run[:] = run[-1:]
        elif kind == "?" and run:  # the quantified character may be absent ('?', '*', '{')
            run.pop()
            runs.append("".join(run))
            run.clear()
        elif kind == "literal":
            run.append(char)
        else:
            runs.append("".join(run))
            run.clear()
    runs.append("".join(run))
    return max(runs, key=len)


def _top_level(source: str) -> Iterator[tuple[str, str]]:
    """(kind, character) of each top-level item of a pattern: ``literal``, ``?`` (an
    optional quantifier), ``+``, ``|`` or ``other`` (anything that is not plain text)."""
    depth, i = 0, 0
    while i < len(source):
        c = source[i]
        if c == "\\":
            nxt = source[i + 1 : i + 2]
            literal = bool(nxt) and not nxt.isalnum() and depth == 0
            yield ("literal" if literal else "other"), nxt
            i += 2
        elif c == "[":
            yield "other", c
            i = _class_end(source, i)
        elif c in "?*{+":
            yield ("+" if c == "+" else "?"), c
            i = _quantifier_end(source, i)
        else:
            if c == "|" and depth == 0:
                yield "|", c
            depth += (c == "(") - (c == ")")
            plain = c not in "()|.^$" and depth == 0
            yield ("literal" if plain else "other"), c
            i += 1


def _class_end(source: str, i: int) -> int:
    """The index after the character class starting at ``source[i] == '['``."""
    j = i + 1
    if source[j : j + 1] == "^":
        j += 1
    if source[j : j + 1] == "]":
        j += 1
    while j < len(source) and source[j] != "]":
        j += 2 if source[j] == "\\" else 1
    return j + 1


def _quantifier_end(source: str, i: int) -> int:
    j = source.index("}", i) + 1 if source[i] == "{" and "}" in source[i:] else i + 1
    if source[j : j + 1] in ("?", "+"):  # lazy or possessive
        j += 1
    return j


def _pattern(node: Node) -> CatalogPattern:
    text = node.text()
    try:
        return CatalogPattern(text)
    except re.error as exc:
        raise node.fail(
            _("{text!r} is not a valid regular expression ({exc})").format(text=text, exc=exc)
        ) from None


def _patterns(node: Node) -> tuple[CatalogPattern, ...]:
    patterns = tuple(_pattern(p) for p in node.items())
    if not patterns:
        raise node.fail(_("an entry needs at least one pattern"))
    return patterns


def _applies(node: Node) -> Applies:
    return Applies() if node.is_null else read_record(Applies, node)


@dataclass(frozen=True)
class ErrorEntry:
    id: str = fact(Node.kebab_id)
    title: str = fact()
    severity: Severity = fact(choice(*SEVERITIES))
    patterns: tuple[CatalogPattern, ...] = fact(_patterns)
    cause: str = fact()
    fix: str = fact()
    applies: Applies = fact(_applies, missing=Applies())
    provenance: Provenance = sourced()
    # one of ANSWERS: how explain interprets what it names
    answer: Optional[str] = fact(opt_choice(*ANSWERS), default=None)
    # entries that only follow from this one
    supersedes: tuple[str, ...] = fact(
        lambda n: tuple(i.kebab_id() for i in n.opt_items()), default=()
    )
    # the prose in other languages (zh:), read with tfenv.kb.prose.prose
    translations: Translations = translated("title", "cause", "fix")


@lru_cache(maxsize=8)
def load(root: Optional[Path] = None) -> tuple[ErrorEntry, ...]:
    """Read ``errors.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(ERRORS_FILE, root).only("errors")
    out = unique_by_id(doc.get("errors"), lambda node: read_record(ErrorEntry, node))
    seen = {entry.id for entry in out}
    for item, entry in zip(doc.get("errors").items(), out):
        unknown = [s for s in entry.supersedes if s not in seen or s == entry.id]
        if unknown:
            raise item.get("supersedes").fail(
                _("not another entry's id: {names}").format(names=", ".join(unknown))
            )
    return out
