"""pylock.toml (PEP 751): ``pylock.<target>.toml`` from one uv resolution, and its pins
read back for check-upgrade.

The pylock document uv produced is read and validated with
:mod:`packaging.pylock`, re-stamped (``created-by = "tfenv"``, the target's
environment marker and Python, a ``[tool.tfenv]`` table), written as TOML by a
small deterministic writer, and read back and validated again. The requirements
lockfile lists the same pins with every hash pylock records
(:func:`tfenv.formats.requirements_txt.render_locked`).
"""

from __future__ import annotations

import datetime
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tfenv.errors import LockError
from tfenv.formats.locked import Locked, bad
from tfenv.i18n import _
from tfenv.textsafe import comment_block

if TYPE_CHECKING:
    from packaging.pylock import Pylock

    from tfenv.models.target import Target

__all__ = [
    "environment_marker",
    "hashes_of",
    "read_pins",
    "render_packages",
    "render_pylock",
    "restamp",
    "toml_dumps",
    "validate",
]

# a hash as a requirements file carries it (--hash=algo:digest): one token, nothing that
# could end the line or start an option; packaging.pylock checks only that it is a string
_HASH = re.compile(r"[A-Za-z0-9_-]+:[0-9A-Fa-f]+")


def validate(doc: Mapping[str, Any]) -> Pylock:
    """A validated :class:`~packaging.pylock.Pylock`, or LockError saying what is wrong."""
    from packaging.pylock import Pylock, PylockValidationError

    try:
        lock = Pylock.from_dict(doc)  # validates: Pylock.validate() is from_dict(to_dict())
    except PylockValidationError as exc:
        raise LockError(
            _("The pylock document is not valid PEP 751: {why}.").format(why=exc)
        ) from None
    for pkg in lock.packages:
        hashes = hashes_of(pkg)
        if not hashes:
            raise LockError(
                _("The lock has no hash for {name} {version}.").format(
                    name=pkg.name, version=pkg.version
                )
            )
        bad = next((h for h in hashes if not _HASH.fullmatch(h)), None)
        if bad is not None:
            raise LockError(
                _("The lock has a malformed hash for {name} {version}: {hash!r}.").format(
                    name=pkg.name, version=pkg.version, hash=bad
                )
            )
    return lock


def environment_marker(target: Target, python: str) -> str:
    """A PEP 508 marker true exactly on the target machine's platform and Python."""
    return target.platform.marker(python)


def restamp(lock: Pylock, target: Target, python: str, tool: Mapping[str, Any]) -> Pylock:
    """The lock as tfenv publishes it: its creator, environment, Python and tool table."""
    from packaging.markers import Marker
    from packaging.specifiers import SpecifierSet

    return replace(
        lock,
        created_by="tfenv",
        environments=[Marker(environment_marker(target, python))],
        requires_python=SpecifierSet(f"=={python}.*"),
        tool={"tfenv": dict(tool)},
    )


def render_packages(lock: Pylock) -> str:
    """The ``[[packages]]`` tables of a validated lock, read back and compared: the part of
    ``pylock.<target>.toml`` that targets resolved by one uv run share."""
    doc = {"packages": lock.to_dict()["packages"]}
    text = toml_dumps(doc)
    if _loads(text) != doc:
        raise LockError(_("The pylock writer produced TOML that does not read back the same."))
    return text


def render_pylock(lock: Pylock, header: Sequence[str], packages: Optional[str] = None) -> str:
    """The pylock TOML text with the header comments. Its own lines are read back and
    validated; ``packages`` is :func:`render_packages` of ``lock`` (rendered here if None)."""
    from packaging.pylock import Pylock, PylockValidationError

    top = dict(replace(lock, packages=[]).to_dict())
    top.pop("packages", None)
    tables = {k: v for k, v in top.items() if isinstance(v, Mapping)}
    scalars = {k: v for k, v in top.items() if k not in tables}
    head, tail = toml_dumps(scalars), toml_dumps(tables) if tables else ""
    if _loads(head + tail) != top:
        raise LockError(_("The pylock writer produced TOML that does not read back the same."))
    try:
        Pylock.from_dict({**top, "packages": []})
    except PylockValidationError as exc:
        raise LockError(
            _("The pylock document is not valid PEP 751: {why}.").format(why=exc)
        ) from None
    body = render_packages(lock) if packages is None else packages
    return comment_block(header) + head + body + tail


def hashes_of(pkg: Any) -> list[str]:
    """Every hash the lock records for a package's files, as ``algo:digest``, sorted."""
    found: set[str] = set()
    files = list(pkg.wheels or ())
    if pkg.sdist is not None:
        files.append(pkg.sdist)
    for f in files:
        for algo, value in (f.hashes or {}).items():
            found.add(f"{algo}:{value}")
    return sorted(found)


# --- a small TOML writer for pylock documents (deterministic, no dependency) ---


def toml_dumps(doc: Mapping[str, Any]) -> str:
    """TOML for a pylock-shaped mapping: scalars, inline tables, arrays of tables."""
    lines: list[str] = []
    tables: list[tuple[str, Mapping[str, Any]]] = []
    arrays: list[tuple[str, list[Mapping[str, Any]]]] = []
    for key, value in doc.items():
        if isinstance(value, Mapping):
            tables.append((key, value))
        elif _is_table_array(value):
            arrays.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, items in arrays:
        for item in items:
            lines += ["", f"[[{_key(key)}]]", *_body(item)]
    for key, table in tables:
        lines += _table(key, table)
    return "\n".join(lines) + "\n"


def _table(name: str, table: Mapping[str, Any]) -> list[str]:
    scalars = {k: v for k, v in table.items() if not isinstance(v, Mapping)}
    out = ["", f"[{name}]", *_body(scalars)] if scalars or not table else []
    for k, v in table.items():
        if isinstance(v, Mapping):
            out += _table(f"{name}.{_key(k)}", v)
    return out


def _body(item: Mapping[str, Any]) -> list[str]:
    out = []
    for k, v in item.items():
        if isinstance(v, list) and len(v) > 1 and any(isinstance(x, Mapping) for x in v):
            out.append(f"{_key(k)} = [")
            out += [f"    {_value(x)}," for x in v]
            out.append("]")
        else:
            out.append(f"{_key(k)} = {_value(v)}")
    return out


def _is_table_array(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(x, Mapping) for x in value)


def _key(key: str) -> str:
    ok = key and all(c.isalnum() or c in "-_" for c in key) and key.isascii()
    return key if ok else json.dumps(key)


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):  # JSON escapes match TOML's, but TOML also forbids a bare DEL
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, datetime.datetime):
        text = v.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _loads(text: str) -> dict[str, Any]:
    from tfenv.structured import parse_toml

    return parse_toml(text)


# --- reading (check-upgrade) ---


def read_pins(path: Path, text: str) -> Locked:
    """The pins of a pylock file, and its Python when ``requires-python`` names one."""
    from packaging.pylock import Pylock, PylockUnsupportedVersionError, PylockValidationError
    from packaging.utils import canonicalize_name

    data = _toml(path, text)
    try:
        lock = Pylock.from_dict(data)
    except (PylockValidationError, PylockUnsupportedVersionError) as exc:
        raise bad(path, _("not a valid pylock file ({why})").format(why=exc)) from None
    pins: dict[str, str] = {
        str(canonicalize_name(p.name)): str(p.version)
        for p in lock.packages
        if p.version is not None
    }
    python = None
    if lock.requires_python is not None:
        python = _python_of_specifier(str(lock.requires_python))
    return Locked(path, "pylock", pins, python)


def _toml(path: Path, text: str) -> dict[str, Any]:
    from tfenv.structured import StructureError, load_toml

    try:
        return load_toml(text)
    except StructureError as exc:
        raise bad(path, _("not valid TOML ({why})").format(why=exc)) from None


def _python_of_specifier(text: str) -> Optional[str]:
    found = re.fullmatch(r"\s*(==|~=)\s*(\d+)\.(\d+)(\.\*|\.\d+)?\s*", text)
    return f"{found.group(2)}.{found.group(3)}" if found else None
