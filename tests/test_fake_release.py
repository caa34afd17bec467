"""A release that ``tfenv refresh`` adds changes data and docs, never a test expectation.

A copy of tfenv's source gets one more TensorFlow release in its shipped data, written the
way refresh writes it (tests/fake_release.py); the tests that read the shipped data (the
invariants, the knowledge-base and index tests) and those the newest release used to break
(the request rules, a detected machine's plan, the golden output) run against that copy in
a fresh interpreter. All pass, except the generated docs page, which is stale by design:
regenerating it is part of adding a release.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_release import add_release, source_copy

ROOT = Path(__file__).resolve().parent.parent

#: the tests that read the shipped data, and those that once named the newest release
FILES = (
    "tests/test_kb_invariants.py",
    "tests/test_index_data.py",
    "tests/test_kb_tensorflow.py",
    "tests/test_kb_platforms_conda.py",
    "tests/test_kb_fields.py",
    "tests/test_matrix.py",
    "tests/test_docs.py",
    "tests/test_request.py",
    "tests/test_resolve_detected.py",
    "tests/test_golden.py",
)
#: what adding a release makes stale on purpose: the docs generated from the data
DOCS = "tests/test_matrix.py::test_docs_page_is_generated_from_the_data"


def _pytest(src: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src), "TFENV_CACHE_DIR": str(src.parent / "cache")}
    env.pop("TFENV_DATA_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )


@pytest.mark.slow
def test_a_new_release_changes_no_expectation(tmp_path: Path) -> None:
    src = tmp_path / "src"
    package = source_copy(src)
    version = add_release(package / "data")
    probe = subprocess.run(
        [sys.executable, "-c", "import tfenv; print(tfenv.__file__)"],
        env={**os.environ, "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert probe.stdout.strip() == str(package / "__init__.py"), "the copy is not imported"

    run = _pytest(src, *FILES, "--deselect", DOCS)
    assert run.returncode == 0, f"adding {version} changed an expectation:\n{run.stdout[-4000:]}"
    docs = _pytest(src, DOCS)
    assert docs.returncode == 1, "the docs page should be stale after adding a release"
    assert version in docs.stdout
