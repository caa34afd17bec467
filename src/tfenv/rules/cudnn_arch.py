"""Does the cuDNN a plan uses have code for the GPU: natively, by PTX JIT, or not at all.

NVIDIA's cuDNN support matrices list, per cuDNN series and CUDA build, the compute
capabilities the build supports (``cudnn.yaml`` ``max_cc``). A GPU runs a build natively
when its capability is listed or shares the major of the highest listed one (a cubin
for X.y runs on X.z, z >= y: CUDA's binary compatibility). A newer GPU runs a build only
in cuDNN's hardware forward-compatibility mode (PTX JIT), which exists from cuDNN 9.0 on
CUDA 12+ builds; earlier cuDNN is not forward compatible, so on such a GPU its
operations have no code. cuDNN minor releases are backward compatible, so a later series
of the same major whose build lists the GPU is a way out; without one the release is no
plan for the GPU. Where the matrix of a series was not read, the nearest read series
before and after it bound its list, and the CUDA it was built with bounds it from above
(a library cannot carry code for a GPU its CUDA cannot target); what those bounds do not
settle is unknown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Rule
from tfenv.rules.cuda_build import cuda_build_for
from tfenv.rules.facts import gpu_fact
from tfenv.rules.model import Candidate, Requirement, TfCandidate, on_gpu

if TYPE_CHECKING:
    from dataclasses import dataclass

    from packaging.version import Version

    from tfenv.kb import KnowledgeBase

if not TYPE_CHECKING:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = ["CUDNN_ARCH", "CudnnOnGpu", "cudnn_on_gpu", "later_cudnn"]

Verdict = Literal["native", "jit", "cannot-run", "unknown"]


@dataclass(frozen=True)
class CudnnOnGpu:
    """How a GPU runs a cuDNN series' build for one CUDA version."""

    verdict: Verdict
    cudnn: Version  # the series
    cuda: Version
    cc: Version
    highest: Optional[Version]  # the highest capability that decided it (None: unknown)
    by_cuda: bool = False  # ``highest`` is the CUDA toolkit's, not cuDNN's own list
    newer: Optional[Version] = None  # "cannot-run": a later series of the major that lists it

    @property
    def blocks(self) -> bool:
        """No cuDNN of this major runs on the GPU: the release is no plan for it."""
        return self.verdict == "cannot-run" and self.newer is None


def _covers(top: Version, cc: Version) -> bool:
    return cc <= top or cc.major == top.major


def cudnn_on_gpu(
    kb: KnowledgeBase, cudnn: Version, cuda: Version, cc: Version
) -> Optional[CudnnOnGpu]:
    """The verdict for cuDNN ``cudnn``'s build for CUDA ``cuda`` on a GPU of capability
    ``cc`` (None: the series is not recorded)."""
    series = kb.cudnn.series(cudnn)
    if series is None:
        return None
    lower, upper = kb.cudnn.native_bounds(series, cuda)
    toolkit = kb.cuda.toolkit(cuda)
    ceiling = toolkit.cc_max if toolkit is not None else None
    if lower is not None and _covers(lower, cc):
        return CudnnOnGpu("native", series.version, cuda, cc, lower)
    if upper is not None and not _covers(upper, cc):
        highest, by_cuda = upper, False
    elif ceiling is not None and not _covers(ceiling, cc):
        highest, by_cuda = ceiling, True
    else:
        return CudnnOnGpu("unknown", series.version, cuda, cc, None)
    fc = kb.cudnn.forward_compat
    if fc is not None and fc.covers(series.version, cuda):
        return CudnnOnGpu("jit", series.version, cuda, cc, highest, by_cuda)
    return CudnnOnGpu(
        "cannot-run",
        series.version,
        cuda,
        cc,
        highest,
        by_cuda,
        _newer(kb, series.version, cuda, cc),
    )


def later_cudnn(
    kb: KnowledgeBase, cudnn: Optional[Version], cuda: Optional[Version], cc: Optional[Version]
) -> Optional[CudnnOnGpu]:
    """Where cuDNN ``cudnn`` (what a release was built with) has no code for the GPU and a
    later series of its major lists it: the verdict, whose ``newer`` is the cuDNN a plan
    must install instead (a route that cannot choose its cuDNN cannot install the
    release). None where the built cuDNN runs, or nothing later does."""
    if cudnn is None or cuda is None or cc is None:
        return None
    found = cudnn_on_gpu(kb, cudnn, cuda, cc)
    if found is None or found.verdict != "cannot-run" or found.newer is None:
        return None
    return found


def _newer(kb: KnowledgeBase, cudnn: Version, cuda: Version, cc: Version) -> Optional[Version]:
    """The first later series of ``cudnn``'s major with a build for ``cuda`` that lists ``cc``."""
    for other in kb.cudnn.all_series:
        if other.version <= cudnn or other.version.major != cudnn.major:
            continue
        if other.supports_cuda(cuda) is False:
            continue
        top = other.native_max(cuda)
        if top is not None and _covers(top, cc):
            return other.version
    return None


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if ctx.in_image or not isinstance(c, TfCandidate):
        return ()
    cb = cuda_build_for(ctx, c)
    if cb is None or cb.cuda is None or cb.cudnn is None:
        return ()
    kb, cudnn, cuda = ctx.kb, cb.cudnn, cb.cuda

    def runs(cc: Optional[Version]) -> bool:
        if cc is None:
            return True
        found = cudnn_on_gpu(kb, cudnn, cuda, cc)
        return found is None or not found.blocks

    fc = kb.cudnn.forward_compat
    return (
        on_gpu(
            _(
                "a GPU that cuDNN {cudnn} (what TensorFlow {release} is built with, for CUDA "
                "{cuda}) has code for: NVIDIA's support matrix lists it, or cuDNN runs it in "
                "its forward-compatibility mode (cuDNN {since}+ on CUDA {major}+ only)"
            ).format(
                cudnn=cudnn,
                release=c.option.version,
                cuda=cuda,
                since=fc.since if fc else "9.0",
                major=fc.cuda_major_min if fc else 12,
            ),
            runs,
            "cudnn-arch",
            fix=_(
                "Use a TensorFlow release built with cuDNN {since} or later on CUDA {major}+"
            ).format(since=fc.since if fc else "9.0", major=fc.cuda_major_min if fc else 12),
        ),
    )


CUDNN_ARCH = Rule(
    "cudnn-arch",
    N_("cuDNN has no code for this GPU"),
    "tensorflow",
    _needs,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
