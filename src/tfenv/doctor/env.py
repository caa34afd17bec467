"""The target Python environment, read from disk without importing anything from it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Sequence
from dataclasses import dataclass, replace
from email.parser import HeaderParser
from pathlib import Path
from typing import Optional

from tfenv.errors import UsageError
from tfenv.i18n import _
from tfenv.textsafe import is_printable

__all__ = [
    "CondaRecord",
    "Distribution",
    "TargetEnv",
    "current",
    "from_prefix",
    "from_python",
    "installed_distributions",
]

_META_MAX = 4 * 1024 * 1024  # package metadata larger than this is not metadata
#: what the target interpreter is asked (valid on every Python tfenv plans: 3.6 and later)
_PROBE = (
    "import json, os, sys, sysconfig; p = sysconfig.get_paths(); "
    "print(json.dumps({'prefix': sys.prefix, 'python': '%d.%d' % sys.version_info[:2], "
    "'paths': [p['purelib'], p['platlib']], 'windows': os.name == 'nt'}))"
)


@dataclass(frozen=True)
class Distribution:
    name: str  # normalised: lower case, '-' for '_' and '.'
    version: str
    location: Path  # the site-packages folder it is installed in


@dataclass(frozen=True)
class CondaRecord:
    name: str
    version: str
    build: str


@dataclass(frozen=True)
class TargetEnv:
    prefix: Path
    python: Optional[str]  # "3.11"
    site_packages: tuple[Path, ...]
    distributions: tuple[Distribution, ...]
    conda: tuple[CondaRecord, ...]
    is_conda: bool
    interpreter: Optional[str] = None  # the python executable, when known
    windows: bool = False  # a native Windows environment (Scripts\\python.exe, Lib\\site-packages)

    @property
    def shell_os(self) -> Optional[str]:
        """The system whose shell a command for this environment is written for, where the
        environment's own layout says (native Windows); None: the machine's."""
        return "windows" if self.windows else None

    def dist(self, name: str) -> Optional[Distribution]:
        key = normalise(name)
        return next((d for d in self.distributions if d.name == key), None)

    def conda_package(self, name: str) -> Optional[CondaRecord]:
        return next((c for c in self.conda if c.name == name), None)


def normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def current() -> TargetEnv:
    """The environment tfenv itself runs in."""
    paths = sysconfig.get_paths()
    site = _unique([Path(paths["purelib"]), Path(paths["platlib"])])
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    return replace(_build(Path(sys.prefix), python, site, sys.executable), windows=os.name == "nt")


def from_python(executable: str, timeout: float = 20.0, flag: str = "--interpreter") -> TargetEnv:
    """Ask ``executable`` for its prefix and site-packages (it imports only the stdlib;
    it runs isolated, ``-I``, in a neutral folder)."""
    from tfenv import procs
    from tfenv.kb._fields import Node
    from tfenv.structured import load_json

    if not executable.strip():
        raise UsageError(
            _("{flag} needs the path of a Python interpreter; it is empty.").format(flag=flag)
        )
    try:
        proc = procs.run(
            [executable, "-I", "-c", _PROBE], timeout=timeout, neutral_cwd=True, errors="replace"
        )
        if proc.returncode != 0:
            raise ValueError(_("it exited with status {status}").format(status=proc.returncode))
        lines = proc.stdout.strip().splitlines()
        data = load_json(lines[-1] if lines else "")
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(
            _("{flag} {executable!r}: cannot run it as a Python interpreter ({why}).").format(
                flag=flag, executable=executable, why=why
            )
        ) from None

    def bad(_file: str, path: str, problem: str) -> UsageError:
        return UsageError(
            _(
                "{flag} {executable!r} answered the environment probe with something unexpected"
                " (at '{value}': {problem})."
            ).format(flag=flag, executable=executable, value=path or _("the top"), problem=problem)
        )

    root = Node(data, "probe", errors=bad).only("prefix", "python", "paths", "windows")
    paths = [Path(n.label(4096)) for n in root.get("paths").items()]
    python = root.get("python").label(16)
    windows = bool(root.opt("windows").opt_boolean())
    env = _build(Path(root.get("prefix").label(4096)), python, _unique(paths), executable)
    return replace(env, windows=windows)


def from_prefix(prefix: Path, flag: str = "--prefix") -> TargetEnv:
    """An environment given by its folder (a venv or conda prefix; ``flag``: where the
    folder came from, named in errors: ``--prefix``, ``VIRTUAL_ENV``, ``CONDA_PREFIX``)."""
    from tfenv.doctor.where import interpreter_in

    if not str(prefix).strip():
        raise UsageError(_("{flag} needs a folder; it is empty.").format(flag=flag))
    try:
        is_dir = prefix.is_dir()
    except (OSError, ValueError):
        is_dir = False
    if not is_dir:
        raise UsageError(_("{flag} {prefix}: no such folder.").format(flag=flag, prefix=prefix))
    candidates = sorted(prefix.glob("lib/python3*/site-packages"))
    windows = not candidates and (prefix / "Lib" / "site-packages").is_dir()
    candidates += [p for p in (prefix / "Lib" / "site-packages",) if p.is_dir()]
    if not candidates:
        raise UsageError(
            _(
                "{flag} {prefix}: no site-packages folder found (looked for "
                "lib/python3.*/site-packages and Lib/site-packages)."
            ).format(flag=flag, prefix=prefix)
        )
    python = None
    if candidates[0].parent.name.startswith("python3"):
        python = candidates[0].parent.name[len("python") :]
    else:  # Windows' Lib\site-packages names no version: the venv's or conda's record does
        python = _python_recorded(prefix)
    exe = interpreter_in(prefix, windows)
    return replace(_build(prefix, python, candidates, exe), windows=windows)


_PYVENV_VERSION = re.compile(r"^\s*version(?:_info)?\s*=\s*(3\.\d+)\.", re.MULTILINE)
_CONDA_PYTHON = re.compile(r"python-(3\.\d+)\.\d+-[^/\\]*\.json")


def _python_recorded(prefix: Path) -> Optional[str]:
    """The X.Y of the Python a prefix without ``lib/python3.X`` holds (a Windows venv or
    conda environment): ``pyvenv.cfg``'s ``version``/``version_info`` line, or the
    ``conda-meta/python-X.Y.Z-*.json`` record; None when neither says."""
    from tfenv.fsutil import read_text

    try:
        m = _PYVENV_VERSION.search(read_text(prefix / "pyvenv.cfg", 64 * 1024, errors="replace"))
        if m:
            return m.group(1)
    except (OSError, ValueError):
        pass
    try:
        names = sorted(p.name for p in (prefix / "conda-meta").iterdir())
    except OSError:
        return None
    found = {m.group(1) for m in map(_CONDA_PYTHON.fullmatch, names) if m}
    return found.pop() if len(found) == 1 else None


def _unique(paths: list[Path]) -> tuple[Path, ...]:
    out: list[Path] = []
    for p in paths:
        if p not in out and p.is_dir():
            out.append(p)
    return tuple(out)


def _build(
    prefix: Path, python: Optional[str], site: tuple[Path, ...] | list[Path], exe: Optional[str]
) -> TargetEnv:
    conda_meta = prefix / "conda-meta"
    return TargetEnv(
        prefix=prefix,
        python=python,
        site_packages=tuple(site),
        distributions=tuple(_distributions(site)),
        conda=tuple(_conda_records(conda_meta)),
        is_conda=conda_meta.is_dir(),
        interpreter=exe,
    )


def installed_distributions(site: Sequence[Path]) -> list[Distribution]:
    """The distributions installed in the ``site`` folders (the first of a name wins),
    read from their metadata files with a size bound; sorted by name."""
    return _distributions(list(site))


def _distributions(site: tuple[Path, ...] | list[Path]) -> list[Distribution]:
    found: dict[str, Distribution] = {}
    for folder in site:
        for meta in sorted(folder.glob("*.dist-info/METADATA")) + sorted(
            folder.glob("*.egg-info/PKG-INFO")
        ):
            dist = _read_metadata(meta, folder)
            if dist is not None:
                found.setdefault(dist.name, dist)  # the first on the path wins
    return sorted(found.values(), key=lambda d: d.name)


def _read_metadata(path: Path, folder: Path) -> Optional[Distribution]:
    from tfenv.fsutil import read_text

    try:
        text = read_text(path, limit=_META_MAX, errors="replace")
    except OSError:
        return None
    headers = HeaderParser().parsestr(text, headersonly=True)
    name, version = str(headers.get("Name") or ""), str(headers.get("Version") or "")
    if not _usable(name) or not _usable(version):
        return None
    return Distribution(normalise(name), version.strip(), folder)


def _usable(value: object) -> bool:
    """A metadata field tfenv can show and compare: printable, short, non-empty."""
    return (
        isinstance(value, str)
        and bool(value.strip())
        and len(value) <= 200
        and (is_printable(value))
    )


def _conda_records(folder: Path) -> list[CondaRecord]:
    from tfenv.fsutil import read_text
    from tfenv.structured import load_json

    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = load_json(read_text(path, limit=_META_MAX))
        except (OSError, ValueError):
            continue
        if not isinstance(data, dict):
            continue
        name, version, build = data.get("name"), data.get("version"), data.get("build", "")
        if isinstance(build, str) and _usable(name) and _usable(version):
            out.append(CondaRecord(str(name), str(version), build))
    return out
