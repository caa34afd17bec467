"""A per-user cache of the loaded, validated knowledge base.

Parsing and validating the YAML/JSON files costs far more than the solver
itself, so each loaded concept is pickled once into the user's cache folder,
keyed by tfenv's version, the Python version and the size and mtime of every
shipped data and source file (derived values depend on the code too): any
change makes a new key. A cache that cannot be read or written is ignored: it
only ever saves time.
"""

from __future__ import annotations

import gc
import os
import pickle
import sys
import zlib
from io import BytesIO
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Optional, TypeVar

from tfenv.fsutil import atomic_write_bytes, read_bytes

__all__ = ["cache_dir", "cached"]

T = TypeVar("T")
_MAX_ENTRY = 256 * 1024 * 1024


def cache_dir() -> Optional[Path]:
    """``$TFENV_CACHE_DIR`` ("" disables), else ``$XDG_CACHE_HOME/tfenv`` or ``~/.cache/tfenv``."""
    explicit = os.environ.get("TFENV_CACHE_DIR")
    if explicit is not None:
        return Path(explicit) if explicit else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tfenv"


def cached(name: str, load: Callable[[], T]) -> T:
    folder = cache_dir()
    if folder is None:
        return load()
    path = folder / f"kb-{_key()}-{name}.pickle"
    try:
        if _mine(path):  # a pickle runs code when loaded: only this user's own file
            return _unpickle(read_bytes(path, limit=_MAX_ENTRY))  # type: ignore[no-any-return]
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        pass
    value = load()
    try:
        buf = BytesIO()
        _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
        atomic_write_bytes(path, buf.getvalue())
        _prune(folder)
    except (OSError, pickle.PicklingError, TypeError):
        pass
    return value


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


def _mine(path: Path) -> bool:
    """``path`` is a regular file owned by this user (the cache may sit in a shared place)."""
    st = os.stat(path)  # OSError when absent: a cache miss
    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def _prune(folder: Path) -> None:
    """Remove entries of other keys (an older tfenv or older data): they never match again."""
    current = f"kb-{_key()}-"
    for stale in folder.glob("kb-*.pickle"):
        if not stale.name.startswith(current):
            stale.unlink(missing_ok=True)


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
    while stack:
        with os.scandir(stack.pop()) as entries:
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith((".py", ".yaml", ".json")):
                    found.append((os.path.relpath(entry.path, root), entry.stat()))
    return found


def _proxy(data: dict[str, Any]) -> MappingProxyType[str, Any]:
    return MappingProxyType(data)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is MappingProxyType:
            return (_proxy, (dict(obj),))
        return NotImplemented
