"""What one TensorFlow candidate needs from the rest of the stack."""

from __future__ import annotations

from typing import TYPE_CHECKING

from packaging.version import Version

from tfenv.kb.cuda import format_driver
from tfenv.resolver import routes
from tfenv.resolver.model import Candidate, Requirement, allowed

if TYPE_CHECKING:
    from tfenv.resolver.factory import Factory
    from tfenv.resolver.releases import TfOption

__all__ = ["tf_dependencies"]


def _never(_: Candidate) -> bool:
    return False


def tf_dependencies(f: Factory, c: Candidate) -> tuple[Requirement, ...]:
    opt, accel, platform = c.data
    reqs = [allowed("accelerator", (accel,), c.label, "accelerator")]
    reqs += _platform_deps(f, opt, platform)
    if opt.wheels is not None and not opt.stub_problem:
        reqs.append(_python_dep(f, opt, accel, platform))
    if accel == "cuda":
        reqs += _cuda_deps(f, opt, platform)
    elif accel == "metal":
        reqs += _metal_deps(f, opt)
    reqs.append(
        allowed(
            "route", routes.options(f, opt, accel), "an install route for it", "route", ordered=True
        )
    )
    return tuple(reqs)


def _platform_deps(f: Factory, opt: TfOption, platform: str) -> list[Requirement]:
    name = f"{opt.package} {opt.version}"
    if opt.wheels is None:
        return [
            Requirement(
                "platform", f"a platform {name} has wheels for (not {platform})", _never, "no-wheel"
            )
        ]
    if opt.stub_problem:
        return [
            Requirement("platform", f"an installable wheel: {opt.stub_problem}", _never, "stub")
        ]
    reqs = []
    floor = opt.wheels.glibc
    if floor is not None and f.target.glibc is not None:
        have = f.target.glibc
        reqs.append(
            Requirement(
                "platform",
                f"glibc >= {floor} (the manylinux floor of {name}'s wheels)",
                lambda _: have >= floor,
                "glibc",
            )
        )
    return reqs


def _python_dep(f: Factory, opt: TfOption, accel: str, platform: str) -> Requirement:
    pythons = opt.pythons
    if accel == "metal":
        plugin = routes.metal_plugin(f.kb, opt.version)
        if plugin is not None:
            pythons = tuple(p for p in pythons if p in plugin.pythons)
    keys = tuple(str(p) for p in pythons)
    return allowed(
        "python",
        keys,
        f"Python {_span(pythons)} (what {opt.package} {opt.version} has {platform} wheels for)",
        "python",
        ordered=True,
    )


def _cuda_deps(f: Factory, opt: TfOption, platform: str) -> list[Requirement]:
    build = opt.build
    name = f"TensorFlow {opt.version}"
    if build is None or platform not in build.gpu_platforms:
        where = ", ".join(sorted(build.gpu_platforms)) if build else "none known"
        return [
            Requirement(
                "platform",
                f"a platform with a CUDA build of {name} (CUDA builds: {where})",
                _never,
                "gpu-platform",
            )
        ]
    reqs: list[Requirement] = []
    cb = build.for_machine(f.target.os)
    if cb is not None and cb.cuda is not None:
        cuda = cb.cuda
        reqs.append(
            allowed("cuda", (str(cuda),), f"CUDA {cuda} (what {name} is built with)", "cuda")
        )
        floor, rule = f.kb.cuda.driver_floor(cuda, f.target.driver_os)
        if floor is not None:
            reqs.append(
                Requirement(
                    "driver",
                    f"an NVIDIA driver >= {format_driver(floor)} ({rule})",
                    lambda d: d.data is None or d.data >= floor,
                    "driver",
                )
            )
    if cb is not None and cb.cudnn is not None:
        reqs.append(
            allowed(
                "cudnn", (str(cb.cudnn),), f"cuDNN {cb.cudnn} (what {name} is built with)", "cudnn"
            )
        )
    if build.compute is not None:
        code = f.gpu_code_text(opt)
        reqs.append(
            Requirement(
                "gpu",
                f"a GPU that {name}'s wheels have code for ({code})",
                lambda _: f.gpu_code_for(opt) is not None,
                "gpu-code",
            )
        )
    return reqs


def _metal_deps(f: Factory, opt: TfOption) -> list[Requirement]:
    plugin = routes.metal_plugin(f.kb, opt.version)
    if plugin is None:
        return [
            Requirement(
                "platform",
                f"a tensorflow-metal release for TensorFlow {opt.version}",
                _never,
                "metal",
            )
        ]
    return []


def _span(versions: tuple[Version, ...]) -> str:
    if not versions:
        return "(none)"
    lo, hi = min(versions), max(versions)
    return str(lo) if lo == hi else f"{lo}-{hi}"
