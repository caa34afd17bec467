"""Which package index the refresh tool reads: configuration, never a hard-coded host.

Order: the ``--index-url`` flag; the environment variables ``TFENV_INDEX_URL``,
``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``, ``PIP_INDEX_URL``; pip's configuration
files (read through ``python -m pip config list``); and finally pip's default.
Extra indexes (``extra-index-url``, ``UV_EXTRA_INDEX_URL``) are ignored: only the
primary index is read.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Optional

__all__ = ["ENV_VARS", "configured_index_url", "pip_config_index_url", "pips_default"]

ENV_VARS = ("TFENV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL")
_PIP_KEYS = (":env:.index-url", "install.index-url", "global.index-url")


def configured_index_url(
    flag: Optional[str] = None, environ: Optional[Mapping[str, str]] = None
) -> tuple[str, str]:
    """(index URL, where it came from)."""
    if flag:
        return flag, "--index-url"
    env = os.environ if environ is None else environ
    for var in ENV_VARS:
        value = env.get(var, "").strip()
        if value:
            return value.split()[0], var
    from_pip = pip_config_index_url()
    if from_pip:
        return from_pip, "pip configuration"
    return pips_default(), "pip's default"


def pip_config_index_url() -> Optional[str]:
    """``index-url`` from pip's configuration files, or None (also when pip is absent)."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found: dict[str, str] = {}
    for line in out.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key.strip()] = value.strip().strip("'\"")
    for key in _PIP_KEYS:
        if found.get(key):
            return found[key].split()[0]
    return None


def pips_default() -> str:
    """pip's default: the index pip itself uses when nothing is configured."""
    from pip._internal.models.index import PyPI  # pip is there wherever tfenv is pip-installed

    return str(PyPI.simple_url)
