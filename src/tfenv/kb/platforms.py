"""Operating-system facts (WSL2, native Windows, macOS, Linux aarch64) and install routes.

Read from the hand-curated ``tfenv/data/platforms.yaml``; every record carries a
:class:`Provenance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.kb._fields import Node, Provenance, unique_by_id
from tfenv.kb._files import load_node
from tfenv.models.platform import PLATFORM_KEYS

__all__ = [
    "PLATFORMS_FILE",
    "ROUTE_KINDS",
    "TARGETS",
    "InstallRoute",
    "LinuxAarch64Facts",
    "MacosFacts",
    "MetalFacts",
    "NativeWindowsFacts",
    "Platforms",
    "Wsl2Facts",
    "load_platforms",
]

PLATFORMS_FILE = "platforms.yaml"
#: Where a stack is installed: a wheel platform, or WSL2 (Linux x86_64 wheels on Windows).
TARGETS = frozenset(PLATFORM_KEYS) | {"wsl2"}
ROUTE_KINDS = frozenset({"pip", "conda", "conda+pip", "system", "metal", "cpu"})

DataRoot = Optional[Path]


@dataclass(frozen=True)
class Wsl2Facts:
    min_windows_build: Version
    min_windows_release: str  # its name ("Windows 10 21H2")
    windows_driver_min_cuda12: Optional[Version]
    libcuda_dir: str
    wheel_platform: str
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class NativeWindowsFacts:
    last_gpu_release: Version
    last_gpu_cuda: Optional[Version]
    last_gpu_cudnn: Optional[Version]
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class MetalFacts:
    """Apple's tensorflow-metal plugin (its pairing with TensorFlow releases: kb/metal.py)."""

    package: str
    latest: Version
    platforms: frozenset[str]
    python: tuple[Version, ...]
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class MacosFacts:
    cuda: bool
    last_x86_64_release: Version
    metal: MetalFacts
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class LinuxAarch64Facts:
    cuda_wheels: bool
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class InstallRoute:
    """The install route the TensorFlow docs recommend for some series on some targets."""

    id: str
    targets: frozenset[str]
    applies: SpecifierSet
    route: str
    summary: str
    provenance: Provenance

    def matches(self, version: Union[Version, str], target: str) -> bool:
        v = version if isinstance(version, Version) else Version(version)
        return target in self.targets and self.applies.contains(v, prereleases=True)


@dataclass(frozen=True)
class Platforms:
    wsl2: Wsl2Facts
    native_windows: NativeWindowsFacts
    macos: MacosFacts
    linux_aarch64: LinuxAarch64Facts
    routes: tuple[InstallRoute, ...]

    def routes_for(self, version: Union[Version, str], target: str) -> tuple[InstallRoute, ...]:
        """The recommended routes for ``version`` on ``target`` (file order)."""
        return tuple(r for r in self.routes if r.matches(version, target))


def _notes(node: Node) -> tuple[str, ...]:
    """The record's optional ``notes`` (one or a list; absent or null: none)."""
    return node.opt("notes").opt_texts() or ()


def _names(node: Node, allowed: frozenset[str]) -> frozenset[str]:
    names = []
    for item in node.items():
        name = item.text()
        if name not in allowed:
            raise item.fail(f"unknown target {name!r}; known: {', '.join(sorted(allowed))}")
        names.append(name)
    return frozenset(names)


def _wsl2(node: Node) -> Wsl2Facts:
    node.only(
        "min_windows_build",
        "min_windows_release",
        "windows_driver_min_cuda12",
        "libcuda_dir",
        "wheel_platform",
        "notes",
        "source",
        "retrieved",
    )
    platform = node.get("wheel_platform")
    if platform.text() not in PLATFORM_KEYS:
        raise platform.fail(f"unknown platform {platform.text()!r}")
    return Wsl2Facts(
        min_windows_build=node.get("min_windows_build").version(),
        min_windows_release=node.get("min_windows_release").label(),
        windows_driver_min_cuda12=node.get("windows_driver_min_cuda12").opt_version(),
        libcuda_dir=node.get("libcuda_dir").text(),
        wheel_platform=platform.text(),
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _windows(node: Node) -> NativeWindowsFacts:
    node.only("last_gpu_release", "last_gpu_cuda", "last_gpu_cudnn", "notes", "source", "retrieved")
    return NativeWindowsFacts(
        last_gpu_release=node.get("last_gpu_release").version(),
        last_gpu_cuda=node.get("last_gpu_cuda").opt_version(),
        last_gpu_cudnn=node.get("last_gpu_cudnn").opt_version(),
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _metal(node: Node) -> MetalFacts:
    node.only(
        "package",
        "latest",
        "platforms",
        "python",
        "notes",
        "source",
        "retrieved",
    )
    return MetalFacts(
        package=node.get("package").text(),
        latest=node.get("latest").version(),
        platforms=_names(node.get("platforms"), frozenset(PLATFORM_KEYS)),
        python=node.get("python").versions(),
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _macos(node: Node) -> MacosFacts:
    node.only("cuda", "last_x86_64_release", "metal", "notes", "source", "retrieved")
    return MacosFacts(
        cuda=node.get("cuda").boolean(),
        last_x86_64_release=node.get("last_x86_64_release").version(),
        metal=_metal(node.get("metal")),
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _aarch64(node: Node) -> LinuxAarch64Facts:
    node.only("cuda_wheels", "notes", "source", "retrieved")
    return LinuxAarch64Facts(
        cuda_wheels=node.get("cuda_wheels").boolean(),
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _route(node: Node) -> InstallRoute:
    node.only("id", "targets", "applies", "route", "summary", "source", "retrieved")
    return InstallRoute(
        id=node.get("id").text(),
        targets=_names(node.get("targets"), TARGETS),
        applies=node.get("applies").specifier(),
        route=node.get("route").choice(*sorted(ROUTE_KINDS)),
        summary=node.get("summary").text(),
        provenance=node.provenance(),
    )


@lru_cache(maxsize=8)
def load_platforms(root: DataRoot = None) -> Platforms:
    """Read ``platforms.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(PLATFORMS_FILE, root)
    doc.only("wsl2", "native_windows", "macos", "linux_aarch64", "routes")
    routes = unique_by_id(doc.get("routes"), _route)
    return Platforms(
        wsl2=_wsl2(doc.get("wsl2")),
        native_windows=_windows(doc.get("native_windows")),
        macos=_macos(doc.get("macos")),
        linux_aarch64=_aarch64(doc.get("linux_aarch64")),
        routes=routes,
    )
