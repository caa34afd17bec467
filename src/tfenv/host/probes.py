"""Tiny probes: each reads one thing from the machine and returns it raw.

No probe interprets what it reads (that is :mod:`tfenv.host.parse`), none raises
for an ordinary failure, and every command runs under a short time limit. Tests
replace a :class:`Probes` with a subclass that returns recordings.
"""

from __future__ import annotations

import contextlib
import glob
import importlib
import os
import platform
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

__all__ = ["DEFAULT_TIMEOUT", "CommandOutput", "NvmlGpu", "NvmlReading", "Probes"]

DEFAULT_TIMEOUT = 5.0  # seconds, per command


@dataclass(frozen=True)
class CommandOutput:
    """What a command printed; ``problem`` says why it gave nothing usable, if so."""

    returncode: Optional[int]
    stdout: str = ""
    stderr: str = ""
    problem: Optional[str] = None

    @property
    def text(self) -> str:
        return self.stdout + ("\n" + self.stderr if self.stderr.strip() else "")


@dataclass(frozen=True)
class NvmlGpu:
    index: int
    name: str
    cc: Optional[tuple[int, int]]
    memory_bytes: Optional[int]
    mig: bool
    uuid: Optional[str]


@dataclass(frozen=True)
class NvmlReading:
    driver: Optional[str]
    cuda: Optional[int]  # 12020 for 12.2
    gpus: tuple[NvmlGpu, ...]


class Probes:
    """The machine as detection sees it."""

    def __init__(
        self, *, timeout: float = DEFAULT_TIMEOUT, env: Optional[Mapping[str, str]] = None
    ) -> None:
        self.timeout = timeout
        self.env: Mapping[str, str] = os.environ if env is None else env

    # -- the platform --------------------------------------------------------
    def platform(self) -> str:
        return sys.platform

    def machine(self) -> str:
        return platform.machine()

    def kernel_release(self) -> str:
        return platform.release()

    def libc(self) -> Optional[str]:
        try:
            return os.confstr("CS_GNU_LIBC_VERSION")
        except (AttributeError, ValueError, OSError):
            return None

    def python(self) -> str:
        return f"{sys.version_info[0]}.{sys.version_info[1]}"

    # -- files ----------------------------------------------------------------
    def read(self, path: str, limit: int = 1 << 20) -> Optional[str]:
        """The text of a small regular file (``/proc`` files included), or None."""
        from tfenv.fsutil import read_text

        try:
            return read_text(path, limit=limit, errors="replace")
        except OSError:
            return None

    def exists(self, path: str) -> bool:
        return os.path.exists(path)

    def glob(self, pattern: str) -> list[str]:
        return sorted(glob.glob(pattern))

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)

    # -- commands --------------------------------------------------------------
    def which(self, name: str) -> Optional[str]:
        return shutil.which(name, path=self.env.get("PATH"))

    def run(self, argv: list[str]) -> CommandOutput:
        from tfenv import procs

        try:
            done = procs.run(argv, timeout=self.timeout, env=self.env, errors="replace")
        except subprocess.TimeoutExpired:
            return CommandOutput(None, problem=f"it did not answer within {self.timeout:g} s")
        except OSError as exc:
            return CommandOutput(None, problem=f"it cannot be run ({exc.strerror or exc})")
        except procs.Stopping:
            return CommandOutput(None, problem="tfenv is stopping")
        return CommandOutput(done.returncode, done.stdout, done.stderr)

    # -- the Python environment -----------------------------------------------------
    def distributions(self, wanted: Callable[[str], bool]) -> list[tuple[str, str]]:
        """(name, version) of the installed distributions whose name is ``wanted``,
        read from their metadata, in ``sys.path`` order."""
        from importlib import metadata

        out = []
        for dist in metadata.distributions():
            # Python 3.10+ knows the name from the folder name; skip the others unread
            cheap = getattr(dist, "_normalized_name", None)
            if isinstance(cheap, str) and not wanted(cheap):
                continue
            name = dist.metadata["Name"]
            if name and wanted(str(name)):
                out.append((str(name), str(dist.version)))
        return out

    # -- NVML -------------------------------------------------------------------
    def nvml(self) -> Union[NvmlReading, str, None]:
        """What NVML (``pynvml`` from nvidia-ml-py) reports; None when it is not
        installed, a problem string when it fails or does not answer in time."""
        if self.env.get("TFENV_DETECT_NVML", "1") == "0":
            return None
        try:
            nvml: Any = importlib.import_module("pynvml")
        except ImportError:
            return None
        result: list[Union[NvmlReading, str]] = []

        def work() -> None:
            try:
                result.append(_read_nvml(nvml))
            except Exception as exc:
                result.append(f"NVML failed: {exc or type(exc).__name__}")

        thread = threading.Thread(target=work, name="tfenv-nvml", daemon=True)
        thread.start()
        thread.join(self.timeout)
        if not result:
            return f"NVML did not answer within {self.timeout:g} s"
        return result[0]


def _read_nvml(nvml: Any) -> NvmlReading:
    nvml.nvmlInit()
    try:
        driver = _text(nvml.nvmlSystemGetDriverVersion())
        try:
            cuda: Optional[int] = int(nvml.nvmlSystemGetCudaDriverVersion_v2())
        except Exception:
            cuda = int(nvml.nvmlSystemGetCudaDriverVersion())
        gpus = []
        for i in range(int(nvml.nvmlDeviceGetCount())):
            h = nvml.nvmlDeviceGetHandleByIndex(i)
            gpus.append(
                NvmlGpu(
                    index=i,
                    name=_text(nvml.nvmlDeviceGetName(h)),
                    cc=_try(lambda h=h: tuple(nvml.nvmlDeviceGetCudaComputeCapability(h))),
                    memory_bytes=_try(lambda h=h: int(nvml.nvmlDeviceGetMemoryInfo(h).total)),
                    mig=bool(_try(lambda h=h: nvml.nvmlDeviceGetMigMode(h)[0])),
                    uuid=_try(lambda h=h: _text(nvml.nvmlDeviceGetUUID(h))),
                )
            )
        return NvmlReading(driver=driver, cuda=cuda, gpus=tuple(gpus))
    finally:
        with contextlib.suppress(Exception):  # shutting down is best effort
            nvml.nvmlShutdown()


def _try(fn: Any) -> Any:
    try:
        return fn()
    except Exception:
        return None


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
