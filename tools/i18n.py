#!/usr/bin/env python3
"""tfenv's message catalogues: extract the message ids, update the translations, compile.

Usage::

    python tools/i18n.py extract [--output FILE]   # the template (.pot) from the source
    python tools/i18n.py update                    # the .po of every language, from the source
    python tools/i18n.py compile                   # the .mo of every language, from its .po
    python tools/i18n.py check                     # exit 1 unless the .po and .mo are current
    python tools/i18n.py merge OTHER.po...         # take translations the .po lacks from others

Message ids are the English templates in the source, marked with ``_()``, ``N_()`` and
``ngettext()`` (:mod:`tfenv.i18n`); Babel extracts them. The translations' sources are
``src/tfenv/locale/<lang>/LC_MESSAGES/tfenv.po``, in the repository; the compiled ``.mo``
beside each is committed too, so that the wheel and an editable install carry it without a
build step (tests/test_i18n.py fails when a ``.mo`` does not match its ``.po``). After a
merge that touched a ``.po``: ``update``, translate what is new, ``compile``. Two branches
that both added translations conflict in the ``.po`` and ``.mo``: take one side's ``.po``
(``git checkout --ours``), save the other's (``git show MERGE_HEAD:src/tfenv/locale/zh/
LC_MESSAGES/tfenv.po > /tmp/theirs.po``), then ``update``, ``merge /tmp/theirs.po``,
``compile``.

The ``.po`` is sorted by source file and written without line numbers, so that an edit
moves no entry and two branches touching different files rarely meet in it.

Not part of the tfenv package: needs Babel (the ``test`` extra).
"""

from __future__ import annotations

import argparse
import datetime
import gettext
import io
import re
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "tfenv"
LOCALE_DIR = PACKAGE / "locale"
DOMAIN = "tfenv"
LANGUAGES = ("zh",)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
COMMENT_TAGS = ("TRANSLATORS:",)
# fixed, so that the files depend on the messages only
DATE = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str) -> Path:
    return po_path(lang).with_suffix(".mo")


def extract() -> Catalog:
    """Every message id marked in the package's source, with where it is used."""
    catalog = Catalog(
        project="tfenv", domain=DOMAIN, creation_date=DATE, revision_date=DATE, fuzzy=False
    )
    found = extract_from_dir(
        str(PACKAGE),
        method_map=[("**.py", "python")],
        keywords=KEYWORDS,
        comment_tags=COMMENT_TAGS,
        strip_comment_tags=True,
    )
    for filename, lineno, message, comments, context in found:
        catalog.add(
            message,
            None,
            [(f"src/tfenv/{Path(filename).as_posix()}", lineno)],
            auto_comments=comments,
            context=context,
        )
    return catalog


def read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f)


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(
        out,
        catalog,
        width=100,
        sort_by_file=True,
        include_lineno=False,
        ignore_obsolete=True,
    )
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def updated(lang: str, template: Catalog) -> Catalog:
    """The language's catalogue with the template's ids: new ones empty, gone ones dropped."""
    path = po_path(lang)
    if path.exists():
        catalog = read(path)
    else:
        catalog = Catalog(
            locale=lang, project="tfenv", domain=DOMAIN, creation_date=DATE, fuzzy=False
        )
    catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
    catalog.revision_date = DATE
    return catalog


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
        print(f"wrote {path.relative_to(ROOT)}")


def _without_generator(po: bytes) -> bytes:
    """The .po without the line naming Babel's version (another version writes the same)."""
    return re.sub(rb'^"Generated-By: [^"]*"\n', b"", po, flags=re.M)


def mo_messages(data: bytes) -> dict[object, str]:
    """The messages of a compiled catalogue as the runtime reads them, header aside."""
    compiled = gettext.GNUTranslations(io.BytesIO(data))
    messages: dict[object, str] = dict(compiled._catalog)  # type: ignore[attr-defined]
    messages.pop("", None)
    return messages


def stale(langs: Iterable[str] = LANGUAGES) -> list[str]:
    """What is not current: a .po that extraction would change, a .mo not compiled from it."""
    template = extract()
    problems = []
    for lang in langs:
        po = po_path(lang)
        if _without_generator(po_bytes(updated(lang, template))) != _without_generator(
            po.read_bytes()
        ):
            problems.append(f"{po.relative_to(ROOT)}: run tools/i18n.py update")
        mo = mo_path(lang)
        if not mo.exists() or mo_messages(mo.read_bytes()) != mo_messages(mo_bytes(read(po))):
            problems.append(f"{mo.relative_to(ROOT)}: run tools/i18n.py compile")
    return problems


def merged(lang: str, others: Iterable[Path]) -> Catalog:
    """The language's catalogue with the translations it lacks taken from ``others`` (the
    other side of a merge), message by message; its own translations win."""
    catalog = read(po_path(lang))
    for path in others:
        other = read(path)
        for message in catalog:
            if not message.id or _translated(message.string):
                continue
            found = other.get(message.id)
            if found is not None and not found.fuzzy and _translated(found.string):
                message.string = found.string
    return catalog


def _translated(string: object) -> bool:
    if isinstance(string, str):
        return bool(string)
    return isinstance(string, (tuple, list)) and all(string)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/i18n.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract", help="write the template (.pot) from the source")
    ex.add_argument("--output", type=Path, default=ROOT / "build" / f"{DOMAIN}.pot")
    sub.add_parser("update", help="bring every .po up to the source's message ids")
    sub.add_parser("compile", help="compile every .po to its .mo")
    sub.add_parser("check", help="exit 1 unless every .po and .mo is current")
    mg = sub.add_parser("merge", help="take the translations a .po lacks from other .po files")
    mg.add_argument("others", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "extract":
        _write(args.output, po_bytes(extract()))
    elif args.command == "update":
        template = extract()
        for lang in LANGUAGES:
            _write(po_path(lang), po_bytes(updated(lang, template)))
    elif args.command == "merge":
        template = extract()
        for lang in LANGUAGES:
            po_path(lang).write_bytes(po_bytes(merged(lang, args.others)))
            _write(po_path(lang), po_bytes(updated(lang, template)))  # the source's order
    elif args.command == "compile":
        for lang in LANGUAGES:
            _write(mo_path(lang), mo_bytes(read(po_path(lang))))
    else:
        problems = stale()
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
