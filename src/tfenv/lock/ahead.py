"""Start uv before planning: the runs the last lock of the same configuration needed.

Planning (loading the knowledge base, solving every target) takes a tenth of a second
or more, and uv cannot start until it says what to resolve. But re-locking a project
whose configuration has not changed (to pick up new releases, in CI, after a merge)
asks uv the same questions as last time. So ``tfenv lock`` records the distinct uv runs
of each successful lock, keyed by the configuration files' bytes and the options that
shape a run, and the next lock with the same key starts them at once, while it plans.

Nothing is taken on trust: each started run is used only by a target whose planned
run turns out equal to it in every input (:class:`~tfenv.lock.pip.PipLockSpec`), so the
files are those a lock without this would write; runs nobody asks for are killed. The
record lives in tfenv's cache folder (``TFENV_CACHE_DIR``; empty disables it) and a
record that cannot be read or written only costs the time it would have saved.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

if TYPE_CHECKING:
    from tfenv.lock.pip import PipLockSpec, UvRun

__all__ = ["record", "run_key", "start"]

_FOLDER = "lock-ahead"
_KEEP = 64  # records kept: one per configuration and set of options
# config.CONFIG_FILES, not imported: tfenv.config costs ~0.1 s before uv can start
# (tests/test_lock_ahead.py keeps the two equal)
_CONFIG_NAMES = ("tfenv.toml", "pyproject.toml")


def run_key(config: Path, options: Sequence[object]) -> Optional[str]:
    """A key for this configuration (the bytes of the files it may come from) and these
    options; None when no configuration file can be read."""
    from tfenv import __version__
    from tfenv.fsutil import read_bytes

    path = Path(config)
    try:  # the configuration itself is checked later, where its problems are reported
        files = [path / n for n in _CONFIG_NAMES] if path.is_dir() else [path]
        where = path.resolve()
    except (OSError, ValueError):
        return None
    h = hashlib.sha256(f"{__version__}\0{where}\0{options!r}".encode())
    found = False
    for file in files:
        try:
            data = read_bytes(file)  # bounded, regular files only (not /dev/zero)
        except OSError:
            continue
        found = True
        h.update(file.name.encode() + b"\0" + data + b"\0")
    return h.hexdigest() if found else None


def start(
    key: Optional[str], jobs: int, environ: Optional[Mapping[str, str]] = None
) -> dict[PipLockSpec, UvRun]:
    """Start the runs recorded under ``key`` (at most ``jobs``); empty when none are."""
    from tfenv.errors import TfenvError
    from tfenv.lock.pip import UvRun

    started: dict[PipLockSpec, UvRun] = {}
    for spec in _read(key)[: max(0, jobs)]:
        try:
            started[spec] = UvRun(spec, environ)
        except (TfenvError, OSError):
            break  # uv moved or cannot start: the lock itself will say so
    return started


def record(key: Optional[str], specs: Iterable[PipLockSpec]) -> None:
    """Remember the distinct runs of a successful lock under ``key``."""
    path = _path(key)
    if path is None:
        return
    doc = [_to_dict(s) for s in specs]
    try:
        from tfenv.fsutil import atomic_write

        atomic_write(path, json.dumps(doc, indent=1, sort_keys=True), mode=0o600)
        _prune(path.parent)
    except OSError:
        pass


def _path(key: Optional[str]) -> Optional[Path]:
    from tfenv.kb._cache import cache_dir

    folder = cache_dir()
    return None if key is None or folder is None else folder / _FOLDER / f"{key}.json"


def _read(key: Optional[str]) -> list[PipLockSpec]:
    path = _path(key)
    if path is None:
        return []
    from tfenv.fsutil import read_text

    try:
        doc = json.loads(read_text(path))
        return [_from_dict(d) for d in doc]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


def _to_dict(spec: PipLockSpec) -> dict[str, Any]:
    return {
        "index_url": spec.index_url,
        "python_version": spec.python_version,
        "python_platform": spec.python_platform,
        "requirements": list(spec.requirements),
        "constraints": list(spec.constraints),
        "cache_dir": None if spec.cache_dir is None else str(spec.cache_dir),
        "offline": spec.offline,
        "timeout_s": spec.timeout_s,
        "retries": spec.retries,
        "uv_bin": spec.uv_bin,
        "extra_env": [list(kv) for kv in spec.extra_env],
    }


def _from_dict(d: Mapping[str, Any]) -> PipLockSpec:
    from tfenv.lock.pip import PipLockSpec

    cache = d["cache_dir"]
    return PipLockSpec(
        index_url=str(d["index_url"]),
        python_version=str(d["python_version"]),
        python_platform=str(d["python_platform"]),
        requirements=tuple(str(r) for r in d["requirements"]),
        constraints=tuple(str(c) for c in d["constraints"]),
        cache_dir=None if cache is None else Path(cache),
        offline=bool(d["offline"]),
        timeout_s=float(d["timeout_s"]),
        retries=int(d["retries"]),
        uv_bin=None if d["uv_bin"] is None else str(d["uv_bin"]),
        extra_env=tuple((str(k), str(v)) for k, v in d["extra_env"]),
    )


def _prune(folder: Path) -> None:
    records = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in records[_KEEP:]:
        with contextlib.suppress(OSError):
            os.unlink(old)
