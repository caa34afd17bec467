"""The knowledge-base refresh tool: regenerate ``data/index/*.json`` from a package index.

Facts that package metadata states are generated here, never typed by hand.
For each package in :data:`PACKAGES` it reads the PEP 691 project page and the
core metadata of every wheel (see ``simple_api``), turns them into per-release,
per-platform records (see ``records``) and writes one JSON file per package;
``cuda-wheels.json`` lists, for every package named by any ``and-cuda`` extra,
which versions have wheels for which platforms.

Files never name the index host: their ``source`` is ``simple:/<name>/``,
relative to the configured index (see :mod:`tfenv.index_url`). Output is deterministic
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

from tfenv.errors import IndexUnreachable, UsageError
from tfenv.i18n import _, ngettext
from tfenv.kb.index import CUDA_WHEELS, INDEX_PACKAGES, OLDEST_TF
from tfenv.refresh.drift import drift
from tfenv.refresh.records import ParsedFile, cuda_record, parse_files, release_record
from tfenv.refresh.simple_api import IndexFile, SimpleIndex
from tfenv.refresh.wheel_facts import BUILD_HEADERS, WheelMeta, parse_build_headers, parse_metadata

__all__ = [
    "CUDA_WHEELS",
    "GENERATED_BY",
    "PACKAGES",
    "GpuRefreshOutcome",
    "RefreshOutcome",
    "dumps",
    "make_client",
    "refresh",
    "refresh_gpus",
]

GENERATED_BY = "tfenv refresh"
PACKAGES = INDEX_PACKAGES
_MIN_VERSION = {"tensorflow": OLDEST_TF, "tensorflow-gpu": OLDEST_TF, "tensorflow-cpu": OLDEST_TF}
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
            say(_("reading {name}").format(name=name))
            doc, n_wheels = _package_doc(index, name, versions, pool, data_dir)
            docs[name] = {**stamp, **doc}
            outcome.releases += len(doc["releases"])
            outcome.wheels += n_wheels
    if CUDA_WHEELS in wanted:
        names = _and_cuda_names(docs, data_dir)
        say(
            ngettext(
                "reading {count} package named by and-cuda extras",
                "reading {count} packages named by and-cuda extras",
                len(names),
            ).format(count=len(names))
        )
        docs[CUDA_WHEELS] = {**stamp, **_cuda_doc(index, names)}
    outcome.documents = docs
    if check:
        for name, doc in docs.items():
            outcome.drift += drift(name, _read_shipped(data_dir, name), doc)
    else:
        outcome.written = _write_all(data_dir / INDEX_DIR, docs)
    return outcome


@dataclass
class GpuRefreshOutcome:
    """What ``refresh --gpus`` produced: the document, drift lines (``check``), the file."""

    document: dict[str, Any]
    drift: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)


def refresh_gpus(
    location: str,
    data_dir: Path,
    *,
    commit: Optional[str] = None,
    check: bool = False,
    today: Optional[datetime.date] = None,
    client: Optional[httpx.Client] = None,
) -> GpuRefreshOutcome:
    """Regenerate (or, with ``check``, compare) ``nvidia/gpus-readme.json`` from NVIDIA's
    open-kernel-module README at ``location`` (a file path, or an http(s) URL read with
    ``client``). The new document is checked against the hand-written GPU file before
    anything is written."""
    from tfenv.kb import gpu_families, gpus
    from tfenv.kb._fields import Node
    from tfenv.kb._files import load_node
    from tfenv.refresh.gpu_table import (
        README_FILE,
        generate,
        gpu_drift,
        parse_readme,
        readme_source,
    )

    source = readme_source(location, commit)
    table = parse_readme(_read_text(location, client))
    families = gpu_families.load(data_dir)
    doc = generate(table, families, source, (today or _today()).isoformat())
    gpus.parse(load_node(gpus.GPUS_FILE, data_dir), Node(doc, README_FILE))
    outcome = GpuRefreshOutcome(doc)
    target = data_dir / README_FILE
    if check:
        old = None
        if target.exists():
            old = json.loads(target.read_text("utf-8"))
        outcome.drift = gpu_drift(old, doc)
    else:
        name = target.name[: -len(".json")]
        outcome.written = _write_all(target.parent, {name: doc})
    return outcome


def _read_text(location: str, client: Optional[httpx.Client]) -> str:
    if location.startswith(("http://", "https://")):
        own = client is None
        http = client or make_client()
        try:
            response = http.get(location)
            response.raise_for_status()
            return response.text
        except httpx.HTTPError as exc:
            raise IndexUnreachable(
                _("{location} could not be read: {why}.").format(location=location, why=exc)
            ) from None
        finally:
            if own:
                http.close()
    try:
        return Path(location).read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(
            _("The README {location!r} cannot be read ({why}).").format(location=location, why=exc)
        ) from None


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
            ngettext(
                "tfenv refresh does not know the package {unknown}; it refreshes {known}.",
                "tfenv refresh does not know the packages {unknown}; it refreshes {known}.",
                len(unknown),
            ).format(unknown=", ".join(map(repr, unknown)), known=", ".join(sorted(known)))
        )
    return chosen


# -- one package -----------------------------------------------------------
def _page(index: SimpleIndex, name: str) -> list[IndexFile]:
    files = index.project(name)
    if files is None:
        raise IndexUnreachable(
            _("The package index has no project {name!r}: {url} answered 404.").format(
                name=name, url=index.project_url(name)
            )
        )
    return files


def _package_doc(
    index: SimpleIndex,
    name: str,
    versions: Optional[SpecifierSet],
    pool: ThreadPoolExecutor,
    data_dir: Path,
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
    if name == "tensorflow":
        _add_build_headers(index, releases, chosen, data_dir)
    return {"package": name, "source": f"simple:/{name}/", "releases": releases}, len(wheels)


def _add_build_headers(
    index: SimpleIndex,
    releases: list[dict[str, Any]],
    files: Mapping[Version, list[ParsedFile]],
    data_dir: Path,
) -> None:
    """For releases whose series has no CUDA build in TensorFlow's table (builds.yaml: the
    tested-configuration row is missing), the CUDA and cuDNN versions the Linux x86_64 wheel
    ships in its headers, with the wheel and the member paths as the source."""
    from tfenv.kb.tensorflow import BUILDS_FILE, load_builds

    builds = load_builds(data_dir if (data_dir / BUILDS_FILE).is_file() else None)
    for record in releases:
        version = Version(record["version"])
        build = builds.for_version(version)
        if build is None or (build.linux is not None and build.linux.cuda is not None):
            continue
        wheel = next(
            (
                p
                for p in sorted(files[version], key=lambda p: p.file.filename)
                if p.is_wheel and any(s[1] == "linux_x86_64" for s in p.serves)
            ),
            None,
        )
        if wheel is None:
            continue
        found = index.files(wheel.file, BUILD_HEADERS)
        headers = parse_build_headers(found)
        if headers:
            paths = ", ".join(sorted(found))
            headers["source"] = f"simple:/tensorflow/ {wheel.file.filename}: {paths}"
            record["build"] = headers


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
            raise IndexUnreachable(
                _("The core metadata of {url} is not usable: {why}.").format(
                    url=p.file.url, why=exc
                )
            ) from None

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
            _("Cannot write the index files in {directory}: {why}. No file was changed.").format(
                directory=directory, why=describe_oserror(exc)
            )
        ) from None
