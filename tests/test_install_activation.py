"""The activation scripts tfenv install writes, run for real: a venv's ``activate`` (bash,
fish and tcsh, each where installed) and a conda environment's ``activate.d`` set the
plan's variables; Windows scripts as text."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.install_index import PY
from tfenv import api
from tfenv.i18n import using
from tfenv.install.activation import hook_scripts, write_hooks
from tfenv.install.create import Layout, find_uv
from tfenv.install.verify import activated_environ
from tfenv.kb import KnowledgeBase
from tfenv.models.plan import Resolution
from tfenv.models.target import MachineArgs
from tfenv.resolver import resolve


def _plan(kb: KnowledgeBase, **flags: str) -> Resolution:
    manager = flags.pop("manager", "auto")
    tf = flags.pop("tf")
    request = api.build_request(kb, tf, manager)
    res = resolve(kb, api.build_target(kb, MachineArgs(**flags)), request)  # type: ignore[arg-type]
    assert res.plan is not None
    return res


def _venv(path: Path) -> None:
    uv = find_uv(os.environ)
    assert uv is not None
    subprocess.run([uv, "venv", "--python", PY, str(path)], check=True, capture_output=True)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_venv_activate_sets_the_wheel_paths(tmp_path: Path, kb: KnowledgeBase, lang: str) -> None:
    res = _plan(kb, os="linux", gpu="RTX 3060", driver="535.104.05", python=PY, tf="2.16.1")
    assert res.plan is not None
    assert res.plan.route == "pip"
    prefix = tmp_path / "env"
    _venv(prefix)
    layout = Layout(prefix, "linux")
    with using(lang):  # the scripts' comments in that language, the values the same
        written = write_hooks(layout, res)
    assert prefix / "bin" / "activate-tfenv.sh" in written
    assert prefix / "bin" / "activate" in written
    site = next(prefix.glob("lib/python*/site-packages"))
    (site / "nvidia" / "cudnn" / "lib").mkdir(parents=True)
    ptxas = site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
    ptxas.parent.mkdir(parents=True)
    ptxas.write_text("#!/bin/sh\n")
    ptxas.chmod(0o755)
    env = activated_environ(layout, {"PATH": os.environ["PATH"], "HOME": str(tmp_path)})
    assert env["VIRTUAL_ENV"] == str(prefix)
    assert str(site / "nvidia" / "cudnn" / "lib") in env["LD_LIBRARY_PATH"].split(":")
    assert env["XLA_FLAGS"] == f"--xla_gpu_cuda_data_dir={site}/nvidia/cuda_nvcc"
    # written once: a second call does not hook the script twice
    write_hooks(layout, res)
    assert (prefix / "bin" / "activate").read_text().count("activate-tfenv.sh") == 2
    for shell in ("fish", "csh"):
        assert (prefix / "bin" / f"activate.{shell}").read_text().count("added by tfenv") == 1


_SHELLS = {  # the shell -> how it sources a script (named by a variable) and prints env
    "fish": ["fish", "--no-config", "-c", 'source "$TFENV_TEST_SCRIPT"; and env'],
    "tcsh": ["tcsh", "-f", "-c", 'source "$TFENV_TEST_SCRIPT" && env'],
}


def _sourced(shell: str, script: Path, environ: Mapping[str, str]) -> dict[str, str]:
    """The environment after ``shell`` sources ``script`` (skipped where not installed)."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (Debian: apt-get install {shell})")
    env = {**environ, "TFENV_TEST_SCRIPT": str(script)}
    out = subprocess.run(_SHELLS[shell], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_venv_activate_fish_sets_what_bash_sets(
    tmp_path: Path, kb: KnowledgeBase, lang: str
) -> None:
    """The venv's own activate.fish, sourced by a real fish, ends with the variables bash's
    activate sets (the wheels' libraries, ptxas, XLA's dir), in a folder with a quote."""
    res = _plan(kb, os="linux", gpu="RTX 3060", driver="535.104.05", python=PY, tf="2.16.1")
    prefix = tmp_path / "it's env"  # a quote and a space: quoted for fish
    _venv(prefix)
    layout = Layout(prefix, "linux")
    with using(lang):  # the scripts' comments in that language, the values the same
        written = write_hooks(layout, res)
    assert prefix / "bin" / "activate.fish" in written
    # csh cannot take a quote inside the command substitution it needs: no csh script
    assert prefix / "bin" / "activate-tfenv.csh" not in written
    assert prefix / "bin" / "activate.csh" not in written
    site = next(prefix.glob("lib/python*/site-packages"))
    (site / "nvidia" / "cudnn" / "lib").mkdir(parents=True)
    ptxas = site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
    ptxas.parent.mkdir(parents=True)
    ptxas.write_text("#!/bin/sh\n")
    ptxas.chmod(0o755)
    base = {"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LD_LIBRARY_PATH": "/old"}
    bash = activated_environ(layout, base)
    env = _sourced("fish", prefix / "bin" / "activate.fish", base)
    assert env["VIRTUAL_ENV"] == str(prefix)
    assert str(site / "nvidia" / "cudnn" / "lib") in env["LD_LIBRARY_PATH"].split(":")
    for name in ("LD_LIBRARY_PATH", "XLA_FLAGS", "PATH"):
        assert env[name] == bash[name], name


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_venv_activate_csh_sets_what_bash_sets(
    tmp_path: Path, kb: KnowledgeBase, lang: str
) -> None:
    res = _plan(kb, os="linux", gpu="RTX 3060", driver="535.104.05", python=PY, tf="2.16.1")
    prefix = tmp_path / "an env"
    _venv(prefix)
    layout = Layout(prefix, "linux")
    with using(lang):
        assert prefix / "bin" / "activate-tfenv.csh" in write_hooks(layout, res)
    site = next(prefix.glob("lib/python*/site-packages"))
    (site / "nvidia" / "cublas" / "lib").mkdir(parents=True)
    ptxas = site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
    ptxas.parent.mkdir(parents=True)
    ptxas.write_text("#!/bin/sh\n")
    ptxas.chmod(0o755)
    base = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}  # no LD_LIBRARY_PATH at all
    bash = activated_environ(layout, base)
    env = _sourced("tcsh", prefix / "bin" / "activate.csh", base)
    assert env["VIRTUAL_ENV"] == str(prefix)
    assert env["LD_LIBRARY_PATH"] == str(site / "nvidia" / "cublas" / "lib")
    for name in ("LD_LIBRARY_PATH", "XLA_FLAGS", "PATH"):
        assert env[name] == bash[name], name


def test_cpu_plan_sets_nothing(tmp_path: Path, kb: KnowledgeBase) -> None:
    res = _plan(kb, os="linux", no_gpu=True, python=PY, tf="2.15.1")  # type: ignore[arg-type]
    assert hook_scripts(res) == {}


def test_conda_activate_d(tmp_path: Path, kb: KnowledgeBase) -> None:
    res = _plan(
        kb,
        os="linux",
        gpu="RTX 3060",
        driver="535.104.05",
        python="3.10",
        tf="2.10",
        manager="conda",
    )
    prefix = tmp_path / "conda-env"
    (prefix / "bin").mkdir(parents=True)
    layout = Layout(prefix, "linux", conda=True)
    hooks = prefix / "etc" / "conda" / "activate.d"
    assert write_hooks(layout, res) == [
        hooks / "tfenv.csh",
        hooks / "tfenv.fish",
        hooks / "tfenv.sh",
        prefix / "etc" / "conda" / "tfenv-vars.sh",  # not in activate.d: bash would run it
    ]
    base = {"PATH": os.environ["PATH"], "LD_LIBRARY_PATH": "/old"}
    env = activated_environ(layout, base)
    assert env["LD_LIBRARY_PATH"] == f"{prefix}/lib:/old"
    conda = {**base, "CONDA_PREFIX": str(prefix)}  # what conda's activation sets first
    for shell, suffix in (("fish", ".fish"), ("tcsh", ".csh")):
        if shutil.which(shell) is not None:
            got = _sourced(shell, hooks / f"tfenv{suffix}", conda)
            assert got["LD_LIBRARY_PATH"] == f"{prefix}/lib:/old", shell


def test_windows_system_route_scripts(tmp_path: Path, kb: KnowledgeBase) -> None:
    res = _plan(
        kb,
        os="windows",
        gpu="RTX 3060",
        driver="536.0",
        python="3.10",
        tf="2.10",
        manager="pip",
    )
    assert res.plan is not None
    assert res.plan.route == "system"
    prefix = tmp_path / "win-env"
    (prefix / "Scripts").mkdir(parents=True)
    (prefix / "Scripts" / "activate.bat").write_text("@echo off\r\nset VIRTUAL_ENV=x\r\n")
    written = write_hooks(Layout(prefix, "windows"), res)
    scripts = prefix / "Scripts"
    assert written == [
        scripts / "activate-tfenv.bat",
        scripts / "activate.bat",
        scripts / "activate-tfenv.ps1",
    ]  # no Activate.ps1 in this environment: nothing to hook there
    base = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2"
    assert f'set "CUDA_PATH={base}"' in (scripts / "activate-tfenv.bat").read_text()
    hooked = (scripts / "activate.bat").read_bytes()
    assert hooked.endswith(
        b'\r\nREM added by tfenv install\r\ncall "%VIRTUAL_ENV%\\Scripts\\activate-tfenv.bat"\r\n'
    )
