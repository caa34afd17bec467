"""``tfenv resolve`` with no machine flags reads this machine (a fake nvidia-smi on PATH)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_host_cli import fake_smi

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake nvidia-smi is sh")


def resolve(*args: str, path: Path) -> Any:
    env = dict(os.environ, TFENV_DETECT_NVML="0")
    env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [sys.executable, "-m", "tfenv", "resolve", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_detected_gpu_and_driver_are_used_and_reported(tmp_path: Path) -> None:
    # TITAN X (Pascal), compute capability 6.1, driver 418.39 (CUDA 10.1)
    bin_dir = fake_smi(tmp_path / "bin", "smi-418.39-titan-x-pascal.txt")
    done = resolve("--json", "--python", "3.7", path=bin_dir)
    data = json.loads(done.stdout)
    target = data["target"]
    assert target["driver"] == "418.39"
    assert target["compute_capability"] == "6.1"
    assert {"gpu", "driver", "os", "arch"} <= set(target["detected"])
    assert "python" not in target["detected"]  # given on the command line
    # driver 418 runs CUDA 10.1 at most: TensorFlow 2.1 to 2.3
    assert done.returncode == 0, data
    assert data["plan"]["cuda"] == "10.1"
    assert data["plan"]["tensorflow"].startswith("2.3.")


def test_flags_override_detected_facts(tmp_path: Path) -> None:
    bin_dir = fake_smi(tmp_path / "bin", "smi-418.39-titan-x-pascal.txt")
    done = resolve("--json", "--python", "3.11", "--driver", "535.104.05", path=bin_dir)
    data = json.loads(done.stdout)
    assert data["target"]["driver"] == "535.104.05"
    assert "driver" not in data["target"]["detected"]
    assert data["plan"]["tensorflow"] == "2.21.0"


def test_human_output_says_what_was_detected(tmp_path: Path) -> None:
    bin_dir = fake_smi(tmp_path / "bin", "smi-418.39-titan-x-pascal.txt")
    done = resolve("--python", "3.7", path=bin_dir)
    assert "detected:" in done.stdout
    assert "driver" in done.stdout.split("detected:")[1].splitlines()[0]


def test_no_nvidia_driver_plans_for_the_cpu(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env = dict(os.environ, TFENV_DETECT_NVML="0", PATH=str(empty))
    done = subprocess.run(
        [sys.executable, "-m", "tfenv", "resolve", "--json", "--python", "3.11"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    data = json.loads(done.stdout)
    assert data["target"]["compute_capability"] is None
    assert data["plan"]["gpu"] is False
    assert any("No NVIDIA driver" in n for n in data["target"]["notes"])


def test_emitted_regenerate_command_names_the_detected_gpu(tmp_path: Path) -> None:
    """The header's command keeps the GPU detection found by its name (trial finding R9:
    not --cc alone), and run on another machine it writes the same pins."""
    bin_dir = fake_smi(tmp_path / "bin", "smi-418.39-titan-x-pascal.txt")
    done = resolve("--python", "3.7", "--emit", str(tmp_path / "out"), path=bin_dir)
    assert done.returncode == 0, done.stderr
    text = (tmp_path / "out" / "requirements.txt").read_text("utf-8")
    line = next(x for x in text.splitlines() if "regenerate with: " in x)
    command = line.split("regenerate with: ", 1)[1]
    assert "--gpu 'TITAN X (Pascal)' --cc 6.1 --driver 418.39 " in command, command
    words = shlex.split(command.removesuffix(" --emit DIR"))
    again = resolve(*words[2:], "--emit", str(tmp_path / "again"), path=tmp_path / "no-smi")
    assert again.returncode == 0, again.stderr
    # the same pins, each with the same reason; the header's Target line names the GPU as
    # tfenv's GPU list does (NVIDIA TITAN X (Pascal)), where detection kept nvidia-smi's name
    body = (tmp_path / "again" / "requirements.txt").read_text("utf-8").split("\ntensorflow", 1)
    assert body[1] == text.split("\ntensorflow", 1)[1]
