"""The knowledge-base refresh tool: regenerate ``data/index/*.json`` from a package index.

Facts that package metadata states are generated here, never typed by hand.
For each package in :data:`PACKAGES` it reads the PEP 691 project page and the
core metadata of every wheel (see ``_simple_api``), turns them into per-release,
per-platform records (see ``_records``) and writes one JSON file per package;
``cuda-wheels.json`` lists, for every package named by any ``and-cuda`` extra,
which versions have wheels for which platforms.

Files never name the index host: their ``source`` is ``simple:/<name>/``,
relative to the configured index (see ``_index_url``). Output is deterministic
(same index state, same bytes) except ``retrieved``, the date of the run. All
files are built in memory first and then each is replaced atomically, so a
failed run leaves the shipped files untouched.
"""

from __future__ import annotations

import datetime
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import httpx
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tfenv.errors import IndexError_, UsageError
from tfenv.kb._drift import drift
from tfenv.kb._records import ParsedFile, cuda_record, parse_files, release_record
from tfenv.kb._simple_api import IndexFile, SimpleIndex
from tfenv.kb._wheel_facts import WheelMeta, parse_metadata
from tfenv.kb.index import CUDA_WHEELS, INDEX_PACKAGES

__all__ = [
    "CUDA_WHEELS",
    "GENERATED_BY",
    "PACKAGES",
    "RefreshOutcome",
    "dumps",
    "make_client",
    "refresh",
]

GENERATED_BY = "tfenv refresh"
PACKAGES = INDEX_PACKAGES
_MIN_VERSION = {"tensorflow": Version("2.0.0"), "tensorflow-gpu": Version("2.0.0")}
INDEX_DIR = "index"

Progress = Callable[[str], None]


@dataclass
class RefreshOutcome:
    """What a run produced: documents by file name, drift lines (``check``), counts."""

    documents: dict[str, dict[str, Any]] = field(default_factory=dict)
    drift: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    releases: int = 0
    wheels: int = 0


def make_client(timeout: float = 30.0) -> httpx.Client:
    """The client the CLI uses: timeouts, redirects, a connection pool for 8 workers."""
    return httpx.Client(
        timeout=httpx.Timeout(timeout, connect=min(timeout, 15.0)),
        follow_redirects=True,
        limits=httpx.Limits(max_connections=16, max_keepalive_connections=16),
        headers={"User-Agent": "tfenv-refresh"},
    )


def refresh(
    client: httpx.Client,
    index_url: str,
    data_dir: Path,
    *,
    packages: Optional[Sequence[str]] = None,
    check: bool = False,
    today: Optional[datetime.date] = None,
    versions: Optional[SpecifierSet] = None,
    workers: int = 8,
    attempts: int = 3,
    backoff_s: float = 0.5,
    progress: Optional[Progress] = None,
) -> RefreshOutcome:
    """Regenerate (or, with ``check``, compare) the index files below ``data_dir/index``.

    ``packages`` restricts the run to some of :data:`PACKAGES` and/or
    ``cuda-wheels``; ``versions`` restricts the releases read (for small runs).
    """
    wanted = _wanted(packages)
    say = progress or (lambda _msg: None)
    index = SimpleIndex(client, index_url, attempts=attempts, backoff_s=backoff_s)
    stamp = {"generated_by": GENERATED_BY, "retrieved": (today or _today()).isoformat()}
    outcome = RefreshOutcome()
    docs: dict[str, dict[str, Any]] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for name in (p for p in PACKAGES if p in wanted):
            say(f"reading {name}")
            doc, n_wheels = _package_doc(index, name, versions, pool)
            docs[name] = {**stamp, **doc}
            outcome.releases += len(doc["releases"])
            outcome.wheels += n_wheels
    if CUDA_WHEELS in wanted:
        names = _and_cuda_names(docs, data_dir)
        say(f"reading {len(names)} packages named by and-cuda extras")
        docs[CUDA_WHEELS] = {**stamp, **_cuda_doc(index, names)}
    outcome.documents = docs
    if check:
        for name, doc in docs.items():
            outcome.drift += drift(name, _read_shipped(data_dir, name), doc)
    else:
        outcome.written = _write_all(data_dir / INDEX_DIR, docs)
    return outcome


def _today() -> datetime.date:
    return datetime.datetime.now(datetime.timezone.utc).date()


def _wanted(packages: Optional[Sequence[str]]) -> set[str]:
    known = {*PACKAGES, CUDA_WHEELS}
    if not packages:
        return known
    chosen = {str(canonicalize_name(p)) for p in packages}
    unknown = sorted(chosen - known)
    if unknown:
        raise UsageError(
            f"tfenv refresh does not know the package(s) {', '.join(map(repr, unknown))}; "
            "it refreshes "
            f"{', '.join(sorted(known))}."
        )
    return chosen


# -- one package -----------------------------------------------------------
def _page(index: SimpleIndex, name: str) -> list[IndexFile]:
    files = index.project(name)
    if files is None:
        raise IndexError_(
            f"The package index has no project {name!r}: {index.project_url(name)} answered 404."
        )
    return files


def _package_doc(
    index: SimpleIndex, name: str, versions: Optional[SpecifierSet], pool: ThreadPoolExecutor
) -> tuple[dict[str, Any], int]:
    by_version = _group(parse_files(_page(index, name)))
    floor = _MIN_VERSION.get(name)
    chosen = {
        v: files
        for v, files in by_version.items()
        if (floor is None or v >= floor) and (versions is None or versions.contains(v, True))
    }
    wheels = [p for files in chosen.values() for p in files if p.is_wheel and p.serves]
    metas = _fetch_metadata(index, wheels, pool)
    releases = [release_record(v, chosen[v], metas) for v in sorted(chosen)]
    return {"package": name, "source": f"simple:/{name}/", "releases": releases}, len(wheels)


def _group(files: Iterable[ParsedFile]) -> dict[Version, list[ParsedFile]]:
    out: dict[Version, list[ParsedFile]] = defaultdict(list)
    for p in files:
        out[p.version].append(p)
    return out


def _fetch_metadata(
    index: SimpleIndex, wheels: Sequence[ParsedFile], pool: ThreadPoolExecutor
) -> dict[str, WheelMeta]:
    def one(p: ParsedFile) -> tuple[str, WheelMeta]:
        body = index.metadata(p.file)
        try:
            return p.file.filename, parse_metadata(body, p.file.url)
        except ValueError as exc:
            raise IndexError_(f"The core metadata of {p.file.url} is not usable: {exc}.") from None

    futures = [pool.submit(one, p) for p in wheels]
    try:
        return dict(f.result() for f in futures)
    finally:
        for f in futures:
            f.cancel()


# -- the and-cuda dependency packages ---------------------------------------
def _and_cuda_names(docs: Mapping[str, Mapping[str, Any]], data_dir: Path) -> list[str]:
    names: set[str] = set()
    for pkg in PACKAGES:
        doc = docs.get(pkg) or _read_shipped(data_dir, pkg)
        for release in (doc or {}).get("releases", []):
            for wheel in release.get("wheels", {}).values():
                for rec in [wheel, *wheel.get("variants", {}).values()]:
                    for req in rec.get("and_cuda") or []:
                        names.add(canonicalize_name(Requirement(req).name))
    return sorted(names)


def _cuda_doc(index: SimpleIndex, names: Sequence[str]) -> dict[str, Any]:
    packages: dict[str, Any] = {}
    for name in names:
        files = index.project(name)
        by_version = _group(parse_files(files or []))
        packages[name] = {
            "missing": files is None,
            "versions": [cuda_record(v, by_version[v]) for v in sorted(by_version)],
        }
    return {
        "package": CUDA_WHEELS,
        "source": [f"simple:/{n}/" for n in names],
        "packages": packages,
    }


# -- files -----------------------------------------------------------------
def dumps(doc: Mapping[str, Any]) -> str:
    """The exact bytes written: sorted keys, indent 1, trailing newline."""
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


def _read_shipped(data_dir: Path, name: str) -> Any:
    from tfenv.fsutil import read_text
    from tfenv.structured import load_json

    path = data_dir / INDEX_DIR / f"{name}.json"
    try:
        return load_json(read_text(path))
    except (OSError, ValueError):
        return None


def _write_all(directory: Path, docs: Mapping[str, Mapping[str, Any]]) -> list[Path]:
    """Write every file or none (``fsutil.replace_all``: staged, backed up, restored)."""
    from tfenv.fsutil import describe_oserror, replace_all

    files = [(f"{name}.json", dumps(doc).encode("utf-8")) for name, doc in docs.items()]
    try:
        return replace_all(directory, files)
    except OSError as exc:
        raise UsageError(
            f"Cannot write the index files in {directory}: {describe_oserror(exc)}. "
            "No file was changed."
        ) from None
