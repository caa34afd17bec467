"""A CUDA build needs a platform that has one, and pins the CUDA and cuDNN it was built with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Needs, Rule
from tfenv.rules.facts import platform_fact
from tfenv.rules.model import Candidate, Requirement, TfCandidate, allowed, unmet

if TYPE_CHECKING:
    from tfenv.kb.tensorflow import CudaBuild, TfBuild

__all__ = ["CUDA", "CUDNN", "GPU_PLATFORM", "cuda_build_for", "gpu_build"]


def gpu_build(ctx: Context, c: Candidate) -> Optional[TfBuild]:
    """The CUDA build a candidate installs on this platform: None for a candidate that is
    not a CUDA build, or a platform without one (the ``gpu-platform`` rule says so)."""
    if not isinstance(c, TfCandidate) or c.accel != "cuda":
        return None
    build = c.option.build
    if build is None or ctx.target.platform.key not in build.gpu_platforms:
        return None
    return build


def cuda_build_for(ctx: Context, c: Candidate) -> Optional[CudaBuild]:
    """The CUDA and cuDNN of the CUDA build ``c`` installs on this machine, or None."""
    build = gpu_build(ctx, c)
    return build.for_machine(ctx.target.os) if build is not None else None


def _gpu_platform(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.accel != "cuda" or gpu_build(ctx, c) is not None:
        return ()
    build = c.option.build
    where = ", ".join(sorted(build.gpu_platforms)) if build else _("none known")
    text = _("a platform with a CUDA build of TensorFlow {version} (CUDA builds: {where})").format(
        version=c.option.version, where=where
    )
    fix = _("Use WSL2 with the Linux wheels") if ctx.target.system.is_windows else ""
    return (unmet(text, "gpu-platform", fix),)


def _built_with(identifier: Literal["cuda", "cudnn"], label: str) -> Needs:
    """The rule that pins the CUDA (or cuDNN) version the release was built with."""

    def needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
        cb = cuda_build_for(ctx, c)
        version = None if cb is None else cb.cuda if identifier == "cuda" else cb.cudnn
        if version is None or not isinstance(c, TfCandidate):
            return ()
        text = _("{library} {version} (what TensorFlow {release} is built with)").format(
            library=label, version=version, release=c.option.version
        )
        return (allowed(identifier, (str(version),), text, identifier),)

    return needs


GPU_PLATFORM = Rule(
    "gpu-platform",
    N_("No CUDA build of TensorFlow for this platform"),
    "tensorflow",
    _gpu_platform,
    platform_fact,
    change_kind="platform",
)
CUDA = Rule("cuda", N_("CUDA version mismatch"), "tensorflow", _built_with("cuda", "CUDA"))
CUDNN = Rule("cudnn", N_("cuDNN version mismatch"), "tensorflow", _built_with("cudnn", "cuDNN"))
