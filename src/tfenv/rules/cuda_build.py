"""A CUDA build needs a platform that has one, and pins the CUDA and cuDNN it was built with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.rules.base import Context, Rule
from tfenv.rules.model import Candidate, Requirement, TfCandidate, allowed, on_machine

if TYPE_CHECKING:
    from tfenv.kb.releases import TfOption
    from tfenv.kb.tensorflow import CudaBuild
    from tfenv.models.target import Target

__all__ = ["CUDA", "CUDNN", "GPU_PLATFORM", "cuda_build_for"]


def cuda_build_for(ctx: Context, option: TfOption) -> Optional[CudaBuild]:
    """The CUDA build of ``option`` this machine gets, or None where it gets none."""
    build = option.build
    if build is None or ctx.target.platform.key not in build.gpu_platforms:
        return None
    return build.for_machine(ctx.target.os)


def _never(_: Target) -> bool:
    return False


def _gpu_platform(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.accel != "cuda":
        return ()
    build = c.option.build
    if build is not None and ctx.target.platform.key in build.gpu_platforms:
        return ()
    where = ", ".join(sorted(build.gpu_platforms)) if build else "none known"
    text = f"a platform with a CUDA build of TensorFlow {c.option.version} (CUDA builds: {where})"
    fix = "Use WSL2 with the Linux wheels" if ctx.target.os == "windows" else ""
    return (on_machine(text, _never, "gpu-platform", fix=fix),)


def _cuda(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    cb = cuda_build_for(ctx, c.option) if isinstance(c, TfCandidate) and c.accel == "cuda" else None
    if cb is None or cb.cuda is None:
        return ()
    assert isinstance(c, TfCandidate)
    text = f"CUDA {cb.cuda} (what TensorFlow {c.option.version} is built with)"
    return (allowed("cuda", (str(cb.cuda),), text, "cuda"),)


def _cudnn(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    cb = cuda_build_for(ctx, c.option) if isinstance(c, TfCandidate) and c.accel == "cuda" else None
    if cb is None or cb.cudnn is None:
        return ()
    assert isinstance(c, TfCandidate)
    text = f"cuDNN {cb.cudnn} (what TensorFlow {c.option.version} is built with)"
    return (allowed("cudnn", (str(cb.cudnn),), text, "cudnn"),)


def _platform_fact(target: Target) -> Optional[str]:
    return f"the target is {target.system.title} on {target.arch}"


GPU_PLATFORM = Rule(
    "gpu-platform",
    "No CUDA build of TensorFlow for this platform",
    "tensorflow",
    _gpu_platform,
    _platform_fact,
    change_kind="platform",
)
CUDA = Rule("cuda", "CUDA version mismatch", "tensorflow", _cuda)
CUDNN = Rule("cudnn", "cuDNN version mismatch", "tensorflow", _cudnn)
