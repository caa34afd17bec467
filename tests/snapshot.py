"""The frozen knowledge base the tests run on, and the shipped one a few tests check.

``tests/kb_snapshot/`` is a copy of ``src/tfenv/data`` taken by ``tools/snapshot_kb.py``:
solver, wording and golden cases run on it, so that a release added to the shipped data by
``tfenv refresh`` changes no test expectation. ``tests/conftest.py`` points
``TFENV_DATA_DIR`` at it for every test (subprocesses included), except tests marked
``shipped_kb``: the invariants of the shipped data and the docs generated from it.
``TFENV_TEST_SHIPPED_DIR`` stands in for the shipped data in those (the fake-release test
points it at a copy with one more release).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from tfenv.kb import KnowledgeBase

__all__ = ["SNAPSHOT", "frozen_kb", "shipped_dir", "shipped_kb"]

SNAPSHOT = Path(__file__).parent / "kb_snapshot"


def frozen_kb() -> KnowledgeBase:
    """A knowledge base of the frozen snapshot."""
    return KnowledgeBase(SNAPSHOT)


def shipped_dir() -> Optional[Path]:
    """The data folder that stands for the shipped data (None: the package's own)."""
    folder = os.environ.get("TFENV_TEST_SHIPPED_DIR")
    return Path(folder) if folder else None


def shipped_kb() -> KnowledgeBase:
    """A knowledge base of the shipped data (or of its stand-in)."""
    return KnowledgeBase(shipped_dir())
