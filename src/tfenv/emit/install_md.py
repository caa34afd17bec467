"""``INSTALL.md`` for a plan with manual steps (the ``system`` route) or a route that writes
its own numbered guide (the conda routes: where conda comes from, then each command): the
numbered steps, the install commands and the variables for each shell of the target, as
one guide."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.i18n import _
from tfenv.routes import route
from tfenv.shells import scripts_for, set_variable, shell_for
from tfenv.textsafe import visible

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution
    from tfenv.routes.base import GuideStep

__all__ = ["render_install_md"]

_SHELL_NAMES = {"posix": "bash/zsh", "cmd": "cmd.exe", "powershell": "PowerShell"}
_FENCE = {"posix": "sh", "cmd": "bat", "powershell": "powershell"}
# a command of a route's guide: one form for cmd.exe and PowerShell alike (tfenv.shells)
_GUIDE_FENCE = {"posix": "sh", "windows": "bat"}


def render_install_md(res: Resolution) -> Optional[str]:
    """The guide (None for a plan without manual steps or a guide of its route)."""
    plan = res.plan
    if plan is None:
        return None
    guide = route(plan.route).guide(plan, res.target)
    if guide is None and not plan.steps:
        return None
    head = header_lines(res)
    out = ["# " + _("Install {stack}").format(stack=visible(plan.summary())), ""]
    out += [f"> {visible(line)}  " for line in head]
    out += ["", "## " + _("Steps"), ""]
    if guide is None:
        out += [f"{i}. {visible(step)}" for i, step in enumerate(plan.steps, 1)]
        out += ["", "## " + _("Install"), "", "```"]
        out += [visible(c) for c in plan.commands]
        out += ["```"]
    else:
        out += _numbered(guide, _GUIDE_FENCE[shell_for(res.target.os)])
    for script in scripts_for(res.target.os) if plan.env else ():
        title = _("Environment ({shell})").format(shell=_SHELL_NAMES[script])
        out += ["", f"## {title}", "", f"```{_FENCE[script]}"]
        out += [set_variable(k, v, script) for k, v in plan.env]
        out += ["```"]
    out += ["", "## " + _("Why"), ""]
    out += [f"- {visible(r)}" for r in plan.reasons]
    if plan.warnings:
        out += ["", "## " + _("Warnings"), ""]
        out += [f"- {visible(w)}" for w in plan.warnings]
    return "\n".join(out) + "\n"


def _numbered(steps: tuple[GuideStep, ...], fence: str) -> list[str]:
    """A Markdown numbered list, each command in a code block indented under its step."""
    out: list[str] = []
    for i, step in enumerate(steps, 1):
        if out:
            out.append("")
        out.append(f"{i}. {visible(step.text)}")
        if step.command is not None:
            out += ["", f"   ```{fence}", f"   {visible(step.command)}", "   ```"]
    return out
