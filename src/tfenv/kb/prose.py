"""A record's prose in the language of the output: the one accessor.

The knowledge base keeps its prose (explain's titles, causes and fixes, known issues'
summaries and actions, changes' summaries) in English, with translations beside it in
the same record, keyed by language (``zh:``; see :func:`tfenv.kb._schema.translated`).
Every reader of such prose asks :func:`prose`, never the field itself, so the choice of
language is made here and nowhere else; a field with no translation reads in English.
"""

from __future__ import annotations

from typing import Optional, Protocol

from tfenv.kb._schema import Translations

__all__ = ["opt_prose", "prose", "prose_texts", "status_text"]


class _Translated(Protocol):
    @property
    def translations(self) -> Translations: ...


def prose(record: _Translated, name: str, language: Optional[str] = None) -> str:
    """Field ``name`` of ``record`` in ``language`` (default: the output's language)."""
    english: str = getattr(record, name)
    return opt_prose(record, name, language) or english


def opt_prose(record: _Translated, name: str, language: Optional[str] = None) -> Optional[str]:
    """:func:`prose` of an optional field: None when the English is None."""
    english: Optional[str] = getattr(record, name)
    if english is None:
        return None
    if language is None:
        from tfenv.i18n import language as current

        language = current()
    if language == "en":
        return english
    found = record.translations.get(language, name)
    return found if isinstance(found, str) and found else english


def status_text(status: str) -> str:
    """A record's ``status`` (established, inferred, unknown) in the output's language."""
    from tfenv.i18n import N_, _

    words = {"established": N_("established"), "inferred": N_("inferred"), "unknown": N_("unknown")}
    word = words.get(status)
    return _(word) if word is not None else status


def prose_texts(record: _Translated, name: str, language: Optional[str] = None) -> tuple[str, ...]:
    """:func:`prose` of a list field (each text in its place)."""
    english: tuple[str, ...] = getattr(record, name)
    if language is None:
        from tfenv.i18n import language as current

        language = current()
    found = record.translations.get(language, name) if language != "en" else None
    return found if isinstance(found, tuple) and len(found) == len(english) else english
