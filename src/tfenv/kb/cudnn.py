"""cuDNN release series and the CUDA builds each ships (``data/nvidia/cudnn.yaml``)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import fact, given, read_record, sourced

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = ["CUDNN_FILE", "CudnnFacts", "CudnnSeries", "load"]

CUDNN_FILE = "nvidia/cudnn.yaml"


def _empty_versions() -> Mapping[int, tuple[Version, ...]]:
    return MappingProxyType({})


def _series_version(node: Node) -> Version:
    version = node.version()
    if len(version.release) != 2:
        raise node.fail(_("{version} is not a major.minor cuDNN series").format(version=version))
    return version


@dataclass(frozen=True)
class CudnnSeries:
    """One cuDNN major.minor series.

    ``min_cc`` and ``cuda_versions`` hold only what is established: a CUDA major in
    ``cuda_majors`` but missing from them means "not known", never "no limit".
    """

    version: Version = fact(_series_version)
    cuda_majors: tuple[int, ...] = given()
    min_cc: Mapping[int, Version] = given()
    provenance: Provenance = sourced()
    cuda_versions: Mapping[int, tuple[Version, ...]] = given(default_factory=_empty_versions)
    note: Optional[str] = fact(Node.opt_text, default=None)

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
    versions: dict[int, tuple[Version, ...]] = {}
    for build in node.get("cuda").items():
        build.only("major", "versions", "min_cc")
        major = build.get("major").integer()
        if major in majors:
            raise build.get("major").fail(_("CUDA {major} is listed twice").format(major=major))
        majors.append(major)
        cc = build.get("min_cc").opt_version()
        if cc is not None:
            min_cc[major] = cc
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
    )


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
