"""A release must have an installable wheel for the platform, the Python and the glibc."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.rules.base import Context, Rule
from tfenv.rules.model import Candidate, Requirement, TfCandidate, allowed, on_machine

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.models.target import Target

__all__ = ["GLIBC", "NO_WHEEL", "PYTHON", "STUB"]


def _never(_: Target) -> bool:
    return False


def _no_wheel(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is not None:
        return ()
    opt, where = c.option, ctx.target.platform
    text = f"a platform {opt.package} {opt.version} has wheels for (not {where})"
    return (on_machine(text, _never, "no-wheel"),)


def _stub(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is None or not c.option.stub_problem:
        return ()
    return (on_machine(f"an installable wheel: {c.option.stub_problem}", _never, "stub"),)


def _python(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is None or c.option.stub_problem:
        return ()
    opt = c.option
    pythons = opt.pythons
    if c.accel == "metal":
        from tfenv.kb.metal import metal_plugin

        plugin = metal_plugin(ctx.kb, opt.version)
        if plugin is not None:
            pythons = tuple(p for p in pythons if p in plugin.pythons)
    text = (
        f"Python {_span(pythons)} (what {opt.package} {opt.version} has "
        f"{ctx.target.platform} wheels for)"
    )
    req = allowed("python", tuple(str(p) for p in pythons), text, "python", ordered=True)
    best = max(pythons) if pythons else None
    fix = f"Use Python {best}" if best else ""
    return (_with_fix(req, fix),)


def _glibc(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.option.wheels is None or c.option.stub_problem:
        return ()
    floor = c.option.wheels.glibc
    if floor is None:
        return ()
    name = f"{c.option.package} {c.option.version}"
    return (
        on_machine(
            f"glibc >= {floor} (the manylinux floor of {name}'s wheels)",
            lambda t: t.glibc is None or t.glibc >= floor,
            "glibc",
            fix=f"Move to a distribution with glibc >= {floor}",
        ),
    )


def _with_fix(req: Requirement, fix: str) -> Requirement:
    from dataclasses import replace

    return replace(req, fix=fix)


def _span(versions: tuple[Version, ...]) -> str:
    if not versions:
        return "(none)"
    lo, hi = min(versions), max(versions)
    return str(lo) if lo == hi else f"{lo}-{hi}"


def _platform_fact(target: Target) -> Optional[str]:
    return f"the target is {target.system.title} on {target.arch}"


def _python_fact(target: Target) -> Optional[str]:
    return f"the plan must use Python {target.python}" if target.python else None


def _glibc_fact(target: Target) -> Optional[str]:
    return f"this machine has glibc {target.glibc}" if target.glibc else None


NO_WHEEL = Rule(
    "no-wheel",
    "No wheel for this platform",
    "tensorflow",
    _no_wheel,
    _platform_fact,
    reads="index",
    change_kind="platform",
)
STUB = Rule(
    "stub",
    "The wheel for this platform cannot be installed",
    "tensorflow",
    _stub,
    reads="index",
    change_kind="platform",
)
PYTHON = Rule(
    "python",
    "No wheel for this Python",
    "tensorflow",
    _python,
    _python_fact,
    "python",
    reads="index",
    change_kind="python",
)
GLIBC = Rule(
    "glibc",
    "The system's glibc is too old",
    "tensorflow",
    _glibc,
    _glibc_fact,
    "glibc",
    reads="index",
    change_kind="glibc",
    check_hint="'ldd --version' shows glibc",
)
