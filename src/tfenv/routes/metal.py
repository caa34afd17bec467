"""``metal``: TensorFlow with Apple's tensorflow-metal plug-in for the Apple GPU."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.kb.prose import prose
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of

if TYPE_CHECKING:
    from tfenv.kb.releases import TfOption

__all__ = ["MetalRoute"]


class MetalRoute(Route):
    name = "metal"
    why = N_("TensorFlow with Apple's tensorflow-metal plug-in for the Apple GPU")
    accelerators = frozenset({"metal"})
    managers = ("auto", "pip")
    emits = ("requirements",)

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        from tfenv.kb.metal import metal_plugin  # imported for Apple silicon targets only

        if metal_plugin(where.kb, option.version) is None:
            return _("no tensorflow-metal release is paired with TensorFlow {version}").format(
                version=option.version
            )
        return None

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        from tfenv.kb.metal import metal_plugin

        opt = choice.option
        pin = f"{opt.package}=={opt.version}"
        plugin = metal_plugin(where.kb, opt.version)
        if plugin is None:  # problem() said so before the solver picked this route
            return Delivery(choice.python, None, None, Packages(pip=(pin, *choice.runtime)))
        metal = f"tensorflow-metal=={plugin.version}"
        pair = plugin.pair
        basis = _("Apple's table") if pair.status == "established" else _("inferred")
        reasons = (
            _(
                "tensorflow-metal {plugin}: the plug-in paired with TensorFlow {tensorflow} "
                "({basis}; source: {source})."
            ).format(
                plugin=plugin.version,
                tensorflow=pair.tensorflow_text,
                basis=basis,
                source=pair.provenance.sources[0],
            ),
        )
        warnings: tuple[str, ...] = ()
        if pair.status != "established":
            warnings = (
                _(
                    "The pairing of tensorflow-metal {plugin} with TensorFlow {tensorflow} is "
                    "inferred: {basis}. If `import tensorflow` fails in libmetal_plugin.dylib, "
                    "'tfenv explain' reads the message."
                ).format(
                    plugin=plugin.version,
                    tensorflow=pair.tensorflow_text,
                    basis=prose(pair, "basis"),
                ),
            )
        pip = (pin, metal, *choice.runtime)
        packages = Packages(pip=pip, commands=(pip_install(*pip, shell=shell_of(where)),))
        return Delivery(choice.python, None, None, packages, reasons, warnings)
