"""How cmd.exe and PowerShell read a command line, as their documentation says (for tests:
no Windows machine is needed).

- :func:`cmd_line`: cmd.exe's pass over a line before it starts the program (``cmd /?``,
  Microsoft's "cmd" reference): ``%`` expands variables anywhere (in a batch file too),
  ``!`` with delayed expansion; outside double quotes ``& | < >`` separate commands or
  redirect, ``^`` escapes and ``( )`` group; inside double quotes all of those are plain
  text. Returns the line the program gets, or raises :class:`Unsafe`.
- :func:`c_argv`: how the program (the Microsoft C runtime, ``CommandLineToArgvW``)
  splits that line: "Parsing C++ command-line arguments" (whitespace separates, double
  quotes group, ``2n`` backslashes before a quote are ``n`` backslashes and a quote
  delimiter, ``2n+1`` are ``n`` and a literal quote, other backslashes are literal).
- :func:`powershell_argv`: PowerShell's argument mode (``about_Parsing``,
  ``about_Quoting_Rules``, ``about_Special_Characters``): whitespace separates; ``"..."``
  is an expandable string (``$`` and the backtick are special inside), ``'...'`` a verbatim
  one; outside quotes ``; | & < > ( ) { } @ # , $`` and the backtick have meanings of their
  own. Returns the argument values, or raises :class:`Unsafe` where the line would do
  anything but pass plain words.
"""

from __future__ import annotations

_PS_SPECIAL_BARE = set(";|&<>(){}@#,$`'\"")
_PS_QUOTES = "\u2018\u2019\u201a\u201b\u201c\u201d\u201e"  # PowerShell treats these as quotes too


class Unsafe(ValueError):
    pass


def cmd_line(line: str, batch: bool = False) -> str:
    quoted = False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == "%":
            raise Unsafe("cmd.exe expands %")
        elif ch == "!":
            raise Unsafe("cmd.exe expands ! with delayed expansion")
        elif not quoted and ch in "&|<>^()":
            raise Unsafe(f"cmd.exe reads {ch} outside quotes")
        elif ch in "\r\n":
            raise Unsafe("a line break ends the command")
    if quoted:
        raise Unsafe("an unclosed quote")
    return line


def _backslashes(line: str, i: int, cur: list[str]) -> int:
    """Backslashes at ``i``: literal, unless a quote follows (then halved, odd: a quote)."""
    j = i
    while j < len(line) and line[j] == "\\":
        j += 1
    count = j - i
    if j < len(line) and line[j] == '"':
        cur.append("\\" * (count // 2))
        if count % 2:
            cur.append('"')
            return j + 1
        return j
    cur.append("\\" * count)
    return j


def _c_word(line: str, i: int) -> tuple[str, int]:
    cur: list[str] = []
    quoted = False
    n = len(line)
    while i < n and (quoted or line[i] not in " \t"):
        if line[i] == "\\":
            i = _backslashes(line, i, cur)
        elif line[i] == '"' and quoted and line[i + 1 : i + 2] == '"':
            cur.append('"')  # "" inside quotes: a literal quote (since 2008)
            i += 2
        elif line[i] == '"':
            quoted = not quoted
            i += 1
        else:
            cur.append(line[i])
            i += 1
    return "".join(cur), i


def c_argv(line: str) -> list[str]:
    args: list[str] = []
    i = 0
    while True:
        while i < len(line) and line[i] in " \t":
            i += 1
        if i >= len(line):
            return args
        word, i = _c_word(line, i)
        args.append(word)


def _ps_quoted(line: str, i: int) -> tuple[str, int]:
    j = i + 1
    while j < len(line) and line[j] != '"':
        if line[j] in "$`":
            raise Unsafe(f"PowerShell expands {line[j]} inside double quotes")
        j += 1
    if j >= len(line):
        raise Unsafe("an unclosed quote")
    return line[i + 1 : j], j + 1


def _ps_bare_start(line: str, i: int) -> None:
    ch = line[i]
    if line[i : i + 3] == "--%":
        raise Unsafe("--% stops PowerShell's parsing")
    if ch.isdigit() or (ch in ".+-" and line[i + 1 : i + 2].isdigit()):
        # a bare number: PowerShell may pass its value, not its text (3.10 -> 3.1)
        raise Unsafe("a bare word that PowerShell may read as a number")


def _ps_word(line: str, i: int) -> tuple[str, int]:
    cur: list[str] = []
    _ps_bare_start(line, i)
    while i < len(line) and line[i] not in " \t":
        ch = line[i]
        if ch == '"':
            text, i = _ps_quoted(line, i)
            cur.append(text)
        elif ch in _PS_SPECIAL_BARE:
            raise Unsafe(f"PowerShell reads {ch} outside quotes")
        else:
            cur.append(ch)
            i += 1
    return "".join(cur), i


def powershell_argv(line: str) -> list[str]:
    if any(q in line for q in _PS_QUOTES):
        raise Unsafe("PowerShell reads typographic quotes as quotes")
    args: list[str] = []
    i = 0
    while True:
        while i < len(line) and line[i] in " \t":
            i += 1
        if i >= len(line):
            return args
        word, i = _ps_word(line, i)
        args.append(word)


def both(line: str) -> list[str]:
    """The argv both shells give the program; raises :class:`Unsafe` when they differ."""
    via_cmd = c_argv(cmd_line(line))
    via_ps = powershell_argv(line)
    if via_cmd != via_ps:
        raise Unsafe(f"cmd.exe gives {via_cmd}, PowerShell {via_ps}")
    return via_cmd
