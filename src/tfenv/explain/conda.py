"""Answers for conda and mamba solver failures, from the conda facts (``conda.yaml``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.explain.common import join, shell_command, shell_word, span, version_or_none
from tfenv.explain.context import Answer, Context
from tfenv.i18n import _
from tfenv.kb.prose import prose

if TYPE_CHECKING:
    from tfenv.kb.conda import CondaTfBuild, CondaTfVariant

__all__ = ["ANSWERS"]

_BUILD = re.compile(r"tensorflow-(?P<v>\d+\.\d+\.\d+)-cuda(?P<c>\d{2,3})py")


def _cuda_of(code: str) -> Version:
    """``102`` -> 10.2, ``112`` -> 11.2, ``129`` -> 12.9 (conda-forge's cuda{XY} build strings)."""
    return Version(f"{code[:-1]}.{code[-1]}")


def _conda_cuda(groups: Mapping[str, str], ctx: Context) -> Answer:
    """A CUDA build needs the __cuda virtual package, which conda sets only where it sees a
    driver: absent on a machine (or in a container build) without one."""
    vc = ctx.kb.conda.virtual_cuda
    facts = [
        _("{name} is a virtual package: {meaning}.").format(
            name=vc.name, meaning=prose(vc, "meaning").rstrip(".\u3002")
        )
    ]
    m = _BUILD.search(groups.get("conda_build", "")) or _BUILD.search(ctx.text)
    tf = version_or_none(m.group("v")) if m else None
    cuda = _cuda_of(m.group("c")) if m else None
    if tf is not None and cuda is not None:
        facts.append(
            _(
                "The solver picked a CUDA build of tensorflow {tf} (cuda{code}, CUDA {cuda}), "
                "which requires {name}; there was none: conda saw no NVIDIA driver. The driver "
                "is missing where conda ran, not too old."
            ).format(tf=tf, code=m.group("c") if m else "", cuda=cuda, name=vc.name)
        )
        build = ctx.kb.conda.conda_forge_build(tf)
        if build is not None:
            facts.append(_variants(build))
    driver = ctx.driver
    override = vc.override_env
    example = cuda or _newest_cuda(ctx)
    if driver is not None:
        top = ctx.kb.cuda.max_cuda_for_driver(driver)
        if top is not None:
            facts.append(
                _(
                    "This machine's driver {driver} supports CUDA {top}, so conda did not see it "
                    "where it solved (inside `docker build`, or a container started without "
                    "GPUs)."
                ).format(driver=driver, top=top)
            )
            example = top
        fix = _(
            "Where the driver is not visible (a Docker build, CI), tell conda the GPU "
            "machine's CUDA: {override}={example} conda install ...; or install the CPU "
            "build: {cpu}."
        )
    else:
        fix = _(
            "On a machine without an NVIDIA driver (a CI runner, a Docker build) tell conda "
            "the CUDA of the GPU machine the environment is for: {override}={example} conda "
            "install ... (nvidia-smi there shows 'CUDA Version'), or `tfenv lock`, which solves "
            "with the target's {name} without a GPU here; or install the CPU build: {cpu}."
        )
    cpu = shell_word(ctx, f"tensorflow={tf or '2.*'}=cpu*")
    return Answer(
        tuple(facts), fix.format(override=override, example=example, name=vc.name, cpu=cpu)
    )


def _newest_cuda(ctx: Context) -> str:
    """The CUDA of conda-forge's newest tensorflow CUDA build: an example for a machine the
    text does not describe ("X.Y" where conda.yaml records no CUDA build)."""
    build = ctx.kb.conda.conda_forge_build(ctx.kb.conda.tf_newest)
    return str(build.cuda[-1]) if build is not None and build.cuda else "X.Y"


def _variants(build: CondaTfBuild) -> str:
    cudas = ", ".join(str(c) for c in build.cuda) or _("none usable")
    cpu = join(list(build.cpu_subdirs), _("and")) or _("none")
    return _(
        "conda-forge's tensorflow {version}: CUDA builds for CUDA {cudas} (linux-64), "
        "CPU builds for {cpu}."
    ).format(version=build.version, cudas=cudas, cpu=cpu)


def _cudatoolkit(groups: Mapping[str, str], ctx: Context) -> Answer:
    """cudatoolkit ends with 11.8: CUDA 12 is packaged as cuda-version and split packages."""
    want = version_or_none(groups.get("ctk", "").rstrip(".*"))
    ct, cv = ctx.kb.conda.cudatoolkit, ctx.kb.conda.cuda_version
    facts = [
        _(
            "cudatoolkit stops at {last} on conda-forge (NVIDIA's channel: {nvidia_last}); "
            "CUDA 12 and later are split packages (cuda-cudart, libcublas, cuda-nvcc ...) "
            "selected by the cuda-version package."
        ).format(last=ct.last, nvidia_last=ct.nvidia_last or _("unknown")),
    ]
    m = ctx.machine
    platform = m.platform.key if m is not None else None
    if platform == "windows_x86_64" or (
        platform is None and ctx.hints.platform == "windows_x86_64"
    ):
        return Answer(tuple(facts + _windows_facts(ctx)), _windows_fix(ctx))
    if want is None:  # the catalog's patterns name the version; without one, its fix stands
        return Answer(tuple(facts))
    pick = _conda_tf(ctx, want)
    fix = _("Ask for cuda-version={version} instead of cudatoolkit").format(
        version=f"{want.major}.{want.minor}"
    )
    if pick is not None:
        version, variant = pick
        command = shell_command(
            ctx,
            [
                "conda",
                "install",
                "-c",
                "conda-forge",
                f"tensorflow={version}={variant.build_glob}",
                f"cuda-version={variant.cuda}",
            ],
        )
        fix = _(
            "{ask}; for TensorFlow, conda-forge's CUDA builds bring their own CUDA libraries: "
            "{command}"
        ).format(ask=fix, command=command)
    if m is not None and m.has_nvidia_gpu:
        from tfenv.models.target import Request
        from tfenv.rerun import line_for

        request = Request(manager="conda")
        res = ctx.solve(m, request)
        if res.plan is not None and _conda_only(res.plan.route):
            fix = _("{fix} (`{command}` for this machine: {packages})").format(
                fix=fix,
                packages=", ".join(res.plan.conda),
                command=line_for(m, request, res.plan.tensorflow),
            )
    if cv.versions and want not in cv.versions:
        facts.append(
            _("cuda-version has {versions}; there is no {want}.").format(
                versions=span(list(cv.versions)), want=want
            )
        )
    return Answer(tuple(facts), _("{fix}.").format(fix=fix))


def _conda_only(name: str) -> bool:
    """Whether route ``name`` installs everything with conda (no pip inside it)."""
    from tfenv import routes

    found = routes.route(name)
    return found.locker == "conda" and not found.pip_in_conda


def _conda_tf(ctx: Context, want: Version) -> Optional[tuple[Version, CondaTfVariant]]:
    """The newest conda-forge TensorFlow with a usable CUDA variant of ``want``'s major,
    the variant nearest ``want`` from below (else the lowest)."""
    for build in sorted(ctx.kb.conda.conda_forge_tensorflow, key=lambda b: b.version, reverse=True):
        same = [v for v in build.usable if v.cuda.major == want.major]
        if not same:
            continue
        below = [v for v in same if v.cuda <= want]
        variant = max(below, key=lambda v: v.cuda) if below else min(same, key=lambda v: v.cuda)
        return build.version, variant
    return None


def _windows_facts(ctx: Context) -> list[str]:
    from tfenv.explain.libraries import windows_gpu_end

    facts = []
    if not ctx.kb.conda.tf_windows_builds:
        facts.append(_("conda-forge builds no tensorflow for Windows (win-64) at all."))
    last = windows_gpu_end(ctx.kb)
    if last is not None and last.windows is not None:
        facts.append(
            _(
                "Native-Windows GPU support ended with TensorFlow {series} (CUDA {cuda}, "
                "cuDNN {cudnn})."
            ).format(series=last.series, cuda=last.windows.cuda, cudnn=last.windows.cudnn)
        )
    return facts


def _windows_fix(ctx: Context) -> str:
    from tfenv.explain.libraries import windows_gpu_end

    last = windows_gpu_end(ctx.kb)
    if last is not None and last.windows is not None:
        return _(
            "On Windows install TensorFlow with pip (it runs on the CPU) or use WSL2 for the "
            "GPU; for a native-Windows GPU, TensorFlow {series} with cudatoolkit={cuda} "
            "cudnn={cudnn} from conda-forge and tensorflow-gpu {series} from pip."
        ).format(series=last.series, cuda=last.windows.cuda, cudnn=last.windows.cudnn)
    return _("On Windows install TensorFlow with pip (it runs on the CPU) or use WSL2 for the GPU.")


def _conda_platform(groups: Mapping[str, str], ctx: Context) -> Answer:
    """conda finds no tensorflow for this platform or Python."""
    m = ctx.machine
    platform = m.platform.key if m is not None else ctx.hints.platform
    facts = []
    py = version_or_none(groups.get("conda_python")) or (m.python if m is not None else None)
    builds = ctx.kb.conda.conda_forge_tensorflow
    if platform == "windows_x86_64":
        return Answer(tuple(_windows_facts(ctx)), _windows_fix(ctx))
    pythons = sorted({p for b in builds for v in b.variants for p in v.python or ()})
    if pythons:
        facts.append(
            _(
                "conda-forge's tensorflow CUDA builds (linux-64) serve Python {pythons}; "
                "the newest on conda-forge is {newest}."
            ).format(pythons=span(pythons), newest=ctx.kb.conda.tf_newest)
        )
    fix = None
    if py is not None and pythons and Version(f"{py.major}.{py.minor}") not in pythons:
        near = max(p for p in pythons if p <= py) if any(p <= py for p in pythons) else pythons[0]
        facts.append(_("Python {py} has no conda-forge tensorflow build.").format(py=py))
        fix = _("Create the environment with python={near} (or use pip in it).").format(near=near)
    return Answer(tuple(facts), fix)


ANSWERS = {
    "conda-cuda": _conda_cuda,
    "conda-cudatoolkit": _cudatoolkit,
    "conda-platform": _conda_platform,
}
