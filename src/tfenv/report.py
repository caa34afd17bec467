"""Human-readable text of a :class:`Resolution` (a pure renderer: returns a string)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.models.plan import Plan, Resolution

__all__ = ["resolution_json", "resolution_text"]


def resolution_json(res: Resolution) -> str:
    import json  # --json only: the text needs none of it

    return json.dumps(res.to_dict(), indent=2, sort_keys=False) + "\n"


def resolution_text(res: Resolution) -> str:
    lines = [_("Target: {machine}").format(machine=res.target.describe())]
    if res.target.detected:
        lines.append(
            "  "
            + _("detected: {facts}; everything else was given or left open").format(
                facts=", ".join(sorted(res.target.detected))
            )
        )
    lines += ["  " + _("note: {note}").format(note=n) for n in res.target.notes]
    if res.plan is None:
        lines += ["", _("Nothing fits."), ""]
        lines += [f"  - {c}" for c in res.conflict_sentences]
        lines += ["", _("Ways out:")]
        lines += [f"  - {s}" for s in res.suggestion_sentences]
        return "\n".join(lines) + "\n"
    return "\n".join([*lines, "", *_plan_lines(res.plan, res.target.os)]) + "\n"


def _plan_lines(p: Plan, os: str) -> list[str]:
    pins = [f"TensorFlow {p.tensorflow}"]
    if p.python:
        pins.append(f"Python {p.python}")
    if p.cuda:
        pins.append(f"CUDA {p.cuda}")
    if p.cudnn:
        pins.append(f"cuDNN {p.cudnn}")
    out = [_("Plan: {pins}  [route: {route}]").format(pins=_(", ").join(pins), route=p.route)]
    if p.min_driver:
        out.append("  " + _("needs NVIDIA driver >= {driver}").format(driver=p.min_driver))
    if p.steps:
        out += ["", _("Steps:")] + [f"  {i}. {s}" for i, s in enumerate(p.steps, 1)]
    out += ["", _("Install:")] + [f"  {c}" for c in p.commands]
    out += _environment(p, os)
    if p.verify:
        out += ["", _("Verify:"), f"  {p.verify}"]
    out += ["", _("Why:")] + [f"  - {r}" for r in p.reasons]
    if p.skipped:
        out += ["", _("Why not newer:")] + [f"  - {s.sentence}" for s in p.skipped]
    if p.warnings:
        out += ["", _("Warnings:")] + [f"  ! {w}" for w in p.warnings]
    return out


_SCRIPT_NAMES = {"posix": "", "cmd": "cmd.exe", "powershell": "PowerShell"}


def _environment(p: Plan, os: str) -> list[str]:
    """The plan's variables, in the syntax of each shell the target's users type them in."""
    from tfenv.shells import scripts_for, set_variable

    out: list[str] = []
    for script in scripts_for(os) if p.env else ():
        shell = _SCRIPT_NAMES[script]
        out += ["", _("Environment ({shell}):").format(shell=shell) if shell else _("Environment:")]
        out += [f"  {set_variable(k, v, script)}" for k, v in p.env]
    return out
