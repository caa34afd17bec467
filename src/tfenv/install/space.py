"""Is there room for the environment? The disk-space check before anything is made.

What the install downloads is estimated from the package index: for each package pinned
to one version (every line of a lockfile; a plan's own pins, e.g. ``tensorflow==2.16.1``
and the CUDA wheels it pins), the largest wheel of that version on the index's PEP 691
project page (PEP 700 ``size``; the page is read with the refresh tool's reader, through
the index tfenv installs from). Unpacked, wheels take about :data:`UNPACKED` times their
download (``tools/wheel_unpacked_ratio.py``). uv unpacks into its cache and links the
files into the environment (hardlinks on one filesystem), so:

- the environment's filesystem needs the unpacked size; uv's cache's filesystem needs
  the download and the unpacked size; one filesystem holding both needs the sum once;
- with pip (no cache tfenv knows of) the environment's filesystem needs both.

``--offline`` asks the index nothing, so nothing is checked then. An estimate of the same
pins from the same index is kept for :data:`REMEMBER_S` in tfenv's cache, so installing the
same plan again asks the index nothing.

A package the plan leaves unpinned (a dependency uv resolves) is not counted, nor one the
index lists no sized file of, so the estimate is a floor. An index that cannot be read
(or a ``file://`` one) leaves the check undone with a note: the install itself then says
what is wrong with the index. Conda routes are not checked (their channels list no sizes
tfenv reads).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from tfenv.errors import UsageError
from tfenv.i18n import N_, _, ngettext

if TYPE_CHECKING:
    from tfenv.install.source import Source
    from tfenv.install.steps import Options, Outcome

__all__ = [
    "UNPACKED",
    "Estimate",
    "Need",
    "check",
    "estimate",
    "needs",
    "pins_of",
    "preflight",
    "uv_cache_dir",
]

# unpacked / downloaded bytes, measured with tools/wheel_unpacked_ratio.py on the wheels of a
# TensorFlow 2.21 CPU install and CUDA 13 nvidia-* wheels (11 wheels: 419 MB -> 1682 MB,
# 4.0; tensorflow_cpu alone 4.65, the CUDA wheels 2.3 to 4.7); rounded up for bytecode
UNPACKED = 4.5
GB = 1e9
#: how long an estimate of the same pins from the same index is taken from tfenv's cache
REMEMBER_S = 24 * 3600
_KEEP = 32  # estimates kept


@dataclass(frozen=True)
class Estimate:
    """The download (bytes) of the pinned packages the index sized, and what it could not."""

    download: int
    counted: tuple[str, ...] = ()  # name==version of each package sized
    unknown: tuple[str, ...] = ()  # why a package was not sized

    @property
    def unpacked(self) -> int:
        return int(self.download * UNPACKED)


@dataclass(frozen=True)
class Need:
    """Bytes needed on the filesystem of ``path`` (its nearest existing folder), and what
    for (``what``: "the environment", "uv's cache", both; the English, marked with N_ and
    translated where it is shown)."""

    path: Path
    bytes: int
    what: str
    free: int = field(default=0, compare=False)


def preflight(out: Outcome, options: Options) -> str:
    """Check the space for the install ``out`` plans; a line saying what was checked (or
    why nothing was), or UsageError when a filesystem is short."""
    from tfenv.install.create import find_uv
    from tfenv.install.steps import is_conda

    if is_conda(out.source):
        return _("Disk space not checked: conda channels list no sizes tfenv reads.")
    pins = pins_of(out.source)
    if not pins:
        return _("Disk space not checked: nothing is pinned to one version.")
    if options.offline:
        return _(
            "Disk space not checked: --offline asks the package index nothing, sizes included."
        )
    uv = find_uv(options.environ) if options.use_uv else None
    cache = None if uv is None else uv_cache_dir(uv, options.environ)
    return _report(_checked(_sized(pins, options), out.layout.folder, cache))


def _sized(pins: list[tuple[str, str]], options: Options) -> Optional[Estimate]:
    """The estimate from the index tfenv installs from; None when it cannot be read. An
    estimate of the same pins from the same index in the last :data:`REMEMBER_S` seconds is
    taken from tfenv's cache (a pinned version's files do not change), so installing the
    same plan again asks the index nothing."""
    from tfenv.index_url import configured_index_url

    url = options.index_url or configured_index_url(None, options.environ)[0]
    if not url.startswith(("http://", "https://")):
        return None  # nothing configured, or a file:// index (uv reads it; httpx does not)
    known = _remembered(url, pins)
    if known is not None:
        return known
    est = _asked(url, pins)
    if est is not None and not est.unknown:
        _remember(url, pins, est)
    return est


def _asked(url: str, pins: list[tuple[str, str]]) -> Optional[Estimate]:
    """The estimate from the index's project pages; None when it cannot be read."""
    from tfenv.errors import IndexUnreachable, UsageError
    from tfenv.refresh import make_client
    from tfenv.refresh.simple_api import SimpleIndex

    with make_client(timeout=10.0) as client:  # one try: an index that does not answer
        index = SimpleIndex(client, url, attempts=1)  # fails the install's own step anyway

        def files(name: str) -> Optional[list[tuple[str, int]]]:
            page = index.project(name)
            if page is None:
                return None
            return [(f.filename, f.size) for f in page if f.size is not None and not f.yanked]

        try:
            return estimate(pins, files)
        except (IndexUnreachable, UsageError):
            return None


def _remembered(url: str, pins: list[tuple[str, str]]) -> Optional[Estimate]:
    """A fully sized estimate of ``pins`` from ``url`` that tfenv's cache holds and that is
    younger than :data:`REMEMBER_S`; None otherwise (or where anything is amiss)."""
    import json
    import time

    from tfenv.fsutil import read_text

    path = _memory()
    if path is None:
        return None
    try:
        entry = json.loads(read_text(path, limit=1 << 20)).get(_key(url, pins))
        fresh = 0 <= time.time() - float(entry["at"]) < REMEMBER_S
        download, counted = int(entry["download"]), tuple(str(c) for c in entry["counted"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return None
    return Estimate(download, counted) if fresh and download >= 0 else None


def _remember(url: str, pins: list[tuple[str, str]], est: Estimate) -> None:
    """Keep ``est`` in tfenv's cache (the newest :data:`_KEEP` estimates); never fails."""
    import json
    import time

    from tfenv.fsutil import atomic_write, read_text

    path = _memory()
    if path is None:
        return
    try:
        entries = json.loads(read_text(path, limit=1 << 20))
        entries = entries if isinstance(entries, dict) else {}
    except (OSError, ValueError):
        entries = {}
    entry = {"at": time.time(), "download": est.download, "counted": list(est.counted)}
    entries[_key(url, pins)] = entry
    newest = sorted(entries.items(), key=lambda kv: _age(kv[1]))[:_KEEP]
    with contextlib.suppress(OSError):
        atomic_write(path, json.dumps(dict(newest), sort_keys=True) + "\n")


def _memory() -> Optional[Path]:
    from tfenv.kb._cache import cache_dir

    folder = cache_dir()
    return None if folder is None else folder / "install-space.json"


def _key(url: str, pins: list[tuple[str, str]]) -> str:
    import hashlib

    text = "\n".join([url, *(f"{name}=={version}" for name, version in sorted(pins))])
    return hashlib.sha256(text.encode()).hexdigest()


def _age(entry: object) -> float:
    """How old an entry is (newest first when sorted); an unreadable one last."""
    import time

    try:
        return time.time() - float(entry["at"]) if isinstance(entry, dict) else float("inf")
    except (TypeError, KeyError, ValueError):
        return float("inf")


def _checked(
    est: Optional[Estimate], env: Path, cache: Optional[Path]
) -> tuple[Optional[Estimate], list[Need]]:
    if est is None or not est.counted:
        return est, []
    return est, check(est, needs(est, env, cache))


def _report(result: tuple[Optional[Estimate], list[Need]]) -> str:
    est, checked = result
    if est is None:
        return _("Disk space not checked: the package index could not be read for file sizes.")
    if not est.counted:
        return _("Disk space not checked: {why}.").format(why=est.unknown[0])
    needs = _("; ").join(
        _("about {size} for {what}, {free} free at {path}").format(
            size=_gb(n.bytes), what=_(n.what), free=_gb(n.free), path=n.path
        )
        for n in checked
    )
    if not est.unknown:
        return _("Disk space: {needs}.").format(needs=needs)
    return ngettext(
        "Disk space: {needs} ({count} pinned package not sized).",
        "Disk space: {needs} ({count} pinned packages not sized).",
        len(est.unknown),
    ).format(needs=needs, count=len(est.unknown))


def pins_of(source: Source) -> list[tuple[str, str]]:
    """(name, version) of every package the source pins to one version."""
    if source.lock is not None:
        return _lock_pins(source.lock)
    return list(_exact(source.plan.pip))


def _exact(requirements: Iterable[str]) -> Iterable[tuple[str, str]]:
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    for text in requirements:
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        specs = list(req.specifier)
        if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
            yield str(canonicalize_name(req.name)), specs[0].version


def _lock_pins(path: Path) -> list[tuple[str, str]]:
    from tfenv.formats.locked import kind_of, read_locked

    if kind_of(path) not in ("requirements", "pylock"):
        return []
    return sorted(read_locked(path).pins.items())


def estimate(
    pins: Iterable[tuple[str, str]], project: Callable[[str], Optional[list[tuple[str, int]]]]
) -> Estimate:
    """The download of ``pins``: ``project(name)`` gives the (file name, size) of each file
    on the package's index page (None: no such page)."""
    from packaging.utils import (
        InvalidSdistFilename,
        InvalidWheelFilename,
        canonicalize_version,
        parse_sdist_filename,
        parse_wheel_filename,
    )

    total, counted, unknown = 0, [], []
    for name, version in pins:
        files = project(name)
        if files is None:
            unknown.append(_("{name}: the index has no page for it").format(name=name))
            continue
        want = canonicalize_version(version)
        sizes = []
        for filename, size in files:
            try:
                if filename.endswith(".whl"):
                    got = parse_wheel_filename(filename)[1]
                else:
                    got = parse_sdist_filename(filename)[1]
            except (InvalidWheelFilename, InvalidSdistFilename):
                continue
            if canonicalize_version(got) == want:
                sizes.append(size)
        if not sizes:
            unknown.append(
                _("{name} {version}: the index lists no sized file of it").format(
                    name=name, version=version
                )
            )
            continue
        total += max(sizes)
        counted.append(f"{name}=={version}")
    return Estimate(total, tuple(counted), tuple(unknown))


def needs(est: Estimate, env: Path, cache: Optional[Path]) -> list[Need]:
    """What each filesystem must have free (see the module's docstring)."""
    env_at = _existing(env)
    if cache is None:
        return [Need(env_at, est.download + est.unpacked, N_("the download and the environment"))]
    cache_at = _existing(cache)
    if _device(env_at) == _device(cache_at):
        return [Need(env_at, est.download + est.unpacked, N_("uv's cache and the environment"))]
    return [
        Need(env_at, est.unpacked, N_("the environment")),
        Need(cache_at, est.download + est.unpacked, N_("uv's cache")),
    ]


def check(est: Estimate, wants: list[Need]) -> list[Need]:
    """The needs with the space free on their filesystems; UsageError (exit 2) naming the
    first one that is short."""
    out = []
    for need in wants:
        have = shutil.disk_usage(need.path).free
        if have < need.bytes:
            raise UsageError(
                ngettext(
                    "Not enough disk space: this install needs about {size} for {what} "
                    "({download} to download for {count} pinned package, about {unpacked} "
                    "unpacked), and {free} is free at {path}.",
                    "Not enough disk space: this install needs about {size} for {what} "
                    "({download} to download for {count} pinned packages, about {unpacked} "
                    "unpacked), and {free} is free at {path}.",
                    len(est.counted),
                ).format(
                    size=_gb(need.bytes),
                    what=_(need.what),
                    download=_gb(est.download),
                    count=len(est.counted),
                    unpacked=_gb(est.unpacked),
                    free=_gb(have),
                    path=need.path,
                ),
                hint=_(
                    "Free some space, put the environment (DIR) or uv's cache (UV_CACHE_DIR) "
                    "on a larger disk, or skip this check with --no-space-check."
                ),
            )
        out.append(Need(need.path, need.bytes, need.what, have))
    return out


def uv_cache_dir(uv: str, environ: Mapping[str, str]) -> Optional[Path]:
    """uv's cache folder: ``UV_CACHE_DIR`` where it is set (it overrides uv's
    configuration), else what ``uv cache dir`` says (uv's configuration, its default)."""
    from tfenv import procs

    if environ.get("UV_CACHE_DIR") and not environ.get("UV_NO_CACHE"):
        return Path(environ["UV_CACHE_DIR"]).absolute()

    try:
        proc = procs.run([uv, "cache", "dir"], timeout=30, env=dict(environ), neutral_cwd=True)
    except (OSError, procs.Stopping, subprocess.TimeoutExpired):
        return None
    line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    return Path(line) if proc.returncode == 0 and line else None


def _existing(path: Path) -> Path:
    """``path`` or its nearest existing parent (DIR is made later)."""
    p = path.absolute()
    while not p.exists() and p.parent != p:
        p = p.parent
    return p


def _device(path: Path) -> int:
    return os.stat(path).st_dev


def _gb(n: int) -> str:
    return f"{n / GB:.1f} GB" if n >= GB / 10 else f"{n / 1e6:.0f} MB"
