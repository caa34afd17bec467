"""``cpu``: TensorFlow from pip, running on the CPU."""

from __future__ import annotations

from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install

__all__ = ["CpuRoute"]


class CpuRoute(Route):
    name = "cpu"
    why = "TensorFlow from pip, running on the CPU"
    accelerators = frozenset({"cpu"})
    managers = ("auto", "pip")
    emits = ("requirements",)

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        pin = f"{choice.option.package}=={choice.option.version}"
        packages = Packages(pip=(pin,), commands=(pip_install(pin),))
        return Delivery(choice.python, None, None, packages)
