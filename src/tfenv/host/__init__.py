"""Reading the machine tfenv runs on into a :class:`HostProfile`.

``detect()`` runs the probes (:mod:`.probes`), parses what they return
(:mod:`.parse`) and assembles the profile (:mod:`.profile`). Values given on the
command line (``overrides``) win over anything detected and are recorded as
``"given"`` in ``sources``; notes about what they replace are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Optional, Union

from packaging.version import Version

from tfenv import specs
from tfenv.errors import ConfigError, DetectionError, UsageError
from tfenv.host import parse
from tfenv.host.cuda import detect_cudnn, detect_toolkits
from tfenv.host.gpu import CatalogLoader, detect_gpus
from tfenv.host.probes import DEFAULT_TIMEOUT, Probes
from tfenv.host.profile import (
    ARCHES,
    GPU_NAME_MAX,
    OS_KINDS,
    CudnnInstall,
    GpuInfo,
    HostNote,
    HostProfile,
    InstalledToolkit,
    read_host_file,
    replaced_facts,
)
from tfenv.i18n import _
from tfenv.models.platform import system
from tfenv.textsafe import visible

__all__ = [
    "OVERRIDABLE",
    "CudnnInstall",
    "GpuInfo",
    "HostNote",
    "HostProfile",
    "InstalledToolkit",
    "Probes",
    "detect",
    "read_host_file",
    "write_host_file",
]

OVERRIDABLE = ("os", "arch", "glibc", "driver", "python")
#: protobuf, setuptools, tensorboard: explain answers their messages from the installed versions
_PACKAGE_NAMES = ("keras", "protobuf", "setuptools", "tensorboard", "tf-keras", "tf-nightly")
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
    notes: list[HostNote] = []

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
    if driver is not None and not _driver_ok(driver):
        note = f"The driver reported its version as {_printable(driver, 40)!r}; ignored."
        notes.append(HostNote(note, "driver"))
        driver = None
    about_given: list[HostNote] = []
    if "driver" in given and given["driver"] != driver:
        if driver_cuda is not None:
            note = (
                f"The driver was given as {given['driver']} (detected: {driver}); the CUDA "
                f"version {driver_cuda} the detected driver supports is not used."
            )
            about_given.append(HostNote(note, "driver"))
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
    profile = HostProfile(
        os=given.get("os") or os_kind,
        arch=arch,
        python=Version(given.get("python") or probes.python()),
        glibc=Version(given["glibc"]) if "glibc" in given else glibc,
        conda_env=_printable(conda_env, 4096) if conda_env else None,
        driver=driver,
        driver_cuda=driver_cuda,
        gpus=tuple(replace(g, name=_printable(g.name, GPU_NAME_MAX)) for g in gpu.gpus),
        cuda_toolkits=tuple(replace(t, path=_printable(t.path, 4096)) for t in toolkits),
        cudnn=tuple(replace(c, path=_printable(c.path, 4096)) for c in cudnn),
        packages=tuple((_printable(n, 200), _printable(v, 200)) for n, v in packages),
        sources=tuple(sorted(sources.items())),
    )
    return _with_notes(profile, notes, about_given, given)


def write_host_file(profile: HostProfile, path: Union[str, Path]) -> None:
    """Write ``profile`` as JSON atomically (a temp file beside it, then a rename); a
    terminal or a pipe is written in place, any other special file is refused."""
    from tfenv.fsutil import atomic_write, describe_oserror

    target = Path(path)
    try:
        atomic_write(target, profile.to_json(), parents=False)
    except OSError as exc:
        raise ConfigError(
            _("Cannot write the host file {target}: {exc}.").format(
                target=target, exc=describe_oserror(exc)
            )
        ) from None


def _with_notes(
    profile: HostProfile,
    detected: list[HostNote],
    about_given: list[HostNote],
    given: Mapping[str, str],
) -> HostProfile:
    """``profile`` with its notes, each written against the value the profile holds. A
    note about a fact given on the command line spoke of the detected value, which the
    profile no longer holds: left out by the rule that resolving applies to flags
    (:meth:`HostProfile.current_notes`). Notes about the given values themselves stay."""
    written = replace(profile, notes=profile.noted(map(_clean_note, detected)))
    kept = written.current_notes(replaced_facts(given))
    return replace(profile, notes=kept + profile.noted(map(_clean_note, about_given)))


def _clean_note(note: HostNote) -> HostNote:
    return replace(note, text=_printable(note.text, 2000))


def _driver_ok(text: str) -> bool:
    try:
        specs.parse_driver(text)
    except UsageError:
        return False
    return True


def _printable(text: str, limit: int) -> str:
    """What a probe read, as one line of printable text a host file can carry."""
    clean = visible(text)
    return clean if len(clean) <= limit else clean[: limit - 3] + "..."


# -- the pieces ---------------------------------------------------------------------


def _check_overrides(overrides: Mapping[str, str]) -> dict[str, str]:
    """The overrides, checked by the same rules as ``tfenv resolve``'s flags."""
    given: dict[str, str] = {}
    for key, raw in overrides.items():
        if key not in OVERRIDABLE:
            raise UsageError(
                _("Cannot override {key!r}; only {overridable}.").format(
                    key=key, overridable=", ".join(OVERRIDABLE)
                )
            )
        value = raw.strip()
        if key == "os" and value not in OS_KINDS:
            raise UsageError(
                _("--os must be one of {os_kinds}, not {value!r}.").format(
                    os_kinds=", ".join(OS_KINDS), value=value
                )
            )
        if key == "arch" and value not in ARCHES:
            raise UsageError(
                _("--arch must be one of {arches}, not {value!r}.").format(
                    arches=", ".join(ARCHES), value=value
                )
            )
        if key in ("glibc", "python"):
            specs.parse_xy(f"--{key}", value, "2.35" if key == "glibc" else "3.11")
        if key == "driver":
            specs.parse_driver(value)
        given[key] = value
    return given


def _os_kind(probes: Probes, notes: list[HostNote], given: Mapping[str, str]) -> str:
    plat = probes.platform()
    if plat.startswith("linux"):
        wsl = parse.is_wsl_kernel(probes.kernel_release())
        if wsl == 2:
            return "wsl2"
        if wsl == 1:
            notes.append(HostNote(_("WSL 1 has no GPU access; only WSL2 can run CUDA."), "os"))
        return "linux"
    if plat in ("win32", "cygwin"):
        return "windows"
    if plat == "darwin":
        return "macos"
    if "os" in given:
        return given["os"]
    raise DetectionError(
        _("tfenv knows Linux, Windows, WSL2 and macOS hosts; this one is {plat!r}.").format(
            plat=plat
        ),
        hint=_("Describe the target machine with --os, --arch and --python instead."),
    )


def _arch(machine: str, os_kind: str) -> str:
    m = machine.lower()
    if m in ("x86_64", "amd64", "x64"):
        return "x86_64"
    if m in ("aarch64", "arm64", "armv8l"):
        return "aarch64" if system(os_kind).runs_linux else "arm64"
    raise DetectionError(
        _("tfenv knows x86_64 and ARM64 machines; this one is {machine!r}.").format(
            machine=machine
        ),
        hint=_("Pass --arch to describe the target machine instead."),
    )


def _glibc(probes: Probes, os_kind: str) -> Optional[Version]:
    if not system(os_kind).runs_linux:
        return None
    text = probes.libc()
    return parse.parse_glibc(text) if text else None


def _package_key(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _wanted_package(name: str) -> bool:
    key = _package_key(name)
    return key in _PACKAGE_NAMES or key.startswith(_PACKAGE_PREFIXES)


def _packages(probes: Probes) -> tuple[tuple[str, str], ...]:
    """The wanted distributions and their versions; one whose version is no PEP 440
    version is left out (a host file holds only what its reader accepts)."""
    from tfenv.specs import to_version

    found: dict[str, str] = {}
    for name, version in probes.distributions(_wanted_package):
        if _wanted_package(name):
            try:
                to_version(version)
            except ValueError:
                continue
            found.setdefault(_package_key(name), version)  # the first on sys.path wins
    return tuple(sorted(found.items()))
