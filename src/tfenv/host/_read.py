"""Typed reading of a raw JSON host profile; every failure names the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

from packaging.version import InvalidVersion, Version

from tfenv.errors import ConfigError

__all__ = ["Reader", "cap", "is_int", "join", "quoted"]


class Reader:
    """Typed access to raw JSON values; every failure names the field."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, path: str, problem: str) -> ConfigError:
        where = f"field '{path}' " if path else ""
        return ConfigError(
            f"{cap(self.origin)} is not a valid host profile: {where}{problem}.",
            hint="Regenerate it with 'tfenv detect --json --output FILE', or fix that field.",
        )

    def mapping(self, raw: Any, path: str) -> Mapping[str, Any]:
        if not isinstance(raw, Mapping):
            raise self.fail(path, f"must be an object, found {_kind(raw)}")
        return raw

    def only(self, d: Mapping[str, Any], path: str, allowed: tuple[str, ...]) -> None:
        extra = sorted(set(d) - set(allowed))
        if extra:
            raise self.fail(path, f"has unknown key(s) {', '.join(map(repr, extra))}")

    def items(self, d: Mapping[str, Any], key: str) -> list[Any]:
        raw = d.get(key, [])
        if not isinstance(raw, list):
            raise self.fail(key, f"must be a list, found {_kind(raw)}")
        return raw

    def text(self, raw: Any, path: str) -> str:
        if not isinstance(raw, str) or not raw.strip():
            raise self.fail(path, f"must be a non-empty string, found {_kind(raw)}")
        return raw

    def opt_text(self, d: Mapping[str, Any], key: str, parent: str = "") -> Optional[str]:
        raw = d.get(key)
        return None if raw is None else self.text(raw, join(parent, key))

    def choice(self, d: Mapping[str, Any], key: str, allowed: tuple[str, ...]) -> str:
        raw = d.get(key)
        if raw not in allowed:
            raise self.fail(key, f"must be one of {quoted(allowed)}, found {raw!r}")
        return str(raw)

    def version(self, d: Mapping[str, Any], key: str, parent: str = "") -> Version:
        path = join(parent, key)
        raw = d.get(key)
        if not isinstance(raw, str):
            raise self.fail(path, f'must be a version string like "3.11", found {_kind(raw)}')
        try:
            return Version(raw)
        except InvalidVersion:
            raise self.fail(path, f"{raw!r} is not a version") from None

    def opt_version(self, d: Mapping[str, Any], key: str, parent: str = "") -> Optional[Version]:
        return None if d.get(key) is None else self.version(d, key, parent)

    def driver(self, d: Mapping[str, Any], key: str) -> Optional[str]:
        raw = d.get(key)
        if raw is None:
            return None
        self.version(d, key)
        return str(raw)

    def str_map(self, d: Mapping[str, Any], key: str) -> tuple[tuple[str, str], ...]:
        raw = d.get(key, {})
        if not isinstance(raw, Mapping):
            raise self.fail(key, f"must be an object, found {_kind(raw)}")
        out = []
        for k, v in raw.items():
            if not isinstance(v, str):
                raise self.fail(f"{key}.{k}", f"must be a string, found {_kind(v)}")
            out.append((str(k), v))
        return tuple(sorted(out))


def join(parent: str, key: str) -> str:
    return f"{parent}.{key}" if parent else key


def is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def quoted(values: tuple[str, ...]) -> str:
    return ", ".join(f'"{v}"' for v in values)


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (dict, Mapping)):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return repr(value)
    return repr(value)
