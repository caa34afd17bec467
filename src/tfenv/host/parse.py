"""Pure parsers for what the host probes return: text in, facts out, no I/O.

Each is tested on outputs recorded on real machines (tests/data/host/).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Optional, Sequence

from packaging.version import Version

from tfenv.specs import to_version

__all__ = [
    "SmiGpuRow",
    "SmiHeader",
    "cuda_int_to_version",
    "is_wsl_kernel",
    "parse_cuda_version_file",
    "parse_cudnn_header",
    "parse_glibc",
    "parse_nvcc",
    "parse_proc_driver_version",
    "parse_smi_header",
    "parse_smi_query",
    "parse_smi_table",
    "parse_sys_module_version",
    "release_of",
    "smi_failure",
    "smi_invalid_field",
]

_DRIVER = r"[0-9]{1,5}(?:\.[0-9]{1,5}){1,3}(?![0-9])"  # bounded: never a huge number


# -- nvidia-smi, the human table ---------------------------------------------


@dataclass(frozen=True)
class SmiHeader:
    """The top line of plain ``nvidia-smi``: versions of the tool, driver and CUDA."""

    smi: Optional[str]
    driver: Optional[str]
    cuda: Optional[Version]
    cuda_raw: Optional[str]  # what stood after "CUDA Version:" (e.g. "ERR!") when not a version


_SMI_RE = re.compile(r"NVIDIA-SMI\s+(" + _DRIVER + r")")
# classic header "Driver Version: 535.104.05", newer "KMD Version: 610.43.02"
_DRIVER_RE = re.compile(r"(?:Driver|KMD) Version:\s*(" + _DRIVER + r")")
# classic "CUDA Version: 12.2", newer "CUDA UMD Version: 13.3"; may read "ERR!" or "N/A"
_CUDA_RE = re.compile(r"CUDA (?:UMD )?Version:\s*([^\s|]+)")


def parse_smi_header(text: str) -> Optional[SmiHeader]:
    """The versions on the header line, or None when ``text`` has no header."""
    for line in text.splitlines():
        if "NVIDIA-SMI" not in line or "Version:" not in line:
            continue
        smi = _SMI_RE.search(line)
        drv = _DRIVER_RE.search(line)
        cuda = _CUDA_RE.search(line)
        cuda_raw = cuda.group(1) if cuda else None
        return SmiHeader(
            smi=smi.group(1) if smi else None,
            driver=drv.group(1) if drv else None,
            cuda=_version(cuda_raw),
            cuda_raw=cuda_raw,
        )
    return None


@dataclass(frozen=True)
class SmiGpuRow:
    """One GPU in the table of plain ``nvidia-smi`` (names may be cut: ``NVIDIA A100-SXM...``)."""

    index: int
    name: str
    memory_mib: Optional[int]
    mig: Optional[bool]  # None when this driver's table has no MIG column


# "|   0  NVIDIA A100-SXM4-40GB          On  |" and, on Windows, "... WDDM  |"
_ROW_RE = re.compile(r"^\|\s+([0-9]{1,4})\s{2,}(.+?)\s+(On|Off|WDDM|TCC|N/A)\s*\|")
_MEM_RE = re.compile(r"([0-9]{1,12})\s*MiB\s*/\s*([0-9]{1,12})\s*MiB")
_MIG_RE = re.compile(r"\b(Enabled|Disabled)\s*\|\s*$")


def parse_smi_table(text: str) -> list[SmiGpuRow]:
    """The GPUs of the first table (the MIG-devices and processes tables are ignored)."""
    rows: list[SmiGpuRow] = []
    lines = [ln.strip() for ln in text.splitlines()]  # pasted outputs are often indented
    start = next((i for i, ln in enumerate(lines) if ln.startswith("|====")), None)
    if start is None:
        return rows
    block: list[str] = []
    for line in [*lines[start + 1 :], ""]:
        if not line.strip() or line.startswith("+"):
            row = _row(block)
            if row is not None:
                rows.append(row)
            block = []
            if not line.strip():
                break
            continue
        block.append(line)
    return rows


def _row(block: list[str]) -> Optional[SmiGpuRow]:
    if not block:
        return None
    head = _ROW_RE.match(block[0])
    if head is None:
        return None
    memory = mig = None
    for line in block[1:]:
        mem = _MEM_RE.search(line)
        if mem and memory is None:
            memory = int(mem.group(2))
        m = _MIG_RE.search(line)
        if m:
            mig = m.group(1) == "Enabled"
    return SmiGpuRow(int(head.group(1)), head.group(2).strip(), memory, mig)


_FAILURE_MARKERS = (
    "NVIDIA-SMI has failed",
    "Failed to initialize NVML",
    "No devices were found",
    "Unable to determine the device handle",
    "couldn't communicate with the NVIDIA driver",
)


def smi_failure(text: str) -> Optional[str]:
    """The error ``nvidia-smi`` printed instead of a table, as one line; None if it worked."""
    if parse_smi_header(text) is not None:
        return None
    lines = [" ".join(ln.split()) for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if any(marker in line for marker in _FAILURE_MARKERS):
            # "Make sure that the latest NVIDIA driver is installed..." is advice, not the cause
            return line.split(" Make sure")[0].rstrip(".")
        if i > 20:
            break
    return lines[0].rstrip(".") if lines else "it printed nothing"


# -- nvidia-smi --query-gpu ---------------------------------------------------

_INVALID_FIELD_RE = re.compile(r'Field "([^"]+)" is not a valid field to query')


def smi_invalid_field(text: str) -> Optional[str]:
    """The field an older ``nvidia-smi`` refused (``compute_cap`` before driver 510)."""
    m = _INVALID_FIELD_RE.search(text)
    return m.group(1) if m else None


def parse_smi_query(text: str, fields: Sequence[str]) -> list[dict[str, Optional[str]]]:
    """Rows of ``--query-gpu=<fields> --format=csv`` (with or without header and units).

    Each row maps a requested field to its text, or None for "[N/A]"/"N/A"; units
    such as " MiB" are removed.
    """
    rows: list[dict[str, Optional[str]]] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        cells = [c.strip() for c in line.split(",")]
        if _is_header(cells, fields):
            continue
        if len(cells) != len(fields):
            continue  # a stray warning line, not a row
        rows.append({f: _cell(c) for f, c in zip(fields, cells)})
    return rows


def _is_header(cells: list[str], fields: Sequence[str]) -> bool:
    return bool(cells) and cells[0].split(" [")[0] == fields[0]


def _cell(text: str) -> Optional[str]:
    if text in ("[N/A]", "N/A", "[Not Supported]", "[Unknown Error]", ""):
        return None
    return re.sub(r"\s+(MiB|MB|W|%|MHz|C)$", "", text)


# -- the kernel module ----------------------------------------------------------

# "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 ..." and the
# open modules' "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  565.57.01  Release"
_PROC_RE = re.compile(r"NVRM version:.*?Kernel Module(?:\s+for\s+\S+)?\s+(" + _DRIVER + r")\b")


def parse_proc_driver_version(text: str) -> Optional[str]:
    """The driver version from ``/proc/driver/nvidia/version``."""
    m = _PROC_RE.search(text)
    return m.group(1) if m else None


def parse_sys_module_version(text: str) -> Optional[str]:
    """The driver version from ``/sys/module/nvidia/version`` (the file holds just it)."""
    value = text.strip()
    return value if re.fullmatch(_DRIVER, value) else None


# -- CUDA toolkit and cuDNN ------------------------------------------------------

_NVCC_RE = re.compile(r"release\s+(\d+\.\d+)")


def parse_nvcc(text: str) -> Optional[Version]:
    """The CUDA release from ``nvcc --version`` ("Cuda compilation tools, release 12.2, ...")."""
    m = _NVCC_RE.search(text)
    return _version(m.group(1)) if m else None


def parse_cuda_version_file(text: str) -> Optional[Version]:
    """The CUDA release from a toolkit's ``version.json`` or older ``version.txt``."""
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except (ValueError, RecursionError):
            return None
        cuda = data.get("cuda") if isinstance(data, dict) else None
        raw = cuda.get("version") if isinstance(cuda, dict) else None
        return release_of(raw) if isinstance(raw, str) else None
    m = re.search(r"CUDA Version\s+(\d+(?:\.\d+)+)", text)
    return release_of(m.group(1)) if m else None


_CUDNN_RE = re.compile(r"#define\s+CUDNN_(MAJOR|MINOR|PATCHLEVEL)\s+([0-9]{1,6})\b")


def parse_cudnn_header(text: str) -> Optional[Version]:
    """The cuDNN version from ``cudnn_version.h`` (cuDNN 8+) or ``cudnn.h`` (7 and older)."""
    parts = {k: v for k, v in _CUDNN_RE.findall(text)}
    if "MAJOR" not in parts or "MINOR" not in parts:
        return None
    return Version(f"{parts['MAJOR']}.{parts['MINOR']}.{parts.get('PATCHLEVEL', '0')}")


# -- the operating system -----------------------------------------------------------


def parse_glibc(text: str) -> Optional[Version]:
    """The glibc version from ``os.confstr('CS_GNU_LIBC_VERSION')`` ("glibc 2.35") or
    the first line of ``ldd --version`` ("ldd (Ubuntu GLIBC 2.35-0ubuntu3.4) 2.35")."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    m = re.search(r"(\d+\.\d+)\s*$", first) or re.search(r"glibc\s+(\d+\.\d+)", first, re.I)
    return _version(m.group(1)) if m else None


def is_wsl_kernel(release: str) -> Optional[int]:
    """2 for a WSL2 kernel ("5.15.146.1-microsoft-standard-WSL2"), 1 for WSL1
    ("4.4.0-19041-Microsoft"), None for any other kernel."""
    low = release.lower()
    if "microsoft" not in low:
        return None
    if "wsl2" in low or "microsoft-standard" in low:
        return 2
    return 1


# -- versions ---------------------------------------------------------------------


def cuda_int_to_version(value: int) -> Optional[Version]:
    """NVML/CUDA encode 12.2 as 12020."""
    if value <= 0:
        return None
    return Version(f"{value // 1000}.{(value % 1000) // 10}")


def release_of(text: str) -> Optional[Version]:
    """Major.minor of a version text ("11.8.20220929" -> 11.8)."""
    v = _version(text)
    if v is None or len(v.release) < 2:
        return v
    return Version(f"{v.release[0]}.{v.release[1]}")


def _version(text: Optional[str]) -> Optional[Version]:
    if not text:
        return None
    try:
        return to_version(text)
    except ValueError:
        return None
