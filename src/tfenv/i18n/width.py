"""Text by the columns it takes on a terminal: a CJK character takes two.

:mod:`textwrap` counts characters and breaks only at spaces, so a Chinese help line
(no spaces, two columns a character) comes out up to twice as wide as asked. Here a
line is filled by display width (Unicode's East Asian Width: ``W`` and ``F`` are two
columns), and may break between two wide characters as well as at a space; a
full-width closing mark (``，。：；）``) never starts a line, an opening one (``（「``)
never ends one. ASCII words (commands, flags, versions) are never split unless one is
wider than the line.
"""

from __future__ import annotations

import unicodedata

__all__ = ["display_width", "wrap"]

_NO_LINE_START = set("，。、：；！？）」』】》〉")
_NO_LINE_END = set("（「『【《〈")


def display_width(text: str) -> int:
    """The columns ``text`` takes: two for a wide or full-width character, none for a
    combining mark, one for any other."""
    total = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        total += 2 if _wide(ch) else 1
    return total


def wrap(text: str, width: int) -> list[str]:
    """``text``'s words (runs of whitespace collapse to one space) in lines of at most
    ``width`` columns (a lone word wider than that is cut by columns)."""
    width = max(width, 2)
    lines: list[str] = []
    line: list[str] = []
    used = 0
    for token in _tokens(text):
        if token == " ":
            if line:
                line.append(" ")
                used += 1
            continue
        size = display_width(token)
        if used + size > width and line:
            # a closing mark takes the character before it to the next line
            keep: list[str] = []
            if token[0] in _NO_LINE_START:
                while len(line) > 1 and line[-1] in _NO_LINE_START:
                    keep.insert(0, line.pop())
                if len(line) > 1:
                    keep.insert(0, line.pop())
            carried = _carry(line) + keep
            lines.append("".join(line).rstrip())
            line, used = carried, display_width("".join(carried))
        while size > width:  # one word wider than the line: cut it
            head, token = _cut(token, width - used)
            line.append(head)
            lines.append("".join(line).rstrip())
            line, used, size = [], 0, display_width(token)
        line.append(token)
        used += size
    if line and "".join(line).strip():
        lines.append("".join(line).rstrip())
    return lines


def _tokens(text: str) -> list[str]:
    """A space for each run of whitespace, each wide character alone, and the runs of
    anything else (words)."""
    out: list[str] = []
    word = ""
    for ch in text:
        if ch.isspace() or _wide(ch):
            if word:
                out.append(word)
                word = ""
            if not ch.isspace():
                out.append(ch)
            elif not out or out[-1] != " ":
                out.append(" ")
        else:
            word += ch
    if word:
        out.append(word)
    return out


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in ("W", "F")


def _carry(line: list[str]) -> list[str]:
    """An opening mark at the end of a full line moves to the next line."""
    carried: list[str] = []
    while line and line[-1] in _NO_LINE_END and len(line) > 1:
        carried.insert(0, line.pop())
    return carried


def _cut(word: str, room: int) -> tuple[str, str]:
    """The longest head of ``word`` that fits ``room`` columns (at least one character)."""
    used = 0
    for i, ch in enumerate(word):
        used += display_width(ch)
        if used > room and i > 0:
            return word[:i], word[i:]
    return word, ""
