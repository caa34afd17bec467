"""Read pins out of requirements, pylock, conda-lock and environment files.

Each reader returns a :class:`Locked`: package name -> pinned version, per conda
subdir where the format has several platforms. Anything that cannot be read or
understood raises :class:`~tfenv.errors.ConfigError` naming the file.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from tfenv.errors import ConfigError, UsageError
from tfenv.textsafe import is_printable

__all__ = [
    "PATTERNS",
    "Locked",
    "kind_of",
    "parse_locked",
    "read_locked",
]

_FILE_MAX = 16 * 1024 * 1024  # the largest lockfile tfenv reads

# file-name pattern -> format; the first match wins
PATTERNS: tuple[tuple[str, str], ...] = (
    ("pylock.toml", "pylock"),
    ("pylock.*.toml", "pylock"),
    ("pylock*.toml", "pylock"),
    ("conda-lock*.yml", "conda-lock"),
    ("conda-lock*.yaml", "conda-lock"),
    ("*.conda-lock.yml", "conda-lock"),
    ("environment*.yml", "environment"),
    ("environment*.yaml", "environment"),
    ("requirements*.txt", "requirements"),
    ("*.txt", "requirements"),
)


@dataclass(frozen=True)
class Locked:
    """Pins from one file. ``by_subdir`` is set for multi-platform conda-lock files."""

    path: Path
    format: str
    pins: Mapping[str, str]
    python: Optional[str] = None  # "3.11" when the file says
    by_subdir: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    python_by_subdir: Mapping[str, str] = field(default_factory=dict)

    def pins_for(self, subdir: str) -> Mapping[str, str]:
        if self.by_subdir:
            return self.by_subdir.get(subdir, {})
        return self.pins

    def python_for(self, subdir: str) -> Optional[str]:
        return self.python_by_subdir.get(subdir, self.python)


def kind_of(path: Path) -> Optional[str]:
    name = path.name.lower()
    return next((kind for pattern, kind in PATTERNS if fnmatch.fnmatch(name, pattern)), None)


def read_locked(path: Path) -> Locked:
    return parse_locked(path, None)


def parse_locked(path: Path, text: Optional[str]) -> Locked:
    """Pins from a lockfile's ``text`` (read from ``path`` when None); the name picks the format."""
    kind = kind_of(path)
    if kind is None:
        raise UsageError(
            f"--from-file {path}: not a file check-upgrade reads.",
            hint="Give a requirements*.txt, pylock*.toml, conda-lock*.yml or environment*.yml "
            "file (or a folder of them).",
        )
    return _READERS[kind](path, _read_text(path) if text is None else text)


def _read_text(path: Path) -> str:
    from tfenv.fsutil import InputFileError, read_text

    try:
        return read_text(path, limit=_FILE_MAX)
    except InputFileError as exc:
        raise ConfigError(f"The lockfile {path} cannot be read ({exc.strerror}).") from None


def _usable(value: object) -> bool:
    """A name or version tfenv can compare and print: short, printable, one line."""
    return isinstance(value, str) and 0 < len(value) <= 200 and is_printable(value)


def _bad(path: Path, problem: str) -> ConfigError:
    return ConfigError(f"The lockfile {path} cannot be used: {problem}.")


# -- requirements.txt ------------------------------------------------------------------


def _requirements(path: Path, text: str) -> Locked:
    pins: dict[str, str] = {}
    for number, line in _logical_lines(text):
        if not line or line.startswith("-"):
            continue  # options: -r, -c, -e, --hash, --index-url ...
        line = re.split(r"\s+--", line, maxsplit=1)[0].strip()  # per-line --hash options
        try:
            req = Requirement(line)
        except InvalidRequirement as exc:
            raise _bad(path, f"line {number} ({line!r}) is not a requirement: {exc}") from None
        version = _exact(req)
        if version is None:
            continue
        name = canonicalize_name(req.name)
        if name in pins and pins[name] != version:
            raise _bad(
                path, f"line {number} pins {name} {version}, but an earlier line pins {pins[name]}"
            )
        pins[name] = version
    return Locked(path, "requirements", pins)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, (pending + line).strip()))
        pending = ""
    if pending:
        out.append((start, pending.strip()))
    return out


def _exact(req: Requirement) -> Optional[str]:
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return specs[0].version
    return None


# -- pylock.toml -----------------------------------------------------------------------


def _pylock(path: Path, text: str) -> Locked:
    from packaging.pylock import Pylock, PylockUnsupportedVersionError, PylockValidationError

    data = _toml(path, text)
    try:
        lock = Pylock.from_dict(data)
    except (PylockValidationError, PylockUnsupportedVersionError) as exc:
        raise _bad(path, f"not a valid pylock file ({exc})") from None
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
        raise _bad(path, f"not valid TOML ({exc})") from None


def _python_of_specifier(text: str) -> Optional[str]:
    found = re.fullmatch(r"\s*(==|~=)\s*(\d+)\.(\d+)(\.\*|\.\d+)?\s*", text)
    return f"{found.group(2)}.{found.group(3)}" if found else None


# -- conda-lock.yml --------------------------------------------------------------------


def _conda_lock(path: Path, text: str) -> Locked:
    data = _yaml(path, text)
    packages = data.get("package") if isinstance(data, dict) else None
    if not isinstance(packages, list):
        raise _bad(path, "it has no 'package' list (is it a conda-lock file?)")
    by_subdir: dict[str, dict[str, str]] = {}
    for i, pkg in enumerate(packages):
        if not isinstance(pkg, dict) or not all(
            _usable(pkg.get(k)) for k in ("name", "version", "platform")
        ):
            raise _bad(path, f"package[{i}] needs string name, version and platform")
        name = pkg["name"] if pkg.get("manager") == "conda" else canonicalize_name(pkg["name"])
        by_subdir.setdefault(pkg["platform"], {})[name] = pkg["version"]
    pythons = {s: _xy(p["python"]) for s, p in by_subdir.items() if "python" in p}
    merged: dict[str, str] = {}
    for pins in by_subdir.values():
        merged.update(pins)
    return Locked(path, "conda-lock", merged, None, by_subdir, pythons)


def _yaml(path: Path, text: str) -> Any:
    from tfenv.structured import StructureError, load_yaml

    try:
        return load_yaml(text)
    except StructureError as exc:
        raise _bad(path, f"not valid YAML ({exc})") from None


def _xy(version: str) -> str:
    return ".".join(version.split(".")[:2])


# -- environment.yml -------------------------------------------------------------------

_CONDA_SPEC = re.compile(r"^([A-Za-z0-9_.\-]+)\s*(?:==?|\s)\s*([0-9][^=\s]*)")


def _environment(path: Path, text: str) -> Locked:
    data = _yaml(path, text)
    deps = data.get("dependencies") if isinstance(data, dict) else None
    if not isinstance(deps, list):
        raise _bad(path, "it has no 'dependencies' list (is it a conda environment file?)")
    pins: dict[str, str] = {}
    for dep in deps:
        if isinstance(dep, dict):
            pip = dep.get("pip", [])
            if isinstance(pip, list):
                sub = _requirements(path, "\n".join(str(x) for x in pip))
                pins.update(sub.pins)
            continue
        found = _CONDA_SPEC.match(str(dep).split("::")[-1].strip())
        if found and not (_usable(found.group(1)) and _usable(found.group(2))):
            raise _bad(path, f"the dependency {str(dep)[:60]!r} is not printable text")
        if found:
            pins.setdefault(found.group(1).lower(), found.group(2).removesuffix(".*"))
    python = pins.get("python")
    return Locked(path, "environment", pins, _xy(python) if python else None)


_READERS: dict[str, Callable[[Path, str], Locked]] = {
    "requirements": _requirements,
    "pylock": _pylock,
    "conda-lock": _conda_lock,
    "environment": _environment,
}
