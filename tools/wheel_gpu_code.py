#!/usr/bin/env python3
"""Re-derive the GPU-code facts of a TensorFlow wheel (builds.yaml ``compute:``) from the wheel.

Usage::

    python tools/wheel_gpu_code.py WHEEL_OR_SO [--yaml] [--source TEXT] [--library MEMBER]
                                               [--retrieved YYYY-MM-DD] [--kernels REGEX]

A wheel's GPU code sits in CUDA fatbinaries inside one main library:
``tensorflow/libtensorflow_cc.so.2`` from 2.12,
``tensorflow/python/_pywrap_tensorflow_internal.so`` up to 2.11 (``tensorflow_core/python/...``
for 2.0 and 2.1). For a wheel, the library with the most fatbinaries in ``.nv_fatbin`` +
``.rodata`` is taken (``--library`` names one instead); it is extracted to a temporary file, its
ELF section headers are read, and every fatbinary in two sections is walked:

- ``.nv_fatbin``: hand-written CUDA kernels (loaded by the CUDA runtime);
- ``.rodata``: MLIR-generated kernels (TensorFlow's kernel generator, loaded at run time by
  tf_gpu_runtime_wrappers).

``__nv_relfatbin`` (relocatable device code for device linking) is ignored: no kernel the driver
loads.

Per kind of kernel it reports: the number of fatbinaries; SASS archs in every fatbinary and those
in only some (with counts); PTX archs; the PTX ISA from the fatbinary entry header, checked against
the PTX text's ``.version`` where the text can be read; the PTX text's ``.target``. A PTX payload
compressed with LZ4 (entry flag 0x2000) is read when the optional ``lz4`` package is importable;
otherwise its ``.target`` is reported as unknown (``ptx_targets: null`` in ``--yaml``), never
guessed.

``--kernels REGEX`` attributes GPU code to the kernels it holds, for a library that links another
one statically (cuDNN, linked into PyTorch's or MXNet's library, brings its own fatbinaries): the
SASS entries (cubins, LZ4-decompressed where flagged) are read as ELF files and the kernels they
define (their ``.text.<kernel>`` sections) matched against REGEX (Python ``re.search`` on the
mangled name). It reports the fatbinaries of both sections that hold a matching kernel (SASS and
PTX as above, with example names) apart from those that do not: which archs the matched kernels
themselves carry, whatever archs the host project was compiled for. A cubin that cannot be read
(zstd-compressed, an LZ4 block that does not decompress, not ELF) is counted, never guessed.

``--yaml`` prints a ``compute:`` block in the builds.yaml schema: ``sass`` lists the archs present
in every fatbinary of the kind, ``ptx`` the PTX archs present in any, ``ptx_isa`` the PTX ISA (the
highest if the entries disagree) and ``ptx_targets`` the distinct ``.target`` values (null when
one is unknown). What the block cannot say (SASS in only some fatbinaries, PTX missing from some,
several ISAs, an unread target) is printed as a warning on stderr.

Exit status: 0 on success; 1 when a PTX entry header's ISA differs from its text's ``.version``;
2 when the input cannot be read or holds no fatbinary.

Not part of the tfenv package; needs only the standard library (and, optionally, lz4).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib
import json
import mmap
import re
import shutil
import struct
import sys
import tempfile
import zipfile
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Optional, Protocol, Union, cast

# --- ELF -----------------------------------------------------------------------------------------

ELF_MAGIC = b"\x7fELF"
ELFCLASS64 = 2
ELFDATA2LSB = 1
SHT_NOBITS = 8
SHN_XINDEX = 0xFFFF
# e_shoff at 0x28; e_shentsize, e_shnum, e_shstrndx at 0x3A.
_EHDR_SHOFF = struct.Struct("<Q")
_EHDR_SHINFO = struct.Struct("<HHH")
# sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link, sh_info, sh_addralign,
# sh_entsize
_SHDR = struct.Struct("<IIQQQQIIQQ")

# --- CUDA fatbinary ------------------------------------------------------------------------------

# Fatbinary header: magic 0xBA55ED50, version 1, header size 16 (then a u64 size of the entries).
FATBIN_HEADER = b"\x50\xed\x55\xba\x01\x00\x10\x00"
_FATBIN_SIZE = struct.Struct("<Q")
# Entry header: kind, (unknown u16), header size, payload size, compressed size, (unknown u32),
# PTX ISA minor, major, arch; flags at +40; uncompressed size at +56.
_ENTRY = struct.Struct("<HHIQIIHHI")
_FLAGS = struct.Struct("<Q")
ENTRY_PTX = 1
ENTRY_SASS = 2
FLAG_LZ4 = 0x2000
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
MAX_PTX_TEXT = 1 << 30  # refuse to decompress an entry that claims more
TEXT_PREFIX = ".text."  # a cubin's section of one kernel's code: ".text.<mangled name>"

SECTIONS = {".nv_fatbin": "hand_written", ".rodata": "generated"}
KIND_TITLE = {"hand_written": "hand-written kernels", "generated": "MLIR-generated kernels"}

_VERSION_RE = re.compile(rb"^\s*\.version\s+(\d+\.\d+)", re.M)
_TARGET_RE = re.compile(rb"^\s*\.target\s+([A-Za-z0-9_]+)", re.M)


Buffer = Union[bytes, mmap.mmap]  # a library mapped from disk, or a cubin read into memory


class ScanError(Exception):
    """The input cannot be scanned (not a wheel or ELF library, malformed, no fatbinary)."""


class Lz4Block(Protocol):
    def decompress(self, source: bytes, uncompressed_size: int = ...) -> bytes: ...


def lz4_block() -> Optional[Lz4Block]:
    """``lz4.block`` when the optional lz4 package is installed."""
    try:
        return cast(Lz4Block, importlib.import_module("lz4.block"))
    except ImportError:
        return None


@dataclass(frozen=True)
class Section:
    name: str
    offset: int
    size: int


@dataclass(frozen=True)
class PtxText:
    """What the PTX text of one entry says; ``None`` fields could not be read."""

    version: Optional[str]
    target: Optional[str]
    why_unread: Optional[str] = None


@dataclass(frozen=True)
class Entry:
    kind: int
    arch: int
    isa: str
    text: Optional[PtxText] = None
    # SASS read as a cubin (``cubins=True``): the kernels it defines, or why it was not read
    kernels: tuple[str, ...] = ()
    cubin_unread: Optional[str] = None


@dataclass
class KindSummary:
    """The fatbinaries of one section (one kind of kernel)."""

    section: str
    fatbinaries: int = 0
    sass: Counter[int] = field(default_factory=Counter)  # arch -> fatbinaries holding its SASS
    ptx: Counter[int] = field(default_factory=Counter)  # arch -> fatbinaries holding its PTX
    ptx_isa: Counter[str] = field(default_factory=Counter)  # per PTX entry, from the entry header
    ptx_targets: Counter[str] = field(default_factory=Counter)  # per PTX entry, from the text
    ptx_unread: Counter[str] = field(default_factory=Counter)  # why a PTX .target was not read
    isa_checked: int = 0  # PTX entries whose text's .version was read
    isa_mismatches: Counter[str] = field(default_factory=Counter)  # "header 8.3, text 8.4"
    other_entries: int = 0

    def add(self, entries: Sequence[Entry]) -> None:
        self.fatbinaries += 1
        self.sass.update({e.arch for e in entries if e.kind == ENTRY_SASS})
        self.ptx.update({e.arch for e in entries if e.kind == ENTRY_PTX})
        for e in entries:
            if e.kind == ENTRY_PTX:
                self._add_ptx(e.isa, e.text or PtxText(None, None, "not read"))
            elif e.kind != ENTRY_SASS:
                self.other_entries += 1

    def _add_ptx(self, isa: str, text: PtxText) -> None:
        self.ptx_isa[isa] += 1
        if text.target is None:
            self.ptx_unread[text.why_unread or "no .target line"] += 1
        else:
            self.ptx_targets[text.target] += 1
        if text.version is not None:
            self.isa_checked += 1
        if text.version is not None and text.version != isa:
            self.isa_mismatches[f"header {isa}, text {text.version}"] += 1

    @property
    def ptx_entries(self) -> int:
        return sum(self.ptx_isa.values())

    def sass_in_every(self) -> list[int]:
        return sorted(a for a, n in self.sass.items() if n == self.fatbinaries)

    def sass_in_some(self) -> list[int]:
        return sorted(a for a, n in self.sass.items() if n < self.fatbinaries)


@dataclass
class LibraryScan:
    name: str
    size: int
    kinds: dict[str, KindSummary]

    def fatbinaries(self) -> int:
        return sum(k.fatbinaries for k in self.kinds.values())


# --- ELF section headers -------------------------------------------------------------------------


def _section_headers(buf: Buffer) -> tuple[list[tuple[int, ...]], int]:
    """The raw section headers and the index of the section-name table."""
    if len(buf) < 64 or buf[:4] != ELF_MAGIC:
        raise ScanError("not an ELF file")
    if buf[4] != ELFCLASS64 or buf[5] != ELFDATA2LSB:
        raise ScanError("not a 64-bit little-endian ELF file")
    (shoff,) = _EHDR_SHOFF.unpack_from(buf, 0x28)
    shentsize, shnum, shstrndx = _EHDR_SHINFO.unpack_from(buf, 0x3A)
    if shoff == 0:
        return [], 0
    if shentsize < _SHDR.size or shoff + shentsize > len(buf):
        raise ScanError("malformed ELF section header table")
    first = _SHDR.unpack_from(buf, shoff)
    if shnum == 0:  # extended numbering: the count is in section 0's sh_size
        shnum = first[5]
    if shstrndx == SHN_XINDEX:  # ... and the name table's index in its sh_link
        shstrndx = first[6]
    if shoff + shnum * shentsize > len(buf) or shstrndx >= shnum:
        raise ScanError("malformed ELF section header table")
    return [_SHDR.unpack_from(buf, shoff + i * shentsize) for i in range(shnum)], shstrndx


def elf_sections(buf: Buffer) -> list[Section]:
    """The named sections of a 64-bit little-endian ELF file that have bytes in the file."""
    headers, shstrndx = _section_headers(buf)
    if not headers:
        return []
    names_at, names_end = headers[shstrndx][4], headers[shstrndx][4] + headers[shstrndx][5]
    sections = []
    for sh_name, sh_type, _flags, _addr, offset, size, *_rest in headers:
        if sh_type == SHT_NOBITS or offset + size > len(buf):
            continue
        end = buf.find(b"\0", names_at + sh_name, names_end)
        if end < 0:
            raise ScanError("malformed ELF section name table")
        name = buf[names_at + sh_name : end].decode("utf-8", "replace")
        sections.append(Section(name, offset, size))
    return sections


# --- fatbinary walk ------------------------------------------------------------------------------


def find_fatbinaries(buf: Buffer, section: Section) -> Iterator[tuple[int, int]]:
    """(start of the entries, end) of each fatbinary that lies wholly inside the section."""
    start, limit = section.offset, section.offset + section.size
    while (i := buf.find(FATBIN_HEADER, start, limit)) >= 0:
        (size,) = _FATBIN_SIZE.unpack_from(buf, i + 8)
        end = i + 16 + size
        if size == 0 or end > limit:
            start = i + 4
            continue
        yield i + 16, end
        start = end


def read_entries(
    buf: Buffer, start: int, end: int, lz4: Optional[Lz4Block], *, cubins: bool = False
) -> list[Entry]:
    """The entries of one fatbinary (SASS, PTX with its text, other kinds); ``cubins``: the
    kernels each SASS entry defines, too."""
    entries = []
    j = start
    while j + _ENTRY.size <= end:
        kind, _u, header_size, payload_size, packed_size, _u2, minor, major, arch = (
            _ENTRY.unpack_from(buf, j)
        )
        if header_size < _ENTRY.size or j + header_size + payload_size > end:
            break
        isa = f"{major}.{minor}"
        if kind == ENTRY_PTX:
            text = ptx_text(buf, j, header_size, payload_size, packed_size, lz4)
            entries.append(Entry(kind, arch, isa, text))
        elif kind == ENTRY_SASS and cubins:
            cubin, why = entry_payload(buf, j, header_size, payload_size, packed_size, lz4)
            kernels = cubin_kernels(cubin) if cubin is not None else None
            if cubin is not None and kernels is None:
                why = "not an ELF cubin"
            entries.append(Entry(kind, arch, isa, None, tuple(kernels or ()), why))
        else:
            entries.append(Entry(kind, arch, isa))
        j += header_size + payload_size
    return entries


def entry_payload(
    buf: Buffer,
    j: int,
    header_size: int,
    payload_size: int,
    packed_size: int,
    lz4: Optional[Lz4Block],
) -> tuple[Optional[bytes], Optional[str]]:
    """One entry's payload, LZ4-decompressed where flagged; or None and why it was not read."""
    payload = bytes(buf[j + header_size : j + header_size + payload_size])
    flags = _FLAGS.unpack_from(buf, j + 40)[0] if header_size >= 48 else 0
    if payload[:4] == ZSTD_MAGIC:
        return None, "zstd-compressed"
    if flags & FLAG_LZ4:
        if lz4 is None:
            return None, "LZ4-compressed; install lz4 to read it"
        size = _FLAGS.unpack_from(buf, j + 56)[0] if header_size >= 64 else 0
        data = lz4_decompress(lz4, payload, packed_size, size)
        if data is None:
            return None, "LZ4 payload does not decompress"
        return data, None
    return payload, None


def cubin_kernels(cubin: bytes) -> Optional[list[str]]:
    """The kernels a cubin defines (the names of its ``.text.<kernel>`` sections, mangled);
    None when it is not a 64-bit little-endian ELF file."""
    try:
        sections = elf_sections(cubin)
    except ScanError:
        return None
    return [s.name[len(TEXT_PREFIX) :] for s in sections if s.name.startswith(TEXT_PREFIX)]


def ptx_text(
    buf: Buffer,
    j: int,
    header_size: int,
    payload_size: int,
    packed_size: int,
    lz4: Optional[Lz4Block],
) -> PtxText:
    """The ``.version`` and ``.target`` of one PTX entry's text (LZ4-decompressed where flagged)."""
    payload, why = entry_payload(buf, j, header_size, payload_size, packed_size, lz4)
    if payload is None:
        return PtxText(None, None, why)
    text = payload.split(b"\0", 1)[0]
    version, target = _VERSION_RE.search(text), _TARGET_RE.search(text)
    return PtxText(
        version.group(1).decode() if version else None,
        target.group(1).decode() if target else None,
        None if target else "no .target line",
    )


def lz4_decompress(lz4: Lz4Block, payload: bytes, packed_size: int, size: int) -> Optional[bytes]:
    """An LZ4 block, cut to its compressed size where known (the payload is padded)."""
    if not 0 < size <= MAX_PTX_TEXT:
        return None
    attempts = [payload[:packed_size]] if 0 < packed_size < len(payload) else []
    for block in [*attempts, payload]:
        try:
            return lz4.decompress(block, uncompressed_size=size)
        except Exception:  # lz4.block.LZ4BlockError, or a wrong cut
            continue
    return None


def scan_library(
    path: Path, name: str, lz4: Optional[Lz4Block], *, texts: bool = True
) -> LibraryScan:
    """Walk the fatbinaries of ``.nv_fatbin`` and ``.rodata``; ``texts=False`` only counts them."""
    size = path.stat().st_size
    if size == 0:
        raise ScanError(f"{name}: empty file")
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        try:
            sections = elf_sections(buf)
        except ScanError as e:
            raise ScanError(f"{name}: {e}") from None
        kinds: dict[str, KindSummary] = {}
        for section in sections:
            kind = SECTIONS.get(section.name)
            if kind is None:
                continue
            summary = kinds.setdefault(kind, KindSummary(section.name))
            for start, end in find_fatbinaries(buf, section):
                if texts:
                    summary.add(read_entries(buf, start, end, lz4))
                else:
                    summary.fatbinaries += 1
    return LibraryScan(name, size, kinds)


@dataclass
class KernelScan:
    """A library's fatbinaries (both sections) split by whether one of their cubins defines a
    kernel whose name matches ``pattern``."""

    name: str
    size: int
    pattern: str
    matched: KindSummary = field(default_factory=lambda: KindSummary("matched"))
    other: KindSummary = field(default_factory=lambda: KindSummary("other"))
    kernels: set[str] = field(default_factory=set)  # the matching kernels' (mangled) names
    unread: Counter[str] = field(default_factory=Counter)  # why a cubin was not read


def scan_kernels(
    path: Path, name: str, pattern: re.Pattern[str], lz4: Optional[Lz4Block]
) -> KernelScan:
    """Read every cubin of ``.nv_fatbin`` and ``.rodata`` and sort the fatbinaries by whether
    they hold a kernel whose name matches ``pattern``."""
    scan = KernelScan(name, path.stat().st_size, pattern.pattern)
    if scan.size == 0:
        raise ScanError(f"{name}: empty file")
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        try:
            sections = elf_sections(buf)
        except ScanError as e:
            raise ScanError(f"{name}: {e}") from None
        for section in sections:
            if section.name not in SECTIONS:
                continue
            for start, end in find_fatbinaries(buf, section):
                entries = read_entries(buf, start, end, lz4, cubins=True)
                scan.unread.update(e.cubin_unread for e in entries if e.cubin_unread)
                hits = {k for e in entries for k in e.kernels if pattern.search(k)}
                (scan.matched if hits else scan.other).add(entries)
                scan.kernels |= hits
    if scan.matched.fatbinaries + scan.other.fatbinaries == 0:
        raise ScanError(f"{name}: no fatbinary in .nv_fatbin or .rodata")
    return scan


# --- wheels --------------------------------------------------------------------------------------


def is_shared_library(member: str) -> bool:
    base = member.rsplit("/", 1)[-1]
    return base.endswith(".so") or ".so." in base


def extract(source: IO[bytes], target: Path) -> None:
    with target.open("wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)


def scan_wheel(
    wheel: Path, workdir: Path, library: Optional[str], lz4: Optional[Lz4Block]
) -> tuple[LibraryScan, list[LibraryScan]]:
    """The main library's scan, and the fatbinary counts of the other libraries."""
    path, name, others = pick_library(wheel, workdir, library)
    return scan_library(path, name, lz4), others


def pick_library(
    wheel: Path, workdir: Path, library: Optional[str]
) -> tuple[Path, str, list[LibraryScan]]:
    """The main library (``library``, or the one with most fatbinaries) extracted into
    ``workdir`` with its member name, and the fatbinary counts of the other libraries."""
    try:
        archive = zipfile.ZipFile(wheel)
    except zipfile.BadZipFile:
        raise ScanError(f"{wheel.name}: neither a wheel (zip) nor an ELF library") from None
    with archive:
        members = [
            i for i in archive.infolist() if not i.is_dir() and is_shared_library(i.filename)
        ]
        if library is not None:
            members = [i for i in members if i.filename == library]
            if not members:
                raise ScanError(f"{wheel.name}: no shared library {library!r} in the wheel")
        best: Optional[tuple[LibraryScan, Path]] = None
        others: list[LibraryScan] = []
        for n, info in enumerate(sorted(members, key=lambda i: i.filename)):
            path = workdir / f"lib{n}"
            with archive.open(info) as member:
                extract(member, path)
            try:
                counted = scan_library(path, info.filename, None, texts=False)
            except ScanError:  # a .so that is not a 64-bit ELF file: no GPU code to find
                path.unlink()
                continue
            if best is None or counted.fatbinaries() > best[0].fatbinaries():
                if best is not None:
                    others.append(best[0])
                    best[1].unlink()
                best = (counted, path)
            else:
                others.append(counted)
                path.unlink()
    if best is None or best[0].fatbinaries() == 0:
        raise ScanError(
            f"{wheel.name}: no fatbinary in .nv_fatbin or .rodata of any shared library"
        )
    others = sorted(
        (o for o in others if o.fatbinaries()), key=lambda o: (-o.fatbinaries(), o.name)
    )
    return best[1], best[0].name, others


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# --- output --------------------------------------------------------------------------------------


def cc(arch: int) -> str:
    """A fatbinary arch number as a compute capability: 89 -> "8.9", 120 -> "12.0"."""
    return f"{arch // 10}.{arch % 10}"


def _isa_key(isa: str) -> tuple[int, ...]:
    return tuple(int(p) for p in isa.split("."))


def _counted(counts: Counter[str], total: int) -> str:
    return ", ".join(f"{k} ({n}/{total})" for k, n in sorted(counts.items()))


def describe_kind(kind: str, summary: Optional[KindSummary]) -> list[str]:
    section = next(s for s, k in SECTIONS.items() if k == kind)
    return describe_summary(f"{KIND_TITLE[kind]} ({section})", summary)


def describe_summary(head: str, summary: Optional[KindSummary]) -> list[str]:
    if summary is None or summary.fatbinaries == 0:
        return [f"{head}: no fatbinaries"]
    n, p = summary.fatbinaries, summary.ptx_entries
    some = summary.sass_in_some()
    lines = [
        f"{head}: {n} fatbinaries",
        f"  SASS in every fatbinary: {', '.join(cc(a) for a in summary.sass_in_every()) or 'none'}",
        "  SASS in some: "
        + (", ".join(f"{cc(a)} ({summary.sass[a]}/{n})" for a in some) if some else "none"),
        "  PTX: "
        + (", ".join(f"{cc(a)} ({m}/{n})" for a, m in sorted(summary.ptx.items())) or "none"),
    ]
    if p:
        lines.append(f"  PTX ISA (entry header): {_counted(summary.ptx_isa, p)}")
        if summary.isa_mismatches:
            check = f"DIFFERS: {_counted(summary.isa_mismatches, p)}"
        else:
            check = f"same as the header ({summary.isa_checked}/{p} read)"
        lines.append(f"  PTX ISA in the text (.version): {check}")
        targets = [f"{t} ({m}/{p})" for t, m in sorted(summary.ptx_targets.items())]
        targets += [f"unknown ({m}/{p}: {why})" for why, m in sorted(summary.ptx_unread.items())]
        lines.append(f"  PTX .target: {', '.join(targets)}")
    if summary.other_entries:
        lines.append(f"  other entries (neither SASS nor PTX): {summary.other_entries}")
    return lines


def render_table(scan: LibraryScan, others: Sequence[LibraryScan], source: str) -> str:
    lines = [source, f"library: {scan.name} ({scan.size} bytes)"]
    lines += describe_kind("hand_written", scan.kinds.get("hand_written"))
    lines += describe_kind("generated", scan.kinds.get("generated"))
    if others:
        listed = ", ".join(f"{o.name} ({o.fatbinaries()})" for o in others)
        lines.append(f"other libraries with fatbinaries in .nv_fatbin/.rodata: {listed}")
    return "\n".join(lines) + "\n"


KERNEL_EXAMPLES = 3
EXAMPLE_WIDTH = 100


def render_kernels(scan: KernelScan, source: str) -> str:
    total = scan.matched.fatbinaries + scan.other.fatbinaries
    lines = [
        source,
        f"library: {scan.name} ({scan.size} bytes)",
        f"kernels matching {scan.pattern!r}: {len(scan.kernels)}, in {scan.matched.fatbinaries} "
        f"of {total} fatbinaries (.nv_fatbin and .rodata)",
    ]
    for name in sorted(scan.kernels, key=lambda k: (len(k), k))[:KERNEL_EXAMPLES]:
        cut = name if len(name) <= EXAMPLE_WIDTH else name[: EXAMPLE_WIDTH - 3] + "..."
        lines.append(f"  e.g. {cut}")
    lines += describe_summary("fatbinaries with a matching kernel", scan.matched)
    lines += describe_summary("fatbinaries without one", scan.other)
    if scan.unread:
        listed = ", ".join(f"{why} ({n})" for why, n in sorted(scan.unread.items()))
        lines.append(f"cubins not read (their kernels unknown): {listed}")
    return "\n".join(lines) + "\n"


def _q(value: str) -> str:
    """A YAML double-quoted scalar (a JSON string is one)."""
    return json.dumps(value)


def _qlist(values: Sequence[str]) -> str:
    return "[" + ", ".join(_q(v) for v in values) + "]"


def kind_flow(summary: Optional[KindSummary]) -> str:
    if summary is None or summary.fatbinaries == 0:
        return "null"
    isa = max(summary.ptx_isa, key=_isa_key) if summary.ptx_isa else None
    targets = "null" if summary.ptx_unread else _qlist(sorted(summary.ptx_targets))
    return (
        f"{{sass: {_qlist([cc(a) for a in summary.sass_in_every()])}, "
        f"ptx: {_qlist([cc(a) for a in sorted(summary.ptx)])}, "
        f"ptx_isa: {_q(isa) if isa else 'null'}, ptx_targets: {targets}}}"
    )


def render_yaml(scan: LibraryScan, source: str, retrieved: str) -> str:
    line = (
        f"{source} {scan.name}: .nv_fatbin (hand-written) and .rodata (MLIR-generated) "
        "fatbinaries, scanned with tools/wheel_gpu_code.py"
    )
    return (
        "compute:\n"
        f"  hand_written: {kind_flow(scan.kinds.get('hand_written'))}\n"
        f"  generated: {kind_flow(scan.kinds.get('generated'))}\n"
        "  source:\n"
        f"    - {_q(line)}\n"
        f"  retrieved: {_q(retrieved)}\n"
    )


def yaml_warnings(scan: LibraryScan) -> list[str]:
    """What the ``compute:`` block leaves out or summarises."""
    warnings = []
    for kind in ("hand_written", "generated"):
        summary = scan.kinds.get(kind)
        if summary is None or summary.fatbinaries == 0:
            continue
        n = summary.fatbinaries
        some = summary.sass_in_some()
        if some:
            listed = ", ".join(f"{cc(a)} ({summary.sass[a]}/{n})" for a in some)
            warnings.append(f"{kind}: SASS in only some fatbinaries, left out of sass: {listed}")
        partial = [f"{cc(a)} ({m}/{n})" for a, m in sorted(summary.ptx.items()) if m < n]
        if partial:
            warnings.append(f"{kind}: PTX not in every fatbinary: {', '.join(partial)}")
        if len(summary.ptx_isa) > 1:
            warnings.append(
                f"{kind}: several PTX ISAs ({_counted(summary.ptx_isa, summary.ptx_entries)}); "
                "ptx_isa gives the highest"
            )
        if summary.ptx_unread:
            warnings.append(f"{kind}: a PTX .target could not be read; ptx_targets is null")
    return warnings


# --- command line --------------------------------------------------------------------------------

_SHA256_RE = re.compile(r"\b[0-9a-f]{64}\b")


def source_text(given: Optional[str], path: Path, digest: str) -> str:
    """``--source`` (or the file name) with the file's sha256, which must match a stated one."""
    text = given if given is not None else path.name
    stated = _SHA256_RE.findall(text.lower())
    if any(s != digest for s in stated):
        raise ScanError(f"--source states sha256 {stated[0]}, but {path.name} has {digest}")
    return text if stated else f"{text} (sha256 {digest})"


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="wheel_gpu_code.py",
        description="Which GPU code (SASS, PTX, PTX ISA and .target) a TensorFlow wheel or library "
        "carries, per kind of kernel: hand-written (.nv_fatbin) and MLIR-generated (.rodata).",
    )
    parser.add_argument("path", type=Path, help="a wheel (.whl) or a shared library")
    parser.add_argument("--yaml", action="store_true", help="print a builds.yaml compute: block")
    parser.add_argument(
        "--source",
        help="how to cite the file, e.g. 'pypi-files:/packages/.../NAME.whl'; its sha256 is added "
        "(or checked, where the text states one)",
    )
    parser.add_argument(
        "--library", help="the wheel member to scan, instead of the one with most code"
    )
    parser.add_argument(
        "--kernels",
        metavar="REGEX",
        help="report apart the fatbinaries whose cubins define a kernel whose (mangled) name "
        "matches REGEX, e.g. 'cudnn' for a statically linked cuDNN (a table only)",
    )
    parser.add_argument(
        "--retrieved",
        default=datetime.date.today().isoformat(),
        help="date for --yaml (default: today)",
    )
    args = parser.parse_args(argv)
    if args.kernels is not None and args.yaml:
        parser.error("--kernels prints a table, not a --yaml block")
    if args.kernels is not None:
        try:
            args.kernels = re.compile(args.kernels)
        except re.error as e:
            parser.error(f"--kernels: not a regular expression: {e}")
    return args


def run(args: argparse.Namespace) -> int:
    path: Path = args.path
    if not path.is_file():
        raise ScanError(f"{path}: no such file")
    lz4 = lz4_block()
    if args.kernels is not None:
        return run_kernels(path, args, lz4)
    others: list[LibraryScan] = []
    if zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="wheel_gpu_code-") as workdir:
            scan, others = scan_wheel(path, Path(workdir), args.library, lz4)
    else:
        scan = scan_library(path, path.name, lz4)
        if scan.fatbinaries() == 0:
            raise ScanError(f"{path.name}: no fatbinary in .nv_fatbin or .rodata")
    source = source_text(args.source, path, sha256_of(path))
    if args.yaml:
        sys.stdout.write(render_yaml(scan, source, args.retrieved))
        for warning in yaml_warnings(scan):
            print(f"warning: {warning}", file=sys.stderr)
    else:
        sys.stdout.write(render_table(scan, others, source))
    mismatched = any(k.isa_mismatches for k in scan.kinds.values())
    if mismatched:
        print("error: a PTX entry header's ISA differs from its text's .version", file=sys.stderr)
    return 1 if mismatched else 0


def run_kernels(path: Path, args: argparse.Namespace, lz4: Optional[Lz4Block]) -> int:
    if zipfile.is_zipfile(path):
        with tempfile.TemporaryDirectory(prefix="wheel_gpu_code-") as workdir:
            library, name, _others = pick_library(path, Path(workdir), args.library)
            scan = scan_kernels(library, name, args.kernels, lz4)
    else:
        scan = scan_kernels(path, path.name, args.kernels, lz4)
    sys.stdout.write(render_kernels(scan, source_text(args.source, path, sha256_of(path))))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        return run(args)
    except (ScanError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
