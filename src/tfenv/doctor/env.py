"""The target Python environment, read from disk without importing anything from it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import Optional

from tfenv.errors import UsageError

__all__ = ["CondaRecord", "Distribution", "TargetEnv", "current", "from_prefix", "from_python"]

_PROBE = (
    "import json, sys, sysconfig; p = sysconfig.get_paths(); "
    "print(json.dumps({'prefix': sys.prefix, 'python': '%d.%d' % sys.version_info[:2], "
    "'paths': [p['purelib'], p['platlib']]}))"
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
    return _build(Path(sys.prefix), python, site, sys.executable)


def from_python(executable: str, timeout: float = 20.0) -> TargetEnv:
    """Ask ``executable`` for its prefix and site-packages (it imports only the stdlib)."""
    try:
        out = subprocess.run(
            [executable, "-I", "-c", _PROBE],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        ).stdout
        data = json.loads(out.strip().splitlines()[-1])
    except (OSError, subprocess.SubprocessError, ValueError, IndexError) as exc:
        raise UsageError(
            f"--python {executable}: cannot run it as a Python interpreter ({exc})."
        ) from None
    site = _unique([Path(p) for p in data["paths"]])
    return _build(Path(data["prefix"]), str(data["python"]), site, executable)


def from_prefix(prefix: Path) -> TargetEnv:
    """An environment given by its folder (a venv or conda prefix)."""
    if not prefix.is_dir():
        raise UsageError(f"--prefix {prefix}: no such folder.")
    candidates = sorted(prefix.glob("lib/python3*/site-packages"))
    candidates += [p for p in (prefix / "Lib" / "site-packages",) if p.is_dir()]
    if not candidates:
        raise UsageError(
            f"--prefix {prefix}: no site-packages folder found (looked for "
            "lib/python3.*/site-packages and Lib/site-packages)."
        )
    python = None
    if candidates[0].parent.name.startswith("python3"):
        python = candidates[0].parent.name[len("python") :]
    exe = _interpreter_in(prefix)
    return _build(prefix, python, candidates, exe)


def _interpreter_in(prefix: Path) -> Optional[str]:
    for rel in ("bin/python3", "bin/python", "python.exe", "Scripts/python.exe"):
        if (prefix / rel).exists():
            return str(prefix / rel)
    return None


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
    try:
        text = path.read_text("utf-8", errors="replace")
    except OSError:
        return None
    headers = HeaderParser().parsestr(text, headersonly=True)
    name, version = headers.get("Name"), headers.get("Version")
    if not name or not version:
        return None
    return Distribution(normalise(name), version.strip(), folder)


def _conda_records(folder: Path) -> list[CondaRecord]:
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "name" in data and "version" in data:
            out.append(
                CondaRecord(str(data["name"]), str(data["version"]), str(data.get("build", "")))
            )
    return out


def env_path_list(name: str, env: Optional[dict[str, str]] = None) -> list[str]:
    value = (env if env is not None else dict(os.environ)).get(name, "")
    return [p for p in value.split(os.pathsep) if p]
