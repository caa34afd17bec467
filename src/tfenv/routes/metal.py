"""``metal``: TensorFlow with Apple's tensorflow-metal plug-in for the Apple GPU."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.kb.prose import prose
from tfenv.models.sentence import Sentence, said
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of

if TYPE_CHECKING:
    from packaging.version import Version

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
            *_own_build(where, opt),
            said(
                "metal-plugin",
                _(
                    "tensorflow-metal {plugin}: the plug-in paired with TensorFlow {tensorflow} "
                    "({basis}; source: {source})."
                ),
                plugin=plugin.version,
                tensorflow=pair.tensorflow_text,
                basis=basis,
                source=pair.provenance.sources[0],
            ),
            *_macos_floor(where, plugin.version),
        )
        warnings: tuple[Sentence, ...] = ()
        if pair.status != "established":
            warnings = (
                said(
                    "metal-inferred",
                    _(
                        "The pairing of tensorflow-metal {plugin} with TensorFlow {tensorflow} "
                        "is inferred: {basis}. If `import tensorflow` fails in "
                        "libmetal_plugin.dylib, 'tfenv explain' reads the message."
                    ),
                    plugin=plugin.version,
                    tensorflow=pair.tensorflow_text,
                    basis=prose(pair, "basis"),
                ),
            )
        pip = (pin, metal, *choice.runtime)
        packages = Packages(pip=pip, commands=(pip_install(*pip, shell=shell_of(where)),))
        return Delivery(choice.python, None, None, packages, reasons, warnings)


def _own_build(where: Where, opt: TfOption) -> tuple[Sentence, ...]:
    """Apple's tensorflow-macos where tensorflow has no macOS arm64 wheel (before 2.13):
    the platforms.yaml record that says so, with its source."""
    if opt.package == "tensorflow":
        return ()
    from tfenv.kb.metal import PLATFORM

    found = [r for r in where.kb.platforms.routes_for(opt.version, PLATFORM) if r.route == "metal"]
    if not found:
        return ()
    record = found[0]
    summary = prose(record, "summary").rstrip(".\u3002")
    source = record.provenance.sources[0]
    out = [
        said(
            "metal-package",
            _("{package} {version}: {summary} (source: {source})."),
            package=opt.package,
            version=opt.version,
            summary=summary,
            source=source,
        )
    ]
    deps = where.kb.metal.conda_deps
    version = deps.for_series(opt.version) if deps is not None else None
    if deps is not None and version is not None:
        out.append(
            said(
                "metal-conda-deps",
                _(
                    "In a conda environment (Miniforge), Apple's {package} {version} from the "
                    "'{channel}' channel ({subdir}) installs the dependencies first: "
                    "conda install -c {channel} {package}=={version}, then the pip line "
                    "(source: {source})."
                ),
                package=deps.package,
                version=version,
                channel=deps.channel,
                subdir=deps.subdir,
                source=deps.provenance.sources[0],
            )
        )
    return tuple(out)


def _macos_floor(where: Where, version: Version) -> tuple[Sentence, ...]:
    """The oldest macOS the plug-in's arm64 wheel is tagged for (the index data)."""
    from tfenv.kb.metal import PLATFORM

    release = where.kb.index.release("tensorflow-metal", version)
    wheels = release.wheelset(PLATFORM) if release is not None else None
    if wheels is None or wheels.macos is None:
        return ()
    return (
        said(
            "metal-macos",
            _(
                "macOS {macos} or later: what the tensorflow-metal {version} wheel is tagged "
                "for (pypi-simple:/tensorflow-metal/)."
            ),
            macos=wheels.macos,
            version=version,
        ),
    )
