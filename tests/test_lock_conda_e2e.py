"""``tfenv lock`` end to end for a conda target, against a local file:// channel."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.snapshot import frozen_kb
from tests.test_lock_conda import build_channel
from tfenv.config import load_config
from tfenv.errors import LockError, UnsatisfiableError
from tfenv.lock import LockOptions, check_project, lock_project

pytest.importorskip("rattler", reason="conda locking needs py-rattler (Python 3.10+)")

CONFIG = """\
tensorflow = "2.15"
python = "3.11"
channels = ["{channel}"]

[targets.gpu]
os = "linux"
cc = "8.0"
driver = "535.104.05"
glibc = "2.31"
manager = "conda"
"""


@pytest.fixture(scope="module")
def channel(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_channel(tmp_path_factory.mktemp("channel")).as_uri()


def project(tmp_path: Path, channel: str, driver: str = "535.104.05") -> Path:
    text = CONFIG.format(channel=channel).replace("535.104.05", driver)
    (tmp_path / "tfenv.toml").write_text(text, "utf-8")
    return tmp_path


def test_conda_target_locks_with_the_cuda_build(tmp_path: Path, channel: str) -> None:
    kb = frozen_kb()
    opts = LockOptions(environ=os.environ)
    written = lock_project(kb, load_config(project(tmp_path, channel)), opts).written
    names = sorted(p.name for p in written)
    assert names == ["conda-lock.gpu.yml", "environment.gpu.yml"]
    lock = yaml.safe_load((tmp_path / "conda-lock.gpu.yml").read_text("utf-8"))
    tf = [p for p in lock["package"] if p["name"] == "tensorflow"]
    assert len(tf) == 1
    assert tf[0]["version"] == "2.15.0"
    assert tf[0]["url"].split("/")[-1].startswith("tensorflow-2.15.0-cuda120")
    assert all(p["hash"].get("sha256") or p["hash"].get("md5") for p in lock["package"])
    text = (tmp_path / "conda-lock.gpu.yml").read_text("utf-8")
    assert text.startswith("#")
    assert "tfenv" in text.splitlines()[0]
    # the header names what the lock pins: the conda packages that carry CUDA and cuDNN
    head = [line for line in text.splitlines() if line.startswith("#")]
    assert "# CUDA packages: cuda-version 12.0, cudnn 8.9.7.29" in head
    assert any(line.startswith("# Stack: ") and "CUDA 12.0, cuDNN 8.9" in line for line in head)
    env = yaml.safe_load((tmp_path / "environment.gpu.yml").read_text("utf-8"))
    assert "tensorflow=2.15.0=cuda120*" in env["dependencies"]
    assert check_project(kb, load_config(tmp_path), opts).up_to_date
    # conda-lock's own CLI accepts the file
    conda_lock = Path(sys.executable).parent / "conda-lock"
    done = subprocess.run(
        [
            str(conda_lock),
            "render",
            "-k",
            "explicit",
            "--platform",
            "linux-64",
            str(tmp_path / "conda-lock.gpu.yml"),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_old_driver_cannot_be_planned(tmp_path: Path, channel: str) -> None:
    project(tmp_path, channel, driver="470.82.01")  # CUDA 11.4: TF 2.15 needs CUDA 12
    with pytest.raises(UnsatisfiableError, match=r"(?s)target .gpu.*470\.82\.01"):
        lock_project(frozen_kb(), load_config(tmp_path), LockOptions(environ=os.environ))
    assert list(tmp_path.iterdir()) == [tmp_path / "tfenv.toml"]


def test_failed_conda_solve_keeps_existing_files(tmp_path: Path, channel: str) -> None:
    kb = frozen_kb()
    opts = LockOptions(environ=os.environ)
    lock_project(kb, load_config(project(tmp_path, channel)), opts)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    # the channel has no Python 3.10: the conda solve fails
    config = (tmp_path / "tfenv.toml").read_text("utf-8").replace('"3.11"', '"3.10"')
    (tmp_path / "tfenv.toml").write_text(config, "utf-8")
    with pytest.raises(LockError, match="gpu"):
        lock_project(kb, load_config(tmp_path), opts)
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "tfenv.toml"}
    assert after == {k: v for k, v in before.items() if k != "tfenv.toml"}


def test_conda_lockfiles_are_byte_identical_in_every_language(tmp_path: Path, channel: str) -> None:
    """conda-lock.*.yml and environment.*.yml are lockfiles: English whatever the language
    (docs/cli.md), so a team's files and their digests do not depend on who locked."""
    from tfenv.i18n import using

    kb = frozen_kb()
    opts = LockOptions(environ=os.environ)
    files = {}
    for lang in ("en", "zh"):
        folder = tmp_path / lang
        folder.mkdir()
        with using(lang):
            written = lock_project(kb, load_config(project(folder, channel)), opts).written
        files[lang] = {p.name: p.read_bytes() for p in written}
    assert sorted(files["en"]) == ["conda-lock.gpu.yml", "environment.gpu.yml"]
    assert files["zh"] == files["en"]
    assert all(data.isascii() for data in files["zh"].values())
