"""Reading the machine tfenv runs on into a :class:`HostProfile`.

``detect()`` runs the probes (:mod:`.probes`), parses what they return
(:mod:`.parse`) and assembles the profile (:mod:`.profile`). Values given on the
command line (``overrides``) win over anything detected and are recorded as
``"given"`` in ``sources``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Optional, Union

from packaging.version import InvalidVersion, Version

from tfenv.errors import ConfigError, DetectionError, UsageError
from tfenv.host import parse
from tfenv.host.cuda import detect_cudnn, detect_toolkits
from tfenv.host.gpu import CatalogLoader, detect_gpus
from tfenv.host.probes import DEFAULT_TIMEOUT, Probes
from tfenv.host.profile import (
    ARCHES,
    OS_KINDS,
    CudnnInstall,
    GpuInfo,
    HostProfile,
    InstalledToolkit,
    read_host_file,
)

__all__ = [
    "OVERRIDABLE",
    "CudnnInstall",
    "GpuInfo",
    "HostProfile",
    "InstalledToolkit",
    "Probes",
    "detect",
    "read_host_file",
    "write_host_file",
]

OVERRIDABLE = ("os", "arch", "glibc", "driver", "python")
_PACKAGE_NAMES = ("keras", "tf-keras", "tf-nightly")
_PACKAGE_PREFIXES = ("tensorflow", "nvidia-", "tf-nightly-")


def detect(
    *,
    overrides: Optional[Mapping[str, str]] = None,
    probes: Optional[Probes] = None,
    gpu_catalog: Optional[CatalogLoader] = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> HostProfile:
    """Read this host. ``overrides`` maps any of :data:`OVERRIDABLE` to a value."""
    given = _check_overrides(overrides or {})
    probes = probes or Probes(timeout=timeout)
    sources: dict[str, str] = {}
    notes: list[str] = []

    os_kind = _os_kind(probes, notes, given)
    arch = given.get("arch") or _arch(probes.machine(), given.get("os") or os_kind)
    glibc = _glibc(probes, os_kind)
    sources.update(os="platform", arch="platform", python="interpreter")
    if glibc is not None:
        sources["glibc"] = "libc"
    conda_env = probes.env.get("CONDA_DEFAULT_ENV") or probes.env.get("CONDA_PREFIX") or None
    if conda_env:
        sources["conda_env"] = "CONDA_DEFAULT_ENV"

    gpu = detect_gpus(probes, os_kind, gpu_catalog)
    sources.update(gpu.sources)
    notes += gpu.notes
    driver, driver_cuda = gpu.driver, gpu.driver_cuda
    if "driver" in given and given["driver"] != driver:
        if driver_cuda is not None:
            notes.append(
                f"The driver was given as {given['driver']} (detected: {driver}); the CUDA "
                f"version {driver_cuda} the detected driver supports is not used."
            )
        driver, driver_cuda = given["driver"], None
        sources.pop("driver_cuda", None)

    toolkits, tk_notes = detect_toolkits(probes, os_kind)
    notes += tk_notes
    cudnn = detect_cudnn(probes, os_kind, [t.path for t in toolkits])
    if toolkits:
        sources["cuda_toolkits"] = "files"
    if cudnn:
        sources["cudnn"] = "files"
    packages = _packages(probes)
    sources["packages"] = "importlib.metadata"
    for key in given:
        sources[key] = "given"
    return HostProfile(
        os=given.get("os") or os_kind,
        arch=arch,
        python=Version(given.get("python") or probes.python()),
        glibc=Version(given["glibc"]) if "glibc" in given else glibc,
        conda_env=conda_env,
        driver=driver,
        driver_cuda=driver_cuda,
        gpus=tuple(gpu.gpus),
        cuda_toolkits=tuple(toolkits),
        cudnn=tuple(cudnn),
        packages=packages,
        notes=tuple(notes),
        sources=tuple(sorted(sources.items())),
    )


def write_host_file(profile: HostProfile, path: Union[str, Path]) -> None:
    """Write ``profile`` as JSON atomically: a temporary file beside it, then rename."""
    import tempfile

    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise ConfigError(f"Cannot write the host file {target}: {exc.strerror or exc}.") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(profile.to_json())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ConfigError(f"Cannot write the host file {target}: {exc.strerror or exc}.") from None


# -- the pieces ---------------------------------------------------------------------


def _check_overrides(overrides: Mapping[str, str]) -> dict[str, str]:
    given: dict[str, str] = {}
    for key, raw in overrides.items():
        if key not in OVERRIDABLE:
            raise UsageError(f"Cannot override {key!r}; only {', '.join(OVERRIDABLE)}.")
        value = raw.strip()
        if key == "os" and value not in OS_KINDS:
            raise UsageError(f"--os must be one of {', '.join(OS_KINDS)}, not {value!r}.")
        if key == "arch" and value not in ARCHES:
            raise UsageError(f"--arch must be one of {', '.join(ARCHES)}, not {value!r}.")
        if key in ("glibc", "driver", "python"):
            _check_version(key, value)
        given[key] = value
    return given


def _check_version(key: str, value: str) -> None:
    example = {"glibc": "2.35", "driver": "535.104.05", "python": "3.11"}[key]
    try:
        v = Version(value)
    except InvalidVersion:
        v = None
    if v is None or (key == "python" and len(v.release) != 2):
        raise UsageError(f"--{key} must be a version like {example}, not {value!r}.")


def _os_kind(probes: Probes, notes: list[str], given: Mapping[str, str]) -> str:
    plat = probes.platform()
    if plat.startswith("linux"):
        wsl = parse.is_wsl_kernel(probes.kernel_release())
        if wsl == 2:
            return "wsl2"
        if wsl == 1:
            notes.append("WSL 1 has no GPU access; only WSL2 can run CUDA.")
        return "linux"
    if plat in ("win32", "cygwin"):
        return "windows"
    if plat == "darwin":
        return "macos"
    if "os" in given:
        return given["os"]
    raise DetectionError(
        f"tfenv knows Linux, Windows, WSL2 and macOS hosts; this one is {plat!r}.",
        hint="Describe the target machine with --os, --arch and --python instead.",
    )


def _arch(machine: str, os_kind: str) -> str:
    m = machine.lower()
    if m in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if m in ("aarch64", "arm64", "armv8l"):
        return "aarch64" if os_kind in ("linux", "wsl2") else "arm64"
    raise DetectionError(
        f"tfenv knows x86_64 and ARM64 machines; this one is {machine!r}.",
        hint="Pass --arch to describe the target machine instead.",
    )


def _glibc(probes: Probes, os_kind: str) -> Optional[Version]:
    if os_kind not in ("linux", "wsl2"):
        return None
    text = probes.libc()
    return parse.parse_glibc(text) if text else None


def _package_key(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _wanted_package(name: str) -> bool:
    key = _package_key(name)
    return key in _PACKAGE_NAMES or key.startswith(_PACKAGE_PREFIXES)


def _packages(probes: Probes) -> tuple[tuple[str, str], ...]:
    found: dict[str, str] = {}
    for name, version in probes.distributions(_wanted_package):
        if _wanted_package(name):
            found.setdefault(_package_key(name), version)  # the first on sys.path wins
    return tuple(sorted(found.items()))
