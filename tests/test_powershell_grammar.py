"""The PowerShell that tfenv writes, read by a parser of PowerShell's grammar that is not ours.

``tests/winshell.py`` is this project's own reading of PowerShell's documents. Here a second,
independent reader checks the same lines: the tree-sitter grammar for PowerShell (the
``tree-sitter-powershell`` package, Airbus CERT, MIT; its README names the PowerShell 7.3
language specification's grammar chapter as its reference). PowerShell itself cannot run on
the machines this project tests on: no package in the registries they reach carries it or its
assemblies (checked 2026-12-04: Debian bookworm, trixie and sid, main, contrib and non-free,
have neither PowerShell nor .NET; the npm ``pwsh`` package downloads PowerShell at install
time; the PyPI ``pwsh`` package carries only a reference assembly of Windows PowerShell's
System.Management.Automation, every method body empty). The grammar is not PowerShell's own
parser either: a second opinion, not the last word. Where it is stricter than PowerShell (it
takes no command name that starts with / or ./, nor a bare --), tfenv's Windows commands do
not go: they start with a program name or a Windows path and quote --.

Checked:

- every activation script that ``--emit`` writes for native Windows (a hostile GPU name in its
  header included) is comments and ``$env:NAME = '...' + $env:OTHER`` statements and nothing
  else, and the values it sets, evaluated from the tree, are the ones the ``.bat`` sets;
- every Windows command tfenv prints is one command whose arguments are bare words,
  parameters or double-quoted strings with nothing inside to expand, and the arguments are
  the ones ``winshell.both`` reads;
- the same for any words that :func:`tfenv.shells.command` accepts and any values that
  :func:`tfenv.shells.set_variable` writes (hypothesis).

The test is skipped where the package is missing (it is in the ``test`` extra for Python
3.10 and later, the versions it has wheels for).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from packaging.version import Version

from tests.test_windows import (
    CASES,
    GTX_1060,
    HOSTILE,
    RTX_3070_TI_LAPTOP,
    _resolve,
    _windows_venv,
    printed_commands,
)
from tests.winshell import both
from tfenv.doctor import env as target_env
from tfenv.emit import plan_files
from tfenv.kb import KnowledgeBase
from tfenv.shells import command, is_windows_safe, set_variable

_REASON = "tree-sitter-powershell is not installed (pip install -e '.[test]' on Python >= 3.10)"
tree_sitter = pytest.importorskip("tree_sitter", reason=_REASON)
grammar = pytest.importorskip("tree_sitter_powershell", reason=_REASON)


def _parser(module: Any) -> Any:
    return tree_sitter.Parser(tree_sitter.Language(module.language()))


#: the grammar of the test extra, and Wharflab's fork of it (tree-sitter-pwsh) where installed
PARSERS = [_parser(grammar)]
if importlib.util.find_spec("tree_sitter_pwsh") is not None:
    PARSERS.append(_parser(importlib.import_module("tree_sitter_pwsh")))

# the hostile name of tests/test_windows.py, and more that PowerShell would act on
HOSTILE_PS = HOSTILE + " '; $(calc) ${env:X} @(1) #> <# & ./x.ps1 \" `n `; 1;"


def _text(node: Any) -> str:
    return bytes(node.text).decode("utf-8")


def _parse(source: str, parser: Any) -> Any:
    tree = parser.parse(source.encode("utf-8"))
    assert not tree.root_node.has_error, (source, str(tree.root_node))
    return tree.root_node


def _only(node: Any, kind: str) -> Any:
    """The one named child of ``node``, which must be a ``kind``."""
    children = node.named_children
    assert [c.type for c in children] == [kind], (_text(node), str(node))
    return children[0]


def _unwrap(node: Any) -> Any:
    """Down the chain of one-operand expressions (``unary_expression`` inside
    ``additive_expression`` inside ...) that the grammar puts around an operand."""
    while node.type.endswith("_expression") and len(node.children) == 1:
        node = node.children[0]
    return node


def _string_value(node: Any) -> str:
    """The value of a string literal that expands nothing: ``'...'`` or ``"..."`` without
    ``$`` or a backtick."""
    assert node.type == "string_literal", (node.type, _text(node))
    inner = node.named_children
    assert len(inner) == 1, str(node)
    literal = inner[0]
    text = _text(literal)
    if literal.type == "verbatim_string_characters":
        assert text[0] == text[-1] == "'", text
        return text[1:-1].replace("''", "'")
    assert literal.type == "expandable_string_literal", str(node)
    # nothing inside: no variable, no sub-expression, no escape
    assert not literal.named_children, str(literal)
    assert not re.search(r"[$`]", text), text
    return text[1:-1]


def ps_argv(line: str, parser: Any = None) -> list[str]:
    """The program and the arguments a PowerShell command line passes, as the grammar reads
    it (every grammar installed, where ``parser`` is not given: they must agree); fails on
    anything but one plain command."""
    if parser is None:
        readings = [ps_argv(line, p) for p in PARSERS]
        assert all(r == readings[0] for r in readings), readings
        return readings[0]
    root = _parse(line, parser)
    assert [c.type for c in root.children] == ["statement_list"], str(root)
    cmd = _only(_only(_only(root.children[0], "pipeline"), "pipeline_chain"), "command")
    parts = cmd.named_children
    assert parts, str(cmd)
    assert parts[0].type == "command_name", str(cmd)
    argv = [_text(parts[0])]
    if len(parts) == 1:
        return argv
    assert [p.type for p in parts[1:]] == ["command_elements"], str(cmd)
    elements = parts[1].named_children
    # separator, argument, separator, argument, ...: no argument glued to another
    assert [e.type for e in elements[0::2]] == ["command_argument_sep"] * len(elements[0::2])
    for element in elements[1::2]:
        if element.type in ("generic_token", "command_parameter"):
            assert not element.named_children, str(element)
            argv.append(_text(element))
        else:  # a bare number (real_literal) or anything else fails here
            argv.append(_string_value(_unwrap(element)))
    return argv


def _ps_value(node: Any, env: dict[str, str]) -> str:
    """The value of ``'...' + $env:NAME + ...``; fails on any other expression."""
    node = _unwrap(node)
    if node.type == "string_literal":
        return _string_value(node)
    if node.type == "variable":
        match = re.fullmatch(r"\$env:([A-Za-z_][A-Za-z0-9_]*)", _text(node))
        assert match, _text(node)
        return env.get(match.group(1), "")
    if node.type in ("pipeline", "pipeline_chain", "assignment_value"):
        return _ps_value(_only(node, node.named_children[0].type), env)
    assert node.type == "additive_expression", str(node)
    left, operator, right = node.children
    assert operator.type == "+", str(node)
    return _ps_value(left, env) + _ps_value(right, env)


def run_ps1(script: str, env: dict[str, str], parser: Any = None) -> dict[str, str]:
    """What the activation script sets, read from the grammar's tree (every grammar
    installed, where ``parser`` is not given: they must agree); fails on anything but
    comments and ``$env:NAME = <value>`` statements."""
    if parser is None:
        readings = [run_ps1(script, env, p) for p in PARSERS]
        assert all(r == readings[0] for r in readings), readings
        return readings[0]
    assert script.isascii(), script
    root = _parse(script, parser)
    comments = [c for c in root.children if c.type == "comment"]
    lines = [line for line in re.split(r"\r\n|\n|\r", script) if line]
    assert [_text(c) for c in comments] == [line for line in lines if line.startswith("#")]
    for comment in comments:
        assert not _text(comment).lower().startswith("#requires"), _text(comment)
    statements = [c for c in root.children if c.type != "comment"]
    assert [c.type for c in statements] == ["statement_list"], str(root)
    env = dict(env)
    for pipeline in statements[0].named_children:
        assert pipeline.type == "pipeline", str(pipeline)
        assignment = _only(pipeline, "assignment_expression")
        target = assignment.named_children[0]
        assert target.type == "left_assignment_expression", str(assignment)
        left = _unwrap(target)
        assert left.type == "variable", str(left)
        name = re.fullmatch(r"\$env:([A-Za-z_][A-Za-z0-9_]*)", _text(left))
        assert name, _text(left)
        operators = [c for c in assignment.children if c.type.endswith("_operator")]
        assert [_text(o) for o in operators] == ["="], str(assignment)
        env[name.group(1)] = _ps_value(assignment.child_by_field_name("value"), env)
    return env


def run_bat(script: str, env: dict[str, str]) -> dict[str, str]:
    """What the batch file's ``set "NAME=value"`` lines set (``%NAME%`` expanded)."""
    env = dict(env)
    for line in script.split("\r\n"):
        match = re.fullmatch(r'set "([A-Za-z_][A-Za-z0-9_]*)=([^"]*)"', line)
        if match:
            value = re.sub(r"%([A-Za-z_][A-Za-z0-9_]*)%", lambda m: env.get(m[1], ""), match[2])
            env[match[1]] = value
    return env


# -- the grammar reads what winshell reads -------------------------------------------------


def test_the_grammar_reads_commands_as_winshell_does() -> None:
    line = 'python -m pip install "tensorflow==2.10.1" "numpy<2" -c conda-forge'
    argv = ["python", "-m", "pip", "install", "tensorflow==2.10.1", "numpy<2", "-c", "conda-forge"]
    assert ps_argv(line) == both(line) == argv


@pytest.mark.parametrize(
    "line",
    [
        'python "a$b"',  # a variable inside double quotes
        'python "a$(calc)b"',  # a sub-expression
        'python "a`"b"',  # an escaped quote
        "python 3.10",  # a number, not a word
        "python a; calc",  # a second statement
        "python a | calc",  # a pipeline
        '"python" -V',  # a string, not a command
    ],
)
def test_the_grammar_refuses_what_is_not_a_plain_command(line: str) -> None:
    with pytest.raises(AssertionError):
        ps_argv(line)


def test_the_evaluator_reads_assignments() -> None:
    script = "# c\r\n$env:A = 'x''y'\r\n$env:PATH = 'p;' + $env:A + $env:PATH\r\n"
    assert run_ps1(script, {"PATH": "old"}) == {"A": "x'y", "PATH": "p;x'yold"}
    for bad in (
        "$env:A = 'x'; calc\r\n",
        '$env:A = "x$b"\r\n',
        "$env:A = calc\r\n",
        "# a comment\r\ncalc\r\n$env:A = 'x'\r\n",  # a line break out of the comment
        "$env:A = 'x' - 'y'\r\n",
    ):
        with pytest.raises(AssertionError):
            run_ps1(bad, {})


# -- what tfenv writes ----------------------------------------------------------------------


@pytest.mark.parametrize(("tf", "python", "manager"), CASES)
def test_every_windows_command_parses_as_one_plain_command(
    kb: KnowledgeBase, tf: str, python: str, manager: str
) -> None:
    res = _resolve(kb, tf, python, manager)
    assert res.plan is not None, res.conflicts
    # the Verify command, which the system route's last step quotes too (system_steps.py)
    lines = [*printed_commands(res), res.plan.verify]
    for line in lines:
        assert ps_argv(line) == both(line), line


def test_the_suggestions_parse_as_plain_commands(kb: KnowledgeBase) -> None:
    res = _resolve(kb, "2.10", "3.12")  # no 2.10 wheel for Python 3.12: a way out names 3.10
    lines = [dict(s.fields)["command"] for s in res.suggestions if "command" in dict(s.fields)]
    assert lines
    for line in lines:
        assert ps_argv(line) == both(line), line


def test_the_doctor_fix_parses_as_a_plain_command(tmp_path: Path, kb: KnowledgeBase) -> None:
    """The fix names the venv's interpreter, here as a Windows path: the grammar does not
    take a command name that starts with / or ./ (PowerShell does), which only a test on
    Linux would give."""
    from tfenv.doctor.runtime import check_runtime

    found = target_env.from_prefix(_windows_venv(tmp_path / "venv"))
    exe = "C:\\Users\\me\\tf-2.10\\Scripts\\python.exe"
    env = dataclasses.replace(found, interpreter=exe)
    fix = {f.id: f for f in check_runtime(kb, env, Version("2.10.1"), "windows")}[
        "runtime-numpy"
    ].fix
    assert fix is not None
    assert ps_argv(fix) == both(fix) == [exe, "-m", "pip", "install", "numpy<2"]


@pytest.mark.parametrize(
    ("tf", "python", "gpu", "driver", "cuda"),
    [
        ("2.3", "3.8", GTX_1060, "472.12", "10.1"),
        ("2.10", "3.10", RTX_3070_TI_LAPTOP, "531.79", "11.2"),
    ],
)
@pytest.mark.parametrize("hostile", [False, True])
def test_the_ps1_sets_what_the_bat_sets_and_runs_nothing(
    kb: KnowledgeBase,
    tf: str,
    python: str,
    gpu: tuple[str, str],
    driver: str,
    cuda: str,
    hostile: bool,
) -> None:
    res = _resolve(kb, tf, python, "pip", gpu, driver, gpu_name=HOSTILE_PS if hostile else None)
    files = plan_files(res)
    before = {"PATH": "C:\\Windows\\system32"}
    env = run_ps1(files["activate-tfenv.ps1"], before)
    assert env == run_bat(files["activate-tfenv.bat"], before)
    root = f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{cuda}"
    assert env == {
        "CUDA_PATH": root,
        f"CUDA_PATH_V{cuda.replace('.', '_')}": root,
        "PATH": f"{root}\\bin;{root}\\extras\\CUPTI\\lib64;C:\\Windows\\system32",
    }
    if hostile:
        assert "calc" in files["activate-tfenv.ps1"]  # in a comment, as the parse showed


# -- any word tfenv accepts -----------------------------------------------------------------

_ASCII = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=12)


def _grammar_reads(word: str) -> bool:
    """Whether the grammar can read ``word`` as PowerShell does. It takes no digit in a
    bare parameter (``-j4``, ``--a1``: a parse error), where PowerShell's language
    specification allows one (parameter-chars) and passes ``make -j4`` on as it is; tfenv
    writes no such word, and the hypothesis below leaves them out rather than have tfenv
    quote them for the grammar's sake (found: ``python -A0``)."""
    return not re.fullmatch(r"-{1,2}[A-Za-z][A-Za-z0-9-]*", word) or not re.search(r"\d", word)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ASCII.filter(is_windows_safe).filter(_grammar_reads), min_size=1, max_size=4))
def test_any_safe_word_reaches_the_program_unchanged(words: list[str]) -> None:
    line = command(["python", *words], "windows")
    assert ps_argv(line) == ["python", *words], line


_VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=16).filter(
    lambda v: not any(c in v for c in '"%!')
)


@settings(max_examples=300, deadline=None)
@given(_VALUE, _VALUE)
def test_any_value_is_set_unchanged(head: str, tail: str) -> None:
    ps = set_variable("TFENV_X", f"{head}%PATH%{tail}", "powershell")
    env = run_ps1(ps + "\r\n", {"PATH": "<old>"})
    assert env["TFENV_X"] == f"{head}<old>{tail}"
    bat = set_variable("TFENV_X", f"{head}%PATH%{tail}", "cmd")
    assert run_bat(bat, {"PATH": "<old>"}) == env
