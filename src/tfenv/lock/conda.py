"""The conda half of ``tfenv lock``: solve a plan's conda specs for a target with py-rattler.

The solve is made for the *target*, never the host: the conda subdir is
``target.platform.conda_subdir`` (plus ``noarch``) and the virtual packages are built from the
target's facts (:func:`target_virtual_packages`), so a lock for a CUDA Linux server can be
made on a laptop. The solved records become ``conda-lock.<label>.yml`` (conda-lock's own
format, see :mod:`tfenv.lock.conda_lockfile`) and the unlocked ``environment.<label>.yml``.

py-rattler needs Python 3.10 or newer; it is imported inside the functions that use it,
and its absence is reported as :class:`CondaLockUnavailableError`.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tfenv.errors import TfenvError
from tfenv.fsutil import atomic_write

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Plan
    from tfenv.models.target import Target

from tfenv import routes
from tfenv.lock.assumed import ASSUMED_GLIBC

__all__ = [
    "DEFAULT_GLIBC",
    "DEFAULT_LINUX_KERNEL",
    "DEFAULT_OSX",
    "CondaChannelError",
    "CondaLockError",
    "CondaLockResult",
    "CondaLockSpec",
    "CondaLockUnavailableError",
    "CondaUnsatisfiableError",
    "LockedCondaPackage",
    "LockedPipPackage",
    "VirtualPackageSpec",
    "env_file_name",
    "lock_conda",
    "lock_file_name",
    "solve_specs",
    "target_virtual_packages",
]

# Versions assumed when the target does not say (each use is recorded as assumed).
DEFAULT_GLIBC = ".".join(map(str, ASSUMED_GLIBC))  # the same assumption as the pip half
DEFAULT_LINUX_KERNEL = "5.10"  # conda-lock's default __linux; packages rarely constrain it
DEFAULT_OSX = "11.0"  # conda-lock's default __osx; the first macOS of Apple silicon


class CondaLockError(TfenvError):
    """The conda half of a lock could not be made."""

    exit_code = 1


class CondaLockUnavailableError(CondaLockError):
    """py-rattler or conda-lock is not installed (or Python is older than 3.10)."""


class CondaUnsatisfiableError(CondaLockError):
    """The conda solver found no environment for the specs on the target."""

    def __init__(self, message: str, *, solver_message: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.solver_message = solver_message


class CondaChannelError(CondaLockError):
    """A channel's repodata could not be read (network, missing subdir, empty cache offline)."""


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
class VirtualPackageSpec:
    """A virtual package the solve assumes present on the target, and where it came from."""

    name: str
    version: str
    build: str = ""
    source: str = ""
    assumed: bool = False

    def __str__(self) -> str:
        return f"{self.name}={self.version}" + (f"={self.build}" if self.build else "")


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


@dataclass(frozen=True)
class CondaLockResult:
    """A solved conda environment for one target, and the two files that describe it."""

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
    lock_text: str
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

    def with_pip(self, pip_packages: Sequence[LockedPipPackage]) -> CondaLockResult:
        """This result with ``pip_packages`` added to the lock file (``conda+pip`` routes)."""
        from tfenv.lock import conda_lockfile

        pip = tuple(sorted(pip_packages, key=lambda p: p.name.lower()))
        text = conda_lockfile.render_lockfile(
            file_name=self.lock_file_name,
            subdir=self.subdir,
            channels=self.channels,
            conda=self.packages,
            pip=pip,
            env_file=self.env_file_name,
            content_hash=self.content_hash,
            custom_metadata=_custom_metadata(self.target_description, self.virtual_packages),
        )
        return replace(self, pip_packages=pip, lock_text=text)

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


def target_virtual_packages(
    target: Target, kb: Optional[KnowledgeBase] = None
) -> tuple[tuple[VirtualPackageSpec, ...], tuple[str, ...]]:
    """The virtual packages of ``target`` (sorted by name) and notes on what was assumed.

    ``__cuda`` is the CUDA version the target's driver supports (the driver branch's
    maximum); it is absent when the target has no NVIDIA GPU or its driver is not known,
    so CUDA builds cannot be chosen. ``__glibc`` is the target's glibc, or
    :data:`DEFAULT_GLIBC` (recorded as assumed). ``__archspec`` is the generic
    architecture (``x86_64``, not a microarchitecture), so the lock suits any CPU of it.
    """
    notes: list[str] = []
    out: list[VirtualPackageSpec] = []
    arch = target.platform.archspec
    out.append(VirtualPackageSpec("__archspec", "1", arch, source="target architecture"))
    if target.platform.os == "linux":
        out.append(VirtualPackageSpec("__unix", "0", source="target OS"))
        out.append(
            VirtualPackageSpec(
                "__linux", DEFAULT_LINUX_KERNEL, source="assumed kernel version", assumed=True
            )
        )
        if target.glibc is not None:
            out.append(VirtualPackageSpec("__glibc", str(target.glibc), source="target glibc"))
        else:
            out.append(
                VirtualPackageSpec(
                    "__glibc", DEFAULT_GLIBC, source="assumed: glibc not known", assumed=True
                )
            )
            notes.append(
                f"The target's glibc is not known; the solve assumed __glibc {DEFAULT_GLIBC}, "
                "conda-forge's baseline (give the target's glibc to lock for it exactly)."
            )
    elif target.platform.os == "windows":
        out.append(VirtualPackageSpec("__win", "0", source="target OS"))
    elif target.platform.os == "macos":
        out.append(VirtualPackageSpec("__unix", "0", source="target OS"))
        out.append(
            VirtualPackageSpec("__osx", DEFAULT_OSX, source="assumed macOS version", assumed=True)
        )
        notes.append(f"The target's macOS version is not known; the solve assumed {DEFAULT_OSX}.")
    cuda, note = _virtual_cuda(target, kb)
    if cuda is not None:
        out.append(cuda)
    if note:
        notes.append(note)
    out.sort(key=lambda v: v.name)
    return tuple(out), tuple(notes)


def _virtual_cuda(
    target: Target, kb: Optional[KnowledgeBase]
) -> tuple[Optional[VirtualPackageSpec], Optional[str]]:
    if target.platform.os == "macos":
        return None, None
    if not target.has_nvidia_gpu:
        return (
            None,
            "The target has no NVIDIA GPU, so __cuda is absent: CUDA builds cannot be chosen.",
        )
    if target.driver is None:
        return None, (
            "The target's NVIDIA driver is not known, so __cuda is absent: CUDA builds cannot be "
            "chosen (give the driver version to lock a CUDA build)."
        )
    if kb is None:
        from tfenv.kb import KnowledgeBase

        kb = KnowledgeBase.from_environment()
    top = kb.cuda.max_cuda_for_driver(target.driver)
    driver = str(target.driver)
    if top is None:
        return None, (
            f"Driver {driver} is older than every driver branch tfenv knows, so its CUDA "
            "version is not known and __cuda is absent: CUDA builds cannot be chosen."
        )
    spec = VirtualPackageSpec("__cuda", str(top), source=f"driver {driver} supports CUDA {top}")
    return spec, None


def solve_specs(plan: Plan, spec: CondaLockSpec) -> tuple[str, ...]:
    """The conda match specs to solve: the plan's, ``pip`` for ``conda+pip``, then extras."""
    if routes.route(plan.route).locker != "conda" or not plan.conda:
        raise CondaLockError(
            f"The plan installs TensorFlow {plan.tensorflow} by the {plan.route!r} route, "
            "which has no conda packages to lock."
        )
    specs = list(plan.conda)
    if plan.route == "conda+pip" and not any(_spec_name(s) == "pip" for s in specs):
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
    rattler = _import_rattler()
    from tfenv.lock import conda_lockfile

    subdir = target.platform.conda_subdir
    label = label or subdir
    channels = tuple(spec.channels) or tuple(plan.channels)
    if not channels:
        raise CondaLockError("No conda channels to lock against: give at least one channel.")
    specs = solve_specs(plan, spec)
    vpkgs, notes = target_virtual_packages(target, kb)
    context = _Context(target.describe(), subdir, channels, specs, vpkgs)
    records = _solve(rattler, context, spec)
    packages = tuple(sorted((_locked(r) for r in records), key=lambda p: p.name))
    python = next((p.version for p in packages if p.name == "python"), None)
    content_hash = _content_hash(subdir, channels, specs, plan.pip, vpkgs)
    env_name = _env_name(plan)
    pip_specs = tuple(plan.pip) if plan.route == "conda+pip" else ()
    env_text = conda_lockfile.render_environment(
        name=env_name,
        channels=channels,
        conda_specs=specs,
        pip_specs=pip_specs,
        header=_env_header(target, vpkgs, lock_file_name(label)),
    )
    lock_text = conda_lockfile.render_lockfile(
        file_name=lock_file_name(label),
        subdir=subdir,
        channels=channels,
        conda=packages,
        pip=(),
        env_file=env_file_name(label),
        content_hash=content_hash,
        custom_metadata=_custom_metadata(target.describe(), vpkgs),
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
        lock_text=lock_text,
        env_text=env_text,
        target_description=target.describe(),
    )


@dataclass(frozen=True)
class _Context:
    target: str
    subdir: str
    channels: tuple[str, ...]
    specs: tuple[str, ...]
    virtual: tuple[VirtualPackageSpec, ...]

    def where(self) -> str:
        vp = ", ".join(str(v) + (" (assumed)" if v.assumed else "") for v in self.virtual)
        return (
            f"for {self.target} (conda subdir {self.subdir}, virtual packages {vp}) "
            f"from channels {', '.join(self.channels)}"
        )


def _import_rattler() -> Any:
    from tfenv.lock import LOCK_EXTRA_HINT

    try:
        import rattler
    except ImportError as exc:
        raise CondaLockUnavailableError(
            f"Locking conda environments needs py-rattler, which could not be imported ({exc}).",
            hint=f"It needs Python 3.10 or newer. {LOCK_EXTRA_HINT}",
        ) from exc
    return rattler


def _solve(rattler: Any, ctx: _Context, spec: CondaLockSpec) -> list[Any]:
    from rattler import exceptions as rx

    try:
        matchspecs = [rattler.MatchSpec(s, strict=False) for s in ctx.specs]
        virtual = [
            rattler.GenericVirtualPackage(
                rattler.PackageName(v.name),
                rattler.Version(v.version),
                rattler.BuildString(v.build) if v.build else rattler.BuildString("0"),
            )
            for v in ctx.virtual
        ]
    except (rx.InvalidMatchSpecError, rx.InvalidPackageNameError, rx.InvalidVersionError) as exc:
        raise CondaLockError(f"A conda spec to lock {ctx.where()} is not valid: {exc}.") from exc
    config = rattler.SourceConfig(
        cache_action="force-cache-only" if spec.offline else "cache-or-fetch"
    )
    gateway = rattler.Gateway(cache_dir=spec.cache_dir, default_config=config, show_progress=False)
    # The errors are raised after the rattler objects are gone, from None: a traceback that
    # keeps the gateway alive until interpreter shutdown makes py-rattler abort the process.
    failure: Optional[CondaLockError] = None
    result: list[Any] = []
    try:
        result = asyncio.run(
            rattler.solve(
                list(ctx.channels),
                matchspecs,
                gateway=gateway,
                platforms=[ctx.subdir, "noarch"],
                virtual_packages=virtual,
                channel_relations="disabled",
            )
        )
    except rx.SolverError as exc:
        failure = _unsatisfiable(ctx, str(exc))
    except (
        rx.GatewayError,
        rx.FetchRepoDataError,
        rx.InvalidChannelError,
        rx.CacheDirError,
        rx.IoError,
    ) as exc:
        offline = " (offline: only cached repodata may be used)" if spec.offline else ""
        failure = CondaChannelError(
            f"The conda channels could not be read to lock {ctx.where()}{offline}: "
            f"{_one_paragraph(str(exc))}."
        )
    finally:
        del gateway, matchspecs, virtual
        # py-rattler objects caught in reference cycles (the solver error's frames) are
        # otherwise freed at interpreter shutdown, where py-rattler crashes (SIGSEGV about
        # one run in six after a failed solve with a fresh cache; none in 210 with this)
        gc.collect()
    if failure is not None:
        raise failure
    return result


def _unsatisfiable(ctx: _Context, explanation: str) -> CondaUnsatisfiableError:
    text = _one_paragraph(explanation)
    message = (
        f"No conda environment satisfies {' '.join(ctx.specs)} {ctx.where()}. "
        f"The solver says: {text}."
    )
    return CondaUnsatisfiableError(
        message, solver_message=explanation, hint=_hint(ctx, explanation)
    )


def _hint(ctx: _Context, explanation: str) -> Optional[str]:
    byname = {v.name: v for v in ctx.virtual}
    if "__cuda" in explanation:
        cuda = byname.get("__cuda")
        if cuda is None:
            return (
                "The CUDA builds need __cuda, the CUDA version of an NVIDIA driver, and the "
                "target has none known: give the target's driver, or lock a CPU plan."
            )
        return (
            f"__cuda {cuda.version} is the newest CUDA the target's driver supports "
            f"({cuda.source}); the locked CUDA packages need a newer one: update the driver, "
            "or lock a plan with an older CUDA variant."
        )
    if "__glibc" in explanation:
        glibc = byname.get("__glibc")
        assumed = " (assumed)" if glibc is not None and glibc.assumed else ""
        have = f"{glibc.version}{assumed}" if glibc is not None else "none"
        return (
            f"The target's glibc is {have}, older than the packages require: lock for a newer "
            "OS release, or a plan whose packages support this glibc."
        )
    if "No candidates were found" in explanation or "for which no candidates" in explanation:
        return (
            "A package or build the plan asks for is not in the channels for "
            f"{ctx.subdir} or noarch: check the channels and the pins."
        )
    return None


_TREE = re.compile(r"[\u2500-\u257f]+")


def _one_paragraph(text: str) -> str:
    """The solver's tree explanation as one line: tree drawing removed, lines joined."""
    lines = (" ".join(_TREE.sub(" ", line).split()) for line in text.splitlines())
    joined = "; ".join(line for line in lines if line)
    return joined.replace(":;", ":").rstrip(" ;.")


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


def _spec_name(spec: str) -> str:
    return re.split(r"[\s=<>!~\[]", spec.strip(), maxsplit=1)[0]


def _env_name(plan: Plan) -> str:
    accel = f"cuda{plan.cuda}" if plan.cuda else plan.accelerator
    return f"{plan.package}-{plan.tensorflow}-{accel}"


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
        "tfenv_virtual_packages": ", ".join(
            str(v) + (" (assumed)" if v.assumed else "") for v in virtual
        ),
    }


def _env_header(target: Target, virtual: tuple[VirtualPackageSpec, ...], lock: str) -> str:
    vp = ", ".join(str(v) + (" (assumed)" if v.assumed else "") for v in virtual)
    return (
        f"Generated by tfenv for {target.describe()}.\n"
        f"Solved with virtual packages {vp}.\n"
        f"Unlocked specs; the exact packages are in {lock}."
    )
