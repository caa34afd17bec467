"""conda routes: which of micromamba, mamba and conda is here, and the commands to run.

On the test machine no conda-family executable is installable (from PyPI or Debian), so
the commands are tested as commands, and tests/test_install_conda.py runs a real tool
against a local channel only where one is installed; a machine without any of them gets
the exact commands to run instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Optional

from tfenv.host.conda import TOOLS, find_tool

__all__ = [
    "TOOLS",
    "create_command",
    "find_tool",
    "is_name",
    "lock_create_command",
    "pip_command",
    "with_pip",
]


def is_name(text: str) -> bool:
    """Whether DIR names a conda environment (``tf-2.10.1``) rather than a folder."""
    return bool(text) and not any(c in text for c in "/\\") and text not in (".", "..")


def _where(env: str) -> list[str]:
    return ["-n", env] if is_name(env) else ["-p", str(Path(env))]


def with_pip(specs: Sequence[str]) -> tuple[str, ...]:
    """The environment's conda packages with ``pip`` among them (added where no spec names
    it), so the environment has its own pip: ``python -m pip`` (doctor's fixes, the pip
    step through ``conda run``) and ``pip`` after activation are the environment's."""
    names = {re.split(r"[\s=<>!~\[]", spec.strip(), maxsplit=1)[0].lower() for spec in specs}
    return tuple(specs) if "pip" in names else (*specs, "pip")


def create_command(
    tool: str,
    env: str,
    specs: Sequence[str],
    channels: Sequence[str],
    offline: bool = False,
) -> list[str]:
    """``TOOL create -y -n NAME|-p DIR --override-channels -c CH ... SPEC ...``: the same
    words for conda, mamba and micromamba."""
    argv = [tool, "create", "-y", *_where(env), "--override-channels"]
    for channel in channels:
        argv += ["-c", channel]
    if offline:
        argv.append("--offline")
    return argv + list(specs)


def lock_create_command(tool: str, env: str, lockfile: Path) -> list[str]:
    """Create the environment from a conda-lock file with ``conda-lock install``, for
    micromamba too: ``micromamba create -f FILE`` reads a lockfile only when its name ends
    in ``-lock.yml`` or ``-lock.yaml`` (libmamba's ``is_env_lockfile_name``), and tfenv's are
    ``conda-lock.TARGET.yml``, which it would read as an environment.yml. conda-lock has no
    offline switch (``--offline`` is left to the tool's own setting, CONDA_OFFLINE)."""
    return ["conda-lock", "install", "--conda", tool, *_where(env), str(lockfile)]


def pip_command(
    tool: str, env: str, specs: Sequence[str], index_url: Optional[str] = None
) -> list[str]:
    """pip in environment ``env`` through ``TOOL run``: for the commands shown when no
    conda-family tool is here, whose environments folder (and so the new Python's path) is
    not known."""
    index = ["--index-url", index_url] if index_url else []
    pip = ["python", "-m", "pip", "install", "--disable-pip-version-check"]
    return [tool, "run", *_where(env), *pip, *index, *specs]
