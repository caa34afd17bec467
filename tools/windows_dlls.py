#!/usr/bin/env python3
"""Derive the DLLs a native-Windows TensorFlow GPU wheel needs, from the wheel itself.

Usage::

    python tools/windows_dlls.py WHEEL... [--json]
    python tools/windows_dlls.py --download tensorflow-gpu==2.0.4 tensorflow==2.3.4 ...
                                 [--python cp37] [--workdir DIR] [--write YAML] [--retrieved DATE]

Per wheel it reads three things, all from the wheel's own files:

- the PE import tables (ordinary and delay-load) of every ``.pyd``/``.dll`` in it: the DLLs
  Windows' loader must find before ``import tensorflow`` can succeed (the Visual C++ runtime:
  ``MSVCP140.dll``, ``VCRUNTIME140.dll``, ...; a CUDA DLL here would be a hard dependency);
- the CUDA configuration the build was made with, ``cuda_config.h`` (shipped under
  ``tensorflow/include``): ``TF_CUDA_VERSION "64_101"``, ``TF_CUBLAS_VERSION "64_10"``, ...;
  TensorFlow's DSO loader (tensorflow/stream_executor/platform/default/dso_loader.cc) opens
  ``<name><version>.dll`` with cudart's ``TF_CUDART_VERSION`` (``TF_CUDA_VERSION`` before that
  define existed), cublasLt's ``TF_CUBLAS_VERSION``, cupti's ``TF_CUDA_VERSION``, each other
  library's own define (``TF_CUDA_LIB_VERSION`` for all of them up to 2.2: see ``LOADER``);
- which of those loader names the main extension module holds as C strings (``"cudart"``,
  ``"cublasLt"``, ...): a library whose name is not in the binary is not loaded by name;
- ``build_info.py``: ``cudart_dll_name``, ``cudnn_dll_name`` and ``msvcp_dll_names`` (what
  tensorflow/python/platform/self_check.py checks along PATH before the import), cross-checked
  against the names derived above (a disagreement is an error, exit 1).

``--download`` takes each ``project==version`` wheel for ``win_amd64`` from the configured package
index (tfenv's own index configuration: ``TFENV_INDEX_URL``, pip's configuration, ...), reads it
in ``--workdir`` and deletes it before the next one. ``--write`` replaces the ``dlls:`` block of
``nvidia/windows_manual.yaml`` with one record per run of consecutive minor series whose DLL sets
agree, citing the wheels read (file path on the index, sha256) and this tool.

Exit status: 0 on success; 1 when build_info.py disagrees with the derived names; 2 when an input
cannot be read (not a wheel, no cuda_config.h: not a CUDA build).

Not part of the tfenv package (it imports tfenv only to find and read the index).
"""

from __future__ import annotations

import argparse
import ast
import datetime
import hashlib
import json
import re
import shutil
import struct
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Optional

from packaging.version import InvalidVersion, Version

# --- PE import tables ----------------------------------------------------------------------------

_IMPORT_DIR = 1
_DELAY_IMPORT_DIR = 13
MAX_IMPORTS = 10_000


class ScanError(Exception):
    """The input cannot be read (not a wheel or PE file, malformed, not a CUDA build)."""


@dataclass(frozen=True)
class _Section:
    vaddr: int
    vsize: int
    raw: int
    rawsize: int


def _u16(data: bytes, off: int) -> int:
    return int(struct.unpack_from("<H", data, off)[0])


def _u32(data: bytes, off: int) -> int:
    return int(struct.unpack_from("<I", data, off)[0])


def _rva_to_offset(sections: Sequence[_Section], rva: int) -> int:
    for s in sections:
        if s.vaddr <= rva < s.vaddr + max(s.vsize, s.rawsize):
            off = s.raw + (rva - s.vaddr)
            if off >= s.raw + s.rawsize:
                break
            return off
    raise ScanError(f"RVA {rva:#x} lies in no section's file data")


def _c_string(data: bytes, off: int, limit: int = 260) -> str:
    end = data.find(b"\x00", off, off + limit)
    if end < 0:
        raise ScanError(f"an import name at {off:#x} is not terminated")
    return data[off:end].decode("ascii", "replace")


def _sections(data: bytes, pe: int) -> tuple[int, int, list[_Section]]:
    """(offset of the data directories, their count, the section table)."""
    nsections = _u16(data, pe + 6)
    opt_size = _u16(data, pe + 20)
    opt = pe + 24
    magic = _u16(data, opt)
    if magic not in (0x20B, 0x10B):  # PE32+, PE32
        raise ScanError(f"unknown optional-header magic {magic:#x}")
    dirs = opt + (112 if magic == 0x20B else 96)
    sec = opt + opt_size
    sections = [
        _Section(
            vaddr=_u32(data, sec + 40 * i + 12),
            vsize=_u32(data, sec + 40 * i + 8),
            raw=_u32(data, sec + 40 * i + 20),
            rawsize=_u32(data, sec + 40 * i + 16),
        )
        for i in range(nsections)
    ]
    return dirs, _u32(data, dirs - 4), sections


def _directory_names(
    data: bytes, sections: Sequence[_Section], rva: int, entry_size: int, name_at: int
) -> list[str]:
    """The DLL names of an import (or delay-import) descriptor table at ``rva``."""
    if rva == 0:
        return []
    off = _rva_to_offset(sections, rva)
    names: list[str] = []
    for n in range(MAX_IMPORTS):
        entry = data[off + n * entry_size : off + (n + 1) * entry_size]
        if len(entry) < entry_size:
            raise ScanError("an import table runs past the end of the file")
        if entry == b"\x00" * entry_size:
            return names
        names.append(_c_string(data, _rva_to_offset(sections, _u32(entry, name_at))))
    raise ScanError("an import table has no end")


def pe_imports(data: bytes) -> tuple[list[str], list[str]]:
    """(imported DLLs, delay-loaded DLLs) of a PE file, in table order."""
    try:
        if data[:2] != b"MZ":
            raise ScanError("not a PE file (no MZ header)")
        pe = _u32(data, 0x3C)
        if data[pe : pe + 4] != b"PE\x00\x00":
            raise ScanError("not a PE file (no PE signature)")
        dirs, ndirs, sections = _sections(data, pe)

        def rva(index: int) -> int:
            return _u32(data, dirs + 8 * index) if index < ndirs else 0

        return (
            _directory_names(data, sections, rva(_IMPORT_DIR), 20, 12),
            _directory_names(data, sections, rva(_DELAY_IMPORT_DIR), 32, 4),
        )
    except struct.error:
        raise ScanError("a PE header runs past the end of the file") from None


# --- what the wheel says -------------------------------------------------------------------------

# The loader's names, and the cuda_config.h define each one's version comes from (the first
# defined one). tensorflow/stream_executor/platform/default/dso_loader.cc: up to TF 2.2 the
# libraries took TF_CUDA_LIB_VERSION and cudart TF_CUDA_VERSION (read at uve/tensorflow
# e08079463bf43e5963acc41da1f57e95603f8080); later each library has its own define, cudart
# TF_CUDART_VERSION and cublasLt cuBLAS's (tensorflow/tensorflow
# 026389f7f824d140f243c608984ce163eb6f5374). cupti takes TF_CUDA_VERSION in both. nvcuda (the
# driver) is opened without a version.
LOADER = {
    "cudart": ("TF_CUDART_VERSION", "TF_CUDA_VERSION"),
    "cublas": ("TF_CUBLAS_VERSION", "TF_CUDA_LIB_VERSION"),
    "cublasLt": ("TF_CUBLAS_VERSION",),
    "cufft": ("TF_CUFFT_VERSION", "TF_CUDA_LIB_VERSION"),
    "curand": ("TF_CURAND_VERSION", "TF_CUDA_LIB_VERSION"),
    "cusolver": ("TF_CUSOLVER_VERSION", "TF_CUDA_LIB_VERSION"),
    "cusparse": ("TF_CUSPARSE_VERSION", "TF_CUDA_LIB_VERSION"),
    "cudnn": ("TF_CUDNN_VERSION",),
    "cupti": ("TF_CUDA_VERSION",),
}
CUDA_LIBS = ("cudart", "cublas", "cublasLt", "cufft", "curand", "cusolver", "cusparse")
_DEFINE_RE = re.compile(r'^\s*#define\s+(TF_[A-Z_]+_VERSION)\s+"([^"]*)"', re.M)
_MSVC_RE = re.compile(r"^(msvcp|vcruntime|concrt)\d+(_\w+)?\.dll$", re.I)
MAX_MEMBER = 1 << 31


@dataclass
class WheelDlls:
    wheel: str
    sha256: str
    main_module: str
    config: dict[str, str]
    loader_names: list[str]  # loader names present as C strings in the main module
    imports: dict[str, list[str]]  # member -> imported DLLs (ordinary and delay-load)
    build_info: dict[str, Any]
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def dll(self, name: str) -> Optional[str]:
        """``cudart64_101.dll`` for ``cudart``; None when the loader does not name it."""
        if name not in self.loader_names:
            return None
        version = next((self.config[d] for d in LOADER[name] if d in self.config), None)
        if version is None:
            return None
        return f"{name}{version}.dll"

    @property
    def cuda(self) -> list[str]:
        return [d for d in (self.dll(n) for n in CUDA_LIBS) if d]

    @property
    def cudnn(self) -> list[str]:
        d = self.dll("cudnn")
        return [d] if d else []

    @property
    def cupti(self) -> Optional[str]:
        return self.dll("cupti")

    @property
    def msvc_imported(self) -> list[str]:
        """The Visual C++ runtime DLLs the wheel's modules import (lower case, sorted)."""
        found = {d.lower() for names in self.imports.values() for d in names if _MSVC_RE.match(d)}
        return sorted(found)

    @property
    def msvc(self) -> list[str]:
        """Every Visual C++ runtime DLL the import needs: imported by a module, or checked along
        PATH by self_check.py before the import (msvcp_dll_names)."""
        return sorted({*self.msvc_imported, *(d.lower() for d in self.msvcp_checked)})

    @property
    def msvcp_checked(self) -> list[str]:
        """What self_check.py checks: ``msvcp_dll_names`` (2.1+), ``msvcp_dll_name`` (2.0)."""
        raw = self.build_info.get("msvcp_dll_names", self.build_info.get("msvcp_dll_name"))
        return [s.strip() for s in raw.split(",") if s.strip()] if isinstance(raw, str) else []

    @property
    def cuda_imported(self) -> list[str]:
        """CUDA/cuDNN DLLs any module imports directly (a hard dependency of the import)."""
        pat = re.compile(r"^(cu|nvcuda|nvinfer)", re.I)
        found = {d for names in self.imports.values() for d in names if pat.match(d)}
        return sorted(found)


def _read_member(zf: zipfile.ZipFile, name: str) -> bytes:
    info = zf.getinfo(name)
    if info.file_size > MAX_MEMBER:
        raise ScanError(f"{name} is larger than {MAX_MEMBER} bytes")
    return zf.read(info)


def _loader_names(data: bytes) -> list[str]:
    """The loader names the module holds: as a C string, or (an 8-letter name: "cusolver",
    "cusparse", "cublasLt") as the 64-bit immediate of a ``mov r64, imm64`` that MSVC emits to
    build the std::string in place."""

    def held(name: bytes) -> bool:
        if b"\x00" + name + b"\x00" in data:
            return True
        mov = rb"[\x48\x49][\xb8-\xbf]" + re.escape(name)
        return len(name) == 8 and re.search(mov, data) is not None

    return [n for n in LOADER if held(n.encode())]


def _literal(node: ast.expr) -> Any:
    """A literal, or ``collections.OrderedDict([...])`` of one (build_info.py from 2.4)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name == "OrderedDict":
            return dict(ast.literal_eval(node.args[0]))
    return ast.literal_eval(node)


def _build_info(text: str) -> dict[str, Any]:
    """build_info.py's values: a ``build_info`` dict (2.1+) or module-level names (2.0)."""
    out: dict[str, Any] = {}
    for node in ast.parse(text).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not isinstance(target, ast.Name):
            continue
        try:
            value = _literal(node.value)
        except (ValueError, TypeError):
            continue
        if target.id == "build_info" and isinstance(value, dict):
            out.update(value)
        else:
            out[target.id] = value
    return out


def scan_wheel(path: Path, digest: str) -> WheelDlls:
    try:
        zf = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise ScanError(f"{path.name}: not a wheel (zip)") from None
    with zf:
        names = zf.namelist()
        config_h = [n for n in names if n.endswith("/cuda/cuda_config.h")]
        if not config_h:
            raise ScanError(f"{path.name}: no cuda_config.h: not a CUDA build")
        config = dict(_DEFINE_RE.findall(_read_member(zf, config_h[0]).decode("utf-8", "replace")))
        info_files = [n for n in names if n.endswith("python/platform/build_info.py")]
        build_info = (
            _build_info(_read_member(zf, info_files[0]).decode("utf-8")) if info_files else {}
        )
        modules = sorted(
            (i for i in zf.infolist() if i.filename.lower().endswith((".pyd", ".dll"))),
            key=lambda i: (-i.file_size, i.filename),
        )
        if not modules:
            raise ScanError(f"{path.name}: no .pyd or .dll")
        imports: dict[str, list[str]] = {}
        loader: list[str] = []
        for info in modules:
            data = _read_member(zf, info.filename)
            ordinary, delayed = pe_imports(data)
            imports[info.filename] = ordinary + [f"{d}" for d in delayed if d not in ordinary]
            if info is modules[0]:
                loader = _loader_names(data)
            del data
    result = WheelDlls(
        wheel=path.name,
        sha256=digest,
        main_module=modules[0].filename,
        config=config,
        loader_names=loader,
        imports=imports,
        build_info=build_info,
    )
    result.problems.extend(cross_check(result))
    return result


def cross_check(w: WheelDlls) -> list[str]:
    """Where build_info.py names a DLL differently from the derived names (an error), except
    the one known difference, which goes to ``w.notes``: from 2.5, build_info.py's
    cudart_dll_name is made from TF_CUDA_VERSION (cudart64_112.dll) while the loader opens
    TF_CUDART_VERSION's name (cudart64_110.dll; CUDA 11.x ships only that one)."""
    out = []
    for key, derived in (("cudart_dll_name", w.dll("cudart")), ("cudnn_dll_name", w.dll("cudnn"))):
        stated = w.build_info.get(key)
        if not isinstance(stated, str) or stated.lower() == (derived or "").lower():
            continue
        from_cuda_version = f"cudart{w.config.get('TF_CUDA_VERSION')}.dll"
        if (
            key == "cudart_dll_name"
            and "TF_CUDART_VERSION" in w.config
            and stated.lower() == from_cuda_version.lower()
        ):
            w.notes.append(
                f"build_info.py's cudart_dll_name {stated} is made from TF_CUDA_VERSION; the "
                f"loader opens {derived} (TF_CUDART_VERSION)"
            )
            continue
        out.append(f"build_info {key} is {stated!r}, the loader's name is {derived!r}")
    return out


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- downloading from the configured index -------------------------------------------------------


@dataclass(frozen=True)
class Fetched:
    path: Path
    source: str  # pypi-files:/packages/... notation (the index's path, not its host)


def _index_path(url: str) -> str:
    m = re.search(r"(/packages/.*)$", url)
    return f"pypi-files:{m.group(1)}" if m else url.rsplit("/", 1)[-1]


def download(spec: str, python: Optional[str], workdir: Path) -> Iterator[Fetched]:
    """The win_amd64 wheel of ``project==version`` (one Python), downloaded into ``workdir``."""
    import httpx

    from tfenv.index_url import configured_index_url
    from tfenv.refresh import make_client
    from tfenv.refresh.simple_api import SimpleIndex

    project, _, version = spec.partition("==")
    if not project or not version:
        raise ScanError(f"{spec!r}: give project==version")
    index_url, origin = configured_index_url()
    if not index_url:
        raise ScanError(f"no package index configured ({origin})")
    client = make_client(300)
    files = SimpleIndex(client, index_url).project(project) or []
    norm = project.replace("-", "_")
    wheels = [
        f
        for f in files
        if f.filename.startswith(f"{norm}-{version}-")
        and f.filename.endswith("-win_amd64.whl")
        and (python is None or f"-{python}-" in f.filename)
    ]
    if not wheels:
        raise ScanError(f"{spec}: no win_amd64 wheel{' for ' + python if python else ''}")
    file = sorted(wheels, key=lambda f: f.filename)[-1]
    target = workdir / file.filename
    try:
        with client.stream("GET", file.url) as resp, target.open("wb") as out:
            resp.raise_for_status()
            for chunk in resp.iter_bytes(1 << 20):
                out.write(chunk)
        yield Fetched(target, _index_path(file.url))
    except httpx.HTTPError as e:
        raise ScanError(f"{file.filename}: {e}") from None
    finally:
        target.unlink(missing_ok=True)


# --- output --------------------------------------------------------------------------------------


@dataclass
class Read:
    version: Version
    source: str
    dlls: WheelDlls

    @property
    def key(self) -> tuple[Any, ...]:
        d = self.dlls
        return (tuple(d.cuda), tuple(d.cudnn), d.cupti, tuple(d.msvc))


def _version_of(wheel: str) -> Version:
    parts = wheel.split("-")
    try:
        return Version(parts[1])
    except (IndexError, InvalidVersion):
        raise ScanError(f"{wheel}: not a wheel's file name (NAME-VERSION-...whl)") from None


def _series(v: Version) -> tuple[int, int]:
    return (v.major, v.minor)


def group(reads: Sequence[Read]) -> list[list[Read]]:
    """Consecutive minor series (by version) whose DLL sets agree."""
    groups: list[list[Read]] = []
    for r in sorted(reads, key=lambda r: r.version):
        if groups and groups[-1][-1].key == r.key:
            groups[-1].append(r)
        else:
            groups.append([r])
    return groups


def _range(rs: Sequence[Read]) -> str:
    lo = _series(rs[0].version)
    hi = _series(rs[-1].version)
    return f">={lo[0]}.{lo[1]},<{hi[0]}.{hi[1] + 1}"


def _flow(items: Sequence[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def render_yaml(reads: Sequence[Read], retrieved: str) -> str:
    lines = ["dlls:"]
    for rs in group(reads):
        d = rs[0].dlls
        lines += [
            f"  - tensorflow: {_quote(_range(rs))}",
            f"    cuda: {_flow(d.cuda)}",
            f"    cudnn: {_flow(d.cudnn)}",
            f"    cupti: {d.cupti or 'null'}",
            f"    msvcp: {_flow(d.msvc)}",
            "    status: established",
            "    source:",
        ]
        for r in rs:
            lines.append(
                "      - "
                + _quote(
                    f"tools/windows_dlls.py on {r.source} (sha256 {r.dlls.sha256}): "
                    f"cuda_config.h {_config_text(r.dlls.config)}; loader names in "
                    f"{r.dlls.main_module}; MSVC DLLs from the PE import tables"
                    + "".join(f"; {n}" for n in r.dlls.notes)
                )
            )
        lines.append(f"    retrieved: {_quote(retrieved)}")
    return "\n".join(lines) + "\n"


def _config_text(config: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(config.items()) if k != "TF_CUDA_TOOLKIT_PATH")


def write_block(yaml_path: Path, block: str) -> None:
    """Replace the top-level ``dlls:`` block of ``yaml_path`` (up to the next top-level key)."""
    text = yaml_path.read_text(encoding="utf-8")
    m = re.search(r"^dlls:\n(?:(?:[ #].*)?\n)*?(?=^\S)", text, re.M)
    if not m:
        raise ScanError(f"{yaml_path}: no top-level dlls: block")
    tmp = yaml_path.with_suffix(".tmp")
    tmp.write_text(text[: m.start()] + block + "\n" + text[m.end() :], encoding="utf-8")
    tmp.replace(yaml_path)


def as_json(r: Read) -> dict[str, Any]:
    d = r.dlls
    return {
        "wheel": d.wheel,
        "source": r.source,
        "sha256": d.sha256,
        "cuda_config": d.config,
        "main_module": d.main_module,
        "loader_names": d.loader_names,
        "cuda": d.cuda,
        "cudnn": d.cudnn,
        "cupti": d.cupti,
        "msvc_imported": d.msvc_imported,
        "msvcp_checked_by_self_check": d.msvcp_checked,
        "cuda_imported_directly": d.cuda_imported,
        "main_module_imports": d.imports[d.main_module],
        "imports": d.imports,
        "build_info": {k: v for k, v in d.build_info.items() if "dll" in k or "version" in k},
        "problems": d.problems,
        "notes": d.notes,
    }


def from_json(record: dict[str, Any]) -> Read:
    """A record printed by --json, read back (--from-json: render or write again without
    downloading). Records without "imports" (written before it was added) keep the main
    module's imports and the union of the runtime and CUDA DLLs the modules import."""
    imports = record.get("imports") or {
        record["main_module"]: record["main_module_imports"],
        "(other modules)": record["msvc_imported"] + record["cuda_imported_directly"],
    }
    w = WheelDlls(
        wheel=record["wheel"],
        sha256=record["sha256"],
        main_module=record["main_module"],
        config=dict(record["cuda_config"]),
        loader_names=list(record["loader_names"]),
        imports={k: list(v) for k, v in imports.items()},
        build_info=dict(record["build_info"]),
    )
    w.problems.extend(cross_check(w))
    return Read(_version_of(w.wheel), record["source"], w)


# --- command line --------------------------------------------------------------------------------


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="windows_dlls.py",
        description="The CUDA, cuDNN and Visual C++ DLLs a native-Windows TensorFlow wheel needs, "
        "read from the wheel (cuda_config.h, the loader's names, PE import tables).",
    )
    p.add_argument("wheels", nargs="*", type=Path, help="win_amd64 wheels already downloaded")
    p.add_argument("--download", nargs="*", default=[], metavar="PROJECT==VERSION")
    p.add_argument(
        "--from-json",
        type=Path,
        help="records printed by an earlier --json run, read back instead of wheels",
    )
    p.add_argument("--python", help="the wheel's Python tag for --download (e.g. cp37)")
    p.add_argument("--workdir", type=Path, help="where --download puts a wheel while it is read")
    p.add_argument("--json", action="store_true", help="print one JSON record per wheel")
    p.add_argument("--write", type=Path, help="replace the dlls: block of this YAML file")
    p.add_argument("--retrieved", default=datetime.date.today().isoformat())
    args = p.parse_args(argv)
    if not args.wheels and not args.download and args.from_json is None:
        p.error("give wheels, --download or --from-json")
    return args


def _read_all(args: argparse.Namespace, workdir: Path) -> Iterator[Read]:
    if args.from_json is not None:
        try:
            records = json.loads(args.from_json.read_text(encoding="utf-8"))
            yield from (from_json(r) for r in records)
        except (ValueError, KeyError, TypeError) as e:
            raise ScanError(f"{args.from_json}: not records printed by --json ({e!r})") from None
    for path in args.wheels:
        if not path.is_file():
            raise ScanError(f"{path}: no such file")
        yield Read(_version_of(path.name), path.name, scan_wheel(path, sha256_of(path)))
    for spec in args.download:
        for fetched in download(spec, args.python, workdir):
            print(f"read {fetched.path.name}", file=sys.stderr)
            dlls = scan_wheel(fetched.path, sha256_of(fetched.path))
            yield Read(_version_of(fetched.path.name), fetched.source, dlls)


def run(args: argparse.Namespace, out: IO[str]) -> int:
    base = args.workdir
    if base is not None:
        base.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="windows_dlls-", dir=base))
    try:
        reads = list(_read_all(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    problems = [f"{r.dlls.wheel}: {p}" for r in reads for p in r.dlls.problems]
    block = render_yaml(reads, args.retrieved)
    if args.write is not None and not problems:
        write_block(args.write, block)
    if args.json:
        json.dump([as_json(r) for r in reads], out, indent=1, sort_keys=True)
        out.write("\n")
    else:
        out.write(block)
    for p in problems:
        print(f"error: {p}", file=sys.stderr)
    return 1 if problems else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        return run(args, sys.stdout)
    except (ScanError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
