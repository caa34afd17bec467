"""Text that came from outside, made safe for the place it goes.

Every value derived from input (a host file, the configuration, a pasted error, a file
name) that lands in a generated file or on a terminal passes through one of these,
chosen by the syntax of the destination:

- :func:`visible`: one line of plain text with every control character (newlines, ESC,
  DEL, C1, line and paragraph separators, bidirectional overrides) and every lone
  surrogate written as a visible escape (``\\n``, ``\\x1b``, ``\\u2028``, ``\\udcff``);
  used for terminal output and inside the others.
- :func:`comment` / :func:`comment_block`: ``# ...`` lines for shell scripts,
  requirements files, TOML, YAML and Dockerfiles; a comment can never end early.
- :func:`shell_word`: one POSIX shell word (single-quoted where needed);
  :func:`shell_export`: an ``export NAME="..."`` line that stays one line.
- :func:`docker_json_array`: a Dockerfile exec-form (JSON array) argument list.
- :func:`requirement_line`: a requirements-file line that must stay one line.

And :func:`is_printable`, the test that readers apply to names they validate
(a GPU name in a host file, for example).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "comment",
    "comment_block",
    "docker_json_array",
    "is_printable",
    "requirement_line",
    "shell_export",
    "shell_word",
    "visible",
    "visible_lines",
]

# C0 controls, DEL, C1 controls, the Unicode line/paragraph separators, the
# bidirectional embedding/override/isolate controls, zero-width joiners and BOM, and
# lone surrogates (which cannot be encoded as UTF-8 at all).
_UNSAFE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ud800-\udfff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str) -> str:
    """``text`` on one line, with every control character shown as an escape."""
    return _UNSAFE.sub(_escape, text)


def visible_lines(text: str) -> str:
    """Like :func:`visible`, but keeps the newlines of multi-line text (for a terminal)."""
    return "\n".join(visible(line) for line in text.split("\n"))


def is_printable(text: str) -> bool:
    """True when ``text`` has no control character, separator or lone surrogate."""
    return _UNSAFE.search(text) is None


def comment(text: str, marker: str = "#") -> str:
    """One comment line: ``# text``, where ``text`` cannot start a new line."""
    body = visible(text)
    return f"{marker} {body}".rstrip()


def comment_block(lines: Iterable[str], marker: str = "#") -> str:
    """Comment lines, each ending in a newline."""
    return "".join(comment(line, marker) + "\n" for line in lines)


def shell_word(text: str) -> str:
    """One POSIX shell word for ``text``: quoted, and never spanning lines."""
    import shlex  # the writers of scripts only: a resolve's text needs none of it

    return shlex.quote(visible(text))


_SHELL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shell_export(name: str, expression: str) -> str:
    """``export NAME="expression"`` for an expression tfenv composed itself (it may use
    ``$VAR`` and ``$(...)`` on purpose, as the plans' environment variables do): the name
    must be a shell name, and no line break or control character can end the line. Text
    from outside goes through :func:`shell_word` instead."""
    if not _SHELL_NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a shell variable name")
    return f'export {name}="{visible(expression)}"'


def docker_json_array(args: Iterable[str]) -> str:
    """Dockerfile exec form: a JSON array on one line (escapes are JSON's)."""
    import json

    return json.dumps(list(args), ensure_ascii=True)


def requirement_line(text: str) -> str:
    """A requirements-file line: one line, and never an option line (``-...``)."""
    line = visible(text).strip()
    if line.startswith("-"):
        raise ValueError(f"{line!r} would be read as an option, not a requirement")
    return line
