"""Match a pasted TensorFlow/CUDA error message against the catalog and explain it.

:func:`explain` finds every catalog entry whose pattern occurs in the text, then turns
what the message names (a DLL or library file name, a compute capability, cuDNN or CUDA
versions) into facts from the knowledge base: which CUDA or cuDNN that is, which
TensorFlow releases were built with it, whether this machine's driver and GPUs fit.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import InvalidVersion, Version

from tfenv.rules.driver import driver_floor
from tfenv.rules.gpu_code import code_for

if TYPE_CHECKING:
    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.errors import ErrorEntry
    from tfenv.kb.metal import MetalPair
    from tfenv.kb.tensorflow import TfBuild

__all__ = ["Explanation", "Match", "explain"]

_SEVERITY_RANK = {"problem": 0, "warning": 1, "harmless": 2}
_DLL = re.compile(r"(?P<name>[a-z]+)64_(?P<code>\d+)\.dll", re.IGNORECASE)
_SONAME = re.compile(r"lib(?P<name>[a-zA-Z]+)(?:_\w+)?\.so(?:\.(?P<ver>[\d.]+))?")
_SM = re.compile(r"\bsm_(?P<num>\d{2,3})\b|compute capability:? (?P<cc>\d+\.\d+)", re.IGNORECASE)


@dataclass(frozen=True)
class Match:
    """One catalog entry found in the text, with what the message names and what follows."""

    entry: ErrorEntry
    excerpt: str
    groups: Mapping[str, str]
    facts: tuple[str, ...] = ()
    elsewhere: Optional[str] = None  # set when the entry is about another platform


@dataclass(frozen=True)
class Explanation:
    matches: tuple[Match, ...]
    lines: int
    notes: tuple[str, ...] = field(default=())

    @property
    def known(self) -> bool:
        return bool(self.matches)

    @property
    def has_problem(self) -> bool:
        return any(m.entry.severity == "problem" for m in self.matches)


@dataclass(frozen=True)
class _Context:
    kb: KnowledgeBase
    host: Optional[HostProfile]
    platform: Optional[str]


def explain(
    text: str,
    kb: KnowledgeBase,
    host: Optional[HostProfile] = None,
    entries: Optional[Sequence[ErrorEntry]] = None,
) -> Explanation:
    """Every catalog entry that occurs in ``text``, most serious first."""
    from tfenv.models.platform import platform_of

    if entries is None:
        from tfenv.kb import errors

        entries = errors.load(kb.root)
    where = platform_of(host.os, host.arch) if host else None
    ctx = _Context(kb, host, where.key if where else None)
    found: list[tuple[int, Match]] = []
    for entry in entries:
        hit = _first_hit(entry, text)
        if hit is not None:
            pos, match = hit
            found.append((pos, _describe(entry, match, text, ctx)))
    found.sort(
        key=lambda pm: (_SEVERITY_RANK[pm[1].entry.severity], pm[1].elsewhere is not None, pm[0])
    )
    return Explanation(matches=tuple(m for _, m in found), lines=len(text.splitlines()))


def _first_hit(entry: ErrorEntry, text: str) -> Optional[tuple[int, re.Match[str]]]:
    best: Optional[re.Match[str]] = None
    for pattern in entry.patterns:
        m = pattern.search(text)
        if m is not None and (best is None or m.start() < best.start()):
            best = m
    return None if best is None else (best.start(), best)


def _line_of(text: str, m: re.Match[str]) -> str:
    start = text.rfind("\n", 0, m.start()) + 1
    end = text.find("\n", m.end())
    line = text[start : end if end >= 0 else len(text)].strip()
    return line if len(line) <= 300 else line[:297] + "..."


def _describe(entry: ErrorEntry, m: re.Match[str], text: str, ctx: _Context) -> Match:
    groups = {k: v for k, v in m.groupdict().items() if v}
    if "cc" not in groups:
        cc = _cc_in_text(text)
        if cc is not None:
            groups["cc"] = cc
    facts: list[str] = []
    for key, derive in _DERIVERS.items():
        if key in groups:
            facts.extend(derive(groups, ctx))
    elsewhere = None
    plats = entry.applies.platforms
    if ctx.platform is not None and plats and ctx.platform not in plats:
        elsewhere = (
            f"This entry is about {', '.join(sorted(plats))}; this machine is {ctx.platform}."
        )
    return Match(entry, _line_of(text, m), groups, tuple(facts), elsewhere)


def _cc_in_text(text: str) -> Optional[str]:
    m = _SM.search(text)
    if m is None:
        return None
    if m.group("cc"):
        return m.group("cc")
    num = m.group("num")
    return f"{num[:-1]}.{num[-1]}"


# -- deriving facts -------------------------------------------------------------------


def _series_list(builds: Sequence[TfBuild]) -> str:
    return ", ".join(str(b.series) for b in builds) or "none"


def _cuda_from_dll_code(code: str) -> Optional[Version]:
    """``110`` -> 11.0, ``101`` -> 10.1, ``12`` -> 12, ``80`` -> 8.0."""
    if len(code) == 3:
        return Version(f"{code[:2]}.{code[2]}")
    if len(code) == 2:
        return Version(code) if int(code) >= 12 else Version(f"{code[0]}.{code[1]}")
    return None


def _builds_with_cuda(ctx: _Context, cuda: Version, os: str) -> list[TfBuild]:
    """Series whose CUDA runtime the named library is: within a CUDA family that has
    minor-version compatibility (11 and later, per nvidia/cuda.yaml) any minor, else
    the same minor."""
    family = ctx.kb.cuda.family(cuda.major)
    any_minor = family is not None and family.min_driver("linux") is not None
    out = []
    for b in ctx.kb.builds:
        cb = b.for_machine(os)
        if cb is None or cb.cuda is None or cb.cuda.major != cuda.major:
            continue
        if any_minor or cb.cuda.minor == cuda.minor:
            out.append(b)
    return out


def _builds_with_cudnn(ctx: _Context, major: int, os: str) -> list[TfBuild]:
    out = []
    for b in ctx.kb.builds:
        cb = b.for_machine(os)
        if cb is not None and cb.cudnn is not None and cb.cudnn.major == major:
            out.append(b)
    return out


def _cuda_facts(ctx: _Context, file: str, cuda: Version, os: str) -> list[str]:
    family = f"{cuda.major}.x" if cuda.major >= 11 else str(cuda)
    builds = _builds_with_cuda(ctx, cuda, os)
    label = "Windows" if os == "windows" else "Linux"
    facts = [
        f"{file} is the CUDA {cuda} library (CUDA {family} names it so).",
        f"TensorFlow series built with CUDA {family} ({label}): {_series_list(builds)}.",
    ]
    facts.extend(_driver_fact(ctx, cuda))
    return facts


def _driver_fact(ctx: _Context, cuda: Version) -> list[str]:
    from tfenv.models.platform import system

    host = ctx.host
    os = system(host.os).build_os if host else None
    if host is None or os is None:
        return []
    floor, _why = driver_floor(ctx.kb, cuda, os)
    have = host.driver_version
    if floor is None:
        return []
    if have is None:
        return [
            f"CUDA {cuda} needs NVIDIA driver {floor} or newer; this machine reports no driver."
        ]
    verdict = "enough" if have >= floor else "too old: update the driver"
    return [
        f"CUDA {cuda} needs NVIDIA driver {floor} or newer; this machine has {have} ({verdict})."
    ]


def _from_dll(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    m = _DLL.search(groups["dll"])
    if m is None:
        return []
    name, code = m.group("name").lower(), m.group("code")
    if name == "cudnn":
        builds = _builds_with_cudnn(ctx, int(code), "windows")
        return [
            f"{groups['dll']} is cuDNN {code}.x.",
            f"TensorFlow series built with cuDNN {code} (Windows): {_series_list(builds)}.",
        ]
    cuda = _cuda_from_dll_code(code)
    return [] if cuda is None else _cuda_facts(ctx, groups["dll"], cuda, "windows")


def _from_soname(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    m = _SONAME.search(groups["soname"])
    if m is None or not m.group("ver"):
        return []
    name, ver = m.group("name"), m.group("ver")
    try:
        v = Version(ver)
    except InvalidVersion:
        return []
    if name == "cudnn":
        builds = _builds_with_cudnn(ctx, v.major, "linux")
        return [
            f"{groups['soname']} is cuDNN {v.major}.x.",
            f"TensorFlow series built with cuDNN {v.major} (Linux): {_series_list(builds)}.",
        ]
    if name in ("cudart", "cublas", "cublasLt") and (v.major >= 11 or len(v.release) > 1):
        return _cuda_facts(ctx, groups["soname"], v, "linux")
    return []


def _from_cc(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    try:
        cc = Version(groups["cc"])
    except InvalidVersion:
        return []
    by: dict[str, list[TfBuild]] = {"native": [], "partly-jit": [], "jit": [], "cannot-load": []}
    for b in ctx.kb.builds:
        code = code_for(b, cc)
        if code is not None:
            by[code.verdict].append(b)
    facts = [f"Compute capability {cc} (sm_{cc.major}{cc.minor})."]
    facts.append(f"Official Linux wheels with native code for it: {_series_list(by['native'])}.")
    if by["partly-jit"]:
        facts.append(
            "Native hand-written kernels, MLIR-generated kernels JIT-compiled from PTX on "
            f"first use: {_series_list(by['partly-jit'])}."
        )
    if by["jit"]:
        facts.append(f"Only PTX (JIT-compiled on first use) in: {_series_list(by['jit'])}.")
    if by["cannot-load"]:
        facts.append(f"Kernels that cannot load on it in: {_series_list(by['cannot-load'])}.")
    if not any(by[k] for k in ("native", "partly-jit", "jit")):
        facts.append("No official TensorFlow 2.x wheel can run on it.")
    return facts


def _from_cudnn_pair(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    loaded, compiled = groups["loaded"], groups["compiled"]
    return [
        f"cuDNN {loaded} was loaded; this TensorFlow was built with cuDNN {compiled}: "
        f"install cuDNN {compiled.split('.')[0]}.x at {compiled} or newer."
    ]


def _from_ptxas(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    driver_cuda, ptxas = groups["driver_cuda"], groups["ptxas"]
    short = ".".join(ptxas.split(".")[:2])
    return [
        f"ptxas is from CUDA {ptxas}, the driver supports CUDA {driver_cuda}: a driver whose CUDA "
        f"version is {short} or newer removes the warning."
    ]


def _from_glibc(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    facts = [f"The wheel needs glibc {groups['glibc']} or newer."]
    if ctx.host is not None and ctx.host.glibc is not None:
        facts.append(f"This machine has glibc {ctx.host.glibc}.")
    return facts


def _from_metal(groups: Mapping[str, str], ctx: _Context) -> list[str]:
    """Which tensorflow-metal goes with which TensorFlow (and with the one installed here)."""
    from tfenv.kb.metal import metal_plugin, newest_paired

    kb, host = ctx.kb, ctx.host
    facts: list[str] = []
    tf = host.package_version("tensorflow") if host else None
    if host is not None and tf is not None:
        metal = host.package_version("tensorflow-metal")
        have = f"This environment has tensorflow {tf}" + (
            f" with tensorflow-metal {metal}" if metal else ""
        )
        try:
            plugin = metal_plugin(kb, Version(tf))
        except InvalidVersion:
            plugin = None
        if plugin is not None:
            facts.append(
                f"{have}; TensorFlow {tf} pairs with tensorflow-metal {plugin.version} "
                f"({plugin.pair.status}): pip install 'tensorflow-metal=={plugin.version}'."
            )
        else:
            facts.append(f"{have}; no tensorflow-metal release is paired with TensorFlow {tf}.")
    newest = newest_paired(kb)
    if newest is not None:
        version, best = newest
        pythons = ", ".join(str(p) for p in best.pythons)
        facts.append(
            f"Newest pair: pip install 'tensorflow=={version}' 'tensorflow-metal=={best.version}' "
            f"(Python {pythons}; {best.pair.status})."
        )
    facts.append("Pairs (Apple's table, checked against the plug-ins): " + _pairs(kb) + ".")
    return facts


def _pairs(kb: KnowledgeBase) -> str:
    """One plug-in per TensorFlow range: Apple's own pairing first, then the newest."""
    best: dict[str, MetalPair] = {}
    for pair in kb.metal.pairs:
        have = best.get(pair.tensorflow_text)
        rank = (pair.status == "established", pair.metal)
        if have is None or rank > (have.status == "established", have.metal):
            best[pair.tensorflow_text] = pair
    out = []
    for pair in sorted(best.values(), key=lambda p: p.metal, reverse=True):
        extra = "" if pair.package == "tensorflow" else f", {pair.package}"
        extra += "" if pair.status == "established" else f", {pair.status}"
        out.append(f"TensorFlow {pair.tensorflow_text}: {pair.metal}{extra}")
    return "; ".join(out)


_DERIVERS: dict[str, Callable[[Mapping[str, str], _Context], list[str]]] = {
    "dll": _from_dll,
    "soname": _from_soname,
    "cc": _from_cc,
    "loaded": _from_cudnn_pair,
    "ptxas": _from_ptxas,
    "glibc": _from_glibc,
    "metal": _from_metal,
}
