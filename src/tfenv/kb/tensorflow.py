"""The curated TensorFlow knowledge: build configurations, known issues, behaviour changes.

Three hand-entered files under ``tfenv/data/tensorflow/``:

- ``builds.yaml``: per minor series, the CUDA/cuDNN the official GPU wheels were built
  and tested with (Linux, native Windows), the compute capabilities compiled into them,
  which platforms get a CUDA build, and the Keras major.
- ``known_issues.yaml``: releases that are broken or carry a trap.
- ``changes.yaml``: breaking or behaviour changes between releases.

Facts that package metadata states (versions, wheels, Requires-Dist) are not here; they
come from the generated index data. Every record carries a :class:`Provenance`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable, Literal, Optional, Protocol, TypeVar, Union

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import Version

from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.models.platform import PLATFORM_KEYS, system

__all__ = [
    "BUILDS_FILE",
    "CHANGES_FILE",
    "KNOWN_ISSUES_FILE",
    "Change",
    "ComputeCaps",
    "CudaBuild",
    "KernelCode",
    "KnownIssue",
    "TfBuild",
    "TfBuilds",
    "load_builds",
    "load_changes",
    "load_known_issues",
    "series_of",
]

BUILDS_FILE = "tensorflow/builds.yaml"
KNOWN_ISSUES_FILE = "tensorflow/known_issues.yaml"
CHANGES_FILE = "tensorflow/changes.yaml"

SEVERITIES = frozenset({"broken", "warning"})
REMEDIES = ("pin-cuda-wheels",)
CHANGE_KINDS = frozenset(
    {"keras", "platform", "gpu-arch", "cuda", "cudnn", "glibc", "python", "packaging", "api"}
)

OsName = Literal["linux", "windows"]
Severity = Literal["broken", "warning"]
VersionLike = Union[Version, str]
DataRoot = Optional[Path]


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


_R = TypeVar("_R", bound=_HasId)


def series_of(version: VersionLike) -> Version:
    """The minor series of a release: ``2.15.0.post1`` and ``2.16.0rc0`` -> ``2.15`` / ``2.16``."""
    v = version if isinstance(version, Version) else Version(version)
    return Version(f"{v.major}.{v.minor}")


# -- builds ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaBuild:
    """The CUDA toolkit and cuDNN one OS's official wheels were built/tested with."""

    cuda: Optional[Version]
    cudnn: Optional[Version]
    provenance: Provenance


@dataclass(frozen=True)
class KernelCode:
    """The GPU code of one kind of kernel: SASS archs, PTX archs, PTX ISA and targets."""

    sass: tuple[Version, ...]
    ptx: tuple[Version, ...]
    ptx_isa: Optional[Version]
    ptx_targets: tuple[str, ...]

    @property
    def arch_specific_ptx(self) -> bool:
        """PTX for an ``sm_XXa`` target: only a GPU of exactly that capability can JIT it."""
        return any(t.endswith("a") for t in self.ptx_targets)


@dataclass(frozen=True)
class ComputeCaps:
    """The GPU code compiled into the official Linux x86_64 wheel, per kind of kernel.

    ``hand_written``: TensorFlow's CUDA kernels (``.nv_fatbin``); ``generated``: the
    MLIR-generated kernels (``.rodata``), None where the wheel has none.
    """

    hand_written: KernelCode
    generated: Optional[KernelCode]
    provenance: Provenance

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


@dataclass(frozen=True)
class TfBuild:
    """What one TensorFlow minor series was built with."""

    series: Version
    gpu_package: str
    gpu_platforms: frozenset[str]
    linux: Optional[CudaBuild]
    windows: Optional[CudaBuild]
    compute: Optional[ComputeCaps]
    keras_major: Optional[int]
    notes: tuple[str, ...]
    provenance: Provenance

    def for_machine(self, os_kind: str) -> Optional[CudaBuild]:
        """The CUDA build a machine of ``os_kind`` (linux, wsl2, windows, macos) gets:
        native Windows the Windows one; Linux and WSL2 (Linux wheels) the Linux one."""
        os = system(os_kind).build_os
        return None if os is None else self.cuda_build(os)

    def cuda_build(self, os: OsName) -> Optional[CudaBuild]:
        """The CUDA build for ``os`` ("linux" or "windows"), or None where there is none."""
        if os == "linux":
            return self.linux
        if os == "windows":
            return self.windows
        raise ValueError(f"unknown OS {os!r}; expected 'linux' or 'windows'")


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


def _cuda_build(node: Node) -> Optional[CudaBuild]:
    if node.is_null:
        return None
    node.only("cuda", "cudnn", "source", "retrieved")
    return CudaBuild(
        cuda=node.get("cuda").opt_version(),
        cudnn=node.get("cudnn").opt_version(),
        provenance=node.provenance(),
    )


def _kernels(node: Node) -> Optional[KernelCode]:
    if node.is_null:
        return None
    node.only("sass", "ptx", "ptx_isa", "ptx_targets")
    targets = node.get("ptx_targets").texts()
    for item in node.get("ptx_targets").items():
        if not re.fullmatch(r"sm_\d+a?", item.text()):
            raise item.fail(f"{item.text()!r} is not a PTX target such as sm_90 or sm_90a")
    return KernelCode(
        sass=node.get("sass").versions(),
        ptx=node.get("ptx").versions(),
        ptx_isa=node.get("ptx_isa").opt_version(),
        ptx_targets=targets,
    )


def _compute(node: Node) -> Optional[ComputeCaps]:
    if node.is_null:
        return None
    node.only("hand_written", "generated", "source", "retrieved")
    hand = _kernels(node.get("hand_written"))
    if hand is None:
        raise node.get("hand_written").fail("the hand-written kernels' code is required")
    return ComputeCaps(
        hand_written=hand,
        generated=_kernels(node.get("generated")),
        provenance=node.provenance(),
    )


def _platforms(node: Node) -> frozenset[str]:
    if node.is_null:
        return frozenset()
    names = []
    for item in node.items():
        name = item.text()
        if name not in PLATFORM_KEYS:
            raise item.fail(f"unknown platform {name!r}; known: {', '.join(PLATFORM_KEYS)}")
        names.append(name)
    return frozenset(names)


def _series(node: Node) -> Version:
    series = node.version()
    if len(series.release) != 2 or series.pre or series.post or series.dev:
        raise node.fail(f"{node.text()!r} is not a minor series like '2.15'")
    return series


def _build(node: Node) -> TfBuild:
    node.only(
        "series",
        "gpu_package",
        "gpu_platforms",
        "linux",
        "windows",
        "compute",
        "keras_major",
        "notes",
        "source",
        "retrieved",
    )
    keras = node.get("keras_major")
    notes = node.opt("notes")
    return TfBuild(
        series=_series(node.get("series")),
        gpu_package=node.get("gpu_package").text(),
        gpu_platforms=_platforms(node.get("gpu_platforms")),
        linux=_cuda_build(node.get("linux")),
        windows=_cuda_build(node.get("windows")),
        compute=_compute(node.get("compute")),
        keras_major=None if keras.is_null else keras.integer(),
        notes=() if notes.is_null else notes.texts(),
        provenance=node.provenance(),
    )


@lru_cache(maxsize=8)
def load_builds(root: DataRoot = None) -> TfBuilds:
    """Read ``tensorflow/builds.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(BUILDS_FILE, root).only("builds")
    builds: list[TfBuild] = []
    seen: set[Version] = set()
    for item in doc.get("builds").items():
        build = _build(item)
        if build.series in seen:
            raise item.get("series").fail(f"series {build.series} appears twice")
        if builds and build.series < builds[-1].series:
            raise item.get("series").fail("series must be listed in ascending order")
        seen.add(build.series)
        builds.append(build)
    return TfBuilds(all=tuple(builds))


# -- known issues ---------------------------------------------------------------------


@dataclass(frozen=True)
class KnownIssue:
    """A release (range) that is broken or has a trap on some platforms.

    ``package`` is the distribution the issue is about (``tensorflow`` unless stated,
    e.g. ``tensorflow-gpu`` or ``tensorflow-macos``); ``applies`` is a specifier on its
    version; an empty ``platforms`` means every platform.
    """

    id: str
    package: str
    applies: SpecifierSet
    platforms: frozenset[str]
    severity: Severity
    summary: str
    prefer: Optional[Version]
    provenance: Provenance
    routes: frozenset[str] = frozenset()  # install routes concerned; empty: every route
    compute_capability: Optional[SpecifierSet] = None  # GPUs concerned; None: every machine
    remedy: Optional[str] = None  # what a plan does that avoids it ("pin-cuda-wheels")
    action: str = ""  # what to do about it (the fix check-upgrade gives)

    def concerns(self, route: str, cc: Optional[Version] = None) -> bool:
        """Whether the issue concerns a plan on ``route`` for a GPU of capability ``cc``."""
        if self.routes and route not in self.routes:
            return False
        if self.compute_capability is None:
            return True
        return cc is not None and self.compute_capability.contains(cc)

    def matches(
        self, version: VersionLike, platform: Optional[str] = None, package: str = "tensorflow"
    ) -> bool:
        """Whether the issue hits ``package==version`` on ``platform`` (None: any platform)."""
        if package != self.package:
            return False
        if platform is not None and self.platforms and platform not in self.platforms:
            return False
        v = version if isinstance(version, Version) else Version(version)
        return self.applies.contains(v, prereleases=True)


def _specifier(node: Node) -> SpecifierSet:
    text = node.text()
    try:
        spec = SpecifierSet(text)
    except InvalidSpecifier:
        raise node.fail(f"{text!r} is not a version specifier") from None
    if not str(spec):
        raise node.fail("an empty specifier would match every release")
    return spec


def _issue(node: Node) -> KnownIssue:
    node.only(
        "id",
        "package",
        "applies",
        "platforms",
        "severity",
        "summary",
        "prefer",
        "routes",
        "compute_capability",
        "remedy",
        "action",
        "source",
        "retrieved",
    )
    severity = node.get("severity").text()
    if severity not in SEVERITIES:
        raise node.get("severity").fail(f"{severity!r} is not one of broken, warning")
    package = node.opt("package")
    return KnownIssue(
        id=_kebab(node.get("id")),
        package="tensorflow" if package.is_null else package.text(),
        applies=_specifier(node.get("applies")),
        platforms=_platforms(node.get("platforms")),
        severity="broken" if severity == "broken" else "warning",
        summary=node.get("summary").text(),
        prefer=node.get("prefer").opt_version(),
        provenance=node.provenance(),
        routes=frozenset(node.opt("routes").texts()) if node.has("routes") else frozenset(),
        compute_capability=_specifier(node.get("compute_capability"))
        if node.has("compute_capability")
        else None,
        remedy=node.opt("remedy").opt_choice(*REMEDIES),
        action=node.get("action").text(),
    )


def _kebab(node: Node) -> str:
    text = node.text()
    parts = text.split("-")
    if not text or any(
        not p or not p.isascii() or not p.isalnum() or p != p.lower() for p in parts
    ):
        raise node.fail(f"{text!r} is not a kebab-case id")
    return text


@lru_cache(maxsize=8)
def load_known_issues(root: DataRoot = None) -> tuple[KnownIssue, ...]:
    """Read ``tensorflow/known_issues.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(KNOWN_ISSUES_FILE, root).only("issues")
    return _unique(doc.get("issues"), _issue)


# -- changes --------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """A breaking or behaviour change that first appears in ``since``."""

    id: str
    since: Version
    kind: str
    summary: str
    action: str
    provenance: Provenance
    # who it concerns: None = everyone; "cuda" = CUDA installs on Linux/WSL2;
    # "tensorflow-gpu" = environments that install the tensorflow-gpu package
    concerns: Optional[str] = None
    # "change": something to act on going up; "gain": it only adds something (info going
    # up; going back below ``since`` loses it, a warning)
    effect: str = "change"
    undo: Optional[str] = None  # what to do going below ``since`` (None: a generic sentence)
    issue: Optional[str] = None  # the known issue that describes the same trap (reported once)


CHANGE_CONCERNS = frozenset({"cuda", "tensorflow-gpu"})
CHANGE_EFFECTS = ("change", "gain")


def _change(node: Node) -> Change:
    node.only(
        "id",
        "since",
        "kind",
        "summary",
        "action",
        "concerns",
        "effect",
        "undo",
        "issue",
        "source",
        "retrieved",
    )
    concerns = node.opt("concerns").opt_text()
    if concerns is not None and concerns not in CHANGE_CONCERNS:
        raise node.get("concerns").fail(
            f"{concerns!r} is not one of {', '.join(sorted(CHANGE_CONCERNS))}"
        )
    kind = node.get("kind").text()
    if kind not in CHANGE_KINDS:
        raise node.get("kind").fail(f"{kind!r} is not one of {', '.join(sorted(CHANGE_KINDS))}")
    return Change(
        id=_kebab(node.get("id")),
        since=node.get("since").version(),
        kind=kind,
        summary=node.get("summary").text(),
        action=node.get("action").text(),
        provenance=node.provenance(),
        concerns=concerns,
        effect=node.opt("effect").opt_choice(*CHANGE_EFFECTS) or "change",
        undo=node.opt("undo").opt_text(),
        issue=_kebab(node.get("issue")) if node.has("issue") else None,
    )


@lru_cache(maxsize=8)
def load_changes(root: DataRoot = None) -> tuple[Change, ...]:
    """Read ``tensorflow/changes.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(CHANGES_FILE, root).only("changes")
    return _unique(doc.get("changes"), _change)


def _unique(node: Node, parse: Callable[[Node], _R]) -> tuple[_R, ...]:
    out: list[_R] = []
    seen: set[str] = set()
    for item in node.items():
        record = parse(item)
        if record.id in seen:
            raise item.get("id").fail(f"id {record.id!r} appears twice")
        seen.add(record.id)
        out.append(record)
    return tuple(out)
