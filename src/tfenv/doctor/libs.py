"""Find the CUDA libraries TensorFlow needs, and load them in a subprocess.

The folders searched, in order: ``LD_LIBRARY_PATH`` (``PATH`` on Windows), the pip
``site-packages/nvidia/*/lib`` folders, the conda prefix's ``lib``, ``CUDA_PATH`` and
``/usr/local/cuda``, and the system library folders (including those named in
``/etc/ld.so.conf.d``). Each folder records whether the dynamic loader will search it
for TensorFlow. Loading happens in a child interpreter with :mod:`ctypes`, so a library
that crashes on load cannot take tfenv down; the child also asks the library for its
version (``cudaRuntimeGetVersion``, ``cudnnGetVersion``, ``ncclGetVersion``).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

from tfenv.i18n import _

__all__ = ["LIBRARIES", "LibraryReport", "SearchDir", "find", "load", "search_dirs"]

#: library key -> file-name stem on Linux (lib<stem>.so*) and Windows (<stem>64_*.dll)
LIBRARIES = (
    "cudart",
    "cublas",
    "cublasLt",
    "cufft",
    "curand",
    "cusolver",
    "cusparse",
    "cudnn",
    "nccl",
)
SYSTEM_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/usr/lib/wsl/lib",
)
_VERSION_SUFFIX = re.compile(r"\.so\.(?P<v>\d+(?:\.\d+)*)$")
_LOADER = r"""
import ctypes, json, sys
out = {}
for path, key in json.load(sys.stdin):
    try:
        lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as exc:
        out[path] = {"ok": False, "error": str(exc)}
        continue
    version = None
    try:
        if key == "cudart":
            v = ctypes.c_int(0)
            if lib.cudaRuntimeGetVersion(ctypes.byref(v)) == 0:
                version = "%d.%d" % (v.value // 1000, (v.value % 1000) // 10)
        elif key == "cudnn":
            lib.cudnnGetVersion.restype = ctypes.c_size_t
            n = lib.cudnnGetVersion()
            version = ("%d.%d.%d" % (n // 10000, n % 10000 // 100, n % 100) if n >= 90000
                       else "%d.%d.%d" % (n // 1000, n % 1000 // 100, n % 100))
        elif key == "nccl":
            v = ctypes.c_int(0)
            if lib.ncclGetVersion(ctypes.byref(v)) == 0:
                n = v.value
                version = "%d.%d.%d" % (n // 10000, n % 10000 // 100, n % 100)
    except AttributeError:
        pass
    out[path] = {"ok": True, "version": version}
print(json.dumps(out))
"""


@dataclass(frozen=True)
class SearchDir:
    path: Path
    origin: str  # LD_LIBRARY_PATH, PATH, pip, conda, CUDA_PATH, /usr/local/cuda, system
    on_path: bool  # the loader searches it for TensorFlow


@dataclass(frozen=True)
class LibraryReport:
    key: str
    wanted: Optional[str]  # the file name this TensorFlow asks for, when known
    path: Optional[Path] = None  # the copy TensorFlow would get (or the best one found)
    origin: Optional[str] = None
    on_path: bool = False
    version: Optional[str] = None
    loaded: Optional[bool] = None  # None: not tried
    error: Optional[str] = None
    others: tuple[Path, ...] = ()  # other copies or versions seen


def search_dirs(
    *,
    windows: bool,
    env: Mapping[str, str],
    site_packages: Sequence[Path],
    conda_prefix: Optional[Path],
    pip_on_path: bool,
    conda_on_path: bool,
    system_dirs: Sequence[str] = SYSTEM_DIRS,
    ld_conf: Path = Path("/etc/ld.so.conf.d"),
) -> list[SearchDir]:
    """The folders to look in, in the order the loader would use them."""
    sep = ";" if windows else ":"
    var = "PATH" if windows else "LD_LIBRARY_PATH"
    dirs = [SearchDir(Path(p), var, True) for p in env.get(var, "").split(sep) if p]
    sub = "bin" if windows else "lib"
    for site in site_packages:
        dirs += [
            SearchDir(p, "pip", pip_on_path) for p in sorted((site / "nvidia").glob(f"*/{sub}"))
        ]
    if conda_prefix is not None:
        dirs.append(
            SearchDir(conda_prefix / ("Library/bin" if windows else "lib"), "conda", conda_on_path)
        )
    if env.get("CUDA_PATH"):
        dirs.append(
            SearchDir(Path(env["CUDA_PATH"]) / ("bin" if windows else "lib64"), "CUDA_PATH", False)
        )
    if not windows:
        dirs.append(SearchDir(Path("/usr/local/cuda/lib64"), "/usr/local/cuda", False))
        dirs += [
            SearchDir(Path(p), "system", True) for p in [*_ld_conf_dirs(ld_conf), *system_dirs]
        ]
    return _dedupe(dirs)


def _ld_conf_dirs(folder: Path) -> list[str]:
    from tfenv.fsutil import read_text

    out: list[str] = []
    for conf in sorted(folder.glob("*.conf")) if folder.is_dir() else []:
        try:
            lines = read_text(conf, limit=1 << 20, errors="replace").splitlines()
        except OSError:
            continue
        out += [ln.strip() for ln in lines if ln.strip().startswith("/")]
    return out


def _dedupe(dirs: list[SearchDir]) -> list[SearchDir]:
    seen: dict[Path, int] = {}
    out: list[SearchDir] = []
    for d in dirs:
        if (
            d.path in seen
        ):  # a folder seen again keeps the first origin, but is on the path if any says so
            i = seen[d.path]
            out[i] = replace(out[i], on_path=out[i].on_path or d.on_path)
            continue
        seen[d.path] = len(out)
        out.append(d)
    return out


def _candidates(folder: Path, key: str, windows: bool) -> list[Path]:
    pattern = f"{key}64_*.dll" if windows else f"lib{key}.so*"
    try:
        return sorted(p for p in folder.glob(pattern) if p.is_file())
    except OSError:
        return []


def version_of(path: Path) -> Optional[str]:
    """The version a file name carries: ``libcudart.so.12.3.101`` -> ``12.3.101``."""
    try:
        real = path.resolve()
    except OSError:
        real = path
    for name in (real.name, path.name):
        m = _VERSION_SUFFIX.search(name)
        if m:
            return m.group("v")
    return None


def find(
    key: str, wanted: Optional[str], dirs: Sequence[SearchDir], *, windows: bool
) -> LibraryReport:
    """Where ``wanted`` (or any version of ``key`` when None) is found, loader path first."""
    seen: list[tuple[Path, SearchDir]] = []
    for d in dirs:
        seen += [(p, d) for p in _candidates(d.path, key, windows)]
    exact = [(p, d) for p, d in seen if wanted is None or p.name == wanted]
    exact.sort(key=lambda pd: not pd[1].on_path)  # stable: a folder on the path wins
    if not exact:
        return LibraryReport(key, wanted, others=tuple(p for p, _origin in seen))
    path, d = exact[0]
    return LibraryReport(
        key,
        wanted,
        path=path,
        origin=d.origin,
        on_path=d.on_path,
        version=version_of(path),
        others=tuple(p for p, _origin in seen if p != path),
    )


def load(reports: Sequence[LibraryReport], timeout: float = 30.0) -> list[LibraryReport]:
    """Load every found library in one child process; fill ``loaded``/``error``/``version``."""
    todo = [(str(r.path), r.key) for r in reports if r.path is not None]
    if not todo:
        return list(reports)
    results = _run_loader(todo, timeout)
    out = []
    for r in reports:
        res = results.get(str(r.path)) if r.path is not None else None
        if res is None:
            out.append(r)
            continue
        out.append(
            replace(
                r,
                loaded=bool(res.get("ok")),
                error=res.get("error"),
                version=res.get("version") or r.version,
            )
        )
    return out


def _run_loader(todo: list[tuple[str, str]], timeout: float) -> dict[str, dict[str, str]]:
    from tfenv import procs

    try:
        proc = procs.run(
            [sys.executable, "-I", "-c", _LOADER],
            input=json.dumps(todo),
            timeout=timeout,
            neutral_cwd=True,
            errors="replace",
        )
    except subprocess.TimeoutExpired:
        why = _("loading took longer than {timeout:g} s").format(timeout=timeout)
        return {p: {"ok": "", "error": why} for p, _key in todo}
    except OSError as exc:
        why = _("the loader cannot start ({why})").format(why=exc)
        return {p: {"ok": "", "error": why} for p, _key in todo}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        why = _("the loader process died (exit {code}): {stderr}").format(
            code=proc.returncode, stderr=proc.stderr.strip()[-300:]
        )
        return {p: {"ok": "", "error": why} for p, _key in todo}
    try:
        data = json.loads(lines[-1])
    except ValueError:
        data = None
    if not isinstance(data, dict):
        why = _("the loader's answer is unreadable")
        return {p: {"ok": "", "error": why} for p, _key in todo}
    return {k: v for k, v in data.items() if isinstance(v, dict)}
