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
    "CondaTfVariant",
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
class CondaTfVariant:
    """One CUDA variant of a conda-forge TensorFlow version (None: not established)."""

    cuda: Version
    cudnn: Optional[Version]  # the recipe's pin: a major (9) or a minor (9.10)
    python: Optional[tuple[Version, ...]]  # of the linux-64 CUDA builds
    builds: tuple[int, ...]
    broken: Optional[str]  # why the maintainers call these builds broken

    @property
    def build_glob(self) -> str:
        """The build-string glob selecting this CUDA variant, e.g. ``cuda120*``."""
        return f"cuda{self.cuda.major}{self.cuda.minor}*"


@dataclass(frozen=True)
class CondaTfBuild:
    """conda-forge's TensorFlow builds of one version: its CUDA variants and CPU subdirs."""

    version: Version
    variants: tuple[CondaTfVariant, ...]
    cpu_subdirs: tuple[str, ...]
    upload: str  # "recipe" (a release state on the feedstock's main) or "unknown"
    notes: tuple[str, ...]
    provenance: Provenance

    @property
    def versions(self) -> tuple[Version, ...]:
        return (self.version,)

    @property
    def usable(self) -> tuple[CondaTfVariant, ...]:
        return tuple(v for v in self.variants if v.broken is None)

    @property
    def cuda(self) -> tuple[Version, ...]:
        """The CUDA versions of the variants not called broken, ascending."""
        return tuple(sorted({v.cuda for v in self.usable}))

    def variant(self, cuda: Version) -> Optional[CondaTfVariant]:
        """The usable variant of ``cuda`` with the newest builds (what conda installs)."""
        found = [v for v in self.usable if v.cuda == cuda]
        return max(found, key=lambda v: max(v.builds)) if found else None

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
    tf_newest: Version  # the newest version conda-forge has
    tf_notes: tuple[str, ...]
    tf_provenance: Provenance
    conda_forge_tensorflow: tuple[CondaTfBuild, ...]
    defaults_notes: tuple[str, ...]
    defaults_provenance: Provenance
    anaconda_defaults_tensorflow: tuple[DefaultsTfBuild, ...]

    def conda_forge_build(self, version: Union[Version, str]) -> Optional[CondaTfBuild]:
        """The conda-forge CUDA variants of tensorflow ``version`` (None: no record)."""
        v = version if isinstance(version, Version) else Version(version)
        return next((b for b in self.conda_forge_tensorflow if b.version == v), None)

    def defaults_build(self, version: Union[Version, str]) -> Optional[DefaultsTfBuild]:
        v = version if isinstance(version, Version) else Version(version)
        return next((b for b in self.anaconda_defaults_tensorflow if b.tensorflow == v), None)


def _notes(node: Node) -> tuple[str, ...]:
    """The record's optional ``notes`` (one or a list; absent or null: none)."""
    return node.opt("notes").opt_texts() or ()


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
        notes=_notes(node),
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
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _cudnn(node: Node) -> CudnnFacts:
    node.only("conda_forge", "cuda13_only_from", "notes", "source", "retrieved")
    return CudnnFacts(
        conda_forge=node.get("conda_forge").versions(),
        cuda13_only_from=node.get("cuda13_only_from").opt_version(),
        notes=_notes(node),
        provenance=node.provenance(),
    )


def _variant(node: Node) -> CondaTfVariant:
    node.only("cuda", "cudnn", "python", "builds", "broken")
    return CondaTfVariant(
        cuda=node.get("cuda").version(),
        cudnn=node.get("cudnn").opt_version(),
        python=node.get("python").opt_versions(),
        builds=tuple(n.integer(0) for n in node.get("builds").items()),
        broken=node.opt("broken").opt_text(),
    )


def _tf_build(node: Node) -> CondaTfBuild:
    node.only("version", "upload", "variants", "cpu_subdirs", "notes", "source", "retrieved")
    variants = tuple(_variant(n) for n in node.get("variants").items())
    if not variants:
        raise node.get("variants").fail("expected at least one CUDA variant")
    return CondaTfBuild(
        version=node.get("version").version(),
        variants=variants,
        cpu_subdirs=node.get("cpu_subdirs").texts(),
        upload=node.get("upload").choice("recipe", "unknown"),
        notes=_notes(node),
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
        "newest",
        "notes",
        "source",
        "retrieved",
        "releases",
    )
    builds: list[CondaTfBuild] = []
    seen: set[Version] = set()
    for item in cf.get("releases").items():
        build = _tf_build(item)
        if build.version in seen:
            raise item.get("version").fail(f"version {build.version} is listed twice")
        seen.add(build.version)
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
        tf_newest=cf.get("newest").version(),
        tf_notes=_notes(cf),
        tf_provenance=cf.provenance(),
        conda_forge_tensorflow=cf_builds,
        defaults_notes=_notes(ad),
        defaults_provenance=ad.provenance(),
        anaconda_defaults_tensorflow=tuple(_defaults_build(n) for n in ad.get("builds").items()),
    )
