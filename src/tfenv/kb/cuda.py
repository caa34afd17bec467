"""CUDA toolkits, minor-version-compatibility families, driver branches (``nvidia/cuda.yaml``).

The question this module answers for the resolver: which NVIDIA driver runs a build
made with CUDA X.Y (:meth:`CudaFacts.driver_floor`), and which CUDA version does an
installed driver support (:meth:`CudaFacts.max_cuda_for_driver`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique
from tfenv.kb._files import load_node
from tfenv.kb._schema import fact, given, read_record, sourced
from tfenv.models.driver import DriverVersion
from tfenv.models.platform import os_title, per_driver_os

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "CUDA_FILE",
    "ArchitectureSupport",
    "CudaFacts",
    "CudaFamily",
    "CudaToolkit",
    "DriverBranch",
    "OsName",
    "load",
]

CUDA_FILE = "nvidia/cuda.yaml"

OsName = Literal["linux", "windows"]


def _toolkit_version(node: Node) -> Version:
    version = node.version()
    if len(version.release) != 2:
        raise node.fail(_("{version} is not a major.minor CUDA version").format(version=version))
    return version


@dataclass(frozen=True)
class CudaToolkit:
    """One CUDA minor release (``version`` is major.minor)."""

    version: Version = fact(_toolkit_version)
    min_driver_linux: Optional[DriverVersion] = given()  # from min_driver: linux, windows
    min_driver_windows: Optional[DriverVersion] = given()
    cc_min: Optional[Version] = given()  # from compute_capabilities: min, max
    cc_max: Optional[Version] = given()
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)

    def min_driver(self, os: OsName) -> Optional[DriverVersion]:
        return per_driver_os(os, self.min_driver_linux, self.min_driver_windows)

    def can_target(self, cc: Version) -> Optional[bool]:
        """Whether ``cc`` lies in the toolkit's SASS range (None when the range is unknown)."""
        if self.cc_min is None or self.cc_max is None:
            return None
        return self.cc_min <= cc <= self.cc_max


@dataclass(frozen=True)
class CudaFamily:
    """Minor-version compatibility of one CUDA major (null floors: none or unpublished)."""

    major: int = fact(Node.integer)
    min_driver_linux: Optional[DriverVersion] = given()  # from min_driver: linux, windows
    min_driver_windows: Optional[DriverVersion] = given()
    caveats: str = fact()
    provenance: Provenance = sourced()

    def min_driver(self, os: OsName) -> Optional[DriverVersion]:
        return per_driver_os(os, self.min_driver_linux, self.min_driver_windows)


@dataclass(frozen=True)
class DriverBranch:
    """A driver branch (the driver's major number) and the CUDA version it reports."""

    branch: int = fact(Node.integer)
    max_cuda: Optional[Version] = fact(Node.opt_version)
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)


@dataclass(frozen=True)
class ArchitectureSupport:
    """The last driver branch that supports the GPUs of one architecture."""

    architecture: str = fact()  # "Kepler"
    cc_min: Version = given()  # from compute_capabilities: min, max
    cc_max: Version = given()
    last_branch: int = fact(lambda n: n.integer(minimum=1))
    provenance: Provenance = sourced()
    note: Optional[str] = fact(Node.opt_text, default=None)

    def covers(self, cc: Version) -> bool:
        return self.cc_min <= cc <= self.cc_max


class CudaFacts:
    """Toolkits, families and driver branches, with the lookups the resolver needs."""

    def __init__(
        self,
        toolkits: tuple[CudaToolkit, ...],
        families: tuple[CudaFamily, ...],
        driver_branches: tuple[DriverBranch, ...],
        ptx_isa: tuple[tuple[Version, Version], ...] = (),
        ptx_isa_provenance: Optional[Provenance] = None,
        architectures: tuple[ArchitectureSupport, ...] = (),
        arch_specific_isa: Optional[Version] = None,
    ) -> None:
        self.toolkits = toolkits
        self.families = families
        self.driver_branches = driver_branches
        self.architectures = architectures
        self.ptx_isa = dict(ptx_isa)
        self.ptx_isa_provenance = ptx_isa_provenance
        # the PTX ISA that introduced architecture-specific targets (sm_90a)
        self.arch_specific_isa = arch_specific_isa
        self._toolkits = {_major_minor(t.version): t for t in toolkits}
        self._families = {f.major: f for f in families}

    def toolkit(self, version: Version | str) -> CudaToolkit | None:
        """The toolkit of ``version``'s major.minor ("12.2.140" -> 12.2), or None."""
        return self._toolkits.get(_major_minor(_as_version(version)))

    def family(self, major: int) -> CudaFamily | None:
        return self._families.get(major)

    def driver_floor(
        self, cuda_version: Version | str, os: OsName
    ) -> tuple[DriverVersion | None, str]:
        """The lowest driver that runs a build made with ``cuda_version``, and why.

        The family's minor-version-compatibility floor where there is one, else the
        toolkit's own minimum (release notes Table 3). When the toolkit's own minimum is
        lower than the family floor (the x.0 releases shipped before the floor was set),
        the toolkit's own minimum is the answer. (None, reason) when neither is known.
        """
        version = _as_version(cuda_version)
        mm = _major_minor(version)
        tk = self.toolkit(version)
        fam = self.family(version.release[0])
        own = tk.min_driver(os) if tk is not None else None
        floor = fam.min_driver(os) if fam is not None else None
        if floor is not None and (own is None or floor <= own):
            major = version.release[0]
            return floor, _("the CUDA {major}.x minor-version compatibility floor on {os}").format(
                major=major, os=os_title(os)
            )
        if own is not None:
            why = (
                _("CUDA {cuda} needs at least its own toolkit driver {own} on {os}")
                if floor is None
                else _(
                    "CUDA {cuda} shipped with driver {own} on {os}, below the family floor {floor}"
                )
            )
            return own, why.format(cuda=mm, own=own, os=os_title(os), floor=floor)
        if tk is None and fam is None:
            return None, _("CUDA {cuda} is not a known CUDA release").format(cuda=mm)
        return None, _("the minimum {os} driver for CUDA {cuda} is not established").format(
            os=os_title(os), cuda=mm
        )

    def jit_floor(self, isa: Version, os: OsName) -> tuple[DriverVersion | None, str]:
        """The lowest driver that JIT-compiles PTX of ISA ``isa``, and why.

        PTX JIT is not covered by minor-version compatibility: the driver must be at least
        the minimum of the CUDA release that introduced the ISA.
        """
        cuda = self.ptx_isa.get(isa)
        if cuda is None:
            return None, _("which CUDA release introduced PTX ISA {isa} is not recorded").format(
                isa=isa
            )
        tk = self.toolkit(cuda)
        own = tk.min_driver(os) if tk is not None else None
        if own is None:
            return None, _("the minimum {os} driver for CUDA {cuda} is not established").format(
                os=os_title(os), cuda=cuda
            )
        return own, _("PTX ISA {isa} came with CUDA {cuda}").format(isa=isa, cuda=cuda)

    def last_branch(self, cc: Version | None) -> ArchitectureSupport | None:
        """The last driver branch of the GPU architecture of compute capability ``cc``
        (None: the architecture is still supported, or ``cc`` is not known)."""
        if cc is None:
            return None
        return next((a for a in self.architectures if a.covers(cc)), None)

    def first_for(self, cc: Version, arch_specific: bool = False) -> Version | None:
        """The first CUDA release whose ptxas compiles for compute capability ``cc`` (an
        architecture-specific target such as sm_90a: not before the ISA that introduced them)."""
        found = [t.version for t in self.toolkits if t.can_target(cc)]
        if not found:
            return None
        first = min(found)
        if arch_specific and self.arch_specific_isa is not None:
            since = self.ptx_isa.get(self.arch_specific_isa)
            if since is not None and since > first:
                first = since
        return first

    def max_cuda_for_driver(self, driver: Version | str) -> Version | None:
        """The CUDA version a driver reports, looked up by branch (the driver's major).

        A driver of an unlisted branch gets the value of the nearest lower listed
        branch: a lower bound, since CUDA support only grows with the branch (Windows
        drivers of branch R535 are numbered 536.x, for example). None below the
        lowest listed branch.
        """
        major = _as_version(driver).release[0]
        best: DriverBranch | None = None
        for branch in self.driver_branches:
            if branch.branch <= major and (best is None or branch.branch > best.branch):
                best = branch
        return None if best is None else best.max_cuda


def _as_version(version: Version | str) -> Version:
    return version if isinstance(version, Version) else Version(version)


def _major_minor(version: Version) -> Version:
    release = (*version.release, 0)
    return Version(f"{release[0]}.{release[1]}")


def _os_pair(node: Node) -> tuple[Optional[DriverVersion], Optional[DriverVersion]]:
    node.only("linux", "windows")
    return node.get("linux").opt_driver(), node.get("windows").opt_driver()


def _toolkit(node: Node) -> CudaToolkit:
    linux, windows = _os_pair(node.get("min_driver"))
    ccs = node.get("compute_capabilities").only("min", "max")
    cc_min, cc_max = ccs.get("min").opt_version(), ccs.get("max").opt_version()
    if cc_min is not None and cc_max is not None and cc_min > cc_max:
        raise ccs.fail(_("min {cc_min} is above max {cc_max}").format(cc_min=cc_min, cc_max=cc_max))
    return read_record(
        CudaToolkit,
        node,
        keys=("min_driver", "compute_capabilities"),
        min_driver_linux=linux,
        min_driver_windows=windows,
        cc_min=cc_min,
        cc_max=cc_max,
    )


def _family(node: Node) -> CudaFamily:
    linux, windows = _os_pair(node.get("min_driver"))
    return read_record(
        CudaFamily,
        node,
        keys=("min_driver",),
        min_driver_linux=linux,
        min_driver_windows=windows,
    )


def _architecture(node: Node) -> ArchitectureSupport:
    ccs = node.get("compute_capabilities").only("min", "max")
    cc_min, cc_max = ccs.get("min").version(), ccs.get("max").version()
    if cc_min > cc_max:
        raise ccs.fail(_("min {cc_min} is above max {cc_max}").format(cc_min=cc_min, cc_max=cc_max))
    return read_record(
        ArchitectureSupport, node, keys=("compute_capabilities",), cc_min=cc_min, cc_max=cc_max
    )


def _ptx_isa(node: Node) -> tuple[tuple[tuple[Version, Version], ...], Provenance]:
    node.only("versions", "arch_specific_from", "source", "retrieved")
    pairs = []
    for item in node.get("versions").items():
        item.only("isa", "cuda")
        pairs.append((item.get("isa").version(strict=True), item.get("cuda").version(strict=True)))
    isas = [isa for isa, _ in pairs]
    if len(set(isas)) != len(isas):
        raise node.get("versions").fail(_("a PTX ISA version is listed twice"))
    return tuple(pairs), node.provenance()


def parse(root: Node) -> CudaFacts:
    """Build the facts from a parsed file (exposed for tests on hand-made data)."""
    root.only("toolkits", "families", "ptx_isa", "driver_branches", "architectures")
    tk_nodes = list(root.get("toolkits").items())
    fam_nodes = list(root.get("families").items())
    br_nodes = list(root.get("driver_branches").items())
    toolkits = tuple(_toolkit(n) for n in tk_nodes)
    families = tuple(_family(n) for n in fam_nodes)
    branches = tuple(read_record(DriverBranch, n) for n in br_nodes)
    unique(((n.get("version"), t.version) for n, t in zip(tk_nodes, toolkits)), "toolkit")
    unique(((n.get("major"), f.major) for n, f in zip(fam_nodes, families)), "family")
    unique(((n.get("branch"), b.branch) for n, b in zip(br_nodes, branches)), "branch")
    previous: DriverBranch | None = None
    for node, branch in zip(br_nodes, branches):
        if previous is not None:
            if branch.branch <= previous.branch:
                raise node.get("branch").fail(
                    _("driver branches must be listed in ascending order")
                )
            if (
                branch.max_cuda is not None
                and previous.max_cuda is not None
                and branch.max_cuda < previous.max_cuda
            ):
                raise node.get("max_cuda").fail(
                    _("{max_cuda} is below the previous branch's {max_cuda2}").format(
                        max_cuda=branch.max_cuda, max_cuda2=previous.max_cuda
                    )
                )
        previous = branch
    isa_node = root.opt("ptx_isa")
    isa, isa_provenance = _ptx_isa(isa_node) if not isa_node.is_null else ((), None)
    archs = tuple(_architecture(n) for n in root.opt("architectures").opt_items())
    for i, a in enumerate(archs):
        for b in archs[:i]:
            if a.cc_min <= b.cc_max and b.cc_min <= a.cc_max:
                raise root.get("architectures").fail(
                    _("{architecture} and {architecture2} overlap in compute capability").format(
                        architecture=a.architecture, architecture2=b.architecture
                    )
                )
    arch = None if isa_node.is_null else isa_node.opt("arch_specific_from").opt_version()
    if arch is not None and arch not in dict(isa):
        raise isa_node.get("arch_specific_from").fail(
            _("PTX ISA {arch} is not listed").format(arch=arch)
        )
    return CudaFacts(
        toolkits,
        families,
        branches,
        isa,
        isa_provenance,
        architectures=archs,
        arch_specific_isa=arch,
    )


def load(root: Path | None = None) -> CudaFacts:
    """Load ``nvidia/cuda.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(CUDA_FILE, root))
