"""Answers for installs that fail before TensorFlow runs: pip and uv resolution failures.

pip lists, for a requirement it cannot satisfy, the versions that have a wheel for this
interpreter and platform; that list alone often says which Python and platform pip ran
on. The answer compares the requirement with the index facts (which releases have wheels
for which platform and Python, what each release's and-cuda extra pins) and asks the
solver what does resolve on the machine at hand.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from tfenv.explain.common import join, span, version_or_none
from tfenv.explain.context import Answer, Context
from tfenv.explain.hints import platform_of_tag
from tfenv.kb.errors import CatalogPattern

if TYPE_CHECKING:
    from tfenv.kb.index import CudaWheel, Release
    from tfenv.models.target import Request, Target

__all__ = ["ANSWERS", "infer_interpreter"]

TF_NAMES = ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-intel",
            "tensorflow-cpu-aws", "tensorflow-macos")  # fmt: skip
_PLATFORM_TITLES = {
    "linux_x86_64": "Linux x86_64",
    "linux_aarch64": "Linux aarch64",
    "windows_x86_64": "Windows x86_64",
    "macos_x86_64": "macOS x86_64 (Intel)",
    "macos_arm64": "macOS arm64 (Apple silicon)",
}
_UV = {
    "req": CatalogPattern(
        r"(?<![\w.-])(?P<req>[\w.-]{1,100}(?:[<>=!~]=?[\w.*]{1,40})?) (?:has|have) no wheels "
        r"with a matching"
    ),
    "python": CatalogPattern(
        r"but we only found wheels for `(?P<pkg>[\w.-]{1,100})`\s{1,20}\(v(?P<v>[\w.]{1,40})\)"
    ),
    "dist": CatalogPattern(r"Distribution `(?P<req>[\w.-]{1,100}==[\w.]{1,40}) @"),
    "marker": CatalogPattern(
        r"there is no version of (?P<pkg>[\w.-]{1,100})\{(?P<marker>[^}\n]{1,200})\}"
        r"==(?P<v>[\w.]{1,40})"
    ),
}


@dataclass(frozen=True)
class _Req:
    name: str
    spec: SpecifierSet
    text: str  # as the message wrote it (without markers)
    extra: bool  # an and-cuda extra's line


def _req(text: str) -> Optional[_Req]:
    text = text.strip()
    while text.endswith(")") and " (from " in text:  # "(from tensorflow[and-cuda])"
        text = text[: text.rindex(" (from ")].rstrip()
    extra = "extra ==" in text
    bare = text.split(";", 1)[0].strip()
    try:
        req = Requirement(bare)
    except InvalidRequirement:
        return None
    return _Req(str(canonicalize_name(req.name)), req.specifier, bare, extra)


def _listed(text: Optional[str]) -> Optional[list[Version]]:
    """pip's ``from versions:`` list (None: "none" or not shown)."""
    if not text or text.strip() == "none":
        return None
    out = []
    for part in text.split(","):
        v = version_or_none(part.strip())
        if v is not None:
            out.append(v)
    return out


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
    for platform in _PLATFORM_TITLES:
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
        return Target(**changes)  # type: ignore[arg-type]
    try:
        return replace(m, **changes) if changes else m  # type: ignore[arg-type]
    except ValueError:
        return m


def _title(platform: Optional[str]) -> str:
    return _PLATFORM_TITLES.get(platform or "", platform or "any platform")


# -- TensorFlow's own packages ----------------------------------------------------------


def _tf_facts(
    ctx: Context, req: _Req, listed: Optional[list[Version]], platform: Optional[str],
    py: Optional[str],
) -> list[str]:  # fmt: skip
    finals = _finals(ctx.kb.index.releases(req.name))
    if not finals:
        return []
    name, where = req.name, _title(platform)
    facts: list[str] = []
    if platform is None and py is None:
        newest = finals[-1]
        per = "; ".join(
            f"{_title(p)}: Python {span(_pys(newest, p))}" for p in sorted(newest.wheels)
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
    facts.append(_python_fact(name, asked, newest, matching, finals, platform, py))
    return facts


def _python_fact(
    name: str, asked: str, newest: Release, matching: Sequence[Release],
    finals: Sequence[Release], platform: Optional[str], py: Optional[str],
) -> str:  # fmt: skip
    """Why no release asked for has a wheel for this Python, and which one first (last) has."""
    where = _title(platform)
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
    others = join(sorted(_title(p) for p in newest.wheels))
    text = f"{asked} has no {_title(platform)} wheel"
    if others:
        text += f" ({newest.version} has them for {others})"
    there = [r.version for r in finals if _has(r, platform, None)]
    if not there:
        return text + f"; {name} publishes none for {_title(platform)}."
    if max(there) < newest.version:
        return text + f"; the last {name} with {_title(platform)} wheels is {max(there)}."
    return text + f"; the first {name} with {_title(platform)} wheels is {min(there)}."


def _solver_fix(
    ctx: Context, req: _Req, platform: Optional[str], py: Optional[str]
) -> Optional[str]:
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
    if not parts:
        return "; ".join(ctx.solve(m, request, ways_out=True).suggestions[:2]) or None
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


# -- and-cuda wheels --------------------------------------------------------------------


def _pinned_by(ctx: Context, req: _Req) -> list[Version]:
    """TensorFlow releases whose and-cuda extra has exactly this requirement."""
    out = set()
    for r in ctx.kb.index.releases("tensorflow"):
        for ws in r.wheels.values():
            for line in ws.and_cuda or ():
                got = _req(line)
                if got is not None and got.name == req.name and got.spec == req.spec:
                    out.add(r.version)
    return sorted(out)


def _cuda_wheel(ctx: Context, req: _Req, listed: Optional[list[Version]]) -> Answer:
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
    ctx: Context, req: _Req, with_wheels: Sequence[CudaWheel], where: list[str],
    listed: Optional[list[Version]],
) -> tuple[list[str], bool]:  # fmt: skip
    """Where the pinned wheel installs, against this machine; and whether it is elsewhere."""
    m = ctx.machine
    platform = m.platform.key if m is not None else None
    placeholders = listed is not None and all(v.is_devrelease for v in listed)
    places = join([_title(p) for p in where])
    if not with_wheels:
        return [f"{req.text} has no wheels on the package index (only placeholders)."], False
    if platform is not None and platform not in where:
        return [
            f"{req.text} has wheels only for {places}: tensorflow[and-cuda] cannot install on "
            f"{_title(platform)}."
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


def _optional_fix(ctx: Context, req: _Req, pinned: list[Version]) -> str:
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
        f"for {join([_title(p) for p in where])} only"
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
                (got := _req(line)) is not None and got.name == name for line in ws.and_cuda
            )
        ):
            return r.version
    return None


# -- the answers ------------------------------------------------------------------------


def _pip_index(groups: Mapping[str, str], ctx: Context) -> Answer:
    req = _req(groups["req"]) if "req" in groups else _uv_req(ctx)
    if "marker" in groups or (ctx.text.find("there is no version of") >= 0 and req is None):
        return _uv_marker(ctx)
    if req is None:
        return Answer()
    listed = _listed(groups.get("versions"))
    if req.name in TF_NAMES or req.name in ctx.kb.index.by_package:
        return _tf_answer(ctx, req, listed)
    if ctx.kb.index.cuda_versions(req.name):
        return _cuda_wheel(ctx, req, listed)
    return _other(ctx, req, listed)


def _tf_answer(ctx: Context, req: _Req, listed: Optional[list[Version]]) -> Answer:
    releases = ctx.kb.index.releases(req.name)
    platform, python = infer_interpreter(releases, listed) if listed else (None, None)
    facts = []
    if listed and (platform or python):
        shown = sorted(v for v in listed if not v.is_prerelease)
        what = join([x for x in (f"Python {python}" if python else "", _title(platform) if
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
        return Answer(tuple(facts), _windows_gpu_fix(ctx))
    return Answer(tuple(facts), _solver_fix(ctx, req, where, py))


def _windows_gpu_fix(ctx: Context) -> Optional[str]:
    from tfenv.explain.libraries import windows_gpu_end

    last = windows_gpu_end(ctx.kb)
    if last is None or last.windows is None:
        return None
    gpu = _last_windows(ctx.kb.index.releases("tensorflow-gpu"))
    return (
        f"For the GPU on native Windows the last release is TensorFlow {last.series}: "
        f"`pip install 'tensorflow-gpu=={gpu}'` with CUDA {last.windows.cuda} and cuDNN "
        f"{last.windows.cudnn}; newer releases run on the CPU there (pip install tensorflow), "
        "or on the GPU under WSL2 (pip install tensorflow[and-cuda])."
    )


def _other(ctx: Context, req: _Req, listed: Optional[list[Version]]) -> Answer:
    facts = []
    needers = _required_by(ctx, req.name)
    if needers:
        facts.append(f"{needers[0]} (among others) requires {needers[1]}.")
    fix = None
    if listed:
        top = max(v for v in listed)
        facts.append(
            f"pip lists the {req.name} versions with a wheel for this Python and platform: "
            f"{top} is the newest that installs here."
        )
        if not req.spec.contains(top, prereleases=True):
            fix = f"Pin the newest that installs here: `pip install '{req.name}=={top}'`."
    return Answer(tuple(facts), fix)


def _required_by(ctx: Context, name: str) -> Optional[tuple[str, str]]:
    for r in reversed(ctx.kb.index.releases("tensorflow")):
        for ws in r.wheels.values():
            for line in ws.requires:
                got = _req(line)
                if got is not None and got.name == name:
                    return f"tensorflow {r.version}", line.split(";", 1)[0].strip()
    return None


def _uv_req(ctx: Context) -> Optional[_Req]:
    seen = _UV["python"].search(ctx.text)  # "only found wheels for `tensorflow` (v2.19.0)"
    for key in ("dist", "req"):
        m = _UV[key].search(ctx.text)
        if m is not None:
            got = _req(m.group("req"))
            same = seen is not None and str(canonicalize_name(seen.group("pkg"))) == (
                got.name if got is not None else ""
            )
            if got is not None and not got.spec and seen is not None and same:
                # "all versions of tensorflow": all that uv saw, up to the newest it names
                return _req(f"{got.name}<={seen.group('v')}")
            if got is not None:
                return got
    if seen is not None:
        return _req(f"{seen.group('pkg')}=={seen.group('v')}")
    return None


def _uv_marker(ctx: Context) -> Answer:
    m = _UV["marker"].search(ctx.text)
    if m is None:
        return Answer()
    name, marker, v = str(canonicalize_name(m.group("pkg"))), m.group("marker"), m.group("v")
    facts = [
        f"uv resolves for every platform at once (uv lock, uv add): {name}=={v} is needed "
        f"only where {marker}, and no such release exists; your own platform is not the problem."
    ]
    releases = ctx.kb.index.releases(name)
    if releases:
        last = max(r.version for r in releases if not r.prerelease)
        facts.append(f"The last {name} release is {last}.")
    return Answer(
        tuple(facts),
        "Tell uv which platforms to resolve for in pyproject.toml, e.g. [tool.uv] "
        "environments = [\"sys_platform == 'linux'\"] (or required-environments), or depend "
        f"on a version of the package that has a {name} release for that platform.",
    )


def _wheel_tag(groups: Mapping[str, str], ctx: Context) -> Answer:
    try:
        name, version, _build, tags = parse_wheel_filename(groups["wheel"])
    except (InvalidWheelFilename, InvalidVersion):
        return Answer()
    tag = sorted(tags, key=str)[0]
    py = tag.interpreter[2:] if tag.interpreter.startswith(("cp", "py")) else ""
    wheel_py = f"{py[0]}.{py[1:]}" if len(py) >= 2 else (py or "any")
    wheel_platform = platform_of_tag(tag.platform)
    facts = [
        f"{groups['wheel']} is for {'CPython' if tag.interpreter.startswith('cp') else 'Python'} "
        f"{wheel_py} on {_title(wheel_platform) if wheel_platform else tag.platform}; pip "
        "installs a wheel only when its tags are among the interpreter's own."
    ]
    m = ctx.machine
    if m is not None:
        differ = []
        if m.python is not None and py and str(m.python) != wheel_py:
            differ.append(f"this Python is {m.python}")
        if wheel_platform is not None and m.platform.key != wheel_platform:
            differ.append(f"this machine is {_title(m.platform.key)}")
        if differ:
            facts.append(f"Here {join(differ)}.")
    else:
        facts.append(
            "The interpreter differs: another Python version, a 32-bit Python or OS, an "
            "x86_64 Python under Rosetta for an arm64 wheel, or an aarch64 machine for an "
            "x86_64 wheel. `python -m pip debug --verbose` lists the tags it accepts."
        )
    req = _Req(str(canonicalize_name(name)), SpecifierSet(f"=={version}"), f"{name}=={version}",
               False)  # fmt: skip
    fix = _solver_fix(
        ctx,
        _Req("tensorflow", SpecifierSet(), "tensorflow", False),
        m.platform.key if m is not None else None,
        str(m.python) if m is not None and m.python is not None else None,
    )
    if fix is None and req.name.startswith("tensorflow"):
        fix = (
            "Install from the package index instead of a wheel file (pip picks the wheel that "
            "fits), with a 64-bit Python of a version TensorFlow publishes wheels for "
            "(`tfenv resolve --python X.Y` says which)."
        )
    return Answer(tuple(facts), fix)


def _tensorflow_gpu(groups: Mapping[str, str], ctx: Context) -> Answer:
    from tfenv.models.target import Request

    releases = ctx.kb.index.releases("tensorflow-gpu")
    lasts = []
    for platform in ("linux_x86_64", "windows_x86_64"):
        have = [r.version for r in releases if r.wheelset(platform) and not r.prerelease]
        if have:
            lasts.append(f"{max(have)} ({_title(platform)})")
    facts = [
        "GPU support has been part of the plain tensorflow package since 2.1; tensorflow-gpu's "
        f"last wheels are {join(lasts)}, and its later versions are a placeholder that stops "
        "the install on purpose."
    ]
    m = ctx.machine
    if m is not None and m.os == "windows":
        fix = _windows_gpu_fix(ctx)
        if fix is not None:
            return Answer(tuple(facts), "Replace tensorflow-gpu by tensorflow. " + fix)
    if m is not None:
        res = ctx.solve(m, Request(allow_cpu=True))
        if res.plan is not None and res.plan.commands:
            return Answer(
                tuple(facts),
                f"Replace tensorflow-gpu by tensorflow; on this machine: {res.plan.commands[0]}",
            )
    return Answer(
        tuple(facts),
        "Replace tensorflow-gpu by tensorflow (on Linux with an NVIDIA GPU: tensorflow[and-cuda]).",
    )


def _last_windows(releases: Sequence[Release]) -> str:
    have = [r.version for r in releases if r.wheelset("windows_x86_64") and not r.prerelease]
    return str(max(have)) if have else "2.10.1"


def _pip_conflict(groups: Mapping[str, str], ctx: Context) -> Answer:
    dist, dver, dreq = groups["dist"], groups["dver"], groups["dreq"].strip()
    name = str(canonicalize_name(dist))
    facts = []
    release = ctx.kb.index.release(name, dver) if name in ctx.kb.index.by_package else None
    wanted = _req(dreq)
    if release is not None and wanted is not None:
        lines = {
            line.split(";", 1)[0].strip()
            for ws in release.wheels.values()
            for line in ws.requires
            if (got := _req(line)) is not None and got.name == wanted.name
        }
        if lines:
            facts.append(f"{dist} {dver}'s wheel metadata requires {join(sorted(lines))}.")
    facts.append(
        f"pip installed another package's choice ({groups.get('dhave', 'another version')}) "
        f"over it; {dist} may still import, or fail where the versions differ."
    )
    fix = f"`pip install '{wanted.text}'`" if wanted is not None else None
    if fix is not None:
        fix = f"Install what {dist} {dver} requires: {fix}, or a {dist} whose pins fit."
    return Answer(tuple(facts), fix)


ANSWERS = {
    "pip-index": _pip_index,
    "pip-wheel-tag": _wheel_tag,
    "tensorflow-gpu": _tensorflow_gpu,
    "pip-conflict": _pip_conflict,
}
