"""Pins out of requirements, pylock, conda-lock and environment files (check-upgrade).

:func:`parse_locked` picks the format by the file's name (:data:`PATTERNS`) and hands
the text to that format's ``read_pins`` (in :mod:`.requirements_txt`, :mod:`.pylock`,
:mod:`.conda_lock`, :mod:`.environment_yml`). Each returns a :class:`Locked`: package
name -> pinned version, per conda subdir where the format has several platforms.
Anything that cannot be read or understood raises :class:`~tfenv.errors.ConfigError`
naming the file.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from tfenv.errors import ConfigError, UsageError
from tfenv.i18n import _
from tfenv.textsafe import is_printable

__all__ = [
    "PATTERNS",
    "Locked",
    "bad",
    "kind_of",
    "parse_locked",
    "read_locked",
    "usable",
    "xy",
    "yaml_of",
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
            _("--from-file {path}: not a file check-upgrade reads.").format(path=path),
            hint=_(
                "Give a requirements*.txt, pylock*.toml, conda-lock*.yml or environment*.yml "
                "file (or a folder of them)."
            ),
        )
    return _readers()[kind](path, _read_text(path, kind) if text is None else text)


def _readers() -> dict[str, Callable[[Path, str], Locked]]:
    from tfenv.formats import conda_lock, environment_yml, pylock, requirements_txt

    return {
        "requirements": requirements_txt.read_pins,
        "pylock": pylock.read_pins,
        "conda-lock": conda_lock.read_pins,
        "environment": environment_yml.read_pins,
    }


def _read_text(path: Path, kind: str) -> str:
    from tfenv.fsutil import InputFileError, read_text
    from tfenv.structured import MAX_TOML

    try:
        if kind == "pylock":  # TOML: the parser's bound (tfenv.structured)
            return read_text(path, limit=MAX_TOML, what="of a TOML file")
        return read_text(path, limit=_FILE_MAX)
    except InputFileError as exc:
        raise ConfigError(
            _("The lockfile {path} cannot be read ({strerror}).").format(
                path=path, strerror=exc.strerror
            )
        ) from None


def usable(value: object) -> bool:
    """A name or version tfenv can compare and print: short, printable, one line."""
    return isinstance(value, str) and 0 < len(value) <= 200 and is_printable(value)


def bad(path: Path, problem: str) -> ConfigError:
    return ConfigError(
        _("The lockfile {path} cannot be used: {problem}.").format(path=path, problem=problem)
    )


def yaml_of(path: Path, text: str) -> Any:
    """The YAML document of a lockfile, or the error naming it."""
    from tfenv.structured import StructureError, load_yaml

    try:
        return load_yaml(text)
    except StructureError as exc:
        raise bad(path, _("not valid YAML ({why})").format(why=exc)) from None


def xy(version: str) -> str:
    """``3.11.8`` -> ``3.11``."""
    return ".".join(version.split(".")[:2])
