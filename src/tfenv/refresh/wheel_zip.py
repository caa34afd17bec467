"""Read ``*.dist-info/METADATA`` out of a remote wheel with a few range reads.

A wheel is a zip file; its central directory sits at the end, and wheel builders
write the ``.dist-info`` members last, so their directory entries are almost
always inside the file's last 64 KiB. The plan:

1. read the tail; find the end-of-central-directory record;
2. find the ``<name>.dist-info/METADATA`` entry in the part of the central
   directory already read, else read the whole central directory;
3. read that member (local header + data) and inflate it; check its CRC-32.

Zip64 wheels (over 4 GiB) are not supported and are reported as such.
No network code here: the caller passes ``tail(n)`` and ``fetch(start, n)``.
"""

from __future__ import annotations

import re
import struct
import zlib
from typing import Callable

from tfenv.i18n import _

__all__ = ["ZipProblem", "read_files", "read_metadata"]

TAIL = 65536
_EOCD = b"PK\x05\x06"
_CDH = b"PK\x01\x02"
_LFH = b"PK\x03\x04"
_META = re.compile(rb"^[^/]+\.dist-info/METADATA$")
_MAX_MEMBER = 16 * 1024 * 1024


class ZipProblem(Exception):
    """The remote file is not a zip we can read METADATA from."""


Tail = Callable[[int], tuple[int, bytes]]
Fetch = Callable[[int, int], bytes]


def _end_record(tail: Tail) -> tuple[int, bytes, int, int, int]:
    """(tail start, tail bytes, end-record position, directory size, directory offset)."""
    base, data = tail(TAIL)
    pos = data.rfind(_EOCD)
    if pos < 0 or len(data) - pos < 22:
        raise ZipProblem(_("no end-of-central-directory record in the last 64 KiB"))
    _sig, _d, _cd, _n1, _n2, cd_size, cd_offset, _clen = struct.unpack(
        "<4sHHHHIIH", data[pos : pos + 22]
    )
    if cd_offset == 0xFFFFFFFF or cd_size == 0xFFFFFFFF:
        raise ZipProblem(_("the wheel is a zip64 file, which is not supported"))
    return base, data, pos, cd_size, cd_offset


def read_metadata(tail: Tail, fetch: Fetch) -> bytes:
    base, data, pos, cd_size, cd_offset = _end_record(tail)
    rel = cd_offset - base
    if rel >= 0:
        directory = data[rel : rel + cd_size]
        entry = _find_entry(directory, 0)
    else:
        # the directory starts before the tail: look in the part we have first
        entry = _find_entry(data[:pos], -1)
        if entry is None:
            entry = _find_entry(fetch(cd_offset, cd_size), 0)
    if entry is None:
        raise ZipProblem(_("no *.dist-info/METADATA member in the central directory"))
    return _member(fetch, entry, "METADATA")


def read_files(tail: Tail, fetch: Fetch, names: tuple[str, ...]) -> dict[str, bytes]:
    """The members ``names`` (exact paths) of a remote wheel; absent ones are left out.

    Reads the whole central directory (members like a wheel's shipped headers sit
    anywhere in it), then each member found, each checked against its CRC-32.
    """
    base, data, _pos, cd_size, cd_offset = _end_record(tail)
    if cd_size > 8 * _MAX_MEMBER:
        raise ZipProblem(
            _("the central directory is implausibly large ({size} bytes)").format(size=cd_size)
        )
    rel = cd_offset - base
    directory = data[rel : rel + cd_size] if rel >= 0 else fetch(cd_offset, cd_size)
    wanted = {n.encode() for n in names}
    out: dict[str, bytes] = {}
    for p in _walk(directory):
        fields = struct.unpack("<4sHHHHHHIIIHHHHHII", directory[p : p + 46])
        name = directory[p + 46 : p + 46 + fields[10]]
        if name in wanted:
            entry = (fields[4], fields[7], fields[8], fields[16])
            out[name.decode()] = _member(fetch, entry, name.decode())
    return out


def _member(fetch: Fetch, entry: tuple[int, int, int, int], what: str) -> bytes:
    method, crc, csize, offset = entry
    if offset == 0xFFFFFFFF or csize == 0xFFFFFFFF:
        raise ZipProblem(_("the wheel is a zip64 file, which is not supported"))
    if csize > _MAX_MEMBER:
        raise ZipProblem(
            _("the member {what} is implausibly large ({size} bytes)").format(what=what, size=csize)
        )
    head = fetch(offset, 30)
    if head[:4] != _LFH:
        raise ZipProblem(_("no local file header where the directory points"))
    name_len, extra_len = struct.unpack("<HH", head[26:30])
    raw = fetch(offset + 30 + name_len + extra_len, csize) if csize else b""
    body = _inflate(method, raw)
    if zlib.crc32(body) & 0xFFFFFFFF != crc:
        raise ZipProblem(_("the member {what} fails its CRC-32 check").format(what=what))
    return body


def _find_entry(buf: bytes, start_hint: int) -> tuple[int, int, int, int] | None:
    """(method, crc, compressed size, local header offset) of the METADATA entry.

    With ``start_hint == 0`` ``buf`` is a whole central directory walked from
    the start; with ``-1`` it is a suffix of one, searched for entry signatures.
    """
    if start_hint == 0:
        positions = _walk(buf)
    else:
        positions = [m.start() for m in re.finditer(re.escape(_CDH), buf)]
    for p in positions:
        if len(buf) - p < 46:
            continue
        fields = struct.unpack("<4sHHHHHHIIIHHHHHII", buf[p : p + 46])
        method, crc, csize, name_len = fields[4], fields[7], fields[8], fields[10]
        offset = fields[16]
        name = buf[p + 46 : p + 46 + name_len]
        if len(name) == name_len and _META.match(name):
            if offset == 0xFFFFFFFF or csize == 0xFFFFFFFF:
                raise ZipProblem(_("the wheel is a zip64 file, which is not supported"))
            return method, crc, csize, offset
    return None


def _walk(buf: bytes) -> list[int]:
    out: list[int] = []
    p = 0
    while p + 46 <= len(buf) and buf[p : p + 4] == _CDH:
        out.append(p)
        name_len, extra_len, comment_len = struct.unpack("<HHH", buf[p + 28 : p + 34])
        p += 46 + name_len + extra_len + comment_len
    return out


def _inflate(method: int, raw: bytes) -> bytes:
    if method == 0:
        return raw
    if method == 8:
        try:
            return zlib.decompress(raw, -15)
        except zlib.error as exc:
            raise ZipProblem(
                _("the METADATA member does not inflate ({why})").format(why=exc)
            ) from None
    raise ZipProblem(
        _("the METADATA member uses zip compression method {method}").format(method=method)
    )
