"""CUDA toolkits and cuDNN installed system-wide.

A toolkit is a folder with ``bin/nvcc`` (``nvcc.exe``); its version comes from
``version.json`` (CUDA 11.1+), ``version.txt`` (older) or, failing both, from
``nvcc --version``. cuDNN is found by its version header next to a toolkit or in
the usual system folders.
"""

from __future__ import annotations

import ntpath
import posixpath
from typing import Optional

from tfenv.host import parse
from tfenv.host.probes import Probes
from tfenv.host.profile import CudnnInstall, HostNote, InstalledToolkit
from tfenv.models.platform import system

__all__ = ["detect_cudnn", "detect_toolkits", "toolkit_folders"]

_LINUX_GLOBS = ("/usr/local/cuda", "/usr/local/cuda-*", "/opt/cuda", "/opt/nvidia/cuda*")
_WINDOWS_GLOB = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v*"
_CUDNN_LINUX = (
    "/usr/include",
    "/usr/include/x86_64-linux-gnu",
    "/usr/include/aarch64-linux-gnu",
    "/usr/local/include",
)
_CUDNN_WINDOWS_GLOB = r"C:\Program Files\NVIDIA\CUDNN\v*\include\*"
_CUDNN_HEADERS = ("cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h")


def _join(os_kind: str, *parts: str) -> str:
    return ntpath.join(*parts) if system(os_kind).is_windows else posixpath.join(*parts)


def _dirname(os_kind: str, path: str) -> str:
    return ntpath.dirname(path) if system(os_kind).is_windows else posixpath.dirname(path)


def toolkit_folders(probes: Probes, os_kind: str) -> list[str]:
    """Candidate toolkit folders, environment first, without duplicates."""
    candidates: list[str] = []
    for var in ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT"):
        if probes.env.get(var):
            candidates.append(probes.env[var])
    candidates += sorted(v for k, v in probes.env.items() if k.startswith("CUDA_PATH_V"))
    nvcc = probes.which("nvcc")
    if nvcc:
        nvcc = probes.realpath(nvcc)
        candidates.append(_dirname(os_kind, _dirname(os_kind, nvcc)))
    if system(os_kind).is_windows:
        candidates += probes.glob(_WINDOWS_GLOB)
    elif system(os_kind).runs_linux:
        for pattern in _LINUX_GLOBS:
            candidates += probes.glob(pattern)
    seen: set[str] = set()
    out = []
    for folder in candidates:
        real = probes.realpath(folder)
        if real not in seen:
            seen.add(real)
            out.append(folder)
    return out


def detect_toolkits(probes: Probes, os_kind: str) -> tuple[list[InstalledToolkit], list[HostNote]]:
    """Toolkits found, and notes about folders that looked like one but were not readable
    (about ``cuda_toolkits``: a toolkit added to the list by hand makes them stale)."""
    nvcc_name = "nvcc.exe" if system(os_kind).is_windows else "nvcc"
    found: list[InstalledToolkit] = []
    notes: list[HostNote] = []
    for folder in toolkit_folders(probes, os_kind):
        nvcc = _join(os_kind, folder, "bin", nvcc_name)
        # a toolkit has its headers too: /usr/local/bin/nvcc alone does not make one
        has_nvcc = probes.exists(nvcc) and probes.exists(
            _join(os_kind, folder, "include", "cuda_runtime.h")
        )
        tk = _from_files(probes, folder, os_kind)
        if tk is None and has_nvcc:
            out = probes.run([nvcc, "--version"])
            version = None if out.problem else parse.parse_nvcc(out.text)
            tk = InstalledToolkit(version, folder, "nvcc") if version else None
            if tk is None:
                note = f"The CUDA toolkit in {folder} has no readable version."
                notes.append(HostNote(note, "cuda_toolkits"))
        if tk is not None:
            found.append(tk)
    found.sort(key=lambda t: (t.version, t.path), reverse=True)
    return found, notes


def _from_files(probes: Probes, folder: str, os_kind: str) -> Optional[InstalledToolkit]:
    for name in ("version.json", "version.txt"):
        text = probes.read(_join(os_kind, folder, name))
        if text is None:
            continue
        version = parse.parse_cuda_version_file(text)
        if version is not None:
            return InstalledToolkit(version, folder, name)
    return None


def detect_cudnn(probes: Probes, os_kind: str, toolkit_paths: list[str]) -> list[CudnnInstall]:
    folders = [_join(os_kind, t, "include") for t in toolkit_paths]
    if system(os_kind).is_windows:
        folders += probes.glob(_CUDNN_WINDOWS_GLOB)
    elif system(os_kind).runs_linux:
        folders += list(_CUDNN_LINUX)
    found: dict[str, CudnnInstall] = {}
    for folder in folders:
        for header in _CUDNN_HEADERS:
            path = _join(os_kind, folder, header)
            text = probes.read(path)
            version = parse.parse_cudnn_header(text) if text else None
            if version is not None:
                found.setdefault(probes.realpath(path), CudnnInstall(version, path))
                break
    return sorted(found.values(), key=lambda c: (c.version, c.path), reverse=True)
