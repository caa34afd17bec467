"""Can a GPU run a release's kernels, and how: natively, partly or wholly by PTX JIT, or not.

A TensorFlow GPU wheel carries two kinds of kernels (``builds.yaml`` ``compute``, from
a scan of the wheel): TensorFlow's hand-written CUDA kernels and the MLIR-generated
ones. Each kind runs on a GPU natively when it has SASS of the GPU's major and an equal
or lower minor, else by JIT from PTX of an equal or lower architecture, unless that
PTX is architecture-specific (``sm_90a``): then only a GPU of exactly that capability
can JIT it. A kind with neither cannot load, and a release whose kernels cannot load
is no plan for the GPU. PTX JIT also needs a driver that knows the PTX ISA.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from packaging.version import Version

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Rule
from tfenv.rules.cuda_build import gpu_build
from tfenv.rules.driver import driver_fix
from tfenv.rules.facts import driver_fact, gpu_fact
from tfenv.rules.model import Candidate, Requirement, TfCandidate, on_driver, on_gpu

if TYPE_CHECKING:
    from dataclasses import dataclass

    from tfenv.kb.tensorflow import ComputeCaps, KernelCode, TfBuild
    from tfenv.models.driver import DriverVersion
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "GPU_CODE",
    "JIT_DRIVER",
    "GpuCode",
    "KindCode",
    "code_for",
    "describe_caps",
    "gpu_code",
]

Verdict = Literal["native", "partly-jit", "jit", "cannot-load"]


@dataclass(frozen=True)
class KindCode:
    """How one kind of kernel runs on a GPU."""

    kind: str  # "hand-written" or "MLIR-generated"
    mode: Literal["native", "jit", "none"]
    via: Optional[Version]  # the SASS or PTX architecture used
    isa: Optional[Version] = None  # the PTX ISA to JIT (mode "jit")
    why_not: str = ""  # mode "none": why this kind cannot load


@dataclass(frozen=True)
class GpuCode:
    """How a GPU runs a release: per kind of kernel, and in one word."""

    kinds: tuple[KindCode, ...]

    @property
    def verdict(self) -> Verdict:
        modes = {k.mode for k in self.kinds}
        if "none" in modes:
            return "cannot-load"
        if modes == {"native"}:
            return "native"
        return "jit" if modes == {"jit"} else "partly-jit"

    @property
    def loads(self) -> bool:
        return self.verdict != "cannot-load"

    @property
    def jit_isa(self) -> Optional[Version]:
        """The highest PTX ISA the driver must JIT (None: nothing runs by JIT)."""
        isas = [k.isa for k in self.kinds if k.mode == "jit" and k.isa is not None]
        return max(isas) if isas else None

    def text(self) -> str:
        """ "natively (sm_80)", "by PTX JIT (compute_90)", or the mixed sentence."""
        native = next((k for k in self.kinds if k.mode == "native"), None)
        jit = next((k for k in self.kinds if k.mode == "jit"), None)
        if self.verdict == "native" and native is not None:
            return _("natively ({sm})").format(sm=_sm(native.via))
        if self.verdict == "jit" and jit is not None:
            return _("by PTX JIT ({compute})").format(compute=_compute(jit.via))
        if self.verdict == "partly-jit":
            parts = [
                _("the {kind} kernels natively ({sm})").format(
                    kind=_kind_label(k.kind), sm=_sm(k.via)
                )
                if k.mode == "native"
                else _("the {kind} kernels by PTX JIT ({compute}) on first use").format(
                    kind=_kind_label(k.kind), compute=_compute(k.via)
                )
                for k in self.kinds
            ]
            text = parts[0]
            for part in parts[1:]:
                text = _("{kernels} and {more}").format(kernels=text, more=part)
            return text
        missing = [k for k in self.kinds if k.mode == "none"]
        return _("not at all: {reasons}").format(
            reasons=_("; ").join(
                _("the {kind} kernels {why_not}").format(
                    kind=_kind_label(k.kind), why_not=k.why_not
                )
                for k in missing
            )
        )


#: the kinds of kernels builds.yaml records, as the sentences name them
_KIND_LABELS = {"hand-written": N_("hand-written"), "MLIR-generated": N_("MLIR-generated")}


def _kind_label(kind: str) -> str:
    label = _KIND_LABELS.get(kind)
    return _(label) if label is not None else kind


def _sm(v: Optional[Version]) -> str:
    return f"sm_{v.major}{v.minor}" if v is not None else "sm_?"


def _compute(v: Optional[Version]) -> str:
    return f"compute_{v.major}{v.minor}" if v is not None else "compute_?"


def _kind(kind: str, code: KernelCode, cc: Version) -> KindCode:
    native = [s for s in code.sass if s.major == cc.major and s.minor <= cc.minor]
    if native:
        return KindCode(kind, "native", max(native))
    ptx = [p for p in code.ptx if (p.major, p.minor) <= (cc.major, cc.minor)]
    if not ptx:
        have = ", ".join(_sm(s) for s in code.sass) or _("no SASS")
        why_not = _("have {sass} and no PTX this GPU can JIT").format(sass=have)
        return KindCode(kind, "none", None, why_not=why_not)
    via = max(ptx)
    if code.arch_specific_ptx and via != cc:
        targets = ", ".join(code.ptx_targets)
        return KindCode(
            kind,
            "none",
            None,
            why_not=_(
                "carry PTX only for the architecture-specific target {targets}, which no GPU "
                "but compute capability {cc} can JIT"
            ).format(targets=targets, cc=via),
        )
    return KindCode(kind, "jit", via, code.ptx_isa)


def gpu_code(cc: Version, caps: ComputeCaps) -> GpuCode:
    """How a GPU of compute capability ``cc`` runs the kernels ``caps`` describes."""
    return GpuCode(tuple(_kind(kind, code, cc) for kind, code in caps.kinds))


def code_for(build: Optional[TfBuild], cc: Optional[Version]) -> Optional[GpuCode]:
    """How a GPU of capability ``cc`` runs ``build``'s kernels (None: unknown)."""
    caps = build.compute if build is not None else None
    if caps is None or cc is None:
        return None
    return gpu_code(cc, caps)


def describe_caps(caps: ComputeCaps) -> str:
    """ "hand-written: sm_60 ... sm_90, PTX compute_90; MLIR-generated: ..."."""

    def one(code: KernelCode) -> str:
        sass = ", ".join(_sm(v) for v in code.sass) or _("no SASS")
        ptx = ", ".join(_compute(v) for v in code.ptx)
        if ptx and code.arch_specific_ptx:
            ptx = _("{ptx} ({targets} only)").format(ptx=ptx, targets=", ".join(code.ptx_targets))
        if ptx:
            return _("{sass}; PTX {ptx}").format(sass=sass, ptx=ptx)
        return _("{sass}; no PTX").format(sass=sass)

    return _("; ").join(
        _("{kind}: {code}").format(kind=_kind_label(kind), code=one(code))
        for kind, code in caps.kinds
    )


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    build = gpu_build(ctx, c)
    if build is None or build.compute is None or not isinstance(c, TfCandidate):
        return ()
    caps = build.compute
    lowest = caps.lowest_sass

    def loads(cc: Optional[Version]) -> bool:
        return cc is None or gpu_code(cc, caps).loads

    return (
        on_gpu(
            _("a GPU that TensorFlow {release}'s kernels load on ({code})").format(
                release=c.option.version, code=describe_caps(caps)
            ),
            loads,
            "gpu-code",
            fix=_("Use a GPU of compute capability >= {cc}").format(cc=lowest) if lowest else "",
        ),
    )


def jit_floor(
    ctx: Context, build: TfBuild, cc: Version
) -> tuple[Optional[DriverVersion], str, Optional[GpuCode]]:
    """The driver floor for the PTX this GPU must JIT in ``build`` (None: no JIT, or unknown)."""
    code = code_for(build, cc)
    if code is None or not code.loads or code.jit_isa is None:
        return None, "", code
    floor, why = ctx.kb.cuda.jit_floor(code.jit_isa, ctx.target.driver_os or "linux")
    return floor, why, code


def _jit_needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    build = gpu_build(ctx, c)
    cc = ctx.target.cc
    if build is None or cc is None:
        return ()
    floor, why, code = jit_floor(ctx, build, cc)
    if floor is None or code is None:
        return ()
    return (
        on_driver(
            _(
                "an NVIDIA driver >= {floor} to JIT-compile its PTX for compute capability {cc} "
                "({why})"
            ).format(floor=floor, cc=cc, why=why),
            lambda d: d is None or d >= floor,
            "jit-driver",
            fix=driver_fix(ctx, floor),
        ),
    )


GPU_CODE = Rule(
    "gpu-code",
    N_("The GPU is not supported by the official wheels"),
    "tensorflow",
    _needs,
    gpu_fact,
    "gpu",
    change_kind="gpu-arch",
)
JIT_DRIVER = Rule(
    "jit-driver",
    N_("The NVIDIA driver is too old to JIT-compile the kernels for this GPU"),
    "tensorflow",
    _jit_needs,
    driver_fact,
    "driver",
    reads="compute",
    change_kind="gpu-arch",
    cites_changes=False,
    check_hint=N_("'nvidia-smi' shows the driver"),
)
