"""Can a GPU of a given compute capability run a build's kernels, and how?"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

from packaging.version import Version

__all__ = ["GpuCode", "format_caps", "gpu_code"]


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
