"""Answers about GPU code: compute capability, PTX the driver rejects, ptxas that is too old.

Which side is too old is decided from the knowledge base: the GPU code a release carries
(``builds.yaml``, :mod:`tfenv.rules.gpu_code`), the PTX ISA each CUDA release introduced
and the driver that JIT-compiles it (``nvidia/cuda.yaml``), the compute capabilities each
toolkit's ptxas can target, and where XLA looks for ptxas (``tensorflow/and_cuda.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from packaging.version import InvalidVersion, Version

from tfenv.explain.common import (
    and_cuda_pin,
    lowest_wheel,
    pip_command,
    series_list,
    version_or_none,
    wheel_versions,
)
from tfenv.explain.context import Answer, Context
from tfenv.explain.hints import sm_cc
from tfenv.i18n import _
from tfenv.kb.errors import CatalogPattern
from tfenv.kb.prose import prose
from tfenv.rules.gpu_code import code_for

if TYPE_CHECKING:
    from tfenv.kb.tensorflow import TfBuild

__all__ = ["ANSWERS", "xla_search_fact"]


def _cc_of(groups: Mapping[str, str], ctx: Context) -> Optional[Version]:
    if "cc" in groups:
        return version_or_none(groups["cc"])
    if "sm" in groups:
        return sm_cc(groups["sm"].rstrip("aAfF"))
    return ctx.cc


def _cc(groups: Mapping[str, str], ctx: Context) -> Answer:
    """What the official wheels carry for a GPU of the compute capability the text names."""
    cc = _cc_of(groups, ctx)
    if cc is None:
        return Answer()
    return Answer(tuple(_cc_facts(ctx, cc)), _gpu_fix(ctx, cc))


def _cc_facts(ctx: Context, cc: Version) -> list[str]:
    by: dict[str, list[TfBuild]] = {"native": [], "partly-jit": [], "jit": [], "cannot-load": []}
    for b in ctx.kb.builds:
        code = code_for(b, cc)
        if code is not None:
            by[code.verdict].append(b)
    facts = [_("Compute capability {cc} ({sm}).").format(cc=cc, sm=f"sm_{cc.major}{cc.minor}")]
    build = ctx.build()
    code = code_for(build, cc) if build is not None else None
    if build is not None and code is not None:
        facts.append(
            _("TensorFlow {tf} runs its kernels on it {code}.").format(tf=ctx.tf, code=code.text())
        )
    facts.append(
        _("Official Linux wheels with native code for it: {series}.").format(
            series=series_list(by["native"])
        )
    )
    if by["partly-jit"]:
        facts.append(
            _(
                "Native hand-written kernels, MLIR-generated kernels JIT-compiled from PTX on "
                "first use: {series}."
            ).format(series=series_list(by["partly-jit"]))
        )
    if by["jit"]:
        facts.append(
            _("Only PTX (JIT-compiled on first use) in: {series}.").format(
                series=series_list(by["jit"])
            )
        )
    if by["cannot-load"]:
        facts.append(
            _("Kernels that cannot load on it in: {series}.").format(
                series=series_list(by["cannot-load"])
            )
        )
    if not any(by[k] for k in ("native", "partly-jit", "jit")):
        facts.append(_("No official TensorFlow 2.x wheel can run on it."))
    return facts


def _gpu_fix(ctx: Context, cc: Version) -> Optional[str]:
    """What the solver picks for this GPU on the machine at hand (None: no machine)."""
    from dataclasses import replace

    from tfenv.models.target import Request
    from tfenv.rerun import line_for

    m = ctx.machine
    if m is None or (m.platform.key != "linux_x86_64" and not m.system.is_wsl2):
        return None
    target = replace(m, cc=cc, gpu_name=m.gpu_name if m.cc == cc else None)
    request = Request()
    res = ctx.solve(target, request)
    if res.plan is not None:
        plan = res.plan
        if plan.gpu_code:
            template = _(
                "`{command}` picks {plan} for this machine with a GPU of compute "
                "capability {cc} (its kernels run {code})."
            )
        else:
            template = _(
                "`{command}` picks {plan} for this machine with a GPU of compute "
                "capability {cc} (its kernels run on the GPU)."
            )
        command = line_for(target, request, plan.tensorflow)
        return template.format(plan=plan.summary(), cc=cc, code=plan.gpu_code, command=command)
    ways = _("; ").join(res.suggestion_sentences[:2])
    return _("No official wheel runs on this GPU here. {ways}").format(ways=ways) if ways else None


def _jit_text(ctx: Context, isa: Version) -> tuple[str, Optional[str]]:
    os = ctx.machine.driver_os if ctx.machine is not None else None
    floor, why = ctx.kb.cuda.jit_floor(isa, os or "linux")
    if floor is None:
        return _("{text}.").format(text=why.rstrip(".")), None
    text = _("PTX ISA {isa} needs an NVIDIA driver >= {floor} to JIT-compile ({why}).")
    return text.format(isa=isa, floor=floor, why=why), str(floor)


def _driver_cuda_fact(ctx: Context, cuda: Version) -> Optional[str]:
    """What the driver at hand (or the one the text shows) supports, against ``cuda``."""
    driver = ctx.driver
    if driver is None:
        top = ctx.hints.driver_cuda
        if top is None:
            return None
        old = (top.major, top.minor) < (cuda.major, cuda.minor)
        if old:
            template = _("Here the driver reports CUDA {top}: too old.")
        else:
            template = _("Here the driver reports CUDA {top}: new enough.")
        return template.format(top=top)
    top = ctx.kb.cuda.max_cuda_for_driver(driver)
    if top is None:
        return None
    if (top.major, top.minor) < (cuda.major, cuda.minor):
        template = _("Here this machine's driver {driver} supports CUDA {top}: too old.")
    else:
        template = _("Here this machine's driver {driver} supports CUDA {top}: new enough.")
    return template.format(driver=driver, top=top)


def _ptx_isa(groups: Mapping[str, str], ctx: Context) -> Answer:
    """PTX newer than its consumer: the driver's JIT, or (with ptxas's wording) a ptxas."""
    isa = version_or_none(groups.get("isa"))
    have = version_or_none(groups.get("have_isa"))
    if isa is None:
        return _tf_ptx(ctx)
    cuda = ctx.kb.cuda.ptx_isa.get(isa)
    if cuda:
        facts = [
            _("The PTX is of ISA {isa}, which came with CUDA {cuda}.").format(isa=isa, cuda=cuda)
        ]
    else:
        facts = [_("The PTX is of ISA {isa}.").format(isa=isa)]
    if have is not None:
        have_cuda = ctx.kb.cuda.ptx_isa.get(have)
        if have_cuda:
            template = _(
                "What read it knows ISA {have} (CUDA {cuda}): either the driver's JIT compiler "
                "(a driver of CUDA {cuda}) or a ptxas of that CUDA version is too old; the GPU "
                "is not the problem."
            )
        else:
            template = _(
                "What read it knows ISA {have}: either the driver's JIT compiler (a driver "
                "of CUDA {have}) or a ptxas of that CUDA version is too old; the GPU "
                "is not the problem."
            )
        facts.append(template.format(have=have, cuda=have_cuda))
    jit, floor = _jit_text(ctx, isa)
    facts.append(jit)
    seen = _driver_cuda_fact(ctx, cuda) if cuda is not None else None
    if seen:
        facts.append(seen)
    nvcc = ctx.kb.and_cuda.wheel("cuda-nvcc", cuda.major) if cuda is not None else None
    wheel = lowest_wheel(ctx.kb, nvcc, cuda, ctx.platform) if nvcc and cuda else None
    install = f"`{pip_command(ctx, f'{nvcc}>={wheel}')}`" if wheel is not None else None
    if floor is not None and install is not None:
        fix: Optional[str] = _(
            "Update the NVIDIA driver to {floor} or newer; if a ptxas reported it, put a ptxas "
            "of CUDA {cuda} or newer first ({install})."
        )
    elif floor is not None:
        fix = _("Update the NVIDIA driver to {floor} or newer.")
    elif install is not None:
        fix = _("If a ptxas reported it, put a ptxas of CUDA {cuda} or newer first ({install}).")
    else:
        fix = None
    if fix is not None:
        fix = fix.format(floor=floor, cuda=cuda, install=install)
    return Answer(tuple(facts), fix)


def _tf_ptx(ctx: Context) -> Answer:
    """CUDA_ERROR_UNSUPPORTED_PTX_VERSION from TensorFlow's own kernels: the driver is older
    than the PTX ISA the release carries."""
    build = ctx.build()
    rows = [build] if build is not None else [b for b in ctx.kb.builds if _max_isa(b)]
    facts = [
        _(
            "The driver's JIT compiler rejected PTX made by a newer CUDA than the driver "
            "supports: the driver is too old (not the GPU, not ptxas)."
        )
    ]
    groups: dict[Version, list[Version]] = {}
    for b in rows:
        isa = _max_isa(b)
        if isa is not None:
            groups.setdefault(isa, []).append(b.series)
    os = ctx.machine.driver_os if ctx.machine is not None else None
    need = None
    for isa, series in sorted(groups.items()):
        floor, why = ctx.kb.cuda.jit_floor(isa, os or "linux")
        if floor is None:
            continue
        who = str(ctx.tf) if build is not None else _span(series)
        facts.append(
            _(
                "TensorFlow {tf} carries PTX ISA {isa}: JIT needs a driver >= {floor} ({why})."
            ).format(tf=who, isa=isa, floor=floor, why=why)
        )
        need = floor
    driver = ctx.driver
    if driver is not None and need is not None and build is not None:
        if driver < need:
            verdict = _("This machine's driver is {driver}: too old.")
        else:
            verdict = _("This machine's driver is {driver}: new enough.")
        facts.append(verdict.format(driver=driver))
    if need is None:
        return Answer(tuple(facts))
    if build is not None:
        return Answer(
            tuple(facts), _("Update the NVIDIA driver to {floor} or newer.").format(floor=need)
        )
    return Answer(
        tuple(facts),
        _(
            "Update the NVIDIA driver to the floor of your TensorFlow above ({floor} or newer "
            "runs every release's PTX), or use a release whose PTX this driver compiles."
        ).format(floor=need),
    )


def _arch_specific_targets(build: TfBuild) -> list[str]:
    """The ``sm_XXa`` PTX targets of a build (builds.yaml's ptx_targets)."""
    caps = build.compute
    kinds = caps.kinds if caps is not None else ()
    return [t for _, k in kinds for t in k.ptx_targets if t.endswith("a")]


def _target_cc(target: str) -> Optional[Version]:
    """``sm_90a`` -> 9.0: the one compute capability that can JIT an arch-specific target."""
    return sm_cc(target.removeprefix("sm_").rstrip("a"))


def _span(series: list[Version]) -> str:
    items = sorted(series)
    if len(items) == 1:
        return str(items[0])
    return _("{first} to {last}").format(first=items[0], last=items[-1])


def _max_isa(build: TfBuild) -> Optional[Version]:
    caps = build.compute
    if caps is None:
        return None
    isas = [code.ptx_isa for _, code in caps.kinds if code.ptx_isa is not None]
    return max(isas) if isas else None


def _ptx_invalid(groups: Mapping[str, str], ctx: Context) -> Answer:
    """CUDA_ERROR_INVALID_PTX: PTX the driver cannot compile for this GPU (a GPU newer than the
    build, PTX for an architecture-specific target); a newer driver does not help."""
    cc = _cc_of(groups, ctx)
    facts = _cc_facts(ctx, cc)[1:] if cc is not None else []  # the release at hand first
    arch_specific = [b for b in ctx.kb.builds if _arch_specific_targets(b)]
    if arch_specific:
        targets = sorted({t for b in arch_specific for t in _arch_specific_targets(b)})
        ccs = {_target_cc(t) for t in targets} - {None}
        only = ", ".join(str(c) for c in sorted(ccs))  # type: ignore[type-var]
        facts.append(
            _(
                "TensorFlow {series} carry the MLIR-generated kernels' PTX only for the "
                "architecture-specific target {targets}, which no GPU but compute capability "
                "{cc} can JIT-compile: on GPUs without native code in the build (newer ones "
                "included) they fail with CUDA_ERROR_INVALID_PTX. Updating the driver does not "
                "help."
            ).format(series=series_list(arch_specific), targets=", ".join(targets), cc=only)
        )
    return Answer(tuple(facts), _gpu_fix(ctx, cc) if cc is not None else None)


def xla_search_fact(ctx: Context) -> str:
    xla = ctx.kb.and_cuda.xla
    if xla is None:
        return _("XLA runs the first ptxas it finds (XLA_FLAGS' folder, PATH, CUDA folders).")
    return _("{text}.").format(text=prose(xla, "summary").rstrip(".。"))


def _nvcc_fix(ctx: Context, need: Version) -> str:
    """Put a ptxas of CUDA ``need`` or newer first: the pin of the TensorFlow at hand when it is
    new enough, else the lowest wheel that is."""
    build = ctx.build()
    major = need.major
    if build is not None and build.linux is not None and build.linux.cuda is not None:
        major = max(major, build.linux.cuda.major)
    nvcc = ctx.kb.and_cuda.wheel("cuda-nvcc", major)
    pin = and_cuda_pin(ctx, nvcc) if nvcc is not None else None
    if pin is not None and Version(pin.split("==")[1]) >= need:
        install = _("`{command}` (what TensorFlow {tf} pins)").format(
            command=pip_command(ctx, pin), tf=ctx.tf
        )
    else:
        floor = need if need.major == major else Version(f"{major}.0")
        wheel = lowest_wheel(ctx.kb, nvcc, floor, ctx.platform) if nvcc is not None else None
        install = (
            f"`{pip_command(ctx, f'{nvcc}>={wheel}')}`"
            if wheel is not None
            else _("a CUDA {need} or newer toolkit").format(need=need)
        )
    return _(
        "Use a ptxas from CUDA {need} or newer: {install}, and make it the one XLA finds "
        "first: remove the older one from PATH (or put the new one's bin folder first), or "
        "point XLA_FLAGS=--xla_gpu_cuda_data_dir at the new CUDA folder."
    ).format(need=need, install=install)


def _ptxas_arch(groups: Mapping[str, str], ctx: Context) -> Answer:
    """ptxas does not know the GPU's architecture: the ptxas is older than the GPU."""
    sm = groups.get("sm", "")
    cc = _cc_of(groups, ctx)
    if cc is None:
        return Answer((xla_search_fact(ctx),))
    arch_specific = sm.lower().endswith("a")
    need = ctx.kb.cuda.first_for(cc, arch_specific)
    facts = []
    if need is not None:
        if sm:
            template = _(
                "sm_{sm} (compute capability {cc}) first came with CUDA {need}: the ptxas that "
                "ran is from an older CUDA. The driver and the GPU are not the problem; XLA "
                "falls back to the driver's JIT compiler (slow, or it fails where the driver "
                "cannot)."
            )
        else:
            template = _(
                "Compute capability {cc} first came with CUDA {need}: the ptxas that ran is "
                "from an older CUDA. The driver and the GPU are not the problem; XLA falls back "
                "to the driver's JIT compiler (slow, or it fails where the driver cannot)."
            )
        facts.append(template.format(sm=sm, cc=cc, need=need))
    path = groups.get("ptxas_path")
    if path:
        facts.append(_("The ptxas that ran: {path}.").format(path=path))
    else:
        facts += _used_ptxas(ctx)
    facts.append(xla_search_fact(ctx))
    return Answer(tuple(facts), _nvcc_fix(ctx, need) if need is not None else None)


_USED = (
    CatalogPattern(r"Used ptxas at (?P<p>\S+)"),
    CatalogPattern(r"(?<!\S)(?P<p>/\S{0,300}ptxas) ptxas too old"),
)


def _used_ptxas(ctx: Context) -> list[str]:
    """The ptxas the text says ran (none: [])."""
    for pattern in _USED:
        m = pattern.search(ctx.text)
        if m is not None:
            path = m.group("p")
            if "/" in path:
                return [_("The ptxas that ran: {path}.").format(path=path)]
            return [_("The ptxas that ran: {path} (the first one on PATH).").format(path=path)]
    return []


def _ptxas_old(groups: Mapping[str, str], ctx: Context) -> Answer:
    """XLA's own warning about a ptxas older than it accepts."""
    old = version_or_none(groups.get("ptxas_old"))
    floor = version_or_none(groups.get("ptxas_min"))
    facts = []
    if old is not None and floor is not None:
        facts.append(
            _(
                "The ptxas XLA found is from CUDA {cuda} ({version}); XLA needs {floor} or newer."
            ).format(cuda=f"{old.major}.{old.minor}", version=old, floor=floor)
        )
    build = ctx.build()
    xla = ctx.kb.and_cuda.xla
    need = floor or (xla.ptxas_floor if xla is not None else None)  # XLA's floor (and_cuda.yaml)
    if build is not None and build.linux is not None and build.linux.cuda is not None:
        facts.append(
            _("TensorFlow {tf} is built with CUDA {cuda}.").format(tf=ctx.tf, cuda=build.linux.cuda)
        )
        need = max(need, build.linux.cuda) if need is not None else build.linux.cuda
    facts.append(xla_search_fact(ctx))
    if need is None:
        return Answer(tuple(facts))
    return Answer(tuple(facts), _nvcc_fix(ctx, Version(f"{need.major}.{need.minor}")))


def _ptxas_missing(groups: Mapping[str, str], ctx: Context) -> Answer:
    """XLA found no ptxas (or no PTX compiler at all)."""
    facts = [xla_search_fact(ctx)]
    cc = ctx.cc
    need = ctx.kb.cuda.first_for(cc) if cc is not None else None
    build = ctx.build()
    if build is not None and build.linux is not None and build.linux.cuda is not None:
        bc = build.linux.cuda
        need = max(need, bc) if need is not None else bc
    if need is None:
        return Answer(tuple(facts))
    if cc is not None:
        facts.append(
            _("For compute capability {cc} the ptxas must be from CUDA {need} or newer.").format(
                cc=cc, need=need
            )
        )
    return Answer(tuple(facts), _nvcc_fix(ctx, Version(f"{need.major}.{need.minor}")))


def _driver_ptxas(groups: Mapping[str, str], ctx: Context) -> Answer:
    """XLA's ptxas is newer than the driver's CUDA: XLA links serially (slower), nothing fails."""
    try:
        driver_cuda, ptxas = Version(groups["driver_cuda"]), Version(groups["ptxas"].rstrip("."))
    except (InvalidVersion, KeyError):
        return Answer()
    mm = Version(f"{ptxas.major}.{ptxas.minor}")
    facts = [
        _(
            "ptxas is from CUDA {ptxas}; the driver supports CUDA {driver_cuda}. XLA then links "
            "the kernels ptxas compiled without the driver's help, one at a time: compilation "
            "is slower, the kernels run normally."
        ).format(ptxas=ptxas, driver_cuda=driver_cuda)
    ]
    os = ctx.machine.driver_os if ctx.machine is not None else None
    tk = ctx.kb.cuda.toolkit(mm)
    floor = tk.min_driver(os or "linux") if tk is not None else None
    wheel = ctx.kb.and_cuda.wheel("cuda-nvcc", driver_cuda.major)
    fits = [
        v
        for v in (wheel_versions(ctx.kb, wheel, ctx.platform) if wheel is not None else [])
        if v.major == driver_cuda.major and v.minor <= driver_cuda.minor
    ]
    install = f"`{pip_command(ctx, f'{wheel}=={max(fits)}')}`" if fits else None
    if floor is not None and install is not None:
        fix: Optional[str] = _(
            "Update the NVIDIA driver to {floor} or newer (CUDA {cuda}); or use the ptxas of "
            "the driver's CUDA: {install}, found before any newer one (see where XLA looks)."
        )
    elif floor is not None:
        fix = _("Update the NVIDIA driver to {floor} or newer (CUDA {cuda}).")
    elif install is not None:
        fix = _(
            "Use the ptxas of the driver's CUDA: {install}, found before any newer one (see "
            "where XLA looks)."
        )
    else:
        fix = None
    facts.append(xla_search_fact(ctx))
    if fix is not None:
        fix = fix.format(floor=floor, cuda=mm, install=install)
    return Answer(tuple(facts), fix)


def _xla_ptx(groups: Mapping[str, str], ctx: Context) -> Answer:
    """LLVM: "PTX version 8.5 does not support target 'sm_120' ... Minimum required PTX
    version is 8.7": XLA's PTX ISA (from TensorFlow's CUDA) is older than the GPU needs."""
    sm = groups.get("sm", "")
    cc = sm_cc(sm.removeprefix("sm_").rstrip("aAfF")) if sm else ctx.cc
    isa = version_or_none(groups.get("isa"))
    need = version_or_none(groups.get("need"))
    code = groups.get("need_code", "")
    if need is None and len(code) == 2:
        need = version_or_none(f"{code[0]}.{code[1]}")
    ptx = ctx.kb.cuda.ptx_isa
    facts = []
    if sm and cc:
        gpu = _("{sm} (compute capability {cc})").format(sm=sm, cc=cc)
    elif cc:
        gpu = _("compute capability {cc}").format(cc=cc)
    else:
        gpu = _("this GPU")
    if isa is not None and isa in ptx:
        facts.append(
            _("XLA asked LLVM for PTX ISA {isa}, which came with CUDA {cuda}, for {gpu}.").format(
                isa=isa, cuda=ptx[isa], gpu=gpu
            )
        )
    elif isa is not None:
        facts.append(_("XLA asked LLVM for PTX ISA {isa}, for {gpu}.").format(isa=isa, gpu=gpu))
    else:
        facts.append(_("XLA compiled for {gpu}.").format(gpu=gpu))
    if need is not None and need in ptx:
        facts.append(
            _(
                "That target needs PTX ISA {need} (CUDA {cuda} and later): LLVM stops the process."
            ).format(need=need, cuda=ptx[need])
        )
    elif need is not None:
        facts.append(
            _("That target needs PTX ISA {need}: LLVM stops the process.").format(need=need)
        )
    build, tf = ctx.build(), ctx.tf
    cb = build.linux if build is not None else None
    if tf is not None and cb is not None and cb.cuda is not None:
        facts.append(
            _(
                "TensorFlow {tf} is built with CUDA {cuda}: its XLA emits PTX of that CUDA's ISA."
            ).format(tf=tf, cuda=cb.cuda)
        )
        own = code_for(build, cc) if build is not None and cc is not None else None
        if own is not None and own.verdict != "cannot-load":
            facts.append(
                _(
                    "TensorFlow {tf}'s own kernels run on this GPU {code}: only code XLA "
                    "compiles fails, so a model runs with XLA off."
                ).format(tf=tf, code=own.text())
            )
    issue = next((i for i in ctx.kb.known_issues if i.id == "xla-blackwell-ptxas-12-5"), None)
    fix = prose(issue, "action") if issue is not None else None
    return Answer(tuple(facts), fix)


ANSWERS = {
    "xla-ptx": _xla_ptx,
    "cc": _cc,
    "ptx-isa": _ptx_isa,
    "ptx-invalid": _ptx_invalid,
    "ptxas-arch": _ptxas_arch,
    "ptxas-old": _ptxas_old,
    "ptxas-missing": _ptxas_missing,
    "driver-ptxas": _driver_ptxas,
}
