"""The tests' frozen knowledge base (tests/kb_snapshot) is complete and in use, and a data
folder given with TFENV_DATA_DIR is cached by its content (an edit is never served stale)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.snapshot import SNAPSHOT
from tfenv.kb import KnowledgeBase

ROOT = Path(__file__).resolve().parent.parent
#: tests that construct the shipped knowledge base on purpose
SHIPPED_ON_PURPOSE = {"test_kb_cli.py", "test_runtime_live.py"}


def test_every_test_runs_on_the_snapshot() -> None:
    assert os.environ["TFENV_DATA_DIR"] == str(SNAPSHOT)
    assert KnowledgeBase.from_environment().root == SNAPSHOT


@pytest.mark.shipped_kb
def test_a_shipped_kb_test_reads_the_shipped_data() -> None:
    assert "TFENV_DATA_DIR" not in os.environ or os.environ.get("TFENV_TEST_SHIPPED_DIR")


def test_the_snapshot_has_every_data_file_the_loaders_read() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "snapshot_kb.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert "taken: " in (SNAPSHOT / "SNAPSHOT.txt").read_text("utf-8")


def test_no_test_builds_the_shipped_kb_by_accident() -> None:
    """``KnowledgeBase()`` reads the shipped data: tests use the ``kb`` fixture or
    ``frozen_kb()``, or are marked ``shipped_kb`` and use ``shipped_kb``."""
    found = []
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name in SHIPPED_ON_PURPOSE or path.name == "snapshot.py":
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "KnowledgeBase"
                and not node.args
                and not node.keywords
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert found == []


def _first_change(data: Path, cache: Path) -> str:
    """The first recorded change's summary, read by a fresh tfenv (the loaders also memoize
    per process)."""
    code = "import sys; from pathlib import Path; from tfenv.kb import KnowledgeBase; "
    code += "print(KnowledgeBase(Path(sys.argv[1])).changes[0].summary)"
    env = {**os.environ, "TFENV_CACHE_DIR": str(cache)}
    run = subprocess.run(
        [sys.executable, "-c", code, str(data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return run.stdout.strip()


def test_an_edited_data_folder_is_never_served_from_the_cache(tmp_path: Path) -> None:
    cache, data = tmp_path / "cache", tmp_path / "data"
    shutil.copytree(SNAPSHOT, data)
    first = _first_change(data, cache)
    assert list(cache.glob("kb-*-changes.pickle")), "not cached"
    path = data / "tensorflow" / "changes.yaml"
    text = path.read_text("utf-8")
    stat = path.stat()
    assert text.count("package includes GPU") == 1
    # the same size and mtime: only the content tells the edit
    path.write_text(text.replace("package includes GPU", "package INCLUDES GPU"), "utf-8")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _first_change(data, cache) == first.replace("includes", "INCLUDES", 1)
    path.write_text(text, "utf-8")
    assert _first_change(data, cache) == first


def test_a_folder_with_a_special_file_is_read_but_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path / "cache"))
    data = tmp_path / "data"
    shutil.copytree(SNAPSHOT, data)
    os.mkfifo(data / "stray.yaml")
    assert KnowledgeBase(data).changes
    assert not list((tmp_path / "cache").glob("kb-*.pickle"))
