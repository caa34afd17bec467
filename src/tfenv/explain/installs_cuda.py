"""Why pip cannot install a CUDA wheel the and-cuda extra pins (TensorRT, platforms)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.explain.common import join, span
from tfenv.explain.context import Answer, Context
from tfenv.explain.requirements import Req, parse_req, platform_title

if TYPE_CHECKING:
    from tfenv.kb.index import CudaWheel

__all__ = ["cuda_wheel_answer"]


def _pinned_by(ctx: Context, req: Req) -> list[Version]:
    """TensorFlow releases whose and-cuda extra has exactly this requirement."""
    out = set()
    for r in ctx.kb.index.releases("tensorflow"):
        for ws in r.wheels.values():
            for line in ws.and_cuda or ():
                got = parse_req(line)
                if got is not None and got.name == req.name and got.spec == req.spec:
                    out.add(r.version)
    return sorted(out)


def cuda_wheel_answer(ctx: Context, req: Req, listed: Optional[list[Version]]) -> Answer:
    kb = ctx.kb
    versions = [w for w in kb.index.cuda_versions(req.name) if req.spec.contains(w.version, True)]
    with_wheels = [w for w in versions if w.platforms and not w.yanked]
    where = sorted({p for w in with_wheels for p in w.platforms})
    pinned = [v for v in _pinned_by(ctx, req) if not v.is_prerelease]
    facts = []
    if pinned:
        facts.append(f"tensorflow {span(pinned)} pins {req.text} in its and-cuda extra.")
    fact, elsewhere = _wheel_where(ctx, req, with_wheels, where, listed)
    facts += fact
    if req.name in kb.and_cuda.optional.packages:
        facts.append(kb.and_cuda.optional.summary)
        return Answer(tuple(facts), _optional_fix(ctx, req, pinned))
    if elsewhere:
        return Answer(tuple(facts), _not_linux_fix(ctx, where))
    return Answer(tuple(facts), None)


def _wheel_where(
    ctx: Context, req: Req, with_wheels: Sequence[CudaWheel], where: list[str],
    listed: Optional[list[Version]],
) -> tuple[list[str], bool]:  # fmt: skip
    """Where the pinned wheel installs, against this machine; and whether it is elsewhere."""
    m = ctx.machine
    platform = m.platform.key if m is not None else None
    placeholders = listed is not None and all(v.is_devrelease for v in listed)
    places = join([platform_title(p) for p in where])
    if not with_wheels:
        return [f"{req.text} has no wheels on the package index (only placeholders)."], False
    if platform is not None and platform not in where:
        return [
            f"{req.text} has wheels only for {places}: tensorflow[and-cuda] cannot install on "
            f"{platform_title(platform)}."
        ], True
    if platform is None and placeholders:
        return [
            f"pip lists only placeholder versions: {req.text} has wheels for {places} only, "
            "and pip runs elsewhere."
        ], True
    if m is not None and m.python is not None and platform is not None:
        py = str(m.python)
        if not any(w.installs(platform, py) for w in with_wheels):
            tags = sorted({t for w in with_wheels for t in w.pythons.get(platform, ())},
                          key=lambda t: Version(t.rstrip("+")))  # fmt: skip
            return [f"{req.text} has wheels for Python {', '.join(tags)}, not {py}."], False
    return [], False


def _optional_fix(ctx: Context, req: Req, pinned: list[Version]) -> str:
    later = _first_without(ctx, req.name, pinned)
    fix = "Leave TensorRT out: install the pins `tfenv resolve --emit DIR` writes"
    if pinned:
        fix += f" (`tfenv resolve --tf {pinned[-1]} --emit DIR` pins the and-cuda wheels "
        fix += "without it)"
    if later is not None:
        fix += f", or use TensorFlow {later} or later, whose and-cuda extra has no TensorRT"
    return fix + "."


def _not_linux_fix(ctx: Context, where: list[str]) -> str:
    from tfenv.explain.libraries import windows_gpu_end

    m = ctx.machine
    platform = m.platform.key if m is not None else None
    text = (
        "Install tensorflow without the [and-cuda] extra here: the CUDA wheels it pins exist "
        f"for {join([platform_title(p) for p in where])} only"
    )
    last = windows_gpu_end(ctx.kb)
    if platform in (None, "windows_x86_64") and last is not None:
        text += (
            f"; for the GPU on Windows use WSL2 (native-Windows GPU builds ended with "
            f"TensorFlow {last.series}); macOS has no CUDA build (the Metal plug-in instead)"
        )
    return text + "."


def _first_without(ctx: Context, name: str, pinned: list[Version]) -> Optional[Version]:
    if not pinned:
        return None
    for r in ctx.kb.index.releases("tensorflow"):
        if r.version <= pinned[-1] or r.prerelease:
            continue
        ws = r.wheelset("linux_x86_64")
        if (
            ws is not None
            and ws.and_cuda
            and not any(
                (got := parse_req(line)) is not None and got.name == name for line in ws.and_cuda
            )
        ):
            return r.version
    return None
