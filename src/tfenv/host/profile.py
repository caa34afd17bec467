"""The host profile: every fact ``tfenv detect`` read about a machine.

This is the contract between detection and the solver (``tfenv resolve --host
FILE``) and the lock command. :meth:`HostProfile.to_dict` writes the JSON shape
(``"schema": 1``) and :meth:`HostProfile.from_dict` reads it back, raising
:class:`~tfenv.errors.ConfigError` with a message that names the bad field.

A note (:class:`HostNote`) says which fact it is about and the value that fact had
when it was written, so a note about a fact someone edited in the file, or replaced
with a flag, is known to be stale: :meth:`HostProfile.current_notes` is that rule.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Optional, Union

from packaging.version import Version

from tfenv.errors import UsageError
from tfenv.i18n import N_, _
from tfenv.models.driver import DriverVersion

__all__ = [
    "ARCHES",
    "CC_SOURCES",
    "GPU_NAME_MAX",
    "NOTE_FACTS",
    "OS_KINDS",
    "REPLACES",
    "SCHEMA",
    "CudnnInstall",
    "GpuInfo",
    "HostNote",
    "HostProfile",
    "InstalledToolkit",
    "read_host_file",
    "replaced_facts",
]

SCHEMA = 1
GPU_NAME_MAX = 200  # NVML allows 96 bytes; nvidia-smi prints fewer
PATH_MAX = 4096
NOTE_MAX = 2000
OS_KINDS = ("linux", "windows", "wsl2", "macos")
ARCHES = ("x86_64", "aarch64", "arm64")
CC_SOURCES = ("nvml", "nvidia-smi", "kb", "given")
PROFILE_KEYS = (
    "schema",
    "os",
    "arch",
    "glibc",
    "python",
    "conda_env",
    "driver",
    "driver_cuda",
    "gpus",
    "cuda_toolkits",
    "cudnn",
    "packages",
    "notes",
    "sources",
)
#: The facts a note can be about (a note about none of them is a general note).
NOTE_FACTS = (
    "os",
    "arch",
    "glibc",
    "python",
    "driver",
    "driver_cuda",
    "gpus",
    "cuda_toolkits",
    "cudnn",
    "packages",
    "conda_env",
)
#: The facts a value given on the command line replaces: ``--driver`` replaces the
#: driver and with it the CUDA version that driver supports; ``--gpu``/``--cc`` the GPUs.
REPLACES: Mapping[str, tuple[str, ...]] = {
    "os": ("os",),
    "arch": ("arch",),
    "glibc": ("glibc",),
    "python": ("python",),
    "driver": ("driver", "driver_cuda"),
    "gpu": ("gpus",),
}


def replaced_facts(given: Iterable[str]) -> frozenset[str]:
    """The profile facts that the given values (keys of :data:`REPLACES`) replace."""
    return frozenset(fact for key in given for fact in REPLACES.get(key, ()))


@dataclass(frozen=True)
class HostNote:
    """What detection said about one fact (``about``, one of :data:`NOTE_FACTS`), with
    that fact's value when it was said (:meth:`HostProfile.fact_text`; None for a fact
    that was absent). Keeping the value is what lets a reader tell that someone has since
    edited the fact, and the note no longer describes the file. ``about`` None: a general
    note, always current."""

    text: str
    about: Optional[str] = None
    value: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {"about": self.about, "value": self.value, "text": self.text}


@dataclass(frozen=True)
class GpuInfo:
    """One NVIDIA GPU as the driver reports it."""

    index: int
    name: str
    compute_capability: Optional[Version] = None
    cc_source: Optional[str] = None  # one of CC_SOURCES, None when unknown
    memory_mib: Optional[int] = None
    mig: bool = False
    uuid: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "name": self.name,
            "compute_capability": _vtext(self.compute_capability),
            "cc_source": self.cc_source,
            "memory_mib": self.memory_mib,
            "mig": self.mig,
            "uuid": self.uuid,
        }


@dataclass(frozen=True)
class InstalledToolkit:
    """A CUDA toolkit installed system-wide; ``version`` is the release (major.minor)."""

    version: Version
    path: str
    source: str  # which file or tool gave the version: nvcc, version.json, version.txt

    def to_dict(self) -> dict[str, Any]:
        return {"version": str(self.version), "path": self.path, "source": self.source}


@dataclass(frozen=True)
class CudnnInstall:
    """A cuDNN installed system-wide, read from its version header."""

    version: Version
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"version": str(self.version), "path": self.path}


@dataclass(frozen=True)
class HostProfile:
    """Facts about one machine. Versions are :class:`Version`; ``driver`` keeps its
    own spelling (``535.104.05``) because a Version would drop the leading zero."""

    os: str
    arch: str
    python: Version
    glibc: Optional[Version] = None
    conda_env: Optional[str] = None
    driver: Optional[str] = None
    driver_cuda: Optional[Version] = None
    gpus: tuple[GpuInfo, ...] = ()
    cuda_toolkits: tuple[InstalledToolkit, ...] = ()
    cudnn: tuple[CudnnInstall, ...] = ()
    packages: tuple[tuple[str, str], ...] = ()  # (distribution name, version), sorted
    notes: tuple[HostNote, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()  # (fact, probe that gave it)

    # -- queries ----------------------------------------------------------
    @property
    def driver_version(self) -> Optional[DriverVersion]:
        return None if self.driver is None else DriverVersion(self.driver)

    @property
    def has_gpu(self) -> bool:
        return bool(self.gpus)

    def source_of(self, fact: str) -> Optional[str]:
        return dict(self.sources).get(fact)

    def package_version(self, name: str) -> Optional[str]:
        return dict(self.packages).get(name)

    def lowest_cc_gpu(self, gpu_index: Optional[int] = None) -> Optional[GpuInfo]:
        """The GPU to resolve for: ``gpu_index`` when given, else the one with the
        lowest compute capability (GPUs whose capability is unknown come last).

        Returns None on a host without GPUs; raises UsageError for an index the
        host does not have.
        """
        if gpu_index is not None:
            for gpu in self.gpus:
                if gpu.index == gpu_index:
                    return gpu
            have = ", ".join(str(g.index) for g in self.gpus) or _("none")
            raise UsageError(
                _(
                    "There is no GPU with index {gpu_index} on this host (GPU indexes: {have})."
                ).format(gpu_index=gpu_index, have=have),
                hint=_("Run 'tfenv detect' to list the GPUs."),
            )
        if not self.gpus:
            return None
        known = [g for g in self.gpus if g.compute_capability is not None]
        if not known:
            return self.gpus[0]
        return min(known, key=lambda g: (g.compute_capability, g.index))

    def gpu_choice(self, gpu_index: Optional[int] = None) -> Optional[str]:
        """On a host with several GPUs, which one a plan is for and why (None: one GPU or
        none): the sentence a plan's target notes carry, with the flag that picks another."""
        gpu = self.lowest_cc_gpu(gpu_index)
        if gpu is None or len(self.gpus) < 2:
            return None
        # TRANSLATORS: between the GPUs of a host, each "index: name (compute capability)"
        gpus = _("; ").join(
            _("{index}: {name} ({cc})").format(
                index=g.index, name=g.name, cc=g.compute_capability or "?"
            )
            for g in self.gpus
        )
        values = {
            "count": len(self.gpus),
            "gpus": gpus,
            "index": gpu.index,
            "name": gpu.name,
            "cc": gpu.compute_capability or "?",
        }
        if gpu_index is not None:
            text = _(
                "This host has {count} GPUs ({gpus}); the plan is for GPU {index}, {name} "
                "(compute capability {cc}), as --gpu-index {index} asks: it may not run on "
                "the others."
            )
        elif gpu.compute_capability is None:
            text = _(
                "This host has {count} GPUs ({gpus}); the plan is for GPU {index}, {name}, the "
                "first: their compute capabilities are not known. To plan for another GPU, "
                "give --gpu-index N."
            )
        else:
            text = _(
                "This host has {count} GPUs ({gpus}); the plan is for GPU {index}, {name} "
                "(compute capability {cc}), the lowest compute capability among them, so that "
                "it runs on all of them. To plan for one GPU alone, give --gpu-index N."
            )
        return text.format(**values)

    def target_facts(self, gpu_index: Optional[int] = None) -> dict[str, Any]:
        """This host's machine facts, keyed as :meth:`Target.from_facts
        <tfenv.models.target.Target.from_facts>` reads them: the Python as X.Y, the GPU
        to plan for (:meth:`lowest_cc_gpu`) as its compute capability and name."""
        gpu = self.lowest_cc_gpu(gpu_index)
        python = self.python
        return {
            "os": self.os,
            "arch": self.arch,
            "glibc": self.glibc,
            "python": Version(f"{python.major}.{python.minor}") if python else None,
            "driver": self.driver_version,
            "cc": gpu.compute_capability if gpu else None,
            "gpu_name": gpu.name if gpu else None,
        }

    # -- notes ------------------------------------------------------------
    def fact_text(self, fact: str) -> Optional[str]:
        """``fact`` as one line of text that changes whenever the fact does: what a
        :class:`HostNote` is written against. None for an absent fact or an empty list.

        Versions and names are as in the JSON; GPUs are ``index: name (cc)`` joined by
        ``"; "`` (``?`` for an unknown compute capability), toolkits and cuDNN
        ``version (path)``, packages ``name==version`` joined by ``", "``. A text longer
        than a note may be is replaced by ``sha256:`` and its digest, so that it still
        compares.
        """
        text = _FACT_TEXT[fact](self)
        if text is None or len(text) <= NOTE_MAX:
            return text or None
        return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def noted(self, notes: Iterable[HostNote]) -> tuple[HostNote, ...]:
        """``notes`` written against this profile: each gets its fact's value here."""
        return tuple(
            replace(n, value=None if n.about is None else self.fact_text(n.about)) for n in notes
        )

    def current_notes(self, replaced: Iterable[str] = ()) -> tuple[HostNote, ...]:
        """The notes that still describe this profile: general ones, and those whose fact
        has the value it had when the note was written and is not in ``replaced`` (facts
        a flag gave anew, see :func:`replaced_facts`). A note about an edited or replaced
        fact ("No NVIDIA driver found" next to a driver someone typed in) is stale."""
        gone = frozenset(replaced)
        return tuple(
            n
            for n in self.notes
            if n.about is None or (n.about not in gone and n.value == self.fact_text(n.about))
        )

    # -- serialisation ----------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "os": self.os,
            "arch": self.arch,
            "glibc": _vtext(self.glibc),
            "python": str(self.python),
            "conda_env": self.conda_env,
            "driver": self.driver,
            "driver_cuda": _vtext(self.driver_cuda),
            "gpus": [g.to_dict() for g in self.gpus],
            "cuda_toolkits": [t.to_dict() for t in self.cuda_toolkits],
            "cudnn": [c.to_dict() for c in self.cudnn],
            "packages": dict(self.packages),
            "notes": [n.to_dict() for n in self.notes],
            "sources": dict(self.sources),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: Any, *, origin: str = N_("the host profile")) -> HostProfile:
        """Read a profile written by :meth:`to_dict`; ConfigError names any bad field."""
        from tfenv.host.profile_file import profile_from_dict

        return profile_from_dict(data, origin)

    @classmethod
    def from_json(cls, text: str, *, origin: str = N_("the host profile")) -> HostProfile:
        from tfenv.host.profile_file import profile_from_json

        return profile_from_json(text, origin)


def read_host_file(path: Union[str, Path]) -> HostProfile:
    """Read a host profile written by ``tfenv detect --json``."""
    from tfenv.host.profile_file import read_profile

    return read_profile(path)


def _vtext(v: Optional[Version]) -> Optional[str]:
    return None if v is None else str(v)


def _joined(parts: Iterable[str], sep: str = "; ") -> Optional[str]:
    return sep.join(parts) or None


_FACT_TEXT: Mapping[str, Callable[[HostProfile], Optional[str]]] = {
    "os": lambda p: p.os,
    "arch": lambda p: p.arch,
    "glibc": lambda p: _vtext(p.glibc),
    "python": lambda p: str(p.python),
    "driver": lambda p: p.driver,
    "driver_cuda": lambda p: _vtext(p.driver_cuda),
    "gpus": lambda p: _joined(
        f"{g.index}: {g.name} ({g.compute_capability or '?'})" for g in p.gpus
    ),
    "cuda_toolkits": lambda p: _joined(f"{t.version} ({t.path})" for t in p.cuda_toolkits),
    "cudnn": lambda p: _joined(f"{c.version} ({c.path})" for c in p.cudnn),
    "packages": lambda p: _joined((f"{n}=={v}" for n, v in p.packages), ", "),
    "conda_env": lambda p: p.conda_env,
}
