"""End to end: ``tfenv detect`` in a subprocess, with a fake nvidia-smi first on PATH."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from tfenv.host import read_host_file

DATA = Path(__file__).parent / "data" / "host"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake nvidia-smi is sh")


def fake_smi(folder: Path, table: str, table_status: int = 0) -> Path:
    """An nvidia-smi that prints a recording; --query-gpu answers like a pre-510 driver."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "nvidia-smi"
    script.write_text(
        "#!/bin/sh\n"
        'case "$*" in\n'
        f'  *compute_cap*) cat "{DATA / "query-invalid-compute-cap.txt"}"; exit 2 ;;\n'
        "  *--query-gpu*) exit 2 ;;\n"
        "esac\n"
        f'cat "{DATA / table}"\n'
        f"exit {table_status}\n",
        "utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return folder


def tfenv(*args: str, path: Optional[Path] = None, cwd: Optional[Path] = None) -> Any:
    env = dict(os.environ)
    env["TFENV_DETECT_NVML"] = "0"  # a GPU test machine's NVML would win over the fake
    if path is not None:
        env["PATH"] = f"{path}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [sys.executable, "-m", "tfenv", "detect", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        check=False,
    )


def test_detect_json_with_fake_nvidia_smi(tmp_path: Path) -> None:
    bin_dir = fake_smi(tmp_path / "bin", "smi-580.126.09-a100-multi.txt")
    done = tfenv("--json", path=bin_dir)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["schema"] == 1
    assert data["driver"] == "580.126.09"
    assert data["driver_cuda"] == "13.0"
    assert data["sources"]["driver"] == "nvidia-smi"
    assert [(g["index"], g["name"], g["memory_mib"]) for g in data["gpus"]] == [
        (0, "NVIDIA A100-SXM4-40GB", 40960),
        (1, "NVIDIA A100-SXM4-40GB", 40960),
    ]
    # this nvidia-smi lacks compute_cap, so the knowledge base's model list answers
    assert {(g["compute_capability"], g["cc_source"]) for g in data["gpus"]} == {("8.0", "kb")}


def test_detect_human_with_failing_nvidia_smi(tmp_path: Path) -> None:
    bin_dir = fake_smi(tmp_path / "bin", "smi-error-no-driver.txt", table_status=9)
    done = tfenv(path=bin_dir)
    assert done.returncode == 0, done.stderr
    assert "GPUs: none" in done.stdout
    assert (
        "No usable NVIDIA driver: nvidia-smi failed: NVIDIA-SMI has failed because it "
        "couldn't communicate with the NVIDIA driver." in done.stdout
    )


@pytest.mark.skipif(Path("/proc/driver/nvidia").exists(), reason="this machine has a driver")
def test_detect_on_this_machine_without_nvidia(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    env_path = empty  # nothing else on PATH: no nvidia-smi
    done = tfenv(path=env_path)
    assert done.returncode == 0, done.stderr
    assert "GPUs: none" in done.stdout


def test_output_file_and_overrides(tmp_path: Path) -> None:
    out = tmp_path / "host.json"
    done = tfenv(
        "--output", str(out), "--os", "linux", "--arch", "aarch64", "--glibc", "2.31",
        "--python", "3.10", "--driver", "535.104.05", path=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    profile = read_host_file(out)
    assert (profile.os, profile.arch, str(profile.glibc), str(profile.python)) == (
        "linux",
        "aarch64",
        "2.31",
        "3.10",
    )
    assert profile.driver == "535.104.05"
    for key in ("os", "arch", "glibc", "python", "driver"):
        assert profile.source_of(key) == "given"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["host.json"]


def test_json_and_output_together(tmp_path: Path) -> None:
    out = tmp_path / "host.json"
    done = tfenv("--json", "--output", str(out), path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == json.loads(out.read_text("utf-8"))


def test_gpu_index_that_does_not_exist(tmp_path: Path) -> None:
    bin_dir = fake_smi(tmp_path / "bin", "smi-580.126.09-a100-multi.txt")
    done = tfenv("--gpu-index", "5", path=bin_dir)
    assert done.returncode == 2
    assert "no GPU with index 5" in done.stderr
    assert "Traceback" not in done.stderr
    done = tfenv("--gpu-index", "1", path=bin_dir)
    assert done.returncode == 0
    assert "[1] NVIDIA A100-SXM4-40GB  cc 8.0 (kb)  40960 MiB  <- resolves for this one" in (
        done.stdout
    )


@pytest.mark.parametrize(
    "args",
    [["--python", "three"], ["--os", "beos"], ["--glibc", "x"], ["--timeout", "0"]],
)
def test_bad_override_is_a_usage_error(args: list[str]) -> None:
    done = tfenv(*args)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
