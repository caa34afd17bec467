"""What a data-driven case (tests/cases/*.yaml) expects of an answer with no plan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfenv.models.plan import Resolution


def assert_conflict_texts(res: Resolution, expect: Mapping[str, Any]) -> None:
    """The case's ``conflicts`` and ``suggestions`` are substrings of the answer's conflicts
    and ways out; its ``not_in_conflicts`` are not in the conflicts."""
    conflicts = " ".join(res.conflict_sentences)
    suggestions = " ".join(res.suggestion_sentences)
    for text in expect.get("conflicts", []):
        assert text in conflicts, res.conflicts
    for text in expect.get("not_in_conflicts", []):
        assert text not in conflicts, res.conflicts
    for text in expect.get("suggestions", []):
        assert text in suggestions, res.suggestions
