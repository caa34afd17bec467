"""Pure functions from wheel file names and METADATA to the facts tfenv stores.

No network and no httpx here, so this is testable on its own.

Decisions (documented in the generated data's meaning):

* Platforms are ``linux_x86_64``, ``linux_aarch64``, ``windows_x86_64``,
  ``macos_x86_64``, ``macos_arm64``. ``manylinux*`` tags map to the Linux ones
  (``musllinux`` and bare ``linux_*`` tags are not installable on a glibc host
  from an index and are ignored), ``win_amd64`` to Windows, ``macosx_*_x86_64``
  / ``intel`` to macOS x86_64, ``arm64`` to macOS arm64, and ``universal2`` to
  both macOS platforms (arm64 floor raised to 11.0, the first arm64 macOS). A
  platform tag ``any`` counts for all five platforms.
* Python versions: ``cpXY`` -> ``"X.Y"``; a ``cpXY-abi3`` wheel -> ``"X.Y+"``
  (that version and newer); ``py3`` / ``py2.py3`` -> ``"3"`` (any Python 3,
  bounded by ``requires_python``). ``py2``-only and PyPy tags are ignored.
* glibc floors: manylinux1 = 2.5, manylinux2010 = 2.12, manylinux2014 = 2.17,
  ``manylinux_X_Y`` = X.Y.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.parser import BytesParser
from typing import Any, Optional

from packaging.markers import InvalidMarker, Marker, UndefinedComparison
from packaging.requirements import InvalidRequirement, Requirement
from packaging.tags import Tag
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tfenv.models.platform import PLATFORMS, Platform, platform

__all__ = [
    "BUILD_HEADERS",
    "WheelMeta",
    "normalize_requirement",
    "parse_build_headers",
    "parse_metadata",
    "python_key",
    "tag_targets",
]

_LEGACY_GLIBC = {"manylinux1": "2.5", "manylinux2010": "2.12", "manylinux2014": "2.17"}
_MANYLINUX = re.compile(r"^(manylinux1|manylinux2010|manylinux2014|manylinux_(\d+)_(\d+))_(.+)$")
_MACOS = re.compile(r"^macosx_(\d+)_(\d+)_(.+)$")
STUB_MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class Served:
    """One platform a wheel tag serves, with its OS floor."""

    platform: str
    glibc: Optional[str]
    macos: Optional[str]


def tag_targets(tag: Tag) -> tuple[Optional[str], tuple[Served, ...]]:
    """(python, targets) of one wheel tag; python is None for tags we ignore."""
    return _python_of(tag), _targets_of(tag.platform)


def _python_of(tag: Tag) -> Optional[str]:
    interp, abi = tag.interpreter, tag.abi
    if interp.startswith("cp") and interp[2:].isdigit() and len(interp) >= 4:
        ver = f"{interp[2]}.{interp[3:]}"
        return f"{ver}+" if abi == "abi3" else ver
    if interp in ("py3", "py30") or (interp.startswith("py3") and interp[3:].isdigit()):
        return "3" if len(interp) == 3 else f"3.{interp[3:]}+"
    return None


def _targets_of(plat: str) -> tuple[Served, ...]:
    if plat == "any":
        return tuple(Served(p.key, None, None) for p in PLATFORMS)
    m = _MANYLINUX.match(plat)
    if m:
        glibc = _LEGACY_GLIBC.get(m.group(1)) or f"{m.group(2)}.{m.group(3)}"
        return tuple(Served(p.key, glibc, None) for p in _serving("linux", m.group(4)))
    m = _MACOS.match(plat)
    if m:
        floor = f"{m.group(1)}.{m.group(2)}"
        return tuple(
            Served(p.key, None, _max_version(floor, p.first_os or floor))
            for p in _serving("macos", m.group(3))
        )
    return tuple(Served(p.key, None, None) for p in _serving("windows", plat))


def _serving(os: str, tag_arch: str) -> tuple[Platform, ...]:
    return tuple(p for p in PLATFORMS if p.os == os and tag_arch in p.tag_arches)


def _max_version(a: str, b: str) -> str:
    return a if Version(a) >= Version(b) else b


def python_key(py: str) -> tuple[int, ...]:
    """Sort key for "3.9", "3.10", "3.6+", "3"."""
    return tuple(int(x) for x in py.rstrip("+").split("."))


@dataclass(frozen=True)
class WheelMeta:
    """What one wheel's METADATA says, before platform-specific evaluation."""

    name: str
    version: str
    requires_python: Optional[str]
    requirements: tuple[Requirement, ...]


_HUGE_NUMBER = re.compile(r"[0-9]{19,}")  # no version part is this long; int() may refuse it


def parse_metadata(body: bytes, where: str) -> WheelMeta:
    """Parse a METADATA file; ``where`` names it in errors (ValueError)."""
    msg = BytesParser().parsebytes(body, headersonly=True)
    name, version = msg.get("Name"), msg.get("Version")
    if not name or not version:
        raise ValueError(f"{where}: METADATA has no Name or Version")
    for field in ("Version", "Requires-Python", "Requires-Dist"):
        for value in msg.get_all(field) or []:
            if not str(value).isascii() or _HUGE_NUMBER.search(str(value)):
                raise ValueError(f"{where}: {field} {str(value)[:60]!r} is not a usable value")
    reqs: list[Requirement] = []
    for line in msg.get_all("Requires-Dist") or []:
        try:
            reqs.append(Requirement(str(line)))
        except InvalidRequirement as exc:
            raise ValueError(f"{where}: bad Requires-Dist {line!r} ({exc})") from None
    rp = msg.get("Requires-Python")
    return WheelMeta(str(name), str(version), str(rp).strip() if rp else None, tuple(reqs))


def normalize_requirement(req: Requirement, marker: Optional[str] = None) -> str:
    """Canonical text: normalized name, sorted extras, sorted specifiers, marker."""
    text = str(canonicalize_name(req.name))
    if req.extras:
        text += "[" + ",".join(sorted(req.extras)) + "]"
    if req.url:
        text += f" @ {req.url}"
    else:
        text += str(req.specifier)
    m = str(req.marker) if marker is None and req.marker is not None else marker
    if m:
        text += ("" if req.url is None else " ") + f"; {m}"
    return text


def _env(key: str, python: str) -> dict[str, str]:
    pyver = python.rstrip("+")
    if pyver == "3":
        pyver = "3.99"
    return {**platform(key).environment(pyver), "extra": ""}


def marker_true(marker: Optional[Marker], platform: str, python: str) -> bool:
    if marker is None:
        return True
    try:
        return bool(marker.evaluate(_env(platform, python)))
    except (UndefinedComparison, InvalidMarker):
        return False


def _extra_terms(markers: Sequence[Any]) -> bool:
    return any(_is_extra(m) or (isinstance(m, list) and _extra_terms(m)) for m in markers)


def _is_extra(item: Any) -> bool:
    return isinstance(item, tuple) and any(str(getattr(x, "value", "")) == "extra" for x in item)


def split_extra(req: Requirement) -> tuple[Optional[str], Optional[str]]:
    """(extra name or None, the marker with the ``extra == ...`` term removed).

    Only a top-level ``... and extra == "x"`` conjunction is understood, which is
    what wheel builders write; an ``or`` with an extra yields the whole marker.
    """
    if req.marker is None:
        return None, None
    items: list[Any] = list(req.marker._markers)
    if not _extra_terms(items):
        return None, str(req.marker)
    extra: Optional[str] = None
    kept: list[Any] = []
    for item in items:
        if _is_extra(item) and extra is None:
            extra = next(str(x.value) for x in item if str(x.value) != "extra" and x.value != "==")
            continue
        kept.append(item)
    # drop the dangling "and" left next to the removed term
    while kept and kept[-1] == "and":
        kept.pop()
    while kept and kept[0] == "and":
        kept.pop(0)
    if any(k == "or" for k in kept) or _extra_terms(kept) or extra is None:
        return extra or "?", str(req.marker)
    if not kept:
        return _canon_extra(extra), None
    rebuilt = Marker("python_version >= '0'")
    rebuilt._markers = kept
    return _canon_extra(extra), str(rebuilt)


def _canon_extra(extra: str) -> str:
    return canonicalize_name(extra)


@dataclass(frozen=True)
class Evaluated:
    """One wheel's metadata seen from one platform + Python."""

    requires_python: Optional[str]
    stub_for: Optional[str]
    and_cuda: Optional[tuple[str, ...]]
    requires: tuple[str, ...]


def evaluate(
    meta: WheelMeta, size: Optional[int], platform: str, python: str, release: Version
) -> Evaluated:
    own = canonicalize_name(meta.name)
    and_cuda: list[str] = []
    has_and_cuda = False
    requires: list[str] = []
    stub_for: Optional[str] = None
    for req in meta.requirements:
        extra, rest = split_extra(req)
        if extra is None:
            requires.append(normalize_requirement(req))
            if (
                stub_for is None
                and size is not None
                and size < STUB_MAX_BYTES
                and _is_redirect(req, own, release)
                and marker_true(req.marker, platform, python)
            ):
                stub_for = canonicalize_name(req.name)
        elif extra == "and-cuda":
            has_and_cuda = True
            and_cuda.append(normalize_requirement(req, rest or ""))
    return Evaluated(
        requires_python=meta.requires_python,
        stub_for=stub_for,
        and_cuda=tuple(sorted(and_cuda)) if has_and_cuda else None,
        requires=tuple(sorted(requires)),
    )


def _is_redirect(req: Requirement, own: str, release: Version) -> bool:
    name = canonicalize_name(req.name)
    if name == own or not name.startswith("tensorflow-"):
        return False
    for spec in req.specifier:
        if spec.operator in ("==", "==="):
            try:
                if Version(spec.version) == release:
                    return True
            except InvalidVersion:
                continue
    return False


def sorted_pythons(pys: Iterable[str]) -> list[str]:
    return sorted(set(pys), key=python_key)


#: The headers a TensorFlow wheel ships that name the CUDA and cuDNN it was built with.
BUILD_HEADERS = (
    "tensorflow/include/third_party/gpus/cuda/cuda_config.h",
    "tensorflow/include/third_party/gpus/cudnn/include/cudnn_version.h",
)
_TF_CUDA = re.compile(rb'#define\s+TF_CUDA_VERSION\s+"(\d+(?:\.\d+){0,2})"')
_CUDNN = {
    k: re.compile(rb"#define\s+CUDNN_" + k.encode() + rb"\s+(\d{1,3})\b")
    for k in ("MAJOR", "MINOR", "PATCHLEVEL")
}


def parse_build_headers(files: dict[str, bytes]) -> dict[str, str]:
    """{"cuda": "12.5.1", "cudnn": "9.10.0"} from a wheel's cuda_config.h / cudnn_version.h
    (a key is left out when its header is absent or does not say)."""
    out: dict[str, str] = {}
    cuda = _TF_CUDA.search(files.get(BUILD_HEADERS[0], b""))
    if cuda:
        out["cuda"] = cuda.group(1).decode()
    text = files.get(BUILD_HEADERS[1], b"")
    parts = [_CUDNN[k].search(text) for k in ("MAJOR", "MINOR", "PATCHLEVEL")]
    if all(parts):
        out["cudnn"] = ".".join(m.group(1).decode() for m in parts if m)
    return out
