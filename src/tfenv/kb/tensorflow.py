"""TensorFlow's build configurations (``tfenv/data/tensorflow/builds.yaml``).

Per minor series, hand-curated: the CUDA/cuDNN the official GPU wheels were built and
tested with (Linux, native Windows), the GPU code compiled into them per kind of kernel,
which platforms get a CUDA build, and the Keras major. Known issues and behaviour
changes live beside it (``kb/known_issues.py``, ``kb/changes.py``).

Facts that package metadata states (versions, wheels, Requires-Dist) are not here; they
come from the generated index data. Every record carries a :class:`Provenance`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Optional, Union

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import fact, opt_record, read_record, sourced, text_list
from tfenv.models.platform import PLATFORM_KEYS, per_driver_os, system

if TYPE_CHECKING:
    from pathlib import Path

    DataRoot = Optional[Path]
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "BUILDS_FILE",
    "ComputeCaps",
    "CudaBuild",
    "KernelCode",
    "TfBuild",
    "TfBuilds",
    "load_builds",
    "platform_set",
    "series_of",
]

BUILDS_FILE = "tensorflow/builds.yaml"

OsName = Literal["linux", "windows"]
VersionLike = Union[Version, str]


def series_of(version: VersionLike) -> Version:
    """The minor series of a release: ``2.15.0.post1`` and ``2.16.0rc0`` -> ``2.15`` / ``2.16``."""
    v = version if isinstance(version, Version) else Version(version)
    return Version(f"{v.major}.{v.minor}")


# -- builds ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaBuild:
    """The CUDA toolkit and cuDNN one OS's official wheels were built/tested with."""

    cuda: Optional[Version] = fact(Node.opt_version)
    cudnn: Optional[Version] = fact(Node.opt_version)
    provenance: Provenance = sourced()


def _ptx_targets(node: Node) -> tuple[str, ...]:
    targets = node.texts()
    for item in node.items():
        if not re.fullmatch(r"sm_\d+a?", item.text()):
            raise item.fail(
                _("{value!r} is not a PTX target such as sm_90 or sm_90a").format(value=item.text())
            )
    return targets


@dataclass(frozen=True)
class KernelCode:
    """The GPU code of one kind of kernel: SASS archs, PTX archs, PTX ISA and targets."""

    sass: tuple[Version, ...] = fact(Node.versions)
    ptx: tuple[Version, ...] = fact(Node.versions)
    ptx_isa: Optional[Version] = fact(Node.opt_version)
    ptx_targets: tuple[str, ...] = fact(_ptx_targets)

    @property
    def arch_specific_ptx(self) -> bool:
        """PTX for an ``sm_XXa`` target: only a GPU of exactly that capability can JIT it."""
        return any(t.endswith("a") for t in self.ptx_targets)


def _hand_written(node: Node) -> KernelCode:
    if node.is_null:
        raise node.fail(_("the hand-written kernels' code is required"))
    return read_record(KernelCode, node)


@dataclass(frozen=True)
class ComputeCaps:
    """The GPU code compiled into the official Linux x86_64 wheel, per kind of kernel.

    ``hand_written``: TensorFlow's CUDA kernels (``.nv_fatbin``); ``generated``: the
    MLIR-generated kernels (``.rodata``), None where the wheel has none.
    """

    hand_written: KernelCode = fact(_hand_written)
    generated: Optional[KernelCode] = fact(opt_record(KernelCode))
    provenance: Provenance = sourced()

    @property
    def kinds(self) -> tuple[tuple[str, KernelCode], ...]:
        out = [("hand-written", self.hand_written)]
        if self.generated is not None:
            out.append(("MLIR-generated", self.generated))
        return tuple(out)

    @property
    def lowest_sass(self) -> Optional[Version]:
        sass = self.hand_written.sass
        return min(sass) if sass else None


def platform_set(node: Node) -> frozenset[str]:
    """A list of platform names (``linux_x86_64`` ...), checked; null: none."""
    if node.is_null:
        return frozenset()
    names = []
    for item in node.items():
        name = item.text()
        if name not in PLATFORM_KEYS:
            raise item.fail(
                _("unknown platform {name!r}; known: {names}").format(
                    name=name, names=", ".join(PLATFORM_KEYS)
                )
            )
        names.append(name)
    return frozenset(names)


def _series(node: Node) -> Version:
    series = node.version()
    if len(series.release) != 2 or series.pre or series.post or series.dev:
        raise node.fail(_("{value!r} is not a minor series like '2.15'").format(value=node.text()))
    return series


@dataclass(frozen=True)
class TfBuild:
    """What one TensorFlow minor series was built with."""

    series: Version = fact(_series)
    gpu_package: str = fact()
    gpu_platforms: frozenset[str] = fact(platform_set)
    linux: Optional[CudaBuild] = fact(opt_record(CudaBuild))
    windows: Optional[CudaBuild] = fact(opt_record(CudaBuild))
    compute: Optional[ComputeCaps] = fact(opt_record(ComputeCaps))
    keras_major: Optional[int] = fact(Node.opt_integer)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()

    def for_machine(self, os_kind: str) -> Optional[CudaBuild]:
        """The CUDA build a machine of ``os_kind`` (linux, wsl2, windows, macos) gets:
        native Windows the Windows one; Linux and WSL2 (Linux wheels) the Linux one."""
        os = system(os_kind).build_os
        return None if os is None else self.cuda_build(os)

    def cuda_build(self, os: OsName) -> Optional[CudaBuild]:
        """The CUDA build for ``os`` ("linux" or "windows"), or None where there is none."""
        return per_driver_os(os, self.linux, self.windows)


@dataclass(frozen=True)
class TfBuilds:
    """All series, in file order (ascending)."""

    all: tuple[TfBuild, ...]

    def for_version(self, version: VersionLike) -> Optional[TfBuild]:
        """The build record of ``version``'s minor series (post and pre releases included)."""
        wanted = series_of(version)
        for build in self.all:
            if build.series == wanted:
                return build
        return None

    def __iter__(self) -> Iterator[TfBuild]:
        return iter(self.all)

    def __len__(self) -> int:
        return len(self.all)


@lru_cache(maxsize=8)
def load_builds(root: DataRoot = None) -> TfBuilds:
    """Read ``tensorflow/builds.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(BUILDS_FILE, root).only("builds")
    builds: list[TfBuild] = []
    seen: set[Version] = set()
    for item in doc.get("builds").items():
        build = read_record(TfBuild, item)
        if build.series in seen:
            raise item.get("series").fail(
                _("series {series} appears twice").format(series=build.series)
            )
        if builds and build.series < builds[-1].series:
            raise item.get("series").fail(_("series must be listed in ascending order"))
        seen.add(build.series)
        builds.append(build)
    return TfBuilds(all=tuple(builds))
