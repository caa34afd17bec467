"""Can a GPU of a given compute capability run a build's kernels, and how?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

from packaging.version import Version

from tfenv.rules.base import Context, Rule
from tfenv.rules.model import Candidate, Requirement, TfCandidate, on_gpu

if TYPE_CHECKING:
    from tfenv.kb.tensorflow import TfBuild
    from tfenv.models.target import Target

__all__ = ["GPU_CODE", "GpuCode", "code_for", "format_caps", "gpu_code", "gpu_fact"]


@dataclass(frozen=True)
class GpuCode:
    mode: str  # "native" or "ptx"
    via: Version  # the SASS or PTX architecture used
    partial: bool = False  # native code exists for only some kernels; the rest JIT


def _num(v: Version) -> tuple[int, int]:
    return (v.major, v.minor)


def gpu_code(
    cc: Version,
    sass: Sequence[Version],
    ptx: Sequence[Version],
    sass_partial: Sequence[Version] = (),
) -> Optional[GpuCode]:
    """How a GPU of capability ``cc`` runs code built for ``sass``/``ptx``.

    SASS for X.Y runs natively on X.Z with Z >= Y (same major only). PTX for
    A.B is JIT-compiled by the driver for any GPU of capability >= A.B.
    ``sass_partial`` lists architectures with SASS for only some kernels.
    """
    native = [s for s in sass if s.major == cc.major and s.minor <= cc.minor]
    if native:
        return GpuCode("native", max(native, key=_num))
    jit = [p for p in ptx if _num(p) <= _num(cc)]
    if jit:
        partial = any(s.major == cc.major and s.minor <= cc.minor for s in sass_partial)
        return GpuCode("ptx", max(jit, key=_num), partial=partial)
    return None


def format_caps(sass: Sequence[Version], ptx: Sequence[Version]) -> str:
    s = ", ".join(f"sm_{v.major}{v.minor}" for v in sass) or "none"
    p = ", ".join(f"compute_{v.major}{v.minor}" for v in ptx) or "none"
    return f"native code for {s}; PTX for {p}"


def code_for(build: Optional[TfBuild], cc: Optional[Version]) -> Optional[GpuCode]:
    """How a GPU of capability ``cc`` runs ``build``'s kernels (None: it cannot, or unknown)."""
    caps = build.compute if build is not None else None
    if caps is None or cc is None:
        return None
    return gpu_code(cc, caps.sass, caps.ptx, caps.sass_partial)


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.accel != "cuda":
        return ()
    build = c.option.build
    if build is None or build.compute is None:
        return ()
    if ctx.target.platform.key not in build.gpu_platforms:
        return ()
    caps = build.compute
    lowest = caps.lowest_sass
    return (
        on_gpu(
            f"a GPU that TensorFlow {c.option.version}'s wheels have code for "
            f"({format_caps(caps.sass, caps.ptx)})",
            lambda cc: cc is None or code_for(build, cc) is not None,
            "gpu-code",
            fix=f"Use a GPU of compute capability >= {lowest}" if lowest else "",
        ),
    )


def gpu_fact(target: Target) -> Optional[str]:
    """ "RTX 3060 has compute capability 8.6": the GPU fact rules about GPU code report."""
    if target.cc is None:
        return None
    return f"{target.gpu_name or 'the GPU'} has compute capability {target.cc}"


GPU_CODE = Rule(
    "gpu-code",
    "The GPU is not supported by the official wheels",
    "tensorflow",
    _needs,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
