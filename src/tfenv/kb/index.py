"""Index-derived facts: which TensorFlow wheels exist, for which platforms and Pythons.

Reads the files that ``tfenv refresh`` generates below ``data/index/`` (never
edited by hand) into frozen dataclasses. This module is on the path of every
``tfenv resolve``: it imports no network code and parses with the C JSON parser.

Python versions in :attr:`WheelSet.pythons` are ``"3.10"`` (a ``cp310`` wheel),
``"3.6+"`` (a ``cp36-abi3`` wheel: 3.6 and newer) or ``"3"`` (a ``py3`` wheel:
any Python 3, bounded by ``requires_python``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _, ngettext
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import fact, given, read_record
from tfenv.models.platform import PLATFORM_KEYS

if TYPE_CHECKING:
    from dataclasses import dataclass, field, replace
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass, field, replace


__all__ = [
    "CPU_DISTRIBUTIONS",
    "CUDA_WHEELS",
    "INDEX_PACKAGES",
    "OLDEST_TF",
    "TF_DISTRIBUTIONS",
    "CudaIndex",
    "CudaWheel",
    "ExtraLine",
    "HeaderBuild",
    "IndexFacts",
    "Release",
    "WheelSet",
    "declared",
    "load",
    "load_cuda",
    "load_releases",
    "python_matches",
]

INDEX_PACKAGES = (
    "tensorflow",
    "tensorflow-gpu",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tensorflow-cpu-aws",
    "tensorflow-macos",
    "tensorflow-metal",
)
CUDA_WHEELS = "cuda-wheels"
#: the pip distributions that carry TensorFlow itself, most telling first
TF_DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-gpu",
    "tensorflow-cpu",
    "tensorflow-intel",
    "tensorflow-cpu-aws",
    "tensorflow-macos",
)
#: the oldest TensorFlow tfenv covers: refresh records no older release of tensorflow,
#: tensorflow-gpu and tensorflow-cpu, the solver offers none, check-upgrade walks none and
#: --tf names none
OLDEST_TF = Version("2.0.0")
#: those of them that are never a CUDA build
CPU_DISTRIBUTIONS = frozenset({"tensorflow-cpu", "tensorflow-intel", "tensorflow-cpu-aws"})

_EMPTY: Mapping[str, WheelSet] = MappingProxyType({})
_NO_PYTHONS: Mapping[str, tuple[str, ...]] = MappingProxyType({})
_NO_LINES: Mapping[str, ExtraLine] = MappingProxyType({})
_SHARED: dict[tuple[str, ...], tuple[str, ...]] = {}  # _strs's tuples
_VARIANT_KEYS = ("and_cuda", "glibc", "macos", "requires", "requires_python", "stub_for")


def python_matches(tag: str, python: str) -> bool:
    """Whether a wheel Python entry (``"3.10"``, ``"3.6+"``, ``"3"``) serves ``python``."""
    if tag == python:
        return True
    if tag == "3":
        return python.split(".")[0] == "3"
    if tag.endswith("+"):
        want, have = _pykey(tag[:-1]), _pykey(python)
        return have[:1] == want[:1] and have >= want
    return False


def _strs(node: Node) -> tuple[str, ...]:
    """``node.texts()`` with a fast path for the common, well-formed case. Equal lists give
    one shared tuple of interned strings: the same Requires-Dist repeats over platforms and
    releases, and the knowledge base's cache then pickles it once."""
    value = node.value
    if type(value) is list and all(type(x) is str for x in value):
        found = tuple(map(sys.intern, value))
    else:
        found = node.texts()
    return _SHARED.setdefault(found, found)


def _opt_strs(node: Node) -> Optional[tuple[str, ...]]:
    return None if node.is_null else _strs(node)


def _wheels(node: Node) -> Mapping[str, WheelSet]:
    wheels = {}
    for platform, wnode in node.entries():
        if platform not in PLATFORM_KEYS:
            raise wnode.fail(_("unknown platform {platform!r}").format(platform=platform))
        wheels[platform] = _wheelset(platform, wnode)
    return MappingProxyType(wheels)


def _pykey(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(".") if x.isdigit())


@dataclass(frozen=True)
class WheelSet:
    """The wheels of one release for one platform (variants: per-Python overrides)."""

    platform: str = given()  # the key it is listed under
    pythons: tuple[str, ...] = fact(_strs, key="python")
    glibc: Optional[Version] = fact(Node.opt_version)
    macos: Optional[Version] = fact(Node.opt_version)
    size: int = fact(Node.integer)
    requires_python: Optional[str] = fact(Node.opt_text)
    stub_for: Optional[str] = fact(Node.opt_text)
    and_cuda: Optional[tuple[str, ...]] = fact(_opt_strs)
    requires: tuple[str, ...] = fact(_strs)
    # per-Python overrides (``variants``: read over the base by _variant)
    variants: Mapping[str, WheelSet] = given(default_factory=lambda: _EMPTY, compare=False)

    @property
    def is_stub(self) -> bool:
        return self.stub_for is not None

    def serves(self, python: str) -> bool:
        return any(python_matches(tag, python) for tag in self.pythons)

    def for_python(self, python: str) -> Optional[WheelSet]:
        """This set as seen by one Python version (variants applied), or None."""
        if not self.serves(python):
            return None
        for tag, variant in self.variants.items():
            if python_matches(tag, python):
                return variant
        return self


@dataclass(frozen=True)
class HeaderBuild:
    """The CUDA and cuDNN a release's Linux x86_64 wheel ships in its headers."""

    cuda: Optional[Version] = fact(Node.opt_version, missing=None)
    cudnn: Optional[Version] = fact(Node.opt_version, missing=None)
    provenance: Provenance = given()  # its source, read on the file's date


@dataclass(frozen=True)
class Release:
    """One version of one package on the index."""

    package: str = given()
    version: Version = fact(Node.version)
    prerelease: bool = fact(Node.boolean)
    yanked: bool = fact(Node.boolean)
    yanked_reason: Optional[str] = fact(Node.opt_text)
    uploaded: Optional[str] = fact(lambda n: None if n.is_null else n.date())
    sdist: bool = fact(Node.boolean)
    wheels: Mapping[str, WheelSet] = fact(_wheels)
    provenance: Provenance = given()  # the file's
    # read from the Linux wheel's headers (refresh)
    build: Optional[HeaderBuild] = given(default=None)

    @property
    def platforms(self) -> frozenset[str]:
        return frozenset(self.wheels)

    def wheelset(self, platform: str, python: Optional[str] = None) -> Optional[WheelSet]:
        ws = self.wheels.get(platform)
        if ws is None or python is None:
            return ws
        return ws.for_python(python)


@dataclass(frozen=True)
class CudaWheel:
    """One version of an ``and-cuda`` dependency: which platforms have wheels, for which
    Pythons (``"3"``: any Python 3; ``"3.10"``: CPython 3.10 only)."""

    package: str = given()
    version: Version = fact(Node.version)
    platforms: frozenset[str] = fact(lambda n: frozenset(_strs(n)))
    sdist: bool = fact(Node.boolean)
    yanked: bool = fact(Node.boolean)
    pythons: Mapping[str, tuple[str, ...]] = fact(
        lambda n: MappingProxyType({p: _strs(tags) for p, tags in n.entries()}),
        default_factory=lambda: _NO_PYTHONS,
        required=True,
    )

    def installs(self, platform: str, python: Optional[str] = None) -> bool:
        """Whether a wheel of this version installs on ``platform`` (for ``python``)."""
        if platform not in self.platforms or self.yanked:
            return False
        if python is None:
            return True
        return any(python_matches(tag, python) for tag in self.pythons.get(platform, ()))


@dataclass(frozen=True)
class ExtraLine:
    """One requirement line of an ``and-cuda`` extra, parsed: canonical name, specifier."""

    name: str
    specifier: SpecifierSet


def parse_extra_line(line: str) -> Optional[ExtraLine]:
    """``line`` parsed by ``packaging`` (None when it is not a valid requirement)."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    try:
        req = Requirement(line)
    except InvalidRequirement:
        return None
    return ExtraLine(str(canonicalize_name(req.name)), req.specifier)


def declared(
    requires: tuple[str, ...], package: str, python: Optional[str]
) -> Optional[SpecifierSet]:
    """The specifier a release's Requires-Dist lines (``requires``) put on ``package``
    (a normalized name) for Python ``python`` (markers read for it, no extra); None where
    no line names it."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    for line in requires:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        if canonicalize_name(req.name) != package:
            continue
        env = {"python_version": python or "3", "extra": ""}
        if req.marker is not None and not req.marker.evaluate(env):
            continue
        return req.specifier
    return None


@dataclass(frozen=True)
class CudaIndex:
    """The and-cuda side of the index: every version of each CUDA wheel an ``and-cuda``
    extra names, and the extras' lines parsed. The knowledge base keeps it apart from the
    releases (its own cache entry), so that a resolve reads only this small part: the
    releases reach it through the per-platform options derived from them."""

    versions: Mapping[str, tuple[CudaWheel, ...]]
    missing: frozenset[str]
    provenance: Provenance
    # the and-cuda lines parsed once, when loading (packaging.requirements is slow to import)
    extra_lines: Mapping[str, ExtraLine] = field(default_factory=lambda: _NO_LINES)

    def extra_line(self, line: str) -> Optional[ExtraLine]:
        """An and-cuda requirement line, parsed (None when invalid)."""
        known = self.extra_lines.get(line)
        return known if known is not None else parse_extra_line(line)

    def cuda_versions(self, package: str) -> tuple[CudaWheel, ...]:
        return self.versions.get(package, ())

    def cuda_wheel_platforms(self, package: str, version: Version | str) -> frozenset[str] | None:
        """Platforms with wheels for ``package==version``; None if that version is unknown."""
        want = version if isinstance(version, Version) else Version(version)
        for cw in self.versions.get(package, ()):
            if cw.version == want:
                return cw.platforms
        return None


@dataclass(frozen=True)
class IndexFacts:
    """All index-derived facts: the releases by package, and the CUDA wheels."""

    by_package: Mapping[str, tuple[Release, ...]]
    cuda: CudaIndex

    def releases(self, package: str) -> tuple[Release, ...]:
        """Releases of ``package`` in ascending version order (empty if unknown)."""
        return self.by_package.get(package, ())

    def release(self, package: str, version: Version | str) -> Optional[Release]:
        want = version if isinstance(version, Version) else Version(version)
        return next((r for r in self.releases(package) if r.version == want), None)

    def extra_line(self, line: str) -> Optional[ExtraLine]:
        return self.cuda.extra_line(line)

    def cuda_versions(self, package: str) -> tuple[CudaWheel, ...]:
        return self.cuda.cuda_versions(package)

    def cuda_wheel_platforms(self, package: str, version: Version | str) -> frozenset[str] | None:
        return self.cuda.cuda_wheel_platforms(package, version)


def load(root: Optional[Path] = None) -> IndexFacts:
    """Load ``index/*.json`` below ``root`` (default: the shipped data)."""
    by_package = load_releases(root)
    return IndexFacts(by_package, load_cuda(root, by_package))


def load_releases(root: Optional[Path] = None) -> Mapping[str, tuple[Release, ...]]:
    """The releases of every package in :data:`INDEX_PACKAGES`, by package."""
    return MappingProxyType({name: _load_package(name, root) for name in INDEX_PACKAGES})


def load_cuda(root: Optional[Path], by_package: Mapping[str, tuple[Release, ...]]) -> CudaIndex:
    """``index/cuda-wheels.json``, with the and-cuda lines of ``by_package`` parsed."""
    cuda, missing, prov = _load_cuda(root)
    return CudaIndex(
        versions=MappingProxyType(cuda),
        missing=missing,
        provenance=prov,
        extra_lines=MappingProxyType(_parsed_extra_lines(by_package)),
    )


def _parsed_extra_lines(by_package: Mapping[str, tuple[Release, ...]]) -> dict[str, ExtraLine]:
    lines = {
        line
        for releases in by_package.values()
        for rel in releases
        for ws in rel.wheels.values()
        for each in (ws, *ws.variants.values())
        for line in each.and_cuda or ()
    }
    parsed = {line: parse_extra_line(line) for line in sorted(lines)}
    return {line: p for line, p in parsed.items() if p is not None}


def _load_package(name: str, root: Optional[Path]) -> tuple[Release, ...]:
    top = load_node(f"index/{name}.json", root)
    top.only("generated_by", "package", "releases", "retrieved", "source")
    if top.get("package").text() != name:
        raise top.get("package").fail(_("expected {name!r}").format(name=name))
    prov = top.provenance()
    releases = tuple(_release(name, n, prov) for n in top.get("releases").items())
    for a, b in zip(releases, releases[1:]):
        if not a.version < b.version:
            raise top.get("releases").fail(
                _("versions are not in ascending order ({version} before {version2})").format(
                    version=a.version, version2=b.version
                )
            )
    return releases


def _release(package: str, node: Node, prov: Provenance) -> Release:
    build = node.opt("build")
    return read_record(
        Release,
        node,
        keys=("build",),
        build=None if build.is_null else _header_build(build, prov),
        package=package,
        provenance=prov,
    )


def _header_build(node: Node, prov: Provenance) -> HeaderBuild:
    source = Provenance((node.get("source").text(),), prov.retrieved)
    return read_record(HeaderBuild, node, keys=("source",), provenance=source)


def _wheelset(platform: str, node: Node) -> WheelSet:
    base = read_record(WheelSet, node, keys=("variants",), platform=platform)
    vnode = node.opt("variants")
    if vnode.is_null:
        return base
    variants = {py: _variant(base, py, v) for py, v in vnode.entries()}
    return replace(base, variants=MappingProxyType(variants))


def _variant(base: WheelSet, python: str, node: Node) -> WheelSet:
    node.only(*_VARIANT_KEYS)
    if python not in base.pythons:
        raise node.fail(
            _("a variant for Python {python}, which this platform has no wheel for").format(
                python=python
            )
        )
    changes: dict[str, object] = {}
    if node.has("glibc"):
        changes["glibc"] = node.get("glibc").opt_version()
    if node.has("macos"):
        changes["macos"] = node.get("macos").opt_version()
    for key in ("requires_python", "stub_for"):
        if node.has(key):
            changes[key] = node.get(key).opt_text()
    if node.has("and_cuda"):
        ac = node.get("and_cuda")
        changes["and_cuda"] = None if ac.is_null else _strs(ac)
    if node.has("requires"):
        changes["requires"] = _strs(node.get("requires"))
    return replace(base, pythons=(python,), **changes)  # type: ignore[arg-type]


def _load_cuda(
    root: Optional[Path],
) -> tuple[dict[str, tuple[CudaWheel, ...]], frozenset[str], Provenance]:
    top = load_node(f"index/{CUDA_WHEELS}.json", root)
    top.only("generated_by", "package", "packages", "retrieved", "source")
    prov = top.provenance()
    out: dict[str, tuple[CudaWheel, ...]] = {}
    missing: set[str] = set()
    for name, pnode in top.get("packages").entries():
        pnode.only("missing", "versions")
        if pnode.get("missing").boolean():
            missing.add(name)
        rows = []
        for v in pnode.get("versions").items():
            row = read_record(CudaWheel, v, package=name)
            if set(row.pythons) != row.platforms:
                raise v.get("pythons").fail(_("must list the Pythons of exactly the platforms"))
            if not row.platforms <= set(PLATFORM_KEYS):
                raise v.get("platforms").fail(
                    ngettext(
                        "unknown platform {names}",
                        "unknown platforms {names}",
                        len(row.platforms - set(PLATFORM_KEYS)),
                    ).format(names=", ".join(sorted(row.platforms - set(PLATFORM_KEYS))))
                )
            rows.append(row)
        out[name] = tuple(rows)
    return out, frozenset(missing), prov
