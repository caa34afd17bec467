"""The host profile: every fact ``tfenv detect`` read about a machine.

This is the contract between detection and the solver (``tfenv resolve --host
FILE``) and the lock command. :meth:`HostProfile.to_dict` writes the JSON shape
(``"schema": 1``) and :meth:`HostProfile.from_dict` reads it back, raising
:class:`~tfenv.errors.ConfigError` with a message that names the bad field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from packaging.version import Version

from tfenv.errors import ConfigError, UsageError
from tfenv.host._read import Reader, cap, is_int, join, quoted

__all__ = [
    "ARCHES",
    "CC_SOURCES",
    "OS_KINDS",
    "SCHEMA",
    "CudaToolkit",
    "CudnnInstall",
    "GpuInfo",
    "HostProfile",
    "read_host_file",
]

SCHEMA = 1
OS_KINDS = ("linux", "windows", "wsl2", "macos")
ARCHES = ("x86_64", "aarch64", "arm64")
CC_SOURCES = ("nvml", "nvidia-smi", "kb", "given")
_KEYS = (
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
class CudaToolkit:
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
    cuda_toolkits: tuple[CudaToolkit, ...] = ()
    cudnn: tuple[CudnnInstall, ...] = ()
    packages: tuple[tuple[str, str], ...] = ()  # (distribution name, version), sorted
    notes: tuple[str, ...] = ()
    sources: tuple[tuple[str, str], ...] = ()  # (fact, probe that gave it)

    # -- queries ----------------------------------------------------------
    @property
    def driver_version(self) -> Optional[Version]:
        return None if self.driver is None else Version(self.driver)

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
            have = ", ".join(str(g.index) for g in self.gpus) or "none"
            raise UsageError(
                f"There is no GPU with index {gpu_index} on this host (GPU indexes: {have}).",
                hint="Run 'tfenv detect' to list the GPUs.",
            )
        if not self.gpus:
            return None
        known = [g for g in self.gpus if g.compute_capability is not None]
        if not known:
            return self.gpus[0]
        return min(known, key=lambda g: (g.compute_capability, g.index))

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
            "notes": list(self.notes),
            "sources": dict(self.sources),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_dict(cls, data: Any, *, origin: str = "the host profile") -> HostProfile:
        """Read a profile written by :meth:`to_dict`; ConfigError names any bad field."""
        r = Reader(origin)
        d = r.mapping(data, "")
        extra = sorted(set(d) - set(_KEYS))
        if extra:
            raise r.fail("", f"has unknown key(s) {', '.join(map(repr, extra))}")
        schema = d.get("schema")
        if schema != SCHEMA:
            raise r.fail("schema", f"must be {SCHEMA}, found {schema!r}")
        return cls(
            os=r.choice(d, "os", OS_KINDS),
            arch=r.choice(d, "arch", ARCHES),
            glibc=r.opt_version(d, "glibc"),
            python=r.version(d, "python"),
            conda_env=r.opt_text(d, "conda_env"),
            driver=r.driver(d, "driver"),
            driver_cuda=r.opt_version(d, "driver_cuda"),
            gpus=tuple(_gpu(r, g, f"gpus[{i}]") for i, g in enumerate(r.items(d, "gpus"))),
            cuda_toolkits=tuple(
                _toolkit(r, t, f"cuda_toolkits[{i}]")
                for i, t in enumerate(r.items(d, "cuda_toolkits"))
            ),
            cudnn=tuple(_cudnn(r, c, f"cudnn[{i}]") for i, c in enumerate(r.items(d, "cudnn"))),
            packages=r.str_map(d, "packages"),
            notes=tuple(r.text(n, f"notes[{i}]") for i, n in enumerate(r.items(d, "notes"))),
            sources=r.str_map(d, "sources"),
        )

    @classmethod
    def from_json(cls, text: str, *, origin: str = "the host profile") -> HostProfile:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{cap(origin)} is not valid JSON ({exc.msg} at line {exc.lineno}, "
                f"column {exc.colno}).",
                hint="Write it with 'tfenv detect --json --output FILE'.",
            ) from None
        return cls.from_dict(data, origin=origin)


def read_host_file(path: Union[str, Path]) -> HostProfile:
    """Read a host profile written by ``tfenv detect --json``."""
    p = Path(path)
    try:
        text = p.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"The host file {p} cannot be read ({reason}).") from None
    return HostProfile.from_json(text, origin=f"the host file {p}")


# -- reading helpers --------------------------------------------------------


def _gpu(r: Reader, raw: Any, path: str) -> GpuInfo:
    g = r.mapping(raw, path)
    allowed = ("index", "name", "compute_capability", "cc_source", "memory_mib", "mig", "uuid")
    r.only(g, path, allowed)
    cc_source = r.opt_text(g, "cc_source", path)
    if cc_source is not None and cc_source not in CC_SOURCES:
        raise r.fail(join(path, "cc_source"), f"must be one of {quoted(CC_SOURCES)} or null")
    memory = g.get("memory_mib")
    if memory is not None and (not is_int(memory) or memory < 0):
        raise r.fail(join(path, "memory_mib"), f"must be a whole number or null, found {memory!r}")
    mig = g.get("mig", False)
    if not isinstance(mig, bool):
        raise r.fail(join(path, "mig"), f"must be true or false, found {mig!r}")
    index = g.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise r.fail(join(path, "index"), f"must be a whole number, found {index!r}")
    return GpuInfo(
        index=index,
        name=r.text(g.get("name"), join(path, "name")),
        compute_capability=r.opt_version(g, "compute_capability", path),
        cc_source=cc_source,
        memory_mib=memory,
        mig=mig,
        uuid=r.opt_text(g, "uuid", path),
    )


def _toolkit(r: Reader, raw: Any, path: str) -> CudaToolkit:
    t = r.mapping(raw, path)
    r.only(t, path, ("version", "path", "source"))
    return CudaToolkit(
        version=r.version(t, "version", path),
        path=r.text(t.get("path"), join(path, "path")),
        source=r.text(t.get("source"), join(path, "source")),
    )


def _cudnn(r: Reader, raw: Any, path: str) -> CudnnInstall:
    c = r.mapping(raw, path)
    r.only(c, path, ("version", "path"))
    return CudnnInstall(
        version=r.version(c, "version", path),
        path=r.text(c.get("path"), join(path, "path")),
    )


def _vtext(v: Optional[Version]) -> Optional[str]:
    return None if v is None else str(v)
