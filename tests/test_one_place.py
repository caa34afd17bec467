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
