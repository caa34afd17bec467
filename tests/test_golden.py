"""What tfenv prints stays byte for byte the same (tests/golden.py; frozen knowledge base)."""

from __future__ import annotations

import difflib

import pytest

from tests.golden import GROUPS, OUT, render


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_output_is_unchanged(group: str) -> None:
    want = (OUT / f"{group}.txt").read_text("utf-8")
    got = render(GROUPS[group]())
    assert want.count("\n=== ") >= 3, "the golden file lost its cases"
    diff = "".join(
        difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=1)
    )
    assert got == want, f"tests/golden/{group}.txt differs (python -m tests.golden):\n{diff}"
