"""A tiny package index on 127.0.0.1 for the lock tests, with wheels built at test time.

:func:`build_wheels` writes small, real, deterministic wheels (RECORD included,
fixed timestamps) into a folder: a ``tensorflow`` whose METADATA differs per
platform tag (CUDA extras on Linux, ``tensorflow-intel`` on Windows,
``tensorflow-macos`` on macOS), ``nvidia-*`` stand-ins and a dependency chain
(``tensorflow -> absl-py -> six``). :class:`LockIndex` serves them: PEP 691 JSON
or PEP 503 HTML project pages (by ``Accept``), PEP 658 metadata files, the wheels.
Faults as in ``index_server.py``: ``faults`` maps a path to actions used up one
per request, an HTTP status (``"500"``), ``"hang"`` or ``"truncate"``;
``wrong_hash`` lists file names whose advertised sha256 is wrong.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import threading
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Optional

from packaging.utils import canonicalize_name, parse_wheel_filename

from tests.http_fixture import FaultLog, FaultyHandler, running

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
_DATE = (2024, 1, 1, 0, 0, 0)

# (name, version, tag, Requires-Dist lines)
WHEELS: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    (
        "tensorflow",
        "2.15.1",
        "cp311-cp311-manylinux_2_17_x86_64",
        (
            "absl-py>=1.0.0",
            "numpy<2.0.0,>=1.23.5",
            'nvidia-cudnn-cu12==8.9.4.25; extra == "and-cuda"',
            'nvidia-cublas-cu12==12.2.5.6; extra == "and-cuda"',
        ),
    ),
    (
        "tensorflow",
        "2.15.1",
        "cp311-cp311-win_amd64",
        ('tensorflow-intel==2.15.1; platform_system == "Windows"',),
    ),
    (
        "tensorflow",
        "2.15.1",
        "cp311-cp311-macosx_12_0_arm64",
        ('tensorflow-macos==2.15.1; platform_system == "Darwin" and platform_machine == "arm64"',),
    ),
    ("tensorflow", "2.16.1", "cp311-cp311-manylinux_2_17_x86_64", ("absl-py>=1.0.0",)),
    ("tensorflow-intel", "2.15.1", "cp311-cp311-win_amd64", ("absl-py>=1.0.0", "numpy>=1.23.5")),
    ("tensorflow-macos", "2.15.1", "cp311-cp311-macosx_12_0_arm64", ("absl-py>=1.0.0",)),
    ("tensorflow-metal", "1.1.0", "py3-none-macosx_12_0_arm64", ("six>=1.15.0",)),
    ("tensorflow-metal", "1.2.0", "py3-none-macosx_12_0_arm64", ("six>=1.15.0",)),
    ("absl-py", "2.1.0", "py3-none-any", ("six>=1.10",)),
    ("six", "1.16.0", "py2.py3-none-any", ()),
    ("numpy", "1.26.4", "cp311-cp311-manylinux_2_17_x86_64", ()),
    ("numpy", "1.26.4", "cp311-cp311-win_amd64", ()),
    ("numpy", "1.26.4", "cp311-cp311-macosx_12_0_arm64", ()),
    ("nvidia-cudnn-cu12", "8.9.4.25", "py3-none-manylinux1_x86_64", ("nvidia-cublas-cu12",)),
    ("nvidia-cudnn-cu12", "9.1.0.70", "py3-none-manylinux2014_x86_64", ("nvidia-cublas-cu12",)),
    ("nvidia-cublas-cu12", "12.2.5.6", "py3-none-manylinux1_x86_64", ()),
    ("nvidia-cublas-cu12", "12.4.5.8", "py3-none-manylinux2014_x86_64", ()),
    ("tinydep", "1.0", "py3-none-any", ("six",)),
)


def _entry(zf: zipfile.ZipFile, name: str, data: bytes, record: list[str]) -> None:
    info = zipfile.ZipInfo(name, date_time=_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    zf.writestr(info, data)
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")


def metadata_for(name: str, version: str, requires: Sequence[str]) -> bytes:
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if any('extra == "and-cuda"' in r for r in requires):
        lines.append("Provides-Extra: and-cuda")
    lines += [f"Requires-Dist: {r}" for r in requires]
    return ("\n".join(lines) + "\n").encode()


def make_wheel(folder: Path, name: str, version: str, tag: str, requires: Sequence[str]) -> Path:
    """One small, valid, byte-for-byte reproducible wheel."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-{tag}.whl"
    record: list[str] = []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        mod = name.replace("-", "_")
        _entry(zf, f"{mod}/__init__.py", f"__version__ = {version!r}\n".encode(), record)
        _entry(zf, f"{dist}.dist-info/METADATA", metadata_for(name, version, requires), record)
        wheel = f"Wheel-Version: 1.0\nGenerator: tfenv-tests\nRoot-Is-Purelib: true\nTag: {tag}\n"
        _entry(zf, f"{dist}.dist-info/WHEEL", wheel.encode(), record)
        record.append(f"{dist}.dist-info/RECORD,,")
        info = zipfile.ZipInfo(f"{dist}.dist-info/RECORD", date_time=_DATE)
        zf.writestr(info, ("\n".join(record) + "\n").encode())
    path.write_bytes(buf.getvalue())
    return path


def build_wheels(
    folder: Path, wheels: Sequence[tuple[str, str, str, tuple[str, ...]]] = WHEELS
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, version, tag, requires in wheels:
        make_wheel(folder, name, version, tag, requires)
    return folder


def wheel_metadata(path: Path) -> bytes:
    with zipfile.ZipFile(path) as zf:
        member = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        return zf.read(member)


@dataclass
class LockIndex(FaultLog):
    """Serves the wheels in ``folder``; tests mutate the fault fields between runs."""

    folder: Path
    faults: dict[str, list[str]] = field(default_factory=dict)
    wrong_hash: set[str] = field(default_factory=set)  # file names (wheel or .metadata)
    hang_s: float = 5.0
    requests: list[str] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def projects(self) -> dict[str, list[Path]]:
        out: dict[str, list[Path]] = {}
        for whl in sorted(self.folder.glob("*.whl")):
            name = str(parse_wheel_filename(whl.name)[0])
            out.setdefault(name, []).append(whl)
        return out

    def _sha(self, name: str, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        return "0" * 64 if name in self.wrong_hash else digest

    def page_json(self, project: str) -> Optional[bytes]:
        files = self.projects().get(project)
        if files is None:
            return None
        entries = []
        for whl in files:
            meta = wheel_metadata(whl)
            entries.append(
                {
                    "filename": whl.name,
                    "url": f"../../files/{whl.name}",
                    "hashes": {"sha256": self._sha(whl.name, whl.read_bytes())},
                    "core-metadata": {"sha256": self._sha(whl.name + ".metadata", meta)},
                    "size": whl.stat().st_size,
                }
            )
        page = {"meta": {"api-version": "1.1"}, "name": project, "files": entries}
        return json.dumps(page).encode()

    def page_html(self, project: str) -> Optional[bytes]:
        files = self.projects().get(project)
        if files is None:
            return None
        links = []
        for whl in files:
            sha = self._sha(whl.name, whl.read_bytes())
            meta = self._sha(whl.name + ".metadata", wheel_metadata(whl))
            links.append(
                f'<a href="../../files/{html.escape(whl.name)}#sha256={sha}" '
                f'data-dist-info-metadata="sha256={meta}" data-core-metadata="sha256={meta}">'
                f"{html.escape(whl.name)}</a><br/>"
            )
        body = "<!DOCTYPE html><html><body>" + "".join(links) + "</body></html>"
        return body.encode()

    def file(self, name: str) -> Optional[bytes]:
        if name.endswith(".metadata"):
            whl = self.folder / name[: -len(".metadata")]
            return wheel_metadata(whl) if whl.is_file() else None
        path = self.folder / name
        return path.read_bytes() if path.is_file() else None


def _handler(state: LockIndex) -> type[BaseHTTPRequestHandler]:
    class Handler(FaultyHandler):
        def resolve(self, path: str) -> Optional[tuple[bytes, str]]:
            parts = [p for p in path.split("/") if p]
            if len(parts) == 2 and parts[0] == "simple":
                project = str(canonicalize_name(parts[1]))
                if "json" in (self.headers.get("Accept") or ""):
                    body = state.page_json(project)
                    return None if body is None else (body, SIMPLE_JSON)
                body = state.page_html(project)
                return None if body is None else (body, "text/html")
            if len(parts) == 2 and parts[0] == "files":
                data = state.file(parts[1])
                return None if data is None else (data, "application/octet-stream")
            return None

    Handler.state = state
    return Handler


def serve(state: LockIndex) -> Iterator[LockIndex]:
    """Run the index in a thread for the duration of a fixture."""
    with running(_handler(state)) as url:
        state.url = url
        yield state
