"""The current state: which TensorFlow a team runs now, and the pins around it.

Sources, one per run: ``--from 2.12``, ``--from-file`` (lockfiles, one per target
where their names say which), ``--from-env`` (installed metadata, read with
:mod:`importlib.metadata`; TensorFlow is never imported) or the project's
``[tool.tfenv]`` configuration.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from packaging.utils import canonicalize_name
from packaging.version import Version

from tfenv.errors import ConfigError, UsageError
from tfenv.formats.locked import Locked, kind_of, read_locked
from tfenv.i18n import _
from tfenv.kb.index import TF_DISTRIBUTIONS
from tfenv.specs import to_version

__all__ = [
    "TF_PACKAGES",
    "CurrentSource",
    "CurrentState",
    "from_env",
    "from_files",
    "from_spec",
    "from_targets",
]

#: distributions that carry TensorFlow itself, most telling first (tensorflow-base: conda's)
TF_PACKAGES = (*TF_DISTRIBUTIONS, "tensorflow-base")


@dataclass(frozen=True)
class CurrentState:
    """What one target runs now. ``spec`` is what the current plan is resolved with."""

    origin: str
    spec: str  # "==2.12.1", or a series/specifier such as "2.12"
    version: Optional[Version] = None  # the exact release, when the source pins one
    package: str = "tensorflow"
    python: Optional[Version] = None
    pins: Optional[Mapping[str, str]] = None  # None: no lock to compare with


@dataclass(frozen=True)
class CurrentSource:
    """Where the current state came from; :meth:`for_target` picks a target's lockfile."""

    states: tuple[tuple[Optional[Path], CurrentState], ...]
    locked: tuple[Locked, ...] = field(default=())
    #: a target's own current state (a configured target's own ``tensorflow``), by name
    by_target: Mapping[str, CurrentState] = field(default_factory=dict)

    @property
    def describe(self) -> str:
        return "; ".join(dict.fromkeys(s.origin for _, s in self.states))

    def for_target(self, name: Optional[str], subdir: str) -> CurrentState:
        if self.locked:
            return _state_of(_pick(self.locked, name), subdir)
        if name is not None and name in self.by_target:
            return self.by_target[name]
        return self.states[0][1]


def from_spec(text: str, origin: str, python: Optional[str] = None) -> CurrentSource:
    state = CurrentState(origin=origin, spec=text, python=_python_xy(python, origin))
    return CurrentSource(((None, state),))


def from_targets(shared: Optional[CurrentState], own: Mapping[str, CurrentState]) -> CurrentSource:
    """A team whose targets run versions of their own: each target's state by name, the
    others (if any) on ``shared``."""
    states = tuple((None, s) for s in ((shared,) if shared is not None else ()))
    states += tuple((None, s) for s in own.values())
    return CurrentSource(states, by_target=dict(own))


def from_files(paths: Sequence[Path]) -> CurrentSource:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and kind_of(p))
            if not found:
                raise UsageError(
                    _("--from-file {path}: the folder holds no lockfile.").format(path=path)
                )
            files += found
        elif not path.exists():
            raise ConfigError(_("The lockfile {path} does not exist.").format(path=path))
        else:
            files.append(path)
    locked = tuple(read_locked(p) for p in files)
    states = tuple((lk.path, _state_of(lk, "")) for lk in locked)
    return CurrentSource(states, locked)


def from_env(prefix: Optional[Path]) -> CurrentSource:
    """Installed distributions of ``prefix`` (a venv or conda prefix) or of this interpreter.

    A prefix's metadata files are read with the bounded reader of ``tfenv doctor``
    (regular files only, size-limited); nothing from the prefix is imported or run.
    """
    pins: dict[str, str] = {}
    if prefix is None:
        from importlib import metadata

        python: Optional[str] = f"{sys.version_info[0]}.{sys.version_info[1]}"
        where = f"the installed environment ({sys.prefix})"
        for dist in metadata.distributions():
            name = dist.metadata["Name"] if dist.metadata else None
            if name:
                pins.setdefault(canonicalize_name(name), dist.version)
    else:
        from tfenv.doctor.env import installed_distributions

        site = _site_packages(prefix)
        python = _python_of_site(site)
        where = f"the installed environment {prefix}"
        for found in installed_distributions(site):
            pins.setdefault(canonicalize_name(found.name), found.version)
    state = _state(pins, where, python)
    return CurrentSource(((prefix, state),))


def _python_xy(python: Optional[str], origin: str) -> Optional[Version]:
    if not python:
        return None
    try:
        return to_version(".".join(python.split(".")[:2]))
    except ValueError:
        raise ConfigError(
            _("{origin}: python {python!r} is not a version.").format(origin=origin, python=python)
        ) from None


def _site_packages(prefix: Path) -> list[Path]:
    if not prefix.is_dir():
        raise UsageError(
            _("--from-env {prefix}: not a folder (give a venv or conda prefix).").format(
                prefix=prefix
            )
        )
    found = sorted(prefix.glob("lib/python*/site-packages")) + sorted(
        prefix.glob("Lib/site-packages")
    )
    if not found and any(prefix.glob("*.dist-info")):
        found = [prefix]
    if not found:
        raise UsageError(
            _("--from-env {prefix}: no site-packages folder below it.").format(prefix=prefix),
            hint=_("Give the prefix of a virtual environment or conda environment."),
        )
    return found


def _python_of_site(site: list[Path]) -> Optional[str]:
    for path in site:
        found = re.search(r"python(\d+)\.(\d+)", str(path))
        if found:
            return f"{found.group(1)}.{found.group(2)}"
    return None


def _pick(locked: tuple[Locked, ...], name: Optional[str]) -> Locked:
    """The lockfile whose name mentions the target, else the one that mentions no other."""
    if name is not None:
        pattern = re.compile(rf"(^|[.\-_]){re.escape(name)}([.\-_]|$)", re.IGNORECASE)
        for lk in locked:
            if pattern.search(lk.path.name):
                return lk
    return locked[0]


def _state_of(lk: Locked, subdir: str) -> CurrentState:
    pins = lk.pins_for(subdir) if subdir else lk.pins
    if subdir and not pins and lk.by_subdir:
        raise ConfigError(
            _(
                "The lockfile {path} has no packages for {subdir} (it has {sorted_by_subdir})."
            ).format(path=lk.path, subdir=subdir, sorted_by_subdir=", ".join(sorted(lk.by_subdir)))
        )
    python = lk.python_for(subdir) if subdir else lk.python
    return _state(pins, str(lk.path), python or pins.get("python"))


def _state(pins: Mapping[str, str], origin: str, python: Optional[str]) -> CurrentState:
    for package in TF_PACKAGES:
        text = pins.get(package)
        if text is None:
            continue
        try:
            version = to_version(text)
        except ValueError:
            raise ConfigError(
                _("{origin}: {package} {text!r} is not a version tfenv understands.").format(
                    origin=origin, package=package, text=text
                )
            ) from None
        exact = len(version.release) >= 3 or version.pre is not None or version.post is not None
        spec = f"=={version}" if exact else f"{version.major}.{version.minor}"
        xy = _python_xy(python, origin)
        return CurrentState(
            origin=origin,
            spec=spec,
            version=version if exact else None,
            package="tensorflow" if package == "tensorflow-base" else package,
            python=xy,
            pins=dict(pins),
        )
    raise ConfigError(
        _("{origin} pins no TensorFlow (none of {tf_packages}).").format(
            origin=origin, tf_packages=", ".join(TF_PACKAGES[:4])
        ),
        hint=_("Give the current version with --from, e.g. --from 2.12."),
    )
