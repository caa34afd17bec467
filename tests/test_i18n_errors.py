"""Errors speak the chosen language: every message and hint of tfenv's error hierarchy
(errors.py) is a whole template looked up with ``_()`` or ``ngettext()``, and the CLI shows
them in Chinese under ``--lang zh`` (exit 2, one paragraph).

The scan reads src/tfenv with :mod:`ast`: each call that makes an error (a class of the
hierarchy, or a function annotated to return one, such as ``Node.fail`` or a module's
``bad``/``_invalid``) is followed into what it is given, and a string literal or f-string
with words in it that reaches the text without passing through ``_()``/``ngettext()``/
``N_()`` fails the test. Values that are data, not prose (a config key, a keyword the user
types), are listed in :data:`DATA` with why.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfenv.cli import main

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "tfenv"

_WRAPPERS = {"_", "ngettext", "N_"}
_WORDS = re.compile(r"[A-Za-z]{2,}")
# keyword arguments that are data, never shown as prose: the dotted config key at fault,
# the solver's own message (kept verbatim for the API)
_DATA_KEYWORDS = {"key", "solver_message"}

#: literals that reach an error's text as data, not prose: (file, literal) -> why
DATA = {
    ("api.py", "latest"): "the --tf keyword a user types, shown as given",
    ("upgrade/inputs.py", "latest"): "the --to keyword a user types, shown as given",
    ("commands/install.py", "--tf"): "flag names listed in the message",
    ("commands/install.py", "--manager"): "a flag name",
    ("commands/install.py", "--allow-cpu"): "a flag name",
    ("commands/install.py", "--pre"): "a flag name",
    ("commands/install.py", "--cuda-libs"): "a flag name",
    ("refresh/simple_api.py", "HTTP 404"): "a protocol status, as servers say it",
    ("kb/conda.py", "{file}"): "the placeholder the data file must write, shown as written",
}


def _error_classes(trees: dict[Path, ast.Module]) -> set[str]:
    names = {"TfenvError"}
    grew = True
    while grew:
        grew = False
        for tree in trees.values():
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.ClassDef)
                    and node.name not in names
                    and any(_name(b) in names for b in node.bases)
                ):
                    names.add(node.name)
                    grew = True
    return names


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _factories(trees: dict[Path, ast.Module], classes: set[str]) -> set[str]:
    """Functions annotated to return an error of the hierarchy (``-> ConfigError``)."""
    found = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns:
                returned = node.returns
                if isinstance(returned, ast.Constant) and isinstance(returned.value, str):
                    returned = ast.parse(returned.value, mode="eval").body
                if _name(returned) in classes:
                    found.add(node.name)
    return found


def _parts(e: ast.expr) -> list[ast.expr]:
    """The expressions whose text becomes part of ``e``'s text (not through a call other
    than ``.format``/``.join``: any other call's result is its own business)."""
    if isinstance(e, ast.Call):
        func = e.func
        if isinstance(func, ast.Attribute) and func.attr == "format":
            return [func.value, *e.args, *(k.value for k in e.keywords)]
        if isinstance(func, ast.Attribute) and func.attr == "join":
            return [func.value, *e.args]
        return []
    if isinstance(e, ast.JoinedStr):
        return [v.value for v in e.values if isinstance(v, ast.FormattedValue)]
    out: list[ast.expr] = []
    for kind, fields in _NESTED.items():
        if isinstance(e, kind):
            for name in fields:
                value = getattr(e, name)
                items = value if isinstance(value, list) else [value]
                out += [x for x in items if isinstance(x, ast.expr)]
    return out


# the parts of an expression whose text is its text
_NESTED: dict[type[ast.expr], tuple[str, ...]] = {
    ast.BinOp: ("left", "right"),
    ast.IfExp: ("body", "orelse"),
    ast.BoolOp: ("values",),
    ast.List: ("elts",),
    ast.Tuple: ("elts",),
    ast.Set: ("elts",),
    ast.Dict: ("values",),
    ast.GeneratorExp: ("elt",),
    ast.ListComp: ("elt",),
    ast.SetComp: ("elt",),
    ast.Starred: ("value",),
}


def _is_wrapped(e: ast.expr) -> bool:
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id in _WRAPPERS


def _has_words(e: ast.expr) -> bool:
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str) and bool(_WORDS.search(e.value))
    if isinstance(e, ast.JoinedStr):
        return any(isinstance(v, ast.Constant) and _WORDS.search(str(v.value)) for v in e.values)
    return False


class _Text:
    """The string literals with words that reach an expression's text untranslated."""

    def __init__(self, scope: ast.AST) -> None:
        self.assigned: dict[str, list[ast.expr]] = {}
        inside = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef)) else []
        for node in (n for stmt in inside for n in _walk_here(stmt)):
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                targets = [node.target]
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name) and node.value is not None:
                    self.assigned.setdefault(target.id, []).append(node.value)
        self.seen: set[str] = set()

    def literals(self, e: ast.expr) -> Iterator[ast.expr]:
        if _is_wrapped(e):
            return
        if _has_words(e):
            yield e
        if isinstance(e, ast.Name) and e.id not in self.seen:
            self.seen.add(e.id)
            for value in self.assigned.get(e.id, []):
                yield from self.literals(value)
        for part in _parts(e):
            yield from self.literals(part)


def untranslated(files: dict[Path, str]) -> list[str]:
    """``file:line: literal`` for each untranslated literal in an error's text."""
    trees = {p: ast.parse(text) for p, text in files.items()}
    classes = _error_classes(trees)
    makers = classes | _factories(trees, classes)
    found = []
    for path, tree in sorted(trees.items()):
        rel = path.relative_to(SRC).as_posix() if path.is_relative_to(SRC) else path.name
        scopes = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Lambda))]
        for scope in [tree, *scopes]:
            text = _Text(scope)
            body = scope.body if isinstance(scope, (ast.Module, ast.FunctionDef)) else [scope.body]
            for stmt in body:
                for node in _walk_here(stmt):
                    if not (isinstance(node, ast.Call) and _name(node.func) in makers):
                        continue
                    given = [*node.args]
                    given += [k.value for k in node.keywords if k.arg not in _DATA_KEYWORDS]
                    for arg in given:
                        for lit in text.literals(arg):
                            value = lit.value if isinstance(lit, ast.Constant) else None
                            if (rel, value) not in DATA:
                                found.append(f"{rel}:{lit.lineno}: {ast.unparse(lit)[:80]}")
                    text.seen.clear()
    return sorted(set(found))


def _walk_here(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` that does not enter functions (each is its own scope)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _walk_here(child)


def _sources() -> dict[Path, str]:
    return {p: p.read_text("utf-8") for p in sorted(SRC.rglob("*.py"))}


def test_every_error_message_and_hint_is_a_template() -> None:
    found = untranslated(_sources())
    assert not found, (
        "Error messages and hints with English not wrapped in _() or ngettext() "
        "(make them whole templates, or list data in DATA):\n" + "\n".join(found)
    )


def test_the_scan_finds_each_kind_of_untranslated_text(tmp_path: Path) -> None:
    """Not vacuous: literals, f-strings, hints, format arguments, fragments joined in a
    variable, and a function that returns an error are all caught; _() is not."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "class TfenvError(Exception): ...\n"
        "class UsageError(TfenvError): ...\n"
        "def bad(problem: str) -> UsageError:\n"
        "    return UsageError(_('Bad: {p}.').format(p=problem))\n"
        "def f(x, n):\n"
        "    raise UsageError('plain words')\n"
        "def g(x):\n"
        "    raise UsageError(f'{x} is wrong', hint=_('fine'))\n"
        "def h(x):\n"
        "    raise UsageError(_('fine'), hint='a hint in English')\n"
        "def i(x):\n"
        "    raise UsageError(_('{x} at {where}').format(x=x, where=x or 'the top'))\n"
        "def j(x):\n"
        "    where = f' (line {x})' if x else ''\n"
        "    raise UsageError(_('Cannot read{where}.').format(where=where))\n"
        "def k(x):\n"
        "    raise bad(f'it has no {x}')\n"
        "def ok(x, n):\n"
        "    raise UsageError(_('{x}: {n}').format(x=x, n=ngettext('one', 'many', n)),\n"
        "                     key='tool.tfenv')\n",
        encoding="utf-8",
    )
    found = untranslated({sample: sample.read_text("utf-8")})
    lines = sorted(int(f.split(":")[1]) for f in found)
    assert lines == [6, 8, 10, 12, 14, 17], found


# -- the CLI shows them in Chinese -------------------------------------------------------

_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(
    ("argv", "english"),
    [
        (["resolve", "--os", "linux", "--gpu", "RTX 30", "--python", "3.11"], "Unknown GPU"),
        (
            [
                "resolve",
                "--os",
                "linux",
                "--gpu",
                "RTX 3060",
                "--python",
                "3.11",
                "--chart",
                "{tmp}",
            ],
            "is a folder",
        ),
        (
            [
                "resolve",
                "--os",
                "linux",
                "--gpu",
                "RTX 3060",
                "--driver",
                "535.104.05",
                "--python",
                "3.11",
                "--emit",
                "{tmp}/file",
            ],
            "this is a file",
        ),
        (["resolve", "--os", "windows", "--arch", "aarch64", "--python", "3.11"], "no wheels"),
        (["resolve", "--host", "{tmp}/bad.json"], "not a valid host profile"),
        (["refresh", "--package", "numpy", "--index-url", "http://127.0.0.1:9/"], "does not know"),
        (["refresh", "--gpus", "{tmp}/none.md", "--gpus-commit", "abc"], "cannot be read"),
    ],
)
def test_errors_read_as_chinese(
    argv: list[str], english: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    (tmp_path / "bad.json").write_text('{"schema": 1, "os": 7}', encoding="utf-8")
    args = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main([*args, "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert english in err, err
    assert main([*args, "--lang", "zh"]) == 2
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert lines[-1].startswith("tfenv：错误："), err  # one paragraph, last (after progress)
    assert sum(line.startswith("tfenv：") for line in lines) == 1, err
    assert english not in err, err
    assert len(_CJK.findall(err)) >= 6, err
