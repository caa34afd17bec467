"""Where a stack runs: the closed set of systems and wheel platforms tfenv plans for.

In the style of :mod:`packaging.tags`, a platform is a value that carries every
spelling the ecosystem uses for it: the wheel platform key of the knowledge base
(``linux_x86_64``), the conda subdir (``linux-64``), conda's generic ``__archspec``,
uv's ``--python-platform``, and the PEP 508 marker environment. A :class:`System` is
the operating system as a user names it (``wsl2`` is Linux wheels on a Windows
driver), and :func:`machine` maps a system and an architecture to its platform, or
refuses a pair no TensorFlow wheel serves.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, Optional, TypeVar

from tfenv.i18n import N_, _

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "DRIVER_OSES",
    "LINUX_AARCH64",
    "LINUX_X86_64",
    "MACOS_ARM64",
    "MACOS_X86_64",
    "PLATFORMS",
    "PLATFORM_KEYS",
    "SYSTEMS",
    "WINDOWS_X86_64",
    "DriverOs",
    "Machine",
    "Platform",
    "System",
    "UnsupportedPlatform",
    "is_linux_driver",
    "known_system",
    "machine",
    "normalize_arch",
    "os_title",
    "per_driver_os",
    "platform",
    "platform_of",
    "system",
]

DriverOs = Literal["linux", "windows"]
#: the two systems NVIDIA's driver tables and TensorFlow's CUDA builds are kept for
DRIVER_OSES: tuple[DriverOs, ...] = ("linux", "windows")
_T = TypeVar("_T")


def per_driver_os(os: DriverOs, linux: _T, windows: _T) -> _T:
    """The one of a pair kept per driver/build system (``linux``'s or ``windows``'s), so
    that no code outside models compares a system's name."""
    if os == "linux":
        return linux
    if os == "windows":
        return windows
    raise ValueError(f"unknown OS {os!r}; expected 'linux' or 'windows'")


def is_linux_driver(os: Optional[DriverOs]) -> bool:
    """Whether ``os`` (a driver/build system, or None) is Linux's."""
    return os == "linux"


#: how a sentence names an operating system, by the name tfenv keys it by (a system, or
#: whose driver tables apply): the one place these display names come from
OS_TITLES: Mapping[str, str] = MappingProxyType(
    {"linux": "Linux", "wsl2": "WSL2", "windows": "Windows", "macos": "macOS"}
)


def os_title(name: str) -> str:
    """ "Windows" for ``windows``, "WSL2" for ``wsl2`` ...: an operating system as sentences
    name it (a name tfenv does not know is shown as given)."""
    return OS_TITLES.get(name, name)


class UnsupportedPlatform(ValueError):
    """A system and architecture that no TensorFlow wheel serves (or an unknown name)."""


@dataclass(frozen=True)
class Platform:
    """A wheel platform: one OS and architecture that TensorFlow publishes wheels for."""

    key: str  # the knowledge base's name: "linux_x86_64"
    os: Literal["linux", "windows", "macos"]
    arch: str  # "x86_64", "aarch64", "arm64"
    title: str  # "Linux x86_64"
    conda_subdir: str  # "linux-64"
    archspec: str  # conda's generic __archspec (conda-lock's default-virtual-packages.yaml)
    uv_triple: Optional[str]  # uv's --python-platform; None on Linux, where glibc decides
    sys_platform: str
    platform_system: str
    platform_machine: str
    os_name: str
    tag_arches: tuple[str, ...]  # wheel platform tags (their arch part) that install here
    first_os: Optional[str] = None  # the first OS release of the platform (macOS 11 on arm64)

    def __str__(self) -> str:
        return self.key

    @property
    def is_linux(self) -> bool:
        return self.os == "linux"

    @property
    def is_windows(self) -> bool:
        return self.os == "windows"

    @property
    def is_macos(self) -> bool:
        return self.os == "macos"

    def uv_platform(self, glibc: tuple[int, int]) -> str:
        """uv's ``--python-platform``: ``x86_64-manylinux_2_28`` on Linux (for ``glibc``)."""
        if self.uv_triple is not None:
            return self.uv_triple
        return f"{self.arch}-manylinux_{glibc[0]}_{glibc[1]}"

    def environment(self, python: str) -> dict[str, str]:
        """The PEP 508 marker environment of CPython ``python`` (X.Y) on this platform."""
        py = python
        return {
            "implementation_name": "cpython",
            "implementation_version": f"{py}.0",
            "os_name": self.os_name,
            "platform_machine": self.platform_machine,
            "platform_python_implementation": "CPython",
            "platform_release": "",
            "platform_system": self.platform_system,
            "platform_version": "",
            "python_full_version": f"{py}.0",
            "python_version": py,
            "sys_platform": self.sys_platform,
        }

    def marker(self, python: str) -> str:
        """A PEP 508 marker true exactly on this platform with CPython ``python`` (X.Y)."""
        return (
            f'sys_platform == "{self.sys_platform}" and '
            f'platform_machine == "{self.platform_machine}" and python_version == "{python}"'
        )


def _linux(arch: str, subdir: str) -> Platform:
    return Platform(
        f"linux_{arch}", "linux", arch, f"Linux {arch}", subdir, arch, None,
        "linux", "Linux", arch, "posix", (arch,),
    )  # fmt: skip


def _macos(arch: str, subdir: str, triple: str, tags: tuple[str, ...], first: str) -> Platform:
    return Platform(
        f"macos_{arch}", "macos", arch, f"macOS {arch}", subdir, arch, triple,
        "darwin", "Darwin", arch, "posix", tags, first,
    )  # fmt: skip


# musllinux and bare linux_* tags do not install from an index on a glibc host: only
# manylinux tags count for Linux; universal2 macOS wheels serve both architectures
LINUX_X86_64 = _linux("x86_64", "linux-64")
LINUX_AARCH64 = _linux("aarch64", "linux-aarch64")
WINDOWS_X86_64 = Platform(
    "windows_x86_64", "windows", "x86_64", "Windows x86_64", "win-64", "x86_64",
    "x86_64-pc-windows-msvc", "win32", "Windows", "AMD64", "nt", ("win_amd64",),
)  # fmt: skip
MACOS_X86_64 = _macos(
    "x86_64", "osx-64", "x86_64-apple-darwin", ("x86_64", "intel", "universal2"), "10.0"
)
MACOS_ARM64 = _macos("arm64", "osx-arm64", "aarch64-apple-darwin", ("arm64", "universal2"), "11.0")

#: Every wheel platform, in the order tables list them.
PLATFORMS: tuple[Platform, ...] = (
    LINUX_X86_64,
    LINUX_AARCH64,
    WINDOWS_X86_64,
    MACOS_X86_64,
    MACOS_ARM64,
)
PLATFORM_KEYS: tuple[str, ...] = tuple(p.key for p in PLATFORMS)
_BY_KEY: Mapping[str, Platform] = MappingProxyType({p.key: p for p in PLATFORMS})


def platform(key: str) -> Platform:
    """The platform named ``key`` (``linux_x86_64``); UnsupportedPlatform if there is none."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise UnsupportedPlatform(
            _("{key!r} is not a platform tfenv knows; known: {known}").format(
                key=key, known=", ".join(PLATFORM_KEYS)
            )
        ) from None


@dataclass(frozen=True, eq=False)
class System:
    """An operating system as a user names it, and whose driver and builds it takes."""

    name: Literal["linux", "wsl2", "windows", "macos"]
    title: str  # "Linux", "WSL2", "native Windows", "macOS"
    driver_os: Optional[DriverOs]  # whose NVIDIA driver tables apply (WSL2: Windows')
    build_os: Optional[DriverOs]  # whose TensorFlow build configuration (WSL2: Linux's)
    arches: Mapping[str, Platform]  # architecture -> the wheel platform it installs

    def __str__(self) -> str:
        return self.name

    # predicates, so that no code outside models compares a system's name
    @property
    def is_linux(self) -> bool:
        """Linux itself (not WSL2)."""
        return self.name == "linux"

    @property
    def is_wsl2(self) -> bool:
        return self.name == "wsl2"

    @property
    def is_windows(self) -> bool:
        """Native Windows (not WSL2)."""
        return self.name == "windows"

    @property
    def is_macos(self) -> bool:
        return self.name == "macos"

    @property
    def runs_linux(self) -> bool:
        """Linux or WSL2: Linux's files, programs, glibc and wheels."""
        return self.name in ("linux", "wsl2")


SYSTEMS: tuple[System, ...] = (
    System(
        "linux",
        OS_TITLES["linux"],
        "linux",
        "linux",
        MappingProxyType({"x86_64": LINUX_X86_64, "aarch64": LINUX_AARCH64}),
    ),
    # WSL2 installs the Linux wheels; the Windows driver serves the GPU
    System(
        "wsl2",
        OS_TITLES["wsl2"],
        "windows",
        "linux",
        MappingProxyType({"x86_64": LINUX_X86_64, "aarch64": LINUX_AARCH64}),
    ),
    System(
        "windows",
        N_("native Windows"),
        "windows",
        "windows",
        MappingProxyType({"x86_64": WINDOWS_X86_64}),
    ),
    System(
        "macos",
        OS_TITLES["macos"],
        None,
        None,
        MappingProxyType({"x86_64": MACOS_X86_64, "arm64": MACOS_ARM64}),
    ),
)
_SYSTEMS: Mapping[str, System] = MappingProxyType({s.name: s for s in SYSTEMS})


def system(name: str) -> System:
    try:
        return _SYSTEMS[name]
    except KeyError:
        raise UnsupportedPlatform(
            _("{name!r} is not an operating system tfenv knows; known: {known}").format(
                name=name, known=", ".join(s.name for s in SYSTEMS)
            )
        ) from None


def known_system(name: object) -> Optional[System]:
    """The system ``name`` names, or None where it names none (absent, or not a name)."""
    return _SYSTEMS.get(name) if isinstance(name, str) else None


def normalize_arch(system_name: str, arch: str) -> str:
    """One spelling per architecture: Apple says arm64, Linux and Windows say aarch64."""
    if arch in ("arm64", "aarch64"):
        return "arm64" if system_name == "macos" else "aarch64"
    return arch


@dataclass(frozen=True)
class Machine:
    """A system on an architecture, and the wheel platform it installs."""

    system: System
    platform: Platform

    @property
    def arch(self) -> str:
        return self.platform.arch


def machine(system_name: str, arch: str) -> Machine:
    """The machine ``system_name`` on ``arch``; UnsupportedPlatform for a pair without wheels."""
    sys_ = system(system_name)
    norm = normalize_arch(system_name, arch)
    found = sys_.arches.get(norm)
    if found is None:
        pairs = ", ".join(f"{s.name}/{a}" for s in SYSTEMS for a in s.arches)
        raise UnsupportedPlatform(
            _(
                "TensorFlow publishes no wheels for {system} on {arch}; tfenv plans for {pairs}"
            ).format(system=_(sys_.title), arch=norm, pairs=pairs)
        )
    return Machine(sys_, found)


def platform_of(system_name: str, arch: str) -> Optional[Platform]:
    """The wheel platform of ``system_name`` on ``arch``, or None for a pair without wheels."""
    try:
        return machine(system_name, arch).platform
    except UnsupportedPlatform:
        return None
