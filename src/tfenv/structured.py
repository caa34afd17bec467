"""Parsing JSON, TOML and YAML that came from outside.

The parsers of the standard library and PyYAML fail in more ways than their own error
classes: an integer past Python's 4,300-digit conversion limit is a ``ValueError``,
nesting a few thousand levels deep is a ``RecursionError``. Each function here turns
every failure into one :class:`StructureError` (a ``ValueError``) whose message is a
single line without the parser's class name, for the caller to wrap in its own
:class:`~tfenv.errors.TfenvError`.

TOML is scanned before it is parsed: the TOML parser (``tomli``, the standard library's
``tomllib`` compiled with mypyc, 2.3 times as fast on the same input) spends time and
memory that grow with the square of a dotted key's or a table header's number of parts
(``k.k.k...k = 1`` with 20,000 parts takes gigabytes), so a document whose keys, headers
or inline arrays and tables reach deeper than :data:`MAX_DEPTH` is refused by
:func:`toml_depth_problem`, a linear scan, before the parser sees it. What the scan lets
through still costs the parser about 0.4 s of CPU per MiB at worst (every line a dotted
key of 63 parts; 0.9 s with ``tomllib``: ``bench/bench_toml.py``, 2026-12-03), so TOML
is read up to :data:`MAX_TOML` bytes, 0.2 s's worth on a quiet machine. A large
project's ``pyproject.toml`` (Home Assistant's, pylint and pytest settings included) is
44 KB. A ``pylock.toml`` is larger: ``uv export --format pylock.toml`` lists every wheel
of each locked version (astral-sh/uv#13413); for ``tensorflow[and-cuda]==2.20.0`` it
wrote 80 KB for one Python and 490 KB for Python 3.9 and newer (72 packages, measured
2026-12-03), which parse in 0.05 s. The files tfenv writes for a target hold one
platform's wheels.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "MAX_TOML",
    "StructureError",
    "load_json",
    "load_toml",
    "load_yaml",
    "parse_toml",
    "toml_depth_problem",
]

MAX_DEPTH = 64  # deeper than any file tfenv reads legitimately
MAX_TOML = 512 * 1024  # the most bytes of TOML tfenv reads (see the module's docstring)


class StructureError(ValueError):
    """The text is not a usable document; ``str()`` is one line."""


def load_json(text: str, *, unique_keys: bool = False) -> Any:
    """The JSON document in ``text``; ``unique_keys`` refuses an object that gives a key
    twice (a hand-edited file where one value would silently win)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique_object if unique_keys else None)
    except json.JSONDecodeError as exc:
        raise StructureError(f"{exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        raise StructureError(_too_deep()) from None
    except ValueError as exc:  # an integer too long to convert
        raise StructureError(_one_line(exc)) from None
    return _bounded(data)


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            shown = key if len(key) <= 40 else key[:40] + "..."
            raise StructureError(f"the key {shown!r} appears twice in one object")
        out[key] = value
    return out


def load_toml(text: str) -> dict[str, Any]:
    """The TOML document in ``text``: at most :data:`MAX_TOML` characters (files are read
    with that bound in bytes, for the message that names the file) and :data:`MAX_DEPTH`
    levels deep."""
    if len(text) > MAX_TOML:
        raise StructureError(f"it is longer than {MAX_TOML // 1024} KiB, the most tfenv parses")
    problem = toml_depth_problem(text)
    if problem is not None:
        raise StructureError(problem)
    try:
        data = parse_toml(text)
    except RecursionError:
        raise StructureError(_too_deep()) from None
    except ValueError as exc:  # TOMLDecodeError is one; so is an integer too long
        raise StructureError(_one_line(exc)) from None
    result: dict[str, Any] = _bounded(data)
    return result


def parse_toml(text: str) -> dict[str, Any]:
    """The TOML document in ``text``, unbounded: for TOML that tfenv or uv wrote (what
    came from outside goes through :func:`load_toml`). Raises the parser's ``ValueError``
    subclass ``TOMLDecodeError``."""
    import tomli

    return tomli.loads(text)


def load_yaml(text: str) -> Any:
    import yaml

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)
    except yaml.MarkedYAMLError as exc:
        where = f" at line {exc.problem_mark.line + 1}" if exc.problem_mark else ""
        raise StructureError(f"{exc.problem or exc.context or 'invalid YAML'}{where}") from None
    except RecursionError:
        raise StructureError(_too_deep()) from None
    except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
        raise StructureError(_one_line(exc)) from None
    return _bounded(data)


def _bounded(data: Any) -> Any:
    """``data`` unchanged when it nests at most :data:`MAX_DEPTH` levels deep."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    seen: set[int] = set()  # YAML aliases share objects: visit each once
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise StructureError(_too_deep())
        if isinstance(value, (dict, list)):
            if id(value) in seen:
                continue
            seen.add(id(value))
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return data


def _too_deep() -> str:
    return f"it nests deeper than {MAX_DEPTH} levels"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or "it cannot be parsed"


# -- the TOML pre-scan -------------------------------------------------------------------

# What matters in each state (everything else is skipped by the regular expression, in C):
# a key: quotes, comments, dots, '=', the brackets, ',' and line ends
_IN_KEY = re.compile(r"[\"'#\n\[\]{}=,.]")
_IN_HEADER = re.compile(r"[\"'#\n\].]")
_IN_VALUE = re.compile(r"[\"'#\n\[\]{}]")  # a value at the top level ends at the line's end
_IN_ARRAY = re.compile(r"[\"'#\[\]{}]")  # an array may span lines; ',' does not matter
_IN_INLINE = re.compile(r"[\"'#\n\[\]{},]")  # a value in an inline table ends at ',' or '}'
_STRINGS = (  # the multi-line forms first; a closing delimiter may carry two more quotes
    ('"""', re.compile(r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""{0,2}')),
    ("'''", re.compile(r"'''[\s\S]*?''''{0,2}")),
    ('"', re.compile(r'"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"')),
    ("'", re.compile(r"'[^'\n]*'")),
)
_KEY, _HEADER, _VALUE = 0, 1, 2
# keys, headers and inline tables are on one line: without a line of MAX_DEPTH dots or
# MAX_DEPTH opening brackets (strings included), nothing reaches that deep on one line
# (searched in "\n" + text: a literal start is found fast, and each line is tried once)
_CROWDED_LINE = re.compile(r"\n(?:[^\n.\[{]*[.\[{]){" + str(MAX_DEPTH) + "}")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]*(?:[ \t]*\.[ \t]*[A-Za-z0-9_-]+){0," + str(MAX_DEPTH) + "}")


def toml_depth_problem(text: str) -> str | None:
    """Why ``text`` nests deeper than :data:`MAX_DEPTH` levels (a dotted key, a table
    header, arrays and inline tables), or None; linear in its length, without parsing it.

    The levels counted are a lower bound of the parsed document's depth (an array of
    tables is not counted), so no document this refuses would pass :func:`_bounded`;
    what it lets through has no key or header of more than :data:`MAX_DEPTH` parts,
    which keeps ``tomllib``'s work linear. Invalid TOML is scanned as well as it goes
    and left to the parser to report.

    Most documents are cleared by one regular expression (no line holds
    :data:`MAX_DEPTH` dots and opening brackets); arrays nested over many lines are left
    to the parser, whose recursion limit ends them within milliseconds.
    """
    if sum(map(text.count, ".[{")) < MAX_DEPTH or _CROWDED_LINE.search("\n" + text) is None:
        return None
    return _scan(text)


def _scan(text: str) -> str | None:
    """:func:`toml_depth_problem`'s scan, token by token."""
    scan = _Scan(text)
    while scan.pos < len(text):
        found = scan.tokens().search(text, scan.pos)
        if found is None:
            return None
        char, scan.pos = found.group(), found.end()
        if char in "\"'":
            scan.pos = _string_end(text, found.start())
        elif char == "#":
            end = text.find("\n", scan.pos)
            scan.pos = len(text) if end < 0 else end
        elif scan.step(char) > MAX_DEPTH:
            return _too_deep()
    return None


class _Scan:
    """The state of :func:`_scan`: where it is, what it reads, the levels reached."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.mode = _KEY
        self.table = 0  # the levels of the current [table] header
        self.stack: list[tuple[str, int]] = []  # '[' (its items' level), '{' (its own)
        self.parts = 1  # the parts of the key or header being read
        self.level = 0  # the level of the value being read

    def tokens(self) -> re.Pattern[str]:
        if self.mode == _KEY:
            return _IN_KEY
        if self.mode == _HEADER:
            return _IN_HEADER
        if not self.stack:
            return _IN_VALUE
        return _IN_ARRAY if self.stack[-1][0] == "[" else _IN_INLINE

    def step(self, char: str) -> int:
        """Take one structural character; the level it reaches."""
        if self.mode == _HEADER:
            return self._header(char)
        if self.mode == _KEY:
            return self._key(char)
        return self._value(char)

    def _header(self, char: str) -> int:
        if char == ".":
            self.parts += 1
            return self.parts
        self.table = self.parts  # ']' or the end of the line
        if char == "]" and self.text.startswith("]", self.pos):
            self.pos += 1  # [[array.of.tables]]
        self.mode, self.parts = _KEY, 1
        return self.table

    def _key(self, char: str) -> int:
        base = self.stack[-1][1] if self.stack else self.table
        if char == ".":
            run = _BARE_KEY.match(self.text, self.pos)  # the rest of a bare dotted key
            if run is not None:
                self.parts += self.text.count(".", self.pos, run.end())
                self.pos = run.end()
            self.parts += 1
        elif char == "=":
            self.level, self.mode = base + self.parts, _VALUE
        elif char == "[" and not self.stack:
            if self.text.startswith("[", self.pos):
                self.pos += 1
            self.mode, self.parts = _HEADER, 1
            return 0
        elif char == "}" and self.stack and self.stack[-1][0] == "{":
            self.stack.pop()  # {} or a trailing comma
            self.mode = _VALUE
        elif char in ",\n":
            self.parts = 1
        return base + self.parts

    def _value(self, char: str) -> int:
        if char in "[{":
            inner = self.stack and self.stack[-1][0] == "["
            here = self.stack[-1][1] if inner else self.level
            if char == "[":
                self.stack.append(("[", here + 1))
                return here + 1
            self.stack.append(("{", here))
            self.mode, self.parts = _KEY, 1
        elif char in "]}":
            if self.stack and self.stack[-1][0] == ("[" if char == "]" else "{"):
                self.stack.pop()
        elif char == "," or (char == "\n" and not self.stack):
            self.mode, self.parts = _KEY, 1
        return 0


def _string_end(text: str, start: int) -> int:
    """Where the string opening at ``start`` ends (its line's end when it does not close
    there, the text's end for an unclosed multi-line one: the parser reports those)."""
    for opening, pattern in _STRINGS:
        if text.startswith(opening, start):
            found = pattern.match(text, start)
            if found is not None:
                return found.end()
            if len(opening) == 3:
                return len(text)
            end = text.find("\n", start)
            return len(text) if end < 0 else end
    return start + 1  # pragma: no cover - only called at a quote
