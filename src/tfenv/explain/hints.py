"""What a pasted text says about the machine it came from.

pip, uv, conda and TensorFlow print facts about the machine along with their errors: uv's
``You require CPython 3.13 (`cp313`)``, conda's ``Platform: win-64``, pip's ``sys.version:
... 32 bit (Intel)``, TensorFlow's ``compute capability: 12.0``. Each fact is read with the
first pattern (of its list, in order of trust) that finds it. Every pattern has the same
literal pre-check as the catalog's, so reading a megabyte line stays linear.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from packaging.version import InvalidVersion, Version

from tfenv.kb.errors import CatalogPattern

__all__ = ["Hints", "platform_of_subdir", "platform_of_tag", "read_hints", "sm_cc"]


@dataclass(frozen=True)
class Hints:
    python: Optional[Version] = None  # X.Y
    platform: Optional[str] = None  # a wheel platform key: windows_x86_64
    bits32: bool = False  # the interpreter is a 32-bit build
    cc: Optional[Version] = None
    driver: Optional[str] = None  # as the text prints it
    driver_cuda: Optional[Version] = None
    tensorflow: Optional[str] = None
    macos: Optional[Version] = None  # the macOS version the text's Mac runs (X.Y)


_SUBDIRS = {
    "linux-64": "linux_x86_64",
    "linux-aarch64": "linux_aarch64",
    "win-64": "windows_x86_64",
    "osx-64": "macos_x86_64",
    "osx-arm64": "macos_arm64",
}


def platform_of_subdir(subdir: str) -> Optional[str]:
    """``win-64`` -> ``windows_x86_64``."""
    return _SUBDIRS.get(subdir.lower())


def platform_of_tag(tag: str) -> Optional[str]:
    """The wheel platform of a platform tag: ``win_amd64``, ``macosx_15_0_arm64``,
    ``manylinux2014_x86_64`` (``linux_i686``, ``win32``: None, no TensorFlow wheels)."""
    tag = tag.lower()
    if tag == "win_amd64":
        return "windows_x86_64"
    if tag.startswith("macosx_"):
        if tag.endswith("_arm64"):
            return "macos_arm64"
        if tag.endswith(("_x86_64", "_intel")):
            return "macos_x86_64"
        return None
    if "linux" in tag:
        if tag.endswith("_x86_64"):
            return "linux_x86_64"
        if tag.endswith("_aarch64"):
            return "linux_aarch64"
    return None


def _xy(text: str) -> Optional[Version]:
    try:
        v = Version(text)
    except InvalidVersion:
        return None
    return Version(f"{v.major}.{v.minor}") if len(v.release) >= 2 else None


def sm_cc(digits: str) -> Optional[Version]:
    """``89`` -> 8.9, ``120`` -> 12.0 (the compute capability of an ``sm_XX`` target)."""
    if not digits.isdigit() or len(digits) not in (2, 3):
        return None
    return _xy(f"{digits[:-1]}.{digits[-1]}")


def _cp(text: str) -> Optional[Version]:
    """``313`` -> 3.13, ``38`` -> 3.8."""
    return _xy(f"{text[0]}.{text[1:]}") if len(text) >= 2 and text.isdigit() else None


_Read = Callable[[dict[str, str]], Optional[object]]

# field -> [(pattern, how to read its groups)], most trusted first
_RULES: dict[str, list[tuple[str, _Read]]] = {
    "python": [
        (r"You require CPython (?P<v>3\.\d+)", lambda g: _xy(g["v"])),
        (r"matching Python ABI tag \(e\.g\., `cp(?P<v>3\d{1,2})`\)", lambda g: _cp(g["v"])),
        (r"Your python: python=(?P<v>3\.\d+)", lambda g: _xy(g["v"])),
        (r"Using Python (?P<v>3\.\d+)\.\d+ environment", lambda g: _xy(g["v"])),
        (r"sys\.version: (?P<v>3\.\d+)\.", lambda g: _xy(g["v"])),
        (r"pip \(python (?P<v>3\.\d+)\)", lambda g: _xy(g["v"])),
        (r"\\Python(?P<v>3\d{1,2})(?:-32)?\\", lambda g: _cp(g["v"])),
        (r"-(?:cuda\d+|cpu_)py(?P<v>3\d{1,2})h", lambda g: _cp(g["v"])),
        (r"/lib/python(?P<v>3\.\d+)/site-packages/", lambda g: _xy(g["v"])),
    ],
    "platform": [
        (r"You're on \w+ \(`(?P<v>[\w.]+)`\)", lambda g: platform_of_tag(g["v"])),
        (r"matching platform tag \(e\.g\., `(?P<v>[\w.]+)`\)", lambda g: platform_of_tag(g["v"])),
        (r"Platform: (?P<v>(?:linux|win|osx)-\w+)", lambda g: platform_of_subdir(g["v"])),
        (r"feature:/(?P<v>(?:linux|win|osx)-\w+)::", lambda g: platform_of_subdir(g["v"])),
        (r"conda-forge/(?P<v>(?:linux|win|osx)-\w+)\s", lambda g: platform_of_subdir(g["v"])),
        (r"sys\.platform: (?P<v>win32)", lambda g: "windows_x86_64"),
        (r"(?<![\w])[a-z]:\\(?P<v>users|program files|programdata)\\", lambda g: "windows_x86_64"),
        (r"64_\d+\.dll(?P<v>)", lambda g: "windows_x86_64"),
    ],
    "bits32": [
        (r"32 bit \((?P<v>Intel|ARM)\)", lambda g: True),
        (r"\\python3\d+-32(?P<v>)\\", lambda g: True),
    ],
    "cc": [
        (r"compute capability:? (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
        (r"computeCapability: (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
        (r"compute capability \((?P<a>\d+), (?P<b>\d+)\)", lambda g: _xy(f"{g['a']}.{g['b']}")),
        (r"ptxas does not support CC (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
        (
            r"major: (?P<a>\d+) minor: (?P<b>\d+) memoryClockRate",
            lambda g: _xy(f"{g['a']}.{g['b']}"),
        ),
        (r"'sm_(?P<v>\d{2,3})a?'", lambda g: sm_cc(g["v"])),
        (r"(?<![\w])sm_(?P<v>\d{2,3})(?![\d])", lambda g: sm_cc(g["v"])),
    ],
    "driver": [  # nvidia-smi's header: "Driver Version:" until R595, "KMD Version:" from R610
        (r"Driver Version: (?P<v>\d{3}\.\d+(?:\.\d+)?)", lambda g: g["v"]),
        (r"KMD Version: (?P<v>\d{3}\.\d+(?:\.\d+)?)", lambda g: g["v"]),
        (r"libcuda reported version is: (?P<v>\d{3}\.\d+(?:\.\d+)?)", lambda g: g["v"]),
    ],
    "driver_cuda": [
        (r"CUDA Version: (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
        (r"CUDA UMD Version: (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
        (r"The NVIDIA driver's CUDA version is (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
        (r"Your installed CUDA driver is: (?P<v>\d+\.\d+)", lambda g: _xy(g["v"])),
    ],
    "macos": [
        (r"ProductVersion:\s{1,20}(?P<v>1\d\.\d+)", lambda g: _xy(g["v"])),
        (r"(?<![\w])macOS (?P<v>1\d\.\d+)", lambda g: _xy(g["v"])),
        (r"(?<![\w])macOS (?P<v>1\d)(?![\w.])", lambda g: _xy(f"{g['v']}.0")),
    ],
    "tensorflow": [
        (r"Tensor ?Flow Version: (?P<v>\d+\.\d+\.\d+)", lambda g: g["v"]),
        (r"(?<![\w-])tensorflow (?P<v>\d+\.\d+\.\d+) requires ", lambda g: g["v"]),
        (r"tensorflow-(?P<v>\d+\.\d+\.\d+)-(?:cuda\d+|cpu_)py", lambda g: g["v"]),
        (r"tensorflow(?:\[and-cuda\])?==(?P<v>\d+\.\d+\.\d+)(?![\w.*])", lambda g: g["v"]),
        (r"/tensorflow-(?P<v>\d+\.\d+\.\d+)\.dist-info", lambda g: g["v"]),
    ],
}

_COMPILED = {
    name: [(CatalogPattern(source), read) for source, read in rules]
    for name, rules in _RULES.items()
}


def read_hints(text: str) -> Hints:
    found: dict[str, object] = {}
    for name, rules in _COMPILED.items():
        for pattern, read in rules:
            m = pattern.search(text)
            if m is None:
                continue
            value = read({k: v for k, v in m.groupdict().items() if v is not None})
            if value is not None:
                found[name] = value
                break
    return Hints(**found)  # type: ignore[arg-type]
