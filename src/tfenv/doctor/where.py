"""Which Python environment the user is in: the one ``doctor`` and ``explain`` read when no
``--interpreter`` or ``--prefix`` is given.

In order: the activated virtual environment (``VIRTUAL_ENV``), the activated conda
environment (``CONDA_PREFIX``), else the ``python`` the shell would start (``python3`` or
``python`` on ``PATH``; ``python.exe`` on native Windows), else tfenv's own interpreter. A
``python`` on ``PATH`` that lies in tfenv's own virtual or conda environment is passed
over (tfenv's venv ``bin`` on ``PATH`` does not make it the user's Python), and so is the
Microsoft Store's ``python.exe`` stub (it opens the Store instead of running). Nothing here
runs a program.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional

from tfenv.i18n import _

__all__ = ["Source", "Where", "describe", "interpreter_in", "locate"]

#: how the environment was chosen: a flag, an activation variable, PATH, or tfenv's own
Source = Literal["interpreter", "prefix", "VIRTUAL_ENV", "CONDA_PREFIX", "PATH", "tfenv"]


@dataclass(frozen=True)
class Where:
    source: Source
    interpreter: Optional[str] = None  # the python executable, when one is known
    prefix: Optional[Path] = None  # the environment's folder (the activated ones)

    def to_dict(self) -> dict[str, Optional[str]]:
        return {
            "source": self.source,
            "interpreter": self.interpreter,
            "prefix": str(self.prefix) if self.prefix is not None else None,
        }


def locate(
    environ: Mapping[str, str],
    *,
    windows: bool = os.name == "nt",
    own_prefix: Optional[Path] = None,
    own_interpreter: str = sys.executable,
) -> Where:
    """The environment the user is in (see the module's text). ``windows``: read the
    native Windows layouts (``Scripts\\python.exe``, ``python.exe``); ``own_prefix``:
    tfenv's own environment (default ``sys.prefix``)."""
    own = own_prefix if own_prefix is not None else Path(sys.prefix)
    for var in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        value = environ.get(var, "")
        if value.strip() and _is_dir(Path(value)):
            prefix = Path(value)
            source: Source = "VIRTUAL_ENV" if var == "VIRTUAL_ENV" else "CONDA_PREFIX"
            return Where(source, interpreter_in(prefix, windows), prefix)
    found = _on_path(environ.get("PATH", ""), windows, own)
    if found is not None:
        return Where("PATH", found)
    return Where("tfenv", own_interpreter, own)


def interpreter_in(prefix: Path, windows: bool) -> Optional[str]:
    """The interpreter of the environment in ``prefix``, as an absolute path (not resolved:
    a venv's python is a link that must keep its own path): ``Scripts\\python.exe`` (a
    Windows venv) or ``python.exe`` (a Windows conda environment) when ``windows``, else
    ``bin/python3`` or ``bin/python``."""
    names = ("Scripts/python.exe", "python.exe") if windows else ("bin/python3", "bin/python")
    for rel in names:
        path = prefix.joinpath(*rel.split("/"))
        if path.is_file():
            return os.path.abspath(path)
    return None


def _on_path(path: str, windows: bool, own: Path) -> Optional[str]:
    names = ("python.exe",) if windows else ("python3", "python")
    is_env = (own / "pyvenv.cfg").is_file() or (own / "conda-meta").is_dir()
    skip = {_real(own / "bin"), _real(own / "Scripts"), _real(own)} if is_env else set()
    folders = [f for f in path.split(os.pathsep if not windows else ";") if f.strip()]
    for name in names:
        for folder in folders:
            if _real(Path(folder)) in skip or "WindowsApps" in Path(folder).parts:
                continue
            candidate = Path(folder) / name
            if candidate.is_file() and (windows or os.access(candidate, os.X_OK)):
                return os.path.abspath(candidate)
    return None


def _real(path: Path) -> str:
    try:
        return os.path.normcase(os.path.realpath(path))
    except (OSError, ValueError):
        return str(path)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def describe(where: Where) -> str:
    """Which environment was read and why, for a line of text output."""
    what = where.interpreter or (str(where.prefix) if where.prefix is not None else "?")
    why = {
        "interpreter": _("given with --interpreter"),
        "prefix": _("given with --prefix"),
        "VIRTUAL_ENV": _("the activated virtual environment, VIRTUAL_ENV"),
        "CONDA_PREFIX": _("the activated conda environment, CONDA_PREFIX"),
        "PATH": _("the first python on PATH; no environment is activated"),
        "tfenv": _("tfenv's own: no environment is activated and no python is on PATH"),
    }[where.source]
    return _("{path} ({why})").format(path=what, why=why)
