"""``INSTALL.md`` for a plan with manual steps (the ``system`` route): the numbered steps,
the install commands and the variables for each shell of the target, as one guide."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.i18n import _
from tfenv.shells import scripts_for, set_variable
from tfenv.textsafe import visible

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["render_install_md"]

_SHELL_NAMES = {"posix": "bash/zsh", "cmd": "cmd.exe", "powershell": "PowerShell"}
_FENCE = {"posix": "sh", "cmd": "bat", "powershell": "powershell"}


def render_install_md(res: Resolution) -> Optional[str]:
    """The guide (None for a plan without manual steps)."""
    plan = res.plan
    if plan is None or not plan.steps:
        return None
    head = header_lines(res)
    out = ["# " + _("Install {stack}").format(stack=visible(plan.summary())), ""]
    out += [f"> {visible(line)}  " for line in head]
    out += ["", "## " + _("Steps"), ""]
    out += [f"{i}. {visible(step)}" for i, step in enumerate(plan.steps, 1)]
    out += ["", "## " + _("Install"), "", "```"]
    out += [visible(c) for c in plan.commands]
    out += ["```"]
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
