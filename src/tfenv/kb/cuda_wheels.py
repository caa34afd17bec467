"""Which versions of the and-cuda extra's CUDA wheels a pip plan installs.

Two preferences (``--cuda-libs``, ``cuda-libs`` in ``[tool.tfenv]``):

- ``build`` (the default): the versions TensorFlow was built and tested with. Up to 2.19
  the extra pins them exactly; from 2.20 it gives ranges whose floors are the build
  versions, so pip would take whatever is newest: tfenv pins the floors.
- ``newest``: the newest version the extra allows, capped by what the GPU and the driver
  run: cuDNN series that support the GPU's compute capability (``nvidia/cudnn.yaml``), and
  CUDA-versioned component wheels no newer than the CUDA version the driver supports
  (``tensorflow/and_cuda.yaml``).

Optional packages (TensorRT) that have no wheel for the target's platform and Python are
left out: TensorFlow loads them only when present.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import (
    Translations,
    fact,
    opt_record,
    read_record,
    record,
    sourced,
    translated,
)
from tfenv.models.choices import CUDA_LIBS

if TYPE_CHECKING:
    from pathlib import Path

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.index import WheelSet

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "AND_CUDA_FILE",
    "POLICIES",
    "XLA_PLACES",
    "AndCudaFacts",
    "CudaWheels",
    "CudnnWheels",
    "Policy",
    "WheelPin",
    "XlaSearch",
    "cuda_wheels",
    "load",
]

AND_CUDA_FILE = "tensorflow/and_cuda.yaml"
Policy = Literal["build", "newest"]
POLICIES: tuple[Policy, ...] = CUDA_LIBS  # what --cuda-libs accepts


#: where XLA may look for ptxas and libdevice (``xla_search`` in and_cuda.yaml)
XLA_PLACES = ("xla_flags", "path", "build_toolkit", "cuda_home", "pip_nvcc")


def _names(node: Node) -> frozenset[str]:
    from packaging.utils import canonicalize_name

    return frozenset(str(canonicalize_name(n)) for n in node.texts())


def _majors(node: Node) -> Mapping[str, int]:
    from packaging.utils import canonicalize_name

    majors = {
        str(canonicalize_name(name)): major.integer(minimum=1) for name, major in node.entries()
    }
    if not majors:
        raise node.fail(_("expected at least one cuDNN wheel"))
    return MappingProxyType(majors)


def _places(node: Node) -> tuple[str, ...]:
    places = tuple(n.choice(*XLA_PLACES) for n in node.items())
    if len(set(places)) != len(places):
        raise node.fail(_("a place is listed twice"))
    return places


@dataclass(frozen=True)
class PackageSet:
    packages: frozenset[str] = fact(_names)
    summary: str = fact()
    provenance: Provenance = sourced()
    translations: Translations = translated("summary")


@dataclass(frozen=True)
class XlaSearch:
    """Where XLA inside TensorFlow looks for ptxas and libdevice, in order."""

    # releases that also look in site-packages/nvidia/cuda_nvcc
    pip_nvcc: SpecifierSet = fact(Node.specifier)
    # releases that try PATH before the XLA_FLAGS folder
    path_first: SpecifierSet = fact(Node.specifier)
    # releases that look in the build's /usr/local/cuda-X.Y
    build_toolkit: SpecifierSet = fact(Node.specifier)
    # a ptxas older than this is passed over ...
    ptxas_floor: Optional[Version] = fact(Node.opt_version)
    ptxas_floor_in: SpecifierSet = fact(Node.specifier)  # ... by these releases
    ptxas: tuple[str, ...] = fact(_places)  # places (XLA_PLACES), first found wins
    libdevice: tuple[str, ...] = fact(_places)
    summary: str = fact()
    provenance: Provenance = sourced()
    translations: Translations = translated("summary")

    def places(self, tool: Literal["ptxas", "libdevice"], tf: Optional[Version]) -> tuple[str, ...]:
        """The places ``tf`` looks for ``tool``, in order (every place when ``tf`` is None)."""
        order = list(self.ptxas if tool == "ptxas" else self.libdevice)
        if tf is None:
            return tuple(order)
        if "path" in order and self.path_first.contains(tf, prereleases=True):
            order.remove("path")
            order.insert(0, "path")
        if not self.pip_nvcc.contains(tf, prereleases=True):
            order = [p for p in order if p != "pip_nvcc"]
        if not self.build_toolkit.contains(tf, prereleases=True):
            order = [p for p in order if p != "build_toolkit"]
        return tuple(order)

    def floor_for(self, tf: Optional[Version]) -> Optional[Version]:
        """The oldest ptxas ``tf`` accepts (None: any)."""
        if tf is None or not self.ptxas_floor_in.contains(tf, prereleases=True):
            return None
        return self.ptxas_floor


@dataclass(frozen=True)
class CudnnWheels:
    """NVIDIA's cuDNN wheels: package name -> the CUDA major it is built for."""

    cuda_major: Mapping[str, int] = fact(_majors, key="packages")
    provenance: Provenance = sourced()


@dataclass(frozen=True)
class AndCudaFacts:
    # TensorFlow loads these only when present (TensorRT)
    optional: PackageSet = fact(record(PackageSet))
    # their version is the CUDA version they ship with
    cuda_versioned: PackageSet = fact(record(PackageSet))
    cudnn: CudnnWheels = fact(record(CudnnWheels))  # their version is the cuDNN version
    # where XLA looks for ptxas and libdevice (None: not recorded)
    xla: Optional[XlaSearch] = fact(opt_record(XlaSearch), key="xla_search", default=None)

    def wheel(self, component: str, cuda_major: int) -> Optional[str]:
        """NVIDIA's wheel of ``component`` (``cudnn``, ``cuda-runtime``, ``cuda-nvcc``,
        ``cuda-nvrtc``...) built for CUDA ``cuda_major``, named as NVIDIA names them
        (``nvidia-cudnn-cu12``); None where the knowledge base records no such wheel."""
        name = f"nvidia-{component}-cu{cuda_major}"
        return name if self.component(name) == component else None

    def component(self, name: str) -> Optional[str]:
        """The component of a recorded NVIDIA CUDA wheel (``nvidia-cudnn-cu12`` -> ``cudnn``),
        None for any other package."""
        if name not in self.cudnn.cuda_major and name not in self.cuda_versioned.packages:
            return None
        head, _sep, major = name.rpartition("-cu")
        return head.removeprefix("nvidia-") if major.isdigit() else None


def load(root: Optional[Path] = None) -> AndCudaFacts:
    return read_record(AndCudaFacts, load_node(AND_CUDA_FILE, root))


@dataclass(frozen=True)
class WheelPin:
    name: str
    version: Version
    requirement: str  # the extra's line it satisfies

    def __str__(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class CudaWheels:
    """The CUDA wheels of one release's and-cuda extra, for one platform and Python."""

    policy: Policy
    pins: tuple[WheelPin, ...]  # one per requirement of the extra that is installed
    dropped: tuple[str, ...] = ()  # optional requirements left out (TensorRT goes as a whole)
    ranged: bool = False  # the extra gives ranges: without explicit pins pip takes the newest
    caps: tuple[str, ...] = ()  # what capped the "newest" choice
    missing: tuple[str, ...] = ()  # the dropped requirements that have no wheel here
    problem: Optional[str] = None  # why the extra cannot install here at all

    @property
    def explicit(self) -> bool:
        """Whether the install must name the pins (the extra alone would not pin them)."""
        return self.ranged or bool(self.dropped)


def cuda_wheels(
    kb: KnowledgeBase,
    wheels: WheelSet,
    python: str,
    policy: Policy = "build",
    cc: Optional[Version] = None,
    driver: Optional[Version] = None,
) -> Optional[CudaWheels]:
    """The CUDA wheels ``tensorflow[and-cuda]`` installs on ``wheels.platform`` with Python
    ``python`` under ``policy`` (None when the release has no and-cuda extra there)."""
    ws = wheels.for_python(python) or wheels
    if ws.and_cuda is None:
        return None
    facts = kb.and_cuda
    pins: list[WheelPin] = []
    dropped: list[str] = []
    caps: list[str] = []
    ranged = False
    for line in ws.and_cuda:
        req = kb.cuda_index.extra_line(line)
        if req is None:
            problem = _("its and-cuda requirement {line} is invalid").format(line=repr(line))
            return CudaWheels(policy, (), problem=problem)
        name = req.name
        exact = _exact(req.specifier)
        ranged = ranged or exact is None
        known = [
            w.version
            for w in kb.cuda_index.cuda_versions(name)
            if w.installs(ws.platform, python)
            and not w.version.is_prerelease
            and not w.version.is_devrelease
            and req.specifier.contains(w.version)
        ]
        if not known:
            if name in facts.optional.packages:
                dropped.append(line)
                continue
            if not kb.cuda_index.cuda_versions(name):
                continue  # not recorded: nothing to check or pin
            problem = _(
                "its and-cuda extra requires {line}, which has no {platform} wheel for Python "
                "{python}"
            ).format(line=line, platform=ws.platform, python=python)
            return CudaWheels(policy, (), problem=problem)
        chosen = exact if exact is not None and exact in known else None
        if chosen is None:
            chosen, cap = _choose(kb, name, sorted(known), policy, cc, driver)
            if cap:
                caps.append(cap)
        pins.append(WheelPin(name, chosen, line))
    missing = tuple(sorted(dropped))
    if dropped:  # the optional packages go together (tensorrt needs its -libs, -bindings)
        dropped += [p.requirement for p in pins if p.name in facts.optional.packages]
        pins = [p for p in pins if p.name not in facts.optional.packages]
    return CudaWheels(
        policy,
        tuple(pins),
        tuple(sorted(dropped)),
        ranged,
        tuple(dict.fromkeys(caps)),
        missing=missing,
    )


def _exact(specifier: SpecifierSet) -> Optional[Version]:
    specs = list(specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return Version(specs[0].version)
    return None


def _choose(
    kb: KnowledgeBase,
    name: str,
    known: list[Version],
    policy: Policy,
    cc: Optional[Version],
    driver: Optional[Version],
) -> tuple[Version, str]:
    if policy == "build":
        return known[0], ""  # from 2.20 the extra's floors are the build versions
    usable, caps = known, []
    major = kb.and_cuda.cudnn.cuda_major.get(name)
    if major is not None and cc is not None:
        fits = [v for v in known if _cudnn_runs(kb, v, major, cc)]
        if not fits or fits[-1] != usable[-1]:
            caps.append(
                _("cuDNN no newer than the series that support compute capability {cc}").format(
                    cc=cc
                )
            )
        usable = fits or known[:1]
    if name in kb.and_cuda.cuda_versioned.packages and driver is not None:
        top = kb.cuda.max_cuda_for_driver(driver)
        if top is not None:
            fits = [v for v in usable if (v.major, v.minor) <= (top.major, top.minor)]
            if not fits:
                caps.append(
                    _(
                        "CUDA wheels at the build versions (driver {driver} supports CUDA {cuda}, "
                        "below the extra's floor)"
                    ).format(driver=driver, cuda=top)
                )
            elif fits[-1] != usable[-1]:
                caps.append(
                    _(
                        "CUDA wheels no newer than CUDA {cuda} (what driver {driver} supports)"
                    ).format(cuda=top, driver=driver)
                )
            usable = fits or usable[:1]
    return usable[-1], _("; ").join(caps)


def _cudnn_runs(kb: KnowledgeBase, version: Version, cuda_major: int, cc: Version) -> bool:
    series = kb.cudnn.series(version)
    lowest = series.min_cc.get(cuda_major) if series is not None else None
    return lowest is not None and cc >= lowest
