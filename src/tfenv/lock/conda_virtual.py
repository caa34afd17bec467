"""The virtual packages a conda solve assumes on the target machine (``__cuda``, ``__glibc``,
``__linux``/``__osx``/``__win``, ``__archspec``), built from the target's facts, never the
host's, with a note for every value that was assumed."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from tfenv.lock.assumed import ASSUMED_GLIBC

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import Target

__all__ = [
    "DEFAULT_GLIBC",
    "DEFAULT_LINUX_KERNEL",
    "DEFAULT_OSX",
    "VirtualPackageSpec",
    "describe_virtual",
    "target_virtual_packages",
]

# Versions assumed when the target does not say (each use is recorded as assumed).
DEFAULT_GLIBC = ".".join(map(str, ASSUMED_GLIBC))  # the same assumption as the pip half
DEFAULT_LINUX_KERNEL = "5.10"  # conda-lock's default __linux; packages rarely constrain it
DEFAULT_OSX = "11.0"  # conda-lock's default __osx; the first macOS of Apple silicon


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


def describe_virtual(virtual: Iterable[VirtualPackageSpec]) -> str:
    """``__cuda=12.4, __glibc=2.28 (assumed), ...``: what a solve assumed present, as the
    lock's metadata, the environment file's header and solve errors say it."""
    return ", ".join(str(v) + (" (assumed)" if v.assumed else "") for v in virtual)


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
    if target.platform.is_linux:
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
    elif target.platform.is_windows:
        out.append(VirtualPackageSpec("__win", "0", source="target OS"))
    elif target.platform.is_macos:
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
    if target.platform.is_macos:
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
