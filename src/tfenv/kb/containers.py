"""Container images that carry TensorFlow with CUDA (``containers.yaml``).

Two families: the official ``tensorflow/tensorflow`` GPU images (tags derived from the
release, per-release CUDA where a source was read) and NVIDIA's NGC TensorFlow containers
(CUDA, driver requirement and the data-center drivers that forward compatibility allows).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from packaging.version import Version

from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.models.driver import DriverVersion

__all__ = [
    "CONTAINERS_FILE",
    "ContainerFacts",
    "HostNeeds",
    "NgcRelease",
    "OfficialImages",
    "OfficialRelease",
    "load",
    "parse",
]

CONTAINERS_FILE = "containers.yaml"


@dataclass(frozen=True)
class OfficialRelease:
    """What one release's ``gpu.Dockerfile`` builds on."""

    tensorflow: Version
    base_image: Optional[str]
    cuda: Optional[Version]
    cudnn: Optional[Version]
    python: Optional[Version]
    provenance: Provenance


@dataclass(frozen=True)
class OfficialImages:
    repository: str
    gpu_suffixes: tuple[str, ...]
    architectures: Optional[tuple[str, ...]]
    releases: tuple[OfficialRelease, ...]
    provenance: Provenance
    note: Optional[str] = None

    def gpu_tags(self, version: Version) -> tuple[str, ...]:
        return tuple(f"{version}{suffix}" for suffix in self.gpu_suffixes)

    def release(self, version: Version) -> Optional[OfficialRelease]:
        return next((r for r in self.releases if r.tensorflow == version), None)


@dataclass(frozen=True)
class NgcRelease:
    release: str  # "23.01"
    tensorflow: Optional[Version]
    cuda: Optional[Version]
    cudnn: Optional[Version]
    python: Optional[Version]
    min_driver: Optional[DriverVersion]  # a branch ("525") or a full version ("465.19.01")
    forward_compat: Optional[tuple[Version, ...]]
    cc_min: Optional[Version]
    architectures: Optional[tuple[str, ...]]
    provenance: Provenance
    note: Optional[str] = None

    @property
    def tag(self) -> str:
        return f"{self.release}-tf2-py3"

    @property
    def image(self) -> str:
        return f"nvcr.io/nvidia/tensorflow:{self.tag}"

    def driver_ok(self, driver: Version) -> bool:
        """Whether ``driver`` meets the release's own requirement (no forward compatibility)."""
        return self.min_driver is not None and driver >= self.min_driver

    def forward_compatible(self, driver: Version) -> bool:
        """Whether ``driver`` is one the release notes allow on data-center GPUs.

        "450.51 (or later R450)": same branch (the driver's major) and at least that version.
        """
        for floor in self.forward_compat or ():
            if driver.release[0] == floor.release[0] and driver >= floor:
                return True
        return False


@dataclass(frozen=True)
class HostNeeds:
    linux: tuple[str, ...]
    wsl2: tuple[str, ...]
    provenance: Provenance

    def for_os(self, os: str) -> tuple[str, ...]:
        return self.linux if os == "linux" else self.wsl2


@dataclass(frozen=True)
class ContainerFacts:
    official: OfficialImages
    ngc: tuple[NgcRelease, ...]
    ngc_last_release: Optional[str]
    ngc_last_provenance: Provenance
    host: HostNeeds

    def ngc_for(self, version: Version) -> tuple[NgcRelease, ...]:
        """NGC releases based on TensorFlow ``version`` (newest first)."""
        return tuple(r for r in self.ngc if r.tensorflow == version)

    def ngc_for_arch(self, arch: str) -> tuple[NgcRelease, ...]:
        return tuple(r for r in self.ngc if r.architectures and arch in r.architectures)


def _opt_versions(node: Node) -> Optional[tuple[Version, ...]]:
    return None if node.is_null else node.versions()


def _opt_texts(node: Node) -> Optional[tuple[str, ...]]:
    return None if node.is_null else node.texts()


def _official_release(node: Node) -> OfficialRelease:
    node.only("tensorflow", "base_image", "cuda", "cudnn", "python", "source", "retrieved")
    return OfficialRelease(
        tensorflow=node.get("tensorflow").version(),
        base_image=node.get("base_image").opt_text(),
        cuda=node.get("cuda").opt_version(),
        cudnn=node.get("cudnn").opt_version(),
        python=node.get("python").opt_version(),
        provenance=node.provenance(),
    )


def _official(node: Node) -> OfficialImages:
    node.only(
        "repository", "gpu_suffixes", "architectures", "note", "releases", "source", "retrieved"
    )
    return OfficialImages(
        repository=node.get("repository").text(),
        gpu_suffixes=node.get("gpu_suffixes").texts(),
        architectures=_opt_texts(node.get("architectures")),
        releases=tuple(_official_release(n) for n in node.get("releases").items()),
        provenance=node.provenance(),
        note=node.opt("note").opt_text(),
    )


def _ngc(node: Node) -> NgcRelease:
    node.only(
        "release",
        "tensorflow",
        "cuda",
        "cudnn",
        "python",
        "min_driver",
        "forward_compat",
        "cc_min",
        "architectures",
        "note",
        "source",
        "retrieved",
    )
    release = node.get("release").text()
    parts = release.split(".")
    if len(parts) != 2 or not all(p.isdigit() and len(p) == 2 for p in parts):
        raise node.get("release").fail(f"{release!r} is not a YY.MM release")
    return NgcRelease(
        release=release,
        tensorflow=node.get("tensorflow").opt_version(),
        cuda=node.get("cuda").opt_version(),
        cudnn=node.get("cudnn").opt_version(),
        python=node.get("python").opt_version(),
        min_driver=node.get("min_driver").opt_driver(),
        forward_compat=_opt_versions(node.get("forward_compat")),
        cc_min=node.get("cc_min").opt_version(),
        architectures=_opt_texts(node.get("architectures")),
        provenance=node.provenance(),
        note=node.opt("note").opt_text(),
    )


def _host(node: Node) -> HostNeeds:
    node.only("linux", "wsl2", "source", "retrieved")
    return HostNeeds(
        linux=node.get("linux").texts(),
        wsl2=node.get("wsl2").texts(),
        provenance=node.provenance(),
    )


def parse(root: Node) -> ContainerFacts:
    """Build the facts from a parsed file (exposed for tests on hand-made data)."""
    root.only("official", "ngc", "ngc_last_release", "host")
    ngc_nodes = list(root.get("ngc").items())
    ngc = tuple(_ngc(n) for n in ngc_nodes)
    seen: set[str] = set()
    for node, rel in zip(ngc_nodes, ngc):
        if rel.release in seen:
            raise node.get("release").fail(f"duplicate NGC release {rel.release}")
        seen.add(rel.release)
    ordered = tuple(sorted(ngc, key=lambda r: r.release, reverse=True))
    last = root.get("ngc_last_release").only("release", "note", "source", "retrieved")
    return ContainerFacts(
        official=_official(root.get("official")),
        ngc=ordered,
        ngc_last_release=last.get("release").opt_text(),
        ngc_last_provenance=last.provenance(),
        host=_host(root.get("host")),
    )


def load(root: Path | None = None) -> ContainerFacts:
    """Load ``containers.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(CONTAINERS_FILE, root))
