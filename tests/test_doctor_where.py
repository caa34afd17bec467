"""doctor and explain read the environment the user is in: --interpreter/--prefix, else the
activated venv (VIRTUAL_ENV), else the conda environment (CONDA_PREFIX), else the python on
PATH, before tfenv's own; and they say which. Real venvs, real folders; the Windows layouts
with the Windows branch forced."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tfenv.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venvs")


def _dist(site: Path, name: str, version: str) -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


@pytest.fixture(scope="module")
def broken_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real venv holding TensorFlow 2.10.1's and NumPy 2.0.2's metadata (NumPy 2 under
    TensorFlow 2.10: it cannot import)."""
    root = tmp_path_factory.mktemp("where") / "tf210"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python3*/site-packages"))
    _dist(site, "tensorflow", "2.10.1")
    _dist(site, "numpy", "2.0.2")
    return root


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("")
    path.chmod(0o755)
    return path


def test_locate_order_venv_then_conda_then_path_then_tfenv(tmp_path: Path) -> None:
    from tfenv.doctor.where import describe, locate

    venv, conda, own = tmp_path / "venv", tmp_path / "conda", tmp_path / "own"
    v_py = _exe(venv / "bin" / "python3")
    c_py = _exe(conda / "bin" / "python")
    p_py = _exe(tmp_path / "usr" / "bin" / "python3")
    path = str(p_py.parent)
    env = {"VIRTUAL_ENV": str(venv), "CONDA_PREFIX": str(conda), "PATH": path}
    got = locate(env, windows=False, own_prefix=own, own_interpreter="/own/python")
    assert (got.source, got.interpreter, got.prefix) == ("VIRTUAL_ENV", str(v_py), venv)
    del env["VIRTUAL_ENV"]
    got = locate(env, windows=False, own_prefix=own)
    assert (got.source, got.interpreter) == ("CONDA_PREFIX", str(c_py))
    del env["CONDA_PREFIX"]
    assert locate(env, windows=False, own_prefix=own).interpreter == str(p_py)
    env["VIRTUAL_ENV"] = str(tmp_path / "gone")  # an activation whose folder is gone
    got = locate(env, windows=False, own_prefix=own)
    assert got.source == "PATH"
    got = locate({"PATH": ""}, windows=False, own_prefix=own, own_interpreter="/own/python")
    assert (got.source, got.interpreter) == ("tfenv", "/own/python")
    assert "VIRTUAL_ENV" in describe(locate({"VIRTUAL_ENV": str(venv)}, windows=False))


def test_tfenvs_own_venv_on_path_is_not_the_users(tmp_path: Path) -> None:
    from tfenv.doctor.where import locate

    own = tmp_path / "tfenv-venv"
    (own / "pyvenv.cfg").parent.mkdir(parents=True)
    (own / "pyvenv.cfg").write_text("home = /usr/bin\n")
    _exe(own / "bin" / "python3")
    users = _exe(tmp_path / "usr" / "bin" / "python3")
    path = os.pathsep.join([str(own / "bin"), str(users.parent)])
    got = locate({"PATH": path}, windows=False, own_prefix=own)
    assert (got.source, got.interpreter) == ("PATH", str(users))


def test_locate_windows_layouts_forced(tmp_path: Path) -> None:
    """Scripts\\python.exe in a venv, python.exe at a conda prefix, python.exe on a
    ';'-separated PATH; the Microsoft Store stub is passed over."""
    from tfenv.doctor.where import locate

    venv, conda = tmp_path / "venv", tmp_path / "conda"
    v_py = _exe(venv / "Scripts" / "python.exe")
    _exe(venv / "bin" / "python3")  # a POSIX layout's name is not read on Windows
    c_py = _exe(conda / "python.exe")
    stub = _exe(tmp_path / "WindowsApps" / "python.exe")
    real = _exe(tmp_path / "Python310" / "python.exe")
    own = tmp_path / "own"
    got = locate({"VIRTUAL_ENV": str(venv)}, windows=True, own_prefix=own)
    assert got.interpreter == str(v_py)
    assert locate({"CONDA_PREFIX": str(conda)}, windows=True, own_prefix=own).interpreter == str(
        c_py
    )
    path = f"{stub.parent};{real.parent}"
    assert locate({"PATH": path}, windows=True, own_prefix=own).interpreter == str(real)


def _doctor_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    code = main(["doctor", "--json", "--no-gpu", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_doctor_reads_the_activated_venv_and_says_so(
    broken_venv: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", str(broken_venv))
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    code, doc = _doctor_json(capsys)
    assert code == 1
    assert doc["environment"] == {
        "source": "VIRTUAL_ENV",
        "interpreter": str(broken_venv / "bin" / "python3"),
        "prefix": str(broken_venv),
    }
    found = {f["id"]: f for f in doc["findings"]}  # type: ignore[attr-defined]
    assert found["tensorflow"]["title"].startswith("tensorflow 2.10.1 (pip)")
    assert found["runtime-numpy"]["status"] == "problem"
    python = f"{broken_venv}/bin/python3"  # a venv without pip: pip comes first
    assert found["runtime-numpy"]["fix"] == (
        f"{python} -m ensurepip && {python} -m pip install 'numpy<2'"
    )
    assert main(["doctor", "--no-gpu"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(
        f"Checking: {broken_venv}/bin/python3 (the activated virtual environment, VIRTUAL_ENV)\n"
    )


def test_doctor_reads_the_python_on_path_without_an_activated_environment(
    broken_venv: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    monkeypatch.delenv("CONDA_PREFIX", raising=False)
    monkeypatch.setenv("PATH", str(broken_venv / "bin"))
    code, doc = _doctor_json(capsys)
    assert code == 1
    assert doc["environment"]["source"] == "PATH"  # type: ignore[index]
    assert doc["environment"]["interpreter"] == str(broken_venv / "bin" / "python3")  # type: ignore[index]
    found = {f["id"]: f for f in doc["findings"]}  # type: ignore[attr-defined]
    assert found["runtime-numpy"]["status"] == "problem"


def test_explain_answers_for_the_activated_venvs_tensorflow(
    broken_venv: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("VIRTUAL_ENV", str(broken_venv))
    text = (
        "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.0.2 as it may crash."
    )
    assert main(["explain", "--json", text]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["environment"]["source"] == "VIRTUAL_ENV"
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    facts = " ".join(doc["matches"][0]["facts"])
    assert f"TensorFlow 2.10.1 on Python {python} needs numpy<2" in facts
    assert "not known" not in facts
    assert main(["explain", text]) == 0
    out = capsys.readouterr().out
    assert f"Environment: {broken_venv}/bin/python3 (the activated virtual environment" in out


def test_an_unreadable_activated_environment_is_bad_input_for_doctor_not_for_explain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """doctor names the variable (exit 2, no traceback); explain answers without it."""
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "empty"))
    assert main(["doctor"]) == 2
    err = capsys.readouterr().err
    assert f"VIRTUAL_ENV {tmp_path / 'empty'}: no site-packages folder found" in err
    assert "Traceback" not in err
    assert main(["explain", "TypeError: Descriptors cannot be created directly."]) == 0
    assert "Environment:" not in capsys.readouterr().out
