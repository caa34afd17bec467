"""``Request.allows``: the one rule for which releases answer a --tf request (solver and team)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from tfenv.models.target import Request
from tfenv.specs import parse_tf_spec


def request(text: str, pre: bool = False) -> Request:
    return Request(tf=parse_tf_spec(text), tf_text=text, pre=pre)


@pytest.mark.parametrize(
    ("text", "pre", "version", "yanked", "ok"),
    [
        ("latest", False, "2.21.0", False, True),
        ("latest", False, "2.21.0rc1", False, False),  # no pre-release unless asked
        ("latest", True, "2.22.0rc0", False, True),
        ("2.15", False, "2.15.1", False, True),
        ("2.15", False, "2.15.0rc0", False, False),
        ("2.22.0rc0", False, "2.22.0rc0", False, True),  # named explicitly
        (">=2.12,<2.16", False, "2.16.1", False, False),
        ("latest", False, "2.15.1", True, False),  # yanked: only when pinned exactly
        ("2.15.1", False, "2.15.1", True, True),
        ("2.15", False, "2.15.1", True, False),  # a wildcard is not an exact pin
    ],
)
def test_allows(text: str, pre: bool, version: str, yanked: bool, ok: bool) -> None:
    assert request(text, pre).allows(Version(version), yanked) is ok
