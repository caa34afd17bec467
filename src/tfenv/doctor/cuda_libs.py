"""Findings for the CUDA libraries and nvidia-* wheels a TensorFlow build needs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from tfenv.doctor import libs
from tfenv.doctor.env import TargetEnv
from tfenv.doctor.findings import ACTIVATE_FIX, Finding

__all__ = ["check_libraries", "check_pins", "wanted_name"]


def wanted_name(
    key: str, cuda: Optional[Version], cudnn: Optional[Version], windows: bool
) -> Optional[str]:
    """The file name a build asks for (only where it follows from the CUDA/cuDNN major)."""
    if key == "cudnn" and cudnn is not None:
        return f"cudnn64_{cudnn.major}.dll" if windows else f"libcudnn.so.{cudnn.major}"
    if cuda is None or key not in ("cudart", "cublas", "cublasLt"):
        return None
    if windows:
        code = (
            f"{cuda.major}"
            if cuda.major >= 12
            else f"{cuda.major}{0 if cuda.major == 11 else cuda.minor}"
        )
        return f"{key}64_{code}.dll"
    if cuda.major >= 12 or (key != "cudart" and cuda.major == 11):
        return f"lib{key}.so.{cuda.major}"
    return f"lib{key}.so.{cuda.major}.{0 if cuda.major == 11 else cuda.minor}"


def check_pins(env: TargetEnv, pins: Sequence[str], tf_label: str) -> list[Finding]:
    installed = [d for d in env.distributions if d.name.startswith("nvidia-")]
    if not installed:
        return [
            Finding(
                "cuda-wheels",
                "warning",
                "No nvidia-* CUDA wheels installed",
                f"{tf_label} lists {len(pins)} CUDA wheels in its and-cuda extra; without them "
                "the CUDA libraries must come from a system CUDA/cuDNN install.",
                f"pip install '{tf_label.replace(' ', '[and-cuda]==')}'",
            )
        ]
    return [_pin_finding(env, pin) for pin in pins]


def _pin_finding(env: TargetEnv, pin: str) -> Finding:
    try:
        req = Requirement(pin)
    except InvalidRequirement:
        return Finding(f"pin-{pin}", "warning", f"Cannot read the pin {pin!r}")
    dist = env.dist(req.name)
    fid = f"pin-{req.name}"
    if dist is None:
        return Finding(
            fid, "problem", f"{req.name} is missing", f"wanted: {req}", f"pip install '{req}'"
        )
    try:
        ok = req.specifier.contains(Version(dist.version), prereleases=True)
    except InvalidVersion:
        ok = False
    if ok:
        return Finding(fid, "ok", f"{req.name} {dist.version}", f"wanted: {req}")
    return Finding(
        fid,
        "problem",
        f"{req.name} {dist.version} does not match {req.specifier}",
        f"wanted: {req}",
        f"pip install '{req}'",
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
    return [_library_finding(r) for r in reports]


def _library_finding(r: libs.LibraryReport) -> Finding:
    fid = f"lib-{r.key}"
    name = r.wanted or f"lib{r.key}"
    if r.path is None:
        seen = ", ".join(str(p) for p in r.others[:3])
        detail = f"other versions seen: {seen}" if seen else "not found in any searched folder"
        return Finding(fid, "problem", f"{name} not found", detail, _install_fix(r))
    where = f"{r.path} ({r.origin})" + (f", version {r.version}" if r.version else "")
    if r.loaded is False:
        return Finding(
            fid, "problem", f"{name} cannot be loaded", f"{where}: {r.error}", _install_fix(r)
        )
    if not r.on_path:
        return Finding(
            fid,
            "problem",
            f"{name} is installed but not where TensorFlow looks",
            where,
            ACTIVATE_FIX.format(dir=r.path.parent),
        )
    return Finding(fid, "ok", f"{name} found" + (" and loads" if r.loaded else ""), where)


def _install_fix(r: libs.LibraryReport) -> str:
    return (
        f"install the library this TensorFlow pins (pip install 'tensorflow[and-cuda]==<version>'"
        f" brings {r.wanted or r.key}) and source activate-tfenv.sh from `tfenv resolve --emit`"
    )
