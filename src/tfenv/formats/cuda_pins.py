"""What a resolved lock pins of CUDA: read from its packages, so that the header says it.

The plan names the CUDA and cuDNN it wants; the lock is what gets installed. A lockfile's
header describes the lock (:func:`cuda_pins` over its packages), so that header and pins
can never disagree: the pip ``nvidia-*`` wheels (``nvidia-cuda-runtime-cuNN`` gives the
CUDA version, ``nvidia-cudnn-cuNN`` the cuDNN version), or the conda packages that carry
them (``cuda-version``, ``cudatoolkit``, ``cuda-cudart``; ``cudnn``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Optional

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

__all__ = ["CudaPins", "cuda_pins"]

_CONDA_CUDA = ("cuda-version", "cudatoolkit", "cuda-cudart")  # in order of preference
_CONDA_CUDNN = "cudnn"


@dataclass(frozen=True)
class CudaPins:
    """The CUDA packages a lock pins, and the CUDA and cuDNN (X.Y) they make up."""

    cuda: Optional[str] = None
    cudnn: Optional[str] = None
    pins: tuple[tuple[str, str], ...] = ()  # (name, version), sorted by name
    kind: str = "wheels"  # "wheels" (pip) or "packages" (conda)

    def __bool__(self) -> bool:
        return bool(self.pins)

    def line(self) -> str:
        """``CUDA wheels: nvidia-cublas-cu12==12.5.3.2, ...`` (conda: ``name version``)."""
        sep = "==" if self.kind == "wheels" else " "
        return f"CUDA {self.kind}: " + ", ".join(f"{n}{sep}{v}" for n, v in self.pins)


def cuda_pins(packages: Iterable[tuple[str, str]], conda: bool = False) -> CudaPins:
    """The CUDA pins among ``packages`` ((name, version) pairs of a resolved lock)."""
    found = {str(canonicalize_name(n)): v for n, v in packages}
    if conda:
        names = [n for n in found if n in _CONDA_CUDA or n == _CONDA_CUDNN]
        cuda = next((_xy(found[n]) for n in _CONDA_CUDA if n in found), None)
        cudnn = _xy(found[_CONDA_CUDNN]) if _CONDA_CUDNN in found else None
        kind = "packages"
    else:
        names = [n for n in found if n.startswith("nvidia-")]
        cuda = _first(found, "nvidia-cuda-runtime-cu")
        cudnn = _first(found, "nvidia-cudnn-cu")
        kind = "wheels"
    pins = tuple(sorted((n, found[n]) for n in names))
    return CudaPins(cuda, cudnn, pins, kind)


def _first(found: dict[str, str], prefix: str) -> Optional[str]:
    for name in sorted(found):
        if name.startswith(prefix) and name[len(prefix) :].isdigit():
            return _xy(found[name])
    return None


def _xy(version: str) -> Optional[str]:
    try:
        v = Version(version.split("=", 1)[0])
    except InvalidVersion:
        return None
    major, minor = (*v.release, 0)[:2]
    return f"{major}.{minor}"
