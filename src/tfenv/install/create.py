"""The environment: where its files go, and the command that creates it.

uv first (``uv venv -p X.Y``: it finds the interpreter, pyenv's and the py launcher's
included), else ``python -m venv`` with an interpreter :mod:`.interpreters` finds; conda
routes use conda, mamba or micromamba (:mod:`.conda`). ``uv`` is the binary of the ``uv``
package (tfenv's ``lock`` extra) or one on PATH.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Optional

from tfenv.models.platform import system

__all__ = ["Layout", "child_env", "find_uv", "uv_venv_command", "venv_command"]

# variables of the caller's environment that would point the children elsewhere
_DROP = ("VIRTUAL_ENV", "PYTHONHOME", "PYTHONPATH", "PYTHONSTARTUP", "PIP_REQUIRE_VIRTUALENV")


@dataclass(frozen=True)
class Layout:
    """An environment's folder on a machine (``os_name``: the target's OS). ``prefix`` is a
    path of that machine: a :class:`Path` where the install runs here, a pure path of the
    other kind where the steps are only shown for another kind of machine (a ``--dry-run``
    with ``--os``), so a Windows plan names ``C:\\envs\\tf\\Scripts\\python.exe``."""

    prefix: PurePath
    os_name: str
    conda: bool = False

    @property
    def here(self) -> bool:
        """Whether the prefix is a folder of this machine (not one only shown)."""
        return isinstance(self.prefix, Path)

    @property
    def folder(self) -> Path:
        """The prefix as a folder of this machine, where the steps run."""
        return Path(self.prefix)

    @property
    def scripts(self) -> PurePath:
        """Where its programs are: ``bin`` (``Scripts`` in a Windows venv, the prefix
        itself for a Windows conda environment)."""
        if not self.windows:
            return self.prefix / "bin"
        return self.prefix if self.conda else self.prefix / "Scripts"

    @property
    def python(self) -> PurePath:
        return self.scripts / ("python.exe" if self.windows else "python")

    @property
    def windows(self) -> bool:
        """Whether the environment is native Windows' (WSL2's is Linux's)."""
        return system(self.os_name).is_windows


def find_uv(environ: Mapping[str, str]) -> Optional[str]:
    """uv: the binary of the ``uv`` package when it is installed, else ``uv`` on PATH."""
    try:
        import uv

        return str(uv.find_uv_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("uv", path=environ.get("PATH", ""))


def uv_venv_command(
    uv: str, python: str, prefix: PurePath, offline: bool, index_url: Optional[str] = None
) -> list[str]:
    """``uv venv --seed``: the environment gets its own pip (and, below Python 3.12,
    setuptools and wheel), as ``python -m venv`` gives it, so ``pip`` after activation and
    ``python -m pip`` (doctor's fixes) are the environment's. The seed comes from the index
    and cache the packages come from (``index_url``, ``offline``)."""
    index = ["--index-url", index_url] if index_url else []
    extra = ["--offline"] if offline else []
    return [uv, "venv", "--seed", "--python", python, *index, *extra, str(prefix)]


def venv_command(interpreter: list[str], prefix: PurePath) -> list[str]:
    """``python -m venv``: with pip (ensurepip's, from the interpreter itself)."""
    return [*interpreter, "-m", "venv", str(prefix)]


def child_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The install commands' environment: the caller's, less what would point them at
    another environment."""
    return {k: v for k, v in environ.items() if k not in _DROP}
