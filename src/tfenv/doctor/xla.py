"""ptxas and libdevice, which XLA needs to compile GPU kernels."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Optional

from packaging.version import Version

from tfenv.doctor.findings import Finding

__all__ = ["check_xla", "ptxas_version"]

_DATA_DIR = re.compile(r"--xla_gpu_cuda_data_dir=(?P<dir>\S+)")
_RELEASE = re.compile(r"release (?P<mm>\d+\.\d+), V(?P<full>[\d.]+)")


def data_dir(environ: Mapping[str, str]) -> Optional[Path]:
    m = _DATA_DIR.search(environ.get("XLA_FLAGS", ""))
    return Path(m.group("dir")) if m else None


def ptxas_version(path: Path, timeout: float = 10.0) -> Optional[Version]:
    from tfenv import procs

    try:
        out = procs.run([str(path), "--version"], timeout=timeout, errors="replace").stdout
    except (OSError, subprocess.SubprocessError, procs.Stopping):
        return None
    m = _RELEASE.search(out)
    return Version(m.group("mm")) if m else None


CUDA_HOME = Path("/usr/local/cuda")  # where XLA looks for a CUDA folder by default


def _ptxas_candidates(
    environ: Mapping[str, str], site: Sequence[Path], cuda_home: Path = CUDA_HOME
) -> list[Path]:
    dirs: list[Path] = []
    dd = data_dir(environ)
    if dd is not None:
        dirs.append(dd / "bin")
    dirs += [Path(p) for p in environ.get("PATH", "").split(":") if p]
    if environ.get("CUDA_PATH"):
        dirs.append(Path(environ["CUDA_PATH"]) / "bin")
    dirs.append(cuda_home / "bin")
    return [d / "ptxas" for d in dirs]


def _pip_nvcc(site: Sequence[Path]) -> Optional[Path]:
    for s in site:
        if (s / "nvidia" / "cuda_nvcc").is_dir():
            return s / "nvidia" / "cuda_nvcc"
    return None


def check_ptxas(
    environ: Mapping[str, str],
    site: Sequence[Path],
    driver_cuda: Optional[Version],
    cuda_home: Path = CUDA_HOME,
) -> Finding:
    found = next((p for p in _ptxas_candidates(environ, site, cuda_home) if p.is_file()), None)
    nvcc = _pip_nvcc(site)
    if found is None:
        if nvcc is not None and (nvcc / "bin" / "ptxas").is_file():
            return Finding(
                "xla-ptxas",
                "problem",
                "ptxas is installed (nvidia-cuda-nvcc) but XLA will not find it",
                f"{nvcc / 'bin' / 'ptxas'} is not on PATH and XLA_FLAGS does not name its folder.",
                f"source activate-tfenv.sh from `tfenv resolve --emit`, or export "
                f"PATH={nvcc / 'bin'}:$PATH XLA_FLAGS=--xla_gpu_cuda_data_dir={nvcc}",
            )
        return Finding(
            "xla-ptxas",
            "warning",
            "ptxas not found: XLA-compiled models (jit_compile) will fail",
            "Looked in XLA_FLAGS' CUDA folder, PATH, CUDA_PATH and /usr/local/cuda/bin.",
            "pip install the nvidia-cuda-nvcc wheel your TensorFlow pins "
            "(tensorflow[and-cuda]) and source activate-tfenv.sh",
        )
    version = ptxas_version(found)
    detail = f"{found}" + (f" (CUDA {version})" if version else "")
    if version is not None and driver_cuda is not None and version > driver_cuda:
        return Finding(
            "xla-ptxas",
            "warning",
            f"ptxas is from CUDA {version}, newer than the driver's CUDA {driver_cuda}",
            f"{detail}. XLA disables parallel compilation and PTX it emits may not load.",
            f"update the NVIDIA driver to one supporting CUDA {version}, or install an "
            f"nvidia-cuda-nvcc no newer than {driver_cuda}",
        )
    return Finding("xla-ptxas", "ok", "ptxas found", detail)


def check_libdevice(
    environ: Mapping[str, str], site: Sequence[Path], cuda_home: Path = CUDA_HOME
) -> Finding:
    rel = Path("nvvm") / "libdevice" / "libdevice.10.bc"
    dd = data_dir(environ)
    for base in [p for p in (dd, cuda_home) if p is not None]:
        if (base / rel).is_file():
            return Finding("xla-libdevice", "ok", "libdevice found", str(base / rel))
    if dd is not None:
        return Finding(
            "xla-libdevice",
            "problem",
            "XLA_FLAGS names a CUDA folder without libdevice",
            f"{dd / rel} does not exist.",
            "point --xla_gpu_cuda_data_dir at a folder containing nvvm/libdevice "
            "(site-packages/nvidia/cuda_nvcc for pip installs)",
        )
    nvcc = _pip_nvcc(site)
    if nvcc is not None and (nvcc / rel).is_file():
        return Finding(
            "xla-libdevice",
            "problem",
            "libdevice is installed (nvidia-cuda-nvcc) but XLA will not find it",
            f"{nvcc / rel} exists, but XLA_FLAGS is not set.",
            f"source activate-tfenv.sh from `tfenv resolve --emit`, or export "
            f"XLA_FLAGS=--xla_gpu_cuda_data_dir={nvcc}",
        )
    return Finding(
        "xla-libdevice",
        "warning",
        "libdevice not found: XLA-compiled models will fail",
        f"No nvvm/libdevice/libdevice.10.bc in XLA_FLAGS' folder or {cuda_home}.",
        "install nvidia-cuda-nvcc (tensorflow[and-cuda]) and source activate-tfenv.sh",
    )


def check_xla(
    environ: Mapping[str, str],
    site: Sequence[Path],
    driver_cuda: Optional[Version],
    cuda_home: Path = CUDA_HOME,
) -> list[Finding]:
    return [
        check_ptxas(environ, site, driver_cuda, cuda_home),
        check_libdevice(environ, site, cuda_home),
    ]
