"""Writing a chart: the file's format from its name, and an atomic write (fsutil)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.errors import UsageError
from tfenv.fsutil import atomic_write, describe_oserror

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["chart_format", "check_path", "write_chart"]


def chart_format(path: Path) -> str:
    """``html`` for a name ending in .html or .htm, else ``svg``."""
    return "html" if path.suffix.lower() in (".html", ".htm") else "svg"


def check_path(flag: str, path: Path) -> None:
    """Refuse, before any work, a path no chart can be written to."""
    if not path.name or path.name in (".", ".."):
        raise UsageError(f"{flag} {path}: give a file name, e.g. {flag} chart.svg.")
    if path.is_dir():
        raise UsageError(f"{flag} {path}: is a folder; give a file name inside it.")
    if not path.parent.is_dir():
        raise UsageError(f"{flag} {path}: the folder {path.parent} does not exist.")


def write_chart(flag: str, path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: the old file or the new one, never half."""
    try:
        atomic_write(path, text, parents=False)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot write it ({describe_oserror(exc)}).") from None
