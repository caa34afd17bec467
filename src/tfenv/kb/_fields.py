"""Typed reading of raw YAML/JSON data with errors that name where they failed.

Every knowledge-base module parses its file through a :class:`Node`, which knows
the file name and the dotted path of the value it wraps, so that a malformed
file is reported as ``gpus.yaml: at gpus[12].compute_capability: ...``.

The exception is built by the node's ``errors`` factory, ``(file, path, problem)
-> exception``, which every child node inherits. It defaults to
:class:`~tfenv.errors.KBValidationError`; the host-profile and configuration
readers pass their own, so all three share these typed reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, TypeVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from tfenv.errors import KBValidationError, TfenvError
from tfenv.i18n import _, ngettext
from tfenv.models.driver import DriverVersion
from tfenv.specs import to_version
from tfenv.textsafe import is_printable

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = ["Errors", "Node", "Provenance", "unique", "unique_by_id"]

Errors = Callable[[str, str, str], TfenvError]
"""Builds the exception for a bad value from (file or origin, dotted path, problem)."""

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_VERSIONS: dict[str, Version] = {}  # Node.version's objects, by text


@dataclass(frozen=True)
class Provenance:
    """Where a fact comes from: one or more sources and the date they were read."""

    sources: tuple[str, ...]
    retrieved: str

    def cite(self) -> str:
        """The sources and the date they were read, in the output's language."""
        from tfenv.i18n import _

        return _("{sources} (read {date})").format(
            sources="; ".join(self.sources), date=self.retrieved
        )


class Node:
    """A raw value plus the file and path it was found at."""

    __slots__ = ("errors", "file", "path", "value")

    def __init__(
        self, value: Any, file: str, path: str = "", errors: Errors = KBValidationError
    ) -> None:
        self.value = value
        self.file = file
        self.path = path
        self.errors = errors

    # -- navigation -------------------------------------------------------
    def fail(self, problem: str) -> TfenvError:
        return self.errors(self.file, self.path, problem)

    def _child(self, value: Any, key: str | int) -> Node:
        return Node(value, self.file, self._sub(key), self.errors)

    def _sub(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def mapping(self) -> Mapping[str, Any]:
        if not isinstance(self.value, Mapping):
            raise self.fail(_("expected a mapping, found {kind}").format(kind=_kind(self.value)))
        return self.value

    def has(self, key: str) -> bool:
        return key in self.mapping()

    def get(self, key: str) -> Node:
        """The value at ``key``; the key must be present (null is allowed)."""
        raw = self.mapping()
        if key not in raw:
            raise self._child(None, key).fail(_("this required key is missing"))
        return self._child(raw[key], key)

    def opt(self, key: str) -> Node:
        """The value at ``key``, or a null node when the key is absent."""
        return self._child(self.mapping().get(key), key)

    def items(self) -> Iterator[Node]:
        if not isinstance(self.value, list):
            raise self.fail(_("expected a list, found {kind}").format(kind=_kind(self.value)))
        for i, v in enumerate(self.value):
            yield self._child(v, i)

    def entries(self) -> Iterator[tuple[str, Node]]:
        for k, v in self.mapping().items():
            yield str(k), self._child(v, str(k))

    def only(self, *allowed: str) -> Node:
        """Reject keys not in ``allowed`` (catches typos in hand-edited files)."""
        extra = sorted(set(self.mapping()) - set(allowed))
        if extra:
            raise self.fail(
                ngettext("unknown key {names}", "unknown keys {names}", len(extra)).format(
                    names=", ".join(map(repr, extra))
                )
            )
        return self

    def known(self, *allowed: str) -> Node:
        """Like :meth:`only`, but the error names the first unknown key itself."""
        for key in self.mapping():
            if key not in allowed:
                known = ", ".join(allowed)
                raise self._child(None, str(key)).fail(
                    _("unknown key; the known keys are {known}").format(known=known)
                )
        return self

    def opt_items(self) -> Iterator[Node]:
        """:meth:`items` of a list that may be absent or null (then empty)."""
        return iter(()) if self.value is None else self.items()

    # -- scalars ----------------------------------------------------------
    @property
    def is_null(self) -> bool:
        return self.value is None

    def text(self) -> str:
        if isinstance(self.value, bool) or not isinstance(self.value, (str, int, float)):
            raise self.fail(_("expected a string, found {kind}").format(kind=_kind(self.value)))
        return str(self.value)

    def opt_text(self) -> Optional[str]:
        return None if self.value is None else self.text()

    def string(self) -> str:
        """A non-empty string; unlike :meth:`text`, a number is not accepted."""
        if not isinstance(self.value, str):
            raise self.fail(
                _("expected a non-empty string, found {kind}").format(kind=_kind(self.value))
            )
        if not self.value.strip():
            raise self.fail(_("expected a non-empty string, found an empty or blank one"))
        return self.value

    def opt_string(self) -> Optional[str]:
        return None if self.value is None else self.string()

    def label(self, max_length: int = 200) -> str:
        """A non-empty string of printable text on one line, at most ``max_length`` long
        (a name that will be shown, or written into a generated file)."""
        text = self.string()
        if len(text) > max_length:
            raise self.fail(
                _("expected at most {max_length} characters, found {count}").format(
                    max_length=max_length, count=len(text)
                )
            )
        if not is_printable(text):
            raise self.fail(
                _(
                    "{text!r} contains a control character (a newline, an escape sequence) or an "
                    "unpaired surrogate"
                ).format(text=text)
            )
        return text

    def opt_label(self, max_length: int = 200) -> Optional[str]:
        return None if self.value is None else self.label(max_length)

    def strings(self) -> tuple[str, ...]:
        """A list of non-empty strings; absent or null is empty."""
        return tuple(n.string() for n in self.opt_items())

    def str_map(self) -> tuple[tuple[str, str], ...]:
        """A mapping of strings to strings as sorted pairs; absent or null is empty."""
        if self.value is None:
            return ()
        for _key, node in self.entries():
            if not isinstance(node.value, str):
                raise node.fail(_("expected a string, found {kind}").format(kind=_kind(node.value)))
        return tuple(sorted((str(k), v) for k, v in self.mapping().items()))

    def choice(self, *allowed: str) -> str:
        if self.value is None:
            raise self.fail(
                _("expected one of {names}, found null").format(names=", ".join(allowed))
            )
        if self.value not in allowed:
            raise self.fail(
                _("{value!r} is not one of {names}").format(
                    value=self.value, names=", ".join(allowed)
                )
            )
        return str(self.value)

    def opt_choice(self, *allowed: str) -> Optional[str]:
        return None if self.value is None else self.choice(*allowed)

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            raise self.fail(
                _("expected true or false, found {kind}").format(kind=_kind(self.value))
            )
        return self.value

    def opt_boolean(self) -> Optional[bool]:
        return None if self.value is None else self.boolean()

    def integer(self, minimum: Optional[int] = None, maximum: int = 2**53) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.fail(
                _("expected a whole number, found {kind}").format(kind=_kind(self.value))
            )
        if minimum is not None and self.value < minimum:
            raise self.fail(
                _("expected a whole number of at least {minimum}, found {value}").format(
                    minimum=minimum, value=self.value
                )
            )
        if self.value > maximum:
            raise self.fail(
                _("expected a whole number of at most {maximum}").format(maximum=maximum)
            )
        return self.value

    def opt_integer(self, minimum: Optional[int] = None, maximum: int = 2**53) -> Optional[int]:
        return None if self.value is None else self.integer(minimum, maximum)

    def version(self, *, strict: bool = False) -> Version:
        """A version; ``strict`` requires it written as a string (JSON ``"3.10"``, not 3.1).
        Equal texts give one shared object: the knowledge base's cache then pickles each
        version once, and unpickling one costs a call of packaging's ``__setstate__``."""
        text = self.string() if strict else self.text()
        known = _VERSIONS.get(text)
        if known is not None:
            return known
        try:
            known = _VERSIONS[text] = to_version(text)
        except ValueError as exc:
            raise self.fail(str(exc)) from None
        return known

    def opt_version(self, *, strict: bool = False) -> Optional[Version]:
        return None if self.value is None else self.version(strict=strict)

    def driver(self) -> DriverVersion:
        """An NVIDIA driver version (printed back as NVIDIA writes it: 450.80.02)."""
        return DriverVersion(self.version())

    def opt_driver(self) -> Optional[DriverVersion]:
        return None if self.value is None else self.driver()

    def specifier(self, *, empty: bool = True) -> SpecifierSet:
        """A PEP 440 version specifier (``empty=False``: one that does not match everything)."""
        text = self.text()
        try:
            spec = SpecifierSet(text)
        except InvalidSpecifier:
            raise self.fail(_("{text!r} is not a version specifier").format(text=text)) from None
        if not empty and not str(spec):
            raise self.fail(_("an empty specifier would match every release"))
        return spec

    def opt_specifier(self, *, empty: bool = True) -> Optional[SpecifierSet]:
        return None if self.value is None else self.specifier(empty=empty)

    def texts(self) -> tuple[str, ...]:
        if isinstance(self.value, str):
            return (self.value,)
        return tuple(n.text() for n in self.items())

    def opt_texts(self) -> Optional[tuple[str, ...]]:
        """:meth:`texts`, or None for null (``node.opt_texts() or ()`` where null is empty)."""
        return None if self.value is None else self.texts()

    def versions(self) -> tuple[Version, ...]:
        return tuple(n.version() for n in self.items())

    def opt_versions(self) -> Optional[tuple[Version, ...]]:
        return None if self.value is None else self.versions()

    def kebab_id(self) -> str:
        """A record id in kebab case (``pip-cuda-libs-not-found``)."""
        text = self.text()
        parts = text.split("-")
        if not text or any(
            not p or not p.isascii() or not p.isalnum() or p != p.lower() for p in parts
        ):
            raise self.fail(_("{text!r} is not a kebab-case id").format(text=text))
        return text

    def date(self) -> str:
        import datetime  # a cache miss only (YAML reads an unquoted date as one)

        if isinstance(self.value, datetime.date):
            return self.value.isoformat()
        text = self.text()
        if not _DATE.match(text):
            raise self.fail(_("{text!r} is not a date (YYYY-MM-DD)").format(text=text))
        return text

    def provenance(self) -> Provenance:
        """The record's ``source`` (one or a list) and ``retrieved`` date, both required."""
        sources = self.get("source").texts()
        if not sources or any(not s.strip() for s in sources):
            raise self.get("source").fail(_("a fact needs a non-empty source"))
        return Provenance(sources=sources, retrieved=self.get("retrieved").date())


def unique(keyed: Iterable[tuple[Node, object]], what: str) -> None:
    """Fail at the first node whose key an earlier one already had (``duplicate {what} {key}``)."""
    seen: set[object] = set()
    for node, key in keyed:
        if key in seen:
            raise node.fail(_("duplicate {what} {key}").format(what=what, key=key))
        seen.add(key)


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_R = TypeVar("_R", bound=_HasId)


def unique_by_id(node: Node, parse: Callable[[Node], _R]) -> tuple[_R, ...]:
    """Parse every item of a list of records; an id used twice is an error."""
    out: list[_R] = []
    seen: set[str] = set()
    for item in node.items():
        record = parse(item)
        if record.id in seen:
            raise item.get("id").fail(_("id {id!r} appears twice").format(id=record.id))
        seen.add(record.id)
        out.append(record)
    return tuple(out)


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
