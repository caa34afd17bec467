"""Answers for installs that fail before TensorFlow runs: pip and uv resolution failures
(TensorFlow itself: installs_tf.py; the and-cuda extra's CUDA wheels: installs_cuda.py).

pip lists, for a requirement it cannot satisfy, the versions that have a wheel for this
interpreter and platform; that list alone often says which Python and platform pip ran
on. The answer compares the requirement with the index facts (which releases have wheels
for which platform and Python, what each release's and-cuda extra pins) and asks the
solver what does resolve on the machine at hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Optional

from packaging.specifiers import SpecifierSet
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from tfenv.explain.common import join, pip_command
from tfenv.explain.context import Answer, Context
from tfenv.explain.hints import platform_of_tag
from tfenv.explain.installs_cuda import cuda_wheel_answer
from tfenv.explain.installs_tf import last_wheel, solver_fix, tf_answer, windows_gpu_fix
from tfenv.explain.requirements import (
    TF_NAMES,
    Req,
    listed_versions,
    parse_req,
    platform_title,
)
from tfenv.i18n import _
from tfenv.kb.errors import CatalogPattern
from tfenv.rerun import line_for

__all__ = ["ANSWERS"]

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


_TF_IN_LIST = CatalogPattern(r"(?<![\w-])(?P<pkg>tensorflow(?:-gpu|-cpu)?(?:\[and-cuda\])?)==")

# -- the answers ------------------------------------------------------------------------


def _pip_index(groups: Mapping[str, str], ctx: Context) -> Answer:
    req = parse_req(groups["req"]) if "req" in groups else _uv_req(ctx)
    if "marker" in groups or (ctx.text.find("there is no version of") >= 0 and req is None):
        return _uv_marker(ctx)
    if req is None:
        return Answer()
    listed = listed_versions(groups.get("versions"))
    if req.name in TF_NAMES or req.name in ctx.kb.index.by_package:
        return tf_answer(ctx, req, listed)
    if ctx.kb.index.cuda_versions(req.name):
        return cuda_wheel_answer(ctx, req, listed)
    return _other(ctx, req, listed)


def _other(ctx: Context, req: Req, listed: Optional[list[Version]]) -> Answer:
    facts = []
    needers = _required_by(ctx, req.name)
    if needers:
        facts.append(
            _("{package} (among others) requires {requirement}.").format(
                package=needers[0], requirement=needers[1]
            )
        )
    fix = None
    if listed:
        top = max(v for v in listed)
        facts.append(
            _(
                "pip lists the {name} versions with a wheel for this Python and platform: "
                "{top} is the newest that installs here."
            ).format(name=req.name, top=top)
        )
        if not req.spec.contains(top, prereleases=True):
            fix = _("Pin the newest that installs here: `{command}`.").format(
                command=pip_command(ctx, f"{req.name}=={top}")
            )
    return Answer(tuple(facts), fix)


def _required_by(ctx: Context, name: str) -> Optional[tuple[str, str]]:
    for r in reversed(ctx.kb.index.releases("tensorflow")):
        for ws in r.wheels.values():
            for line in ws.requires:
                got = parse_req(line)
                if got is not None and got.name == name:
                    return f"tensorflow {r.version}", line.split(";", 1)[0].strip()
    return None


def _uv_req(ctx: Context) -> Optional[Req]:
    seen = _UV["python"].search(ctx.text)  # "only found wheels for `tensorflow` (v2.19.0)"
    for key in ("dist", "req"):
        m = _UV[key].search(ctx.text)
        if m is not None:
            got = parse_req(m.group("req"))
            same = seen is not None and str(canonicalize_name(seen.group("pkg"))) == (
                got.name if got is not None else ""
            )
            if got is not None and not got.spec and seen is not None and same:
                # "all versions of tensorflow": all that uv saw, up to the newest it names
                return parse_req(f"{got.name}<={seen.group('v')}")
            if got is not None:
                return got
    if seen is not None:
        return parse_req(f"{seen.group('pkg')}=={seen.group('v')}")
    return None


def _uv_marker(ctx: Context) -> Answer:
    m = _UV["marker"].search(ctx.text)
    if m is None:
        return Answer()
    name, marker, v = str(canonicalize_name(m.group("pkg"))), m.group("marker"), m.group("v")
    facts = [
        _(
            "uv resolves for every platform at once (uv lock, uv add): {pin} is needed only "
            "where {marker}, and no such release exists; your own platform is not the problem."
        ).format(pin=f"{name}=={v}", marker=marker)
    ]
    releases = ctx.kb.index.releases(name)
    if releases:
        last = max(r.version for r in releases if not r.prerelease)
        facts.append(_("The last {name} release is {last}.").format(name=name, last=last))
    return Answer(
        tuple(facts),
        _(
            "Tell uv which platforms to resolve for in pyproject.toml, e.g. {example} (or "
            "required-environments), or depend on a version of the package that has a {name} "
            "release for that platform."
        ).format(example="[tool.uv] environments = [\"sys_platform == 'linux'\"]", name=name),
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
        _(
            "{wheel} is for {implementation} {python} on {platform}; pip installs a wheel only "
            "when its tags are among the interpreter's own."
        ).format(
            wheel=groups["wheel"],
            implementation="CPython" if tag.interpreter.startswith("cp") else "Python",
            python=wheel_py,
            platform=platform_title(wheel_platform) if wheel_platform else tag.platform,
        )
    ]
    m = ctx.machine
    if m is not None:
        other_python = m.python is not None and py and str(m.python) != wheel_py
        other_platform = wheel_platform is not None and m.platform.key != wheel_platform
        values = {"python": m.python, "platform": platform_title(m.platform.key)}
        if other_python and other_platform:
            facts.append(
                _("Here this Python is {python} and this machine is {platform}.").format(**values)
            )
        elif other_python:
            facts.append(_("Here this Python is {python}.").format(**values))
        elif other_platform:
            facts.append(_("Here this machine is {platform}.").format(**values))
    else:
        facts.append(
            _(
                "The interpreter differs: another Python version, a 32-bit Python or OS, an "
                "x86_64 Python under Rosetta for an arm64 wheel, or an aarch64 machine for an "
                "x86_64 wheel. `python -m pip debug --verbose` lists the tags it accepts."
            )
        )
    req = Req(str(canonicalize_name(name)), SpecifierSet(f"=={version}"), f"{name}=={version}",
               False)  # fmt: skip
    fix = solver_fix(
        ctx,
        Req("tensorflow", SpecifierSet(), "tensorflow", False),
        m.platform.key if m is not None else None,
        str(m.python) if m is not None and m.python is not None else None,
    )
    if fix is None and req.name.startswith("tensorflow"):
        fix = _(
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
        last = last_wheel(releases, platform)
        if last is not None:
            lasts.append(f"{last} ({platform_title(platform)})")
    plain = [b.series for b in ctx.kb.builds if b.gpu_package == "tensorflow" and b.gpu_platforms]
    if plain:  # builds.yaml's gpu_package
        template = _(
            "GPU support has been part of the plain tensorflow package since {since}; "
            "tensorflow-gpu's last wheels are {lasts}, and its later versions are a placeholder "
            "that stops the install on purpose."
        )
    else:
        template = _(
            "GPU support has been part of the plain tensorflow package; tensorflow-gpu's last "
            "wheels are {lasts}, and its later versions are a placeholder that stops the "
            "install on purpose."
        )
    facts = [template.format(since=min(plain) if plain else "", lasts=join(lasts, _("and")))]
    m = ctx.machine
    if m is not None and m.system.is_windows:
        fix = windows_gpu_fix(ctx)
        if fix is not None:
            return Answer(
                tuple(facts), _("Replace tensorflow-gpu by tensorflow. {fix}").format(fix=fix)
            )
    if m is not None:
        res = ctx.solve(m, Request(allow_cpu=True))
        if res.plan is not None and res.plan.commands:
            return Answer(
                tuple(facts),
                _("Replace tensorflow-gpu by tensorflow; on this machine: {command}").format(
                    command=res.plan.commands[0]
                ),
            )
    return Answer(
        tuple(facts),
        _(
            "Replace tensorflow-gpu by tensorflow (on Linux with an NVIDIA GPU: "
            "tensorflow[and-cuda])."
        ),
    )


def _pip_conflict(groups: Mapping[str, str], ctx: Context) -> Answer:
    dist, dver, dreq = groups["dist"], groups["dver"], groups["dreq"].strip()
    name = str(canonicalize_name(dist))
    facts = []
    release = ctx.kb.index.release(name, dver) if name in ctx.kb.index.by_package else None
    wanted = parse_req(dreq)
    if release is not None and wanted is not None:
        lines = {
            line.split(";", 1)[0].strip()
            for ws in release.wheels.values()
            for line in ws.requires
            if (got := parse_req(line)) is not None and got.name == wanted.name
        }
        if lines:
            facts.append(
                _("{dist} {version}'s wheel metadata requires {requirements}.").format(
                    dist=dist, version=dver, requirements=join(sorted(lines), _("and"))
                )
            )
    facts.append(
        _(
            "pip installed another package's choice ({have}) over it; {dist} may still import, "
            "or fail where the versions differ."
        ).format(have=groups.get("dhave", _("another version")), dist=dist)
    )
    fix = None
    if wanted is not None:
        fix = _("Install what {dist} {version} requires: {command}, or a {dist} whose pins fit.")
        fix = fix.format(dist=dist, version=dver, command=f"`{pip_command(ctx, wanted.text)}`")
    return Answer(tuple(facts), fix)


def _pip_backtrack(groups: Mapping[str, str], ctx: Context) -> Answer:
    """pip backtracking through tensorflow[and-cuda]: the pinned plan for this machine ends it."""
    from packaging.specifiers import SpecifierSet

    from tfenv.models.target import Request

    pkg = groups.get("pkg", "")
    if not pkg and "pkgs" in groups:  # "Cannot install a==1, tensorflow[and-cuda]==2.14.0, ..."
        found = _TF_IN_LIST.search(groups["pkgs"])
        pkg = found.group("pkg") if found else ""
    name = pkg.split("[", 1)[0].lower()
    facts = []
    if name in TF_NAMES and "and-cuda" in pkg:
        facts.append(
            _(
                "Each candidate of {package} brings its and-cuda extra: a dozen nvidia-* wheels "
                "that pip downloads to read their dependencies before it can reject the candidate."
            ).format(package=pkg)
        )
    m = ctx.machine
    if m is None or name not in TF_NAMES:
        return Answer(tuple(facts))
    tf = ctx.tf_given if "pkgs" in groups else ctx.tf  # pip's list names many: none is "the" one
    spec = SpecifierSet(f"=={tf}") if tf is not None and not tf.is_devrelease else SpecifierSet()
    request = Request(tf=spec, tf_text=str(spec) or "latest", allow_cpu=m.cc is None)
    res = ctx.solve(m, request)
    plan = res.plan
    if plan is None:
        return Answer(tuple(facts))
    facts.append(
        _("For {machine} tfenv resolves {plan}, every wheel pinned.").format(
            machine=m.describe(), plan=plan.summary()
        )
    )
    if not plan.commands:
        return Answer(tuple(facts))
    pinned = plan.tensorflow
    line = line_for(m, replace(request, tf=SpecifierSet(f"=={pinned}"), tf_text=pinned), pinned)
    shown = f"`{plan.commands[0]}`"
    for command in plan.commands[1:]:
        shown = _("{first} then {second}").format(first=shown, second=f"`{command}`")
    return Answer(
        tuple(facts),
        _(
            "Stop pip and install the pinned plan: {commands} (`{command}` shows it, "
            "`tfenv lock` writes it with hashes); pin the other packages that conflict with it."
        ).format(commands=shown, command=line),
    )


ANSWERS = {
    "pip-backtrack": _pip_backtrack,
    "pip-index": _pip_index,
    "pip-wheel-tag": _wheel_tag,
    "tensorflow-gpu": _tensorflow_gpu,
    "pip-conflict": _pip_conflict,
}
