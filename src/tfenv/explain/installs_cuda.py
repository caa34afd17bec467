"""Why pip cannot install a CUDA wheel the and-cuda extra pins (TensorRT, platforms)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.explain.common import join, span
from tfenv.explain.context import Answer, Context
from tfenv.explain.requirements import Req, parse_req, platform_title
from tfenv.i18n import _
from tfenv.kb.prose import prose

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
        facts.append(
            _("tensorflow {versions} pins {requirement} in its and-cuda extra.").format(
                versions=span(pinned), requirement=req.text
            )
        )
    fact, elsewhere = _wheel_where(ctx, req, with_wheels, where, listed)
    facts += fact
    if req.name in kb.and_cuda.optional.packages:
        facts.append(prose(kb.and_cuda.optional, "summary"))
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
    places = join([platform_title(p) for p in where], _("and"))
    values = {"requirement": req.text, "places": places, "platform": platform_title(platform)}
    if not with_wheels:
        text = _("{requirement} has no wheels on the package index (only placeholders).")
        return [text.format(**values)], False
    if platform is not None and platform not in where:
        text = _(
            "{requirement} has wheels only for {places}: tensorflow[and-cuda] cannot install on "
            "{platform}."
        )
        return [text.format(**values)], True
    if platform is None and placeholders:
        text = _(
            "pip lists only placeholder versions: {requirement} has wheels for {places} only, "
            "and pip runs elsewhere."
        )
        return [text.format(**values)], True
    if m is not None and m.python is not None and platform is not None:
        py = str(m.python)
        if not any(w.installs(platform, py) for w in with_wheels):
            tags = sorted({t for w in with_wheels for t in w.pythons.get(platform, ())},
                          key=lambda t: Version(t.rstrip("+")))  # fmt: skip
            text = _("{requirement} has wheels for Python {pythons}, not {python}.")
            return [text.format(requirement=req.text, pythons=", ".join(tags), python=py)], False
    return [], False


def _optional_fix(ctx: Context, req: Req, pinned: list[Version]) -> str:
    later = _first_without(ctx, req.name, pinned)
    if pinned and later is not None:
        fix = _(
            "Leave TensorRT out: install the pins `tfenv resolve --emit DIR` writes (`tfenv "
            "resolve --tf {tf} --emit DIR` pins the and-cuda wheels without it), or use "
            "TensorFlow {later} or later, whose and-cuda extra has no TensorRT."
        )
    elif pinned:
        fix = _(
            "Leave TensorRT out: install the pins `tfenv resolve --emit DIR` writes (`tfenv "
            "resolve --tf {tf} --emit DIR` pins the and-cuda wheels without it)."
        )
    else:
        fix = _("Leave TensorRT out: install the pins `tfenv resolve --emit DIR` writes.")
    return fix.format(tf=pinned[-1] if pinned else "", later=later)


def _not_linux_fix(ctx: Context, where: list[str]) -> str:
    from tfenv.explain.libraries import windows_gpu_end

    m = ctx.machine
    platform = m.platform.key if m is not None else None
    places = join([platform_title(p) for p in where], _("and"))
    last = windows_gpu_end(ctx.kb)
    if platform in (None, "windows_x86_64") and last is not None:
        return _(
            "Install tensorflow without the [and-cuda] extra here: the CUDA wheels it pins exist "
            "for {places} only; for the GPU on Windows use WSL2 (native-Windows GPU builds "
            "ended with TensorFlow {series}); macOS has no CUDA build (the Metal plug-in "
            "instead)."
        ).format(places=places, series=last.series)
    return _(
        "Install tensorflow without the [and-cuda] extra here: the CUDA wheels it pins exist "
        "for {places} only."
    ).format(places=places)


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
