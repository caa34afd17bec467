"""A release must have an installable wheel for the platform, the Python and the glibc."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Rule
from tfenv.rules.facts import platform_fact
from tfenv.rules.model import Candidate, Requirement, TfCandidate, allowed, on_machine, unmet

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.models.target import Target

__all__ = ["GLIBC", "NO_WHEEL", "PYTHON", "STUB"]


def _no_wheel(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is not None:
        return ()
    opt, where = c.option, ctx.target.platform
    text = _("a platform {package} {version} has wheels for (not {platform})").format(
        package=opt.package, version=opt.version, platform=where
    )
    return (unmet(text, "no-wheel"),)


def _stub(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is None or not c.option.stub_problem:
        return ()
    text = _("an installable wheel: {problem}").format(problem=c.option.stub_problem.text())
    return (unmet(text, "stub"),)


def _python(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is None or c.option.stub_problem:
        return ()
    opt = c.option
    pythons = opt.pythons
    if c.accel == "metal":
        from tfenv.kb.metal import metal_plugin

        plugin = metal_plugin(ctx.kb, opt.version, ctx.target.platform.key)
        if plugin is not None:
            pythons = tuple(p for p in pythons if p in plugin.pythons)
    text = _("Python {pythons} (what {package} {version} has {platform} wheels for)").format(
        pythons=_span(pythons),
        package=opt.package,
        version=opt.version,
        platform=ctx.target.platform,
    )
    fix = _("Use Python {python}").format(python=max(pythons)) if pythons else ""
    keys = tuple(str(p) for p in pythons)
    return (allowed("python", keys, text, "python", ordered=True, fix=fix),)


def _glibc(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is None or c.option.stub_problem:
        return ()
    floor = c.option.wheels.glibc
    if floor is None:
        return ()
    name = f"{c.option.package} {c.option.version}"
    return (
        on_machine(
            _("glibc >= {floor} (the manylinux floor of {name}'s wheels)").format(
                floor=floor, name=name
            ),
            lambda t: t.glibc is None or t.glibc >= floor,
            "glibc",
            fix=_("Move to a distribution with glibc >= {floor}").format(floor=floor),
        ),
    )


def _span(versions: tuple[Version, ...]) -> str:
    if not versions:
        return _("(none)")
    lo, hi = min(versions), max(versions)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _python_fact(target: Target) -> Optional[str]:
    if not target.python:
        return None
    return _("the plan must use Python {python}").format(python=target.python)


def _glibc_fact(target: Target) -> Optional[str]:
    if not target.glibc:
        return None
    return _("this machine has glibc {glibc}").format(glibc=target.glibc)


NO_WHEEL = Rule(
    "no-wheel",
    N_("No wheel for this platform"),
    "tensorflow",
    _no_wheel,
    platform_fact,
    reads="index",
    change_kind="platform",
)
STUB = Rule(
    "stub",
    N_("The wheel for this platform cannot be installed"),
    "tensorflow",
    _stub,
    reads="index",
    change_kind="platform",
)
PYTHON = Rule(
    "python",
    N_("No wheel for this Python"),
    "tensorflow",
    _python,
    _python_fact,
    "python",
    reads="index",
    change_kind="python",
)
GLIBC = Rule(
    "glibc",
    N_("The system's glibc is too old"),
    "tensorflow",
    _glibc,
    _glibc_fact,
    "glibc",
    reads="index",
    change_kind="glibc",
    check_hint=N_("'ldd --version' shows glibc"),
)
