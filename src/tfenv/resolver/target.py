"""The machine and the request a plan is made for, normalised and validated."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfenv.kb.cuda import format_driver

__all__ = ["Request", "Target"]


_SUBDIRS = {
    "linux_x86_64": "linux-64",
    "linux_aarch64": "linux-aarch64",
    "windows_x86_64": "win-64",
    "windows_aarch64": "win-arm64",
    "macos_x86_64": "osx-64",
    "macos_arm64": "osx-arm64",
}


@dataclass(frozen=True)
class Target:
    """Facts about the machine to plan for. ``None`` means not known."""

    os: str
    arch: str
    glibc: Optional[Version] = None
    python: Optional[Version] = None  # X.Y the plan must use; None lets the solver choose
    cc: Optional[Version] = None  # compute capability of the GPU to plan for
    gpu_name: Optional[str] = None
    driver: Optional[Version] = None
    # which facts were detected on this machine rather than given (for explanations)
    detected: frozenset[str] = field(default_factory=frozenset)
    notes: tuple[str, ...] = ()  # what detection or the host file said (e.g. no usable driver)

    @property
    def has_nvidia_gpu(self) -> bool:
        return self.cc is not None

    @property
    def platform(self) -> str:
        """The wheel platform key: ``linux_x86_64``, ``windows_x86_64``, ``macos_arm64``..."""
        os_part = "linux" if self.os == "wsl2" else self.os
        arch = "arm64" if (self.os == "macos" and self.arch == "aarch64") else self.arch
        if self.os != "macos" and arch == "arm64":
            arch = "aarch64"
        return f"{os_part}_{arch}"

    @property
    def conda_subdir(self) -> str:
        return _SUBDIRS[self.platform]

    @property
    def driver_os(self) -> Literal["linux", "windows"]:
        """Whose driver tables apply: WSL2 uses the Windows driver."""
        return "linux" if self.os == "linux" else "windows"

    def describe(self) -> str:
        parts = [{"wsl2": "WSL2", "macos": "macOS"}.get(self.os, self.os.capitalize()), self.arch]
        if self.python:
            parts.append(f"Python {self.python}")
        if self.gpu_name:
            parts.append(f"{self.gpu_name} (compute capability {self.cc})")
        elif self.cc:
            parts.append(f"GPU of compute capability {self.cc}")
        else:
            parts.append("no NVIDIA GPU")
        if self.driver:
            parts.append(f"driver {format_driver(self.driver)}")
        return ", ".join(parts)


@dataclass(frozen=True)
class Request:
    """What the user asks for."""

    tf: SpecifierSet = field(default_factory=SpecifierSet)
    tf_text: str = "latest"
    manager: str = "auto"
    allow_cpu: bool = False
    no_gpu: bool = False
    pre: bool = False

    def allows(self, version: Version, yanked: bool = False) -> bool:
        """Whether ``version`` answers the request.

        Pre-releases only with ``pre`` or when the specifier names one (``==2.22.0rc0``);
        yanked releases only when pinned exactly.
        """
        spec = self.tf
        if yanked and not any(
            s.operator == "===" or (s.operator == "==" and "*" not in s.version) for s in spec
        ):
            return False
        pre = self.pre or any(_names_prerelease(s.version) for s in spec)
        return spec.contains(version, prereleases=pre)


def _names_prerelease(text: str) -> bool:
    try:
        return Version(text).is_prerelease
    except InvalidVersion:  # wildcards such as 2.15.*
        return False
