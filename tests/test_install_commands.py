"""The commands tfenv install builds for what this machine cannot run here: the conda
family (no micromamba, mamba or conda executable is installable on the test machine, so
these are checked as commands, not run), pip without uv, and the shell they are shown in."""

from __future__ import annotations

from pathlib import Path

import pytest

from tfenv.install import InstallError, conda
from tfenv.install.packages import install_command
from tfenv.install.shell import command

SPECS = ("python=3.10", "cudatoolkit=11.2.2", "cudnn=8.1.0.77")


def test_create_by_name_and_by_folder() -> None:
    assert conda.create_command("micromamba", "tf-2.10.1", SPECS, ("conda-forge",)) == [
        "micromamba",
        "create",
        "-y",
        "-n",
        "tf-2.10.1",
        "--override-channels",
        "-c",
        "conda-forge",
        *SPECS,
    ]
    argv = conda.create_command("conda", "/envs/tf", SPECS, ("conda-forge", "nvidia"), True)
    assert argv[3:5] == ["-p", str(Path("/envs/tf"))]
    assert argv[5:11] == ["--override-channels", "-c", "conda-forge", "-c", "nvidia", "--offline"]


@pytest.mark.parametrize(
    ("text", "name"),
    [("tf-2.10.1", True), ("./env", False), ("envs/tf", False), ("..", False), ("", False)],
)
def test_name_or_folder(text: str, name: bool) -> None:
    assert conda.is_name(text) is name


def test_conda_environment_gets_its_own_pip() -> None:
    """A conda route's environment is created with pip (added where the plan's specs do not
    name it), so doctor's ``python -m pip`` fixes and ``pip`` after activation are its own."""
    assert conda.with_pip(SPECS) == (*SPECS, "pip")
    assert conda.with_pip(("python=3.10", "pip>=23")) == ("python=3.10", "pip>=23")
    assert conda.with_pip(("pipx",)) == ("pipx", "pip")


def test_conda_lock_files() -> None:
    """conda-lock installs them for every tool: micromamba's ``create -f`` takes a file as a
    lockfile only when its name ends in -lock.yml, and tfenv's are conda-lock.TARGET.yml."""
    lock = Path("conda-lock.gpu.yml")
    assert conda.lock_create_command("/opt/bin/micromamba", "/e", lock) == [
        "conda-lock",
        "install",
        "--conda",
        "/opt/bin/micromamba",
        "-p",
        str(Path("/e")),
        "conda-lock.gpu.yml",
    ]
    assert conda.lock_create_command("mamba", "tf", lock)[:6] == [
        "conda-lock",
        "install",
        "--conda",
        "mamba",
        "-n",
        "tf",
    ]


def test_find_tool_order(tmp_path: Path) -> None:
    for name in ("conda", "micromamba"):
        exe = tmp_path / name
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    assert conda.find_tool({"PATH": str(tmp_path)}) == str(tmp_path / "micromamba")
    (tmp_path / "micromamba").unlink()
    assert conda.find_tool({"PATH": str(tmp_path)}) == str(tmp_path / "conda")
    assert conda.find_tool({"PATH": "", "CONDA_EXE": str(tmp_path / "conda")}) == str(
        tmp_path / "conda"
    )
    assert conda.find_tool({"PATH": "", "CONDA_EXE": str(tmp_path / "missing")}) is None


def test_pip_without_uv_and_offline() -> None:
    python = Path("/e/bin/python")
    assert install_command(python, ("tensorflow==2.15.1",), None, uv=None) == [
        str(python),
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "tensorflow==2.15.1",
    ]
    lock = Path("requirements.gpu.txt")
    argv = install_command(python, (), lock, uv="uv", index_url="http://i/simple/", offline=True)
    assert argv == [
        "uv",
        "pip",
        "install",
        "--python",
        str(python),
        "--index-url",
        "http://i/simple/",
        "--offline",
        "--require-hashes",
        "-r",
        "requirements.gpu.txt",
    ]
    with pytest.raises(InstallError, match="--offline installs from uv's cache"):
        install_command(python, ("x",), None, uv=None, offline=True)


def test_commands_in_the_machines_shell() -> None:
    argv = ["python", "-m", "pip", "install", "tensorflow[and-cuda]==2.21.0", "numpy<2"]
    assert command(argv, "linux") == (
        "python -m pip install 'tensorflow[and-cuda]==2.21.0' 'numpy<2'"
    )
    assert command(["C:\\Program Files\\py.exe", "-3.10"], "windows") == (
        '"C:\\Program Files\\py.exe" -3.10'
    )


def test_pip_through_the_tool_by_name() -> None:
    argv = conda.pip_command("conda", "tf-2.10.1", ("tensorflow==2.10.1", "numpy<2"), "U")
    assert argv == [
        "conda",
        "run",
        "-n",
        "tf-2.10.1",
        "python",
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--index-url",
        "U",
        "tensorflow==2.10.1",
        "numpy<2",
    ]
