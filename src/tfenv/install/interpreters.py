"""A Python X.Y on this machine for ``python -m venv``: PATH, pyenv, the py launcher.

Each candidate is run once to ask its version (isolated, ``-I``, in a neutral folder), so
a ``python3`` of another version is passed over. pyenv's shims are not run: pyenv's
installed versions are searched directly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Optional

from tfenv.models.platform import system

__all__ = ["find_python", "python_candidates"]

_ASK = "import sys; print('%d.%d' % sys.version_info[:2])"


def python_candidates(
    version: str, os_name: str, environ: Mapping[str, str]
) -> Iterator[list[str]]:
    """The argv prefixes that may run Python ``version`` ("3.12"), most specific first."""
    path = environ.get("PATH", "")
    if system(os_name).is_windows:
        launcher = shutil.which("py", path=path)
        if launcher:
            yield [launcher, f"-{version}"]
    names = (f"python{version}", "python3", "python")
    for name in names:
        found = shutil.which(name, path=path)
        if found and not _pyenv_shim(found):
            yield [found]
    yield from ([str(p)] for p in _pyenv_pythons(version, environ))


def _pyenv_shim(path: str) -> bool:
    """pyenv's shims only hand over to its versions, which are searched directly (a shim
    is a shell script that takes a good part of a second, and fails for a version that is
    not active)."""
    p = Path(path)
    return p.parent.name == "shims" and "pyenv" in str(p.parent.parent).lower()


def _pyenv_pythons(version: str, environ: Mapping[str, str]) -> list[Path]:
    """pyenv's installed X.Y.Z interpreters for ``version``, newest patch first."""
    root = environ.get("PYENV_ROOT") or os.path.join(environ.get("HOME", ""), ".pyenv")
    versions = Path(root) / "versions"
    try:
        names = [p.name for p in versions.iterdir()]
    except OSError:
        return []
    found = []
    for name in names:
        parts = name.split(".")
        if ".".join(parts[:2]) == version and len(parts) == 3 and parts[2].isdigit():
            for exe in ("bin/python", "python.exe"):
                if (versions / name / exe).is_file():
                    found.append((int(parts[2]), versions / name / exe))
    return [p for _, p in sorted(found, reverse=True)]


def find_python(version: str, os_name: str, environ: Mapping[str, str]) -> Optional[list[str]]:
    """The first candidate that really is Python ``version``, or None."""
    from tfenv import procs

    for argv in python_candidates(version, os_name, environ):
        try:
            proc = procs.run([*argv, "-I", "-c", _ASK], timeout=20, neutral_cwd=True)
        except (OSError, subprocess.SubprocessError):
            continue
        if proc.returncode == 0 and proc.stdout.strip() == version:
            return argv
    return None
