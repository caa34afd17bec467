"""The conda half of ``tfenv lock``: solve a plan's conda specs for a target with py-rattler.

The solve is made for the *target*, never the host: the conda subdir is
``target.platform.conda_subdir`` (plus ``noarch``) and the virtual packages are built from the
target's facts (:func:`target_virtual_packages`), so a lock for a CUDA Linux server can be
made on a laptop. The solved records become ``conda-lock.<label>.yml`` (conda-lock's own
format, see :mod:`tfenv.formats.conda_lock`) and the unlocked ``environment.<label>.yml``.

py-rattler needs Python 3.10 or newer; it is imported inside the functions that use it,
and its absence is reported as :class:`CondaLockUnavailableError`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from tfenv.fsutil import atomic_write
from tfenv.i18n import _, using

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Plan
    from tfenv.models.target import Target

from tfenv import routes
from tfenv.errors import (
    CondaChannelError,
    CondaLockError,
    CondaLockUnavailableError,
    CondaUnsatisfiableError,
)
from tfenv.formats.conda_lock import LockedCondaPackage, LockedPipPackage
from tfenv.formats.environment_yml import conda_spec_name
from tfenv.lock.conda_solve import SolveContext, import_rattler, solve
from tfenv.lock.conda_virtual import (
    VirtualPackageSpec,
    describe_virtual,
    target_virtual_packages,
)
from tfenv.routes.conda import conda_env_name

__all__ = [
    "CondaChannelError",
    "CondaLockError",
    "CondaLockResult",
    "CondaLockSpec",
    "CondaLockUnavailableError",
    "CondaUnsatisfiableError",
    "LockedCondaPackage",
    "LockedPipPackage",
    "env_file_name",
    "lock_conda",
    "lock_file_name",
    "solve_specs",
]


@dataclass(frozen=True)
class CondaLockSpec:
    """How to lock: channels (names, URLs or ``file://`` paths; empty: the plan's), the
    repodata cache folder (None: py-rattler's default), ``offline`` (use cached repodata
    only) and specs to add to the plan's."""

    channels: tuple[str, ...]
    cache_dir: Optional[Path]
    offline: bool = False
    extra_specs: tuple[str, ...] = ()


@dataclass(frozen=True)
class CondaLockResult:
    """A solved conda environment for one target, and the two files that describe it.

    The lock file's text is rendered when first asked for (:attr:`lock_text`), so that a
    ``conda+pip`` route, whose pip half is added with :meth:`with_pip`, renders it once."""

    label: str  # the <label> in the file names: the target's conda subdir
    subdir: str
    env_name: str
    channels: tuple[str, ...]
    specs: tuple[str, ...]  # the match specs solved, in order
    pip_specs: tuple[str, ...]  # the plan's pip requirements (conda+pip), unlocked
    virtual_packages: tuple[VirtualPackageSpec, ...]
    packages: tuple[LockedCondaPackage, ...]  # sorted by name
    python: Optional[str]  # the solved Python version, e.g. "3.11.8" (None: no python)
    notes: tuple[str, ...]  # assumptions the solve made about the target
    content_hash: str
    env_text: str
    pip_packages: tuple[LockedPipPackage, ...] = ()
    target_description: str = ""

    @property
    def lock_file_name(self) -> str:
        return lock_file_name(self.label)

    @property
    def env_file_name(self) -> str:
        return env_file_name(self.label)

    @property
    def python_minor(self) -> Optional[str]:
        """The solved Python as X.Y (what the pip half resolves wheels for)."""
        if self.python is None:
            return None
        return ".".join(self.python.split(".")[:2])

    def package(self, name: str) -> Optional[LockedCondaPackage]:
        return next((p for p in self.packages if p.name == name), None)

    @cached_property
    def lock_text(self) -> str:
        """``conda-lock.<label>.yml``: the conda packages, then the pip ones (checked by
        reading it back; CondaLockError when conda-lock cannot represent it)."""
        from tfenv.formats import conda_lock

        return conda_lock.render_lockfile(
            file_name=self.lock_file_name,
            subdir=self.subdir,
            channels=self.channels,
            conda=self.packages,
            pip=self.pip_packages,
            env_file=self.env_file_name,
            content_hash=self.content_hash,
            custom_metadata=_custom_metadata(self.target_description, self.virtual_packages),
        )

    def with_pip(self, pip_packages: Sequence[LockedPipPackage]) -> CondaLockResult:
        """This result with ``pip_packages`` added to the lock file (``conda+pip`` routes)."""
        pip = tuple(sorted(pip_packages, key=lambda p: p.name.lower()))
        return replace(self, pip_packages=pip)

    def write(self, directory: Path) -> tuple[Path, Path]:
        """Write both files into ``directory`` atomically; returns (lock file, env file)."""
        lock_path = directory / self.lock_file_name
        env_path = directory / self.env_file_name
        atomic_write(lock_path, self.lock_text)
        atomic_write(env_path, self.env_text)
        return lock_path, env_path


def lock_file_name(label: str) -> str:
    return f"conda-lock.{label}.yml"


def env_file_name(label: str) -> str:
    return f"environment.{label}.yml"


def solve_specs(plan: Plan, spec: CondaLockSpec) -> tuple[str, ...]:
    """The conda match specs to solve: the plan's, ``pip`` for ``conda+pip``, then extras."""
    if routes.route(plan.route).locker != "conda" or not plan.conda:
        raise CondaLockError(
            _(
                "The plan installs TensorFlow {tensorflow} by the {route!r} route, which has no"
                " conda packages to lock."
            ).format(tensorflow=plan.tensorflow, route=plan.route)
        )
    specs = list(plan.conda)
    if routes.route(plan.route).pip_in_conda and not any(
        conda_spec_name(s) == "pip" for s in specs
    ):
        specs.append("pip")
    specs.extend(s for s in spec.extra_specs if s not in specs)
    return tuple(specs)


def lock_conda(
    target: Target,
    plan: Plan,
    spec: CondaLockSpec,
    *,
    kb: Optional[KnowledgeBase] = None,
    label: Optional[str] = None,
) -> CondaLockResult:
    """Solve ``plan``'s conda specs for ``target`` and render the lock and environment files.

    Raises :class:`CondaUnsatisfiableError` when no environment satisfies the specs on the
    target, :class:`CondaChannelError` when a channel cannot be read and
    :class:`CondaLockUnavailableError` when py-rattler is not installed. Runs its own event
    loop (do not call it from a running one).
    """
    rattler = import_rattler()
    from tfenv.formats import environment_yml

    subdir = target.platform.conda_subdir
    label = label or subdir
    channels = tuple(spec.channels) or tuple(plan.channels)
    if not channels:
        raise CondaLockError(_("No conda channels to lock against: give at least one channel."))
    specs = solve_specs(plan, spec)
    vpkgs, notes = target_virtual_packages(target, kb)
    context = SolveContext(target.describe(), subdir, channels, specs, vpkgs)
    records = solve(rattler, context, spec)
    packages = tuple(sorted((_locked(r) for r in records), key=lambda p: p.name))
    python = next((p.version for p in packages if p.name == "python"), None)
    content_hash = _content_hash(subdir, channels, specs, plan.pip, vpkgs)
    env_name = conda_env_name(plan.tensorflow)  # the plan's name: emit's file says the same
    pip_specs = tuple(plan.pip) if routes.route(plan.route).pip_in_conda else ()
    env_text = environment_yml.render_environment(
        name=env_name,
        channels=channels,
        conda_specs=specs,
        pip_specs=pip_specs,
        header=_env_header(target, vpkgs, lock_file_name(label)),
    )
    return CondaLockResult(
        label=label,
        subdir=subdir,
        env_name=env_name,
        channels=channels,
        specs=specs,
        pip_specs=pip_specs,
        virtual_packages=vpkgs,
        packages=packages,
        python=python,
        notes=notes,
        content_hash=content_hash,
        env_text=env_text,
        target_description=_english(target.describe),
    )


def _hex(value: Optional[bytes]) -> Optional[str]:
    return None if value is None else value.hex()


def _locked(record: Any) -> LockedCondaPackage:
    return LockedCondaPackage(
        name=str(record.name.source),
        version=str(record.version),
        build=str(record.build),
        build_number=int(record.build_number),
        subdir=str(record.subdir),
        url=str(record.url),
        channel=str(record.channel),
        file_name=str(record.file_name),
        md5=_hex(record.md5),
        sha256=_hex(record.sha256),
        depends=tuple(str(d) for d in record.depends),
        constrains=tuple(str(c) for c in record.constrains),
    )


def _content_hash(
    subdir: str,
    channels: tuple[str, ...],
    specs: tuple[str, ...],
    pip: tuple[str, ...],
    virtual: tuple[VirtualPackageSpec, ...],
) -> str:
    """sha256 of what the solve was asked: subdir, channels, specs and virtual packages."""
    payload = {
        "subdir": subdir,
        "channels": list(channels),
        "conda": list(specs),
        "pip": list(pip),
        "virtual_packages": [str(v) for v in virtual],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()


def _custom_metadata(target: str, virtual: tuple[VirtualPackageSpec, ...]) -> dict[str, str]:
    return {
        "tfenv_target": target,
        "tfenv_virtual_packages": describe_virtual(virtual),
    }


def _env_header(
    target: Target, virtual: tuple[VirtualPackageSpec, ...], lock: str
) -> tuple[str, ...]:
    """In English whatever the language: lockfiles are the same for everyone."""
    with using("en"):
        return _env_header_english(target, virtual, lock)


def _env_header_english(
    target: Target, virtual: tuple[VirtualPackageSpec, ...], lock: str
) -> tuple[str, ...]:
    return (
        f"Generated by tfenv for {target.describe()}.",
        f"Solved with virtual packages {describe_virtual(virtual)}.",
        f"Unlocked specs; the exact packages are in {lock}.",
    )


def _english(describe: Callable[[], str]) -> str:
    with using("en"):
        return describe()
