"""Why pip or uv finds no TensorFlow to install: which interpreter pip ran on (its list of
versions says), which releases have wheels for it, and what the solver finds instead."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.explain.common import join, pip_command, span, version_or_none
from tfenv.explain.context import Answer, Context
from tfenv.explain.requirements import (
    PLATFORM_TITLES,
    TF_NAMES,
    Req,
    platform_title,
)

if TYPE_CHECKING:
    from tfenv.kb.index import Release
    from tfenv.models.target import Request, Target

__all__ = ["infer_interpreter", "last_wheel", "solver_fix", "tf_answer", "windows_gpu_fix"]


# -- which interpreter pip ran on --------------------------------------------------------


def _pythons(releases: Sequence[Release]) -> list[str]:
    found = {p for r in releases for ws in r.wheels.values() for p in ws.pythons}
    return sorted((p for p in found if p.count(".") == 1), key=lambda p: Version(p))


def _finals(releases: Sequence[Release]) -> list[Release]:
    return [r for r in releases if not r.prerelease and not r.version.is_prerelease]


def infer_interpreter(
    releases: Sequence[Release], listed: Sequence[Version]
) -> tuple[Optional[str], Optional[str]]:
    """(platform, python) whose installable versions are exactly ``listed`` (pip's list), up
    to the newest it lists (the index may have newer releases than the message): either is
    None where several agree equally well or none fits."""
    shown = {v for v in listed if not v.is_prerelease and not v.is_devrelease}
    known = {r.version for r in _finals(releases)}
    if not shown or not known or not shown <= known:
        return None, None
    top = max(shown)
    exact: list[tuple[str, str]] = []
    upto: list[tuple[str, str]] = []
    for platform in PLATFORM_TITLES:
        for python in _pythons(releases):
            have = {r.version for r in _finals(releases) if _has(r, platform, python)}
            if have == shown:
                exact.append((platform, python))
            elif {v for v in have if v <= top} == shown:
                upto.append((platform, python))
    best = exact or upto
    platforms = {p for p, _ in best}
    pythons = {y for _, y in best}
    return (
        platforms.pop() if len(platforms) == 1 else None,
        pythons.pop() if len(pythons) == 1 else None,
    )


def _has(release: Release, platform: Optional[str], python: Optional[str]) -> bool:
    """Whether ``release`` has a wheel for ``platform`` (any when None) and ``python``."""
    places = [platform] if platform is not None else list(release.wheels)
    for place in places:
        ws = release.wheelset(place)
        if ws is not None and (python is None or ws.serves(python)):
            return True
    return False


def _pys(release: Release, platform: Optional[str]) -> list[Version]:
    places = [platform] if platform is not None else list(release.wheels)
    return sorted({Version(p) for place in places if (ws := release.wheelset(place))
                   for p in ws.pythons if p.count(".") == 1})  # fmt: skip


# -- the machine the message is about ---------------------------------------------------


def _machine(ctx: Context, platform: Optional[str], python: Optional[str]) -> Optional[Target]:
    """The machine at hand with what pip's list shows in place of detected facts."""
    from tfenv.explain.context import PLATFORM_MACHINE
    from tfenv.models.target import Target

    m = ctx.machine
    detected = m.detected if m is not None else frozenset()
    changes: dict[str, object] = {}
    open_os = m is None or "os" in detected or "platform" in ctx.from_text
    if platform is not None and open_os and (m is None or m.platform.key != platform):
        changes["os"], changes["arch"] = PLATFORM_MACHINE[platform]
        changes["glibc"] = None
    if python is not None and (m is None or m.python is None or "python" in detected):
        changes["python"] = Version(python)
    if m is None:
        if "os" not in changes:
            return None
        return Target.from_facts(changes)
    try:
        return replace(m, **changes) if changes else m  # type: ignore[arg-type]
    except ValueError:
        return m


# -- TensorFlow's own packages ----------------------------------------------------------


def _tf_facts(
    ctx: Context, req: Req, listed: Optional[list[Version]], platform: Optional[str],
    py: Optional[str],
) -> list[str]:  # fmt: skip
    finals = _finals(ctx.kb.index.releases(req.name))
    if not finals:
        return []
    name, where = req.name, platform_title(platform)
    facts: list[str] = []
    if platform is None and py is None:
        newest = finals[-1]
        per = "; ".join(
            f"{platform_title(p)}: Python {span(_pys(newest, p))}" for p in sorted(newest.wheels)
        )
        facts.append(f"{name} {newest.version} has wheels for {per}.")
        facts.append(
            "pip says 'none' when no release has a wheel for its interpreter: a Python outside "
            "these, a 32-bit Python (TensorFlow publishes 64-bit wheels only), or a machine "
            "without wheels (32-bit Linux, Arm other than aarch64, Windows on Arm). `python -m "
            "pip debug --verbose` shows the interpreter; `tfenv explain --python X.Y --os OS` "
            "answers for it."
        )
        return facts
    pre = any(version_or_none(s.version) is not None and Version(s.version).is_prerelease
              for s in req.spec if "*" not in s.version)  # fmt: skip
    pool = ctx.kb.index.releases(name) if pre else finals
    matching = [r for r in pool if req.spec.contains(r.version, prereleases=True)]
    here = [r.version for r in finals if _has(r, platform, py)]
    if listed is None and here:
        facts.append(
            f"{name} has wheels for Python {py or 'this Python'} on {where} ({min(here)} to "
            f"{max(here)}; Python {py} wheels from {min(here)} on): a pip that lists none "
            "reads an older index or mirror, or runs a 32-bit Python."
        )
    if not matching:
        return [*facts, f"No {name} release on the index tfenv read matches {req.text}."]
    asked = req.text if req.spec else f"{name} (any release)"
    newest = matching[-1]
    if listed is not None and py is None and newest.version not in listed:
        pys = _pys(newest, platform)
        if pys:
            facts.append(
                f"{name} {newest.version} has {where} wheels for Python {span(pys)} only; pip "
                "does not list it, so pip's Python is another one."
            )
    if any(_has(r, platform, py) for r in matching):
        return facts
    if platform is not None and not any(_has(r, platform, None) for r in matching):
        facts.append(_platform_fact(name, asked, newest, finals, platform))
        return facts
    # a bare name is answered by its newest final release: "any release" would claim for
    # the pre-releases too, and one of them may have the wheel
    asked_py = req.text if req.spec else f"{name}'s newest final release"
    facts.append(_python_fact(name, asked_py, newest, matching, finals, platform, py))
    pre_fact = _prerelease_fact(ctx, req, platform, py)
    if pre_fact:  # a final release has none, a pre-release has one: never "no release has"
        facts[-1] = facts[-1].replace(f"; no {name} release has", f"; no final {name} release has")
        facts.append(pre_fact)
    return facts


def prerelease_with(
    ctx: Context, req: Req, platform: Optional[str], py: Optional[str]
) -> list[Release]:
    """Pre-releases matching ``req`` with a wheel for ``platform`` and ``py`` newer than every
    final release that has one (what `pip install --pre` would take)."""
    releases = ctx.kb.index.releases(req.name)
    finals = [r.version for r in _finals(releases) if _has(r, platform, py)]
    top = max(finals) if finals else None
    return [
        r for r in releases
        if (r.prerelease or r.version.is_prerelease) and not r.version.is_devrelease
        and (top is None or r.version > top) and _has(r, platform, py)
        and req.spec.contains(r.version, prereleases=True)
    ]  # fmt: skip


def _prerelease_fact(
    ctx: Context, req: Req, platform: Optional[str], py: Optional[str]
) -> Optional[str]:
    pres = prerelease_with(ctx, req, platform, py)
    if not pres:
        return None
    names = ", ".join(str(r.version) for r in pres[-3:])
    return (
        f"A pre-release has one: {req.name} {names} has a wheel for Python {py or 'this Python'} "
        f"on {platform_title(platform)}; pip takes pre-releases only when asked "
        f"(`pip install --pre {req.name}`, or `{req.name}=={pres[-1].version}`)."
    )


def _python_fact(
    name: str, asked: str, newest: Release, matching: Sequence[Release],
    finals: Sequence[Release], platform: Optional[str], py: Optional[str],
) -> str:  # fmt: skip
    """Why no release asked for has a wheel for this Python, and which one first (last) has."""
    where = platform_title(platform)
    text = f"{asked} has wheels on {where} for Python {span(_pys(newest, platform))}"
    text += f" (in {newest.version}), not {py}"
    with_py = [r.version for r in finals if _has(r, platform, py)]
    if not with_py:
        text += f"; no {name} release has a wheel for Python {py} on {where}"
    elif min(with_py) > newest.version:
        text += f"; Python {py} first gets a {name} wheel in {min(with_py)}"
    elif max(with_py) < matching[0].version:
        text += f"; the last {name} release with Python {py} wheels is {max(with_py)}"
    return text + "."


def _platform_fact(
    name: str, asked: str, newest: Release, finals: Sequence[Release], platform: str
) -> str:
    others = join(sorted(platform_title(p) for p in newest.wheels))
    text = f"{asked} has no {platform_title(platform)} wheel"
    if others:
        text += f" ({newest.version} has them for {others})"
    there = [r.version for r in finals if _has(r, platform, None)]
    if not there:
        return text + f"; {name} publishes none for {platform_title(platform)}."
    if max(there) < newest.version:
        return text + f"; the last {name} with {platform_title(platform)} wheels is {max(there)}."
    return text + f"; the first {name} with {platform_title(platform)} wheels is {min(there)}."


def solver_fix(ctx: Context, req: Req, platform: Optional[str], py: Optional[str]) -> Optional[str]:
    """What resolves: the request as pinned with this Python, with a free Python, and the
    newest release with this Python (on Linux x86_64 when only the Python is known)."""
    from tfenv.models.target import Request, Target

    m = _machine(ctx, platform, py)
    assumed = ""
    if m is None and py is not None:
        m, assumed = Target("linux", "x86_64", python=Version(py)), " (on Linux x86_64)"
    if m is None:
        return None
    spec = req.spec if req.name in TF_NAMES else SpecifierSet()
    request = Request(tf=spec, tf_text=str(spec) or "latest", allow_cpu=True)
    here = ctx.solve(m, request)
    flags = _flags(m, assumed)
    if here.plan is not None:
        return f"`tfenv resolve{flags}` finds {here.plan.summary()}{assumed}."
    parts = _ways(ctx, m, spec, request, assumed)
    if req.name in TF_NAMES and prerelease_with(ctx, req, m.platform.key, py):
        pre = ctx.solve(m, replace(request, pre=True))
        if pre.plan is not None:
            keep = f"keep Python {m.python} and take" if m.python is not None else "take"
            parts.append(
                f"{keep} the pre-release TensorFlow {pre.plan.tensorflow}{assumed} "
                f"(`tfenv resolve{flags} --pre`)"
            )
    if not parts:
        return "; ".join(ctx.solve(m, request, ways_out=True).suggestion_sentences[:2]) or None
    text = "; or ".join(parts)
    return text[0].upper() + text[1:] + "."


def _ways(ctx: Context, m: Target, spec: SpecifierSet, request: Request, assumed: str) -> list[str]:
    """The same series, the request with a free Python, the newest with this Python."""
    from tfenv.models.target import Request

    flags = _flags(m, assumed)
    parts = []
    series = _series_of(spec)
    if series is not None:
        near = ctx.solve(m, Request(tf=series, tf_text=str(series), allow_cpu=True))
        if near.plan is not None:
            parts.append(
                f"take TensorFlow {near.plan.tensorflow} of the same series{assumed} "
                f"(`tfenv resolve{flags} --tf {near.plan.tensorflow}`)"
            )
    if m.python is not None:
        free = ctx.solve(replace(m, python=None), request)
        if free.plan is not None:
            parts.append(
                f"use Python {free.plan.python}: TensorFlow {free.plan.tensorflow} resolves"
                f"{assumed} (`tfenv resolve{_flags(replace(m, python=None), assumed)} --python "
                f"{free.plan.python} --tf {free.plan.tensorflow}`)"
            )
    if spec:
        newest = ctx.solve(m, Request(allow_cpu=True))
        if newest.plan is not None:
            keep = f"keep Python {m.python} and take" if m.python is not None else "take"
            parts.append(
                f"{keep} TensorFlow {newest.plan.tensorflow}{assumed} "
                f"(`tfenv resolve{flags} --tf {newest.plan.tensorflow}`)"
            )
    return parts


def _series_of(spec: SpecifierSet) -> Optional[SpecifierSet]:
    """``==2.11.1`` -> ``==2.11.*`` (None for anything but one exact version)."""
    items = list(spec)
    if len(items) != 1 or items[0].operator != "==" or "*" in items[0].version:
        return None
    v = version_or_none(items[0].version)
    return SpecifierSet(f"=={v.major}.{v.minor}.*") if v is not None else None


def _flags(m: Target, assumed: str) -> str:
    """The machine flags that describe ``m`` for `tfenv resolve`."""
    out = "" if not assumed and "os" in m.detected else f" --os {m.os} --arch {m.arch}"
    if m.python is not None and "python" not in m.detected:
        out += f" --python {m.python}"
    return out


def tf_answer(ctx: Context, req: Req, listed: Optional[list[Version]]) -> Answer:
    releases = ctx.kb.index.releases(req.name)
    platform, python = infer_interpreter(releases, listed) if listed else (None, None)
    facts = []
    if listed and (platform or python):
        shown = sorted(v for v in listed if not v.is_prerelease)
        what = join([x for x in (f"Python {python}" if python else "", platform_title(platform) if
                                 platform else "") if x])  # fmt: skip
        facts.append(
            f"pip lists the {req.name} versions with a wheel for its interpreter: "
            f"{shown[0]} to {shown[-1]} are exactly those for {what}, so pip ran on that."
        )
    m = _machine(ctx, platform, python)
    where = platform or (m.platform.key if m is not None else None)
    py = python or (str(m.python) if m is not None and m.python is not None else None)
    if py is None and ctx.hints.python is not None:
        py = str(ctx.hints.python)
    facts += _tf_facts(ctx, req, listed, where, py)
    if req.name == "tensorflow-gpu" and where == "windows_x86_64":
        return Answer(tuple(facts), windows_gpu_fix(ctx))
    return Answer(tuple(facts), solver_fix(ctx, req, where, py))


def windows_gpu_fix(ctx: Context) -> Optional[str]:
    from tfenv.explain.libraries import windows_gpu_end

    last = windows_gpu_end(ctx.kb)
    if last is None or last.windows is None:
        return None
    gpu = last_wheel(ctx.kb.index.releases("tensorflow-gpu"), "windows_x86_64")
    install = f"tensorflow-gpu=={gpu}" if gpu else f"{last.gpu_package}=={last.series}.*"
    return (
        f"For the GPU on native Windows the last release is TensorFlow {last.series}: "
        f"`{pip_command(ctx, install, os='windows')}` with CUDA {last.windows.cuda} and cuDNN "
        f"{last.windows.cudnn}; newer releases run on the CPU there (pip install tensorflow), "
        f"or on the GPU under WSL2 ({pip_command(ctx, 'tensorflow[and-cuda]', os='wsl2')})."
    )


def last_wheel(releases: Sequence[Release], platform: str) -> Optional[Version]:
    """The newest final release with a wheel for ``platform`` (None: none has one)."""
    have = [r.version for r in releases if r.wheelset(platform) and not r.prerelease]
    return max(have) if have else None
