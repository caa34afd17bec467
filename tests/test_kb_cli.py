"""The knowledge base as the CLI meets it: a hand-broken file, the per-user cache."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tfenv.data
from tfenv.kb import KnowledgeBase
from tfenv.kb._cache import cache_dir, cached

DATA = Path(tfenv.data.__file__).parent


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tfenv", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "data"
    shutil.copytree(DATA, dest, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return dest


@pytest.mark.parametrize(
    ("relpath", "old", "new", "where"),
    [
        (
            "nvidia/gpus.yaml",
            "compute_capability: '6.1'",
            "compute_capability: 'eight'",
            "nvidia/gpus.yaml: at gpus[",
        ),
        ("tensorflow/builds.yaml", 'series: "2.15"', 'serie: "2.15"', "tensorflow/builds.yaml"),
        ("nvidia/cuda.yaml", "retrieved:", "retrieved_on:", "nvidia/cuda.yaml: at "),
    ],
)
def test_hand_broken_file_names_file_and_path(
    data_copy: Path, relpath: str, old: str, new: str, where: str
) -> None:
    path = data_copy / relpath
    text = path.read_text("utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), "utf-8")
    env = dict(os.environ, TFENV_DATA_DIR=str(data_copy), TFENV_CACHE_DIR="")
    done = run("matrix", env=env)
    assert done.returncode == 2
    assert where in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_unparsable_yaml_is_reported(data_copy: Path) -> None:
    (data_copy / "platforms.yaml").write_text("routes: [unclosed\n", "utf-8")
    env = dict(os.environ, TFENV_DATA_DIR=str(data_copy), TFENV_CACHE_DIR="")
    done = run("resolve", "--os", "macos", "--arch", "arm64", "--python", "3.11", env=env)
    assert done.returncode == 2
    assert "platforms.yaml" in done.stderr
    assert "not valid YAML" in done.stderr


def test_every_shipped_file_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfenv.kb import _files

    read: list[str] = []
    real = _files.read_data

    def spy(relpath: str, root: _files.DataRoot = None) -> object:
        read.append(relpath)
        return real(relpath, root)

    monkeypatch.setattr(_files, "read_data", spy)
    kb = KnowledgeBase(DATA)  # uncached: validates every file from scratch
    kb.load_all()
    shipped = {
        p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.suffix in (".yaml", ".json")
    }
    # the GPU families are the rules `tfenv refresh --gpus` applies; no command reads them
    assert set(read) == shipped - {"nvidia/gpu-families.yaml"}
    assert len(read) == len(set(read))  # and each file once


def test_cache_round_trip_and_corruption(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path))
    calls: list[int] = []

    def load() -> dict[str, int]:
        calls.append(1)
        return {"answer": 42}

    assert cached("thing", load) == {"answer": 42}
    assert cached("thing", load) == {"answer": 42}
    assert len(calls) == 1  # second time from the cache
    (pickle_file,) = tmp_path.glob("kb-*-thing.pickle")
    pickle_file.write_bytes(b"not a pickle")
    assert cached("thing", load) == {"answer": 42}  # a broken cache is only a miss
    assert len(calls) == 2


def test_cache_can_be_disabled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFENV_CACHE_DIR", "")
    assert cache_dir() is None


def test_cached_kb_equals_fresh_kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path))
    first, second = KnowledgeBase(), KnowledgeBase()
    assert first.builds == second.builds  # the second comes from the pickle
    assert first.cuda.toolkits == second.cuda.toolkits
    assert list(tmp_path.glob("kb-*.pickle"))


def test_cache_keeps_the_entries_of_the_latest_few_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another tfenv on the account (used in turn with this one) keeps its entries; the
    entries of keys not written for longest (an older tfenv) go."""
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path))
    others = [tmp_path / f"kb-{n:016x}-gpus.load.pickle" for n in range(4)]
    for age, path in enumerate(others):  # others[0] written last, others[3] first
        path.write_bytes(b"other")
        os.utime(path, (1_700_000_000 - age * 100, 1_700_000_000 - age * 100))
    cached("thing", lambda: 1)
    assert [p.exists() for p in others] == [True, True, True, False]
    assert len(list(tmp_path.glob("kb-*-thing.pickle"))) == 1
