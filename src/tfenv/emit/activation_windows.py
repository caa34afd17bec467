"""Activation scripts for native Windows: ``activate-tfenv.bat`` (cmd.exe, the Anaconda
Prompt) and ``activate-tfenv.ps1`` (PowerShell), setting the plan's variables for the
session (CUDA_PATH, CUDA_PATH_VX_Y, PATH with the toolkit's folders first).

Both are pure ASCII, their comments English in every language (docs/windows.md): cmd.exe
reads a batch file in the console's code page (936 on Chinese Windows), so the bytes of a
UTF-8 Chinese comment can swallow the line end and run the rest as commands (as in
ggg123124/vrchat-assistant#212, Miso2233/SonettoHere#273, YOHSIKI/toolbox#15), and Windows
PowerShell 5.1 reads a script without a byte-order mark in the ANSI code page
(PowerShell/Modules#100; learn.microsoft.com understanding-file-encoding). ASCII reads
the same in every code page, with or without a BOM; anything else (a GPU name given with
--cc) is written as a ``\\uXXXX`` escape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import ascii_header_lines
from tfenv.shells import set_variable
from tfenv.textsafe import comment_block, visible

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["ascii_only", "batch_comment", "render_bat", "render_ps1"]


def batch_comment(text: str) -> str:
    """A ``REM`` line that cmd.exe cannot turn into anything else: ``%`` doubled (cmd.exe
    expands ``%`` even in a REM line of a batch file, and ``%~`` there is a fatal error),
    the special characters escaped with ``^`` (harmless if REM does not read them)."""
    body = ascii_only(text).replace("%", "%%")
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
        *ascii_header_lines(res),
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
        *ascii_header_lines(res),
        "Dot-source it in PowerShell before Python: . .\\activate-tfenv.ps1",
    ]
    body = "".join(set_variable(k, v, "powershell") + "\r\n" for k, v in res.plan.env)
    return comment_block(ascii_only(line) for line in head).replace("\n", "\r\n") + body


def ascii_only(text: str) -> str:
    """``text`` on one line (:func:`~tfenv.textsafe.visible`), each character outside ASCII
    written as ``\\uXXXX`` (``\\UXXXXXXXX`` beyond the first plane)."""
    return visible(text).encode("ascii", "backslashreplace").decode("ascii")
