"""``tfenv install`` for a conda route with a real conda, mamba or micromamba, against a
local ``file://`` channel built at test time.

The channel comes from the recorded repodata records of ``tests/data/conda_channel`` (the
conda-lock tests' channel, see its README): each record becomes a small package built
here, with ``info/index.json``, ``info/paths.json`` and ``info/files`` (an installer links
it; it carries no files, so the environment has no Python). A conda target is locked
against the channel with ``tfenv lock`` (py-rattler), and ``tfenv install --target`` makes
the environment from that lockfile with the conda-family tool it finds (through
conda-lock install, micromamba included). Where no such tool is installed the
run is skipped, saying what was looked for and where; the dry run, which needs no tool,
always runs.
"""

from __future__ import annotations

import bz2
import io
import json
import os
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from tfenv.cli import main
from tfenv.install import conda
from tfenv.install.claim import MARKER

pytest.importorskip("rattler", reason="conda locking needs py-rattler (Python 3.10+)")

RECORDS = Path(__file__).parent / "data" / "conda_channel"
BIN = str(Path(sys.executable).parent)  # conda-lock, for conda and mamba
TOOL = conda.find_tool(os.environ)
NO_TOOL = (
    "no conda-family tool: none of {tools} is on PATH ({path}), and MAMBA_EXE/CONDA_EXE name "
    "none; Debian bookworm and PyPI ship none and conda channels are unreachable here"
).format(tools=", ".join(conda.TOOLS), path=os.environ.get("PATH", ""))

CONFIG = """\
tensorflow = "2.15"
python = "3.11"
channels = ["{channel}"]

[targets.gpu]
os = "linux"
arch = "x86_64"
cc = "8.0"
driver = "535.104.05"
glibc = "2.31"
manager = "conda"
"""


def _member(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mtime, info.mode = len(data), 0, 0o644
    tar.addfile(info, io.BytesIO(data))


def _package(record: dict[str, Any]) -> bytes:
    """A conda package an installer can link: its index, an empty paths.json and files."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        _member(tar, "info/index.json", json.dumps(record, indent=2, sort_keys=True).encode())
        _member(tar, "info/paths.json", b'{"paths": [], "paths_version": 1}\n')
        _member(tar, "info/files", b"")
    return bz2.compress(raw.getvalue(), 9)


def build_channel(root: Path) -> Path:
    import hashlib

    for subdir in ("linux-64", "noarch"):
        doc = json.loads((RECORDS / subdir / "repodata.json").read_text("utf-8"))
        folder = root / subdir
        folder.mkdir(parents=True)
        for file_name, record in doc["packages"].items():
            data = _package(record)
            (folder / file_name).write_bytes(data)
            record.update(
                md5=hashlib.md5(data).hexdigest(),
                sha256=hashlib.sha256(data).hexdigest(),
                size=len(data),
            )
        (folder / "repodata.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
    return root


@pytest.fixture
def project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A project with a conda target, locked against the local channel."""
    channel = build_channel(tmp_path / "channel").as_uri()
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "tfenv.toml").write_text(CONFIG.format(channel=channel), "utf-8")
    assert main(["lock", "--config", str(folder)]) == 0
    capsys.readouterr()
    assert (folder / "conda-lock.gpu.yml").is_file()
    return folder


def _tool_env(tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tool's caches and root under the test's folder; conda-lock on PATH."""
    assert TOOL is not None
    monkeypatch.setenv("PATH", os.pathsep.join([BIN, os.environ.get("PATH", "")]))
    monkeypatch.setenv("MAMBA_ROOT_PREFIX", str(tmp / "root"))
    monkeypatch.setenv("CONDA_PKGS_DIRS", str(tmp / "pkgs"))
    monkeypatch.setenv("CONDARC", str(tmp / "condarc"))
    monkeypatch.setenv("MAMBARC", str(tmp / "condarc"))
    (tmp / "condarc").write_text("channels: []\n")


def test_conda_lock_dry_run_names_the_lockfile(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "env"
    lock = project / "conda-lock.gpu.yml"
    argv = ["install", str(env), "--target", "gpu", "--config", str(project), "--dry-run"]
    assert main([*argv, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["step"] for s in doc["steps"]] == ["create", "activation", "verify"]
    (create,) = doc["steps"][0]["commands"]
    assert create.startswith(f"conda-lock install --conda {TOOL or 'conda'} -p ")
    assert str(lock) in create
    assert str(env) in create
    assert doc["source"] == {"lock": str(lock), "target": "gpu"}
    assert not env.exists()


@pytest.mark.skipif(TOOL is None, reason=NO_TOOL)
def test_conda_install_from_the_local_channel(
    project: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _tool_env(tmp_path, monkeypatch)
    env = tmp_path / "env"
    code = main(["install", str(env), "--target", "gpu", "--config", str(project), "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    steps = {s["step"]: s["outcome"] for s in doc["steps"]}
    assert steps["create"] == "ok", err
    assert steps["activation"] == "ok", err
    # the packages came from the local channel, with the lock's CUDA build
    meta = {p.name for p in (env / "conda-meta").glob("*.json")}
    assert "tensorflow-2.15.0-cuda120py311h5cbd639_2.json" in meta, sorted(meta)
    assert "cudnn-8.9.7.29-h092f7fd_3.json" in meta, sorted(meta)
    assert json.loads((env / MARKER).read_text())["tensorflow"] == "2.15.0"
    # the built packages carry no Python: the Verify step says so, and nothing is undone
    assert steps["verify"] == "problem", err
    assert doc["status"] == "problem"
    assert code == 1
    assert not doc["rolled_back"]
