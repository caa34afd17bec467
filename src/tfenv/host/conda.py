"""Which conda-family tool this machine has: micromamba, mamba or conda on PATH, or the one
their shell hooks name (``MAMBA_EXE``, ``CONDA_EXE``) when none is on PATH."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from typing import Optional

__all__ = ["TOOLS", "find_tool"]

TOOLS = ("micromamba", "mamba", "conda")
_ENV_VARS = ("MAMBA_EXE", "CONDA_EXE")  # set by their shell hooks, even when not on PATH


def find_tool(environ: Mapping[str, str]) -> Optional[str]:
    """The first of micromamba, mamba, conda on PATH (or named by MAMBA_EXE/CONDA_EXE)."""
    path = environ.get("PATH", "")
    for name in TOOLS:
        found = shutil.which(name, path=path)
        if found:
            return found
    for var in _ENV_VARS:
        exe = environ.get(var, "")
        if exe and os.path.isfile(exe) and os.access(exe, os.X_OK):
            return exe
    return None
