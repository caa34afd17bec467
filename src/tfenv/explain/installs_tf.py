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
from tfenv.i18n import _
from tfenv.rerun import line_for

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
        return _any_interpreter_facts(name, finals[-1])
    pre = any(version_or_none(s.version) is not None and Version(s.version).is_prerelease
              for s in req.spec if "*" not in s.version)  # fmt: skip
    pool = ctx.kb.index.releases(name) if pre else finals
    matching = [r for r in pool if req.spec.contains(r.version, prereleases=True)]
    here = [r.version for r in finals if _has(r, platform, py)]
    if listed is None and here:
        facts.append(
            _(
                "{name} has wheels for Python {python} on {where} ({first} to {last}; Python "
                "{py} wheels from {first} on): a pip that lists none reads an older index or "
                "mirror, or runs a 32-bit Python."
            ).format(
                name=name,
                python=py or _("this Python"),
                where=where,
                first=min(here),
                last=max(here),
                py=py,
            )
        )
    if not matching:
        none = _("No {name} release on the index tfenv read matches {request}.")
        return [*facts, none.format(name=name, request=req.text)]
    asked = req.text if req.spec else _("{name} (any release)").format(name=name)
    newest = matching[-1]
    if listed is not None and py is None and newest.version not in listed:
        pys = _pys(newest, platform)
        if pys:
            facts.append(
                _(
                    "{name} {version} has {where} wheels for Python {pythons} only; pip does "
                    "not list it, so pip's Python is another one."
                ).format(name=name, version=newest.version, where=where, pythons=span(pys))
            )
    if any(_has(r, platform, py) for r in matching):
        return facts
    if platform is not None and not any(_has(r, platform, None) for r in matching):
        facts.append(_platform_fact(name, asked, newest, finals, platform))
        return facts
    # a bare name is answered by its newest final release: "any release" would claim for
    # the pre-releases too, and one of them may have the wheel
    asked_py = req.text if req.spec else _("{name}'s newest final release").format(name=name)
    # a final release has none, a pre-release has one: never "no release has"
    pre_fact = _prerelease_fact(ctx, req, platform, py)
    facts.append(
        _python_fact(name, asked_py, newest, (matching, finals), platform, py, bool(pre_fact))
    )
    if pre_fact:
        facts.append(pre_fact)
    return facts


def _any_interpreter_facts(name: str, newest: Release) -> list[str]:
    """The platforms and Pythons of the newest release, when pip's interpreter is not known."""
    facts: list[str] = []
    per = "; ".join(
        f"{platform_title(p)}: Python {span(_pys(newest, p))}" for p in sorted(newest.wheels)
    )
    facts.append(
        _("{name} {version} has wheels for {platforms}.").format(
            name=name, version=newest.version, platforms=per
        )
    )
    facts.append(
        _(
            "pip says 'none' when no release has a wheel for its interpreter: a Python outside "
            "these, a 32-bit Python (TensorFlow publishes 64-bit wheels only), or a machine "
            "without wheels (32-bit Linux, Arm other than aarch64, Windows on Arm). `python -m "
            "pip debug --verbose` shows the interpreter; `tfenv explain --python X.Y --os OS` "
            "answers for it."
        )
    )
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
    return _(
        "A pre-release has one: {name} {versions} has a wheel for Python {python} on {where}; "
        "pip takes pre-releases only when asked (`{command}`, or `{name}=={last}`)."
    ).format(
        command=pip_command(ctx, "--pre", req.name),
        name=req.name,
        versions=names,
        python=py or _("this Python"),
        where=platform_title(platform),
        last=pres[-1].version,
    )


def _python_fact(
    name: str, asked: str, newest: Release, releases: tuple[Sequence[Release], Sequence[Release]],
    platform: Optional[str], py: Optional[str], pre: bool,
) -> str:  # fmt: skip
    """Why no release asked for has a wheel for this Python, and which one first (last) has
    (``releases``: those asked for and the final ones; ``pre``: a pre-release has one)."""
    matching, finals = releases
    values = {
        "asked": asked,
        "where": platform_title(platform),
        "pythons": span(_pys(newest, platform)),
        "newest": newest.version,
        "py": py,
        "name": name,
    }
    with_py = [r.version for r in finals if _has(r, platform, py)]
    if not with_py and pre:
        template = _(
            "{asked} has wheels on {where} for Python {pythons} (in {newest}), not {py}; no "
            "final {name} release has a wheel for Python {py} on {where}."
        )
    elif not with_py:
        template = _(
            "{asked} has wheels on {where} for Python {pythons} (in {newest}), not {py}; no "
            "{name} release has a wheel for Python {py} on {where}."
        )
    elif min(with_py) > newest.version:
        template = _(
            "{asked} has wheels on {where} for Python {pythons} (in {newest}), not {py}; "
            "Python {py} first gets a {name} wheel in {first}."
        )
    elif max(with_py) < matching[0].version:
        template = _(
            "{asked} has wheels on {where} for Python {pythons} (in {newest}), not {py}; the "
            "last {name} release with Python {py} wheels is {last}."
        )
    else:
        template = _("{asked} has wheels on {where} for Python {pythons} (in {newest}), not {py}.")
    if with_py:
        values.update(first=min(with_py), last=max(with_py))
    return template.format(**values)


def _platform_fact(
    name: str, asked: str, newest: Release, finals: Sequence[Release], platform: str
) -> str:
    others = join(sorted(platform_title(p) for p in newest.wheels), _("and"))
    values = {
        "asked": asked,
        "platform": platform_title(platform),
        "newest": newest.version,
        "others": others,
        "name": name,
    }
    if others:
        text = _("{asked} has no {platform} wheel ({newest} has them for {others})")
    else:
        text = _("{asked} has no {platform} wheel")
    values["has_none"] = text.format(**values)
    there = [r.version for r in finals if _has(r, platform, None)]
    if not there:
        return _("{has_none}; {name} publishes none for {platform}.").format(**values)
    if max(there) < newest.version:
        template = _("{has_none}; the last {name} with {platform} wheels is {version}.")
        return template.format(version=max(there), **values)
    template = _("{has_none}; the first {name} with {platform} wheels is {version}.")
    return template.format(version=min(there), **values)


def solver_fix(ctx: Context, req: Req, platform: Optional[str], py: Optional[str]) -> Optional[str]:
    """What resolves: the request as pinned with this Python, with a free Python, and the
    newest release with this Python (on Linux x86_64 when only the Python is known)."""
    from tfenv.models.target import Request, Target

    m = _machine(ctx, platform, py)
    assumed = ""
    if m is None and py is not None:
        m, assumed = Target("linux", "x86_64", python=Version(py)), _(" (on Linux x86_64)")
    if m is None:
        return None
    spec = req.spec if req.name in TF_NAMES else SpecifierSet()
    request = Request(tf=spec, tf_text=str(spec) or "latest", allow_cpu=True)
    here = ctx.solve(m, request)
    if here.plan is not None:
        return _("`{command}` finds {plan}{assumed}.").format(
            command=line_for(m, request, here.plan.tensorflow),
            plan=here.plan.summary(),
            assumed=assumed,
        )
    parts = _ways(ctx, m, spec, request, assumed)
    if req.name in TF_NAMES and prerelease_with(ctx, req, m.platform.key, py):
        pre_request = replace(request, pre=True)
        pre = ctx.solve(m, pre_request)
        if pre.plan is not None:
            if m.python is not None:
                way = _(
                    "keep Python {python} and take the pre-release TensorFlow {tf}{assumed} "
                    "(`{command}`)"
                )
            else:
                way = _("take the pre-release TensorFlow {tf}{assumed} (`{command}`)")
            parts.append(
                way.format(
                    python=m.python,
                    tf=pre.plan.tensorflow,
                    assumed=assumed,
                    command=line_for(m, pre_request, pre.plan.tensorflow),
                )
            )
    if not parts:
        return "; ".join(ctx.solve(m, request, ways_out=True).suggestion_sentences[:2]) or None
    text = _("; or ").join(parts)
    return _("{ways}.").format(ways=text[0].upper() + text[1:])


def _ways(ctx: Context, m: Target, spec: SpecifierSet, request: Request, assumed: str) -> list[str]:
    """The same series, the request with a free Python, the newest with this Python; each
    with the `tfenv resolve` line that gives it (:func:`tfenv.rerun.line_for`)."""
    from tfenv.models.target import Request

    parts = []
    series = _series_of(spec)
    if series is not None:
        near = ctx.solve(m, Request(tf=series, tf_text=str(series), allow_cpu=True))
        if near.plan is not None:
            tf = near.plan.tensorflow
            parts.append(
                _("take TensorFlow {tf} of the same series{assumed} (`{command}`)").format(
                    tf=tf, assumed=assumed, command=line_for(m, _pinned(tf), tf)
                )
            )
    if m.python is not None:
        free = ctx.solve(replace(m, python=None), request)
        if free.plan is not None and free.plan.python is not None:
            tf = free.plan.tensorflow
            other = replace(m, python=Version(free.plan.python))
            parts.append(
                _("use Python {python}: TensorFlow {tf} resolves{assumed} (`{command}`)").format(
                    python=free.plan.python,
                    tf=tf,
                    assumed=assumed,
                    command=line_for(other, _pinned(tf), tf),
                )
            )
    if spec:
        newest = ctx.solve(m, Request(allow_cpu=True))
        if newest.plan is not None:
            tf = newest.plan.tensorflow
            if m.python is not None:
                way = _("keep Python {python} and take TensorFlow {tf}{assumed} (`{command}`)")
            else:
                way = _("take TensorFlow {tf}{assumed} (`{command}`)")
            parts.append(
                way.format(
                    python=m.python, tf=tf, assumed=assumed, command=line_for(m, _pinned(tf), tf)
                )
            )
    return parts


def _pinned(tf: str) -> Request:
    """The request for release ``tf`` exactly, a CPU plan accepted (as explain solves)."""
    from tfenv.models.target import Request

    return Request(tf=SpecifierSet(f"=={tf}"), tf_text=tf, allow_cpu=True)


def _series_of(spec: SpecifierSet) -> Optional[SpecifierSet]:
    """``==2.11.1`` -> ``==2.11.*`` (None for anything but one exact version)."""
    items = list(spec)
    if len(items) != 1 or items[0].operator != "==" or "*" in items[0].version:
        return None
    v = version_or_none(items[0].version)
    return SpecifierSet(f"=={v.major}.{v.minor}.*") if v is not None else None


def tf_answer(ctx: Context, req: Req, listed: Optional[list[Version]]) -> Answer:
    releases = ctx.kb.index.releases(req.name)
    platform, python = infer_interpreter(releases, listed) if listed else (None, None)
    facts = []
    if listed and (platform or python):
        shown = sorted(v for v in listed if not v.is_prerelease)
        what = join([x for x in (f"Python {python}" if python else "", platform_title(platform) if
                                 platform else "") if x])  # fmt: skip
        facts.append(
            _(
                "pip lists the {name} versions with a wheel for its interpreter: {first} to "
                "{last} are exactly those for {what}, so pip ran on that."
            ).format(name=req.name, first=shown[0], last=shown[-1], what=what)
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
    return _(
        "For the GPU on native Windows the last release is TensorFlow {series}: `{install}` "
        "with CUDA {cuda} and cuDNN {cudnn}; newer releases run on the CPU there ({cpu}), or on "
        "the GPU under WSL2 ({wsl2})."
    ).format(
        cpu=pip_command(ctx, "tensorflow", os="windows"),
        series=last.series,
        install=pip_command(ctx, install, os="windows"),
        cuda=last.windows.cuda,
        cudnn=last.windows.cudnn,
        wsl2=pip_command(ctx, "tensorflow[and-cuda]", os="wsl2"),
    )


def last_wheel(releases: Sequence[Release], platform: str) -> Optional[Version]:
    """The newest final release with a wheel for ``platform`` (None: none has one)."""
    have = [r.version for r in releases if r.wheelset(platform) and not r.prerelease]
    return max(have) if have else None
