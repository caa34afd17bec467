"""The machine a plan is made for, and what the user asks of it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfenv.i18n import _
from tfenv.models.choices import CUDA_LIBS, MANAGERS, mac_gpu_vendor
from tfenv.models.driver import DriverVersion
from tfenv.models.platform import DriverOs, Machine, Platform, System, machine, os_title

if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass, field


__all__ = ["CUDA_LIBS", "MANAGERS", "MachineArgs", "Request", "Target", "TargetFactError"]


class TargetFactError(ValueError):
    """A machine fact a :class:`Target` cannot hold (a key that is no fact, a value of the
    wrong type, a required fact missing); ``key`` names it. A bug of the caller's, not
    bad input: input is parsed (``tfenv.specs``, the host reader) before it gets here."""

    def __init__(self, key: str, problem: str) -> None:
        super().__init__(f"Target fact {key!r}: {problem}")
        self.key = key


#: The facts a :class:`Target` is built from (:meth:`Target.from_facts`), each with the
#: type its value must have (None: not known; ``os`` and ``arch`` are required).
_FACT_TYPES: dict[str, type] = {
    "os": str,
    "arch": str,
    "glibc": Version,
    "python": Version,
    "cc": Version,
    "gpu_name": str,
    "driver": DriverVersion,
}
_REQUIRED = ("os", "arch")


@dataclass(frozen=True)
class Target:
    """Facts about the machine to plan for. ``None`` means not known.

    ``os`` is a :class:`~tfenv.models.platform.System` name and ``arch`` an
    architecture; together they must name a machine TensorFlow has wheels for
    (:class:`~tfenv.models.platform.UnsupportedPlatform` otherwise).
    """

    os: str
    arch: str
    glibc: Optional[Version] = None
    python: Optional[Version] = None  # X.Y the plan must use; None lets the solver choose
    cc: Optional[Version] = None  # compute capability of the GPU to plan for
    gpu_name: Optional[str] = None
    driver: Optional[DriverVersion] = None
    # which facts were detected on this machine rather than given (for explanations)
    detected: frozenset[str] = field(default_factory=frozenset)
    notes: tuple[str, ...] = ()  # what detection or the host file said (e.g. no usable driver)
    machine: Machine = field(init=False, repr=False, compare=False)

    @classmethod
    def from_facts(
        cls, facts: Mapping[str, object], detected: Iterable[str] = (), notes: Iterable[str] = ()
    ) -> Target:
        """The machine a mapping of facts describes: the one way a :class:`Target` is built
        from a mapping (``tfenv.api`` from flags, a host file or detection; ``tfenv
        explain`` from what a message says), with one check of every key and value.
        :class:`TargetFactError` names a key that is no fact, a value of the wrong type or
        a missing ``os``/``arch``; :class:`~tfenv.models.platform.UnsupportedPlatform` a
        machine no TensorFlow wheel serves."""
        for key in sorted(facts):
            want = _FACT_TYPES.get(key)
            if want is None:
                raise TargetFactError(key, f"not a machine fact ({', '.join(_FACT_TYPES)})")
            value = facts[key]
            if value is not None and not isinstance(value, want):
                raise TargetFactError(key, f"{value!r} is not a {want.__name__}")
        for key in _REQUIRED:
            if facts.get(key) is None:
                raise TargetFactError(key, "required")
        return cls(**facts, detected=frozenset(detected), notes=tuple(notes))  # type: ignore[arg-type]

    def __post_init__(self) -> None:
        found = machine(self.os, self.arch)
        object.__setattr__(self, "machine", found)
        object.__setattr__(self, "arch", found.arch)
        if self.driver is not None and not isinstance(self.driver, DriverVersion):
            object.__setattr__(self, "driver", DriverVersion(self.driver))

    @property
    def system(self) -> System:
        return self.machine.system

    @property
    def platform(self) -> Platform:
        """The wheel platform this machine installs (WSL2: Linux's)."""
        return self.machine.platform

    @property
    def driver_os(self) -> Optional[DriverOs]:
        """Whose driver tables apply: WSL2 uses the Windows driver; macOS has none."""
        return self.system.driver_os

    @property
    def has_nvidia_gpu(self) -> bool:
        return self.cc is not None

    @property
    def gpu_vendor(self) -> Optional[str]:
        """``nvidia`` for a GPU with a compute capability; on a Mac, the maker its name
        shows (``amd``, ``intel``, ``apple``: models.choices.MAC_GPU_VENDORS); else None."""
        if self.cc is not None:
            return "nvidia"
        if self.gpu_name and self.system.is_macos:
            return mac_gpu_vendor(self.gpu_name)
        return None

    def describe(self) -> str:
        """The machine in one line, in the current language (lockfiles' headers word it
        in English: :func:`tfenv.i18n.using`)."""
        parts = [self.os_name(), self.arch]
        if self.python:
            parts.append(f"Python {self.python}")
        if self.gpu_name and self.cc is None:  # a Mac's GPU: no compute capability
            parts.append(self.gpu_name)
        elif self.gpu_name:
            parts.append(_("{gpu} (compute capability {cc})").format(gpu=self.gpu_name, cc=self.cc))
        elif self.cc:
            parts.append(_("GPU of compute capability {cc}").format(cc=self.cc))
        else:
            parts.append(_("no NVIDIA GPU"))
        if self.driver:
            parts.append(_("driver {driver}").format(driver=self.driver))
        # TRANSLATORS: between the parts of a list (the machine's description)
        return _(", ").join(parts)

    def os_name(self) -> str:
        """The operating system as the machine's description names it."""
        return os_title(self.os)


@dataclass(frozen=True)
class Request:
    """What the user asks for."""

    tf: SpecifierSet = field(default_factory=SpecifierSet)
    tf_text: str = "latest"
    manager: str = "auto"
    allow_cpu: bool = False
    no_gpu: bool = False
    pre: bool = False
    cuda_libs: str = "build"  # which CUDA wheels a pip plan pins: "build" or "newest"

    def allows(self, version: Version, yanked: bool = False) -> bool:
        """Whether ``version`` answers the request.

        Pre-releases only with ``pre`` or when the specifier names one (``==2.22.0rc0``);
        yanked releases only when pinned exactly.
        """
        spec = self.tf
        if yanked and not any(
            s.operator == "===" or (s.operator == "==" and "*" not in s.version) for s in spec
        ):
            return False
        pre = self.pre or any(_names_prerelease(s.version) for s in spec)
        return spec.contains(version, prereleases=pre)


def _names_prerelease(text: str) -> bool:
    try:
        return Version(text).is_prerelease
    except InvalidVersion:  # wildcards such as 2.15.*
        return False


@dataclass(frozen=True)
class MachineArgs:
    """Facts about the target machine as the user gave them (all optional, unparsed)."""

    host_file: Optional[Path] = None
    os: Optional[str] = None
    arch: Optional[str] = None
    gpu: Optional[str] = None
    cc: Optional[str] = None
    no_gpu: bool = False
    driver: Optional[str] = None
    glibc: Optional[str] = None
    python: Optional[str] = None
    gpu_index: Optional[int] = None

    @property
    def describes_another_machine(self) -> bool:
        return self.os is not None or self.arch is not None
