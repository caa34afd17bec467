"""The knowledge base's platform name for a host (``linux_x86_64``, ``windows_x86_64`` ...)."""

from __future__ import annotations

from typing import Optional

__all__ = ["platform_of"]


def platform_of(os_kind: str, arch: str) -> Optional[str]:
    """``linux``/``wsl2`` + ``x86_64`` -> ``linux_x86_64``; None for a pair the KB lacks."""
    from tfenv.kb.tensorflow import PLATFORMS
    from tfenv.resolver.target import Target

    platform = Target(os=os_kind, arch=arch).platform
    return platform if platform in PLATFORMS else None
