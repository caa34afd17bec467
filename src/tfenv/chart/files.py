"""Writing a chart: the file's format from its name, and an atomic write (fsutil)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.errors import UsageError
from tfenv.fsutil import atomic_write, describe_oserror
from tfenv.i18n import _

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["chart_format", "check_path", "write_chart"]


def chart_format(path: Path) -> str:
    """``html`` for a name ending in .html or .htm, else ``svg``."""
    return "html" if path.suffix.lower() in (".html", ".htm") else "svg"


def check_path(flag: str, path: Path) -> None:
    """Refuse, before any work, a path no chart can be written to."""
    if not path.name or path.name in (".", ".."):
        raise UsageError(
            _("{flag} {path}: give a file name, e.g. {flag} chart.svg.").format(
                flag=flag, path=path
            )
        )
    if path.is_dir():
        raise UsageError(
            _("{flag} {path}: is a folder; give a file name inside it.").format(
                flag=flag, path=path
            )
        )
    if not path.parent.is_dir():
        raise UsageError(
            _("{flag} {path}: the folder {parent} does not exist.").format(
                flag=flag, path=path, parent=path.parent
            )
        )


def write_chart(flag: str, path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: the old file or the new one, never half."""
    try:
        atomic_write(path, text, parents=False)
    except OSError as exc:
        raise UsageError(
            _("{flag} {path}: cannot write it ({why}).").format(
                flag=flag, path=path, why=describe_oserror(exc)
            )
        ) from None
