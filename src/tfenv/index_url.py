"""Which package index the refresh tool reads: configuration, never a hard-coded host.

Order: the ``--index-url`` flag; the environment variables ``TFENV_INDEX_URL``,
``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``, ``PIP_INDEX_URL``; pip's configuration
files, read where and in the order pip reads them (``PIP_CONFIG_FILE``, global,
user, site; a later file wins); and finally pip's default. Where pip is not installed
(a ``uv venv``), there is no default: the URL is ``""`` and each caller says what that
means (``tfenv lock`` lets uv use its own default; ``tfenv refresh`` asks for one).
Extra indexes (``extra-index-url``, ``UV_EXTRA_INDEX_URL``) are ignored: only the
primary index is read.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Optional

__all__ = [
    "ENV_VARS",
    "configured_index_url",
    "pip_config_files",
    "pip_config_index_url",
    "pips_default",
    "redact",
]

ENV_VARS = ("TFENV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX_URL", "PIP_INDEX_URL")


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
    from_pip = pip_config_index_url(env)
    if from_pip:
        return from_pip, "pip configuration"
    default = pips_default()
    if default is None:
        return "", "nothing configured, and pip (whose default tfenv would use) is not installed"
    return default, "pip's default"


def pip_config_index_url(environ: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """``index-url`` from pip's configuration files, or None."""
    import configparser

    from tfenv.fsutil import read_text

    found = None
    for path in pip_config_files(os.environ if environ is None else environ):
        parser = configparser.RawConfigParser()
        try:
            parser.read_string(read_text(path, limit=1 << 20), source=path)
        except (OSError, configparser.Error, UnicodeDecodeError):
            continue
        for section in ("global", "install"):  # [install] overrides [global] for pip install
            if parser.has_option(section, "index-url"):
                found = parser.get(section, "index-url").split()[0] or found
    return found


def pip_config_files(env: Mapping[str, str]) -> list[str]:
    """pip's configuration files in pip's loading order (documented in pip's user guide)."""
    explicit = env.get("PIP_CONFIG_FILE")
    if explicit == os.devnull:
        return []
    name = "pip.ini" if sys.platform == "win32" else "pip.conf"
    files = [explicit] if explicit else []
    if sys.platform == "win32":
        program_data = env.get("PROGRAMDATA", "C:\\ProgramData")
        files.append(os.path.join(program_data, "pip", name))
        user = [os.path.join(env.get("APPDATA", ""), "pip", name)]
    else:
        dirs = env.get("XDG_CONFIG_DIRS", "/etc/xdg").split(os.pathsep)
        files += [os.path.join(d, "pip", name) for d in dirs if d] + ["/etc/pip.conf"]
        home = os.path.expanduser("~")
        config_home = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        user = [os.path.join(home, ".pip", name), os.path.join(config_home, "pip", name)]
        if sys.platform == "darwin":
            user.append(os.path.join(home, "Library", "Application Support", "pip", name))
    files += user
    files.append(os.path.join(sys.prefix, name))
    return [f for f in files if os.path.isfile(f)]


def pips_default() -> Optional[str]:
    """pip's default: the index pip itself uses when nothing is configured; None without pip."""
    try:
        from pip._internal.models.index import PyPI
    except (ImportError, AttributeError):  # no pip (uv venv), or a pip without this module
        return None
    return str(PyPI.simple_url)


def redact(url: str) -> str:
    """``url`` with any user name and password replaced by ``***``: safe to print."""
    import re

    return re.sub(r"(?<=://)[^/@\s]+@", "***@", url)
