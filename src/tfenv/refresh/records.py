"""Turn one project's index files (+ wheel metadata) into the JSON records tfenv ships.

Pure: takes :class:`IndexFile` lists and already-fetched METADATA; no network.

Per platform a release stores one record. Wheels of one platform but different
Python tags may carry different metadata; then the record holds the metadata of
the largest group of Python versions (ties: the group with the newest Python),
and ``variants`` maps each other Python version to just the fields that differ
(``requires_python``, ``stub_for``, ``and_cuda``, ``requires``, and ``glibc`` /
``macos`` when that Python's own floor is above the platform's lowest one).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from tfenv.models.platform import PLATFORM_KEYS
from tfenv.refresh.simple_api import IndexFile
from tfenv.refresh.wheel_facts import (
    Evaluated,
    WheelMeta,
    evaluate,
    python_key,
    sorted_pythons,
    tag_targets,
)

__all__ = ["ParsedFile", "cuda_record", "parse_files", "release_record"]


@dataclass(frozen=True)
class ParsedFile:
    file: IndexFile
    version: Version
    is_wheel: bool
    # (python, platform, glibc, macos) for each tag of a wheel that we map
    serves: tuple[tuple[str, str, Optional[str], Optional[str]], ...]


def parse_files(files: Iterable[IndexFile]) -> list[ParsedFile]:
    """Wheels and sdists with a parseable name; other files are ignored."""
    out: list[ParsedFile] = []
    for f in files:
        if f.filename.endswith(".whl"):
            try:
                _name, version, _build, tags = parse_wheel_filename(f.filename)
            except (InvalidWheelFilename, ValueError):  # ValueError: a number too long
                continue
            serves = set()
            for tag in tags:
                python, targets = tag_targets(tag)
                if python is None:
                    continue
                for t in targets:
                    serves.add((python, t.platform, t.glibc, t.macos))
            out.append(ParsedFile(f, version, True, tuple(sorted(serves, key=_serve_key))))
        else:
            try:
                _name, version = parse_sdist_filename(f.filename)
            except (InvalidSdistFilename, ValueError):
                continue
            out.append(ParsedFile(f, version, False, ()))
    return out


def _serve_key(s: tuple[str, str, Optional[str], Optional[str]]) -> tuple[Any, ...]:
    return (s[1], python_key(s[0]), _vkey(s[2]), _vkey(s[3]))


def _vkey(v: Optional[str]) -> tuple[int, ...]:
    return () if v is None else tuple(int(x) for x in v.split("."))


def _min_floor(values: Iterable[Optional[str]]) -> Optional[str]:
    known = [v for v in values if v is not None]
    return min(known, key=_vkey) if known else None


def release_common(version: Version, files: list[ParsedFile]) -> dict[str, Any]:
    yanked = bool(files) and all(p.file.yanked for p in files)
    reasons = sorted({p.file.yanked_reason for p in files if p.file.yanked_reason})
    uploads = sorted(p.file.upload_time[:10] for p in files if p.file.upload_time)
    return {
        "version": str(version),
        "prerelease": version.is_prerelease,
        "yanked": yanked,
        "yanked_reason": reasons[0] if yanked and reasons else None,
        "uploaded": uploads[0] if uploads else None,
        "sdist": any(not p.is_wheel for p in files),
    }


def release_record(
    version: Version, files: list[ParsedFile], metas: Mapping[str, WheelMeta]
) -> dict[str, Any]:
    """The JSON record of one release; ``metas`` maps wheel filename -> metadata."""
    record = release_common(version, files)
    rows: dict[str, list[tuple[str, Optional[str], Optional[str], ParsedFile]]] = defaultdict(list)
    for p in sorted(files, key=lambda p: p.file.filename):
        for python, platform, glibc, macos in p.serves:
            rows[platform].append((python, glibc, macos, p))
    wheels: dict[str, Any] = {}
    for platform in PLATFORM_KEYS:
        if rows.get(platform):
            wheels[platform] = _platform_record(platform, version, rows[platform], metas)
    record["wheels"] = wheels
    return record


_META_FIELDS = ("requires_python", "stub_for", "and_cuda", "requires")


def _platform_record(
    platform: str,
    version: Version,
    rows: list[tuple[str, Optional[str], Optional[str], ParsedFile]],
    metas: Mapping[str, WheelMeta],
) -> dict[str, Any]:
    per_python: dict[str, dict[str, Any]] = {}
    by_python: dict[str, list[tuple[Optional[str], Optional[str], ParsedFile]]] = defaultdict(list)
    for python, glibc, macos, p in rows:
        by_python[python].append((glibc, macos, p))
    for python, entries in by_python.items():
        first = entries[0][2]  # rows are sorted by filename: deterministic choice
        ev = evaluate(metas[first.file.filename], first.file.size, platform, python, version)
        per_python[python] = {
            **_meta_dict(ev),
            "glibc": _min_floor(e[0] for e in entries),
            "macos": _min_floor(e[1] for e in entries),
        }
    pythons = sorted_pythons(per_python)
    groups: dict[str, list[str]] = defaultdict(list)
    for py in pythons:
        groups[_group_key(per_python[py])].append(py)
    base_py = max(groups.values(), key=lambda g: (len(g), python_key(g[-1])))[-1]
    base = {k: per_python[base_py][k] for k in _META_FIELDS}
    base["glibc"] = _min_floor(r["glibc"] for r in per_python.values())
    base["macos"] = _min_floor(r["macos"] for r in per_python.values())
    variants: dict[str, Any] = {}
    for py in pythons:
        diff = {k: v for k, v in per_python[py].items() if v != base[k]}
        if diff:
            variants[py] = diff
    out = {
        **base,
        "python": pythons,
        "size": max((p.file.size or 0) for _py, _g, _m, p in rows),
    }
    if variants:
        out["variants"] = variants
    return out


def _meta_dict(ev: Evaluated) -> dict[str, Any]:
    return {
        "requires_python": ev.requires_python,
        "stub_for": ev.stub_for,
        "and_cuda": None if ev.and_cuda is None else list(ev.and_cuda),
        "requires": list(ev.requires),
    }


def _group_key(rec: Mapping[str, Any]) -> str:
    return repr([rec[k] for k in _META_FIELDS])


def cuda_record(version: Version, files: list[ParsedFile]) -> dict[str, Any]:
    """One version of an and-cuda dependency: the platforms it has wheels for and, per
    platform, the Pythons those wheels serve (+ sdist, yanked)."""
    pythons: dict[str, set[str]] = defaultdict(set)
    for p in files:
        for python, platform, _glibc, _macos in p.serves:
            pythons[platform].add(python)
    platforms = sorted(pythons, key=PLATFORM_KEYS.index)
    common = release_common(version, files)
    return {
        "version": common["version"],
        "platforms": platforms,
        "pythons": {p: sorted_pythons(pythons[p]) for p in platforms},
        "sdist": common["sdist"],
        "yanked": common["yanked"],
    }
