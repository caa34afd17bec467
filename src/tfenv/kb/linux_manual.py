"""Linux and WSL2 manual installs (``data/nvidia/linux_manual.yaml``): the CUDA Toolkit's local
runfile per series, the toolkit-only options and repository package, and how cuDNN is
pinned from NVIDIA's repository."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique
from tfenv.kb._files import load_node
from tfenv.kb.windows_manual import CudaInstaller, parse_installer

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = ["LINUX_MANUAL_FILE", "LinuxManual", "load"]

LINUX_MANUAL_FILE = "nvidia/linux_manual.yaml"


@dataclass(frozen=True)
class LinuxManual:
    runfiles: tuple[CudaInstaller, ...]
    runfile_options: tuple[str, ...]
    package: str  # with {major} and {minor}
    toolkit_note: str
    toolkit_provenance: Provenance
    cudnn_example: str
    cudnn_note: str
    cudnn_provenance: Provenance

    def runfile(self, cuda: Optional[Version]) -> Optional[CudaInstaller]:
        if cuda is None:
            return None
        same = (cuda.major, cuda.minor)
        return next((r for r in self.runfiles if (r.series.major, r.series.minor) == same), None)

    def toolkit_package(self, cuda: Version) -> str:
        return self.package.format(major=cuda.major, minor=cuda.minor)


def parse(root: Node) -> LinuxManual:
    root.only("runfiles", "toolkit", "cudnn")
    runfiles = tuple(parse_installer(n) for n in root.get("runfiles").items())
    unique(zip(root.get("runfiles").items(), (r.series for r in runfiles)), "CUDA series")
    toolkit = root.get("toolkit").only("runfile_options", "package", "note", "source", "retrieved")
    cudnn = root.get("cudnn").only("package_example", "note", "source", "retrieved")
    package = toolkit.get("package").label()
    if "{major}" not in package or "{minor}" not in package:
        raise toolkit.get("package").fail(_("needs {major} and {minor}"))
    return LinuxManual(
        runfiles=runfiles,
        runfile_options=toolkit.get("runfile_options").texts(),
        package=package,
        toolkit_note=toolkit.get("note").text(),
        toolkit_provenance=toolkit.provenance(),
        cudnn_example=cudnn.get("package_example").label(),
        cudnn_note=cudnn.get("note").text(),
        cudnn_provenance=cudnn.provenance(),
    )


def load(root: Optional[Path] = None) -> LinuxManual:
    """Load ``nvidia/linux_manual.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(LINUX_MANUAL_FILE, root))
