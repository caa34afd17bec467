"""Records read from the data by their fields' metadata: one generic loader.

A knowledge-base record is a dataclass whose fields say where in the file they come
from and how they are read; :func:`read_record` reads any such record from a
:class:`~tfenv.kb._fields.Node`, so that the keys a file may have, the reads and the
record's fields are written once::

    @dataclass(frozen=True)
    class Change:
        id: str = fact(Node.kebab_id)                 # required key "id"
        since: Version = fact(Node.version)
        provenance: Provenance = sourced()            # "source" + "retrieved", both required
        undo: Optional[str] = fact(Node.opt_text, default=None)  # optional key

A field without a default is a required key (``node.get``: a missing key is an error
at its path); a field with one may be absent (then the default), and when present its
reader decides about null (``Node.opt_text`` allows it, ``Node.text`` does not). Every
read goes through :class:`Node`, so every error names the file and the path, as the
hand-written reads did. :func:`read_record` rejects keys no field declares (``only``),
and takes the values of fields the file does not hold directly (``key=None``) from its
caller, for the records whose shape differs from the file's.

A record's prose (explain's titles, causes and fixes, a known issue's summary) is
translated beside the English, keyed by language: :func:`translated` declares which
fields are prose, the record's ``zh:`` mapping holds their translations, and
:func:`tfenv.kb.prose.prose` is the one accessor that picks the current language::

    title: str = fact()
    cause: str = fact()
    translations: Translations = translated("title", "cause")   # the key "zh"

The schema of a class is worked out on its first read (a cold load), never at import:
a warm start that unpickles the records pays nothing for it.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, TypeVar, Union

from tfenv.kb._fields import Node
from tfenv.models._record import MISSING, field, fields

__all__ = [
    "SOURCE_KEYS",
    "TRANSLATED_LANGUAGES",
    "Translated",
    "Translations",
    "choice",
    "fact",
    "given",
    "nonempty",
    "opt_choice",
    "opt_record",
    "read_record",
    "read_translations",
    "record",
    "record_keys",
    "records",
    "sourced",
    "text_list",
    "translated",
]

R = TypeVar("R")
Reader = Callable[[Node], Any]

_META = "tfenv.kb"
SOURCE_KEYS = ("source", "retrieved")
_SOURCED = "<provenance>"
_GIVEN = "<given>"
_TRANSLATED = "<translated>"
#: the languages a record's prose is translated into; each is a key of the record
TRANSLATED_LANGUAGES = ("zh",)


#: a translated field's value: a text, or a list of texts for a list field
Translated = Union[str, tuple[str, ...]]


class Translations:
    """A record's prose in other languages: language -> field name -> text (or texts)."""

    __slots__ = ("fields", "texts")

    def __init__(
        self,
        fields: tuple[str, ...] = (),
        texts: Optional[dict[str, dict[str, Translated]]] = None,
    ) -> None:
        self.fields = fields  # the record's translatable fields
        self.texts = texts or {}

    def get(self, language: str, name: str) -> Optional[Translated]:
        """The text of field ``name`` in ``language``; None when it is not translated."""
        return self.texts.get(language, {}).get(name)

    def __getstate__(self) -> tuple[tuple[str, ...], dict[str, dict[str, Translated]]]:
        return self.fields, self.texts

    def __setstate__(self, state: tuple[tuple[str, ...], dict[str, dict[str, Translated]]]) -> None:
        self.fields, self.texts = state

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Translations):
            return NotImplemented
        return (self.fields, self.texts) == (other.fields, other.texts)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Translations({self.fields!r}, {self.texts!r})"


def fact(
    read: Reader = Node.text,
    *,
    key: Optional[str] = None,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    missing: Any = MISSING,
    required: Optional[bool] = None,
) -> Any:
    """A field read from ``key`` (default: the field's name) by ``read``.

    The key is required unless the field has a default (then an absent key gives it) or
    ``missing`` is given (the value of an absent key, for a field that has no default
    because fields without defaults follow it); ``required`` overrides both."""
    meta = {_META: (key, read, missing, required)}
    if default is not MISSING:
        return field(default=default, metadata=meta)
    if default_factory is not MISSING:
        return field(default_factory=default_factory, metadata=meta)
    return field(metadata=meta)


def sourced() -> Any:
    """The record's :class:`Provenance`: ``source`` (one or a list) and ``retrieved``."""
    return field(metadata={_META: (_SOURCED, None, MISSING, True)})


def given(*, default: Any = MISSING, default_factory: Any = MISSING, compare: bool = True) -> Any:
    """A field the file does not hold as such: its caller passes it to :func:`read_record`."""
    meta = {_META: (_GIVEN, None, MISSING, False)}
    if default is not MISSING:
        return field(default=default, compare=compare, metadata=meta)
    if default_factory is not MISSING:
        return field(default_factory=default_factory, compare=compare, metadata=meta)
    return field(compare=compare, metadata=meta)


def translated(*names: str) -> Any:
    """The translations of the record's prose fields ``names``: under each key of
    :data:`TRANSLATED_LANGUAGES` (``zh:``), a mapping of some of ``names`` to their text.
    Absent: not translated (the English is shown; the completeness test fails on it)."""
    meta = {_META: (_TRANSLATED, names, MISSING, False)}
    return field(
        default_factory=lambda: Translations(names), compare=False, repr=False, metadata=meta
    )


def read_translations(node: Node, names: tuple[str, ...]) -> Translations:
    """The translations under ``node``'s language keys (``zh:``) of its fields ``names``: for
    a record read by hand rather than through :func:`translated` (the same checks)."""
    return _read_translations(node, names)


def _read_translations(node: Node, names: tuple[str, ...]) -> Translations:
    texts: dict[str, dict[str, Translated]] = {}
    text = nonempty(Node.text, "a translation cannot be empty")
    for language in TRANSLATED_LANGUAGES:
        if not node.has(language):
            continue
        found: dict[str, Translated] = {}
        for name, value in node.get(language).known(*names).entries():
            found[name] = (
                tuple(text(v) for v in value.items())
                if isinstance(value.value, list)
                else text(value)
            )
        texts[language] = found
    return Translations(names, texts)


def _translations_reader(names: Any) -> Reader:
    return lambda node: _read_translations(node, tuple(names))


def text_list(node: Node) -> tuple[str, ...]:
    """One text or a list of them; null: none (``notes = fact(text_list, missing=())``)."""
    return node.opt_texts() or ()


def nonempty(read: Reader, problem: str) -> Reader:
    """``read``, failing with ``problem`` at the node when it reads an empty value."""

    def checked(node: Node) -> Any:
        value = read(node)
        if not value:
            raise node.fail(problem)
        return value

    return checked


def record(cls: Callable[..., R]) -> Callable[[Node], R]:
    """A reader of one nested ``cls`` record."""
    return lambda node: read_record(cls, node)


def opt_record(cls: Callable[..., R]) -> Callable[[Node], Optional[R]]:
    """A reader of one nested ``cls`` record, or None for null."""
    return lambda node: None if node.is_null else read_record(cls, node)


def records(cls: Callable[..., R]) -> Callable[[Node], tuple[R, ...]]:
    """A reader of a list of ``cls`` records."""
    return lambda node: tuple(read_record(cls, item) for item in node.items())


def choice(*allowed: str) -> Reader:
    """A reader of one of ``allowed`` (null is an error)."""
    return lambda node: node.choice(*allowed)


def opt_choice(*allowed: str) -> Reader:
    """A reader of one of ``allowed``, or None for null."""
    return lambda node: node.opt_choice(*allowed)


class _Schema:
    __slots__ = ("keys", "reads")

    def __init__(self, cls: type) -> None:
        reads: list[tuple[str, str, Optional[Reader], bool, Any]] = []
        keys: list[str] = []
        for f in fields(cls):
            if not f.init:
                continue
            key, read, missing, required = f.metadata.get(_META, (None, None, MISSING, None))
            if key == _GIVEN:
                continue
            if key == _SOURCED:
                keys += SOURCE_KEYS
                reads.append((f.name, _SOURCED, None, True, MISSING))
                continue
            if key == _TRANSLATED:  # translated() keeps the field names in the reader's place
                keys += TRANSLATED_LANGUAGES
                reads.append((f.name, _TRANSLATED, _translations_reader(read), True, MISSING))
                continue
            if read is None:
                raise TypeError(f"{cls.__name__}.{f.name} has no reader (fact, sourced, given)")
            key = key or f.name
            if required is None:
                defaulted = f.default is not MISSING or f.default_factory is not MISSING
                required = not defaulted and missing is MISSING
            keys.append(key)
            reads.append((f.name, key, read, required, missing))
        self.keys = tuple(keys)
        self.reads = tuple(reads)


_SCHEMAS: dict[type, _Schema] = {}


def _schema(cls: type) -> _Schema:
    found = _SCHEMAS.get(cls)
    if found is None:
        found = _SCHEMAS[cls] = _Schema(cls)
    return found


def record_keys(cls: type) -> tuple[str, ...]:
    """The keys a record of ``cls`` may have in its file (its fields' keys)."""
    return _schema(cls).keys


def read_record(
    cls: Callable[..., R], node: Node, *, keys: tuple[str, ...] = (), **values: Any
) -> R:
    """A ``cls`` read from the mapping at ``node``.

    ``keys`` are further keys the mapping may have (read by the caller, who passes the
    values of the :func:`given` fields in ``values``); any other key is an error.
    """
    schema = _schema(cls)  # type: ignore[arg-type]
    node.only(*schema.keys, *keys)
    for name, key, read, required, missing in schema.reads:
        if read is None:
            values[name] = node.provenance()
        elif key == _TRANSLATED:
            values[name] = read(node)
        elif required or node.has(key):
            values[name] = read(node.get(key))
        elif missing is not MISSING:
            values[name] = missing
    return cls(**values)
