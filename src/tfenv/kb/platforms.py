"""Operating-system facts (WSL2, native Windows, macOS, Linux aarch64) and install routes.

Read from the hand-curated ``tfenv/data/platforms.yaml``; every record carries a
:class:`Provenance`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Optional, Union

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique_by_id
from tfenv.kb._files import load_node
from tfenv.kb._schema import (
    Translations,
    choice,
    fact,
    read_record,
    record,
    sourced,
    text_list,
    translated,
)
from tfenv.models.choices import ROUTE_KINDS
from tfenv.models.platform import PLATFORM_KEYS

if TYPE_CHECKING:
    from pathlib import Path

    DataRoot = Optional[Path]
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


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


def _names(allowed: frozenset[str]) -> Callable[[Node], frozenset[str]]:
    def read(node: Node) -> frozenset[str]:
        names = []
        for item in node.items():
            name = item.text()
            if name not in allowed:
                raise item.fail(
                    _("unknown target {name!r}; known: {names}").format(
                        name=name, names=", ".join(sorted(allowed))
                    )
                )
            names.append(name)
        return frozenset(names)

    return read


def _wheel_platform(node: Node) -> str:
    if node.text() not in PLATFORM_KEYS:
        raise node.fail(_("unknown platform {value!r}").format(value=node.text()))
    return node.text()


@dataclass(frozen=True)
class Wsl2Facts:
    min_windows_build: Version = fact(Node.version)
    min_windows_release: str = fact(Node.label)  # its name ("Windows 10 21H2")
    windows_driver_min_cuda12: Optional[Version] = fact(Node.opt_version)
    libcuda_dir: str = fact()
    wheel_platform: str = fact(_wheel_platform)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class NativeWindowsFacts:
    last_gpu_release: Version = fact(Node.version)
    last_gpu_cuda: Optional[Version] = fact(Node.opt_version)
    last_gpu_cudnn: Optional[Version] = fact(Node.opt_version)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class MetalFacts:
    """Apple's tensorflow-metal plugin (its pairing with TensorFlow releases: kb/metal.py)."""

    package: str = fact()
    latest: Version = fact(Node.version)
    platforms: frozenset[str] = fact(_names(frozenset(PLATFORM_KEYS)))
    python: tuple[Version, ...] = fact(Node.versions)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class MacosFacts:
    cuda: bool = fact(Node.boolean)
    last_x86_64_release: Version = fact(Node.version)
    metal: MetalFacts = fact(record(MetalFacts))
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class LinuxAarch64Facts:
    cuda_wheels: bool = fact(Node.boolean)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class InstallRoute:
    """The install route the TensorFlow docs recommend for some series on some targets."""

    id: str = fact()
    targets: frozenset[str] = fact(_names(TARGETS))
    applies: SpecifierSet = fact(Node.specifier)
    route: str = fact(choice(*sorted(ROUTE_KINDS)))
    summary: str = fact()
    provenance: Provenance = sourced()
    translations: Translations = translated("summary")

    def matches(self, version: Union[Version, str], target: str) -> bool:
        v = version if isinstance(version, Version) else Version(version)
        return target in self.targets and self.applies.contains(v, prereleases=True)


@dataclass(frozen=True)
class Platforms:
    wsl2: Wsl2Facts = fact(record(Wsl2Facts))
    native_windows: NativeWindowsFacts = fact(record(NativeWindowsFacts))
    macos: MacosFacts = fact(record(MacosFacts))
    linux_aarch64: LinuxAarch64Facts = fact(record(LinuxAarch64Facts))
    routes: tuple[InstallRoute, ...] = fact(lambda n: unique_by_id(n, record(InstallRoute)))

    def routes_for(self, version: Union[Version, str], target: str) -> tuple[InstallRoute, ...]:
        """The recommended routes for ``version`` on ``target`` (file order)."""
        return tuple(r for r in self.routes if r.matches(version, target))


@lru_cache(maxsize=8)
def load_platforms(root: DataRoot = None) -> Platforms:
    """Read ``platforms.yaml`` below ``root`` (default: the shipped data)."""
    return read_record(Platforms, load_node(PLATFORMS_FILE, root))
