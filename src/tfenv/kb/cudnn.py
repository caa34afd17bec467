"""cuDNN release series and the CUDA builds each ships (``data/nvidia/cudnn.yaml``)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Optional

from packaging.version import InvalidVersion, Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import fact, given, read_record, sourced

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = ["CUDNN_FILE", "CudnnFacts", "CudnnSeries", "load"]

CUDNN_FILE = "nvidia/cudnn.yaml"


def _empty_versions() -> Mapping[int, tuple[Version, ...]]:
    return MappingProxyType({})


def _empty_steps() -> Mapping[int, tuple[tuple[Version, Version], ...]]:
    return MappingProxyType({})


def _series_version(node: Node) -> Version:
    version = node.version()
    if len(version.release) != 2:
        raise node.fail(_("{version} is not a major.minor cuDNN series").format(version=version))
    return version


@dataclass(frozen=True)
class CudnnSeries:
    """One cuDNN major.minor series.

    ``min_cc``, ``cuda_versions`` and ``max_cc`` hold only what is established: a CUDA
    major in ``cuda_majors`` but missing from them means "not known", never "no limit".
    ``max_cc`` is the highest compute capability NVIDIA's support matrix lists for the
    build of a CUDA major, as steps ``(from CUDA version, highest)``: cuDNN 9.10's CUDA
    12.0-12.6 build lists up to 9.0, its CUDA 12.8 build up to 12.0.
    """

    version: Version = fact(_series_version)
    cuda_majors: tuple[int, ...] = given()
    min_cc: Mapping[int, Version] = given()
    provenance: Provenance = sourced()
    cuda_versions: Mapping[int, tuple[Version, ...]] = given(default_factory=_empty_versions)
    note: Optional[str] = fact(Node.opt_text, default=None)
    max_cc: Mapping[int, tuple[tuple[Version, Version], ...]] = given(default_factory=_empty_steps)

    def native_max(self, cuda: Version) -> Optional[Version]:
        """The highest compute capability the support matrix lists for this series' build
        for ``cuda`` (None: not established)."""
        steps = [cc for since, cc in self.max_cc.get(cuda.release[0], ()) if cuda >= since]
        return steps[-1] if steps else None

    def supports_cuda(self, cuda: Version) -> Optional[bool]:
        """Whether a build of this series exists for ``cuda`` (None when the minors are unknown)."""
        major = cuda.release[0]
        if major not in self.cuda_majors:
            return False
        listed = self.cuda_versions.get(major)
        if listed is None:
            return None
        return Version(f"{major}.{(*cuda.release, 0)[1]}") in listed


@dataclass(frozen=True)
class ForwardCompat:
    """cuDNN's hardware forward compatibility: PTX JIT on GPUs newer than its native list."""

    since: Version
    cuda_major_min: int
    lib_config: str
    lib_config_default: bool
    provenance: Provenance

    def covers(self, cudnn: Version, cuda: Version) -> bool:
        """Whether a cuDNN ``cudnn`` build for CUDA ``cuda`` runs on newer GPUs by PTX JIT."""
        return cudnn >= self.since and cuda.release[0] >= self.cuda_major_min


class CudnnFacts:
    """All known cuDNN series, ordered by version."""

    def __init__(
        self, series: tuple[CudnnSeries, ...], forward_compat: Optional[ForwardCompat] = None
    ) -> None:
        self.all_series = series
        self._by_version = {s.version: s for s in series}
        self.forward_compat = forward_compat

    def native_bounds(
        self, series: CudnnSeries, cuda: Version
    ) -> tuple[Optional[Version], Optional[Version]]:
        """The highest compute capability ``series``' build for ``cuda`` lists natively, as
        (at least, at most): the recorded value twice, else the nearest recorded series
        before and after it with a build for the same CUDA major, or for want of an earlier
        one, the newest an earlier series lists for an older CUDA major (a support matrix
        adds architectures at the top and never drops its newest one; None: no such
        series)."""
        own = series.native_max(cuda)
        if own is not None:
            return own, own
        lower: Optional[Version] = None
        upper: Optional[Version] = None
        for other in self.all_series:
            value = other.native_max(cuda)
            if value is None:
                continue
            if other.version < series.version:
                lower = value
            elif other.version > series.version and upper is None:
                upper = value
        if lower is None:  # no earlier build for this CUDA major: an earlier one for an older
            lower = self._older_major_max(series.version, cuda.release[0])
        return lower, upper

    def _older_major_max(self, before: Version, major: int) -> Optional[Version]:
        """The highest capability a series before ``before`` lists for a CUDA major below
        ``major``."""
        tops = [
            steps[-1][1]
            for other in self.all_series
            if other.version < before
            for cuda_major, steps in other.max_cc.items()
            if cuda_major < major
        ]
        return max(tops) if tops else None

    def series(self, version: Version | str) -> CudnnSeries | None:
        """The series of a cuDNN version: "8.9.4.25" -> 8.9, "9" -> None."""
        v = version if isinstance(version, Version) else Version(version)
        if len(v.release) < 2:
            return None
        return self._by_version.get(Version(f"{v.release[0]}.{v.release[1]}"))


def _series(node: Node) -> CudnnSeries:
    """A series: its CUDA builds (``cuda``) are spread over three fields."""
    majors: list[int] = []
    min_cc: dict[int, Version] = {}
    max_cc: dict[int, tuple[tuple[Version, Version], ...]] = {}
    versions: dict[int, tuple[Version, ...]] = {}
    for build in node.get("cuda").items():
        build.only("major", "versions", "min_cc", "max_cc")
        major = build.get("major").integer()
        if major in majors:
            raise build.get("major").fail(_("CUDA {major} is listed twice").format(major=major))
        majors.append(major)
        cc = build.get("min_cc").opt_version()
        if cc is not None:
            min_cc[major] = cc
        steps = _max_cc(build.opt("max_cc"), major)
        if steps:
            max_cc[major] = steps
        listed = build.get("versions")
        if not listed.is_null:
            minors: list[Version] = []
            for item in listed.items():
                minor = item.version()
                if minor.release[0] != major:
                    raise item.fail(
                        _("CUDA {minor} is not a CUDA {major} version").format(
                            minor=minor, major=major
                        )
                    )
                minors.append(minor)
            versions[major] = tuple(minors)
    if not majors:
        raise node.get("cuda").fail(_("a cuDNN series needs at least one CUDA build"))
    return read_record(
        CudnnSeries,
        node,
        keys=("cuda",),
        cuda_majors=tuple(majors),
        min_cc=MappingProxyType(min_cc),
        cuda_versions=MappingProxyType(versions),
        max_cc=MappingProxyType(max_cc),
    )


def _max_cc(node: Node, major: int) -> tuple[tuple[Version, Version], ...]:
    """``max_cc``: a compute capability for the whole build, or ``{from CUDA: highest}``
    where the matrix lists a separate build for newer CUDA minors (ascending)."""
    if node.is_null:
        return ()
    if not isinstance(node.value, dict):
        return ((Version(f"{major}.0"), node.version()),)
    steps: list[tuple[Version, Version]] = []
    for key, value in node.entries():
        try:
            since = Version(key)
        except InvalidVersion:
            raise value.fail(_("{key!r} is not a CUDA version").format(key=key)) from None
        if since.release[0] != major:
            raise value.fail(
                _("CUDA {since} is not a CUDA {major} version").format(since=since, major=major)
            )
        if steps and (since <= steps[-1][0] or value.version() <= steps[-1][1]):
            raise value.fail(_("steps must rise with the CUDA version and the capability"))
        steps.append((since, value.version()))
    return tuple(steps)


def parse(root: Node) -> CudnnFacts:
    """Build the facts from a parsed file (exposed for tests on hand-made data)."""
    root.only("series", "forward_compat")
    nodes = list(root.get("series").items())
    series = tuple(_series(n) for n in nodes)
    for i in range(1, len(series)):
        if series[i].version <= series[i - 1].version:
            raise (
                nodes[i]
                .get("version")
                .fail(_("series must be listed once each, in ascending order"))
            )
    fc = None
    if root.has("forward_compat"):
        node = root.get("forward_compat").only(
            "since", "cuda_major_min", "lib_config", "lib_config_default", "source", "retrieved"
        )
        fc = ForwardCompat(
            since=node.get("since").version(),
            cuda_major_min=node.get("cuda_major_min").integer(minimum=1),
            lib_config=node.get("lib_config").label(),
            lib_config_default=node.get("lib_config_default").boolean(),
            provenance=node.provenance(),
        )
    return CudnnFacts(series, fc)


def load(root: Path | None = None) -> CudnnFacts:
    """Load ``nvidia/cudnn.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(CUDNN_FILE, root))
