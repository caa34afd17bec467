"""The commands the error catalogue (data/errors.yaml) quotes in its causes and fixes read
the same in every shell its readers type them into: bash and zsh, cmd.exe and PowerShell.

A catalogue entry is one text for every machine (explain prints it for Linux, WSL2, macOS
and native Windows alike), so its commands take the one form all of them share: double
quotes around a requirement (``pip install "numpy<2"``). Single quotes reach pip as part of
the word under cmd.exe ("Invalid requirement: 'numpy<2'"), and a bare ``tensorflow[and-cuda]``
is a glob pattern to zsh ("no matches found").
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from tests.winshell import both

ROOT = Path(__file__).resolve().parent.parent
CATALOGUES = [
    ROOT / "src" / "tfenv" / "data" / "errors.yaml",
    ROOT / "tests" / "kb_snapshot" / "errors.yaml",
]
_COMMAND = re.compile(r"`((?:python -m )?pip3? install [^`]+)`")


def _texts(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def commands(path: Path) -> list[str]:
    data = yaml.safe_load(path.read_text("utf-8"))
    return sorted({m.group(1) for text in _texts(data) for m in _COMMAND.finditer(text)})


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: p.parent.name)
def test_the_catalogues_commands_read_alike_in_posix_shells_and_windows(path: Path) -> None:
    found = commands(path)
    assert len(found) >= 5
    for line in found:
        assert shlex.split(line) == both(line), line
        assert not re.search(r"(?<![\"\w])[\w.-]+\[[\w,-]+\]", line), f"zsh globs it: {line}"
