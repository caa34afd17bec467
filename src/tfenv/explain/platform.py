"""Answers about the platform: the Metal plug-in, native Windows, the driver's two halves."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.explain.common import nvidia_driver
from tfenv.explain.context import Answer, Context
from tfenv.explain.libraries import windows_facts
from tfenv.i18n import _
from tfenv.kb.prose import status_text

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.metal import MetalPair

__all__ = ["ANSWERS"]

_LIBCUDA = re.compile(r"libcuda reported version is: (?P<v>\d+(?:\.\d+){1,2})")
_KERNEL = re.compile(r"kernel reported version is: (?P<v>\d+(?:\.\d+){1,2})")
_NVML = re.compile(r"NVML library version: (?P<v>\d+\.\d+(?:\.\d+)?)")
_MODULE = re.compile(r"Kernel Module {1,4}(?P<v>\d+\.\d+(?:\.\d+)?)")


def _kernel_module(groups: Mapping[str, str], ctx: Context) -> Answer:
    """The loaded kernel module and the user-space driver library are of different versions."""
    user = groups.get("dso_v") or _first(_LIBCUDA, ctx.text) or _first(_NVML, ctx.text)
    kernel = groups.get("kernel_v") or _first(_KERNEL, ctx.text) or _first(_MODULE, ctx.text)
    u = nvidia_driver(user) if user else None
    k = nvidia_driver(kernel) if kernel else None
    if u is not None and k is not None and k < u:
        text = _(
            "The loaded NVIDIA kernel module is {kernel}, the user-space driver library "
            "(libcuda, NVML) is {user}: the kernel module is older. They come from two driver "
            "installs, typically a driver update without a reboot. CUDA then finds no usable "
            "GPU, whatever TensorFlow, CUDA or cuDNN is installed."
        )
    elif u is not None and k is not None:
        text = _(
            "The loaded NVIDIA kernel module is {kernel}, the user-space driver library "
            "(libcuda, NVML) is {user}: the kernel module is newer. They come from two driver "
            "installs, typically a driver update without a reboot. CUDA then finds no usable "
            "GPU, whatever TensorFlow, CUDA or cuDNN is installed."
        )
    else:
        text = _(
            "The loaded NVIDIA kernel module and the user-space driver library (libcuda, NVML) "
            "are of different versions: they come from two driver installs, typically a driver "
            "update without a reboot. CUDA then finds no usable GPU, whatever TensorFlow, CUDA "
            "or cuDNN is installed."
        )
    return Answer((text.format(kernel=k, user=u),))


def _pip(specs: list[str]) -> str:
    """``pip install SPEC...`` for macOS's shell (a POSIX one)."""
    from tfenv.shells import command

    return command(["pip", "install", *specs], "posix")


def _first(pattern: re.Pattern[str], text: str) -> str:
    m = pattern.search(text)
    return m.group("v") if m else ""


def _metal(groups: Mapping[str, str], ctx: Context) -> Answer:
    """Which tensorflow-metal goes with which TensorFlow (and with the one installed here)."""
    from tfenv.kb.metal import metal_plugin, newest_paired

    kb, host = ctx.kb, ctx.host
    facts: list[str] = _symbol_facts(ctx.text)
    tf = ctx.tf
    if tf is not None:
        metal = host.package_version("tensorflow-metal") if host else None
        have = (
            _("This environment has tensorflow {tf} with tensorflow-metal {metal}").format(
                tf=tf, metal=metal
            )
            if metal
            else _("This environment has tensorflow {tf}").format(tf=tf)
        )
        plugin = metal_plugin(kb, tf)
        pair = kb.metal.paired(tf) or kb.metal.paired(tf, "tensorflow-macos")
        if plugin is not None:
            facts.append(
                _(
                    "{have}; TensorFlow {tf} pairs with tensorflow-metal {metal} "
                    "({status}): {command}."
                ).format(
                    have=have,
                    tf=tf,
                    metal=plugin.version,
                    status=status_text(plugin.pair.status),
                    command=_pip([f"tensorflow-metal=={plugin.version}"]),
                )
            )
        elif pair is not None:
            facts.append(
                _(
                    "{have}; TensorFlow {tf} pairs with tensorflow-metal {metal} on "
                    "{package} {tf} ({status}): {command}."
                ).format(
                    command=_pip([f"{pair.package}=={tf}", f"tensorflow-metal=={pair.metal}"]),
                    have=have,
                    tf=tf,
                    metal=pair.metal,
                    package=pair.package,
                    status=status_text(pair.status),
                )
            )
        else:
            facts.append(
                _("{have}; no tensorflow-metal release is paired with TensorFlow {tf}.").format(
                    have=have, tf=tf
                )
            )
    newest = newest_paired(kb)
    if newest is not None:
        version, best = newest
        pythons = ", ".join(str(p) for p in best.pythons)
        facts.append(
            _("Newest pair: {command} (Python {pythons}; {status}).").format(
                command=_pip([f"tensorflow=={version}", f"tensorflow-metal=={best.version}"]),
                tf=version,
                metal=best.version,
                pythons=pythons,
                status=status_text(best.pair.status),
            )
        )
    facts.append(
        _("Pairs (Apple's table, checked against the plug-ins): {pairs}.").format(pairs=_pairs(kb))
    )
    floor = _macos_fact(ctx, newest[1].version if newest is not None else None)
    if floor:
        facts.append(floor)
    return Answer(tuple(facts))


def _macos_fact(ctx: Context, metal: Optional[Version]) -> Optional[str]:
    """The macOS floor of a tensorflow-metal release (its arm64 wheel's tag), against the
    macOS the text names."""
    release = ctx.kb.index.release("tensorflow-metal", metal) if metal is not None else None
    ws = release.wheelset("macos_arm64") if release is not None else None
    if ws is None or ws.macos is None:
        return None
    values = {"metal": metal, "macos": ws.macos}
    seen = ctx.hints.macos
    if seen is None:
        return _(
            "tensorflow-metal {metal} needs macOS {macos} or later (its arm64 wheel's tag)."
        ).format(**values)
    if seen < ws.macos:
        template = _(
            "tensorflow-metal {metal} needs macOS {macos} or later (its arm64 wheel's tag); "
            "the text shows macOS {seen}: too old: update macOS first."
        )
    else:
        template = _(
            "tensorflow-metal {metal} needs macOS {macos} or later (its arm64 wheel's tag); "
            "the text shows macOS {seen}: new enough."
        )
    return template.format(seen=seen, **values)


_SYMBOL = re.compile(r"ymbol not found(?: in flat namespace)?:? '?(?P<sym>_{1,2}\w{1,300})")


def _symbol_facts(text: str) -> list[str]:
    """Which side is older, from the symbol the plug-in misses."""
    m = _SYMBOL.search(text)
    if m is None:
        return []
    sym = m.group("sym")
    if sym.lstrip("_").startswith("TF_"):
        return [
            _(
                "The plug-in needs {symbol} from TensorFlow's C API, which this TensorFlow lacks: "
                "TensorFlow is older than the plug-in expects (or not the build the plug-in was "
                "made for)."
            ).format(symbol=sym)
        ]
    return [
        _(
            "The plug-in needs the C++ symbol {symbol}, which this TensorFlow no longer exports: "
            "the plug-in is older than this TensorFlow."
        ).format(symbol=sym)
    ]


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
        extra += "" if pair.status == "established" else f", {status_text(pair.status)}"
        out.append(f"TensorFlow {pair.tensorflow_text}: {pair.metal}{extra}")
    return _("; ").join(out)


def _windows_gpu(groups: Mapping[str, str], ctx: Context) -> Answer:
    """Native Windows: no GPU listed, and the end of GPU support after 2.10."""
    facts, fix = _windows(ctx)
    return Answer(facts, fix)


def _windows_runtime(groups: Mapping[str, str], ctx: Context) -> Answer:
    """Native Windows: TensorFlow's extension module failed to load (DLL load failed). The
    facts about CUDA stay, but not a CUDA fix: the catalog's fix (the Visual C++
    redistributable, a 64-bit Python of a served version, AVX) is the one for this message."""
    facts, _fix = _windows(ctx)
    return Answer(facts)


def _windows(ctx: Context) -> tuple[tuple[str, ...], Optional[str]]:
    """What native Windows means for the TensorFlow at hand, and the GPU fix."""
    m = ctx.machine
    if m is not None and not m.system.is_windows:
        return (
            _(
                "This machine is {system}: run `tfenv doctor --import` there; it names "
                "the library, driver or build that keeps TensorFlow off the GPU."
            ).format(system=m.system.title),
        ), None
    facts, fix = windows_facts(ctx)
    tf = ctx.tf
    if m is not None and m.python is not None and tf is not None:
        release = ctx.kb.index.release("tensorflow", tf)
        ws = release.wheelset("windows_x86_64") if release is not None else None
        if ws is not None and not ws.serves(str(m.python)):
            facts.append(
                _("TensorFlow {tf} has Windows wheels for Python {pythons}, not {python}.").format(
                    tf=tf, pythons=", ".join(ws.pythons), python=m.python
                )
            )
    return tuple(facts), fix if tf is not None else None


ANSWERS = {
    "kernel-module": _kernel_module,
    "metal": _metal,
    "windows-gpu": _windows_gpu,
    "windows-runtime": _windows_runtime,
}
