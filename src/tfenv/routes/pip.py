"""``pip``: ``tensorflow[and-cuda]``: TensorFlow and the CUDA/cuDNN libraries as wheels."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install

if TYPE_CHECKING:
    from tfenv.kb.releases import TfOption

__all__ = ["PipRoute"]


class PipRoute(Route):
    name = "pip"
    why = (
        "pip installs TensorFlow and the CUDA/cuDNN libraries as wheels "
        "(tensorflow[and-cuda]); nothing to install system-wide"
    )
    accelerators = frozenset({"cuda"})
    managers = ("auto", "pip")
    emits = ("requirements", "activation-wheels")

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        if not where.target.platform.is_linux:
            return "the CUDA wheels of tensorflow[and-cuda] are for Linux (and WSL2) only"
        return option.and_cuda_problem

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        spec = f"tensorflow[and-cuda]=={choice.option.version}"
        packages = Packages(pip=(spec,), commands=(pip_install(spec),))
        return Delivery(choice.python, choice.cuda, choice.cudnn, packages)
