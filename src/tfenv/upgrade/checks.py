"""Blockers: can this target run the new release as it is?

Each check is a predicate on a release for the target's platform, answered from
the knowledge base (the same facts the solver uses). When the new release fails
one, the walk from the current release finds the boundary: the last release
that passed (the one to stay on) and the first that failed, whose recorded
changes (``changes.yaml``) are the source of the finding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import Version

from tfenv.kb.cuda import format_driver
from tfenv.resolver.compute import format_caps, gpu_code
from tfenv.resolver.releases import TfOption, tf_options
from tfenv.upgrade.changes import boundary, sources_of, window
from tfenv.upgrade.model import Finding, Severity

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.resolver.target import Target

__all__ = ["Facts", "blockers"]


@dataclass(frozen=True)
class Facts:
    """The question: ``target`` moving from ``start`` to ``end``."""

    kb: KnowledgeBase
    target: Target
    start: Version
    end: Version
    wants_gpu: str  # "cuda", "metal" or "" (the accelerator the target uses now)
    python_severity: Severity = "blocker"  # "warning" when the Python was only inferred

    def option(self, v: Version) -> Optional[TfOption]:
        opts = tf_options(self.kb, "tensorflow", self.target.platform)
        return next((o for o in opts if o.version == v), None)

    @property
    def up(self) -> bool:
        return self.end >= self.start


Check = Callable[[Facts, Version], bool]


def blockers(f: Facts) -> list[Finding]:
    """Every check the new release fails (platform first: without a wheel nothing else counts)."""
    found = _platform(f)
    if found is not None:
        return [found]
    out = [x for x in (_python(f), _glibc(f)) if x is not None]
    if f.wants_gpu == "cuda" and f.target.has_nvidia_gpu:
        gpu_platform = _gpu_platform(f)
        if gpu_platform is not None:
            return [*out, gpu_platform]
        out += [x for x in (_gpu_code(f), _driver(f)) if x is not None]
    if f.wants_gpu == "metal":
        out += [x for x in (_metal(f),) if x is not None]
    return out


# -- the boundary and the finding ------------------------------------------------------


def _finding(
    f: Facts,
    check: Check,
    kind: str,
    summary: str,
    fix: str,
    fallback: Callable[[Version], tuple[str, ...]],
    severity: Severity = "blocker",
) -> Finding:
    edge = boundary(f.kb, f.start, f.end, lambda v: check(f, v))
    prev, first = edge if edge else (None, f.end)
    if prev is not None and check(f, prev):
        stay = f"stay on TensorFlow {prev}" if f.up else f"go no lower than TensorFlow {prev}"
        fix = f"{fix}, or {stay}" if fix else stay[0].upper() + stay[1:]
    changes = window(f.kb, (kind,), prev if prev is not None else f.start, first)
    sources = sources_of(changes) or fallback(first)
    ref = changes[0].id if len(changes) == 1 else None
    return Finding(severity, kind, summary, fix + ".", sources, ref)


def _index_source(f: Facts) -> Callable[[Version], tuple[str, ...]]:
    def source(v: Version) -> tuple[str, ...]:
        release = f.kb.index.release("tensorflow", v)
        return release.provenance.sources[:1] if release else ()

    return source


def _build_source(f: Facts) -> Callable[[Version], tuple[str, ...]]:
    def source(v: Version) -> tuple[str, ...]:
        build = f.kb.builds.for_version(v)
        return build.provenance.sources[:1] if build else ()

    return source


# -- the checks ------------------------------------------------------------------------


def _has_wheel(f: Facts, v: Version) -> bool:
    o = f.option(v)
    return o is not None and o.wheels is not None and not o.stub_problem


def _platform(f: Facts) -> Optional[Finding]:
    if _has_wheel(f, f.end):
        return None
    o = f.option(f.end)
    why = o.stub_problem if o is not None and o.stub_problem else "no wheel on the index"
    summary = f"TensorFlow {f.end} cannot be installed on {f.target.platform}: {why}"
    return _finding(f, _has_wheel, "platform", summary, "", _index_source(f))


def _python_ok(f: Facts, v: Version) -> bool:
    o = f.option(v)
    return o is None or f.target.python is None or f.target.python in o.pythons


def _python(f: Facts) -> Optional[Finding]:
    o = f.option(f.end)
    if o is None or _python_ok(f, f.end):
        return None
    span = ", ".join(str(p) for p in sorted(o.pythons))
    best = max(o.pythons) if o.pythons else None
    summary = (
        f"TensorFlow {f.end} has no wheel for Python {f.target.python} on {f.target.platform} "
        f"(it has {span or 'none'})"
    )
    fix = f"Move this machine's environment to Python {best}" if best else ""
    return _finding(f, _python_ok, "python", summary, fix, _index_source(f), f.python_severity)


def _glibc_floor(f: Facts, v: Version) -> Optional[Version]:
    o = f.option(v)
    return o.wheels.glibc if o is not None and o.wheels is not None else None


def _glibc_ok(f: Facts, v: Version) -> bool:
    floor = _glibc_floor(f, v)
    return floor is None or f.target.glibc is None or f.target.glibc >= floor


def _glibc(f: Facts) -> Optional[Finding]:
    floor = _glibc_floor(f, f.end)
    if floor is None or not f.target.platform.startswith("linux"):
        return None
    if f.target.glibc is None:
        old = _glibc_floor(f, f.start)
        if old == floor:
            return None
        summary = (
            f"The glibc floor moves from {old or 'none'} to {floor} and this machine's glibc "
            "is not known"
        )
        fix = f"Check that the machine has glibc >= {floor} ('ldd --version'), or give --glibc"
        return _finding(f, lambda _f, _v: True, "glibc", summary, fix, _index_source(f), "warning")
    if _glibc_ok(f, f.end):
        return None
    summary = (
        f"TensorFlow {f.end}'s wheels need glibc >= {floor}; this machine has {f.target.glibc}"
    )
    fix = f"Move to a distribution with glibc >= {floor}"
    return _finding(f, _glibc_ok, "glibc", summary, fix, _index_source(f))


def _gpu_build_ok(f: Facts, v: Version) -> bool:
    build = f.kb.builds.for_version(v)
    return build is not None and f.target.platform in build.gpu_platforms


def _gpu_platform(f: Facts) -> Optional[Finding]:
    if _gpu_build_ok(f, f.end):
        return None
    summary = (
        f"TensorFlow {f.end} has no CUDA build for {f.target.platform}: it would run on the "
        "CPU, not the GPU"
    )
    fix = "Use WSL2 with the Linux wheels" if f.target.os == "windows" else ""
    return _finding(f, _gpu_build_ok, "platform", summary, fix, _build_source(f))


def _gpu_code_ok(f: Facts, v: Version) -> bool:
    build = f.kb.builds.for_version(v)
    caps = build.compute if build is not None else None
    if caps is None or f.target.cc is None:
        return True
    return gpu_code(f.target.cc, caps.sass, caps.ptx, caps.sass_partial) is not None


def _gpu_code(f: Facts) -> Optional[Finding]:
    if _gpu_code_ok(f, f.end):
        return None
    build = f.kb.builds.for_version(f.end)
    caps = build.compute if build is not None else None
    code = format_caps(caps.sass, caps.ptx) if caps else "unknown"
    name = f.target.gpu_name or "the GPU"
    summary = (
        f"TensorFlow {f.end} no longer supports {name} (compute capability {f.target.cc}): "
        f"its wheels have {code}"
    )
    lowest = caps.lowest_sass if caps else None
    fix = f"Move to a GPU of compute capability >= {lowest}" if lowest else ""
    return _finding(f, _gpu_code_ok, "gpu-arch", summary, fix, _build_source(f))


def _driver_floor(f: Facts, v: Version) -> tuple[Optional[Version], Optional[Version]]:
    build = f.kb.builds.for_version(v)
    cb = build.for_machine(f.target.os) if build else None
    if cb is None or cb.cuda is None:
        return None, None
    return f.kb.cuda.driver_floor(cb.cuda, f.target.driver_os)[0], cb.cuda


def _driver_ok(f: Facts, v: Version) -> bool:
    floor = _driver_floor(f, v)[0]
    return floor is None or f.target.driver is None or f.target.driver >= floor


def _driver(f: Facts) -> Optional[Finding]:
    floor, cuda = _driver_floor(f, f.end)
    if floor is None:
        return None
    if f.target.driver is None:
        if _driver_floor(f, f.start)[0] == floor:
            return None
        summary = (
            f"TensorFlow {f.end} (CUDA {cuda}) needs an NVIDIA driver >= {format_driver(floor)}; "
            "this machine's driver is not known"
        )
        fix = f"Check 'nvidia-smi' shows a driver >= {format_driver(floor)}, or give --driver"
        return _finding(f, lambda _f, _v: True, "cuda", summary, fix, _build_source(f), "warning")
    if _driver_ok(f, f.end):
        return None
    summary = (
        f"TensorFlow {f.end} is built with CUDA {cuda} and needs an NVIDIA driver >= "
        f"{format_driver(floor)}; this machine has {format_driver(f.target.driver)}"
    )
    fix = f"Install an NVIDIA driver >= {format_driver(floor)}"
    return _finding(f, _driver_ok, "cuda", summary, fix, _build_source(f))


def _metal_ok(f: Facts, v: Version) -> bool:
    from tfenv.resolver.routes import metal_plugin

    return metal_plugin(f.kb, v) is not None


def _metal(f: Facts) -> Optional[Finding]:
    if _metal_ok(f, f.end):
        return None
    summary = (
        f"No tensorflow-metal release works with TensorFlow {f.end}: the Apple GPU goes unused"
    )
    return _finding(f, _metal_ok, "platform", summary, "", _index_source(f))
