"""Every fix doctor and explain print is a command for the target's shell, built by
tfenv.shells: a Windows environment (Scripts\\python.exe) gets the one form cmd.exe and
PowerShell read alike, a POSIX one shlex quoting, and no fix is formatted by hand."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.winshell import both
from tfenv.cli import main
from tfenv.kb import KnowledgeBase

SRC = Path(__file__).resolve().parents[1] / "src" / "tfenv"


def _windows_venv(root: Path) -> Path:
    """A native Windows venv as it lies on disk: Scripts\\python.exe, Lib\\site-packages
    (TensorFlow 2.10.1 under NumPy 2.0.2), pyvenv.cfg."""
    (root / "Scripts").mkdir(parents=True)
    (root / "Scripts" / "python.exe").write_bytes(b"MZ")
    (root / "pyvenv.cfg").write_text("home = C:\\Python310\nversion = 3.10.11\n")
    site = root / "Lib" / "site-packages"
    for name, version in (("tensorflow", "2.10.1"), ("numpy", "2.0.2"), ("pip", "24.0")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return root


def test_doctor_on_an_activated_windows_venv_prints_a_windows_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    venv = _windows_venv(tmp_path / "venv")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    assert main(["doctor", "--json", "--no-gpu"]) == 1
    doc = json.loads(capsys.readouterr().out)
    fix = {f["id"]: f for f in doc["findings"]}["runtime-numpy"]["fix"]
    python = str(venv / "Scripts" / "python.exe")
    assert fix == f'{python} -m pip install "numpy<2"'
    assert both(fix) == [python, "-m", "pip", "install", "numpy<2"]


def test_doctor_prefix_windows_venv_prints_a_windows_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    venv = _windows_venv(tmp_path / "venv")
    assert main(["doctor", "--prefix", str(venv), "--no-gpu"]) == 1
    out = capsys.readouterr().out
    assert '-m pip install "numpy<2"' in out
    assert "'numpy<2'" not in out


@pytest.mark.parametrize(
    ("os_flags", "want"),
    [
        (["--os", "windows"], 'python -m pip install "protobuf<4"'),
        (["--os", "linux"], "python -m pip install 'protobuf<4'"),
    ],
)
def test_explain_protobuf_fix_in_the_targets_shell(
    os_flags: list[str], want: str, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "TypeError: Descriptors cannot be created directly."
    argv = ["explain", "--json", "--no-detect", *os_flags, "--python", "3.8", "--tf", "2.3.4"]
    assert main([*argv, text]) == 0
    fix = json.loads(capsys.readouterr().out)["matches"][0]["fix"]
    assert f"`{want}`" in fix
    command = fix.split("`")[1]
    if os_flags[1] == "windows":
        assert both(command) == ["python", "-m", "pip", "install", "protobuf<4"]
    else:
        done = subprocess.run(["bash", "-n", "-c", command], capture_output=True, check=False)
        assert done.returncode == 0, done.stderr


_HAND_MADE = re.compile(r"""pip install (?:--[\w-]+ )*['"]?\{|pip install '|`pip install [\w\[]""")


def test_no_fix_in_doctor_or_explain_formats_a_pip_command_by_hand() -> None:
    found = [
        f"{path.relative_to(SRC)}:{n}: {line.strip()}"
        for folder in ("doctor", "explain")
        for path in sorted((SRC / folder).glob("*.py"))
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if _HAND_MADE.search(line) and "``" not in line  # (a docstring's example)
    ]
    assert found == []


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX venv")
def test_a_pin_fix_names_the_environments_own_interpreter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A missing nvidia-* wheel of TensorFlow 2.15.1, checked for a GPU machine: the fix is
    the venv's python -m pip, POSIX-quoted (the environment's pip, whatever pip is on PATH)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    for name, version in (("tensorflow", "2.15.1"), ("nvidia-cuda-runtime-cu12", "12.2.140")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    argv = ["doctor", "--json", "--prefix", str(venv), "--os", "linux", "--gpu", "RTX 3090"]
    main([*argv, "--driver", "550.54.14"])
    doc = json.loads(capsys.readouterr().out)
    fixes = [f["fix"] for f in doc["findings"] if f["id"].startswith("pin-") and f["fix"]]
    assert fixes
    python = str(venv / "bin" / "python3")
    for fix in fixes:  # (a venv without pip: pip comes first, from ensurepip)
        assert fix.startswith(f"{python} -m ensurepip && {python} -m pip install 'nvidia-"), fix


def test_a_hidden_gpu_on_a_windows_environment_is_unset_per_windows_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`unset` is no cmd.exe or PowerShell command: the fix gives each shell's own line, and
    cmd.exe's really unsets the variable (Wine's cmd.exe, where installed)."""
    from tests.test_shells import _WINE, _wine_cmd

    venv = _windows_venv(tmp_path / "venv")
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "-1")
    main(["doctor", "--json", "--no-gpu"])
    doc = json.loads(capsys.readouterr().out)
    fix = {f["id"]: f for f in doc["findings"]}["env-cuda-visible-devices"]["fix"]
    assert (
        fix == "cmd.exe: set \"CUDA_VISIBLE_DEVICES=\"; PowerShell: $env:CUDA_VISIBLE_DEVICES = ''"
    )
    if _WINE is None:
        return
    cmd_line = fix.split("cmd.exe: ", 1)[1].split("; PowerShell: ")[0]
    got = _wine_cmd(
        tmp_path,
        [
            'set "CUDA_VISIBLE_DEVICES=-1"',
            cmd_line,
            "if defined CUDA_VISIBLE_DEVICES (echo still set) else (echo unset)",
        ],
    )
    assert got[-1:] == ["unset"], got


def test_explain_without_the_environments_tensorflow_gives_a_windows_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = "TypeError: Descriptors cannot be created directly."
    assert main(["explain", "--json", "--no-detect", "--os", "windows", text]) == 0
    fix = json.loads(capsys.readouterr().out)["matches"][0]["fix"]
    assert fix.startswith('`python -m pip install "protobuf<4"` in this environment')


def test_the_xla_flags_fix_runs_in_bash_for_a_folder_with_a_space(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    """The libdevice fix's export, run as printed in bash, sets XLA_FLAGS to the whole folder
    (a hand-written ``export XLA_FLAGS=...`` split it at the space: bash failed on the rest)."""
    from tests.test_doctor import _run, _venv

    prefix = _venv(tmp_path / "my envs", "2.13.1")
    nvcc = prefix / "lib" / "python3.11" / "site-packages" / "nvidia" / "cuda_nvcc"
    (nvcc / "nvvm" / "libdevice").mkdir(parents=True)
    (nvcc / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
    fix = str(_run(prefix, kb, {})["xla-libdevice"].fix)
    command = fix.split("`tfenv resolve --emit DIR`, or ", 1)[1]
    done = subprocess.run(
        ["bash", "-c", f'{command}\nprintf %s "$XLA_FLAGS"'],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"--xla_gpu_cuda_data_dir={nvcc}"


def test_an_environment_without_pip_gets_pip_first_in_each_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`uv venv` makes no pip: `python -m pip` would fail there. The Windows form is two
    commands in order (Windows PowerShell 5.1 has no &&); each reads alike in both shells."""
    venv = _windows_venv(tmp_path / "venv")
    for meta in (venv / "Lib" / "site-packages").glob("pip-*.dist-info/METADATA"):
        meta.unlink()
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    main(["doctor", "--json", "--no-gpu"])
    fix = {f["id"]: f for f in json.loads(capsys.readouterr().out)["findings"]}["runtime-numpy"][
        "fix"
    ]
    python = str(venv / "Scripts" / "python.exe")
    assert fix == f'{python} -m ensurepip, then {python} -m pip install "numpy<2"'
    first, second = fix.split(", then ")
    assert both(first) == [python, "-m", "ensurepip"]
    assert both(second) == [python, "-m", "pip", "install", "numpy<2"]


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX venv")
def test_the_ensurepip_half_of_a_fix_really_gives_a_venv_pip(tmp_path: Path) -> None:
    """The first command of a no-pip environment's fix, run as printed in bash, installs pip
    there from the standard library (no network); doctor then writes the plain fix."""
    from tfenv.doctor import env as target_env
    from tfenv.doctor.runtime import fix_command

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    env = target_env.from_prefix(venv)
    fix = str(fix_command(env, "numpy<2"))
    ensure, rest = fix.split(" && ")
    done = subprocess.run(["bash", "-c", ensure], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert str(fix_command(target_env.from_prefix(venv), "numpy<2")) == rest
