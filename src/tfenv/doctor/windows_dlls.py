"""Native Windows: the DLLs an installed TensorFlow (2.0-2.10) loads, looked for along PATH
in PATH's order, as Windows' loader does (``nvidia/windows_manual.yaml`` names them per
release). Finds the missing ones and says which folder to add (or, for a conda environment
that holds them in ``%CONDA_PREFIX%\\Library\\bin``, to activate it); names the other
versions of a missing DLL that are on PATH (the version is in the name: ``cudart64_101.dll``
is CUDA 10.1's runtime, ``cudnn64_7.dll`` cuDNN 7's); warns where another CUDA version's
``bin`` folder comes earlier on PATH than the one the release needs ("DLL hell": the first
copy found wins), naming the DLLs it shadows; reads the cuDNN version from the headers next to
the cuDNN DLL found (``include\\cudnn_version.h``, ``cudnn.h`` before 8.0) and checks it
against the build's and, for cuDNN 8.3-8.9, that ``zlibwapi.dll`` is on PATH.

Each sentence is one whole template (an f-string over plain names), so that a translation
can replace it as a unit."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.doctor.findings import Finding
from tfenv.i18n import _
from tfenv.kb.prose import prose, status_text
from tfenv.models.sentence import Sentence, coded, said
from tfenv.shells import command

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.windows_manual import DllSet

__all__ = ["check_windows_dlls", "cudnn_header_version", "dll_version", "path_dirs"]

_CUDA_BIN = re.compile(r"[\\/]CUDA[\\/]v(\d+)\.(\d+)[\\/]bin[\\/]?$", re.IGNORECASE)
#: ``cudart64_110.dll`` -> ("cudart", "110"); ``cudnn64_8.dll`` -> ("cudnn", "8")
_VERSIONED = re.compile(r"([a-z]+?)64_(\d+)(?:_\d+)?\.dll", re.IGNORECASE)
_DEFINE = re.compile(r"^\s*#\s*define\s+CUDNN_(MAJOR|MINOR|PATCHLEVEL)\s+(\d+)\s*$", re.MULTILINE)
_HEADER_LIMIT = 256 * 1024


def path_dirs(environ: Mapping[str, str]) -> list[str]:
    """PATH's folders in order (Windows' separator; empty entries dropped)."""
    path = next((v for k, v in environ.items() if k.upper() == "PATH"), "")
    return [p.strip().strip('"') for p in path.split(";") if p.strip().strip('"')]


def dll_version(name: str) -> Optional[str]:
    """What a versioned CUDA/cuDNN DLL's name says: ``cudart64_101.dll`` -> "CUDA 10.1",
    ``cudart64_110.dll`` -> "CUDA 11.x" (every CUDA 11 runtime has that name, TensorFlow's
    cuda_configure.bzl), ``cudnn64_7.dll`` -> "cuDNN 7", ``cublas64_11.dll`` -> "cublas
    major 11"; None for a name without a version."""
    m = _VERSIONED.fullmatch(name)
    if m is None:
        return None
    lib, digits = m.group(1).lower(), m.group(2)
    if lib == "cudnn":
        return f"cuDNN {digits}"
    if lib in ("cudart", "cupti") and len(digits) == 3:
        minor = "x" if digits == "110" else digits[2]
        return f"CUDA {digits[:2]}.{minor}"
    if lib == "cudart" and len(digits) <= 2:
        return f"CUDA {digits}"
    return f"{lib} major {digits[:2] if len(digits) > 2 else digits}"


def cudnn_header_version(bin_folder: str) -> Optional[tuple[Version, str]]:
    """The cuDNN version the headers beside a cuDNN ``bin`` folder declare, and the header
    read (``..\\include\\cudnn_version.h`` from cuDNN 8, ``cudnn.h`` before): the zip's
    ``bin``/``include`` pair, kept apart or copied into the CUDA toolkit's folder."""
    from tfenv.fsutil import read_text

    include = Path(bin_folder).parent / "include"
    for header in ("cudnn_version.h", "cudnn.h"):
        try:
            text = read_text(include / header, _HEADER_LIMIT, errors="replace")
        except (OSError, ValueError):
            continue
        parts = dict(_DEFINE.findall(text))
        if "MAJOR" in parts and "MINOR" in parts:
            found = ".".join(parts[k] for k in ("MAJOR", "MINOR", "PATCHLEVEL") if k in parts)
            return Version(found), str(include / header)
    return None


def _listing(folder: str) -> dict[str, str]:
    """Lower-cased file name -> name as found, for one folder (empty where unreadable)."""
    try:
        return {p.name.lower(): p.name for p in Path(folder).iterdir()}
    except OSError:
        return {}


def _first(name: str, dirs: Sequence[str], listings: dict[str, dict[str, str]]) -> Optional[str]:
    return next((d for d in dirs if name.lower() in listings[d]), None)


def check_windows_dlls(
    environ: Mapping[str, str],
    kb: KnowledgeBase,
    tf: Version,
    cuda: Optional[Version],
    cudnn: Optional[Version] = None,
    conda_prefix: Optional[Path] = None,
) -> Optional[list[Finding]]:
    """Findings for TensorFlow ``tf`` on native Windows (None: no DLL list recorded).
    ``cudnn`` is the cuDNN the release was built with; ``conda_prefix`` the conda
    environment it is installed in, if it is one."""
    manual = kb.windows_manual
    dlls = manual.dlls_for(tf)
    if dlls is None:
        return None
    dirs = path_dirs(environ)
    listings = {d: _listing(d) for d in dirs}
    found = {name: _first(name, dirs, listings) for name in dlls.required}
    conda_bin = str(conda_prefix / "Library" / "bin") if conda_prefix is not None else None
    in_conda = _listing(conda_bin) if conda_bin is not None else {}
    out = [
        _missing(dlls, found, kb, cuda, tf, in_conda),
        *_other_versions(found, dirs, listings, tf),
        *_dll_hell(dirs, found, dlls, cuda),
        *_cudnn_checks(dlls, found, kb, cudnn, tf, dirs, listings),
    ]
    return [f for f in out if f is not None]


def _cite_release(dlls: DllSet, tf: Version) -> str:
    """The DLL set's sources: only those read from release ``tf``'s own wheels where the
    set names them (one set covers many releases, each read from its wheels)."""
    from tfenv.kb._fields import Provenance

    prov = dlls.provenance
    own = tuple(s for s in prov.sources if f"/tensorflow-{tf}-" in s)
    return Provenance(own, prov.retrieved).cite() if own else prov.cite()


def _missing(
    dlls: DllSet,
    found: Mapping[str, Optional[str]],
    kb: KnowledgeBase,
    cuda: Optional[Version],
    tf: Version,
    in_conda: Mapping[str, str],
) -> Finding:
    manual = kb.windows_manual
    gone = [n for n, where in found.items() if where is None]
    basis = f"({status_text(dlls.status)}: {_cite_release(dlls, tf)})"
    if not gone:
        where = sorted({w for w in found.values() if w is not None})
        return Finding(
            "windows-dlls",
            "ok",
            said(
                "windows-dlls-ok",
                _("The {len_found} DLLs TensorFlow {tf} loads are on PATH"),
                len_found=len(found),
                tf=tf,
            ),
            said(
                "windows-dlls-where", _("from {where} {basis}"), where=", ".join(where), basis=basis
            ),
        )
    fixes: list[Sentence] = []
    if gone and all(n.lower() in in_conda for n in gone):
        fixes.append(
            said(
                "fix-activate-conda",
                _(
                    "activate the conda environment (conda activate, or the Anaconda Prompt): it "
                    "puts %CONDA_PREFIX%\\Library\\bin, where its cudatoolkit and cuDNN DLLs are, "
                    "on PATH"
                ),
            )
        )
        gone_outside = []
    else:
        gone_outside = gone
    installer = manual.installer(cuda)
    folder = installer.folder if installer else _("the CUDA Toolkit's folder")
    if any(n in dlls.cuda for n in gone_outside):
        fixes.append(
            said(
                "fix-cuda-bin-path",
                _("add {folder}\\bin to PATH (install CUDA Toolkit {version} if it is not there)"),
                folder=folder,
                version=installer.version if installer else cuda,
            )
        )
    if any(n in dlls.cudnn for n in gone_outside):
        fixes.append(
            said(
                "fix-cudnn-copy",
                _(
                    "copy cuDNN's cuda\\bin\\*.dll into {folder}\\bin, or add cuDNN's bin folder "
                    "to PATH"
                ),
                folder=folder,
            )
        )
    if any(n in dlls.msvcp for n in gone_outside):
        fixes.append(
            said(
                "fix-install-redist",
                _("install the {name} ({url})"),
                name=manual.redist_name,
                url=manual.redist_url,
            )
        )
    if gone_outside:
        fixes.append(
            said(
                "fix-new-terminal",
                _("then open a new terminal (or run activate-tfenv.bat / activate-tfenv.ps1)"),
            )
        )
    return Finding(
        "windows-dlls",
        "problem",
        said("windows-dlls-missing", _("Not on PATH: {gone}"), gone=", ".join(gone)),
        said(
            "windows-dlls-missing-detail",
            _(
                "TensorFlow {tf} loads these by name along PATH {basis}; the GPU stays unused "
                "(or the import fails, for the msvcp DLLs) without them."
            ),
            tf=tf,
            basis=basis,
        ),
        coded("fix-steps", _("; ").join(fixes), steps=" ".join(f.code for f in fixes)),
    )


def _other_versions(
    found: Mapping[str, Optional[str]],
    dirs: Sequence[str],
    listings: dict[str, dict[str, str]],
    tf: Version,
) -> list[Finding]:
    """For each missing versioned DLL, the other versions of it on PATH (the wrong CUDA or
    cuDNN installed, or on PATH in place of the right one)."""
    out = []
    for name, where in found.items():
        wanted = _VERSIONED.fullmatch(name)
        version = dll_version(name)
        if where is not None or wanted is None or version is None:
            continue
        lib = wanted.group(1).lower()
        others = []
        for d in dirs:
            for low in sorted(listings[d]):
                other = _VERSIONED.fullmatch(low)
                if other is not None and other.group(1).lower() == lib and low != name.lower():
                    others.append((listings[d][low], d))
        if not others:
            continue
        seen = _("; ").join(
            _("{dll} ({version}) in {folder}").format(
                dll=dll, version=dll_version(dll) or _("version unknown"), folder=folder
            )
            for dll, folder in others
        )
        out.append(
            Finding(
                f"windows-dll-version-{lib}",
                "problem",
                said(
                    "windows-dll-other-version",
                    _("{name} ({version}) is not on PATH; another version of it is"),
                    name=name,
                    version=version,
                ),
                said(
                    "windows-dll-other-version-detail",
                    _(
                        "Found instead: {seen}. A CUDA or cuDNN DLL carries its version in its "
                        "name, and TensorFlow {tf} loads only {name}."
                    ),
                    seen=seen,
                    tf=tf,
                    name=name,
                ),
                said(
                    "fix-install-dll-version",
                    _(
                        "install the {version} that provides {wanted} and put its folder on PATH "
                        "({command} lists the steps for this machine)"
                    ),
                    version=version,
                    wanted=name,
                    command=command(
                        ["tfenv", "resolve", "--tf", f"{tf.major}.{tf.minor}"], "windows"
                    ),
                ),
            )
        )
    return out


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
        if series is None or series == (cuda.major, cuda.minor):
            continue
        taken = sorted(name for name, where in found.items() if where == d)
        shadow = (
            _("TensorFlow takes {dlls} from there.").format(dlls=", ".join(taken))
            if taken
            else _(
                "a DLL of the same name put there later (an older cuDNN or cuBLAS copied "
                "in) would win over the right one."
            )
        )
        out.append(
            Finding(
                "windows-dll-order",
                "warning",
                said(
                    "windows-dll-order",
                    _("CUDA {other}'s bin folder comes before CUDA {cuda}'s on PATH"),
                    other=f"{series[0]}.{series[1]}",
                    cuda=cuda,
                ),
                said(
                    "windows-dll-order-detail",
                    _("{d} is searched first: {shadow}"),
                    d=d,
                    shadow=shadow,
                ),
                said(
                    "fix-path-order",
                    _(
                        "move {folder} after the CUDA {series} folders on PATH, or remove it "
                        "(System Properties > Environment Variables)"
                    ),
                    folder=d,
                    series=f"{cuda.major}.{cuda.minor}",
                ),
            )
        )
    return out


def _cudnn_checks(
    dlls: DllSet,
    found: Mapping[str, Optional[str]],
    kb: KnowledgeBase,
    built: Optional[Version],
    tf: Version,
    dirs: Sequence[str],
    listings: dict[str, dict[str, str]],
) -> list[Finding]:
    """The cuDNN found along PATH: its version (from its headers) against the build's, and
    zlibwapi.dll where that cuDNN needs it (8.3-8.9 on Windows)."""
    manual = kb.windows_manual
    folder = next((found[n] for n in dlls.cudnn if found.get(n)), None)
    if folder is None:
        return []
    read = cudnn_header_version(folder)
    if read is None:
        return [
            Finding(
                "windows-cudnn-version",
                "ok",
                said(
                    "windows-cudnn-unknown",
                    _(
                        "cuDNN's version is not known: no cudnn_version.h or cudnn.h beside "
                        "{folder}"
                    ),
                    folder=folder,
                ),
                said(
                    "windows-cudnn-unknown-detail",
                    _(
                        "The version is read from cuDNN's include folder next to its bin folder. "
                        "{zlib_note}"
                    ),
                    zlib_note=prose(manual, "zlib_note"),
                ),
            )
        ]
    version, header = read
    out = []
    rule = prose(manual, "cudnn_compat_note")
    cite = manual.cudnn_compat_provenance.cite()
    if built is not None and (version.major, version.minor) < (built.major, built.minor):
        out.append(
            Finding(
                "windows-cudnn-version",
                "problem",
                said(
                    "windows-cudnn-old",
                    _(
                        "cuDNN {version} is older than the cuDNN {built} TensorFlow {tf} was built "
                        "with"
                    ),
                    version=version,
                    built=built,
                    tf=tf,
                ),
                said(
                    "windows-cudnn-old-detail",
                    _("{header} says {version}. {rule} ({cite})"),
                    header=header,
                    version=version,
                    rule=rule,
                    cite=cite,
                ),
                said(
                    "fix-install-cudnn",
                    _("install cuDNN {built} (or a later {major}.x) for this CUDA"),
                    built=built,
                    major=built.major,
                ),
            )
        )
    else:
        out.append(
            Finding(
                "windows-cudnn-version",
                "ok",
                said(
                    "windows-cudnn-ok",
                    _("cuDNN {version} (from {header})"),
                    version=version,
                    header=header,
                ),
            )
        )
    if manual.needs_zlib(version):
        zlib = _first(manual.zlib_dll, dirs, listings)
        dll, note = manual.zlib_dll, prose(manual, "zlib_note")
        source = _("{source}, read {date}").format(
            source=manual.zlib_provenance.sources[0], date=manual.zlib_provenance.retrieved
        )
        if zlib is None:
            out.append(
                Finding(
                    "windows-zlib",
                    "problem",
                    said(
                        "windows-zlib-missing",
                        _("{dll} is not on PATH, and cuDNN {version} needs it"),
                        dll=dll,
                        version=version,
                    ),
                    said(
                        "windows-zlib-missing-detail",
                        _(
                            "{note} Without it the first convolution stops the program with 'Could "
                            "not locate {dll}' (source: {source})."
                        ),
                        note=note,
                        dll=dll,
                        source=source,
                    ),
                    said(
                        "fix-zlib",
                        _(
                            "put the 64-bit {dll} (NVIDIA's cuDNN installation guide, 'Installing "
                            "Zlib' for Windows) into {folder}, which is on PATH already"
                        ),
                        dll=dll,
                        folder=folder,
                    ),
                )
            )
        else:
            out.append(
                Finding(
                    "windows-zlib",
                    "ok",
                    said(
                        "windows-zlib-ok",
                        _("{dll} is on PATH (cuDNN {version} needs it)"),
                        dll=dll,
                        version=version,
                    ),
                    said("windows-zlib-where", "{folder}", folder=zlib),
                )
            )
    return out


def _series(folder: str) -> Optional[tuple[int, int]]:
    m = _CUDA_BIN.search(folder)
    return (int(m.group(1)), int(m.group(2))) if m else None
