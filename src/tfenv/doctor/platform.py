"""The knowledge base's platform name for a host (``linux_x86_64``, ``windows_x86_64`` ...)."""

from __future__ import annotations

from typing import Literal, Optional

__all__ = ["cuda_os", "platform_of"]


def platform_of(os_kind: str, arch: str) -> Optional[str]:
    """``linux``/``wsl2`` + ``x86_64`` -> ``linux_x86_64``; None for a pair the KB lacks."""
    if os_kind in ("linux", "wsl2"):
        return {"x86_64": "linux_x86_64", "aarch64": "linux_aarch64"}.get(arch)
    if os_kind == "windows":
        return "windows_x86_64" if arch == "x86_64" else None
    if os_kind == "macos":
        return {"x86_64": "macos_x86_64", "arm64": "macos_arm64"}.get(arch)
    return None


def cuda_os(os_kind: str) -> Optional[Literal["linux", "windows"]]:
    """The OS whose CUDA build and driver floor apply (WSL2 runs Linux wheels)."""
    if os_kind in ("linux", "wsl2"):
        return "linux"
    if os_kind == "windows":
        return "windows"
    return None
