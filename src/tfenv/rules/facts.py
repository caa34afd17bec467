"""The facts of the target that rules report a failure against ("but this machine's ...")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from tfenv.models.target import Target

__all__ = ["driver_fact", "gpu_fact", "platform_fact"]


def platform_fact(target: Target) -> Optional[str]:
    """ "the target is Linux on aarch64": what rules about wheels and builds report."""
    return f"the target is {target.system.title} on {target.arch}"


def driver_fact(target: Target) -> Optional[str]:
    """ "this machine's driver is 470.82.01": what the driver rules report."""
    return f"this machine's driver is {target.driver}" if target.driver else None


def gpu_fact(target: Target) -> Optional[str]:
    """ "RTX 3060 has compute capability 8.6": what rules about GPU code report."""
    if target.cc is None:
        return None
    return f"{target.gpu_name or 'the GPU'} has compute capability {target.cc}"
