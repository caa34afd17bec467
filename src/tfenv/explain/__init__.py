"""Match pasted TensorFlow/CUDA messages, or a whole log, against the catalog and answer them.

:func:`explain` finds every catalog entry whose patterns occur in the text (each distinct
error once, with how often it occurs and where it first does), drops what only follows
from another error it found (``supersedes``), and answers each from the knowledge base,
the rules and, where the class of error needs it, the solver, for the machine at hand:
:mod:`tfenv.explain.context` says which machine that is. Problems and warnings come in
the order they first appear; harmless notices (log noise) come last.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from tfenv.explain.context import Answer, Context, target_of
from tfenv.i18n import _
from tfenv.kb.prose import prose

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.errors import ErrorEntry
    from tfenv.models.target import Target

__all__ = ["Explanation", "Match", "explain"]

_SEVERITY_RANK = {"problem": 0, "warning": 0, "harmless": 1}
MAX_DISTINCT = 8  # distinct errors of one entry answered (the same DLL twice is one)
_MAX_HITS = 100_000  # occurrences counted per pattern


@dataclass(frozen=True)
class Match:
    """One distinct error of the text: its entry, what it names, and what follows here."""

    entry: ErrorEntry
    excerpt: str
    groups: Mapping[str, str]
    facts: tuple[str, ...] = ()
    elsewhere: Optional[str] = None  # set when the entry is about another platform
    fix: Optional[str] = None  # the fix for this machine; None: the catalog's
    count: int = 1  # lines of the text it occurs on
    line: int = 1  # the line it first occurs on (1-based)
    follows: tuple[str, ...] = ()  # entries found with it that only follow from it

    @property
    def fix_text(self) -> str:
        return self.fix or prose(self.entry, "fix")


@dataclass(frozen=True)
class Explanation:
    matches: tuple[Match, ...]
    lines: int
    notes: tuple[str, ...] = field(default=())
    machine: str = ""  # the machine the answers are for, in words

    @property
    def known(self) -> bool:
        return bool(self.matches)

    @property
    def has_problem(self) -> bool:
        return any(m.entry.severity == "problem" for m in self.matches)

    @property
    def errors(self) -> tuple[Match, ...]:
        """Problems and warnings, in the order they first appear."""
        return tuple(m for m in self.matches if m.entry.severity != "harmless")

    @property
    def noise(self) -> tuple[Match, ...]:
        """Harmless notices: log noise that does not mean anything is wrong."""
        return tuple(m for m in self.matches if m.entry.severity == "harmless")


@dataclass
class _Hit:
    entry: ErrorEntry
    match: re.Match[str]
    lines: set[int]
    groups: dict[str, str]

    def agrees(self, groups: Mapping[str, str]) -> bool:
        """Whether ``groups`` name the same error: no name they share differs."""
        return all(self.groups[k] == v for k, v in groups.items() if k in self.groups)


def explain(
    text: str,
    kb: KnowledgeBase,
    host: Optional[HostProfile] = None,
    entries: Optional[Sequence[ErrorEntry]] = None,
    *,
    target: Optional[Target] = None,
    tf: Optional[Version] = None,
) -> Explanation:
    """Every distinct known error in ``text``, answered for ``target`` (else ``host``'s machine).

    UsageError when the text holds a number too long for Python to convert
    (:func:`tfenv.specs.refuse_huge_numbers`): the answers read versions out of it.
    """
    from tfenv.specs import refuse_huge_numbers

    refuse_huge_numbers(text, _("The error text"))
    if entries is None:
        entries = kb.errors
    if target is None and host is not None:
        target = target_of(host)
    ctx = Context(kb, text, target, host, tf)
    hits = [h for entry in entries for h in _hits(entry, text)]
    found = {h.entry.id for h in hits}
    superseded = {s for h in hits for s in h.entry.supersedes if s in found}
    described = []
    for hit in hits:
        if hit.entry.id in superseded:
            continue
        follows = tuple(s for s in hit.entry.supersedes if s in found)
        described.append(_describe(hit, text, ctx, follows))
    described.sort(
        key=lambda m: (_SEVERITY_RANK[m.entry.severity], m.elsewhere is not None, m.line)
    )
    machine = ctx.describe_machine() if described else ""
    return Explanation(tuple(described), len(text.splitlines()), machine=machine)


def _hits(entry: ErrorEntry, text: str) -> list[_Hit]:
    """The distinct errors of one entry, each with its first occurrence and its lines.

    Occurrences that name the same things (or nothing the other names: the two lines of
    one pip error) are one error; a harmless notice is one however it varies."""
    found: list[_Hit] = []
    limit = 1 if entry.severity == "harmless" else MAX_DISTINCT
    for pattern in entry.patterns:
        if pattern.search(text) is None:  # the pre-checked search: most texts stop here
            continue
        line, last = 1, 0
        for n, m in enumerate(pattern.finditer(text)):
            if n >= _MAX_HITS:
                break
            line += text.count("\n", last, m.start())
            last = m.start()
            groups = {k: _plain(k, v) for k, v in m.groupdict().items() if v}
            hit = next((h for h in found if h.agrees(groups) or limit == 1), None)
            if hit is None:
                if len(found) >= limit:
                    continue
                found.append(_Hit(entry, m, {line}, groups))
                continue
            if m.start() < hit.match.start():
                hit.match = m
            for k, v in groups.items():
                hit.groups.setdefault(k, v)
            hit.lines.add(line)
    return sorted(found, key=lambda h: h.match.start())


def _plain(name: str, value: str) -> str:
    """A requirement as pip prints it, without its markers and "(from ...)" notes."""
    if name == "req":
        value = value.split(";", 1)[0].split(" (from ", 1)[0].strip()
    return value


def _line_of(text: str, m: re.Match[str]) -> str:
    """The lines the match spans, as one line: a message a pattern reads across a line
    break (``The signature was`` / ``() -> handle``) is joined with a space, each line
    stripped (never a newline shown as an escape)."""
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", max(m.end() - 1, m.start()))
    spanned = text[start : end if end >= 0 else len(text)].splitlines()
    line = " ".join(part.strip() for part in spanned if part.strip())
    return line if len(line) <= 300 else line[:297] + "..."


def _describe(hit: _Hit, text: str, ctx: Context, follows: tuple[str, ...]) -> Match:
    entry, m, groups = hit.entry, hit.match, hit.groups
    answer = Answer()
    if entry.answer is not None:
        answer = answer_for(entry.answer)(groups, ctx)
    return Match(
        entry,
        _line_of(text, m),
        groups,
        answer.facts,
        _elsewhere(entry, ctx),
        answer.fix,
        count=len(hit.lines),
        line=min(hit.lines),
        follows=follows,
    )


def _elsewhere(entry: ErrorEntry, ctx: Context) -> Optional[str]:
    plats = entry.applies.platforms
    where = ctx.platform
    if where is not None and plats and where not in plats:
        return _("This entry is about {platforms}; this machine is {platform}.").format(
            platforms=", ".join(sorted(plats)), platform=where
        )
    spec, tf = entry.applies.tensorflow, ctx.tf
    if spec is not None and tf is not None and not spec.contains(tf, prereleases=True):
        return _(
            "This entry is about TensorFlow {spec}; this environment has TensorFlow {tf}."
        ).format(spec=spec, tf=tf)
    return None


AnswerFn = Callable[[Mapping[str, str], Context], Answer]
_REGISTRY: dict[str, AnswerFn] = {}


def answer_for(name: str) -> AnswerFn:
    """The function that answers entries with ``answer: name``."""
    if not _REGISTRY:
        from tfenv.explain import (
            conda,
            container,
            driver,
            gpu,
            installs,
            libraries,
            platform,
            runtime,
        )

        for module in (libraries, gpu, driver, installs, conda, container, platform, runtime):
            _REGISTRY.update(module.ANSWERS)
    return _REGISTRY[name]
