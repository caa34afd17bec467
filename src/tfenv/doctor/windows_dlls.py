"""Native Windows: the DLLs an installed TensorFlow (2.0-2.10) loads, looked for along PATH
in PATH's order, as Windows' loader does (``nvidia/windows_manual.yaml`` names them per
release). Finds the missing ones and says which folder to add; warns where another CUDA
version's ``bin`` folder comes earlier on PATH than the one the release needs ("DLL
hell": the first copy found wins)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.doctor.findings import Finding

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.windows_manual import DllSet

__all__ = ["check_windows_dlls", "path_dirs"]

_CUDA_BIN = re.compile(r"[\\/]CUDA[\\/]v(\d+)\.(\d+)[\\/]bin[\\/]?$", re.IGNORECASE)


def path_dirs(environ: Mapping[str, str]) -> list[str]:
    """PATH's folders in order (Windows' separator; empty entries dropped)."""
    path = next((v for k, v in environ.items() if k.upper() == "PATH"), "")
    return [p.strip().strip('"') for p in path.split(";") if p.strip().strip('"')]


def _listing(folder: str) -> dict[str, str]:
    """Lower-cased file name -> name as found, for one folder (empty where unreadable)."""
    try:
        return {p.name.lower(): p.name for p in Path(folder).iterdir()}
    except OSError:
        return {}


def _first(name: str, dirs: Sequence[str], listings: dict[str, dict[str, str]]) -> Optional[str]:
    return next((d for d in dirs if name.lower() in listings[d]), None)


def check_windows_dlls(
    environ: Mapping[str, str], kb: KnowledgeBase, tf: Version, cuda: Optional[Version]
) -> Optional[list[Finding]]:
    """Findings for TensorFlow ``tf`` on native Windows (None: no DLL list recorded)."""
    manual = kb.windows_manual
    dlls = manual.dlls_for(tf)
    if dlls is None:
        return None
    dirs = path_dirs(environ)
    listings = {d: _listing(d) for d in dirs}
    found = {name: _first(name, dirs, listings) for name in dlls.required}
    out = [_missing(dlls, found, kb, cuda, tf), *_dll_hell(dirs, found, dlls, cuda)]
    return [f for f in out if f is not None]


def _missing(
    dlls: DllSet,
    found: Mapping[str, Optional[str]],
    kb: KnowledgeBase,
    cuda: Optional[Version],
    tf: Version,
) -> Finding:
    manual = kb.windows_manual
    gone = [n for n, where in found.items() if where is None]
    basis = f"({dlls.status}: {dlls.provenance.cite()})"
    if not gone:
        where = sorted({w for w in found.values() if w is not None})
        return Finding(
            "windows-dlls",
            "ok",
            f"The {len(found)} DLLs TensorFlow {tf} loads are on PATH",
            f"from {', '.join(where)} {basis}",
        )
    installer = manual.installer(cuda)
    folder = installer.folder if installer else "the CUDA Toolkit's folder"
    fixes = []
    if any(n in dlls.cuda for n in gone):
        what = f"CUDA Toolkit {installer.version}" if installer else f"CUDA Toolkit {cuda}"
        fixes.append(f"add {folder}\\bin to PATH (install the {what} if it is not there)")
    if any(n in dlls.cudnn for n in gone):
        fixes.append(
            f"copy cuDNN's cuda\\bin\\*.dll into {folder}\\bin, or add cuDNN's bin folder to PATH"
        )
    if any(n in dlls.msvcp for n in gone):
        fixes.append(f"install the {manual.redist_name} ({manual.redist_url})")
    fixes.append("then open a new terminal (or run activate-tfenv.bat / activate-tfenv.ps1)")
    return Finding(
        "windows-dlls",
        "problem",
        f"Not on PATH: {', '.join(gone)}",
        f"TensorFlow {tf} loads these by name along PATH {basis}; the GPU stays unused (or "
        "the import fails, for the msvcp DLLs) without them.",
        "; ".join(fixes),
    )


def _dll_hell(
    dirs: Sequence[str],
    found: Mapping[str, Optional[str]],
    dlls: DllSet,
    cuda: Optional[Version],
) -> list[Finding]:
    """Another CUDA version's bin earlier on PATH than the folder the runtime comes from."""
    if cuda is None:
        return []
    right = next((i for i, d in enumerate(dirs) if _series(d) == (cuda.major, cuda.minor)), None)
    cudart = found.get(dlls.cuda[0]) if dlls.cuda else None
    limit = right if right is not None else (dirs.index(cudart) if cudart else len(dirs))
    out = []
    for d in dirs[:limit]:
        series = _series(d)
        if series is not None and series != (cuda.major, cuda.minor):
            out.append(
                Finding(
                    "windows-dll-order",
                    "warning",
                    f"CUDA {series[0]}.{series[1]}'s bin folder comes before CUDA {cuda}'s on PATH",
                    f"{d} is searched first: a DLL of the same name found there (an older "
                    "cuDNN or cuBLAS copied in) wins over the right one.",
                    f"move {d} after the CUDA {cuda.major}.{cuda.minor} folders on PATH, or "
                    "remove it (System Properties > Environment Variables)",
                )
            )
    return out


def _series(folder: str) -> Optional[tuple[int, int]]:
    m = _CUDA_BIN.search(folder)
    return (int(m.group(1)), int(m.group(2))) if m else None
