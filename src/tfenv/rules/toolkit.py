"""The GPU must be one the CUDA toolkit and cuDNN support; cuDNN must support the CUDA."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Rule
from tfenv.rules.facts import gpu_fact
from tfenv.rules.model import Candidate, Requirement, VersionCandidate, on_gpu, on_version

if TYPE_CHECKING:
    from packaging.version import Version

__all__ = ["CUDA_GPU_RANGE", "CUDNN_CUDA", "CUDNN_GPU"]


def _cuda_gpu(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, VersionCandidate):
        return ()
    toolkit = ctx.kb.cuda.toolkit(c.version)
    if toolkit is None or toolkit.cc_min is None:
        return ()
    why = _("the lowest CUDA {version} can target").format(version=c.version)
    return (_gpu_at_least(toolkit.cc_min, why, "cuda-gpu-range"),)


def _cudnn_cuda(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, VersionCandidate):
        return ()
    series = ctx.kb.cudnn.series(c.version)
    if series is None:
        return ()
    majors = tuple(series.cuda_majors)

    def supports(cuda: Version) -> bool:
        return cuda.major in majors

    text = _("CUDA {majors} (what cuDNN {version} supports)").format(
        majors=_(" or ").join(f"{m}.x" for m in majors), version=c.version
    )
    return (on_version("cuda", text, supports, "cudnn-cuda"),)


def _cudnn_gpu(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, VersionCandidate):
        return ()
    series = ctx.kb.cudnn.series(c.version)
    if series is None or not series.min_cc:
        return ()
    lo = min(series.min_cc.values())
    why = _("cuDNN {version}'s minimum").format(version=c.version)
    return (_gpu_at_least(lo, why, "cudnn-gpu"),)


def _gpu_at_least(lo: Version, why: str, kind: str) -> Requirement:
    """A GPU of compute capability ``lo`` or newer (an unknown GPU is not held against it)."""
    return on_gpu(
        _("a GPU of compute capability >= {cc} ({why})").format(cc=lo, why=why),
        lambda cc: cc is None or cc >= lo,
        kind,
        fix=_("Use a GPU of compute capability >= {cc}").format(cc=lo),
    )


CUDA_GPU_RANGE = Rule(
    "cuda-gpu-range",
    N_("The GPU is older than the CUDA toolkit supports"),
    "cuda",
    _cuda_gpu,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
CUDNN_GPU = Rule(
    "cudnn-gpu",
    N_("The GPU is older than cuDNN supports"),
    "cudnn",
    _cudnn_gpu,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
CUDNN_CUDA = Rule("cudnn-cuda", N_("cuDNN does not support this CUDA"), "cudnn", _cudnn_cuda)
