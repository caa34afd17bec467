"""The knowledge base's prose is translated, whole, beside the English (``zh:``).

Every record that declares translated prose (``translated(...)`` in its class, see
tfenv.kb._schema) and has English text in such a field has a Chinese text for it, with
the same placeholders and the same commands, versions and URLs: every backticked span,
every version-like token and every URL of the English appears in the Chinese. Runs on the
shipped data (the product) and on the snapshot the other tests read.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfenv.kb import KnowledgeBase
from tfenv.kb._fields import Node
from tfenv.kb._schema import TRANSLATED_LANGUAGES, Translations, read_record
from tfenv.kb.errors import ErrorEntry
from tfenv.kb.prose import opt_prose, prose

SNAPSHOT = Path(__file__).parent / "kb_snapshot"

_PLACEHOLDER = re.compile(r"\{[a-z_]+\}")
_BACKTICKED = re.compile(r"`[^`]+`")
_URL = re.compile(r"https?://[^\s)\uff0c\u3002\uff1b]+")
#: a version as prose names it: 2.15, 535.104.05, 3.8+ (the digits), 2.15.0.post1
_VERSION = re.compile(r"(?<![\w.])\d+(?:\.\d+)+(?:\.post\d+|rc\d+)?(?![\w.]*\d)")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _records(value: object, seen: set[int]) -> Iterator[object]:
    """Every record reachable from ``value`` that carries translations."""
    if id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
        return
    seen.add(id(value))
    if isinstance(value, dict):
        for v in value.values():
            yield from _records(v, seen)
    elif isinstance(value, (tuple, list, frozenset, set)):
        for v in value:
            yield from _records(v, seen)
    elif dataclasses.is_dataclass(value):
        if isinstance(getattr(value, "translations", None), Translations):
            yield value
        for f in dataclasses.fields(value):
            yield from _records(getattr(value, f.name), seen)


def translated_records(kb: KnowledgeBase) -> list[object]:
    seen: set[int] = set()
    found: list[object] = []
    for name in ("errors", "known_issues", "changes", "metal", "platforms", "conda", "containers"):
        found += _records(getattr(kb, name), seen)
    return found


def problems(record: object) -> list[str]:
    """What is missing or different in the translations of ``record``."""
    out: list[str] = []
    translations: Translations = record.translations  # type: ignore[attr-defined]
    ident = getattr(record, "id", repr(record)[:60])
    for language in TRANSLATED_LANGUAGES:
        for name in translations.fields:
            english = getattr(record, name)
            if not english:
                continue
            where = f"{ident}.{language}.{name}"
            text = translations.get(language, name)
            if not text:
                out.append(f"{where}: no translation")
            elif isinstance(english, tuple) != isinstance(text, tuple) or (
                len(english) != len(text) and isinstance(text, tuple)
            ):
                out.append(f"{where}: not one translation per item")
            elif isinstance(english, tuple) and isinstance(text, tuple):
                for i, (one, its) in enumerate(zip(english, text)):
                    out += _differences(f"{where}[{i}]", language, one, its)
            elif isinstance(text, str):
                out += _differences(where, language, english, text)
    return out


def _differences(where: str, language: str, english: str, text: str) -> list[str]:
    out = []
    if not _CJK.search(text):
        out.append(f"{where}: not {language} text: {text!r}")
    if sorted(_PLACEHOLDER.findall(english)) != sorted(_PLACEHOLDER.findall(text)):
        out.append(f"{where}: placeholders differ")
    for pattern in (_BACKTICKED, _URL, _VERSION):
        lost = [s for s in pattern.findall(english) if s not in text]
        if lost:
            out.append(f"{where}: lost {lost}")
    return out


@pytest.mark.shipped_kb
def test_shipped_prose_is_translated(shipped_kb: KnowledgeBase) -> None:
    records = translated_records(shipped_kb)
    assert len(records) >= len(shipped_kb.errors) + len(shipped_kb.known_issues)
    assert [p for r in records for p in problems(r)] == []


def test_snapshot_prose_is_translated() -> None:
    kb = KnowledgeBase(SNAPSHOT)
    assert [p for r in translated_records(kb) for p in problems(r)] == []


def test_the_checks_fail_on_a_lost_command_or_version() -> None:
    entry = _entry(
        {
            "title": "Use `tfenv doctor`",
            "zh": {"title": "请运行 tfenv doctor"},
            "cause": "Driver 535.104.05 is too old",
            "fix": "Nothing to fix.",
        }
    )
    found = problems(entry)
    assert any("lost ['`tfenv doctor`']" in p for p in found)
    assert any("cause: no translation" in p for p in found)


def _entry(prose_fields: dict[str, object]) -> ErrorEntry:
    raw = {
        "id": "an-entry",
        "severity": "problem",
        "patterns": ["an error"],
        "source": "https://example.org/an-issue",
        "retrieved": "2026-12-03",
        **prose_fields,
    }
    return read_record(ErrorEntry, Node(raw, "errors.yaml", "errors[0]"))


def test_prose_picks_the_language_and_falls_back_to_english() -> None:
    entry = _entry(
        {"title": "A title", "cause": "A cause", "fix": "A fix", "zh": {"title": "标题"}}
    )
    assert prose(entry, "title", "zh") == "标题"
    assert prose(entry, "title", "en") == "A title"
    assert prose(entry, "cause", "zh") == "A cause"  # not translated: the English
    assert opt_prose(entry, "answer", "zh") is None


def test_a_translation_of_a_field_that_is_not_prose_is_refused() -> None:
    with pytest.raises(Exception, match=r"errors\[0\]\.zh\.severity"):
        _entry({"title": "t", "cause": "c", "fix": "f", "zh": {"severity": "问题"}})
    with pytest.raises(Exception, match="cannot be empty"):
        _entry({"title": "t", "cause": "c", "fix": "f", "zh": {"title": ""}})
