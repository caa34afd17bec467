"""Readable differences between a shipped index file and a freshly generated one, in the
current language (``refresh --check --json`` speaks English: its lines are the same bytes
whatever the language)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tfenv.i18n import _

__all__ = ["IGNORED", "drift"]

IGNORED = frozenset({"retrieved"})


def drift(name: str, old: Any, new: Mapping[str, Any]) -> list[str]:
    """One line per difference: package, version, platform, field, old -> new."""
    if old is None:
        return [_("{name}: the shipped file is missing").format(name=name)]
    if not isinstance(old, Mapping):
        return [_("{name}: the shipped file is not a JSON object").format(name=name)]
    lines: list[str] = []
    for key in sorted(set(old) | set(new)):
        if key in IGNORED or key in ("releases", "packages"):
            continue
        if old.get(key) != new.get(key):
            lines.append(f"{name}: {key}: {_show(old.get(key))} -> {_show(new.get(key))}")
    if "releases" in new or "releases" in old:
        lines += _releases(name, old.get("releases"), new.get("releases"))
    if "packages" in new or "packages" in old:
        lines += _packages(name, old.get("packages") or {}, new.get("packages") or {})
    return lines


def _packages(name: str, old_p: Mapping[str, Any], new_p: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for pkg in sorted(set(old_p) | set(new_p)):
        if pkg not in new_p:
            lines.append(
                _("{name}: {package}: no longer named by any and-cuda extra").format(
                    name=name, package=pkg
                )
            )
        elif pkg not in old_p:
            lines.append(
                _("{name}: {package}: newly named by an and-cuda extra").format(
                    name=name, package=pkg
                )
            )
        else:
            lines += drift(f"{name}: {pkg}", old_p[pkg], new_p[pkg])
    return lines


def _releases(name: str, old: Any, new: Any) -> list[str]:
    old_map = {r.get("version"): r for r in old or [] if isinstance(r, Mapping)}
    new_map = {r.get("version"): r for r in new or [] if isinstance(r, Mapping)}
    lines: list[str] = []
    for version in [v for v in new_map if v not in old_map]:
        lines.append(_("{name} {version}: new release").format(name=name, version=version))
    for version in [v for v in old_map if v not in new_map]:
        lines.append(_("{name} {version}: gone from the index").format(name=name, version=version))
    for version, rec in new_map.items():
        if version in old_map:
            lines += _fields(f"{name} {version}", old_map[version], rec)
    return lines


def _fields(where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    lines: list[str] = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if key in ("wheels", "variants") and isinstance(a or {}, Mapping):
            lines += _nested(where, key, old, a or {}, b or {})
        elif isinstance(a, list) and isinstance(b, list):
            lines.append(f"{where}: {key}: {_list_change(a, b)}")
        else:
            lines.append(f"{where}: {key}: {_show(a)} -> {_show(b)}")
    return lines


def _nested(
    where: str, key: str, record: Mapping[str, Any], a: Mapping[str, Any], b: Any
) -> list[str]:
    if not isinstance(b, Mapping):
        return [f"{where}: {key}: {_show(a)} -> {_show(b)}"]
    lines: list[str] = []
    for sub in sorted(set(a) | set(b)):
        if sub not in b:
            lines.append(_("{where} {sub}: removed").format(where=where, sub=sub))
        elif sub not in a and key == "variants":
            # a Python newly differing from the platform record: diff against that
            lines += _fields(f"{where} {sub}", {k: record.get(k) for k in b[sub]}, b[sub])
        elif sub not in a:
            lines.append(_("{where} {sub}: added").format(where=where, sub=sub))
        else:
            lines += _fields(f"{where} {sub}", a[sub], b[sub])
    return lines


def _list_change(a: list[Any], b: list[Any]) -> str:
    gone = [f"-{_show(x)}" for x in a if x not in b]
    new = [f"+{_show(x)}" for x in b if x not in a]
    return " ".join([*gone, *new]) or _("order changed")


def _show(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 200 else text[:197] + "..."
