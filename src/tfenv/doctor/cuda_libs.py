"""Findings for the CUDA libraries and nvidia-* wheels a TensorFlow build needs."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfenv.doctor import libs
from tfenv.doctor.env import Distribution, TargetEnv
from tfenv.doctor.findings import ACTIVATE_FIX, Finding
from tfenv.doctor.runtime import pip_line
from tfenv.i18n import _
from tfenv.models.sentence import Sentence, said

if TYPE_CHECKING:
    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.cuda_wheels import WheelPin
    from tfenv.kb.index import WheelSet

__all__ = ["check_libraries", "check_pins", "wanted_name"]


def wanted_name(
    key: str, cuda: Optional[Version], cudnn: Optional[Version], windows: bool
) -> Optional[str]:
    """The file name a build asks for (only where it follows from the CUDA/cuDNN major)."""
    if key == "cudnn" and cudnn is not None:
        return f"cudnn64_{cudnn.major}.dll" if windows else f"libcudnn.so.{cudnn.major}"
    if cuda is None or key not in ("cudart", "cublas", "cublasLt"):
        return None
    if windows:  # TensorFlow's cuda_configure.bzl (nvidia/windows_manual.yaml, dlls)
        if key == "cudart":
            code = f"{cuda.major}" if cuda.major >= 12 else f"{cuda.major}{cuda.minor}"
            code = "110" if cuda.major == 11 else code
        else:  # cuBLAS: its own major from CUDA 10.1 (10 in 10.x, 11 in 11.x)
            code = f"{cuda.major}" if cuda >= Version("10.1") else f"{cuda.major}{cuda.minor}"
        return f"{key}64_{code}.dll"
    if cuda.major >= 12 or (key != "cudart" and cuda.major == 11):
        return f"lib{key}.so.{cuda.major}"
    return f"lib{key}.so.{cuda.major}.{0 if cuda.major == 11 else cuda.minor}"


def check_pins(
    env: TargetEnv,
    kb: KnowledgeBase,
    ws: Optional[WheelSet],
    python: str,
    tf_label: str,
    host: HostProfile,
) -> list[Finding]:
    """The nvidia-* wheels against what tfenv pins for this release (the versions it was built
    with, :func:`~tfenv.kb.cuda_wheels.cuda_wheels`), within the and-cuda extra's ranges and
    the caps the machine's GPU and driver set."""
    from tfenv.kb.cuda_wheels import cuda_wheels

    os = env.shell_os or host.os
    if ws is None or not ws.and_cuda:
        return []
    py = python if python and ws.serves(python) else next(iter(reversed(ws.pythons)), "")
    build = cuda_wheels(kb, ws, py, "build")
    if build is None:
        return []
    if build.problem is not None:
        return [
            Finding(
                "cuda-wheels",
                "warning",
                said(
                    "cuda-wheels-impossible",
                    _("tensorflow[and-cuda] cannot install here: {problem}"),
                    problem=build.problem,
                ),
            )
        ]
    installed = [d for d in env.distributions if d.name.startswith("nvidia-")]
    extra = tf_label.replace(" ", "[and-cuda]==")
    if not installed:
        return [
            Finding(
                "cuda-wheels",
                "warning",
                said("cuda-wheels-none", _("No nvidia-* CUDA wheels installed")),
                said(
                    "cuda-wheels-none-detail",
                    _(
                        "{tf_label} lists {len_pins} CUDA wheels in its and-cuda extra; without "
                        "them the CUDA libraries must come from a system CUDA/cuDNN install."
                    ),
                    tf_label=tf_label,
                    len_pins=len(build.pins),
                ),
                said(
                    "fix-pip-install-extra",
                    "{command}",
                    command=pip_line(env, ["install", extra], os),
                    value=extra,
                ),
            )
        ]
    cc = min((g.compute_capability for g in host.gpus if g.compute_capability), default=None)
    newest = cuda_wheels(kb, ws, py, "newest", cc, host.driver_version)
    caps = {p.name: p.version for p in newest.pins} if newest is not None else {}
    why = "; ".join(newest.caps) if newest is not None else ""
    out = [
        _pin_finding(
            env, pin, caps.get(pin.name), why, tf_label, kb.and_cuda.component(pin.name), os
        )
        for pin in build.pins
    ]
    if build.dropped:
        out.append(
            Finding(
                "cuda-wheels-optional",
                "ok",
                said(
                    "cuda-wheels-optional",
                    _("Optional and-cuda packages with no wheel here, left out: {names}"),
                    names=", ".join(build.dropped),
                ),
            )
        )
    return out


def _pin_finding(
    env: TargetEnv,
    pin: WheelPin,
    cap: Optional[Version],
    why: str,
    tf_label: str,
    component: Optional[str],
    os: str,
) -> Finding:
    fid = f"pin-{pin.name}"
    want = f"{pin.name}=={pin.version}"
    install_want = said(
        "fix-pip-install-pin", "{command}", command=pip_line(env, ["install", want], os), want=want
    )
    try:
        spec = Requirement(pin.requirement).specifier
    except InvalidRequirement:
        spec = SpecifierSet()
    built = said(
        "pin-wanted",
        _("wanted: {want}, what {tf_label} was built with (its and-cuda extra: {requirement})"),
        want=want,
        tf_label=tf_label,
        requirement=pin.requirement,
    )
    dist = env.dist(pin.name)
    if dist is None:
        return Finding(
            fid,
            "problem",
            said("pin-missing", _("{name} is missing"), name=pin.name),
            built,
            install_want,
        )
    try:
        have = Version(dist.version)
    except InvalidVersion:
        return Finding(
            fid,
            "problem",
            said(
                "pin-not-a-version",
                _("{name} {version} is not a version"),
                name=pin.name,
                version=dist.version,
            ),
            built,
        )
    if have == pin.version:
        return Finding(
            fid,
            "ok",
            said("pin-installed", "{name} {version}", name=pin.name, version=have),
            said("pin-exact", _("the version {tf_label} was built with"), tf_label=tf_label),
        )
    if not spec.contains(have, prereleases=True):
        return Finding(
            fid,
            "problem",
            said(
                "pin-mismatch",
                _("{name} {have} does not match {spec}"),
                name=pin.name,
                have=have,
                spec=spec,
            ),
            built,
            install_want,
        )
    if cap is not None and have > cap:
        bad = component == "cudnn"  # no cuDNN for the GPU: nothing runs
        return Finding(
            fid,
            "problem" if bad else "warning",
            said(
                "pin-too-new",
                _("{name} {have} is newer than this machine's GPU and driver run"),
                name=pin.name,
                have=have,
            ),
            said(
                "pin-too-new-why", _("{why}: {name} up to {cap}"), why=why, name=pin.name, cap=cap
            ),
            said(
                "fix-pip-install-cap",
                "{command}",
                command=pip_line(env, ["install", f"{pin.name}=={cap}"], os),
                name=pin.name,
                cap=cap,
            ),
        )
    return Finding(
        fid,
        "ok",
        said("pin-installed", "{name} {version}", name=pin.name, version=have),
        said(
            "pin-in-range",
            _(
                "within the and-cuda extra's range {spec}; tfenv pins {want}, the version "
                "{tf_label} was built with"
            ),
            spec=spec,
            want=want,
            tf_label=tf_label,
        ),
    )


def check_libraries(
    env: TargetEnv,
    *,
    windows: bool,
    environ: Mapping[str, str],
    cuda: Optional[Version],
    cudnn: Optional[Version],
    pip_on_path: bool,
    conda_on_path: bool,
    system_dirs: Sequence[str] = libs.SYSTEM_DIRS,
    ld_conf: Path = Path("/etc/ld.so.conf.d"),
    load: bool = True,
    tf_label: str = "tensorflow",
) -> list[Finding]:
    dirs = libs.search_dirs(
        windows=windows,
        env=environ,
        site_packages=env.site_packages,
        conda_prefix=env.prefix if env.is_conda else None,
        pip_on_path=pip_on_path,
        conda_on_path=conda_on_path,
        system_dirs=system_dirs,
        ld_conf=ld_conf,
    )
    keys = [k for k in libs.LIBRARIES if not (windows and k == "nccl")]
    reports = [
        libs.find(k, wanted_name(k, cuda, cudnn, windows), dirs, windows=windows) for k in keys
    ]
    if load:
        reports = libs.load(reports)
    os = env.shell_os or ("windows" if windows else "linux")
    return [_library_finding(r, env, tf_label, os) for r in reports]


def _library_finding(r: libs.LibraryReport, env: TargetEnv, tf_label: str, os: str) -> Finding:
    fid = f"lib-{r.key}"
    name = r.wanted or f"lib{r.key}"
    if r.path is None:
        seen = ", ".join(str(p) for p in r.others[:3])
        if seen:
            detail = said("lib-others-seen", _("other versions seen: {seen}"), seen=seen)
        else:
            detail = said("lib-not-found-anywhere", _("not found in any searched folder"))
        return Finding(
            fid,
            "problem",
            said("lib-not-found", _("{name} not found"), name=name),
            detail,
            _install_fix(r, env, tf_label, os),
        )
    if r.version:
        where = said(
            "lib-where-version",
            _("{path} ({origin}), version {version}"),
            path=r.path,
            origin=r.origin,
            version=r.version,
        )
    else:
        where = said("lib-where", "{path} ({origin})", path=r.path, origin=r.origin)
    if r.loaded is False:
        return Finding(
            fid,
            "problem",
            said("lib-cannot-load", _("{name} cannot be loaded"), name=name),
            said("lib-load-error", "{where}: {error}", where=where, error=r.error),
            _broken_fix(r, env, os),
        )
    if not r.on_path:
        return Finding(
            fid,
            "problem",
            said(
                "lib-not-on-path",
                _("{name} is installed but not where TensorFlow looks"),
                name=name,
            ),
            where,
            said("fix-activate", _(ACTIVATE_FIX), dir=r.path.parent),
        )
    if r.loaded:
        title = said("lib-loads", _("{name} found and loads"), name=name)
    else:
        title = said("lib-found", _("{name} found"), name=name)
    return Finding(fid, "ok", title, where)


def _install_fix(r: libs.LibraryReport, env: TargetEnv, tf_label: str, os: str) -> Sentence:
    name, _sep, version = tf_label.partition("==")
    extra = f"{name}[and-cuda]=={version}" if version else f"{name}[and-cuda]"
    return said(
        "fix-install-library",
        _(
            "install the library this TensorFlow pins ({command} brings {library}) and "
            "source activate-tfenv.sh from `tfenv resolve --emit DIR`"
        ),
        command=pip_line(env, ["install", extra], os),
        extra=extra,
        library=r.wanted or r.key,
    )


def _broken_fix(r: libs.LibraryReport, env: TargetEnv, os: str) -> Sentence:
    """The copy that does not load is the cause: say where it comes from and how it goes."""
    assert r.path is not None
    folder, file = r.path.parent, r.path.name
    good = [p for p in r.others if p.name == file]
    if r.origin in ("LD_LIBRARY_PATH", "PATH"):
        if good:
            code, template = (
                "fix-remove-from-path-other",
                _(
                    "remove {folder} from {origin}: its {file} does not load, and the loader takes "
                    "it before any other copy; TensorFlow then loads {good} (reinstalling a "
                    "package does not help)"
                ),
            )
        else:
            code, template = (
                "fix-remove-from-path",
                _(
                    "remove {folder} from {origin}: its {file} does not load, and the loader takes "
                    "it before any other copy (reinstalling a package does not help)"
                ),
            )
        return said(
            code,
            template,
            folder=folder,
            origin=r.origin,
            file=file,
            good=good[0] if good else None,
        )
    if r.origin == "pip":
        dist = _owner(env, folder)
        if dist is not None:
            return said(
                "fix-reinstall-wheel",
                _("reinstall the wheel that holds it: {command}"),
                command=pip_line(
                    env,
                    ["install", "--force-reinstall", "--no-deps", f"{dist.name}=={dist.version}"],
                    os,
                ),
                name=dist.name,
                version=dist.version,
            )
    if r.origin == "conda":
        return said(
            "fix-reinstall-conda",
            _("reinstall the conda package that holds {file} (conda install --force-reinstall)"),
            file=file,
        )
    return said(
        "fix-reinstall-owner",
        _(
            "{path} ({origin}) is a copy that does not load: reinstall the package that owns "
            "it (dpkg -S or rpm -qf names it) or remove it"
        ),
        path=r.path,
        origin=r.origin,
    )


def _owner(env: TargetEnv, folder: Path) -> Optional[Distribution]:
    """The nvidia-* wheel a site-packages/nvidia/<part>/lib folder belongs to."""
    part = folder.parent.name.replace("_", "-")
    return next(
        (d for d in env.distributions if re.fullmatch(rf"nvidia-{re.escape(part)}-cu\d+", d.name)),
        None,
    )
