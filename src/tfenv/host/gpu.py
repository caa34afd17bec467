"""NVIDIA driver and GPUs: NVML first, then ``nvidia-smi``, then the kernel module files.

A missing or failing ``nvidia-smi`` is reported as "no usable NVIDIA driver" with
its own words; nothing is guessed around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Protocol

from packaging.version import Version

from tfenv.errors import TfenvError
from tfenv.host import parse
from tfenv.host.probes import NvmlReading, Probes
from tfenv.host.profile import GpuInfo, HostNote
from tfenv.i18n import _
from tfenv.models.platform import system
from tfenv.specs import cc_problem

__all__ = ["QUERY_FIELDS", "CatalogLoader", "GpuFacts", "detect_gpus", "find_nvidia_smi"]

QUERY_FIELDS = ("index", "name", "uuid", "memory.total", "mig.mode.current", "compute_cap")
WSL_LIB = "/usr/lib/wsl/lib"
PROC_VERSION = "/proc/driver/nvidia/version"
SYS_VERSION = "/sys/module/nvidia/version"
_COUNT = re.compile(r"[0-9]{1,12}")  # an index or a size: ASCII digits, never huge
_WINDOWS_SMI = (
    r"C:\Windows\System32\nvidia-smi.exe",
    r"C:\Program Files\NVIDIA Corporation\NVSMI\nvidia-smi.exe",
)


class GpuModelLike(Protocol):
    @property
    def compute_capability(self) -> Version: ...


class CatalogLike(Protocol):
    def find(self, name: str) -> Optional[GpuModelLike]: ...


CatalogLoader = Callable[[], CatalogLike]


def _load_kb_catalog() -> CatalogLike:
    """The GPU catalog as every other command reads it: cached, from ``TFENV_DATA_DIR``
    when set."""
    from tfenv.kb import KnowledgeBase

    catalog: CatalogLike = KnowledgeBase.from_environment().gpus
    return catalog


@dataclass
class GpuFacts:
    driver: Optional[str] = None
    driver_cuda: Optional[Version] = None
    gpus: list[GpuInfo] = field(default_factory=list)
    notes: list[HostNote] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)


def detect_gpus(probes: Probes, os_kind: str, catalog: Optional[CatalogLoader] = None) -> GpuFacts:
    """Driver, highest CUDA the driver supports, and GPUs of this host."""
    facts = GpuFacts()
    if system(os_kind).is_macos:
        facts.notes.append(
            HostNote(_("macOS has no NVIDIA CUDA driver; TensorFlow runs on the CPU here."), "os")
        )
        return facts
    reading = probes.nvml()
    if isinstance(reading, NvmlReading):
        _from_nvml(reading, facts)
        return facts
    smi = find_nvidia_smi(probes, os_kind)
    if smi is None:
        _without_smi(probes, os_kind, facts, nvml_problem=reading)
        return facts
    _from_smi(probes, smi, os_kind, facts, _KbLookup(catalog or _load_kb_catalog, facts))
    if facts.driver is None and isinstance(reading, str):
        facts.notes.append(
            HostNote(_("NVML was tried first: {reading}.").format(reading=reading), "driver")
        )
    return facts


def find_nvidia_smi(probes: Probes, os_kind: str) -> Optional[str]:
    found = probes.which("nvidia-smi")
    if found:
        return found
    candidates: tuple[str, ...] = ()
    if system(os_kind).is_wsl2:
        candidates = (f"{WSL_LIB}/nvidia-smi",)
    elif system(os_kind).is_windows:
        candidates = _WINDOWS_SMI
    return next((c for c in candidates if probes.exists(c)), None)


def _from_nvml(reading: NvmlReading, facts: GpuFacts) -> None:
    facts.driver = reading.driver
    facts.driver_cuda = parse.cuda_int_to_version(reading.cuda or 0)
    facts.sources.update(driver="nvml", driver_cuda="nvml", gpus="nvml")
    for g in reading.gpus:
        cc = Version(f"{g.cc[0]}.{g.cc[1]}") if g.cc else None
        memory = None if g.memory_bytes is None else g.memory_bytes // (1024 * 1024)
        facts.gpus.append(
            GpuInfo(g.index, g.name, cc, "nvml" if cc else None, memory, g.mig, g.uuid)
        )


def _kernel_module_version(probes: Probes) -> tuple[Optional[str], Optional[str]]:
    """(driver version, file it came from) from the loaded Linux kernel module."""
    text = probes.read(PROC_VERSION)
    if text is not None:
        version = parse.parse_proc_driver_version(text)
        if version:
            return version, PROC_VERSION
    text = probes.read(SYS_VERSION)
    if text is not None:
        version = parse.parse_sys_module_version(text)
        if version:
            return version, SYS_VERSION
    return None, None


def _without_smi(
    probes: Probes, os_kind: str, facts: GpuFacts, nvml_problem: Optional[str]
) -> None:
    tried = f" ({nvml_problem})" if nvml_problem else ""
    version, source = (
        (None, None) if not system(os_kind).is_linux else _kernel_module_version(probes)
    )
    if version and source:
        facts.driver = version
        facts.sources["driver"] = source
        facts.notes.append(
            HostNote(
                _(
                    "nvidia-smi was not found{tried}; the NVIDIA kernel module {version} is "
                    "loaded (read from {source}), so GPUs and the CUDA version the driver "
                    "supports are unknown."
                ).format(tried=tried, version=version, source=source),
                "driver",
            )
        )
        return
    if system(os_kind).is_linux:
        text = _(
            "No NVIDIA driver found: nvidia-smi is not on PATH{tried} and no NVIDIA kernel "
            "module is loaded."
        )
    elif system(os_kind).is_wsl2:
        text = _("No NVIDIA driver found: nvidia-smi is not on PATH or in {wsl_lib}{tried}.")
    else:
        text = _("No NVIDIA driver found: nvidia-smi is not on PATH{tried}.")
    facts.notes.append(HostNote(text.format(tried=tried, wsl_lib=WSL_LIB), "driver"))


def _from_smi(probes: Probes, smi: str, os_kind: str, facts: GpuFacts, kb: _KbLookup) -> None:
    out = probes.run([smi])
    failure = out.problem or parse.smi_failure(out.text)
    header = None if out.problem else parse.parse_smi_header(out.text)
    if failure or header is None:
        facts.notes.append(
            HostNote(
                _("No usable NVIDIA driver: nvidia-smi failed: {failure}.").format(failure=failure),
                "driver",
            )
        )
        if system(os_kind).is_linux:
            version, source = _kernel_module_version(probes)
            if version:
                facts.notes.append(
                    HostNote(
                        _(
                            "The NVIDIA kernel module reports version {version} ({source}), "
                            "but nvidia-smi cannot use it."
                        ).format(version=version, source=source),
                        "driver",
                    )
                )
        return
    facts.driver = header.driver
    facts.driver_cuda = header.cuda
    facts.sources.update(driver="nvidia-smi", gpus="nvidia-smi")
    if header.cuda is not None:
        facts.sources["driver_cuda"] = "nvidia-smi"
    elif header.cuda_raw:
        facts.notes.append(
            HostNote(
                _(
                    "nvidia-smi shows the driver's CUDA version as {cuda_raw!r}; the highest "
                    "CUDA version it supports is unknown."
                ).format(cuda_raw=header.cuda_raw),
                "driver_cuda",
            )
        )
    else:
        facts.notes.append(
            HostNote(
                _("nvidia-smi does not show which CUDA version the driver supports."), "driver_cuda"
            )
        )
    if system(os_kind).is_wsl2:
        _wsl_notes(probes, header.driver, facts)
    rows = {r.index: r for r in parse.parse_smi_table(out.stdout)}
    queried = _query(probes, smi, facts)
    for index in sorted(set(rows) | set(queried)):
        facts.gpus.append(_merge(index, rows.get(index), queried.get(index), kb))


def _wsl_notes(probes: Probes, driver: Optional[str], facts: GpuFacts) -> None:
    """The driver a WSL2 guest sees is the Windows host's: said about the driver. A
    missing libcuda.so.1 is a fact of the WSL2 guest, whatever the driver: said about
    the OS."""
    facts.notes.append(
        HostNote(
            _("WSL2: the NVIDIA driver {driver} is the Windows host's driver.").format(
                driver=driver
            ),
            "driver",
        )
    )
    if not probes.exists(f"{WSL_LIB}/libcuda.so.1"):
        facts.notes.append(
            HostNote(
                _("WSL2: {wsl_lib}/libcuda.so.1 is missing; CUDA will not load.").format(
                    wsl_lib=WSL_LIB
                ),
                "os",
            )
        )


def _query(probes: Probes, smi: str, facts: GpuFacts) -> dict[int, dict[str, Optional[str]]]:
    fields = list(QUERY_FIELDS)
    for _attempt in range(3):
        out = probes.run([smi, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"])
        bad = parse.smi_invalid_field(out.text)
        if bad in fields and bad != "index":
            fields.remove(bad)  # compute_cap is new in driver 510; mig.mode in 450
            continue
        if out.problem or out.returncode != 0:
            why = out.problem or (
                parse.smi_failure(out.text) if out.text.strip() else f"exit status {out.returncode}"
            )
            facts.notes.append(
                HostNote(
                    _("nvidia-smi --query-gpu failed ({why}); GPU names may be cut.").format(
                        why=why
                    ),
                    "gpus",
                )
            )
            return {}
        rows = _by_index(parse.parse_smi_query(out.stdout, fields))
        if not rows:
            facts.notes.append(
                HostNote(_("nvidia-smi --query-gpu listed no GPUs; GPU names may be cut."), "gpus")
            )
        return rows
    return {}


def _by_index(rows: list[dict[str, Optional[str]]]) -> dict[int, dict[str, Optional[str]]]:
    out = {}
    for row in rows:
        index = row.get("index")
        if index is not None and _COUNT.fullmatch(index):
            out[int(index)] = row
    return out


def _merge(
    index: int,
    row: Optional[parse.SmiGpuRow],
    q: Optional[dict[str, Optional[str]]],
    kb: _KbLookup,
) -> GpuInfo:
    q = q or {}
    name = q.get("name") or (row.name if row else f"GPU {index}")
    memory_text = q.get("memory.total")
    memory = int(memory_text) if memory_text and _COUNT.fullmatch(memory_text) else None
    if memory is None and row is not None:
        memory = row.memory_mib
    mig_text = q.get("mig.mode.current")
    mig = mig_text == "Enabled" if mig_text else bool(row and row.mig)
    cc = parse.release_of(q.get("compute_cap") or "")
    if cc is not None and cc_problem(cc) is not None:
        cc = None  # not a compute capability any GPU has: unknown, as if not reported
    cc_source: Optional[str] = "nvidia-smi" if cc else None
    if cc is None:
        cc = kb.compute_capability(name)
        cc_source = "kb" if cc else None
    return GpuInfo(index, name, cc, cc_source, memory, mig, q.get("uuid"))


class _KbLookup:
    """Compute capability by GPU name from the knowledge base, loaded on first use."""

    def __init__(self, loader: CatalogLoader, facts: GpuFacts) -> None:
        self._loader = loader
        self._facts = facts
        self._catalog: Optional[CatalogLike] = None
        self._failed = False
        self._seen: dict[str, Optional[Version]] = {}

    def compute_capability(self, name: str) -> Optional[Version]:
        if name in self._seen:
            return self._seen[name]
        catalog = self._get()
        model = catalog.find(name) if catalog is not None else None
        cc = None if model is None else model.compute_capability
        self._seen[name] = cc
        if cc is None and catalog is not None:
            why = (
                "nvidia-smi cut the name short"
                if name.endswith("...")
                else "the knowledge base does not list this GPU (or the name is ambiguous)"
            )
            self._facts.notes.append(
                HostNote(
                    _(
                        "The compute capability of {name!r} is unknown: nvidia-smi does not "
                        "report it and {why}."
                    ).format(name=name, why=why),
                    "gpus",
                )
            )
        return cc

    def _get(self) -> Optional[CatalogLike]:
        if self._catalog is None and not self._failed:
            try:
                self._catalog = self._loader()
            except (ImportError, TfenvError) as exc:
                self._failed = True
                self._facts.notes.append(
                    HostNote(
                        _(
                            "The knowledge base's GPU list cannot be read ({exc}); compute "
                            "capabilities nvidia-smi does not report stay unknown."
                        ).format(exc=exc),
                        "gpus",
                    )
                )
        return self._catalog
