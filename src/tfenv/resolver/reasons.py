"""Build the :class:`~tfenv.models.plan.Plan` from a resolution, with a reason for every choice.

The route the solver picked says what it really installs (:meth:`Route.deliver`);
this module adds the reasons that hold for every route: the release, the Python,
the build's CUDA and cuDNN, the driver floor, the GPU's code, and why the route the
TensorFlow docs recommend was not taken.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv import routes
from tfenv.i18n import _
from tfenv.models.plan import Plan, RuntimePin, excluded, verify_command
from tfenv.models.sentence import Sentence, coded, said
from tfenv.routes.container import newer_cuda_image
from tfenv.rules.cudnn_arch import CudnnOnGpu, cudnn_on_gpu, later_cudnn
from tfenv.rules.driver import branch_limit
from tfenv.rules.gpu_code import GpuCode, jit_floor
from tfenv.rules.model import TfCandidate, VersionCandidate

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.releases import TfOption
    from tfenv.kb.runtime import RuntimeConstraint
    from tfenv.models.driver import DriverVersion
    from tfenv.resolver.factory import Factory
    from tfenv.rules.model import Candidate

__all__ = ["make_plan", "runtime_pins", "runtime_reason"]


def make_plan(f: Factory, mapping: Mapping[str, Candidate]) -> Plan:
    tf = mapping["tensorflow"]
    assert isinstance(tf, TfCandidate)
    opt, accel = tf.option, tf.accel
    route = routes.route(mapping["route"].key)
    python = _version(mapping, "python")
    runtime = runtime_pins(f.kb, opt, python)
    built_cuda, built_cudnn = _version(mapping, "cuda"), _version(mapping, "cudnn")
    # the build's cuDNN has no code for the GPU and a later one of its major has: the
    # plan installs that one (routes that cannot choose their cuDNN refuse the release)
    later = (
        later_cudnn(f.kb, built_cudnn, built_cuda, f.target.cc)
        if accel == "cuda" and f.target.has_nvidia_gpu and not route.in_image
        else None
    )
    chosen = routes.Choice(
        opt,
        accel,
        python,
        built_cuda,
        later.newer if later is not None and later.newer else built_cudnn,
        tuple(p.line for p in runtime),
    )
    got = route.deliver(f.where, chosen)
    cuda, cudnn = got.cuda, got.cudnn
    installed = (*got.packages.pip, *got.packages.conda)
    applied = tuple(p for p in runtime if p.line in installed)
    reasons: list[Sentence] = [_tf_reason(f, opt), *got.reasons]
    warnings: list[Sentence] = []
    reasons += [
        coded("runtime-pin", p.reason, id=p.id, package=p.package, requirement=p.requirement)
        for p in applied
    ]
    if got.python_reason:
        reasons.append(_python_reason(f, opt, got.python))
    code: Optional[GpuCode] = None
    floor: Optional[Version] = None
    if accel == "cuda":
        os = f.target.driver_os or "linux"
        floor, rule = f.kb.cuda.driver_floor(cuda, os) if cuda else (None, "unknown")
        # an image with its own TensorFlow build (NGC) says itself how it runs on the GPU
        if got.says_build:
            reasons += _cuda_reasons(f, opt, cuda, cudnn, floor, rule)
            jit, jit_why, code = _jit(f, opt)
            reasons.append(_gpu_reason(f, code))
            if jit is not None and (floor is None or jit > floor):
                floor = jit
                reasons.append(
                    said(
                        "driver-jit",
                        _(
                            "Driver >= {floor}: this GPU runs some kernels by PTX JIT, and {why}"
                            " (minor-version compatibility does not cover PTX JIT)."
                        ),
                        floor=jit,
                        why=jit_why,
                    )
                )
        warnings += _cuda_warnings(f, cuda, floor, code, cudnn)
        if later is not None:
            reasons.append(_later_reason(f, later))
    reasons.append(said("route", _("Route {route}: {why}."), route=route.name, why=_(route.why)))
    if accel == "cuda":
        reasons += _route_not_taken(f, opt, route.name)
    warnings += _yanked(f, opt)
    warnings += [
        said(
            "known-issue",
            _("{issue} ({source})"),
            issue=i.text_for(f.target.cc),
            source=i.provenance.sources[0],
            id=i.id,
        )
        for i in opt.issues
        if i.concerns(route.name, f.target.cc if accel == "cuda" else None, got.python)
        and (i.remedy is None or i.remedy not in got.remedies)
    ]
    warnings += got.warnings
    warnings += _apple_gpu_unused(f, opt, accel, got.python)
    host: tuple[str, ...] = ()
    if route.in_image and got.image is not None:
        host = route.host_needs(f.where, floor)
        reasons.append(said("host-needs", _("The host needs: {needs}."), needs=_("; ").join(host)))
    elif (
        f.target.glibc is None
        and opt.wheels
        and opt.wheels.glibc
        and f.target.platform.is_linux
        and "glibc" not in route.waives(f.where, opt)  # conda-forge's build is not the wheel
    ):
        warnings.append(
            said(
                "glibc-unknown",
                _("glibc not known: the wheels need glibc >= {glibc}."),
                glibc=opt.wheels.glibc,
            )
        )
    pk = got.packages
    return Plan(
        tensorflow=str(opt.version),
        package=got.package or opt.package,
        python=str(got.python) if got.python else None,
        accelerator=accel,
        route=route.name,
        cuda=str(cuda) if cuda else None,
        cudnn=str(cudnn) if cudnn else None,
        min_driver=str(floor) if floor else None,
        gpu_code=code.text() if code is not None else None,
        pip=pk.pip,
        conda=pk.conda,
        channels=pk.channels,
        env=pk.env,
        commands=pk.commands,
        steps=pk.steps,
        warnings=tuple(warnings),
        reasons=tuple(reasons),
        image=got.image,
        host=host,
        remedies=tuple(sorted(got.remedies)),
        verify=got.verify or verify_command(accel),
        constraints=applied,
    )


def runtime_pins(
    kb: KnowledgeBase, opt: TfOption, python: Optional[Version]
) -> tuple[RuntimePin, ...]:
    """What ``opt`` needs of its dependencies to import and run on ``python`` today
    (``kb.runtime``), each with its reason; with no Python chosen, those every Python the
    release serves needs."""
    if python is not None:
        found = kb.runtime.constraints_for(opt.version, str(python))
    else:
        each = [kb.runtime.constraints_for(opt.version, str(p)) for p in opt.pythons]
        found = tuple(c for c in each[0] if all(c in other for other in each[1:])) if each else ()
    return tuple(
        RuntimePin(c.id, c.package, c.requirement, runtime_reason(opt.version, c)) for c in found
    )


def runtime_reason(version: Version, c: RuntimeConstraint) -> str:
    """ "numpy<2: TensorFlow 2.10.1 declares numpy>=1.20 but cannot import or run with numpy
    2 or newer: <error> (measured: ...; sources: ...)"."""
    if c.component == "tensorboard":
        return _(
            "{line}: the TensorBoard that TensorFlow {version}'s plan installs cannot start "
            "with {excluded}: {error} (measured: {evidence}; {sources}; retrieved {retrieved})."
        ).format(
            line=c.line,
            version=version,
            excluded=excluded(c.package, c.requirement),
            error=c.error.rstrip("."),
            evidence=c.evidence_text(),
            sources="; ".join(c.sources),
            retrieved=c.retrieved,
        )
    declared = c.declared or _("no bound on {package}").format(package=c.package)
    return _(
        "{line}: TensorFlow {version} declares {declared} but cannot import or run with "
        "{excluded}: {error} (measured: {evidence}; {sources}; retrieved {retrieved})."
    ).format(
        line=c.line,
        version=version,
        declared=declared,
        excluded=excluded(c.package, c.requirement),
        error=c.error.rstrip("."),
        evidence=c.evidence_text(),
        sources="; ".join(c.sources),
        retrieved=c.retrieved,
    )


def _apple_gpu_unused(
    f: Factory, opt: TfOption, accel: str, python: Optional[Version]
) -> list[Sentence]:
    """A CPU plan on a Mac whose GPU runs the Metal plug-in, not asked for: say why the GPU
    is not used."""
    t = f.target
    if accel != "cpu" or not t.platform.is_macos or f.request.no_gpu:
        return []
    from tfenv.kb.metal import PLATFORM, no_metal_reason, runs_on_gpu

    if not runs_on_gpu(f.kb, t.platform.key, t.gpu_vendor):
        gpus = f.kb.metal.gpus
        if t.gpu_name is None or gpus is None:
            return []
        # a GPU that Apple's requirements do not name (an Intel Mac's Intel graphics)
        return [
            said(
                "apple-gpu-unused",
                _(
                    "This plan does not use {gpu}: Apple's tensorflow-metal plug-in runs on "
                    "'{requirement}' only (source: {source})."
                ),
                gpu=t.gpu_name,
                requirement=gpus.requirement,
                source=gpus.provenance.sources[0],
            )
        ]

    def line(tf: Version, other_python: Optional[Version]) -> str:
        from packaging.specifiers import SpecifierSet

        from tfenv.models._record import replace
        from tfenv.rerun import line_for

        machine = replace(t, python=other_python) if other_python else t
        pinned = replace(f.request, tf=SpecifierSet(f"=={tf}"), tf_text=str(tf))
        return line_for(machine, pinned, str(tf))

    why = no_metal_reason(f.kb, opt.version, python, t.platform.key, line)
    if not why:
        return []
    if t.platform.key != PLATFORM:
        return [said("apple-gpu-unused", _("This plan does not use the AMD GPU: {why}."), why=why)]
    return [said("apple-gpu-unused", _("This plan does not use the Apple GPU: {why}."), why=why)]


def _version(mapping: Mapping[str, Candidate], identifier: str) -> Optional[Version]:
    c = mapping.get(identifier)
    return c.version if isinstance(c, VersionCandidate) else None


def _tf_reason(f: Factory, opt: TfOption) -> Sentence:
    newer_broken = {
        str(c.option.version)
        for c in f.candidates("tensorflow")
        if isinstance(c, TfCandidate)
        and c.option.broken
        and c.option.version > opt.version
        and f.request.tf.contains(c.option.version)
    }
    if newer_broken:
        return said(
            "tensorflow",
            _(
                "TensorFlow {version}: the newest release matching '{spec}' that fits this "
                "machine (skipped as known-broken: {broken})."
            ),
            version=opt.version,
            spec=f.request.tf_text,
            broken=", ".join(sorted(newer_broken)),
        )
    return said(
        "tensorflow",
        _("TensorFlow {version}: the newest release matching '{spec}' that fits this machine."),
        version=opt.version,
        spec=f.request.tf_text,
    )


def _yanked(f: Factory, opt: TfOption) -> list[Sentence]:
    """PEP 592: a yanked release is used only when pinned exactly, and never silently."""
    if not opt.yanked:
        return []
    release = f.kb.index.release(opt.package, opt.version)
    if release and release.yanked_reason:
        return [
            said(
                "yanked",
                _(
                    "{package} {version} is yanked from the index ({why}): it is used only "
                    "because it was pinned exactly."
                ),
                package=opt.package,
                version=opt.version,
                why=release.yanked_reason,
            )
        ]
    return [
        said(
            "yanked",
            _(
                "{package} {version} is yanked from the index: it is used only because "
                "it was pinned exactly."
            ),
            package=opt.package,
            version=opt.version,
        )
    ]


def _python_reason(f: Factory, opt: TfOption, python: Optional[Version]) -> Sentence:
    if python is None:
        return said("python-unconstrained", _("Python: not constrained."))
    if f.target.python is not None:
        if "python" in f.target.detected:
            template = _("Python {python}: detected; TensorFlow {version} has wheels for it.")
        else:
            template = _("Python {python}: given; TensorFlow {version} has wheels for it.")
        return said("python", template, python=python, version=opt.version)
    return said(
        "python",
        _("Python {python}: the newest Python TensorFlow {version} has wheels for here."),
        python=python,
        version=opt.version,
    )


def _cuda_reasons(
    f: Factory,
    opt: TfOption,
    cuda: Optional[Version],
    cudnn: Optional[Version],
    floor: Optional[Version],
    rule: str,
) -> list[Sentence]:
    cb = opt.build.for_machine(f.target.os) if opt.build else None
    values = {
        "cuda": cuda or _("unknown"),
        "cudnn": cudnn or _("unknown"),
        "version": opt.version,
    }
    if cb and not (_same_series(cuda, cb.cuda) and _same_series(cudnn, cb.cudnn)):
        # --cuda-libs newest's wheels, an image's own cuDNN: not what the build was made with
        built = said(
            "cuda-installed",
            _(
                "CUDA {cuda} and cuDNN {cudnn}: what the plan installs; TensorFlow "
                "{version} was built and tested with CUDA {built_cuda} and cuDNN {built_cudnn} "
                "(source: {source})."
            ),
            built_cuda=cb.cuda or _("unknown"),
            built_cudnn=cb.cudnn or _("unknown"),
            source=cb.provenance.sources[0],
            **values,
        )
    elif cb:
        built = said(
            "cuda-build",
            _(
                "CUDA {cuda} and cuDNN {cudnn}: what TensorFlow {version} was built and tested "
                "with (source: {source})."
            ),
            source=cb.provenance.sources[0],
            **values,
        )
    else:
        built = said(
            "cuda-build",
            _(
                "CUDA {cuda} and cuDNN {cudnn}: what TensorFlow {version} was built and tested "
                "with."
            ),
            **values,
        )
    out = [built]
    if floor is not None:
        why = (
            _("{rule} (WSL2 uses the Windows driver)").format(rule=rule)
            if f.target.system.is_wsl2
            else rule
        )
        if f.target.driver:
            out.append(
                said(
                    "driver-floor",
                    _("Driver >= {floor}: {why}; this machine has {driver}."),
                    floor=floor,
                    why=why,
                    driver=f.target.driver,
                )
            )
        else:
            out.append(said("driver-floor", _("Driver >= {floor}: {why}."), floor=floor, why=why))
    return out


def _same_series(a: Optional[Version], b: Optional[Version]) -> bool:
    """Whether two versions are one major.minor series (an unknown side: not compared)."""
    return a is None or b is None or a.release[:2] == b.release[:2]


def _jit(f: Factory, opt: TfOption) -> tuple[Optional[Version], str, Optional[GpuCode]]:
    if opt.build is None or f.target.cc is None:
        return None, "", None
    return jit_floor(f.context, opt.build, f.target.cc)


def _gpu_reason(f: Factory, code: Optional[GpuCode]) -> Sentence:
    name = f.target.gpu_name or _("The GPU")
    if code is None:
        return said("gpu-code", _("{gpu}: no GPU code information."), gpu=name)
    if code.verdict == "partly-jit":
        return said(
            "gpu-code",
            _(
                "{gpu} (compute capability {cc}) runs {code} (compiled once, then cached in "
                "{cache})."
            ),
            gpu=name,
            cc=f.target.cc,
            code=code.text(),
            cache=_jit_cache(f),
            verdict=code.verdict,
        )
    return said(
        "gpu-code",
        _("{gpu} (compute capability {cc}) runs TensorFlow's kernels {code}."),
        gpu=name,
        cc=f.target.cc,
        code=code.text(),
        verdict=code.verdict,
    )


def _cuda_warnings(
    f: Factory,
    cuda: Optional[Version],
    floor: Optional[Version],
    code: Optional[GpuCode],
    cudnn: Optional[Version] = None,
) -> list[Sentence]:
    out: list[Sentence] = []
    t = f.target
    if t.driver is None and floor is not None:
        out.append(
            said(
                "driver-unknown",
                _("The driver version is not known: this plan needs an NVIDIA driver >= {floor}."),
                floor=floor,
            )
        )
    toolkit = f.kb.cuda.toolkit(cuda) if cuda else None
    own = toolkit.min_driver(t.driver_os) if toolkit and t.driver_os else None
    if t.driver is not None and own is not None and t.driver < own:
        out.append(_below_toolkit(f, cuda, own, code))
    if code is not None and code.verdict == "jit":
        out.append(
            said(
                "ptx-jit",
                _(
                    "No native code for compute capability {cc}: kernels are JIT-compiled from "
                    "PTX on first use (slow first start, cached afterwards in {cache})."
                ),
                cc=t.cc,
                cache=_jit_cache(f),
            )
        )
    if (
        toolkit is not None
        and toolkit.cc_max is not None
        and t.cc is not None
        and t.cc > toolkit.cc_max
    ):
        out.append(
            said(
                "cuda-predates-gpu",
                _(
                    "CUDA {cuda} predates compute capability {cc} (it targets up to {highest}): "
                    "its libraries run on this GPU only through PTX JIT, if at all."
                ),
                cuda=cuda,
                cc=t.cc,
                highest=toolkit.cc_max,
            )
        )
        alternative = newer_cuda_image(f.kb, t, f.request)
        if alternative is not None:
            out.append(coded("newer-image", alternative))
    out += _cudnn_forward(f, cuda, cudnn)
    return out


#: where XLA decides how to link what its ptxas compiled: a ptxas newer than the driver
#: makes it compile without parallelism (a warning, not a failure)
#: the ``outcome`` param of a driver-below-toolkit warning: the plan runs on this driver
#: (native code or PTX it JIT-compiles; only XLA compiles without parallelism), or kernels
#: that need the toolkit's own driver may fail to load
RUNS_SLOWER, MAY_FAIL = "slower", "may-fail"
XLA_PTXAS_SOURCE = (
    "openxla/xla xla/service/gpu/nvptx_compiler.cc (ChooseLinkingMethod: 'Because the driver "
    "is older than the ptxas version, XLA is disabling parallel compilation')"
)


def _below_toolkit(
    f: Factory, cuda: Optional[Version], own: DriverVersion, code: Optional[GpuCode]
) -> Sentence:
    """The driver is below the plan's CUDA's own minimum: what that means here, from the
    same fact the plan's reasons use (the PTX ISA this GPU JIT-compiles, and the driver
    that ISA needs: :meth:`tfenv.kb.cuda.CudaFacts.jit_floor`); the general warning only
    where how the GPU runs the kernels is not known. Where no driver that new supports the
    GPU (its architecture's last branch), the sentence says so instead of advising one."""
    t = f.target
    isa = code.jit_isa if code is not None and code.loads else None
    jit, why = f.kb.cuda.jit_floor(isa, t.driver_os or "linux") if isa else (None, "")
    assert t.driver is not None
    limit = branch_limit(f.kb, t.cc, own, t.gpu_name) if t.has_nvidia_gpu else None
    values = {"driver": t.driver, "cuda": cuda, "own": own, "limit": limit}
    if code is not None and code.verdict == "native":
        return said(
            "driver-below-toolkit",
            _(
                "Driver {driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
                "through minor-version compatibility, and this GPU runs the kernels natively "
                "(no PTX JIT). XLA's ptxas (CUDA {cuda}) is newer than the driver, so XLA "
                "compiles without parallelism: slower, not failing; {limit} (source: {source})."
            )
            if limit
            else _(
                "Driver {driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
                "through minor-version compatibility, and this GPU runs the kernels natively "
                "(no PTX JIT). XLA's ptxas (CUDA {cuda}) is newer than the driver, so XLA "
                "compiles without parallelism: slower, not failing (source: {source})."
            ),
            **values,
            source=XLA_PTXAS_SOURCE,
            outcome=RUNS_SLOWER,
        )
    if isa is not None and jit is not None and t.driver >= jit:
        return said(
            "driver-below-toolkit",
            _(
                "Driver {driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
                "through minor-version compatibility. The PTX this GPU JIT-compiles is of ISA "
                "{isa}, which needs a driver >= {jit} ({why}): this driver JIT-compiles it. "
                "XLA's ptxas (CUDA {cuda}) is newer than the driver, so XLA compiles without "
                "parallelism: slower, not failing; {limit} (source: {source})."
            )
            if limit
            else _(
                "Driver {driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
                "through minor-version compatibility. The PTX this GPU JIT-compiles is of ISA "
                "{isa}, which needs a driver >= {jit} ({why}): this driver JIT-compiles it. "
                "XLA's ptxas (CUDA {cuda}) is newer than the driver, so XLA compiles without "
                "parallelism: slower, not failing (source: {source})."
            ),
            **values,
            isa=isa,
            jit=jit,
            why=why,
            source=XLA_PTXAS_SOURCE,
            outcome=RUNS_SLOWER,
        )
    return said(
        "driver-below-toolkit",
        _(
            "Driver {driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
            "through minor-version compatibility, but PTX JIT and a newer ptxas (XLA) "
            "need a driver >= {own}; {limit}, so kernels that need them may fail to "
            "load here."
        )
        if limit
        else _(
            "Driver {driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
            "through minor-version compatibility, but PTX JIT and a newer ptxas (XLA) "
            "need a driver >= {own}; upgrade the driver if kernels fail to load."
        ),
        **values,
        outcome=MAY_FAIL,
    )


def _cudnn_forward(f: Factory, cuda: Optional[Version], cudnn: Optional[Version]) -> list[Sentence]:
    """How the plan's cuDNN runs on the GPU (:func:`tfenv.rules.cudnn_arch.cudnn_on_gpu`):
    natively (nothing to say), by PTX JIT in its hardware forward-compatibility mode, not
    at all (then a later cuDNN of the major that lists the GPU is the way out), or not
    established."""
    fc, cc = f.kb.cudnn.forward_compat, f.target.cc
    if fc is None or cuda is None or cudnn is None or cc is None or not f.target.has_nvidia_gpu:
        return []
    found = cudnn_on_gpu(f.kb, cudnn, cuda, cc)
    if found is None or found.verdict == "native":
        return []
    source = fc.provenance.sources[0].split(" ", 1)[0]
    if found.verdict == "jit":
        config = f"CUDNN_LIB_CONFIG={fc.lib_config}"
        if fc.lib_config_default:
            config = _("{setting} (the default)").format(setting=config)
        return [
            said(
                "cudnn-forward",
                _(
                    "cuDNN {cudnn} runs on this GPU in its hardware forward-compatibility mode "
                    "(PTX JIT; cuDNN {since} and later on CUDA {major}+, with {config}; "
                    "some graph patterns excluded) ({source})."
                ),
                cudnn=cudnn,
                since=fc.since,
                major=fc.cuda_major_min,
                config=config,
                source=source,
                forward="yes",
            )
        ]
    if found.verdict == "unknown":
        template = (
            _(
                "Whether cuDNN {cudnn}'s build for CUDA {cuda} has native code for compute "
                "capability {cc} is not established (its support matrix was not read); if it "
                "has none, cuDNN runs it in its hardware forward-compatibility mode (PTX JIT)."
            )
            if fc.covers(found.cudnn, cuda)
            else _(
                "Whether cuDNN {cudnn}'s build for CUDA {cuda} has native code for compute "
                "capability {cc} is not established (its support matrix was not read); if it "
                "has none, cuDNN operations cannot run here (cuDNN {cudnn} is not hardware "
                "forward compatible)."
            )
        )
        return [said("cudnn-unknown", template, cudnn=found.cudnn, cuda=cuda, cc=cc)]
    if found.newer is not None:
        return [
            said(
                "cudnn-newer",
                _(
                    "cuDNN {cudnn} has no code for compute capability {cc} ({limit}) and is not "
                    "hardware forward compatible (that starts with cuDNN {since} on CUDA "
                    "{major}+): install cuDNN {newer} or later for CUDA {cuda_major}.x, which "
                    "lists this GPU (a later cuDNN {cudnn_major}.x runs a TensorFlow built with "
                    "{cudnn}) ({source})."
                ),
                cudnn=found.cudnn,
                cc=cc,
                limit=_limit(found),
                since=fc.since,
                major=fc.cuda_major_min,
                newer=found.newer,
                cuda_major=cuda.major,
                cudnn_major=found.cudnn.major,
                source=source,
            )
        ]
    return [
        said(
            "cudnn-forward",
            _(
                "cuDNN {cudnn} is not hardware forward compatible (that starts with cuDNN {since} "
                "on CUDA {major}+): NVIDIA does not support it on GPUs newer than its "
                "native list, so convolutions and other cuDNN operations may fail here ({source})."
            ),
            cudnn=found.cudnn,
            since=fc.since,
            major=fc.cuda_major_min,
            source=source,
            forward="no",
        )
    ]


def _later_reason(f: Factory, found: CudnnOnGpu) -> Sentence:
    """Why the plan installs a later cuDNN than TensorFlow was built with."""
    fc = f.kb.cudnn.forward_compat
    return said(
        "cudnn-later",
        _(
            "cuDNN {newer} instead of {cudnn}: cuDNN {cudnn} has no code for compute capability "
            "{cc} ({limit}) and is not hardware forward compatible; cuDNN {newer} for CUDA "
            "{cuda_major}.x lists this GPU, and a later cuDNN {cudnn_major}.x runs a TensorFlow "
            "built with {cudnn} ({source})."
        ),
        newer=found.newer,
        cudnn=found.cudnn,
        cc=found.cc,
        limit=_limit(found),
        cuda_major=found.cuda.major,
        cudnn_major=found.cudnn.major,
        source=fc.provenance.sources[0].split(" ", 1)[0] if fc is not None else "",
    )


def _limit(found: CudnnOnGpu) -> str:
    """ "its support matrix lists up to 8.6" or "CUDA 11.2 targets up to 8.6"."""
    if found.by_cuda:
        return _("CUDA {cuda} targets up to {highest}").format(
            cuda=found.cuda, highest=found.highest
        )
    return _("its support matrix lists up to {highest}").format(highest=found.highest)


def _route_not_taken(f: Factory, opt: TfOption, taken: str) -> list[Sentence]:
    """Say why the route the TensorFlow docs recommend was not used, when it was not."""
    wanted = routes.recommended(f.kb, opt.version, f.target)
    allowed = {r.name for r in routes.for_manager(f.request.manager)}
    if not wanted or wanted[0] == taken or wanted[0] not in allowed:
        return []
    problem = routes.route(wanted[0]).problem(f.where, opt, "cuda")
    if problem:
        return [
            said(
                "route-not-taken",
                _("Route {route} (what the TensorFlow docs recommend) is not possible: {problem}."),
                route=wanted[0],
                problem=problem,
            )
        ]
    return [
        said(
            "route-not-taken",
            _("Route {route} (what the TensorFlow docs recommend) does not fit here."),
            route=wanted[0],
        )
    ]


def _jit_cache(f: Factory) -> str:
    """Where the driver caches JIT-compiled kernels on the target (Windows: under %APPDATA%)."""
    return f.kb.windows_manual.jit_cache(f.target.system)
