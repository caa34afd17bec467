"""Commands written for the shell of the machine that will run them.

One renderer for every command tfenv prints or writes (install commands, regenerate
lines, the fixes of doctor and explain, check-upgrade's advice): a command is an argv,
and :func:`command` writes it for a target's shell.

- ``posix`` (Linux, WSL2, macOS): each word as :func:`shlex.quote` writes it.
- ``windows`` (native Windows): one form that cmd.exe (and so the Anaconda Prompt and
  batch files) and PowerShell read the same: a word is written bare only when it is made
  of letters, digits and ``_ . / : \\ -`` (and does not start with a digit); otherwise it is
  wrapped in double quotes, inside which cmd.exe leaves ``< > | & ^ ( ) ; , =`` alone and
  PowerShell expands nothing but ``$`` and the backtick. A word that neither shell can be
  given unchanged is refused (:class:`UnsafeWord`): one holding ``"`` (ends the quotes),
  ``%`` (cmd.exe expands ``%VAR%`` even inside quotes), ``!`` (delayed expansion), ``$``
  or a backtick (PowerShell expands them inside double quotes), ending in a backslash
  (``\\"`` escapes the closing quote for the program's argument parser), or any character
  that is not printable ASCII (PowerShell reads the typographic quotes as quotes, and the
  console's code page garbles the rest). The command's first word (the program) must be
  bare: PowerShell reads a quoted first word as a string, not a command.

The rules follow cmd.exe's documented parsing (``cmd /?``: the special characters
``&<>[]{}^=;!'+,`~`` and the quote), PowerShell's ``about_Quoting_Rules`` and
``about_Parsing`` (argument mode), and Microsoft's "Parsing C++ command-line arguments"
(how the program splits the line into argv); ``tests/winshell.py`` is a tokenizer that
follows those documents, and the tests run every Windows command through it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from typing import Literal

from tfenv.errors import UnsafeWord
from tfenv.i18n import _
from tfenv.models.platform import SYSTEMS
from tfenv.textsafe import shell_export, visible

__all__ = [
    "Script",
    "Shell",
    "UnsafeWord",
    "command",
    "is_windows_safe",
    "powershell_script",
    "scripts_for",
    "set_variable",
    "shell_for",
    "word",
]

Shell = Literal["posix", "windows"]

_BARE = re.compile(r"[A-Za-z_/\\][A-Za-z0-9_./:\\-]*|-{1,2}[A-Za-z][A-Za-z0-9-]*")
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]*")
_REFUSED = '"%!$`'


# the systems whose users type commands in cmd.exe or PowerShell (asked of the systems:
# no system name is compared here)
_NATIVE_WINDOWS = frozenset(s.name for s in SYSTEMS if s.is_windows)


def shell_for(os: str) -> Shell:
    """The shell family of a target's operating system (``windows`` only for native Windows:
    WSL2 runs a Linux shell)."""
    return "windows" if os in _NATIVE_WINDOWS else "posix"


def _why_not_windows(text: str) -> str | None:
    if not text:
        return "it is empty (Windows PowerShell 5.1 drops an empty argument)"
    if not _PRINTABLE_ASCII.fullmatch(text):
        return "it holds a character that is not printable ASCII"
    bad = sorted({c for c in text if c in _REFUSED})
    if bad:
        return f"it holds {' '.join(bad)} (expanded or ending the quotes in cmd.exe or PowerShell)"
    if text.endswith("\\") and not _BARE.fullmatch(text):
        return "it ends in a backslash, which would escape the closing quote"
    return None


def is_windows_safe(text: str) -> bool:
    """Whether ``text`` can be one word of a native-Windows command."""
    return _why_not_windows(text) is None


def word(text: str, shell: Shell) -> str:
    """One word of a command for ``shell``."""
    if shell == "posix":
        # control characters shown as escapes (never a line break inside a command)
        quoted = shlex.quote(visible(text))
        # a requirement (``python=3.12``, ``tensorflow==2.15.1``) stays quoted as one unit,
        # as install guides write it, though a POSIX shell would read it bare
        return f"'{quoted}'" if quoted == text and "=" in text else quoted
    why = _why_not_windows(text)
    if why is not None:
        raise UnsafeWord(
            _(
                "{value!r} cannot be written into a command for cmd.exe and PowerShell: {why}."
            ).format(value=text.encode("ascii", "backslashreplace").decode(), why=why),
            hint=_("Use a name made of letters, digits and . _ - (a file name, a version)."),
        )
    if _BARE.fullmatch(text) and text != "--":
        return text
    return f'"{text}"'


def command(argv: Sequence[str], shell: Shell) -> str:
    """The command line for ``argv`` in ``shell``."""
    if not argv:
        raise ValueError("a command needs a program")
    if shell == "windows" and not _BARE.fullmatch(argv[0]):
        raise UnsafeWord(
            _(
                "{argv!r} cannot start a command for cmd.exe and PowerShell: a quoted program "
                "name is a string to PowerShell, not a command."
            ).format(argv=argv[0])
        )
    return " ".join(word(w, shell) for w in argv)


def powershell_script(path: str) -> str:
    """A PowerShell line that runs the script at ``path``: the path itself where it is a
    bare word, else the call operator and a single-quoted literal (``& 'C:\\Users\\Li
    Wei\\env\\Scripts\\Activate.ps1'``: a quoted path alone is a string to PowerShell,
    which it prints instead of running)."""
    if _BARE.fullmatch(path):
        return path
    if not _PRINTABLE_ASCII.fullmatch(path):
        raise UnsafeWord(
            _(
                "{value!r} cannot be written into a PowerShell command: it holds a character "
                "that is not printable ASCII."
            ).format(value=path.encode("ascii", "backslashreplace").decode())
        )
    return "& '" + path.replace("'", "''") + "'"


# -- setting variables in a script or a session --------------------------------------------

Script = Literal["posix", "cmd", "powershell"]

#: a reference to another variable in a value tfenv composed: %NAME% (Windows) or $NAME
_WINDOWS_REF = re.compile(r"%([A-Za-z_][A-Za-z0-9_]*)%")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _windows_literal(text: str, name: str) -> str:
    if not _PRINTABLE_ASCII.fullmatch(text) or any(c in text for c in '"%!'):
        raise UnsafeWord(
            _(
                "The value of {name} cannot be written for cmd.exe and PowerShell: {value!r} "
                "holds a quote, %, ! or a character that is not printable ASCII."
            ).format(name=name, value=text.encode("ascii", "backslashreplace").decode())
        )
    return text


def set_variable(name: str, value: str, script: Script) -> str:
    """One line that sets ``name`` to ``value`` (a value tfenv composed: on Windows it may
    refer to other variables as ``%NAME%``, on POSIX as ``$NAME``) in ``script``'s syntax:
    ``export NAME="..."``, ``set "NAME=..."`` or ``$env:NAME = '...' + $env:OTHER``."""
    if not _NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a variable name")
    if script == "posix":
        return shell_export(name, value)
    parts = _WINDOWS_REF.split(value)  # literal, ref, literal, ref, ...
    literals = [_windows_literal(p, name) for p in parts[0::2]]
    refs = parts[1::2]
    if script == "cmd":
        body = literals[0] + "".join(f"%{ref}%{lit}" for ref, lit in zip(refs, literals[1:]))
        return f'set "{name}={body}"'
    pieces: list[str] = []
    for i, lit in enumerate(literals):
        if lit:
            pieces.append("'" + lit.replace("'", "''") + "'")
        if i < len(refs):
            pieces.append(f"$env:{refs[i]}")
    return f"$env:{name} = " + (" + ".join(pieces) or "''")


def scripts_for(os: str) -> tuple[Script, ...]:
    """The script syntaxes a target's users type variables in."""
    return ("cmd", "powershell") if os in _NATIVE_WINDOWS else ("posix",)
