"""Writing files atomically: a temp file in the same folder, then a rename."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_bytes"]


def atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never half."""
    atomic_write_bytes(path, text.encode("utf-8"), mode)


def atomic_write_bytes(path: Path, data: bytes, mode: int = 0o644) -> None:
    import tempfile  # only writers pay for it (it pulls in shutil and the compressors)

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
