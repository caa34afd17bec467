"""Typed reading of raw YAML/JSON data with errors that name where they failed.

Every knowledge-base module parses its file through a :class:`Node`, which knows
the file name and the dotted path of the value it wraps, so that a malformed
file is reported as ``gpus.yaml: at gpus[12].compute_capability: ...``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from packaging.version import InvalidVersion, Version

from tfenv.errors import KBValidationError

__all__ = ["Node", "Provenance"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class Provenance:
    """Where a fact comes from: one or more sources and the date they were read."""

    sources: tuple[str, ...]
    retrieved: str

    def cite(self) -> str:
        return f"{'; '.join(self.sources)} (read {self.retrieved})"


class Node:
    """A raw value plus the file and path it was found at."""

    __slots__ = ("file", "path", "value")

    def __init__(self, value: Any, file: str, path: str = "") -> None:
        self.value = value
        self.file = file
        self.path = path

    # -- navigation -------------------------------------------------------
    def fail(self, problem: str) -> KBValidationError:
        return KBValidationError(self.file, self.path, problem)

    def _sub(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def mapping(self) -> Mapping[str, Any]:
        if not isinstance(self.value, Mapping):
            raise self.fail(f"expected a mapping, found {_kind(self.value)}")
        return self.value

    def has(self, key: str) -> bool:
        return key in self.mapping()

    def get(self, key: str) -> Node:
        """The value at ``key``; the key must be present (null is allowed)."""
        raw = self.mapping()
        if key not in raw:
            raise Node(None, self.file, self._sub(key)).fail("this required key is missing")
        return Node(raw[key], self.file, self._sub(key))

    def opt(self, key: str) -> Node:
        """The value at ``key``, or a null node when the key is absent."""
        return Node(self.mapping().get(key), self.file, self._sub(key))

    def items(self) -> Iterator[Node]:
        if not isinstance(self.value, list):
            raise self.fail(f"expected a list, found {_kind(self.value)}")
        for i, v in enumerate(self.value):
            yield Node(v, self.file, self._sub(i))

    def entries(self) -> Iterator[tuple[str, Node]]:
        for k, v in self.mapping().items():
            yield str(k), Node(v, self.file, self._sub(str(k)))

    def only(self, *allowed: str) -> Node:
        """Reject keys not in ``allowed`` (catches typos in hand-edited files)."""
        extra = sorted(set(self.mapping()) - set(allowed))
        if extra:
            raise self.fail(f"unknown key(s) {', '.join(map(repr, extra))}")
        return self

    # -- scalars ----------------------------------------------------------
    @property
    def is_null(self) -> bool:
        return self.value is None

    def text(self) -> str:
        if isinstance(self.value, bool) or not isinstance(self.value, (str, int, float)):
            raise self.fail(f"expected a string, found {_kind(self.value)}")
        return str(self.value)

    def opt_text(self) -> Optional[str]:
        return None if self.value is None else self.text()

    def boolean(self) -> bool:
        if not isinstance(self.value, bool):
            raise self.fail(f"expected true or false, found {_kind(self.value)}")
        return self.value

    def opt_boolean(self) -> Optional[bool]:
        return None if self.value is None else self.boolean()

    def integer(self) -> int:
        if isinstance(self.value, bool) or not isinstance(self.value, int):
            raise self.fail(f"expected a whole number, found {_kind(self.value)}")
        return self.value

    def version(self) -> Version:
        text = self.text()
        try:
            return Version(text)
        except InvalidVersion:
            raise self.fail(f"{text!r} is not a version") from None

    def opt_version(self) -> Optional[Version]:
        return None if self.value is None else self.version()

    def texts(self) -> tuple[str, ...]:
        if isinstance(self.value, str):
            return (self.value,)
        return tuple(n.text() for n in self.items())

    def versions(self) -> tuple[Version, ...]:
        return tuple(n.version() for n in self.items())

    def date(self) -> str:
        if isinstance(self.value, datetime.date):
            return self.value.isoformat()
        text = self.text()
        if not _DATE.match(text):
            raise self.fail(f"{text!r} is not a date (YYYY-MM-DD)")
        return text

    def provenance(self) -> Provenance:
        """The record's ``source`` (one or a list) and ``retrieved`` date, both required."""
        sources = self.get("source").texts()
        if not sources or any(not s.strip() for s in sources):
            raise self.get("source").fail("a fact needs a non-empty source")
        return Provenance(sources=sources, retrieved=self.get("retrieved").date())


def _kind(value: object) -> str:
    if value is None:
        return "null"
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )
