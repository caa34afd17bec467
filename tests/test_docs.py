"""The docs that are generated from code stay in step with it; the README's set-up lines."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli_reference import render
from tfenv.cli import main

ROOT = Path(__file__).parent.parent

pytestmark = pytest.mark.shipped_kb  # the docs show the shipped data


def test_cli_reference_is_current() -> None:
    assert (ROOT / "docs" / "cli.md").read_text("utf-8") == render(), (
        "docs/cli.md is stale: run 'python -m tests.cli_reference > docs/cli.md'"
    )


def test_readme_has_exactly_two_setup_lines_and_ci_runs_the_test_line() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    blocks = re.findall(r"```\n(.*?)\n```", readme, flags=re.S)
    setup = [b for b in blocks if b.startswith("python3 -m venv")]
    assert len(setup) == 2
    assert all("\n" not in line for line in setup)
    assert "tfenv resolve" in setup[0]
    assert setup[1].endswith('python -m pytest -m "not live"')
    ci = (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
    assert setup[1] in ci
    assert ".venv/bin/python -m pytest -m live" in ci[ci.index(setup[1]) + 1 :]


def test_docs_pages_exist() -> None:
    for page in ("index", "cli", "knowledge-base", "architecture", "routes", "matrix", "windows"):
        assert (ROOT / "docs" / f"{page}.md").is_file(), page


def test_readme_example_is_what_tfenv_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """The README's console block is the command's whole output, today (it names no detected
    fact, so it is the same on every machine)."""
    readme = (ROOT / "README.md").read_text("utf-8")
    (block,) = re.findall(r"```console\n(.*?)```", readme, flags=re.S)
    command, shown = block.split("\n", 1)
    argv = shlex.split(command.removeprefix("$ "))
    assert argv[0] == "tfenv"
    code = main(argv[1:])
    out = capsys.readouterr().out
    assert out == shown, "README.md's example is stale: paste the new output"
    assert code == 1  # the example is a machine nothing fits


@pytest.mark.shipped_kb
def test_the_chinese_guides_examples_are_what_tfenv_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/zh/index.md's console blocks are the commands' whole output with the shipped
    knowledge base (the ways out in them are commands a reader copies)."""
    page = (ROOT / "docs" / "zh" / "index.md").read_text("utf-8")
    blocks = re.findall(r"```console\n(.*?)```", page, flags=re.S)
    assert len(blocks) >= 2
    for block in blocks:
        command, shown = block.split("\n", 1)
        argv = shlex.split(command.removeprefix("$ "))
        assert argv[:2] == ["tfenv", "resolve"]
        main(argv[1:])
        out = capsys.readouterr().out
        assert out == shown, f"docs/zh/index.md's example is stale: {command}"
