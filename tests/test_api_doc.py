"""docs/api.md's examples run, in order, in one namespace; and ``import tfenv`` is cheap."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lock_index import (  # the fixtures: wheels, index
    LockIndex,
    index_fixture,  # noqa: F401
    wheels_fixture,  # noqa: F401
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
_TEXT = DOC.read_text("utf-8")
# each example padded to its own lines of the page, so a failure points at the page's line
BLOCKS = [
    "\n" * _TEXT.count("\n", 0, m.start(1)) + m.group(1)
    for m in re.finditer(r"^```python\n(.*?)^```", _TEXT, re.M | re.S)
]


def test_the_doc_has_examples() -> None:
    assert len(BLOCKS) >= 3


def test_the_examples_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, index: LockIndex
) -> None:
    # the shipped knowledge base; the lock example's index is a local one (tests/lock_index.py)
    # named the way a user names theirs, and it runs in a fresh folder with its own caches
    monkeypatch.delenv("TFENV_DATA_DIR", raising=False)
    monkeypatch.setenv("TFENV_INDEX_URL", index.url)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path / "tfenv-cache"))
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {}
    for block in BLOCKS:
        exec(compile(block, str(DOC), "exec"), namespace)


def test_the_api_is_exported_and_lazy() -> None:
    code = (
        "import sys, tfenv; assert 'tfenv.api' not in sys.modules; "
        "assert tfenv.resolve is __import__('tfenv.api').api.resolve; "
        "assert tfenv.detect.__module__ == 'tfenv.api'; "
        "assert tfenv.check_upgrade.__module__ == 'tfenv.upgrade.api'; "
        "assert tfenv.check_lock.__module__ == 'tfenv.lock.api'; "
        "assert callable(tfenv.lock) and tfenv.lock is sys.modules['tfenv.lock']"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    import tfenv

    with pytest.raises(AttributeError):
        tfenv.nothing_here  # noqa: B018
