"""Container images that carry TensorFlow with CUDA (``containers.yaml``).

* the official ``tensorflow/tensorflow`` GPU images: per release, the CUDA, cuDNN and
  Python inside, the base image and the ``NVIDIA_REQUIRE_CUDA`` it inherits, each with
  its status (established, inferred, third-party, unknown);
* NVIDIA's CUDA base images the container route builds on where no official image fits;
* the brand names ``nvidia-container-cli`` may report for each GPU segment;
* NVIDIA's NGC TensorFlow containers (CUDA, driver requirement, the data-center drivers
  that forward compatibility allows) and the last NGC TensorFlow release.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Optional, cast

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.kb._fields import Node, Provenance, unique
from tfenv.kb._files import load_node
from tfenv.models.driver import DriverVersion
from tfenv.models.require_cuda import RequireCuda, RequireCudaError, parse

__all__ = [
    "CONTAINERS_FILE",
    "STATUSES",
    "ContainerFacts",
    "CudaBase",
    "GpuBrands",
    "HostNeeds",
    "NgcImage",
    "NgcLast",
    "NgcRelease",
    "OfficialImages",
    "OfficialRelease",
    "Status",
    "load",
    "parse_facts",
]

CONTAINERS_FILE = "containers.yaml"

Status = Literal["established", "inferred", "third-party", "unknown"]
STATUSES: tuple[Status, ...] = ("established", "inferred", "third-party", "unknown")


def _mm(v: Version) -> tuple[int, int]:
    return (v.major, v.minor)


@dataclass(frozen=True)
class OfficialRelease:
    """What the official GPU images of the releases in ``versions`` carry."""

    versions: SpecifierSet
    tag_suffixes: Optional[tuple[str, ...]]
    base_image: Optional[str]
    ubuntu: Optional[str]
    cuda: Optional[Version]
    cudnn: Optional[Version]
    python: Optional[Version]
    status: Status
    require_cuda: Optional[RequireCuda]
    require_cuda_status: Status
    provenance: Provenance
    note: Optional[str] = None

    def covers(self, version: Version) -> bool:
        return self.versions.contains(version, prereleases=True)


@dataclass(frozen=True)
class OfficialImages:
    repository: str
    gpu_suffixes: tuple[str, ...]
    architectures: Optional[tuple[str, ...]]
    releases: tuple[OfficialRelease, ...]
    provenance: Provenance
    note: Optional[str] = None

    def release(self, version: Version) -> Optional[OfficialRelease]:
        """The record of ``version``'s image: the first whose specifier contains it."""
        return next((r for r in self.releases if r.covers(version)), None)

    def series(self, version: Version) -> tuple[OfficialRelease, ...]:
        """Records of the images of ``version``'s X.Y series (any patch), in file order."""
        probes = [version, *(Version(f"{version.major}.{version.minor}.{z}") for z in range(10))]
        return tuple(r for r in self.releases if any(r.covers(v) for v in probes))

    def gpu_tags(self, version: Version) -> tuple[str, ...]:
        rec = self.release(version)
        suffixes = rec.tag_suffixes if rec is not None and rec.tag_suffixes else self.gpu_suffixes
        return tuple(f"{version}{suffix}" for suffix in suffixes)

    def image(self, version: Version) -> str:
        """``tensorflow/tensorflow:<version><first suffix>``."""
        return f"{self.repository}:{self.gpu_tags(version)[0]}"


@dataclass(frozen=True)
class CudaBase:
    """An ``nvidia/cuda:<X.Y.Z>-base-ubuntu<U>`` image: the CUDA runtime and nothing else."""

    cuda: Version
    image: str
    ubuntu: str
    require_cuda: Optional[RequireCuda]
    status: Status
    provenance: Provenance
    note: Optional[str] = None


@dataclass(frozen=True)
class GpuBrands:
    """Segment of ``nvidia/gpus.yaml`` -> the brand names nvidia-container-cli may report."""

    segments: tuple[tuple[str, Optional[tuple[str, ...]]], ...]
    provenance: Provenance
    note: Optional[str] = None

    def for_segment(self, segment: str) -> Optional[frozenset[str]]:
        found = dict(self.segments).get(segment)
        return frozenset(found) if found else None


@dataclass(frozen=True)
class NgcImage:
    """How NGC names its TensorFlow images: ``<repository>:<release><tag_suffix>``."""

    repository: str
    tag_suffix: str
    provenance: Provenance


@dataclass(frozen=True)
class NgcRelease:
    release: str  # "23.01"
    tensorflow: Optional[Version]
    cuda: Optional[Version]
    cudnn: Optional[Version]
    python: Optional[Version]
    ubuntu: Optional[str]
    min_driver: Optional[DriverVersion]  # a branch ("525") or a full version ("465.19.01")
    forward_compat: Optional[tuple[Version, ...]]
    cc_min: Optional[Version]
    cc_max: Optional[Version]
    architectures: Optional[tuple[str, ...]]
    status: Status
    provenance: Provenance
    naming: NgcImage  # how the release's image is named (``ngc_image`` of the file)
    note: Optional[str] = None

    @property
    def tag(self) -> str:
        return f"{self.release}{self.naming.tag_suffix}"

    @property
    def image(self) -> str:
        """``nvcr.io/nvidia/tensorflow:23.01-tf2-py3``."""
        return f"{self.naming.repository}:{self.tag}"

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
class NgcLast:
    """The last NGC TensorFlow release and NVIDIA's notice."""

    release: Optional[str]
    status: Status
    notice: Optional[str]
    provenance: Provenance
    note: Optional[str] = None


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
    cuda_bases: tuple[CudaBase, ...]
    gpu_brands: GpuBrands
    ngc: tuple[NgcRelease, ...]
    ngc_last: NgcLast
    host: HostNeeds

    @property
    def ngc_last_release(self) -> Optional[str]:
        return self.ngc_last.release

    def ngc_for(self, version: Version) -> tuple[NgcRelease, ...]:
        """NGC releases based on TensorFlow ``version`` (newest first)."""
        return tuple(r for r in self.ngc if r.tensorflow == version)

    def ngc_for_arch(self, arch: str) -> tuple[NgcRelease, ...]:
        return tuple(r for r in self.ngc if r.architectures and arch in r.architectures)

    def cuda_base(self, cuda: Version) -> Optional[CudaBase]:
        """The CUDA base image of ``cuda``'s X.Y."""
        return next((b for b in self.cuda_bases if _mm(b.cuda) == _mm(cuda)), None)


def _labels(node: Node) -> Optional[tuple[str, ...]]:
    """Parts of image names (they are written into Dockerfiles): one-line printable text."""
    return None if node.is_null else tuple(n.label() for n in node.items())


def _status(node: Node) -> Status:
    return cast("Status", node.choice(*STATUSES))


def _require(node: Node) -> Optional[RequireCuda]:
    text = node.opt_text()
    if text is None:
        return None
    try:
        return parse(text)
    except RequireCudaError as exc:
        raise node.fail(f"not an NVIDIA_REQUIRE_CUDA value: {exc}") from None


def _official_release(node: Node) -> OfficialRelease:
    node.only(
        "versions",
        "tag_suffixes",
        "base_image",
        "ubuntu",
        "cuda",
        "cudnn",
        "python",
        "status",
        "require_cuda",
        "require_cuda_status",
        "note",
        "source",
        "retrieved",
    )
    return OfficialRelease(
        versions=node.get("versions").specifier(),
        tag_suffixes=_labels(node.get("tag_suffixes")),
        base_image=node.get("base_image").opt_text(),
        ubuntu=node.get("ubuntu").opt_text(),
        cuda=node.get("cuda").opt_version(),
        cudnn=node.get("cudnn").opt_version(),
        python=node.get("python").opt_version(),
        status=_status(node.get("status")),
        require_cuda=_require(node.get("require_cuda")),
        require_cuda_status=_status(node.get("require_cuda_status")),
        provenance=node.provenance(),
        note=node.opt("note").opt_text(),
    )


def _official(node: Node) -> OfficialImages:
    node.only(
        "repository", "gpu_suffixes", "architectures", "note", "releases", "source", "retrieved"
    )
    return OfficialImages(
        repository=node.get("repository").label(),
        gpu_suffixes=tuple(n.label() for n in node.get("gpu_suffixes").items()),
        architectures=node.get("architectures").opt_texts(),
        releases=tuple(_official_release(n) for n in node.get("releases").items()),
        provenance=node.provenance(),
        note=node.opt("note").opt_text(),
    )


def _cuda_base(node: Node) -> CudaBase:
    node.only("cuda", "image", "ubuntu", "require_cuda", "status", "note", "source", "retrieved")
    return CudaBase(
        cuda=node.get("cuda").version(),
        image=node.get("image").label(),
        ubuntu=node.get("ubuntu").text(),
        require_cuda=_require(node.get("require_cuda")),
        status=_status(node.get("status")),
        provenance=node.provenance(),
        note=node.opt("note").opt_text(),
    )


def _gpu_brands(node: Node) -> GpuBrands:
    node.only("segments", "note", "source", "retrieved")
    segments = tuple(
        (name, None if value.is_null else tuple(t.lower() for t in value.texts()))
        for name, value in node.get("segments").entries()
    )
    return GpuBrands(segments, node.provenance(), node.opt("note").opt_text())


def _ngc_image(node: Node) -> NgcImage:
    node.only("repository", "tag_suffix", "source", "retrieved")
    return NgcImage(
        repository=node.get("repository").label(),
        tag_suffix=node.get("tag_suffix").label(),
        provenance=node.provenance(),
    )


def _ngc(node: Node, naming: NgcImage) -> NgcRelease:
    node.only(
        "release",
        "tensorflow",
        "cuda",
        "cudnn",
        "python",
        "ubuntu",
        "min_driver",
        "forward_compat",
        "cc_min",
        "cc_max",
        "architectures",
        "status",
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
        ubuntu=node.get("ubuntu").opt_text(),
        min_driver=node.get("min_driver").opt_driver(),
        forward_compat=node.get("forward_compat").opt_versions(),
        cc_min=node.get("cc_min").opt_version(),
        cc_max=node.get("cc_max").opt_version(),
        architectures=node.get("architectures").opt_texts(),
        status=_status(node.get("status")),
        provenance=node.provenance(),
        naming=naming,
        note=node.opt("note").opt_text(),
    )


def _ngc_last(node: Node) -> NgcLast:
    node.only("release", "status", "notice", "note", "source", "retrieved")
    return NgcLast(
        release=node.get("release").opt_text(),
        status=_status(node.get("status")),
        notice=node.get("notice").opt_text(),
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


def parse_facts(root: Node) -> ContainerFacts:
    """Build the facts from a parsed file (exposed for tests on hand-made data)."""
    root.only(
        "official", "cuda_bases", "gpu_brands", "ngc_image", "ngc", "ngc_last_release", "host"
    )
    naming = _ngc_image(root.get("ngc_image"))
    ngc_nodes = list(root.get("ngc").items())
    ngc = tuple(_ngc(n, naming) for n in ngc_nodes)
    unique(zip(ngc_nodes, (r.release for r in ngc)), "NGC release")
    base_nodes = list(root.get("cuda_bases").items())
    bases = tuple(_cuda_base(n) for n in base_nodes)
    unique(zip(base_nodes, (f"{b.cuda.major}.{b.cuda.minor}" for b in bases)), "CUDA base for")
    return ContainerFacts(
        official=_official(root.get("official")),
        cuda_bases=bases,
        gpu_brands=_gpu_brands(root.get("gpu_brands")),
        ngc=tuple(sorted(ngc, key=lambda r: r.release, reverse=True)),
        ngc_last=_ngc_last(root.get("ngc_last_release")),
        host=_host(root.get("host")),
    )


def load(root: Path | None = None) -> ContainerFacts:
    """Load ``containers.yaml`` from ``root`` (default: the shipped data)."""
    return parse_facts(load_node(CONTAINERS_FILE, root))
