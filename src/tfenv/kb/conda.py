"""Conda packaging facts: __cuda, cuda-version, cudatoolkit, cudnn, TensorFlow CUDA builds.

Read from the hand-curated ``tfenv/data/conda.yaml``; every record carries a
:class:`Provenance`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Optional, Union

from packaging.version import Version

from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node

__all__ = [
    "CONDA_FILE",
    "CondaFacts",
    "CondaTfBuild",
    "CudaVersionFacts",
    "CudatoolkitFacts",
    "CudnnFacts",
    "DefaultsTfBuild",
    "VirtualCuda",
    "load_conda",
]

CONDA_FILE = "conda.yaml"
DataRoot = Optional[Path]


@dataclass(frozen=True)
class VirtualCuda:
    name: str
    meaning: str
    override_env: str
    libcuda_search: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class CudaVersionFacts:
    versions: tuple[Version, ...]
    constrains_cuda: str
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class CudatoolkitFacts:
    conda_forge: tuple[Version, ...]
    nvidia_last: Optional[Version]
    notes: tuple[str, ...]
    provenance: Provenance

    @property
    def last(self) -> Version:
        return max(self.conda_forge)


@dataclass(frozen=True)
class CudnnFacts:
    conda_forge: tuple[Version, ...]
    cuda13_only_from: Optional[Version]
    notes: tuple[str, ...]
    provenance: Provenance


@dataclass(frozen=True)
class CondaTfBuild:
    """conda-forge tensorflow CUDA variants for a group of versions (None: not established)."""

    versions: tuple[Version, ...]
    cuda: tuple[Version, ...]
    cudnn_major: Optional[tuple[int, ...]]
    python: Optional[tuple[Version, ...]]
    notes: tuple[str, ...]
    provenance: Provenance

    def build_globs(self) -> tuple[str, ...]:
        """Build-string globs selecting each CUDA variant, e.g. ``cuda120*``."""
        return tuple(f"cuda{c.major}{c.minor}*" for c in self.cuda)


@dataclass(frozen=True)
class DefaultsTfBuild:
    """An Anaconda defaults tensorflow GPU build: the cudatoolkit and cudnn it pins."""

    tensorflow: Version
    cudatoolkit: Version
    cudnn: Version
    provenance: Provenance


@dataclass(frozen=True)
class CondaFacts:
    virtual_cuda: VirtualCuda
    cuda_version: CudaVersionFacts
    cudatoolkit: CudatoolkitFacts
    cudnn: CudnnFacts
    tf_build_string: str
    tf_cpu_build_string: str
    tf_windows_builds: bool
    tf_notes: tuple[str, ...]
    tf_provenance: Provenance
    conda_forge_tensorflow: tuple[CondaTfBuild, ...]
    defaults_notes: tuple[str, ...]
    defaults_provenance: Provenance
    anaconda_defaults_tensorflow: tuple[DefaultsTfBuild, ...]

    def conda_forge_build(self, version: Union[Version, str]) -> Optional[CondaTfBuild]:
        """The conda-forge CUDA variants of tensorflow ``version`` (None: no record)."""
        v = version if isinstance(version, Version) else Version(version)
        return next((b for b in self.conda_forge_tensorflow if v in b.versions), None)

    def defaults_build(self, version: Union[Version, str]) -> Optional[DefaultsTfBuild]:
        v = version if isinstance(version, Version) else Version(version)
        return next((b for b in self.anaconda_defaults_tensorflow if b.tensorflow == v), None)


def _notes(node: Node) -> tuple[str, ...]:
    return () if node.is_null else node.texts()


def _opt_versions(node: Node) -> Optional[tuple[Version, ...]]:
    return None if node.is_null else node.versions()


def _virtual_cuda(node: Node) -> VirtualCuda:
    node.only("name", "meaning", "override_env", "libcuda_search", "source", "retrieved")
    return VirtualCuda(
        name=node.get("name").text(),
        meaning=node.get("meaning").text(),
        override_env=node.get("override_env").text(),
        libcuda_search=node.get("libcuda_search").texts(),
        provenance=node.provenance(),
    )


def _cuda_version(node: Node) -> CudaVersionFacts:
    node.only("versions", "constrains_cuda", "notes", "source", "retrieved")
    return CudaVersionFacts(
        versions=node.get("versions").versions(),
        constrains_cuda=node.get("constrains_cuda").text(),
        notes=_notes(node.opt("notes")),
        provenance=node.provenance(),
    )


def _cudatoolkit(node: Node) -> CudatoolkitFacts:
    node.only("conda_forge", "nvidia_last", "notes", "source", "retrieved")
    versions = node.get("conda_forge").versions()
    if not versions:
        raise node.get("conda_forge").fail("expected at least one version")
    return CudatoolkitFacts(
        conda_forge=versions,
        nvidia_last=node.get("nvidia_last").opt_version(),
        notes=_notes(node.opt("notes")),
        provenance=node.provenance(),
    )


def _cudnn(node: Node) -> CudnnFacts:
    node.only("conda_forge", "cuda13_only_from", "notes", "source", "retrieved")
    return CudnnFacts(
        conda_forge=node.get("conda_forge").versions(),
        cuda13_only_from=node.get("cuda13_only_from").opt_version(),
        notes=_notes(node.opt("notes")),
        provenance=node.provenance(),
    )


def _tf_build(node: Node) -> CondaTfBuild:
    node.only("versions", "cuda", "cudnn_major", "python", "notes", "source", "retrieved")
    majors = node.get("cudnn_major")
    return CondaTfBuild(
        versions=node.get("versions").versions(),
        cuda=node.get("cuda").versions(),
        cudnn_major=None if majors.is_null else tuple(n.integer() for n in majors.items()),
        python=_opt_versions(node.get("python")),
        notes=_notes(node.opt("notes")),
        provenance=node.provenance(),
    )


def _defaults_build(node: Node) -> DefaultsTfBuild:
    node.only("tensorflow", "cudatoolkit", "cudnn", "source", "retrieved")
    return DefaultsTfBuild(
        tensorflow=node.get("tensorflow").version(),
        cudatoolkit=node.get("cudatoolkit").version(),
        cudnn=node.get("cudnn").version(),
        provenance=node.provenance(),
    )


@lru_cache(maxsize=8)
def load_conda(root: DataRoot = None) -> CondaFacts:
    """Read ``conda.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(CONDA_FILE, root).only(
        "virtual_cuda",
        "cuda_version",
        "cudatoolkit",
        "cudnn",
        "conda_forge_tensorflow",
        "anaconda_defaults_tensorflow",
    )
    cf = doc.get("conda_forge_tensorflow").only(
        "build_string",
        "cpu_build_string",
        "windows_builds",
        "notes",
        "source",
        "retrieved",
        "builds",
    )
    builds: list[CondaTfBuild] = []
    seen: set[Version] = set()
    for item in cf.get("builds").items():
        build = _tf_build(item)
        dup = seen.intersection(build.versions)
        if dup:
            raise item.get("versions").fail(f"version {min(dup)} is listed twice")
        seen.update(build.versions)
        builds.append(build)
    cf_builds = tuple(builds)
    ad = doc.get("anaconda_defaults_tensorflow").only("notes", "source", "retrieved", "builds")
    return CondaFacts(
        virtual_cuda=_virtual_cuda(doc.get("virtual_cuda")),
        cuda_version=_cuda_version(doc.get("cuda_version")),
        cudatoolkit=_cudatoolkit(doc.get("cudatoolkit")),
        cudnn=_cudnn(doc.get("cudnn")),
        tf_build_string=cf.get("build_string").text(),
        tf_cpu_build_string=cf.get("cpu_build_string").text(),
        tf_windows_builds=cf.get("windows_builds").boolean(),
        tf_notes=_notes(cf.opt("notes")),
        tf_provenance=cf.provenance(),
        conda_forge_tensorflow=cf_builds,
        defaults_notes=_notes(ad.opt("notes")),
        defaults_provenance=ad.provenance(),
        anaconda_defaults_tensorflow=tuple(_defaults_build(n) for n in ad.get("builds").items()),
    )
