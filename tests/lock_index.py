"""A tiny package index on 127.0.0.1 for the lock tests, with wheels built at test time.

:func:`build_wheels` writes small, real, deterministic wheels (RECORD included,
fixed timestamps) into a folder: a ``tensorflow`` whose METADATA differs per
platform tag (CUDA extras on Linux, ``tensorflow-intel`` on Windows,
``tensorflow-macos`` on macOS), ``nvidia-*`` stand-ins and a dependency chain
(``tensorflow -> absl-py -> six``). :class:`LockIndex` serves them: PEP 691 JSON
or PEP 503 HTML project pages (by ``Accept``), PEP 658 metadata files, the wheels,
and sdists (``make_sdist``; listed, never built by the tests). ``file_info`` adds
PEP 691 keys to a file's entry (``requires-python``, ``yanked``).
Faults as in ``index_server.py``: ``faults`` maps a path to actions used up one
per request, an HTTP status (``"500"``), ``"hang"`` or ``"truncate"``;
``wrong_hash`` lists file names whose advertised sha256 is wrong.

For the lock tests: :data:`LOCK_CONFIG` (four targets: gpu, cpu, win, mac),
:func:`lock_project_folder` (a project holding it), and the fixtures ``wheels`` (built
once per test module) and ``index`` (serving them), which a test module takes with
``from tests.lock_index import index_fixture, wheels_fixture  # noqa: F401``.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import html
import io
import json
import os
import tarfile
import threading
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Optional

import pytest
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename

from tests.http_fixture import FaultLog, FaultyHandler, running, send_body

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
LOCK_CONFIG = Path(__file__).parent / "data" / "lock" / "tfenv.toml"
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
    # CPU plans install the CPU-only distribution where its wheel is smaller (routes/cpu.py)
    (
        "tensorflow-cpu",
        "2.15.1",
        "cp311-cp311-manylinux_2_17_x86_64",
        ("absl-py>=1.0.0", "numpy<2.0.0,>=1.23.5"),
    ),
    ("tensorflow-cpu", "2.16.1", "cp311-cp311-manylinux_2_17_x86_64", ("absl-py>=1.0.0",)),
    # 2.10.1 declares an open numpy>=1.20 but needs numpy<2 (data/tensorflow/runtime.yaml):
    # the index offers a NumPy 2 that a lock without the constraint would take
    ("tensorflow-cpu", "2.10.1", "cp310-cp310-manylinux_2_17_x86_64", ("numpy>=1.20",)),
    ("numpy", "1.26.4", "cp310-cp310-manylinux_2_17_x86_64", ()),
    # TensorBoard before 2.21 needs setuptools<82 to start (data/tensorflow/tensorboard.yaml)
    ("setuptools", "81.0.0", "py3-none-any", ()),
    ("setuptools", "84.2.1", "py3-none-any", ()),
    ("numpy", "2.2.6", "cp310-cp310-manylinux_2_17_x86_64", ()),
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


def metadata_for(
    name: str, version: str, requires: Sequence[str], requires_python: Optional[str] = None
) -> bytes:
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if requires_python:
        lines.append(f"Requires-Python: {requires_python}")
    if any('extra == "and-cuda"' in r for r in requires):
        lines.append("Provides-Extra: and-cuda")
    lines += [f"Requires-Dist: {r}" for r in requires]
    return ("\n".join(lines) + "\n").encode()


def make_wheel(
    folder: Path,
    name: str,
    version: str,
    tag: str,
    requires: Sequence[str],
    requires_python: Optional[str] = None,
    module: Optional[bytes] = None,
    import_name: Optional[str] = None,
) -> Path:
    """One small, valid, byte-for-byte reproducible wheel (``module``: the text of its
    ``__init__.py``, default one line setting ``__version__``; ``import_name``: its
    package's name, default the distribution's)."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-{tag}.whl"
    record: list[str] = []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        # the CPU-only distribution ships the same import package as tensorflow
        cpu = "tensorflow" if name == "tensorflow-cpu" else None
        mod = import_name or cpu or name.replace("-", "_")
        init = module if module is not None else f"__version__ = {version!r}\n".encode()
        _entry(zf, f"{mod}/__init__.py", init, record)
        metadata = metadata_for(name, version, requires, requires_python)
        _entry(zf, f"{dist}.dist-info/METADATA", metadata, record)
        wheel = f"Wheel-Version: 1.0\nGenerator: tfenv-tests\nRoot-Is-Purelib: true\nTag: {tag}\n"
        _entry(zf, f"{dist}.dist-info/WHEEL", wheel.encode(), record)
        record.append(f"{dist}.dist-info/RECORD,,")
        info = zipfile.ZipInfo(f"{dist}.dist-info/RECORD", date_time=_DATE)
        zf.writestr(info, ("\n".join(record) + "\n").encode())
    path.write_bytes(buf.getvalue())
    return path


def make_sdist(folder: Path, name: str, version: str) -> Path:
    """A tiny source distribution (PKG-INFO only): listed by the index, never built here."""
    dist = f"{canonicalize_name(name).replace('-', '_')}-{version}"
    path = folder / f"{dist}.tar.gz"
    data = metadata_for(name, version, ())
    buf = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w") as tar,
    ):
        info = tarfile.TarInfo(f"{dist}/PKG-INFO")
        info.size, info.mtime, info.mode = len(data), 0, 0o644
        tar.addfile(info, io.BytesIO(data))
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


def _project_of(filename: str) -> Optional[str]:
    if filename.endswith(".whl"):
        return str(parse_wheel_filename(filename)[0])
    if filename.endswith(".tar.gz"):
        return str(parse_sdist_filename(filename)[0])
    return None


@dataclass(frozen=True)
class _Digests:
    sha256: str
    size: int
    metadata_sha256: Optional[str]  # wheels only (PEP 658)


@dataclass
class LockIndex(FaultLog):
    """Serves the wheels (and sdists) in ``folder``; tests mutate the fault fields between
    runs. ``file_info`` maps a file name to extra PEP 691 keys of its entry;
    ``cache_control`` is sent with every reply when set."""

    folder: Path
    faults: dict[str, list[str]] = field(default_factory=dict)
    wrong_hash: set[str] = field(default_factory=set)  # file names (wheel or .metadata)
    file_info: dict[str, dict[str, Any]] = field(default_factory=dict)
    cache_control: Optional[str] = None  # e.g. "max-age=600": clients need not revalidate
    hang_s: float = 5.0
    requests: list[str] = field(default_factory=list)
    url: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _listing: tuple[tuple[int, int], dict[str, list[Path]]] = ((-1, -1), {})
    _digests: dict[tuple[str, int, int], _Digests] = field(default_factory=dict)

    def projects(self) -> dict[str, list[Path]]:
        # a file added or removed changes the folder's mtime (coarse) or its length
        stamp = (self.folder.stat().st_mtime_ns, len(os.listdir(self.folder)))
        if self._listing[0] != stamp:
            out: dict[str, list[Path]] = {}
            for path in sorted(self.folder.iterdir()):
                name = _project_of(path.name)
                if name is not None:
                    out.setdefault(name, []).append(path)
            self._listing = (stamp, out)
        return self._listing[1]

    def _sha(self, name: str, digest: str) -> str:
        return "0" * 64 if name in self.wrong_hash else digest

    def _digest(self, path: Path) -> _Digests:
        st = path.stat()
        key = (path.name, st.st_mtime_ns, st.st_size)
        found = self._digests.get(key)
        if found is None:
            data = path.read_bytes()
            meta = None
            if path.name.endswith(".whl"):
                meta = hashlib.sha256(wheel_metadata(path)).hexdigest()
            found = _Digests(hashlib.sha256(data).hexdigest(), len(data), meta)
            self._digests[key] = found
        return found

    def page_json(self, project: str) -> Optional[bytes]:
        files = self.projects().get(project)
        if files is None:
            return None
        entries = []
        for path in files:
            d = self._digest(path)
            entry: dict[str, Any] = {
                "filename": path.name,
                "url": f"../../files/{path.name}",
                "hashes": {"sha256": self._sha(path.name, d.sha256)},
                "size": d.size,
            }
            if d.metadata_sha256 is not None:
                meta = self._sha(path.name + ".metadata", d.metadata_sha256)
                entry["core-metadata"] = {"sha256": meta}
            entry.update(self.file_info.get(path.name, {}))
            entries.append(entry)
        page = {"meta": {"api-version": "1.1"}, "name": project, "files": entries}
        return json.dumps(page).encode()

    def page_html(self, project: str) -> Optional[bytes]:
        files = self.projects().get(project)
        if files is None:
            return None
        links = []
        for path in files:
            d = self._digest(path)
            sha = self._sha(path.name, d.sha256)
            attrs = ""
            if d.metadata_sha256 is not None:
                meta = self._sha(path.name + ".metadata", d.metadata_sha256)
                attrs = (
                    f' data-dist-info-metadata="sha256={meta}" data-core-metadata="sha256={meta}"'
                )
            info = self.file_info.get(path.name, {})
            if info.get("requires-python"):
                attrs += f' data-requires-python="{html.escape(info["requires-python"])}"'
            if info.get("yanked"):
                reason = info["yanked"] if isinstance(info["yanked"], str) else ""
                attrs += f' data-yanked="{html.escape(reason)}"'
            links.append(
                f'<a href="../../files/{html.escape(path.name)}#sha256={sha}"{attrs}>'
                f"{html.escape(path.name)}</a><br/>"
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

        def reply(self, path: str, body: bytes, ctype: str, *, truncate: bool) -> None:
            headers = {"Cache-Control": state.cache_control} if state.cache_control else None
            send_body(self, 200, body, ctype, truncate=truncate, headers=headers)

    Handler.state = state
    return Handler


def serve(state: LockIndex) -> Iterator[LockIndex]:
    """Run the index in a thread for the duration of a fixture."""
    with running(_handler(state)) as url:
        state.url = url
        yield state


def lock_project_folder(parent: Path, extra: str = "", name: str = "project") -> Path:
    """A new project folder in ``parent`` whose tfenv.toml is :data:`LOCK_CONFIG` and ``extra``."""
    folder = parent / name
    folder.mkdir()
    (folder / "tfenv.toml").write_text(LOCK_CONFIG.read_text("utf-8") + extra, "utf-8")
    return folder


@pytest.fixture(name="wheels", scope="module")
def wheels_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """:data:`WHEELS`, built once per test module."""
    return build_wheels(tmp_path_factory.mktemp("wheels"))


@pytest.fixture(name="index")
def index_fixture(wheels: Path) -> Iterator[LockIndex]:
    """A :class:`LockIndex` serving ``wheels``, fresh (no faults) for each test."""
    yield from serve(LockIndex(wheels))


def live_uv_cache(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """uv's cache for the live tests: kept between runs in pytest's cache folder (the
    index's files need not be downloaded again), else a fresh one under ``tmp_path``."""
    cache = getattr(request.config, "cache", None)  # absent with -p no:cacheprovider
    if cache is not None:
        return Path(cache.mkdir("tfenv-uv-cache"))
    return tmp_path / "uv-cache"
