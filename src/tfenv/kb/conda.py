"""Conda packaging facts: __cuda, cuda-version, cudatoolkit, cudnn, TensorFlow CUDA builds.

Read from the hand-curated ``tfenv/data/conda.yaml``; every record carries a
:class:`Provenance`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Optional, Union

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import (
    Translations,
    choice,
    fact,
    nonempty,
    read_record,
    records,
    sourced,
    text_list,
    translated,
)

if TYPE_CHECKING:
    from pathlib import Path

    DataRoot = Optional[Path]
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "CONDA_FILE",
    "CondaFacts",
    "CondaInstaller",
    "CondaTfBuild",
    "CondaTfVariant",
    "CudaVersionFacts",
    "CudatoolkitFacts",
    "CudnnFacts",
    "DefaultsTfBuild",
    "ExecutionPolicy",
    "VirtualCuda",
    "load_conda",
]

CONDA_FILE = "conda.yaml"


@dataclass(frozen=True)
class VirtualCuda:
    name: str = fact()
    meaning: str = fact()
    override_env: str = fact()
    libcuda_search: tuple[str, ...] = fact(Node.texts)
    provenance: Provenance = sourced()
    translations: Translations = translated("meaning")


@dataclass(frozen=True)
class CudaVersionFacts:
    versions: tuple[Version, ...] = fact(Node.versions)
    constrains_cuda: str = fact()
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class CudatoolkitFacts:
    conda_forge: tuple[Version, ...] = fact(
        nonempty(Node.versions, "expected at least one version")
    )
    nvidia_last: Optional[Version] = fact(Node.opt_version)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()

    @property
    def last(self) -> Version:
        return max(self.conda_forge)


@dataclass(frozen=True)
class CudnnFacts:
    conda_forge: tuple[Version, ...] = fact(Node.versions)
    cuda13_only_from: Optional[Version] = fact(Node.opt_version)
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class CondaTfVariant:
    """One CUDA variant of a conda-forge TensorFlow version (None: not established)."""

    cuda: Version = fact(Node.version)
    # the recipe's pin: a major (9) or a minor (9.10)
    cudnn: Optional[Version] = fact(Node.opt_version)
    python: Optional[tuple[Version, ...]] = fact(Node.opt_versions)  # of the linux-64 CUDA builds
    builds: tuple[int, ...] = fact(lambda n: tuple(i.integer(0) for i in n.items()))
    # why the maintainers call these builds broken
    broken: Optional[str] = fact(Node.opt_text, missing=None)
    # the prose in other languages (zh:), read with tfenv.kb.prose
    translations: Translations = translated("broken")

    @property
    def build_glob(self) -> str:
        """The build-string glob selecting this CUDA variant, e.g. ``cuda120*``."""
        return f"cuda{self.cuda.major}{self.cuda.minor}*"


@dataclass(frozen=True)
class CondaCpuBuild:
    """CPU-only builds of a conda-forge TensorFlow version for one subdir (recorded where
    they are the only conda or pip TensorFlow for the platform: osx-64 after the last
    Intel-Mac wheel): the build numbers, Pythons and the lowest OS the recipe targets."""

    subdir: str = fact(Node.label)
    builds: tuple[int, ...] = fact(lambda n: tuple(i.integer(0) for i in n.items()))
    python: tuple[Version, ...] = fact(nonempty(Node.versions, "expected at least one Python"))
    macos: Optional[Version] = fact(Node.opt_version, missing=None)  # MACOSX_DEPLOYMENT_TARGET
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class CondaTfBuild:
    """conda-forge's TensorFlow builds of one version: its CUDA variants and CPU subdirs."""

    version: Version = fact(Node.version)
    variants: tuple[CondaTfVariant, ...] = fact(
        nonempty(records(CondaTfVariant), "expected at least one CUDA variant")
    )
    cpu_subdirs: tuple[str, ...] = fact(Node.texts)
    # "recipe" (a release state on the feedstock's main) or "unknown"
    upload: str = fact(choice("recipe", "unknown"))
    notes: tuple[str, ...] = fact(text_list, missing=())
    provenance: Provenance = sourced()
    cpu_builds: tuple[CondaCpuBuild, ...] = fact(records(CondaCpuBuild), missing=())

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

    tensorflow: Version = fact(Node.version)
    cudatoolkit: Version = fact(Node.version)
    cudnn: Version = fact(Node.version)
    provenance: Provenance = sourced()


def _files(node: Node) -> tuple[tuple[str, str], ...]:
    """conda subdir -> the installer's file name (a name written into commands)."""
    out = []
    for subdir, name in node.entries():
        text = name.label(120)
        if "/" in text or "\\" in text or " " in text:
            raise name.fail(_("expected a file name, found {value!r}").format(value=text))
        out.append((subdir, text))
    return tuple(out)


def _download(node: Node) -> str:
    text = node.label(400)
    if "{file}" not in text:
        raise node.fail(_("expected a URL with {placeholder} in it").format(placeholder="{file}"))
    return text


@dataclass(frozen=True)
class CondaInstaller:
    """Where conda comes from when none is installed (Miniforge, conda-forge's installer),
    and the prompt to run conda in on Windows."""

    name: str = fact(Node.label)
    page: str = fact(lambda n: n.label(400))
    download: str = fact(_download)  # the URL, {file} for the file's name
    files: tuple[tuple[str, str], ...] = fact(_files)  # conda subdir -> file name
    windows_min: str = fact(Node.label)  # the oldest Windows its installer runs on
    windows_prompt: str = fact(Node.label)  # its Start-menu prompt
    anaconda_prompt: str = fact(Node.label)  # Anaconda's and Miniconda's
    powershell_init: tuple[str, ...] = fact(nonempty(Node.texts, "expected a command"))
    provenance: Provenance = sourced()

    def file(self, subdir: str) -> Optional[str]:
        """The installer for a conda subdir (``win-64``), None where none is recorded."""
        return dict(self.files).get(subdir)

    def url(self, file: str) -> str:
        return self.download.replace("{file}", file)


@dataclass(frozen=True)
class ExecutionPolicy:
    """PowerShell's execution policy on Windows, which decides whether a ``.ps1`` script
    runs (venv's ``Activate.ps1``, ``activate-tfenv.ps1``, the profile ``conda init
    powershell`` writes): the effective policy of a Windows client where none is set
    (Restricted: none runs), and the commands that allow local scripts for the current
    user (kept) or for one PowerShell session."""

    client_default: str = fact(Node.label)
    current_user: tuple[str, ...] = fact(nonempty(Node.texts, "expected a command"))
    process: tuple[str, ...] = fact(nonempty(Node.texts, "expected a command"))
    page: str = fact(lambda n: n.label(400))
    provenance: Provenance = sourced()


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
    installer: CondaInstaller
    execution_policy: ExecutionPolicy

    def conda_forge_build(self, version: Union[Version, str]) -> Optional[CondaTfBuild]:
        """The conda-forge CUDA variants of tensorflow ``version`` (None: no record)."""
        v = version if isinstance(version, Version) else Version(version)
        return next((b for b in self.conda_forge_tensorflow if b.version == v), None)

    def cpu_builds(self, subdir: str) -> tuple[tuple[CondaTfBuild, CondaCpuBuild], ...]:
        """The recorded CPU-only builds for ``subdir``, oldest version first."""
        return tuple(
            (b, cpu)
            for b in sorted(self.conda_forge_tensorflow, key=lambda b: b.version)
            for cpu in b.cpu_builds
            if cpu.subdir == subdir
        )

    def defaults_build(self, version: Union[Version, str]) -> Optional[DefaultsTfBuild]:
        v = version if isinstance(version, Version) else Version(version)
        return next((b for b in self.anaconda_defaults_tensorflow if b.tensorflow == v), None)


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
        "installer",
        "execution_policy",
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
        build = read_record(CondaTfBuild, item)
        if build.version in seen:
            raise item.get("version").fail(
                _("version {version} is listed twice").format(version=build.version)
            )
        seen.add(build.version)
        builds.append(build)
    cf_builds = tuple(builds)
    ad = doc.get("anaconda_defaults_tensorflow").only("notes", "source", "retrieved", "builds")
    return CondaFacts(
        virtual_cuda=read_record(VirtualCuda, doc.get("virtual_cuda")),
        cuda_version=read_record(CudaVersionFacts, doc.get("cuda_version")),
        cudatoolkit=read_record(CudatoolkitFacts, doc.get("cudatoolkit")),
        cudnn=read_record(CudnnFacts, doc.get("cudnn")),
        tf_build_string=cf.get("build_string").text(),
        tf_cpu_build_string=cf.get("cpu_build_string").text(),
        tf_windows_builds=cf.get("windows_builds").boolean(),
        tf_newest=cf.get("newest").version(),
        tf_notes=text_list(cf.opt("notes")),
        tf_provenance=cf.provenance(),
        conda_forge_tensorflow=cf_builds,
        defaults_notes=text_list(ad.opt("notes")),
        defaults_provenance=ad.provenance(),
        anaconda_defaults_tensorflow=records(DefaultsTfBuild)(ad.get("builds")),
        installer=read_record(CondaInstaller, doc.get("installer")),
        execution_policy=read_record(ExecutionPolicy, doc.get("execution_policy")),
    )
