"""``metal``: TensorFlow with Apple's tensorflow-metal plug-in for the Apple GPU."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.kb.metal import metal_plugin
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install

if TYPE_CHECKING:
    from tfenv.kb.releases import TfOption

__all__ = ["MetalRoute"]


class MetalRoute(Route):
    name = "metal"
    why = "TensorFlow with Apple's tensorflow-metal plug-in for the Apple GPU"
    accelerators = frozenset({"metal"})
    managers = ("auto", "pip")
    emits = ("requirements",)

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        if metal_plugin(where.kb, option.version) is None:
            return f"no tensorflow-metal release is paired with TensorFlow {option.version}"
        return None

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        opt = choice.option
        pin = f"{opt.package}=={opt.version}"
        plugin = metal_plugin(where.kb, opt.version)
        metal = f"tensorflow-metal=={plugin.version}" if plugin else "tensorflow-metal"
        warnings: tuple[str, ...] = ()
        if where.kb.platforms.macos.metal.tensorflow_pairs is None:
            warnings = (
                "Which tensorflow-metal release Apple pairs with each TensorFlow release is "
                "not recorded (unknown): the newest plug-in on the index is used, and it pins "
                "no TensorFlow version; check Apple's tensorflow-metal page before relying on "
                "the GPU.",
            )
        packages = Packages(pip=(pin, metal), commands=(pip_install(pin, metal),))
        return Delivery(choice.python, None, None, packages, warnings=warnings)
