"""The commands that put the plan's packages (or a lockfile's) into the environment.

uv when it is here (``uv pip install --python ENV/bin/python``), else the environment's own
pip. A lockfile is installed with ``--require-hashes``: every file is checked against the
hash the lock records. ``--offline`` takes everything from uv's cache; pip has no such
mode, so it needs uv.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Optional

from tfenv.i18n import _
from tfenv.install import InstallError

__all__ = ["install_command"]


def install_command(
    python: PurePath,
    specs: Sequence[str],
    lock: Optional[Path],
    *,
    uv: Optional[str],
    index_url: Optional[str] = None,
    offline: bool = False,
) -> list[str]:
    """One command installing ``specs`` (or the hashed ``lock``) for ``python``."""
    what = ["--require-hashes", "-r", str(lock)] if lock is not None else list(specs)
    index = ["--index-url", index_url] if index_url else []
    if uv is not None:
        extra = ["--offline"] if offline else []
        return [uv, "pip", "install", "--python", str(python), *index, *extra, *what]
    if offline:
        raise InstallError(
            _("--offline installs from uv's cache, and uv is not installed here."),
            hint=_("pip install uv (or tfenv's lock extra), or install without --offline."),
        )
    return [str(python), "-m", "pip", "install", "--disable-pip-version-check", *index, *what]
