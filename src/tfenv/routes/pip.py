"""``pip``: ``tensorflow[and-cuda]``: TensorFlow and the CUDA/cuDNN libraries as wheels.

Which CUDA wheels the plan pins follows the CUDA-library preference
(:mod:`tfenv.kb.cuda_wheels`): the build versions by default. Where the extra gives
ranges (2.20+) the pins are named on the install line so that pip cannot take newer
ones; where an optional package (TensorRT) has no wheel for the Python, the plan installs
TensorFlow and the extra's CUDA wheels one by one without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _, ngettext
from tfenv.kb.cuda_wheels import CudaWheels, Policy, cuda_wheels
from tfenv.models.sentence import Sentence, said
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.kb.releases import TfOption

__all__ = ["PipRoute", "pin_reasons", "wheels_for"]


def wheels_for(where: Where, option: TfOption, python: Optional[Version]) -> Optional[CudaWheels]:
    """The CUDA wheels the extra of ``option`` installs here, for ``python`` (None: the
    newest Python the release serves)."""
    if option.wheels is None:
        return None
    py = python or (option.pythons[0] if option.pythons else None)
    if py is None:
        return None
    t = where.target
    policy: Policy = "newest" if where.cuda_libs == "newest" else "build"
    return cuda_wheels(where.kb, option.wheels, str(py), policy, t.cc, t.driver)


class PipRoute(Route):
    name = "pip"
    why = N_(
        "pip installs TensorFlow and the CUDA/cuDNN libraries as wheels "
        "(tensorflow[and-cuda]); nothing to install system-wide"
    )
    accelerators = frozenset({"cuda"})
    managers = ("auto", "pip")
    remedies = frozenset({"pin-cuda-wheels"})
    emits = ("requirements", "activation-wheels")

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        if not where.target.platform.is_linux:
            return _("the CUDA wheels of tensorflow[and-cuda] are for Linux (and WSL2) only")
        if option.and_cuda_problem:
            return option.and_cuda_problem.text()
        found = wheels_for(where, option, where.target.python)
        if found is None:
            return _("tensorflow {version} has no and-cuda extra").format(version=option.version)
        if found.problem is None:
            return _later_cudnn_problem(where, option, found)
        return found.problem

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        opt = choice.option
        extra = f"tensorflow[and-cuda]=={opt.version}"
        found = wheels_for(where, opt, choice.python)
        if found is None or not found.explicit:
            pip = (extra, *choice.runtime)
            return Delivery(
                choice.python,
                choice.cuda,
                choice.cudnn,
                Packages(pip=pip, commands=(pip_install(*pip, shell=shell_of(where)),)),
            )
        pins = tuple(str(p) for p in found.pins)
        pip = (f"{opt.package}=={opt.version}", *pins) if found.dropped else (extra, *pins)
        pip += choice.runtime
        cuda, cudnn = choice.cuda, choice.cudnn
        if found.policy == "newest":  # the plan names what it installs, not the build
            cuda = _series(where, found, "cuda-runtime") or cuda
            cudnn = _series(where, found, "cudnn") or cudnn
        return Delivery(
            choice.python,
            cuda,
            cudnn,
            Packages(pip=pip, commands=(pip_install(*pip, shell=shell_of(where)),)),
            reasons=pin_reasons(opt, choice, found),
            remedies=self.remedies,
        )


def _words(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _series(where: Where, found: CudaWheels, component: str) -> Optional[Version]:
    """The X.Y of the pinned wheel of ``component`` (its version is that component's)."""
    from packaging.version import Version

    facts = where.kb.and_cuda
    pin = next((p for p in found.pins if facts.component(p.name) == component), None)
    return None if pin is None else Version(f"{pin.version.major}.{pin.version.minor}")


def pin_reasons(opt: TfOption, choice: Choice, found: CudaWheels) -> tuple[Sentence, ...]:
    """Why the plan names the CUDA wheels it does (the container route's CUDA base
    images install them the same way)."""
    out: list[Sentence] = []
    if found.dropped:
        missing = found.missing or found.dropped
        platform = opt.wheels.platform if opt.wheels else _("this platform")
        left = ", ".join(found.dropped)
        template = ngettext(
            "tensorflow[and-cuda]=={version} cannot be installed here: its extra pins "
            "{missing}, which has no installable wheel ({platform}, Python {python}). The "
            "plan installs TensorFlow and the extra's CUDA wheels one by one without "
            "TensorRT ({left}), which TensorFlow loads only when present (TF-TRT stays off).",
            "tensorflow[and-cuda]=={version} cannot be installed here: its extra pins "
            "{missing}, which have no installable wheel ({platform}, Python {python}). The "
            "plan installs TensorFlow and the extra's CUDA wheels one by one without "
            "TensorRT ({left}), which TensorFlow loads only when present (TF-TRT stays off).",
            len(missing),
        )
        out.append(
            said(
                "cuda-wheels-dropped",
                template,
                version=opt.version,
                missing=_words(missing),
                platform=platform,
                python=choice.python,
                left=left,
            )
        )
    if found.ranged and found.policy == "build":
        out.append(
            said(
                "cuda-wheels-build",
                _(
                    "CUDA wheels pinned to what TensorFlow {version} was built with (its "
                    "and-cuda extra gives ranges, and pip would take the newest): {pins} and the "
                    "rest of the extra at its floors (--cuda-libs newest takes the newest the "
                    "GPU and driver run)."
                ),
                version=opt.version,
                pins=_main_pins(found),
            )
        )
    elif found.ranged:
        caps = "; ".join(found.caps) or _("no cap applied")
        out.append(
            said(
                "cuda-wheels-newest",
                _(
                    "CUDA wheels: the newest the and-cuda extra allows that the GPU and driver "
                    "run ({caps}): {pins}."
                ),
                caps=caps,
                pins=_main_pins(found),
            )
        )
    return tuple(out)


def _main_pins(found: CudaWheels) -> str:
    """The runtime and cuDNN wheels among the pins: the ones a reason names."""
    return ", ".join(str(p) for p in found.pins if "cudnn" in p.name or "runtime" in p.name)


def _later_cudnn_problem(where: Where, option: TfOption, found: CudaWheels) -> Optional[str]:
    """The extra's pins fix the cuDNN: where it has no code for the GPU and only a later
    cuDNN of its major has (rules/cudnn_arch.later_cudnn), this route cannot install the
    release (the conda+pip and system routes can choose the later cuDNN)."""
    from tfenv.rules.cudnn_arch import later_cudnn

    cb = option.build.for_machine(where.target.os) if option.build else None
    if cb is None or not where.target.has_nvidia_gpu:
        return None
    cudnn = _series(where, found, "cudnn") or cb.cudnn
    cuda = _series(where, found, "cuda-runtime") or cb.cuda
    later = later_cudnn(where.kb, cudnn, cuda, where.target.cc)
    if later is None:
        return None
    return _(
        "its and-cuda extra pins cuDNN {cudnn}, which has no code for compute capability {cc}; "
        "cuDNN {newer} has"
    ).format(cudnn=cudnn, cc=where.target.cc, newer=later.newer)
