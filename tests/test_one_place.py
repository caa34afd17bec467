"""Concepts typed in one place: a second copy of them in the source fails here."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"


def test_the_oldest_tensorflow_is_typed_once() -> None:
    """The 2.0 floor (refresh, the solver's options, --tf, check-upgrade) is kb.index.OLDEST_TF."""
    floor = re.compile(r"""Version\(\s*["']2(\.0)*["']\s*\)""")
    found = sorted(
        str(p.relative_to(SRC)) for p in SRC.rglob("*.py") if floor.search(p.read_text("utf-8"))
    )
    assert found == ["kb/index.py"], found


def _modules_matching(*patterns: str) -> list[str]:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text("utf-8")
        if all(re.search(p, text) for p in patterns):
            found.append(str(path.relative_to(SRC)))
    return found


def test_one_environment_file_writer() -> None:
    """emit and lock write environment.yml through formats/environment_yml.py only."""
    writers = _modules_matching(r"yaml\.(safe_)?dump", r"[\"']dependencies[\"']")
    assert writers == ["formats/environment_yml.py"], writers


def test_lockfile_formats_are_read_and_written_in_formats() -> None:
    """pylock and conda-lock documents are parsed and built only under formats/."""
    for pattern in (r"Pylock\.from_dict", r"parse_conda_lock_file", r"write_conda_lock_file"):
        found = _modules_matching(pattern)
        assert found, pattern  # the check sees the code it guards
        assert all(f.startswith("formats/") for f in found), (pattern, found)
