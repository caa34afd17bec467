"""Parsing what users type: TensorFlow requests, versions, OS and architecture names."""

from __future__ import annotations

import re
from typing import Optional

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from tfenv.errors import UsageError
from tfenv.models.driver import DriverVersion

__all__ = [
    "parse_arch",
    "parse_cc",
    "parse_driver",
    "parse_os",
    "parse_tf_spec",
    "parse_xy",
]

_OS_ALIASES = {
    "linux": "linux",
    "windows": "windows",
    "win": "windows",
    "win32": "windows",
    "wsl": "wsl2",
    "wsl2": "wsl2",
    "macos": "macos",
    "mac": "macos",
    "darwin": "macos",
    "osx": "macos",
}
_ARCH_ALIASES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "x64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "arm64",
}


def parse_tf_spec(text: str) -> SpecifierSet:
    """``latest``, ``2.15`` (that series), ``2.15.1``, or any PEP 440 specifier."""
    text = text.strip()
    if text in ("", "latest"):
        return SpecifierSet()
    if re.fullmatch(r"\d+\.\d+", text):
        return SpecifierSet(f"=={text}.*")
    if re.fullmatch(r"\d+(\.\d+)*([a-z]+\d*)?(\.post\d+)?", text):
        return SpecifierSet(f"=={text}")
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        raise UsageError(
            f"--tf {text!r} is not a TensorFlow version or specifier.",
            hint="Use 'latest', a series such as 2.15, a release such as 2.15.1, or a "
            "PEP 440 specifier such as '>=2.12,<2.16'.",
        ) from None


def parse_xy(flag: str, text: str) -> Version:
    """An ``X.Y`` version such as a Python or glibc version."""
    if not re.fullmatch(r"\d+\.\d+", text.strip()):
        raise UsageError(f"{flag} {text!r} is not a version of the form X.Y (for example 3.11).")
    return Version(text.strip())


def parse_driver(text: str) -> DriverVersion:
    """An NVIDIA driver version as nvidia-smi prints it: 535.104.05, 552.22."""
    try:
        v: Optional[DriverVersion] = DriverVersion(text.strip())
    except InvalidVersion:
        v = None
    if v is None or not re.fullmatch(r"\d+(\.\d+){0,2}", text.strip()) or not 100 <= v.major < 1000:
        raise UsageError(
            f"--driver {text!r} is not an NVIDIA driver version.",
            hint="Give it as nvidia-smi prints it, for example 535.104.05 or 552.22.",
        )
    return v


def parse_cc(text: str) -> Version:
    """A compute capability such as 8.6; it must be one NVIDIA has shipped (1.0-13.x)."""
    v = parse_xy("--cc", text)
    if not 1 <= v.major <= 13 or v.minor > 9:
        raise UsageError(
            f"--cc {text} is not a compute capability of any NVIDIA GPU.",
            hint="Compute capabilities run from 1.0 (Tesla) to 12.x (Blackwell); "
            "'tfenv detect' or 'nvidia-smi --query-gpu=compute_cap --format=csv' shows yours.",
        )
    return v


def parse_os(text: str) -> str:
    found = _OS_ALIASES.get(text.strip().lower())
    if found is None:
        raise UsageError(f"--os {text!r} is not one of linux, windows, wsl2, macos.")
    return found


def parse_arch(text: str) -> str:
    found = _ARCH_ALIASES.get(text.strip().lower())
    if found is None:
        raise UsageError(f"--arch {text!r} is not one of x86_64, aarch64, arm64.")
    return found
