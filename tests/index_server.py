"""A real HTTP package index on 127.0.0.1 serving recorded responses, with fault injection.

Layout of the recorded data (``tests/data/index/``, made by ``record_index.py``):

* ``simple/<name>.json``: a PEP 691 project page, file URLs relative
  (``../../files/<filename>``), no host names;
* ``files/<wheel filename>.metadata``: the wheel's METADATA.

Served: ``/simple/<name>/`` (PEP 691 JSON, with ``core-metadata`` hashes added when
``advertise_metadata`` is on), ``/files/<wheel>.metadata``, and ``/files/<wheel>``
as a small synthetic zip holding only ``<dist-info>/METADATA`` (range requests
supported), so both metadata paths of the refresh tool run against real HTTP.

``faults`` maps a request path to a list of actions used up one per request:
an HTTP status (``"500"``, ``"404"``, ...), ``"hang"`` (sleep ``hang_s`` before
answering), ``"truncate"`` (announce the full length, send half, close).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Optional

from tests.http_fixture import FaultLog, FaultyHandler, running, send_body

DATA = Path(__file__).parent / "data" / "index"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@dataclass
class IndexServer(FaultLog):
    """State shared with the handler; tests mutate it between runs."""

    root: Path = DATA
    advertise_metadata: bool = True
    faults: dict[str, list[str]] = field(default_factory=dict)
    hang_s: float = 2.0
    requests: list[str] = field(default_factory=list)
    page_edits: dict[str, Any] = field(default_factory=dict)  # name -> callable(page)
    metadata_edits: dict[str, bytes] = field(default_factory=dict)  # filename -> METADATA
    members: dict[str, dict[str, bytes]] = field(default_factory=dict)  # filename -> extra files
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def metadata(self, filename: str) -> Optional[bytes]:
        if filename in self.metadata_edits:
            return self.metadata_edits[filename]
        path = self.root / "files" / f"{filename}.metadata"
        return path.read_bytes() if path.is_file() else None

    def page(self, name: str) -> Optional[bytes]:
        path = self.root / "simple" / f"{name}.json"
        if not path.is_file():
            return None
        page = json.loads(path.read_text("utf-8"))
        for entry in page["files"]:
            meta = self.metadata(entry["filename"])
            if self.advertise_metadata and meta is not None:
                entry["core-metadata"] = {"sha256": hashlib.sha256(meta).hexdigest()}
        edit = self.page_edits.get(name)
        if edit is not None:
            edit(page)
        return json.dumps(page).encode()


def wheel_zip(filename: str, metadata: bytes, members: Optional[dict[str, bytes]] = None) -> bytes:
    """A minimal zip with the wheel's METADATA member (a filler member and ``members``
    first, as real wheels put their package files before the .dist-info)."""
    dist = "-".join(filename.split("-")[:2])
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pkg/__init__.py", b"# filler\n" * 200)
        for name, body in (members or {}).items():
            zf.writestr(name, body)
        zf.writestr(f"{dist}.dist-info/METADATA", metadata)
        zf.writestr(f"{dist}.dist-info/WHEEL", b"Wheel-Version: 1.0\n")
    return buf.getvalue()


def _handler(state: IndexServer) -> type[BaseHTTPRequestHandler]:
    class Handler(FaultyHandler):
        def reply(self, path: str, body: bytes, ctype: str, *, truncate: bool) -> None:
            rng = self.headers.get("Range")
            if rng and path.endswith(".whl") and not truncate:
                self._send_range(body, rng)
                return
            send_body(self, 200, body, ctype, truncate=truncate)

        def resolve(self, path: str) -> Optional[tuple[bytes, str]]:
            m = re.match(r"^/simple/([^/]+)/$", path)
            if m:
                page = state.page(m.group(1))
                return None if page is None else (page, SIMPLE_JSON)
            m = re.match(r"^/files/([^/]+)$", path)
            return _file(state, m.group(1)) if m else None

        def _send_range(self, body: bytes, rng: str) -> None:
            m = _RANGE.match(rng.strip())
            if not m or (not m.group(1) and not m.group(2)):
                send_body(self, 416, b"", "text/plain")
                return
            total = len(body)
            if not m.group(1):
                start, end = max(0, total - int(m.group(2))), total - 1
            else:
                start = int(m.group(1))
                end = min(int(m.group(2)), total - 1) if m.group(2) else total - 1
            extra = {"Content-Range": f"bytes {start}-{end}/{total}"}
            send_body(self, 206, body[start : end + 1], "application/octet-stream", headers=extra)

    Handler.state = state
    return Handler


def _file(state: IndexServer, name: str) -> Optional[tuple[bytes, str]]:
    if name.endswith(".metadata"):
        meta = state.metadata(name[: -len(".metadata")])
        return None if meta is None else (meta, "application/octet-stream")
    meta = state.metadata(name)
    if meta is None:
        return None
    return wheel_zip(name, meta, state.members.get(name)), "application/zip"


def serve(state: IndexServer) -> Iterator[IndexServer]:
    """Run the server in a thread for the duration of a ``with``/fixture."""
    with running(_handler(state)) as url:
        state.url = url
        yield state
