"""conda-lock's file format: written with conda-lock's own models, read back for check-upgrade.

Everything that knows conda-lock's internals is in this module:
:func:`render_lockfile` builds a :class:`conda_lock.lockfile.v2prelim.models.Lockfile`
(``LockedDependency``, ``LockMeta``, ``HashModel``), writes it with conda-lock's
``write_conda_lock_file`` (so the bytes are exactly what conda-lock writes: its help text,
its key order, its sorting) and reads it back with ``parse_conda_lock_file`` to check it.
Dependencies are recorded as conda-lock records them: one entry per name, the version
part of the merged match specs (conda-lock's vendored conda ``MatchSpec``).

Tested with conda-lock 4.0.3 (:data:`CONDA_LOCK_TESTED_WITH`); conda-lock needs Python
3.10+ and is imported inside the functions.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import yaml

from tfenv.errors import LOCK_EXTRA_HINT, CondaLockError, CondaLockUnavailableError
from tfenv.formats.locked import Locked, bad, usable, xy, yaml_of
from tfenv.i18n import _

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = [
    "CONDA_LOCK_TESTED_WITH",
    "LockedCondaPackage",
    "LockedPipPackage",
    "read_lockfile",
    "read_pins",
    "render_lockfile",
]

TEMP_PREFIX = "tfenv-conda-lock-"  # where conda-lock writes the file tfenv reads back
CONDA_LOCK_TESTED_WITH = "4.0.3"


@dataclass(frozen=True)
class LockedCondaPackage:
    """One solved conda record (hashes as lowercase hex)."""

    name: str
    version: str
    build: str
    build_number: int
    subdir: str
    url: str
    channel: str
    file_name: str
    md5: Optional[str]
    sha256: Optional[str]
    depends: tuple[str, ...] = ()
    constrains: tuple[str, ...] = ()


@dataclass(frozen=True)
class LockedPipPackage:
    """A pip package to add to the lock file (made by the pip half for ``conda+pip``)."""

    name: str
    version: str
    url: str
    sha256: Optional[str] = None
    dependencies: tuple[tuple[str, str], ...] = ()  # (name, specifier)


def render_lockfile(
    *,
    file_name: str,
    subdir: str,
    channels: Sequence[str],
    conda: Sequence[LockedCondaPackage],
    pip: Sequence[LockedPipPackage],
    env_file: str,
    content_hash: str,
    custom_metadata: Mapping[str, str],
) -> str:
    """The text of ``conda-lock.<label>.yml`` for one platform, checked by reading it back.

    ``env_file`` is recorded as the lock's source (relative to the lock file), so
    ``conda-lock lock -f <env_file>`` can re-solve it. No time or git metadata is
    written, so the same solve gives the same bytes.
    """
    lockfile_module = _conda_lock("conda_lock.lockfile")
    models = _conda_lock("conda_lock.lockfile.v2prelim.models")
    HashModel, LockedDependency = models.HashModel, models.LockedDependency
    Lockfile, LockMeta = models.Lockfile, models.LockMeta

    packages: list[Any] = []
    for pkg in conda:
        if not pkg.md5:
            raise CondaLockError(
                _("The channel gives no md5 for {file_name}; conda-lock files need one.").format(
                    file_name=pkg.file_name
                )
            )
        packages.append(
            LockedDependency(
                name=pkg.name,
                version=pkg.version,
                manager="conda",
                platform=subdir,
                dependencies=_dependencies(pkg.depends),
                url=pkg.url,
                hash=HashModel(md5=pkg.md5, sha256=pkg.sha256),
                categories={"main"},
                build=pkg.build,
            )
        )
    for wheel in pip:
        packages.append(
            LockedDependency(
                name=wheel.name,
                version=wheel.version,
                manager="pip",
                platform=subdir,
                dependencies=dict(wheel.dependencies),
                url=wheel.url,
                hash=HashModel(sha256=wheel.sha256),
                categories={"main"},
            )
        )
    lockfile = Lockfile(
        package=packages,
        metadata=LockMeta(
            content_hash={subdir: content_hash},
            channels=list(channels),
            platforms=[subdir],
            sources=[env_file],
            custom_metadata=dict(sorted(custom_metadata.items())),
        ),
    )
    from tfenv.fsutil import temp_folder

    with temp_folder(TEMP_PREFIX) as tmp:
        path = Path(tmp) / file_name
        lockfile_module.write_conda_lock_file(
            lockfile, path, metadata_choices=None, include_help_text=True
        )
        text = path.read_text(encoding="utf-8")
        _check(read_lockfile(path), packages, file_name)
    return text


def read_lockfile(path: Path) -> Any:
    """Parse a conda-lock file with conda-lock's own parser (a v2 ``Lockfile``)."""
    parse = _conda_lock("conda_lock.lockfile").parse_conda_lock_file
    try:
        return parse(path)
    except (ValueError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise CondaLockError(
            _("conda-lock cannot read {name}: {exc}").format(name=path.name, exc=exc)
        ) from exc


def _check(parsed: Any, written: Sequence[Any], file_name: str) -> None:
    def keys(items: Sequence[Any]) -> set[tuple[str, str, str, str, str]]:
        return {(p.manager, p.name, p.version, p.url, p.hash.md5 or p.hash.sha256) for p in items}

    if keys(parsed.package) != keys(written):
        raise CondaLockError(
            _(
                "conda-lock reads back different packages from {file_name} than tfenv wrote; "
                "this conda-lock may not be compatible (tested with {conda_lock_tested_with})."
            ).format(file_name=file_name, conda_lock_tested_with=CONDA_LOCK_TESTED_WITH)
        )


def _dependencies(depends: Sequence[str]) -> dict[str, str]:
    """``depends`` as conda-lock records it: name -> the merged version spec ("" for any)."""
    MatchSpec = _conda_lock("conda_lock._vendor.conda.models.match_spec").MatchSpec
    by_name: dict[str, list[Any]] = {}
    for dep in depends:
        spec = MatchSpec(dep)
        by_name.setdefault(spec.name, []).append(spec)
    out: dict[str, str] = {}
    for name, specs in sorted(by_name.items()):
        merged = specs[0] if len(specs) == 1 else MatchSpec.merge(specs)[0]
        out[name] = merged.version.spec_str if merged.version is not None else ""
    return out


def _conda_lock(module: str) -> Any:
    """A conda-lock module (untyped, hence Any), or a clear error when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise CondaLockUnavailableError(
            _(
                "Writing conda-lock files needs conda-lock, which could not be imported ({exc})."
            ).format(exc=exc),
            hint=_("It needs Python 3.10 or newer. {lock_extra_hint}").format(
                lock_extra_hint=_(LOCK_EXTRA_HINT)
            ),
        ) from exc


def read_pins(path: Path, text: str) -> Locked:
    """The pins of a conda-lock file, per platform (conda subdir), and each one's Python."""
    from packaging.utils import canonicalize_name

    data = yaml_of(path, text)
    packages = data.get("package") if isinstance(data, dict) else None
    if not isinstance(packages, list):
        raise bad(path, _("it has no 'package' list (is it a conda-lock file?)"))
    by_subdir: dict[str, dict[str, str]] = {}
    for i, pkg in enumerate(packages):
        if not isinstance(pkg, dict) or not all(
            usable(pkg.get(k)) for k in ("name", "version", "platform")
        ):
            raise bad(path, _("package[{i}] needs string name, version and platform").format(i=i))
        name = pkg["name"] if pkg.get("manager") == "conda" else canonicalize_name(pkg["name"])
        by_subdir.setdefault(pkg["platform"], {})[name] = pkg["version"]
    pythons = {s: xy(p["python"]) for s, p in by_subdir.items() if "python" in p}
    merged: dict[str, str] = {}
    for pins in by_subdir.values():
        merged.update(pins)
    return Locked(path, "conda-lock", merged, None, by_subdir, pythons)
