"""Build the :class:`Plan` from a resolution, with a reason for every choice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.kb.cuda import format_driver
from tfenv.resolver.compute import GpuCode
from tfenv.resolver.packages import route_packages
from tfenv.resolver.plan import Plan
from tfenv.resolver.routes import (
    ContainerImage,
    and_cuda_problem,
    conda_variant,
    container_image,
    for_manager,
    recommended,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tfenv.resolver.factory import Factory
    from tfenv.resolver.model import Candidate
    from tfenv.resolver.releases import TfOption

__all__ = ["make_plan"]

_ROUTE_WHY = {
    "pip": "pip installs TensorFlow and the CUDA/cuDNN libraries as wheels "
    "(tensorflow[and-cuda]); nothing to install system-wide",
    "conda": "a conda-forge TensorFlow CUDA build, pinned by build string and cuda-version",
    "conda+pip": "conda provides cudatoolkit and cuDNN, pip provides TensorFlow",
    "system": "TensorFlow from pip, CUDA and cuDNN installed system-wide by hand",
    "metal": "TensorFlow with Apple's tensorflow-metal plug-in for the Apple GPU",
    "cpu": "TensorFlow from pip, running on the CPU",
    "container": "TensorFlow in a container image that carries CUDA and cuDNN; the host "
    "needs only the NVIDIA driver and the NVIDIA Container Toolkit",
}


def make_plan(f: Factory, mapping: Mapping[str, Candidate]) -> Plan:
    opt: TfOption = mapping["tensorflow"].data[0]
    accel: str = mapping["tensorflow"].data[1]
    python = mapping["python"].data if "python" in mapping else None
    cuda: Optional[Version] = mapping["cuda"].data if "cuda" in mapping else None
    cudnn: Optional[Version] = mapping["cudnn"].data if "cudnn" in mapping else None
    route: str = mapping["route"].key
    reasons, warnings = [_tf_reason(f, opt)], []
    if route == "conda" and cuda is not None:
        # conda-forge builds its own CUDA variants; the plan pins one the driver supports
        cuda, cudnn = conda_variant(f.kb, opt.version, f.target), None
        reasons.append(
            f"conda-forge's TensorFlow {opt.version} CUDA {cuda} variant: the newest "
            "variant this driver supports; conda-forge picks the matching cuDNN."
        )
    image = container_image(f.kb, opt, f.target) if route == "container" else None
    if route == "container":
        python = image.python if image else None  # the image's own Python
        if image is not None and image.cuda is not None:
            cuda, cudnn = image.cuda, image.cudnn
    else:
        reasons.append(_python_reason(f, opt, python))
    code: Optional[GpuCode] = None
    floor: Optional[Version] = None
    if accel == "cuda":
        floor, rule = (
            f.kb.cuda.driver_floor(cuda, f.target.driver_os) if cuda else (None, "unknown")
        )
        if route != "conda":
            reasons += _cuda_reasons(f, opt, cuda, cudnn, floor, rule)
        code = f.gpu_code_for(opt)
        reasons.append(_gpu_reason(f, code))
        warnings += _cuda_warnings(f, cuda, floor, code)
    reasons.append(f"Route {route}: {_ROUTE_WHY[route]}.")
    if accel == "cuda":
        reasons += _route_not_taken(f, opt, route)
    warnings += [
        f"{i.summary} ({i.provenance.sources[0]})" for i in opt.issues if i.concerns(route)
    ]
    if route == "metal" and f.kb.platforms.macos.metal.tensorflow_pairs is None:
        warnings.append(
            "Which tensorflow-metal release Apple pairs with each TensorFlow release is not "
            "recorded (unknown): the newest plug-in on the index is used, and it pins no "
            "TensorFlow version; check Apple's tensorflow-metal page before relying on the GPU."
        )
    host: tuple[str, ...] = ()
    if image is not None:
        reasons += _container_reasons(f, opt, image, cuda)
        warnings += _container_warnings(f, image)
        host = _container_host(f, floor)
        reasons.append("The host needs: " + "; ".join(host) + ".")
    if (
        route != "container"
        and f.target.glibc is None
        and opt.wheels
        and opt.wheels.glibc
        and f.target.platform.startswith("linux")
    ):
        warnings.append(f"glibc not known: the wheels need glibc >= {opt.wheels.glibc}.")
    pk = route_packages(f.kb, route, opt, python, f.target, cuda, cudnn)
    return Plan(
        tensorflow=str(opt.version),
        package=opt.package,
        python=str(python) if python else None,
        accelerator=accel,
        route=route,
        cuda=str(cuda) if cuda else None,
        cudnn=str(cudnn) if cudnn else None,
        min_driver=format_driver(floor) if floor else None,
        gpu_code=_code_text(code),
        pip=pk.pip,
        conda=pk.conda,
        channels=pk.channels,
        env=pk.env,
        commands=pk.commands,
        warnings=tuple(warnings),
        reasons=tuple(reasons),
        image=image.image if image else None,
        host=host,
    )


def _container_reasons(
    f: Factory, opt: TfOption, image: ContainerImage, cuda: Optional[Version]
) -> list[str]:
    which = "NVIDIA's NGC TensorFlow container" if image.family == "ngc" else "the official image"
    out = [f"Image {image.image}: {which} for TensorFlow {opt.version} (source: {image.source})."]
    if image.cuda is None:
        out.append(
            f"CUDA inside the image: not recorded; the host driver floor is taken from CUDA "
            f"{cuda or 'unknown'}, which TensorFlow {opt.version} is built with."
        )
    else:
        out.append(f"CUDA {image.cuda} and cuDNN {image.cudnn or 'unknown'} inside the image.")
    py = f"Python {image.python}" if image.python else "its Python (version not recorded)"
    out.append(f"Python: the image's own, {py}; the host's Python does not matter.")
    return out


def _container_warnings(f: Factory, image: ContainerImage) -> list[str]:
    out = []
    t = f.target
    if image.family == "ngc" and t.driver is not None and image.min_driver is not None:
        out.append(
            f"Driver {format_driver(t.driver)} is below what {image.image} requires "
            f"({format_driver(image.min_driver)}): it runs only through CUDA forward "
            "compatibility, which NVIDIA supports on data-center GPUs under Linux; "
            "upgrade the driver for any other GPU."
        )
    if t.os == "wsl2":
        out.append(
            "On Windows the container runs through WSL2: use Docker Desktop with the WSL2 "
            "backend (or Docker Engine with the NVIDIA Container Toolkit inside the WSL2 "
            "distribution); the Windows NVIDIA driver serves the GPU."
        )
    return out


def _container_host(f: Factory, floor: Optional[Version]) -> tuple[str, ...]:
    needs = list(f.kb.containers.host.for_os("linux" if f.target.os == "linux" else "wsl2"))
    if floor is not None:
        which = "Windows " if f.target.os != "linux" else ""
        needs.insert(0, f"{which}NVIDIA driver >= {format_driver(floor)}")
    return tuple(needs)


def _tf_reason(f: Factory, opt: TfOption) -> str:
    text = f"TensorFlow {opt.version}: the newest release matching '{f.request.tf_text}' "
    text += "that fits this machine"
    newer_broken = [
        c.data[0]
        for c in f.candidates("tensorflow")
        if c.data[0].broken
        and c.data[0].version > opt.version
        and f.request.tf.contains(c.data[0].version)
    ]
    if newer_broken:
        skipped = sorted({str(o.version) for o in newer_broken})
        text += f" (skipped as known-broken: {', '.join(skipped)})"
    return text + "."


def _python_reason(f: Factory, opt: TfOption, python: Optional[Version]) -> str:
    if python is None:
        return "Python: not constrained."
    if f.target.python is not None:
        how = "detected" if "python" in f.target.detected else "given"
        return f"Python {python}: {how}; TensorFlow {opt.version} has wheels for it."
    return f"Python {python}: the newest Python TensorFlow {opt.version} has wheels for here."


def _cuda_reasons(
    f: Factory,
    opt: TfOption,
    cuda: Optional[Version],
    cudnn: Optional[Version],
    floor: Optional[Version],
    rule: str,
) -> list[str]:
    cb = opt.build.for_machine(f.target.os) if opt.build else None
    src = f" (source: {cb.provenance.sources[0]})" if cb else ""
    out = [
        f"CUDA {cuda or 'unknown'} and cuDNN {cudnn or 'unknown'}: what TensorFlow "
        f"{opt.version} was built and tested with{src}."
    ]
    if floor is not None:
        have = f"; this machine has {format_driver(f.target.driver)}" if f.target.driver else ""
        wsl = " (WSL2 uses the Windows driver)" if f.target.os == "wsl2" else ""
        out.append(f"Driver >= {format_driver(floor)}: {rule}{wsl}{have}.")
    return out


def _gpu_reason(f: Factory, code: Optional[GpuCode]) -> str:
    name = f.target.gpu_name or "The GPU"
    if code is None:
        return f"{name}: no GPU code information."
    text = _code_text(code)
    return f"{name} (compute capability {f.target.cc}) runs TensorFlow's kernels {text}."


def _code_text(code: Optional[GpuCode]) -> Optional[str]:
    if code is None:
        return None
    arch = f"{code.via.major}{code.via.minor}"
    if code.mode == "native":
        return f"natively (sm_{arch})"
    return f"by PTX JIT (compute_{arch})"


def _cuda_warnings(
    f: Factory,
    cuda: Optional[Version],
    floor: Optional[Version],
    code: Optional[GpuCode],
) -> list[str]:
    out = []
    t = f.target
    if t.driver is None and floor is not None:
        out.append(
            "The driver version is not known: this plan needs an NVIDIA driver >= "
            f"{format_driver(floor)}."
        )
    toolkit = f.kb.cuda.toolkit(cuda) if cuda else None
    own = toolkit.min_driver(t.driver_os) if toolkit else None
    if t.driver is not None and own is not None and t.driver < own:
        out.append(
            f"Driver {format_driver(t.driver)} is older than CUDA {cuda}'s own minimum "
            f"({format_driver(own)}): it runs through "
            "minor-version compatibility, but PTX JIT and a newer ptxas (XLA) need a driver "
            f">= {format_driver(own)}; upgrade the driver if kernels fail to load."
        )
    if code is not None and code.mode == "ptx":
        out.append(
            f"No native code for compute capability {t.cc}: kernels are JIT-compiled from PTX on "
            "first use (slow first start, cached afterwards in ~/.nv/ComputeCache)."
        )
    if (
        toolkit is not None
        and toolkit.cc_max is not None
        and t.cc is not None
        and t.cc > toolkit.cc_max
    ):
        out.append(
            f"CUDA {cuda} predates compute capability {t.cc} (it targets up to {toolkit.cc_max}): "
            "its libraries run on this GPU only through PTX JIT, if at all."
        )
    return out


def _route_not_taken(f: Factory, opt: TfOption, route: str) -> list[str]:
    """Say why the route the TensorFlow docs recommend was not used, when it was not."""
    wanted = recommended(f.kb, opt.version, f.target)
    if not wanted or wanted[0] == route or wanted[0] not in for_manager(f.request.manager):
        return []
    if wanted[0] == "pip":
        problem = and_cuda_problem(f.kb, opt, f.target.platform)
        if problem:
            return [f"Route pip (what the TensorFlow docs recommend) is not possible: {problem}."]
    return [f"Route {wanted[0]} (what the TensorFlow docs recommend) does not fit here."]
