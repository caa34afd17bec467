"""A per-user cache of the loaded, validated knowledge base.

Parsing and validating the YAML/JSON files costs far more than the solver
itself, so each loaded concept is pickled once into the user's cache folder,
keyed by tfenv's version, the Python version and the size and mtime of every
shipped data and source file (derived values depend on the code too): any
change makes a new key. A data folder given with ``TFENV_DATA_DIR`` (the tests'
frozen snapshot of the knowledge base, a KB being edited) is cached by its
content as well (:func:`folder_digest`): a folder that cannot be read whole is
never cached. A cache that cannot be read or written is ignored: it only ever
saves time.
"""

from __future__ import annotations

import gc
import os
import pickle
import re
import sys
import zlib
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Optional, TypeVar

from tfenv.fsutil import read_bytes

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["cache_dir", "cached", "folder_digest"]

T = TypeVar("T")
_MAX_ENTRY = 256 * 1024 * 1024
_MAX_FOLDER = 64 * 1024 * 1024  # what a data folder may hold for its content to be a key
_KEEP_FOLDERS = 8  # content keys of data folders kept at once
_KEEP_KEYS = 4  # keys (tfenv installs, versions) whose entries are kept at once


def cache_dir() -> Optional[Path]:
    """``$TFENV_CACHE_DIR`` ("" disables), else ``$XDG_CACHE_HOME/tfenv`` or ``~/.cache/tfenv``."""
    folder = _cache_folder()
    if folder is None:
        return None
    from pathlib import Path

    return Path(folder)


def _cache_folder() -> Optional[str]:
    """:func:`cache_dir` as a string: a warm run reads the cache without pathlib."""
    explicit = os.environ.get("TFENV_CACHE_DIR")
    if explicit is not None:
        return explicit or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tfenv")


def cached(name: str, load: Callable[[], T], salt: str = "") -> T:
    """``load()``'s value, from the cache when this code and data made it before; ``salt``
    is the content key of a data folder other than the shipped one."""
    folder = _cache_folder()
    if folder is None:
        return load()
    path = os.path.join(folder, f"kb-{_key()}-{f'{salt}-' if salt else ''}{name}.pickle")
    try:
        if _mine(path):  # a pickle runs code when loaded: only this user's own file
            return _unpickle(read_bytes(path, limit=_MAX_ENTRY))  # type: ignore[no-any-return]
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        pass
    value = load()
    _store(folder, path, value, salt)
    return value


def _store(folder: str, path: str, value: Any, salt: str) -> None:
    """Pickle ``value`` to ``path`` (a cache miss: the slower path, with pathlib)."""
    from io import BytesIO
    from pathlib import Path

    from tfenv.fsutil import atomic_write_bytes

    try:
        buf = BytesIO()
        _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        atomic_write_bytes(Path(path), buf.getvalue())
        _prune(Path(folder), salt)
    except (OSError, pickle.PicklingError, TypeError):
        pass


def _unpickle(data: bytes) -> Any:
    """Unpickle with the cyclic GC paused: the records are acyclic and live for the whole
    run, so collections triggered by their allocation only rescan them (a third of a warm
    start's GC time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)
    finally:
        if was_enabled:
            gc.enable()


def _mine(path: str) -> bool:
    """``path`` is a regular file owned by this user (the cache may sit in a shared place)."""
    st = os.stat(path)  # OSError when absent: a cache miss
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def _prune(folder: Path, salt: str) -> None:
    """Remove the entries of all but the few most recently written keys: an older tfenv's
    never match again, while two installs on one account (two environments, a checkout
    and a release) used in turn keep theirs instead of replacing each other's on every
    run. Of the data folders' entries, those of the most recently written few are kept."""
    current = _key()
    by_key: dict[str, list[Path]] = {}
    for entry in folder.glob("kb-*.pickle"):
        by_key.setdefault(entry.name[3:].split("-", 1)[0], []).append(entry)
    others = sorted(
        (k for k in by_key if k != current),
        key=lambda k: max(_mtime(p) for p in by_key[k]),
        reverse=True,
    )
    for old in others[_KEEP_KEYS - 1 :]:
        for stale in by_key[old]:
            stale.unlink(missing_ok=True)
    if not salt:
        return
    salted: dict[str, list[Path]] = {}
    prefix = f"kb-{current}-"
    for entry in by_key.get(current, ()):
        rest = entry.name[len(prefix) :]
        if _SALTED.match(rest):
            salted.setdefault(rest.split("-", 1)[0], []).append(entry)
    newest = sorted(salted, key=lambda s: max(_mtime(p) for p in salted[s]), reverse=True)
    for old in newest[_KEEP_FOLDERS:]:
        for stale in salted[old]:
            stale.unlink(missing_ok=True)


_SALTED = re.compile(r"[0-9a-f]{16}-")


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def folder_digest(root: Path) -> Optional[str]:
    """A key of the content of every data file below ``root`` (None when one cannot be read
    as a regular file, or the folder holds too much: then nothing of it is cached)."""
    from tfenv.fsutil import read_bytes

    crc, adler, total = 0, 1, 0
    try:
        for rel, _ in sorted(_walk(str(root))):
            data = read_bytes(os.path.join(root, rel), limit=_MAX_FOLDER)
            total += len(data)
            if total > _MAX_FOLDER:
                return None
            head = f"{rel}|{len(data)}\n".encode()
            crc, adler = zlib.crc32(data, zlib.crc32(head, crc)), zlib.adler32(data, adler)
    except (OSError, ValueError):
        return None
    return f"{crc:08x}{adler:08x}"


_KEY: list[str] = []


def _key() -> str:
    if not _KEY:
        from tfenv import __version__

        parts = [__version__, str(sys.version_info[:2])]
        # the data files, and the code that turns them into records and derived values
        for path, st in sorted(_walk(os.path.dirname(os.path.dirname(__file__)))):
            parts.append(f"{path}|{st.st_size}|{st.st_mtime_ns}")
        text = "\n".join(parts).encode()
        _KEY.append(f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}")
    return _KEY[0]


def _walk(root: str) -> list[tuple[str, os.stat_result]]:
    """(relative path, stat) of every .py/.yaml/.json file below ``root`` (os.scandir: fast)."""
    found = []
    stack = [root]
    skip = len(os.path.join(root, ""))  # the paths below root begin with it (scandir joins)
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith((".py", ".yaml", ".json")):
                    found.append((entry.path[skip:], entry.stat()))
    return found


def _proxy(data: dict[str, Any]) -> MappingProxyType[str, Any]:
    return MappingProxyType(data)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is MappingProxyType:
            return (_proxy, (dict(obj),))
        return NotImplemented
