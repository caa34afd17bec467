from __future__ import annotations

import pytest

from tfenv.kb import KnowledgeBase


@pytest.fixture(scope="session")
def kb() -> KnowledgeBase:
    """The shipped knowledge base, loaded once."""
    return KnowledgeBase()
