"""All doctor checks: the installed TensorFlow against the machine and the knowledge base."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from packaging.version import InvalidVersion, Version

from tfenv.doctor import libs
from tfenv.doctor.cuda_libs import check_libraries, check_pins
from tfenv.doctor.env import TargetEnv
from tfenv.doctor.findings import Finding, Status
from tfenv.doctor.runtime import check_runtime, check_tensorboard, pip_line
from tfenv.doctor.windows_dlls import check_windows_dlls
from tfenv.doctor.xla import CUDA_HOME, check_xla
from tfenv.i18n import _, ngettext
from tfenv.kb.index import CPU_DISTRIBUTIONS, TF_DISTRIBUTIONS
from tfenv.kb.releases import build_of
from tfenv.models.platform import os_title, platform_of, system
from tfenv.models.sentence import Sentence, said
from tfenv.rules.gpu_code import describe_caps, gpu_code
from tfenv.shells import command

if TYPE_CHECKING:
    from tfenv.host.profile import GpuInfo, HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.index import WheelSet
    from tfenv.kb.tensorflow import TfBuild
    from tfenv.models.platform import DriverOs
    from tfenv.models.target import Target

__all__ = [
    "Finding",
    "Inputs",
    "Status",
    "TfInstall",
    "diagnose",
    "installed_tensorflow",
    "profile_of",
]

#: the pip distributions that carry TensorFlow itself (and nightly builds), most telling first
TF_PACKAGES = (*TF_DISTRIBUTIONS, "tf-nightly")
# the known issue (data/tensorflow/known_issues.yaml) of releases that do not look in
# site-packages/nvidia/*/lib although their and-cuda extra installs the libraries there
PIP_LIBS_NOT_FOUND = "pip-cuda-libs-not-found"


@dataclass(frozen=True)
class TfInstall:
    package: str
    version: Version
    source: str  # "pip" or "conda"


@dataclass(frozen=True)
class Inputs:
    env: TargetEnv
    host: HostProfile
    kb: KnowledgeBase
    environ: Mapping[str, str]
    system_dirs: Sequence[str] = libs.SYSTEM_DIRS
    ld_conf: Path = field(default=Path("/etc/ld.so.conf.d"))
    load_libraries: bool = True
    cuda_home: Path = CUDA_HOME  # the CUDA folder XLA falls back to
    given: bool = False  # host is the machine --host or the flags describe, not this one


def installed_tensorflow(env: TargetEnv) -> Optional[TfInstall]:
    for name in TF_PACKAGES:
        dist = env.dist(name)
        if dist is not None:
            try:
                return TfInstall(name, Version(dist.version), "pip")
            except InvalidVersion:
                continue
    for name in ("tensorflow", "tensorflow-base", "tensorflow-gpu"):
        rec = env.conda_package(name)
        if rec is not None:
            return TfInstall("tensorflow", Version(rec.version.split("+")[0]), "conda")
    return None


def profile_of(kb: KnowledgeBase, target: Target, python: Optional[str]) -> HostProfile:
    """The machine a :class:`Target` describes, as doctor checks against it (the environment
    brings its own Python)."""
    from tfenv.host.profile import GpuInfo, HostNote, HostProfile

    gpus: tuple[GpuInfo, ...] = ()
    if target.cc is not None:
        name = target.gpu_name or _("a GPU of compute capability {cc}").format(cc=target.cc)
        gpus = (GpuInfo(0, name, target.cc, "given"),)
    py = Version(python) if python else (target.python or Version("3"))
    driver = target.driver
    return HostProfile(
        os=target.os,
        arch=target.arch,
        python=py,
        glibc=target.glibc,
        driver=str(driver) if driver is not None else None,
        driver_cuda=kb.cuda.max_cuda_for_driver(driver) if driver is not None else None,
        gpus=gpus,
        notes=tuple(HostNote(n) for n in target.notes),  # the target's, already current
    )


def diagnose(inp: Inputs) -> list[Finding]:
    """Every finding, in the order a reader wants them."""
    findings = [_python_finding(inp)]
    if inp.given:
        findings.append(_machine_finding(inp.host))
    tf = installed_tensorflow(inp.env)
    if tf is None:
        findings.append(
            Finding(
                "tensorflow",
                "problem",
                said("tensorflow-missing", _("TensorFlow is not installed in this environment")),
                said(
                    "tensorflow-missing-where",
                    _("No tensorflow distribution in {env}."),
                    env=_where(inp.env),
                ),
                said(
                    "fix-install-tensorflow",
                    _("{command} (run `tfenv resolve` first to pick a version)"),
                    command=pip_line(inp.env, ["install", "tensorflow"], fix_os(inp)),
                ),
            )
        )
        findings += check_tensorboard(inp.kb, inp.env, fix_os(inp))
        return [*findings, _gpu_summary(inp.host), *_env_findings(inp.environ, fix_os(inp))]
    build = build_of(inp.kb, tf.version)
    found = platform_of(inp.host.os, inp.host.arch)
    platform = found.key if found else None
    gpu_build = (
        build is not None
        and platform in build.gpu_platforms
        and tf.package not in CPU_DISTRIBUTIONS
    )
    findings.append(_tf_finding(tf, build, platform, gpu_build, inp.host))
    findings += check_runtime(inp.kb, inp.env, tf.version, fix_os(inp))
    findings += check_tensorboard(inp.kb, inp.env, fix_os(inp))
    findings.append(_gpu_summary(inp.host))
    if gpu_build and build is not None and inp.host.has_gpu:
        findings += _gpu_checks(inp, tf, build, platform)
    findings += _env_findings(inp.environ, fix_os(inp))
    return findings


def fix_os(inp: Inputs) -> str:
    """The system whose shell the fixes are written for: the environment's own layout
    (a native Windows one: ``Scripts\\python.exe``), else the machine's."""
    return inp.env.shell_os or inp.host.os


def _machine_finding(host: HostProfile) -> Finding:
    gpus = _("; ").join(
        _("{name} (compute capability {cc})").format(name=g.name, cc=g.compute_capability)
        for g in host.gpus
    )
    if host.driver:
        code, title = (
            "machine-given-driver",
            _("Checked for the machine given: {os} {arch}, {value}, driver {driver}"),
        )
    else:
        code, title = "machine-given", _("Checked for the machine given: {os} {arch}, {value}")
    return Finding(
        "machine",
        "ok",
        said(
            code,
            title,
            os=os_title(host.os),
            arch=host.arch,
            value=gpus or _("no NVIDIA GPU"),
            driver=host.driver,
        ),
        said(
            "machine-given-scope",
            _(
                "The pin, library, driver and GPU checks are for that machine; the libraries "
                "are found (and loaded) here."
            ),
        ),
    )


def _where(env: TargetEnv) -> str:
    return ", ".join(map(str, env.site_packages)) or str(env.prefix)


def _python_finding(inp: Inputs) -> Finding:
    where = inp.env.interpreter or str(inp.env.prefix)
    if inp.env.is_conda:
        if inp.env.python:
            title = said(
                "environment-conda", _("Python {python} conda environment"), python=inp.env.python
            )
        else:
            title = said(
                "environment-conda-unknown", _("Python (version unknown) conda environment")
            )
    elif inp.env.python:
        title = said("environment", _("Python {python} environment"), python=inp.env.python)
    else:
        title = said("environment-unknown", _("Python (version unknown) environment"))
    return Finding("environment", "ok", title, said("environment-where", "{path}", path=where))


def _tf_finding(
    tf: TfInstall,
    build: Optional[TfBuild],
    platform: Optional[str],
    gpu_build: bool,
    host: HostProfile,
) -> Finding:
    label = f"{tf.package} {tf.version} ({tf.source})"
    if build is None:
        return Finding(
            "tensorflow",
            "warning",
            said(
                "tensorflow-unknown-series",
                _("{label}: a series tfenv has no build facts for"),
                label=label,
            ),
        )
    cb = build.for_machine(host.os)
    if gpu_build and cb is not None:
        return Finding(
            "tensorflow",
            "ok",
            said(
                "tensorflow-cuda-build",
                _("{label}: a CUDA build on {platform}"),
                label=label,
                platform=platform,
            ),
            said(
                "tensorflow-built-with",
                _("built with CUDA {cuda}, cuDNN {cudnn}"),
                cuda=cb.cuda,
                cudnn=cb.cudnn,
            ),
        )
    if not host.has_gpu:
        return Finding(
            "tensorflow",
            "ok",
            said("tensorflow-cpu", _("{label}: runs on the CPU here"), label=label),
        )
    where = platform or _("{os}/{arch}, a machine TensorFlow publishes no wheels for").format(
        os=os_title(host.os), arch=host.arch
    )
    if system(host.os).is_windows:
        fix = said(
            "fix-use-wsl2",
            _("use WSL2 and {command}"),
            command=command(["pip", "install", "tensorflow[and-cuda]"], "posix"),
        )
    else:
        fix = said(
            "fix-cuda-build",
            _(
                "uninstall {package}, then install the CUDA build that `tfenv resolve` plans for "
                "this machine (its Install lines)"
            ),
            package=tf.package,
        )
    return Finding(
        "tensorflow",
        "warning",
        said(
            "tensorflow-not-cuda",
            _("{label} is not a CUDA build on {where}; the GPU will not be used"),
            label=label,
            where=where,
        ),
        said(
            "tensorflow-cuda-platforms",
            _("CUDA builds of {series}: {value}"),
            series=build.series,
            value=", ".join(sorted(build.gpu_platforms)) or _("none"),
        ),
        fix,
    )


def _gpu_summary(host: HostProfile) -> Finding:
    if not host.has_gpu:
        return Finding(
            "gpu",
            "ok",
            said(
                "gpu-none",
                _("No NVIDIA GPU found: TensorFlow will run on the CPU; GPU checks skipped"),
            ),
            said(
                "gpu-none-how",
                _(
                    "To check this environment for a GPU machine (one built on a CI runner or in a "
                    "Docker build), give --host FILE (from `tfenv detect --json` there) or --gpu "
                    "NAME --driver VERSION."
                ),
            ),
        )
    names = _("; ").join(
        _("{name} (compute capability {cc})").format(name=g.name, cc=g.compute_capability or "?")
        for g in host.gpus
    )
    return Finding(
        "gpu",
        "ok",
        said(
            "gpus",
            ngettext("{count} NVIDIA GPU", "{count} NVIDIA GPUs", len(host.gpus)),
            count=len(host.gpus),
        ),
        said(
            "gpus-detail",
            _("{names}; driver {value}"),
            names=names,
            value=host.driver or _("unknown"),
            driver=host.driver,
        ),
    )


def _gpu_checks(
    inp: Inputs, tf: TfInstall, build: TfBuild, platform: Optional[str]
) -> list[Finding]:
    here = system(inp.host.os)
    cb = build.cuda_build(here.build_os or "linux")
    cuda = cb.cuda if cb else None
    out: list[Finding] = []
    if cuda is not None:
        out.append(_driver_finding(inp, cuda, here.build_os or "linux"))
    cache = inp.kb.windows_manual.jit_cache(here)
    out += [_compute_finding(g, build, cache) for g in inp.host.gpus]
    ws = _wheelset(inp, tf, platform)
    pins = (ws.and_cuda or ()) if ws is not None else ()
    if pins:
        out += check_pins(inp.env, inp.kb, ws, inp.env.python or "", f"{tf.package} {tf.version}",
                          inp.host)  # fmt: skip
    dlls = (
        check_windows_dlls(
            inp.environ,
            inp.kb,
            tf.version,
            cuda,
            cb.cudnn if cb else None,
            inp.env.prefix if inp.env.is_conda else None,
        )
        if here.is_windows
        else None
    )
    out += (
        dlls
        if dlls is not None
        else check_libraries(
            inp.env,
            windows=here.is_windows,
            environ=inp.environ,
            cuda=cuda,
            cudnn=cb.cudnn if cb else None,
            pip_on_path=_finds_pip_libraries(inp, tf, pins, platform),
            conda_on_path=tf.source == "conda",
            system_dirs=inp.system_dirs,
            ld_conf=inp.ld_conf,
            load=inp.load_libraries,
            tf_label=f"{tf.package}=={tf.version}",
        )
    )
    if not here.is_windows:  # Linux's build (WSL2's too)
        out += check_xla(
            inp.environ,
            inp.env.site_packages,
            inp.host.driver_cuda,
            inp.cuda_home,
            xla=inp.kb.and_cuda.xla,
            tf=tf.version,
            build_cuda=cuda,
            need=_ptxas_need(inp),
        )
    return out


def _ptxas_need(inp: Inputs) -> Optional[tuple[Version, Version]]:
    """The newest GPU's compute capability and the first CUDA whose ptxas compiles for it."""
    ccs = [g.compute_capability for g in inp.host.gpus if g.compute_capability is not None]
    if not ccs:
        return None
    cc = max(ccs)
    first = inp.kb.cuda.first_for(cc)
    return (cc, first) if first is not None else None


def _finds_pip_libraries(
    inp: Inputs, tf: TfInstall, pins: tuple[str, ...], platform: Optional[str]
) -> bool:
    """Whether this TensorFlow looks in the nvidia-* wheels' folders: releases with an
    and-cuda extra do, except those with the known issue saying they do not."""
    if tf.source != "pip" or not pins:
        return False
    return not any(
        i.id == PIP_LIBS_NOT_FOUND and i.matches(tf.version, platform, tf.package)
        for i in inp.kb.known_issues
    )


def _wheelset(inp: Inputs, tf: TfInstall, platform: Optional[str]) -> Optional[WheelSet]:
    if platform is None or tf.source != "pip":
        return None
    release = inp.kb.index.release("tensorflow", tf.version)
    return release.wheelset(platform, inp.env.python) if release is not None else None


def _driver_finding(inp: Inputs, cuda: Version, build_os: DriverOs) -> Finding:
    floor, why = inp.kb.cuda.driver_floor(cuda, build_os)
    have = inp.host.driver_version
    if have is None:
        return Finding(
            "driver",
            "problem",
            said("driver-missing", _("No NVIDIA driver version found")),
            said("driver-missing-why", _("CUDA {cuda} needs one. {why}."), cuda=cuda, why=why),
            said("fix-install-driver", _("install the NVIDIA driver; `nvidia-smi` must work")),
        )
    if floor is None:
        return Finding(
            "driver",
            "warning",
            said(
                "driver-floor-unknown",
                _("Driver {have}: the floor for CUDA {cuda} is not known"),
                have=have,
                cuda=cuda,
            ),
            said("driver-why", "{why}", why=why),
        )
    if have < floor:
        from tfenv.rules.driver import branch_limit

        limits = [
            branch_limit(inp.kb, g.compute_capability, floor, g.name)
            for g in inp.host.gpus
            if g.compute_capability is not None
        ]
        limit = next((x for x in limits if x), None)
        fix = said(
            "fix-update-driver", _("update the NVIDIA driver to {floor} or newer"), floor=floor
        )
        if limit:  # advice that cannot be followed is not given
            fix = said(
                "fix-driver-branch-limit",
                _("{limit}: install a TensorFlow release whose CUDA runs on driver {have}"),
                limit=limit,
                have=have,
            )
        return Finding(
            "driver",
            "problem",
            said(
                "driver-too-old",
                _("Driver {have} is older than {floor}, which CUDA {cuda} needs"),
                have=have,
                floor=floor,
                cuda=cuda,
            ),
            said("driver-why", "{why}", why=why),
            fix,
        )
    return Finding(
        "driver",
        "ok",
        said(
            "driver-ok",
            _("Driver {have} runs CUDA {cuda} (needs {floor})"),
            have=have,
            cuda=cuda,
            floor=floor,
        ),
        said("driver-why", "{why}", why=why),
    )


def _compute_finding(gpu: GpuInfo, build: TfBuild, cache: str) -> Finding:
    fid = f"compute-gpu{gpu.index}"
    cc = gpu.compute_capability
    if cc is None or build.compute is None:
        return Finding(
            fid,
            "warning",
            said(
                "compute-unknown",
                _("{name}: compute capability or build archs unknown"),
                name=gpu.name,
            ),
        )
    code = gpu_code(cc, build.compute)
    built = describe_caps(build.compute)
    name = _("{name} (compute capability {cc})").format(name=gpu.name, cc=cc)
    if code.verdict == "cannot-load":
        return Finding(
            fid,
            "problem",
            said(
                "compute-cannot-load",
                _("{name}: TensorFlow {series}'s kernels cannot load on it"),
                name=name,
                series=build.series,
                gpu=gpu.name,
                cc=cc,
            ),
            said(
                "compute-cannot-load-detail",
                _("It runs them {value}. Built: {built}"),
                value=code.text(),
                built=built,
            ),
            said(
                "fix-release-loads",
                _("use a release whose wheels load on this GPU (`tfenv resolve`)"),
            ),
        )
    if code.verdict == "jit":
        return Finding(
            fid,
            "warning",
            said(
                "compute-jit",
                _("{name} runs TensorFlow {series}'s kernels {value}"),
                name=name,
                series=build.series,
                gpu=gpu.name,
                cc=cc,
                value=code.text(),
            ),
            said(
                "compute-jit-detail",
                _(
                    "{built}; no native code for this GPU: the first run of each kernel is slow "
                    "(compiled once, then cached in {cache})"
                ),
                built=built,
                cache=cache,
            ),
            said(
                "fix-release-native",
                _("use a release with native code for this GPU (`tfenv resolve`)"),
            ),
        )
    if code.verdict == "partly-jit":  # the value names each kind of kernel itself
        said_code, summary = "compute-partly-jit", _("{name} runs TensorFlow {series}: {value}")
    else:
        said_code, summary = (
            "compute-native",
            _("{name} runs TensorFlow {series}'s kernels {value}"),
        )
    return Finding(
        fid,
        "ok",
        said(
            said_code,
            summary,
            name=name,
            series=build.series,
            value=code.text(),
            gpu=gpu.name,
            cc=cc,
        ),
        said("compute-built", "{built}", built=built),
    )


def _unset_cvd(os: str) -> Sentence:
    """How to unset CUDA_VISIBLE_DEVICES in the shells of ``os`` (cmd.exe and PowerShell
    have no one form for it)."""
    from tfenv.shells import set_variable, shell_for

    if shell_for(os) == "posix":
        return said("fix-unset-cvd", _("unset CUDA_VISIBLE_DEVICES"))
    return said(
        "fix-unset-cvd-windows",
        _("cmd.exe: {cmd}; PowerShell: {powershell}"),
        cmd=set_variable("CUDA_VISIBLE_DEVICES", "", "cmd"),
        powershell=set_variable("CUDA_VISIBLE_DEVICES", "", "powershell"),
    )


def _env_findings(environ: Mapping[str, str], os: str = "linux") -> list[Finding]:
    out = []
    cvd = environ.get("CUDA_VISIBLE_DEVICES")
    if cvd is not None and cvd.strip() in ("", "-1"):
        out.append(
            Finding(
                "env-cuda-visible-devices",
                "warning",
                said("env-cvd-hides", _("CUDA_VISIBLE_DEVICES={cvd!r} hides every GPU"), cvd=cvd),
                fix=_unset_cvd(os),
            )
        )
    shown = [f"{k}={environ[k]}" for k in _ENV_VARS if k in environ]
    out.append(
        Finding(
            "env",
            "ok",
            said("env", _("Environment variables that matter")),
            said("env-vars", "{vars}", vars="; ".join(shown))
            if shown
            else said("env-vars-none", _("none set")),
        )
    )
    return out


_ENV_VARS = (
    "CUDA_VISIBLE_DEVICES",
    "LD_LIBRARY_PATH",
    "CUDA_PATH",
    "XLA_FLAGS",
    "TF_CPP_MIN_LOG_LEVEL",
    "TF_CPP_MAX_VLOG_LEVEL",
    "TF_FORCE_GPU_ALLOW_GROWTH",
    "TF_USE_LEGACY_KERAS",
    "TF_ENABLE_ONEDNN_OPTS",
)
