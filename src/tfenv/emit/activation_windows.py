"""Activation scripts for native Windows: ``activate-tfenv.bat`` (cmd.exe, the Anaconda
Prompt) and ``activate-tfenv.ps1`` (PowerShell), setting the plan's variables for the
session (CUDA_PATH, CUDA_PATH_VX_Y, PATH with the toolkit's folders first)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.shells import set_variable
from tfenv.textsafe import comment_block, visible

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["batch_comment", "render_bat", "render_ps1"]


def batch_comment(text: str) -> str:
    """A ``REM`` line that cmd.exe cannot turn into anything else: ``%`` doubled (cmd.exe
    expands ``%`` even in a REM line of a batch file, and ``%~`` there is a fatal error),
    the special characters escaped with ``^`` (harmless if REM does not read them)."""
    body = visible(text).replace("%", "%%")
    for ch in "^&|<>":
        body = body.replace(ch, "^" + ch)
    return f"REM {body}".rstrip()


def _applies(res: Resolution) -> bool:
    plan = res.plan
    return plan is not None and bool(plan.env) and res.target.system.is_windows


def render_bat(res: Resolution) -> Optional[str]:
    """The cmd.exe script (None where there is nothing to set)."""
    if not _applies(res):
        return None
    assert res.plan is not None
    head = [
        *header_lines(res),
        "Run it in cmd.exe (or the Anaconda Prompt) before Python: activate-tfenv.bat",
    ]
    lines = ["@echo off", *(batch_comment(h) for h in head)]
    lines += [set_variable(k, v, "cmd") for k, v in res.plan.env]
    return "\r\n".join(lines) + "\r\n"


def render_ps1(res: Resolution) -> Optional[str]:
    """The PowerShell script (None where there is nothing to set)."""
    if not _applies(res):
        return None
    assert res.plan is not None
    head = [
        *header_lines(res),
        "Dot-source it in PowerShell before Python: . .\\activate-tfenv.ps1",
    ]
    body = "".join(set_variable(k, v, "powershell") + "\r\n" for k, v in res.plan.env)
    return comment_block(head).replace("\n", "\r\n") + body
