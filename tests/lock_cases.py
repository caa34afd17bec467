"""The CUDA-library lock cases (tests/data/lock/cuda_libs.yaml) and the checks every
lockfile of them must pass: the pins of the case, and a header that says what is pinned."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["LockCase", "check_lockfiles", "header_cuda", "load_cases", "pins_of"]

CASES = Path(__file__).parent / "data" / "lock" / "cuda_libs.yaml"
_PIN = re.compile(r"^([A-Za-z0-9._-]+)==([^\s\\;]+)")


@dataclass(frozen=True)
class LockCase:
    id: str
    config: str
    targets: dict[str, dict[str, Any]]
    live: bool = False


def load_cases() -> list[LockCase]:
    doc = yaml.safe_load(CASES.read_text("utf-8"))
    return [
        LockCase(c["id"], c["config"], c["targets"], bool(c.get("live", False)))
        for c in doc["cases"]
    ]


def pins_of(path: Path) -> dict[str, str]:
    """name -> version of every package a lockfile pins (requirements or pylock)."""
    text = path.read_text("utf-8")
    if path.suffix == ".toml":
        doc = tomllib.loads(text)
        return {str(canonicalize_name(p["name"])): p["version"] for p in doc["packages"]}
    out = {}
    for line in text.splitlines():
        m = _PIN.match(line)
        if m:
            out[str(canonicalize_name(m.group(1)))] = m.group(2)
    return out


def header_cuda(path: Path) -> tuple[str, str, str, dict[str, str]]:
    """(stack line, CUDA X.Y, cuDNN X.Y, the CUDA wheels the header lists) of a lockfile."""
    lines = path.read_text("utf-8").splitlines()
    stack = next(line for line in lines if line.startswith("# Stack: "))
    cuda = re.search(r", CUDA ([0-9.]+)", stack)
    cudnn = re.search(r", cuDNN ([0-9.]+)", stack)
    listed: dict[str, str] = {}
    i = next((n for n, line in enumerate(lines) if line.startswith("# CUDA wheels: ")), None)
    if i is not None:
        block = lines[i][len("# CUDA wheels: ") :]
        for line in lines[i + 1 :]:
            if not line.startswith("#   "):
                break
            block += " " + line[4:]
        for item in block.split(","):
            name, _, version = item.strip().partition("==")
            listed[name] = version
    return stack, cuda.group(1) if cuda else "", cudnn.group(1) if cudnn else "", listed


def _xy(version: str) -> str:
    return ".".join(version.split(".")[:2])


def check_lockfiles(folder: Path, case: LockCase) -> None:
    """Every target's two pip lockfiles hold the case's pins, and their headers name
    exactly the CUDA wheels pinned, with the Stack line's CUDA and cuDNN taken from them."""
    for name, want in case.targets.items():
        for path in (folder / f"requirements.{name}.txt", folder / f"pylock.{name}.toml"):
            pins = pins_of(path)
            for package, version in want["pins"].items():
                assert pins.get(package) == version, (case.id, path.name, package, pins)
            stack, cuda, cudnn, listed = header_cuda(path)
            assert want["stack"] in stack, (case.id, path.name, stack)
            nvidia = {n: v for n, v in pins.items() if n.startswith("nvidia-")}
            assert listed == nvidia, (case.id, path.name)
            assert cuda == _xy(pins["nvidia-cuda-runtime-cu12"]), (case.id, path.name, stack)
            assert cudnn == _xy(pins["nvidia-cudnn-cu12"]), (case.id, path.name, stack)
