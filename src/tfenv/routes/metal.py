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
    why = N_("TensorFlow with Apple's tensorflow-metal plug-in for the Mac's GPU")
    accelerators = frozenset({"metal"})
    managers = ("auto", "pip")
    emits = ("requirements",)

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        from tfenv.kb.metal import metal_plugin  # imported for Mac targets only

        if metal_plugin(where.kb, option.version, where.target.platform.key) is None:
            return _("no tensorflow-metal release is paired with TensorFlow {version}").format(
                version=option.version
            )
        return None

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        from tfenv.kb.metal import metal_plugin

        opt = choice.option
        pin = f"{opt.package}=={opt.version}"
        plugin = metal_plugin(where.kb, opt.version, where.target.platform.key)
        if plugin is None:  # problem() said so before the solver picked this route
            return Delivery(choice.python, None, None, Packages(pip=(pin, *choice.runtime)))
        metal = f"tensorflow-metal=={plugin.version}"
        pair = plugin.pair
        basis = _("Apple's table") if pair.status == "established" else _("inferred")
        reasons = (
            *_intel_gpu(where),
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
        warnings: tuple[Sentence, ...] = _intel_pairing(where, plugin.version, pair.tensorflow_text)
        if pair.status != "established":
            warnings += (
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
    platform = where.target.platform
    routes = where.kb.platforms.routes_for(opt.version, platform.key)
    found = [r for r in routes if r.route == "metal"]
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
    if deps is not None and deps.subdir != platform.conda_subdir:
        deps = None  # Apple's conda package is for Apple silicon only
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
    """The oldest macOS the plug-in's wheel for the Mac is tagged for (the index data)."""
    release = where.kb.index.release("tensorflow-metal", version)
    wheels = release.wheelset(where.target.platform.key) if release is not None else None
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


def _intel_gpu(where: Where) -> tuple[Sentence, ...]:
    """On an Intel Mac, the GPU the plug-in runs on, and Apple's words that say it may."""
    from tfenv.kb.metal import PLATFORM

    gpus = where.kb.metal.gpus
    if where.target.platform.key == PLATFORM or gpus is None:
        return ()
    return (
        said(
            "metal-gpu",
            _(
                "{gpu}: an AMD GPU, which Apple's tensorflow-metal runs on in an Intel Mac "
                "('{requirement}', source: {source})."
            ),
            gpu=where.target.gpu_name or _("the GPU"),
            requirement=gpus.requirement,
            source=gpus.provenance.sources[0],
        ),
    )


def _intel_pairing(where: Where, plugin: Version, tensorflow: str) -> tuple[Sentence, ...]:
    """Apple's pairing table names no architecture, and tfenv checked the plug-ins'
    libraries against TensorFlow's on arm64 only (metal.yaml): say so on an Intel Mac."""
    from tfenv.kb.metal import PLATFORM

    if where.target.platform.key == PLATFORM:
        return ()
    return (
        said(
            "metal-intel",
            _(
                "tensorflow-metal {plugin} with TensorFlow {tensorflow} on an Intel Mac follows "
                "Apple's table, which names no architecture: tfenv checked the plug-ins' "
                "libraries against TensorFlow's on Apple silicon only. If `import tensorflow` "
                "fails in libmetal_plugin.dylib, 'tfenv explain' reads the message."
            ),
            plugin=plugin,
            tensorflow=tensorflow,
        ),
    )
