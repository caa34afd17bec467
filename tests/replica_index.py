"""A local replica of the slice of the package index that tfenv's plans install from,
built from tfenv's own recorded data, so that "every ok plan installs" is checkable
offline from the same facts the solver uses.

Replicated from ``src/tfenv/data/index/`` (through :func:`tfenv.kb.index.load`):

* ``tensorflow`` and its siblings (``INDEX_PACKAGES``): one wheel per recorded release,
  platform and Python entry, with the recorded Requires-Dist (the ``and-cuda`` lines
  under ``extra == "and-cuda"``, their other markers kept), Requires-Python, the glibc
  or macOS floor as the platform tag (``manylinux_2_17_x86_64``, ``macosx_12_0_arm64``),
  per-Python variants, sdists and yanked releases;
* the ``and-cuda`` dependencies (``cuda-wheels.json``): every version, the platforms
  with wheels and their Python tags per platform; a version with only an sdist has only
  an sdist here too; yanked versions are yanked.

Not recorded, so simplified (the live test checks the real index):

* the CUDA wheels' glibc floors (``manylinux_2_17`` is used) and their own dependencies
  (none);
* every other dependency named in the recorded Requires-Dist (numpy, keras, protobuf,
  ...): universal ``py3-none-any`` wheels without dependencies, one version for each
  distinct specifier found in the data (:func:`pick_version`), the runtime constraints
  the plans add (``tensorflow/runtime.yaml``, each with the release's declared specifier)
  included.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tests.lock_index import make_sdist, make_wheel
from tfenv.kb.index import INDEX_PACKAGES, IndexFacts, WheelSet, load
from tfenv.models.platform import platform

__all__ = [
    "ReplicaDist",
    "build_replica",
    "candidate_versions",
    "pick_version",
    "platform_tag",
    "python_tag",
    "replica_dists",
]

CUDA_WHEEL_GLIBC = "2.17"  # not recorded per CUDA wheel; manylinux2014, the usual one
AND_CUDA = 'extra == "and-cuda"'


@dataclass(frozen=True)
class ReplicaDist:
    """One file of the replica: a wheel (``tag`` set) or an sdist (``tag`` None)."""

    name: str
    version: str
    tag: Optional[str]
    requires: tuple[str, ...] = ()
    requires_python: Optional[str] = None
    yanked: Union[bool, str] = False


# -- versions for the dependencies the data only names -----------------------------------


def _release(v: Version, size: int) -> tuple[int, ...]:
    r = v.release
    return r + (0,) * (size - len(r)) if len(r) < size else r


def candidate_versions(mentioned: Iterable[Version]) -> set[Version]:
    """The mentioned versions and simple bumps of each: every component one up (later
    components zeroed) and one down where above zero (``1.23.5`` -> ``1.23.6``,
    ``1.24.0``, ``2.0.0``, ``1.23.4``, ``1.22.0``, ``0.0.0``)."""
    out: set[Version] = set()
    for v in mentioned:
        out.add(v)
        r = _release(v, 1)
        for i, part in enumerate(r):
            zeros = (0,) * (len(r) - i - 1)
            out.add(Version(".".join(map(str, (*r[:i], part + 1, *zeros)))))
            if part > 0:
                out.add(Version(".".join(map(str, (*r[:i], part - 1, *zeros)))))
    return out


def _mentioned(spec: SpecifierSet) -> list[Version]:
    out = []
    for s in spec:
        try:
            out.append(Version(s.version.rstrip(".*")))
        except InvalidVersion:  # an arbitrary-equality (===) string
            continue
    return out


def pick_version(spec: SpecifierSet, pool: Iterable[Version] = ()) -> Version:
    """The newest version satisfying ``spec`` among the versions it and ``pool`` mention
    and their bumps (:func:`candidate_versions`); a final release when one satisfies,
    else a pre-release. ValueError when none does: a specifier this cannot satisfy
    must not silently drop a dependency from the replica."""
    mentioned = [*_mentioned(spec), *pool] or [Version("1.0")]
    candidates = candidate_versions(mentioned)
    finals = [v for v in candidates if not v.is_prerelease and spec.contains(v)]
    if finals:
        return max(finals)
    pres = [v for v in candidates if spec.contains(v, prereleases=True)]
    if pres:
        return max(pres)
    shown = ", ".join(str(v) for v in sorted(candidates))
    raise ValueError(f"no version satisfies {spec!s} among {shown}")


# -- wheel tags ----------------------------------------------------------------------------


def python_tag(entry: str) -> str:
    """The wheel's python-abi tag of a recorded Python entry: ``"3.10"`` -> ``cp310-cp310``,
    ``"3.6+"`` -> ``cp36-abi3``, ``"3"`` -> ``py3-none``, ``"2.7"`` -> ``cp27-cp27mu``."""
    if entry == "3":
        return "py3-none"
    digits = entry.rstrip("+").replace(".", "")
    if entry.endswith("+"):
        return f"cp{digits}-abi3"
    if digits in ("27", "35", "36", "37"):  # before 3.8 the ABI tag carried flags
        return f"cp{digits}-cp{digits}{'mu' if digits == '27' else 'm'}"
    return f"cp{digits}-cp{digits}"


def platform_tag(
    key: str, glibc: Optional[Union[Version, str]], macos: Optional[Union[Version, str]]
) -> str:
    """The wheel platform tag of a recorded platform and floor."""
    p = platform(key)
    if p.os == "linux":
        major, minor = str(glibc or CUDA_WHEEL_GLIBC).split(".")[:2]
        return f"manylinux_{major}_{minor}_{p.arch}"
    if p.os == "macos":
        major, minor = [*str(macos or p.first_os).split("."), "0"][:2]
        return f"macosx_{major}_{minor}_{p.tag_arches[0]}"
    return p.tag_arches[0]


# -- the distributions ---------------------------------------------------------------------


def _and_cuda_line(text: str) -> str:
    req = Requirement(text)
    marker = f"({req.marker}) and {AND_CUDA}" if req.marker is not None else AND_CUDA
    req.marker = None
    return f"{req}; {marker}"


def _wheelset_requires(ws: WheelSet) -> tuple[str, ...]:
    cuda = tuple(_and_cuda_line(t) for t in ws.and_cuda or ())
    return (*ws.requires, *cuda)


def _yanked(yanked: bool, reason: Optional[str]) -> Union[bool, str]:
    return (reason or True) if yanked else False


def _tensorflow_dists(facts: IndexFacts) -> Iterator[ReplicaDist]:
    for package in INDEX_PACKAGES:
        for rel in facts.releases(package):
            yanked = _yanked(rel.yanked, rel.yanked_reason)
            version = str(rel.version)
            if rel.sdist:
                yield ReplicaDist(package, version, None, yanked=yanked)
            for key, base in rel.wheels.items():
                for py in base.pythons:
                    ws = base.for_python(py) or base
                    tag = f"{python_tag(py)}-{platform_tag(key, ws.glibc, ws.macos)}"
                    requires = _wheelset_requires(ws)
                    yield ReplicaDist(package, version, tag, requires, ws.requires_python, yanked)


def _cuda_dists(facts: IndexFacts) -> Iterator[ReplicaDist]:
    for name, versions in facts.cuda.versions.items():
        for cw in versions:
            version = str(cw.version)
            yanked = _yanked(cw.yanked, None)
            if cw.sdist:
                yield ReplicaDist(name, version, None, yanked=yanked)
            for key in sorted(cw.platforms):
                for py in cw.pythons.get(key, ()):
                    tag = f"{python_tag(py)}-{platform_tag(key, None, None)}"
                    yield ReplicaDist(name, version, tag, yanked=yanked)


def _wheelsets(facts: IndexFacts) -> Iterator[WheelSet]:
    for package in INDEX_PACKAGES:
        for rel in facts.releases(package):
            for ws in rel.wheels.values():
                yield ws
                yield from ws.variants.values()


def other_requirements(facts: IndexFacts) -> dict[str, set[SpecifierSet]]:
    """Every dependency the recorded Requires-Dist names that is not replicated from its
    own facts, with the distinct specifiers the data puts on it."""
    own = {canonicalize_name(p) for p in (*INDEX_PACKAGES, *facts.cuda.versions)}
    out: dict[str, set[SpecifierSet]] = {}
    for ws in _wheelsets(facts):
        for text in (*ws.requires, *(ws.and_cuda or ())):
            req = Requirement(text)
            name = canonicalize_name(req.name)
            if name not in own and req.url is None:
                out.setdefault(name, set()).add(req.specifier)
    return out


def runtime_requirements() -> dict[str, set[SpecifierSet]]:
    """What the plans add (``tensorflow/runtime.yaml``): each constraint with the release's
    own declared specifier (``numpy<2`` with ``numpy>=1.20``), so that the replica has a
    version that satisfies both, as the real index does."""
    from tfenv.kb.runtime import load as load_runtime

    out: dict[str, set[SpecifierSet]] = {}
    for c in load_runtime().constraints:
        spec = SpecifierSet(c.requirement)
        if c.declared:
            spec &= Requirement(c.declared).specifier
        out.setdefault(canonicalize_name(c.package), set()).add(spec)
    return out


def _other_dists(facts: IndexFacts) -> Iterator[ReplicaDist]:
    wanted = other_requirements(facts)
    for name, specs in runtime_requirements().items():
        wanted.setdefault(name, set()).update(specs)
    for name, specs in sorted(wanted.items()):
        pool = [v for s in specs for v in _mentioned(s)]
        for version in sorted({pick_version(s, pool) for s in specs}):
            yield ReplicaDist(name, str(version), "py3-none-any")


def replica_dists(facts: Optional[IndexFacts] = None) -> list[ReplicaDist]:
    """Every file of the replica, from ``facts`` (default: the shipped index data)."""
    facts = facts if facts is not None else load()
    return [*_tensorflow_dists(facts), *_cuda_dists(facts), *_other_dists(facts)]


def build_replica(
    folder: Path,
    facts: Optional[IndexFacts] = None,
    wanted: Callable[[ReplicaDist], bool] = lambda d: True,
) -> dict[str, dict[str, Any]]:
    """Write the replica's files (those ``wanted``) into ``folder``; returns the PEP 691 keys
    per file name (``requires-python``, ``yanked``) for :class:`tests.lock_index.LockIndex`."""
    folder.mkdir(parents=True, exist_ok=True)
    info: dict[str, dict[str, Any]] = {}
    for d in filter(wanted, replica_dists(facts)):
        if d.tag is None:
            path = make_sdist(folder, d.name, d.version)
        else:
            path = make_wheel(folder, d.name, d.version, d.tag, d.requires, d.requires_python)
        extra: dict[str, Any] = {}
        if d.requires_python:
            extra["requires-python"] = d.requires_python
        if d.yanked:
            extra["yanked"] = d.yanked
        if extra:
            info[path.name] = extra
    return info
