"""The GPU must be one the CUDA toolkit and cuDNN support; cuDNN must support the CUDA."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
    why = f"the lowest CUDA {c.version} can target"
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

    text = f"CUDA {' or '.join(f'{m}.x' for m in majors)} (what cuDNN {c.version} supports)"
    return (on_version("cuda", text, supports, "cudnn-cuda"),)


def _cudnn_gpu(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, VersionCandidate):
        return ()
    series = ctx.kb.cudnn.series(c.version)
    if series is None or not series.min_cc:
        return ()
    lo = min(series.min_cc.values())
    return (_gpu_at_least(lo, f"cuDNN {c.version}'s minimum", "cudnn-gpu"),)


def _gpu_at_least(lo: Version, why: str, kind: str) -> Requirement:
    """A GPU of compute capability ``lo`` or newer (an unknown GPU is not held against it)."""
    return on_gpu(
        f"a GPU of compute capability >= {lo} ({why})",
        lambda cc: cc is None or cc >= lo,
        kind,
        fix=f"Use a GPU of compute capability >= {lo}",
    )


CUDA_GPU_RANGE = Rule(
    "cuda-gpu-range",
    "The GPU is older than the CUDA toolkit supports",
    "cuda",
    _cuda_gpu,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
CUDNN_GPU = Rule(
    "cudnn-gpu",
    "The GPU is older than cuDNN supports",
    "cudnn",
    _cudnn_gpu,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
CUDNN_CUDA = Rule("cudnn-cuda", "cuDNN does not support this CUDA", "cudnn", _cudnn_cuda)
