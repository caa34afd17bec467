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

from typing import TYPE_CHECKING, Literal, Optional, cast

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique
from tfenv.kb._files import load_node
from tfenv.kb._schema import Translations, fact, given, read_record, records, sourced, translated
from tfenv.kb.prose import prose_texts
from tfenv.models.driver import DriverVersion
from tfenv.models.require_cuda import RequireCuda, RequireCudaError, parse

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path

    from tfenv.models.platform import System
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


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
        raise node.fail(_("not an NVIDIA_REQUIRE_CUDA value: {exc}").format(exc=exc)) from None


def _labels_list(node: Node) -> tuple[str, ...]:
    return tuple(n.label() for n in node.items())


def _segments(node: Node) -> tuple[tuple[str, Optional[tuple[str, ...]]], ...]:
    return tuple(
        (name, None if value.is_null else tuple(t.lower() for t in value.texts()))
        for name, value in node.entries()
    )


def _ngc_release(node: Node) -> str:
    release = node.text()
    parts = release.split(".")
    if len(parts) != 2 or not all(p.isdigit() and len(p) == 2 for p in parts):
        raise node.fail(_("{release!r} is not a YY.MM release").format(release=release))
    return release


@dataclass(frozen=True)
class OfficialRelease:
    """What the official GPU images of the releases in ``versions`` carry."""

    versions: SpecifierSet = fact(Node.specifier)
    tag_suffixes: Optional[tuple[str, ...]] = fact(_labels)
    base_image: Optional[str] = fact(Node.opt_text)
    ubuntu: Optional[str] = fact(Node.opt_text)
    cuda: Optional[Version] = fact(Node.opt_version)
    cudnn: Optional[Version] = fact(Node.opt_version)
    python: Optional[Version] = fact(Node.opt_version)
    status: Status = fact(_status)
    require_cuda: Optional[RequireCuda] = fact(_require)
    require_cuda_status: Status = fact(_status)
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)
    translations: Translations = translated("note")

    def covers(self, version: Version) -> bool:
        return self.versions.contains(version, prereleases=True)


@dataclass(frozen=True)
class OfficialImages:
    repository: str = fact(Node.label)
    gpu_suffixes: tuple[str, ...] = fact(_labels_list)
    architectures: Optional[tuple[str, ...]] = fact(Node.opt_texts)
    releases: tuple[OfficialRelease, ...] = fact(records(OfficialRelease))
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)

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

    cuda: Version = fact(Node.version)
    image: str = fact(Node.label)
    ubuntu: str = fact()
    require_cuda: Optional[RequireCuda] = fact(_require)
    status: Status = fact(_status)
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)


@dataclass(frozen=True)
class GpuBrands:
    """Segment of ``nvidia/gpus.yaml`` -> the brand names nvidia-container-cli may report."""

    segments: tuple[tuple[str, Optional[tuple[str, ...]]], ...] = fact(_segments)
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)

    def for_segment(self, segment: str) -> Optional[frozenset[str]]:
        found = dict(self.segments).get(segment)
        return frozenset(found) if found else None


@dataclass(frozen=True)
class NgcImage:
    """How NGC names its TensorFlow images: ``<repository>:<release><tag_suffix>``."""

    repository: str = fact(Node.label)
    tag_suffix: str = fact(Node.label)
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class NgcRelease:
    release: str = fact(_ngc_release)  # "23.01"
    tensorflow: Optional[Version] = fact(Node.opt_version)
    cuda: Optional[Version] = fact(Node.opt_version)
    cudnn: Optional[Version] = fact(Node.opt_version)
    python: Optional[Version] = fact(Node.opt_version)
    ubuntu: Optional[str] = fact(Node.opt_text)
    min_driver: Optional[DriverVersion] = fact(
        Node.opt_driver
    )  # a branch ("525") or a full version ("465.19.01")
    forward_compat: Optional[tuple[Version, ...]] = fact(Node.opt_versions)
    cc_min: Optional[Version] = fact(Node.opt_version)
    cc_max: Optional[Version] = fact(Node.opt_version)
    architectures: Optional[tuple[str, ...]] = fact(Node.opt_texts)
    status: Status = fact(_status)
    provenance: Provenance = sourced()
    naming: NgcImage = given()  # how the release's image is named (``ngc_image`` of the file)
    note: Optional[str] = fact(Node.opt_text, default=None)

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

    release: Optional[str] = fact(Node.opt_text)
    status: Status = fact(_status)
    notice: Optional[str] = fact(Node.opt_text)
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)


@dataclass(frozen=True)
class HostNeeds:
    linux: tuple[str, ...] = fact(Node.texts)
    wsl2: tuple[str, ...] = fact(Node.texts)
    provenance: Provenance = sourced()
    # the prose in other languages (zh:), read with tfenv.kb.prose
    translations: Translations = translated("linux", "wsl2")

    def for_system(self, system: Optional[System]) -> tuple[str, ...]:
        """What a host of ``system`` needs, in the output's language: Windows' list for WSL2
        and native Windows (whose GPU containers run in WSL2), Linux's for any other
        (None: not known)."""
        windows = system is not None and (system.is_wsl2 or system.is_windows)
        return prose_texts(self, "wsl2" if windows else "linux")


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


def parse_facts(root: Node) -> ContainerFacts:
    """Build the facts from a parsed file (exposed for tests on hand-made data)."""
    root.only(
        "official", "cuda_bases", "gpu_brands", "ngc_image", "ngc", "ngc_last_release", "host"
    )
    naming = read_record(NgcImage, root.get("ngc_image"))
    ngc_nodes = list(root.get("ngc").items())
    ngc = tuple(read_record(NgcRelease, n, naming=naming) for n in ngc_nodes)
    unique(zip(ngc_nodes, (r.release for r in ngc)), "NGC release")
    base_nodes = list(root.get("cuda_bases").items())
    bases = tuple(read_record(CudaBase, n) for n in base_nodes)
    unique(zip(base_nodes, (f"{b.cuda.major}.{b.cuda.minor}" for b in bases)), "CUDA base for")
    return ContainerFacts(
        official=read_record(OfficialImages, root.get("official")),
        cuda_bases=bases,
        gpu_brands=read_record(GpuBrands, root.get("gpu_brands")),
        ngc=tuple(sorted(ngc, key=lambda r: r.release, reverse=True)),
        ngc_last=read_record(NgcLast, root.get("ngc_last_release")),
        host=read_record(HostNeeds, root.get("host")),
    )


def load(root: Path | None = None) -> ContainerFacts:
    """Load ``containers.yaml`` from ``root`` (default: the shipped data)."""
    return parse_facts(load_node(CONTAINERS_FILE, root))
