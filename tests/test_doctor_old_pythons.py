"""`tfenv doctor --interpreter` on the Pythons of the environments tfenv plans that are older
than tfenv's own (3.6, 3.7, 3.8: TensorFlow 2.3's), run for real: a venv of each from
~/.pyenv/versions (skipped where none is installed) holding TensorFlow 2.3.4's and a
protobuf's metadata. The code doctor runs in the target interpreter (the environment probe,
the --import child) must run there; the findings are about that interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfenv.cli import main
from tfenv.doctor import env as target_env
from tfenv.doctor import imports

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venvs")


def _pyenv(version: str) -> Path:
    found = sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))
    if not found:
        pytest.skip(f"no Python {version} under ~/.pyenv/versions")
    return found[-1]


@pytest.fixture(scope="module", params=["3.6", "3.7", "3.8"])
def old_venv(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    version = str(request.param)
    root = tmp_path_factory.mktemp(f"py{version}") / "tf23"
    subprocess.run([str(_pyenv(version)), "-m", "venv", "--without-pip", str(root)], check=True)
    return root


def _site(venv: Path) -> Path:
    return next(venv.glob("lib/python3*/site-packages"))


def _dist(venv: Path, name: str, version: str) -> None:
    for old in _site(venv).glob(f"{name}-*.dist-info"):
        (old / "METADATA").unlink()
        old.rmdir()
    info = _site(venv) / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _version(venv: Path) -> str:
    return _site(venv).parent.name[len("python") :]


@pytest.mark.parametrize("child", ["probe", "import"])
def test_the_child_code_compiles_on_the_old_python(old_venv: Path, child: str) -> None:
    code = target_env._PROBE if child == "probe" else imports._SCRIPT
    check = "import sys; compile(sys.stdin.read(), 'child', 'exec')"
    done = subprocess.run(
        [str(old_venv / "bin" / "python"), "-I", "-c", check],
        input=code, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_doctor_interpreter_checks_the_old_pythons_environment(
    old_venv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    python = str(old_venv / "bin" / "python")
    _dist(old_venv, "tensorflow", "2.3.4")
    _dist(old_venv, "protobuf", "4.21.0")
    argv = ["doctor", "--json", "--no-gpu", "--interpreter", python]
    assert main(argv) == 1  # exit 1: a problem was found
    doc = json.loads(capsys.readouterr().out)
    found = {f["id"]: f for f in doc["findings"]}
    assert doc["environment"] == {
        "source": "interpreter",
        "interpreter": python,
        "prefix": str(old_venv),
    }
    assert found["environment"]["title"] == f"Python {_version(old_venv)} environment"
    assert found["tensorflow"]["title"].startswith("tensorflow 2.3.4 (pip): ")
    assert found["runtime-protobuf"]["status"] == "problem"
    assert found["runtime-protobuf"]["fix"] == (  # a venv without pip: ensurepip first
        f"{python} -m ensurepip && {python} -m pip install 'protobuf<4'"
    )
    # mended: healthy, exit 0
    _dist(old_venv, "protobuf", "3.20.3")
    assert main(argv) == 0
    capsys.readouterr()


def test_doctor_import_runs_its_child_on_the_old_python(
    old_venv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The import child runs there (TensorFlow's metadata without its code: import
    tensorflow finds no module, which the child reports, not a SyntaxError)."""
    python = str(old_venv / "bin" / "python")
    _dist(old_venv, "tensorflow", "2.3.4")
    assert main(["doctor", "--json", "--no-gpu", "--import", "--interpreter", python]) == 1
    doc = json.loads(capsys.readouterr().out)
    found = {f["id"]: f for f in doc["findings"]}
    assert found["import"]["title_code"]["code"] == "import-missing", found["import"]
    assert found["import"]["fix"] == f"{python} -m pip install tensorflow"  # (its own pip check)


@pytest.mark.live
def test_a_real_tensorflow_2_3_on_python_3_8_checked_from_tfenv_elsewhere(tmp_path: Path) -> None:
    """TensorFlow 2.3.4 on Python 3.8 with protobuf 4 (it cannot import), checked by the tfenv
    CLI running on its own newer Python: doctor --import finds the protobuf problem and the
    failed import, its printed fix run as printed in bash mends it, and the import then works
    in the 3.8 interpreter."""
    import os
    import shutil

    uv = Path(sys.executable).parent / "uv"
    tfenv = Path(sys.executable).parent / "tfenv"
    if not uv.exists() or not tfenv.exists() or shutil.which("bash") is None:
        pytest.skip("needs uv and the tfenv script beside this interpreter, and bash")
    env_dir = tmp_path / "tf23"
    subprocess.run([str(uv), "venv", "--seed", "-q", "-p", str(_pyenv("3.8")), str(env_dir)],
                   check=True)  # fmt: skip
    python = str(env_dir / "bin" / "python")
    install = [str(uv), "pip", "install", "-q", "--python", python]
    subprocess.run([*install, "tensorflow-cpu==2.3.4", "protobuf==4.21.0"], check=True, timeout=900)
    environ = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    doctor = [str(tfenv), "doctor", "--json", "--import", "--interpreter", python]

    def check() -> tuple[int, dict[str, dict[str, object]]]:
        done = subprocess.run(
            doctor, capture_output=True, text=True, env=environ, cwd=tmp_path, timeout=600,
            check=False,
        )  # fmt: skip
        return done.returncode, {f["id"]: f for f in json.loads(done.stdout)["findings"]}

    code, found = check()
    assert code == 1
    assert found["environment"]["title"] == "Python 3.8 environment"
    assert found["runtime-protobuf"]["status"] == "problem"
    assert found["import"]["status"] == "problem"
    fix = str(found["runtime-protobuf"]["fix"])
    assert fix == f"{python} -m pip install 'protobuf<4'"
    subprocess.run(["bash", "-c", fix], check=True, env=environ, cwd=tmp_path, timeout=600)
    code, found = check()
    assert code == 0, found
    assert found["import"]["title"] == "import tensorflow works: 2.3.4"
