"""Parsing JSON, TOML and YAML that came from outside.

The parsers of the standard library and PyYAML fail in more ways than their own error
classes: an integer past Python's 4,300-digit conversion limit is a ``ValueError``,
nesting a few thousand levels deep is a ``RecursionError``. Each function here turns
every failure into one :class:`StructureError` (a ``ValueError``) whose message is a
single line without the parser's class name, for the caller to wrap in its own
:class:`~tfenv.errors.TfenvError`.
"""

from __future__ import annotations

import json
import sys
from typing import Any

__all__ = ["MAX_DEPTH", "StructureError", "load_json", "load_toml", "load_yaml"]

MAX_DEPTH = 64  # deeper than any file tfenv reads legitimately


class StructureError(ValueError):
    """The text is not a usable document; ``str()`` is one line."""


def load_json(text: str) -> Any:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StructureError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise StructureError(_too_deep()) from None
    except ValueError as exc:  # an integer too long to convert
        raise StructureError(_one_line(exc)) from None
    return _bounded(data)


def load_toml(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise StructureError(_too_deep()) from None
    except ValueError as exc:  # TOMLDecodeError is one; so is an integer too long
        raise StructureError(_one_line(exc)) from None
    result: dict[str, Any] = _bounded(data)
    return result


def load_yaml(text: str) -> Any:
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        where = f" at line {exc.problem_mark.line + 1}" if exc.problem_mark else ""
        raise StructureError(f"{exc.problem or exc.context or 'invalid YAML'}{where}") from None
    except RecursionError:
        raise StructureError(_too_deep()) from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise StructureError(_one_line(exc)) from None
    return _bounded(data)


def _bounded(data: Any) -> Any:
    """``data`` unchanged when it nests at most :data:`MAX_DEPTH` levels deep."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    seen: set[int] = set()  # YAML aliases share objects: visit each once
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise StructureError(_too_deep())
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return data


def _too_deep() -> str:
    return f"it nests deeper than {MAX_DEPTH} levels"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or "it cannot be parsed"
