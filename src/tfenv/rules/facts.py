"""The facts of the target that rules report a failure against ("but this machine's ...")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.models.target import Target

__all__ = ["driver_fact", "gpu_fact", "platform_fact"]


def platform_fact(target: Target) -> Optional[str]:
    """ "the target is Linux on aarch64": what rules about wheels and builds report."""
    return _("the target is {system} on {arch}").format(
        system=_(target.system.title), arch=target.arch
    )


def driver_fact(target: Target) -> Optional[str]:
    """ "this machine's driver is 470.82.01": what the driver rules report."""
    if not target.driver:
        return None
    return _("this machine's driver is {driver}").format(driver=target.driver)


def gpu_fact(target: Target) -> Optional[str]:
    """ "RTX 3060 has compute capability 8.6": what rules about GPU code report."""
    if target.cc is None:
        return None
    if target.gpu_name:
        return _("{gpu} has compute capability {cc}").format(gpu=target.gpu_name, cc=target.cc)
    return _("the GPU has compute capability {cc}").format(cc=target.cc)
