"""The language tfenv speaks: gettext over the catalogues in ``tfenv/locale``.

Every sentence a person reads is a whole template with named placeholders, looked up
here and filled in afterwards, so that a translation may put the words in its own order::

    _("Driver {driver} is older than {need}.").format(driver=d, need=n)

never fragments joined together. English is the identity (the English template is the
message id); Chinese (``zh``, Simplified) comes from ``locale/zh/LC_MESSAGES/tfenv.mo``,
read with the standard library's :mod:`gettext`, and only when Chinese is chosen: English
runs never open the catalogue nor import :mod:`gettext`.

The language is one setting for the process (:func:`set_language`; the CLI sets it once
from ``--lang``, ``TFENV_LANG`` or the locale: :func:`choose`); :func:`using` sets it for a
block (tests render both languages in one process). Strings defined at import time are
marked with :func:`N_` (extraction sees them) and translated where they are used, with
:func:`_`. ``tools/i18n.py`` extracts the message ids (Babel), updates the ``.po`` and
compiles the ``.mo``; tests/test_i18n.py checks that the catalogue is complete and current.

This unit imports nothing of tfenv: every other unit may use it, errors.py included.
"""

from __future__ import annotations

import contextlib
import os
import threading

TYPE_CHECKING = False  # typing is not imported: `tfenv --version` reads this module
if TYPE_CHECKING:
    import gettext as _gettext
    from collections.abc import Iterator, Mapping
    from typing import Optional

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "N_",
    "UnknownLanguage",
    "_",
    "choose",
    "language",
    "ngettext",
    "set_language",
    "using",
]

DOMAIN = "tfenv"
LOCALE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "locale")
# the languages tfenv speaks, and what each is called (in itself) in messages
LANGUAGES: Mapping[str, str] = {"en": "English", "zh": "简体中文"}

_current = "en"  # the process's language (set_language: the CLI, once)
_here = threading.local()  # a block's language in one thread (using), over _current
_catalogues: dict[str, _gettext.NullTranslations] = {}


class UnknownLanguage(ValueError):
    """``--lang`` or ``TFENV_LANG`` names a language tfenv does not speak (one line; the
    CLI reports it as a usage error, exit 2)."""


def N_(message: str) -> str:
    """Marks ``message`` for extraction and returns it unchanged: translate it with
    :func:`_` where it is used."""
    return message


def _(message: str) -> str:
    """``message`` (an English template) in the current language."""
    code = language()
    if code == "en" or not message:
        return message
    return _catalogue(code).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the current language (the
    placeholders, ``{count}`` and the rest, are filled in by the caller)."""
    code = language()
    if code == "en":
        return singular if n == 1 else plural
    return _catalogue(code).ngettext(singular, plural, n)


def language() -> str:
    """The current language's code: ``"en"`` or ``"zh"``."""
    code: Optional[str] = getattr(_here, "code", None)
    return _current if code is None else code


def set_language(code: str) -> None:
    """Speak ``code`` from now on, in every thread (one of :data:`LANGUAGES`)."""
    global _current
    _check(code)
    _current = code


@contextlib.contextmanager
def using(code: str) -> Iterator[None]:
    """Speak ``code`` inside the block, in this thread only (a lockfile written in English
    by one worker while another reports progress in Chinese), then as before."""
    _check(code)
    before: Optional[str] = getattr(_here, "code", None)
    _here.code = code
    try:
        yield
    finally:
        _here.code = before


def _check(code: str) -> None:
    if code not in LANGUAGES:
        raise UnknownLanguage(_unknown(code, "language"))


# the locale's language part (before _ . @) -> ours; zh_TW and zh_HK get Simplified Chinese
# for now (one catalogue): docs/cli.md says so
_LOCALE_LANGUAGES = {"zh": "zh", "en": "en", "c": "en", "posix": "en"}


def choose(flag: Optional[str], environ: Mapping[str, str]) -> str:
    """The language to speak: ``--lang`` (``flag``), else ``TFENV_LANG``, else the locale
    (the first set of ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as POSIX reads them), else
    English. A ``--lang`` or ``TFENV_LANG`` that names no language tfenv speaks raises
    :class:`UnknownLanguage`; a locale tfenv does not speak means English."""
    if flag is not None:
        return _given(flag, "--lang")
    chosen = environ.get("TFENV_LANG", "")
    if chosen.strip():
        return _given(chosen, "TFENV_LANG")
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            return _from_locale(value)
    return "en"


def _given(value: str, where: str) -> str:
    # zh, zh_CN, zh-Hans, zh_TW.UTF-8, en_US: the language part decides
    code = value.strip().lower().replace("-", "_").split(".")[0].split("_")[0]
    if code in LANGUAGES:
        return code
    raise UnknownLanguage(_unknown(value, where))


def _from_locale(value: str) -> str:
    base = value.split(".")[0].split("@")[0].split("_")[0].lower()
    return _LOCALE_LANGUAGES.get(base, "en")


def _unknown(value: str, where: str) -> str:
    supported = ", ".join(f"'{code}' ({name})" for code, name in LANGUAGES.items())
    return _(
        "{where} names a language tfenv does not speak: '{value}'; use one of {supported}."
    ).format(where=where, value=value, supported=supported)


def _catalogue(code: str) -> _gettext.NullTranslations:
    """The compiled catalogue of ``code``, read once; a missing file means the English."""
    found = _catalogues.get(code)
    if found is None:
        import gettext

        found = gettext.translation(DOMAIN, LOCALE_DIR, languages=[code], fallback=True)
        _catalogues[code] = found
    return found
