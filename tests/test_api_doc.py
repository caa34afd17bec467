"""docs/api.md's examples run, in order, in one namespace; and ``import tfenv`` is cheap."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "api.md"
BLOCKS = re.findall(r"^```python\n(.*?)^```", DOC.read_text("utf-8"), re.M | re.S)


def test_the_doc_has_examples() -> None:
    assert len(BLOCKS) >= 3


def test_the_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TFENV_DATA_DIR", raising=False)
    namespace: dict[str, object] = {}
    for block in BLOCKS:
        exec(compile(block, str(DOC), "exec"), namespace)


def test_the_api_is_exported_and_lazy() -> None:
    code = (
        "import sys, tfenv; assert 'tfenv.api' not in sys.modules; "
        "assert tfenv.resolve is __import__('tfenv.api').api.resolve; "
        "assert tfenv.detect.__module__ == 'tfenv.api'"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_an_unknown_attribute_is_an_attribute_error() -> None:
    import tfenv

    with pytest.raises(AttributeError):
        tfenv.nothing_here  # noqa: B018
