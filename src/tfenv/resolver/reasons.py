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
from tfenv.models.plan import Plan, RuntimePin, excluded, verify_command
from tfenv.routes.container import newer_cuda_image
from tfenv.rules.driver import branch_limit
from tfenv.rules.gpu_code import GpuCode, jit_floor
from tfenv.rules.model import TfCandidate, VersionCandidate

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.releases import TfOption
    from tfenv.kb.runtime import RuntimeConstraint
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
    chosen = routes.Choice(
        opt,
        accel,
        python,
        _version(mapping, "cuda"),
        _version(mapping, "cudnn"),
        tuple(p.line for p in runtime),
    )
    got = route.deliver(f.where, chosen)
    cuda, cudnn = got.cuda, got.cudnn
    installed = (*got.packages.pip, *got.packages.conda)
    applied = tuple(p for p in runtime if p.line in installed)
    reasons, warnings = [_tf_reason(f, opt), *got.reasons], []
    reasons += [p.reason for p in applied]
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
                    f"Driver >= {jit}: this GPU runs some kernels by PTX JIT, and {jit_why}"
                    " (minor-version compatibility does not cover PTX JIT)."
                )
        warnings += _cuda_warnings(f, cuda, floor, code, cudnn)
    reasons.append(f"Route {route.name}: {route.why}.")
    if accel == "cuda":
        reasons += _route_not_taken(f, opt, route.name)
    warnings += _yanked(f, opt)
    warnings += [
        f"{i.text_for(f.target.cc)} ({i.provenance.sources[0]})"
        for i in opt.issues
        if i.concerns(route.name, f.target.cc if accel == "cuda" else None, got.python)
        and (i.remedy is None or i.remedy not in got.remedies)
    ]
    warnings += got.warnings
    warnings += _apple_gpu_unused(f, opt, accel, got.python)
    host: tuple[str, ...] = ()
    if route.in_image and got.image is not None:
        host = route.host_needs(f.where, floor)
        reasons.append("The host needs: " + "; ".join(host) + ".")
    elif (
        f.target.glibc is None
        and opt.wheels
        and opt.wheels.glibc
        and f.target.platform.is_linux
        and "glibc" not in route.waives(f.where, opt)  # conda-forge's build is not the wheel
    ):
        warnings.append(f"glibc not known: the wheels need glibc >= {opt.wheels.glibc}.")
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
    declared = c.declared or f"no bound on {c.package}"
    return (
        f"{c.line}: TensorFlow {version} declares {declared} but cannot import or run with "
        f"{excluded(c.package, c.requirement)}: {c.error.rstrip('.')} (measured: {c.evidence}; "
        f"{'; '.join(c.sources)}; retrieved {c.retrieved})."
    )


def _apple_gpu_unused(
    f: Factory, opt: TfOption, accel: str, python: Optional[Version]
) -> list[str]:
    """A CPU plan on Apple silicon that was not asked for: say why the GPU is not used."""
    if accel != "cpu" or f.target.platform.key != "macos_arm64" or f.request.no_gpu:
        return []
    from tfenv.kb.metal import no_metal_reason

    why = no_metal_reason(f.kb, opt.version, python)
    return [f"This plan does not use the Apple GPU: {why}."] if why else []


def _version(mapping: Mapping[str, Candidate], identifier: str) -> Optional[Version]:
    c = mapping.get(identifier)
    return c.version if isinstance(c, VersionCandidate) else None


def _tf_reason(f: Factory, opt: TfOption) -> str:
    text = f"TensorFlow {opt.version}: the newest release matching '{f.request.tf_text}' "
    text += "that fits this machine"
    newer_broken = {
        str(c.option.version)
        for c in f.candidates("tensorflow")
        if isinstance(c, TfCandidate)
        and c.option.broken
        and c.option.version > opt.version
        and f.request.tf.contains(c.option.version)
    }
    if newer_broken:
        text += f" (skipped as known-broken: {', '.join(sorted(newer_broken))})"
    return text + "."


def _yanked(f: Factory, opt: TfOption) -> list[str]:
    """PEP 592: a yanked release is used only when pinned exactly, and never silently."""
    if not opt.yanked:
        return []
    release = f.kb.index.release(opt.package, opt.version)
    why = f" ({release.yanked_reason})" if release and release.yanked_reason else ""
    return [
        f"{opt.package} {opt.version} is yanked from the index{why}: it is used only because "
        "it was pinned exactly."
    ]


def _python_reason(f: Factory, opt: TfOption, python: Optional[Version]) -> str:
    if python is None:
        return "Python: not constrained."
    if f.target.python is not None:
        how = "detected" if "python" in f.target.detected else "given"
        return f"Python {python}: {how}; TensorFlow {opt.version} has wheels for it."
    return f"Python {python}: the newest Python TensorFlow {opt.version} has wheels for here."


def _cuda_reasons(
    f: Factory,
    opt: TfOption,
    cuda: Optional[Version],
    cudnn: Optional[Version],
    floor: Optional[Version],
    rule: str,
) -> list[str]:
    cb = opt.build.for_machine(f.target.os) if opt.build else None
    src = f" (source: {cb.provenance.sources[0]})" if cb else ""
    out = [
        f"CUDA {cuda or 'unknown'} and cuDNN {cudnn or 'unknown'}: what TensorFlow "
        f"{opt.version} was built and tested with{src}."
    ]
    if floor is not None:
        have = f"; this machine has {f.target.driver}" if f.target.driver else ""
        wsl = " (WSL2 uses the Windows driver)" if f.target.system.is_wsl2 else ""
        out.append(f"Driver >= {floor}: {rule}{wsl}{have}.")
    return out


def _jit(f: Factory, opt: TfOption) -> tuple[Optional[Version], str, Optional[GpuCode]]:
    if opt.build is None or f.target.cc is None:
        return None, "", None
    return jit_floor(f.context, opt.build, f.target.cc)


def _gpu_reason(f: Factory, code: Optional[GpuCode]) -> str:
    name = f.target.gpu_name or "The GPU"
    if code is None:
        return f"{name}: no GPU code information."
    text = f"{name} (compute capability {f.target.cc}) runs "
    if code.verdict == "partly-jit":
        return text + f"{code.text()} (compiled once, then cached in {_jit_cache(f)})."
    return text + f"TensorFlow's kernels {code.text()}."


def _cuda_warnings(
    f: Factory,
    cuda: Optional[Version],
    floor: Optional[Version],
    code: Optional[GpuCode],
    cudnn: Optional[Version] = None,
) -> list[str]:
    out = []
    t = f.target
    if t.driver is None and floor is not None:
        out.append(f"The driver version is not known: this plan needs an NVIDIA driver >= {floor}.")
    toolkit = f.kb.cuda.toolkit(cuda) if cuda else None
    own = toolkit.min_driver(t.driver_os) if toolkit and t.driver_os else None
    if t.driver is not None and own is not None and t.driver < own:
        limit = branch_limit(f.kb, t.cc, own, t.gpu_name) if t.has_nvidia_gpu else None
        advice = (
            f"{limit}, so kernels that need them may fail to load here"
            if limit
            else "upgrade the driver if kernels fail to load"
        )
        out.append(
            f"Driver {t.driver} is older than CUDA {cuda}'s own minimum ({own}): it runs "
            "through minor-version compatibility, but PTX JIT and a newer ptxas (XLA) need a "
            f"driver >= {own}; {advice}."
        )
    if code is not None and code.verdict == "jit":
        out.append(
            f"No native code for compute capability {t.cc}: kernels are JIT-compiled from PTX on "
            f"first use (slow first start, cached afterwards in {_jit_cache(f)})."
        )
    if (
        toolkit is not None
        and toolkit.cc_max is not None
        and t.cc is not None
        and t.cc > toolkit.cc_max
    ):
        out.append(
            f"CUDA {cuda} predates compute capability {t.cc} (it targets up to {toolkit.cc_max}): "
            "its libraries run on this GPU only through PTX JIT, if at all."
        )
        out += _cudnn_forward(f, cuda, cudnn)
        alternative = newer_cuda_image(f.kb, t)
        if alternative is not None:
            out.append(alternative)
    return out


def _cudnn_forward(f: Factory, cuda: Optional[Version], cudnn: Optional[Version]) -> list[str]:
    """cuDNN on a GPU newer than its CUDA: forward compatible by PTX JIT (9.0+ on CUDA 12+)
    or not at all (8.x and before): NVIDIA's cuDNN hardware forward-compatibility page."""
    fc = f.kb.cudnn.forward_compat
    if fc is None or cuda is None or cudnn is None:
        return []
    source = fc.provenance.sources[0].split(" ", 1)[0]
    if fc.covers(cudnn, cuda):
        config = f"CUDNN_LIB_CONFIG={fc.lib_config}"
        config += " (the default)" if fc.lib_config_default else ""
        return [
            f"cuDNN {cudnn} runs on this GPU in its hardware forward-compatibility mode (PTX "
            f"JIT; cuDNN {fc.since} and later on CUDA {fc.cuda_major_min}+, with {config}; "
            f"some graph patterns excluded) ({source})."
        ]
    return [
        f"cuDNN {cudnn} is not hardware forward compatible (that starts with cuDNN {fc.since} "
        f"on CUDA {fc.cuda_major_min}+): NVIDIA does not support it on GPUs newer than its "
        f"native list, so convolutions and other cuDNN operations may fail here ({source})."
    ]


def _route_not_taken(f: Factory, opt: TfOption, taken: str) -> list[str]:
    """Say why the route the TensorFlow docs recommend was not used, when it was not."""
    wanted = routes.recommended(f.kb, opt.version, f.target)
    allowed = {r.name for r in routes.for_manager(f.request.manager)}
    if not wanted or wanted[0] == taken or wanted[0] not in allowed:
        return []
    problem = routes.route(wanted[0]).problem(f.where, opt, "cuda")
    if problem:
        return [
            f"Route {wanted[0]} (what the TensorFlow docs recommend) is not possible: {problem}."
        ]
    return [f"Route {wanted[0]} (what the TensorFlow docs recommend) does not fit here."]


def _jit_cache(f: Factory) -> str:
    """Where the driver caches JIT-compiled kernels on the target (Windows: under %APPDATA%)."""
    return f.kb.windows_manual.jit_cache(f.target.os)
