"""tfenv install against a real 127.0.0.1 index of small fake wheels, with real uv and venv:
the whole flow, a failure in the middle, interruption by SIGINT/SIGTERM, --force,
--keep-failed, --offline, lockfiles, the Verify step's problem answered by explain, and the
commands of the routes this machine cannot run (conda, native Windows) in --dry-run."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.install_index import PY, install_index_fixture, install_wheels_fixture  # noqa: F401
from tests.lock_index import LockIndex
from tfenv.cli import main
from tfenv.install.claim import MARKER

PLAN = ["--no-gpu", "--python", PY, "--tf", "2.15.1"]
TEXT: Any = {"capture_output": True, "text": True, "check": True}
SIX = "/files/six-1.16.0-py2.py3-none-any.whl"


@pytest.fixture(autouse=True)
def _uv_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh uv cache and tfenv cache per test; pip reads no configuration (the
    machine's own index)."""
    cache = tmp_path / "uv-cache"
    monkeypatch.setenv("UV_CACHE_DIR", str(cache))
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path / "tfenv-cache"))
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_FIND_LINKS", raising=False)
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    return cache


def _install(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(["install", *argv])
    out, err = capsys.readouterr()
    if "--json" in argv and out.strip():
        return code, json.loads(out), err
    return code, out, err


def _steps(doc: object) -> dict[str, str]:
    assert isinstance(doc, dict)
    return {s["step"]: s["outcome"] for s in doc["steps"]}


def test_install_plan_ok(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "env"
    code, doc, err = _install(capsys, str(env), *PLAN, "--index-url", install_index.url, "--json")
    assert code == 0, err
    assert isinstance(doc, dict)
    assert doc["status"] == "ok"
    assert _steps(doc) == {
        "create": "ok",
        "packages": "ok",
        "activation": "ok",
        "verify": "ok",
    }
    assert all(isinstance(s["seconds"], float) for s in doc["steps"])
    verify = doc["verify"]
    assert isinstance(verify, dict)
    titles = [f["title"] for f in verify["findings"]]
    assert "import tensorflow works: 2.15.1" in titles
    marker = json.loads((env / MARKER).read_text())
    assert marker["tensorflow"] == "2.15.1"
    assert (env / "bin" / "python").exists()
    # progress, on stderr; a Linux CPU plan installs the CPU-only distribution
    assert "[2/4] Install tensorflow-cpu==2.15.1" in err


def test_install_text_report(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "env"
    code, out, _ = _install(capsys, str(env), *PLAN, "--index-url", install_index.url)
    assert code == 0
    assert isinstance(out, str)
    assert "Verify: ok" in out
    assert f"Activate it with: . {env}/bin/activate" in out


def _pip_after_activation(env: Path) -> list[str]:
    """What a real bash that activated ``env`` finds as ``pip``, and whose pip ``pip`` and
    ``env/bin/python3 -m pip`` (doctor's fixes) are, with another pip first on PATH
    before activation (tfenv's own environment's)."""
    script = (
        '. "$1/bin/activate" && command -v pip && pip --version && '
        '"$1/bin/python3" -m pip --version'
    )
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])
    ran = subprocess.run(
        ["bash", "-c", script, "bash", str(env)],
        env={**os.environ, "PATH": path, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
        **TEXT,
    )
    return str(ran.stdout).splitlines()


@pytest.mark.parametrize("how", ["uv", "lockfile", "venv"])
def test_environment_has_its_own_pip(
    how: str, tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every environment tfenv install makes has pip: after activation ``pip`` is the
    environment's (not another Python's, where ``pip install x`` would land elsewhere), and
    ``python -m pip`` works (uv: ``uv venv --seed``; venv: ensurepip). A lockfile is still
    installed with --require-hashes."""
    url = ["--index-url", install_index.url]
    env = tmp_path / "env"
    if how == "lockfile":
        project = _locked_project(tmp_path, install_index.url, capsys)
        argv = ["--target", "here", "--config", str(project), *url]
    else:
        argv = [*PLAN, *url, *(["--no-uv"] if how == "venv" else [])]
    code, doc, err = _install(capsys, str(env), *argv, "--json")
    assert code == 0, err
    which, pip, module = _pip_after_activation(env)
    assert which == str(env / "bin" / "pip")
    site = str(env / "lib")
    assert site in pip, pip
    assert site in module, module
    assert isinstance(doc, dict)
    create, packages = doc["steps"][0]["commands"][0], doc["steps"][1]["commands"][0]
    if how != "venv":
        assert " venv --seed " in create
    if how == "lockfile":
        assert "--require-hashes -r" in packages


def test_failure_mid_install_leaves_nothing(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    install_index.wrong_hash.add("six-1.16.0-py2.py3-none-any.whl")
    env = tmp_path / "env"
    code, doc, _ = _install(capsys, str(env), *PLAN, "--index-url", install_index.url, "--json")
    assert code == 1
    assert isinstance(doc, dict)
    assert doc["status"] == "failed"
    assert _steps(doc)["create"] == "ok"
    assert _steps(doc)["packages"] == "failed"
    assert "hash" in json.dumps(doc["steps"]).lower()
    assert not env.exists()
    assert "Nothing is left" in str(doc["rolled_back"])


def test_keep_failed(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    install_index.wrong_hash.add("six-1.16.0-py2.py3-none-any.whl")
    env = tmp_path / "env"
    code, out, _ = _install(
        capsys, str(env), *PLAN, "--index-url", install_index.url, "--keep-failed"
    )
    assert code == 1
    assert "kept" in str(out)
    assert (env / MARKER).is_file()


def test_existing_folder_and_force(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "env"
    url = ["--index-url", install_index.url]
    assert _install(capsys, str(env), *PLAN, *url)[0] == 0
    first = (env / MARKER).stat().st_ino
    code, _, err = _install(capsys, str(env), *PLAN, *url)
    assert code == 2
    assert "already exists" in err
    assert "--force" in err
    # a failed --force puts the old environment back
    install_index.wrong_hash.add("six-1.16.0-py2.py3-none-any.whl")
    assert _install(capsys, str(env), *PLAN, *url, "--force")[0] == 1
    assert (env / MARKER).stat().st_ino == first
    assert (env / "bin" / "python").exists()
    install_index.wrong_hash.clear()
    assert _install(capsys, str(env), *PLAN, *url, "--force")[0] == 0
    assert (env / MARKER).stat().st_ino != first
    assert not list(tmp_path.glob(".env.tfenv-old-*"))


def test_force_never_deletes_a_foreign_folder(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "project"
    env.mkdir()
    (env / "notes.txt").write_text("mine")
    code, _, err = _install(capsys, str(env), *PLAN, "--index-url", install_index.url, "--force")
    assert code == 2
    assert "did not create it" in err
    assert (env / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in env.iterdir()) == ["notes.txt"]
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    assert _install(capsys, str(not_a_dir), *PLAN, "--force")[0] == 2
    assert not_a_dir.read_text() == "x"


@pytest.mark.parametrize("marker", ["empty", "other", "link"])
def test_force_needs_tfenv_installs_own_marker(
    marker: str, tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """--force replaces a folder only when its marker is tfenv install's own record (a
    regular file saying tfenv install created it): a file of that name that is empty, says
    something else, or is a link to tfenv's marker elsewhere does not make a folder ours."""
    ours = tmp_path / "ours"
    assert _install(capsys, str(ours), *PLAN, "--index-url", install_index.url)[0] == 0
    env = tmp_path / "project"
    env.mkdir()
    (env / "notes.txt").write_text("mine")
    if marker == "link":
        (env / MARKER).symlink_to(ours / MARKER)
    else:
        (env / MARKER).write_text("" if marker == "empty" else '{"created-by": "me"}\n')
    code, _, err = _install(capsys, str(env), *PLAN, "--index-url", install_index.url, "--force")
    assert code == 2
    assert "did not create it" in err
    assert (env / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in env.iterdir()) == [MARKER, "notes.txt"]


def test_empty_folder_with_force_is_emptied_again_on_failure(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "empty"
    env.mkdir()
    install_index.wrong_hash.add("six-1.16.0-py2.py3-none-any.whl")
    code = _install(capsys, str(env), *PLAN, "--index-url", install_index.url, "--force")[0]
    assert code == 1
    assert env.is_dir()
    assert not list(env.iterdir())


def test_offline_from_uv_cache(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    url = install_index.url
    assert _install(capsys, str(tmp_path / "a"), *PLAN, "--index-url", url)[0] == 0
    for path in list(install_index.projects()):  # the index is gone: every request fails
        install_index.faults[f"/simple/{path}/"] = ["500"] * 50
    served = len(install_index.requests)
    code, _, err = _install(capsys, str(tmp_path / "b"), *PLAN, "--index-url", url, "--offline")
    assert code == 0, err
    assert "Disk space not checked: --offline asks the package index nothing" in err
    assert len(install_index.requests) == served  # nothing was asked of the index
    code, _, _ = _install(capsys, str(tmp_path / "c"), *PLAN, "--index-url", url)
    assert code == 1  # online, the dead index fails the install: the offline run used the cache


def test_venv_and_pip_without_uv(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "env"
    code, doc, err = _install(
        capsys, str(env), *PLAN, "--index-url", install_index.url, "--no-uv", "--json"
    )
    assert code == 0, err
    assert isinstance(doc, dict)
    assert doc["tool"] == "venv"
    commands = [c for s in doc["steps"] for c in s["commands"]]
    assert "-m venv" in commands[0]
    assert "-m pip install" in commands[1]
    assert (env / "bin" / "pip").exists()


def test_verify_does_not_wait_for_tensorflows_teardown(
    tmp_path: Path,
    install_index: LockIndex,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The import check's child ends once its result is out: TensorFlow's teardown at exit
    (threads, static destructors: up to seconds) checks nothing and is not waited for."""
    monkeypatch.setenv("FAKE_TF_TEARDOWN", "60")
    env = tmp_path / "env"
    url = ["--index-url", install_index.url]
    code, doc, err = _install(capsys, str(env), *PLAN, *url, "--timeout", "20", "--json")
    assert code == 0, err
    assert isinstance(doc, dict)
    verify = next(s for s in doc["steps"] if s["step"] == "verify")
    assert verify["outcome"] == "ok"
    assert verify["seconds"] < 20


def test_verify_problem_is_explained(
    tmp_path: Path,
    install_index: LockIndex,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_TF_FAIL", "1")
    env = tmp_path / "env"
    code, out, _ = _install(capsys, str(env), *PLAN, "--index-url", install_index.url)
    assert code == 1
    assert isinstance(out, str)
    assert "[PROBLEM] Importing TensorFlow failed" in out
    assert "tfenv explain says:" in out
    assert "NumPy" in out.split("tfenv explain says:")[1]
    assert (env / "bin" / "python").exists()  # installed completely: kept for the fix


@pytest.mark.parametrize(
    ("step", "sig"),
    [
        ("create", signal.SIGINT),  # python -m venv, installing pip (--no-uv)
        ("packages", signal.SIGINT),  # uv, waiting for a wheel
        ("packages", signal.SIGTERM),
        ("verify", signal.SIGTERM),  # the import check, in the new environment
    ],
)
def test_interrupted_install_leaves_nothing(
    tmp_path: Path,
    install_index: LockIndex,
    step: str,
    sig: signal.Signals,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    install_index.hang_s = 60
    install_index.faults[SIX] = ["hang"] if step == "packages" else []
    monkeypatch.setenv("FAKE_TF_SLEEP", "60" if step == "verify" else "0")
    env = tmp_path / "env"
    argv = [sys.executable, "-m", "tfenv", "install", str(env), *PLAN]
    argv += ["--index-url", install_index.url, *(["--no-uv"] if step == "create" else [])]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    assert proc.stderr is not None
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True)
    reader.start()
    number = {"create": 1, "packages": 2, "verify": 4}[step]
    deadline = time.monotonic() + 60
    while not any(ln.startswith(f"[{number}/4]") for ln in lines) and time.monotonic() < deadline:
        time.sleep(0.05)
    if step == "packages":
        while SIX not in install_index.requests and time.monotonic() < deadline:
            time.sleep(0.05)
    time.sleep(0.5 if step != "create" else 2.0)  # well inside the step
    assert proc.poll() is None, "".join(lines)
    assert env.exists()  # half made
    proc.send_signal(sig)
    proc.wait(timeout=30)
    reader.join(timeout=10)
    err = "".join(lines)
    assert proc.returncode == 128 + sig, err
    assert "tfenv install stopped: Nothing is left" in err
    assert not env.exists()


def test_dry_run_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    env = tmp_path / "env"
    code, out, _ = _install(capsys, str(env), *PLAN, "--dry-run")
    assert code == 0
    assert isinstance(out, str)
    told = re.search(r"uv venv --seed --python (\S+) (\S+)\n", out)
    assert told is not None
    assert told.group(2) == str(env)
    python = subprocess.run([told.group(1), "-c", "import sys; print(sys.version)"], **TEXT)
    assert python.stdout.startswith(PY)  # told the interpreter found here
    assert "pip install --python" in out
    assert "tensorflow-cpu==2.15.1" in out  # the CPU plan's distribution
    assert not env.exists()


def test_host_refused(
    tmp_path: Path, gpu_host_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _install(capsys, str(tmp_path / "e"), "--host", str(gpu_host_file))
    assert code == 2
    assert "installs on this machine" in err


def test_lock_name_the_system_refuses_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --lock path too long for the system (found by tests/test_fuzz.py): exit 2."""
    lock = tmp_path.joinpath(*["d" * 200] * 30)
    code, _, err = _install(capsys, str(tmp_path / "e"), "--dry-run", "--lock", str(lock))
    assert code == 2
    assert "no such file" in err
    assert not (tmp_path / "e").exists()


def test_another_machine_only_in_dry_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--os", "windows", "--gpu", "RTX 3060", "--driver", "536.0", "--python", "3.10"]
    code, _, err = _install(capsys, str(tmp_path / "e"), *flags, "--tf", "2.10", "--manager", "pip")
    assert code == 2
    assert "--dry-run" in err
    code, out, _ = _install(
        capsys, str(tmp_path / "e"), *flags, "--tf", "2.10", "--manager", "pip", "--dry-run"
    )
    assert code == 0
    assert isinstance(out, str)
    assert "route system" in out
    assert "Scripts" in out
    assert "python.exe" in out
    assert "Still to do by hand:" in out
    assert "cuda_11.2.2_461.33_win10.exe" in out


@pytest.mark.parametrize("conda", [False, True])
def test_windows_steps_show_windows_paths(
    conda: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Windows plan's steps, shown on Linux, name DIR as Windows does: never joined onto
    this machine's current folder, with backslashes, and uv as the Windows machine's."""
    monkeypatch.chdir(tmp_path)
    flags = ["--os", "windows", "--python", "3.10", "--tf", "2.10", "--dry-run"]
    if conda:
        flags += ["--gpu", "RTX 3060", "--driver", "536.0", "--manager", "conda"]
    code, out, _ = _install(capsys, r"C:\envs\tf23", *flags)
    assert code == 0
    assert isinstance(out, str)
    assert str(tmp_path) not in out
    assert "/" not in out.split("Still to do by hand:")[0].replace("/GPU", "")
    if conda:
        assert r"conda create -y -p C:\envs\tf23 " in out
        assert r"uv pip install --python C:\envs\tf23\python.exe " in out
    else:
        assert 'uv venv --seed --python "3.10" C:\\envs\\tf23\n' in out
        assert r"uv pip install --python C:\envs\tf23\Scripts\python.exe " in out
    assert r"'tfenv doctor --prefix C:\envs\tf23 --import' after activating" in out


def test_conda_route_without_conda(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # no conda-family tool
    for var in ("CONDA_EXE", "MAMBA_EXE"):
        monkeypatch.delenv(var, raising=False)
    flags = ["--gpu", "RTX 3060", "--driver", "535.104.05", "--python", "3.10", "--tf", "2.10"]
    code, out, _ = _install(capsys, *flags, "--manager", "conda", "--dry-run")
    assert code == 0
    assert isinstance(out, str)
    want = (
        "conda create -y -n tf-2.10.1 --override-channels -c conda-forge 'python=3.10' "
        "'cudatoolkit=11.2.2' 'cudnn=8.1.0.77'"
    )
    assert f"{want} pip\n" in out  # the environment's own pip, for the pip step and doctor's fixes
    # the environments folder of a conda not installed yet is unknown: pip and doctor go
    # through the environment's name, not a folder guessed under the current one
    pip = "conda run -n tf-2.10.1 python -m pip install --disable-pip-version-check"
    assert f"{pip} 'tensorflow==2.10.1' 'numpy<2'" in out
    assert "'tfenv doctor --interpreter python --import' after activating" in out
    assert str(Path.cwd() / "tf-2.10.1") not in out
    code, _, err = _install(capsys, *flags, "--manager", "conda")
    assert code == 1
    assert "No conda, mamba or micromamba" in err
    assert want in err


def _locked_project(tmp_path: Path, url: str, capsys: pytest.CaptureFixture[str]) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "tfenv.toml").write_text(
        f'tensorflow = "2.15.1"\npython = "{PY}"\n'
        '[targets.here]\nos = "linux"\narch = "x86_64"\nno-gpu = true\nglibc = "2.31"\n'
    )
    assert main(["lock", "--config", str(project), "--index-url", url]) == 0
    capsys.readouterr()
    return project


def test_install_from_lockfile(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    url = install_index.url
    project = _locked_project(tmp_path, url, capsys)
    lock = project / "requirements.here.txt"
    env = tmp_path / "env"
    code, doc, err = _install(
        capsys, str(env), "--target", "here", "--config", str(project), "--index-url", url, "--json"
    )
    assert code == 0, err
    assert isinstance(doc, dict)
    assert doc["source"] == {"lock": str(lock), "target": "here"}
    packages = next(s for s in doc["steps"] if s["step"] == "packages")
    assert f"--require-hashes -r {lock}" in packages["commands"][0]
    assert _steps(doc)["verify"] == "ok"
    # --lock FILE alone: its target from its name, the configuration from its folder
    code, _, err = _install(capsys, str(tmp_path / "env2"), "--lock", str(lock), "--index-url", url)
    assert code == 0, err


def test_lockfile_refusals(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _locked_project(tmp_path, install_index.url, capsys)
    lock = project / "requirements.here.txt"
    env = str(tmp_path / "env")
    code, _, err = _install(capsys, env, "--lock", str(lock), "--tf", "2.15")
    assert code == 2
    assert "give one or the other" in err
    code, _, err = _install(capsys, env, "--target", "nope", "--config", str(project))
    assert code == 2
    assert "No target named 'nope'" in err
    text = lock.read_text()
    lock.write_text(text.replace("six==1.16.0", "six==1.17.0"))
    code, _, err = _install(capsys, env, "--lock", str(lock))
    assert code == 2
    assert "was edited" in err
    bare = project / "requirements.bare.txt"
    bare.write_text("tensorflow==2.15.1\n")
    code, _, err = _install(capsys, env, "--lock", str(bare), "--target", "here")
    assert code == 2
    assert "no --hash lines" in err
    assert not Path(env).exists()


def test_stale_lockfile_is_refused_with_the_command_that_relocks(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """The configuration changed after 'tfenv lock' (what 'lock --check' fails on): install
    refuses, naming the change and 'tfenv lock --config ...'; --allow-stale installs it
    anyway, saying so; locking again makes it current."""
    url = install_index.url
    project = _locked_project(tmp_path, url, capsys)
    config = project / "tfenv.toml"
    config.write_text(config.read_text().replace('glibc = "2.31"', 'glibc = "2.35"'))
    assert main(["lock", "--check", "--config", str(project)]) == 1
    capsys.readouterr()
    env = tmp_path / "env"
    code, _, err = _install(capsys, str(env), "--target", "here", "--config", str(project))
    assert code == 2, err
    assert "requirements.here.txt is stale: this target's facts or settings changed" in err
    assert f"tfenv lock --config {config}" in err
    assert "--allow-stale" in err
    assert not env.exists()
    code, doc, err = _install(capsys, str(env), "--target", "here", "--config", str(project),
                              "--allow-stale", "--index-url", url, "--json")  # fmt: skip
    assert code == 0, err
    assert "warning: the lockfile is stale (--allow-stale)" in err
    assert isinstance(doc, dict)
    assert doc["source"]["stale"] == ["this target's facts or settings changed ('targets.here')"]
    assert _steps(doc)["verify"] == "ok"
    assert main(["lock", "--config", str(project), "--index-url", url]) == 0
    capsys.readouterr()
    code, out, err = _install(capsys, str(tmp_path / "env2"), "--target", "here", "--config",
                              str(project), "--dry-run")  # fmt: skip
    assert code == 0, err
    assert "is stale" not in out + err


def test_allow_stale_goes_with_a_lockfile(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _install(capsys, "--allow-stale", "--dry-run")
    assert code == 2
    assert "--allow-stale goes with --lock or --target" in err


def test_lockfile_of_another_kind_of_machine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "tfenv.toml").write_text(
        f'tensorflow = "2.15.1"\npython = "{PY}"\n[targets.win]\nos = "windows"\nno-gpu = true\n'
    )
    (project / "requirements.win.txt").write_text("six==1.16.0 --hash=sha256:" + "0" * 64 + "\n")
    env = str(tmp_path / "env")
    code, _, err = _install(capsys, env, "--target", "win", "--config", str(project))
    assert code == 2
    assert "This plan is for Windows x86_64" in err
    code, out, _ = _install(capsys, env, "--target", "win", "--config", str(project), "--dry-run")
    assert code == 0
    assert "--require-hashes -r" in out
    assert "Scripts" in out
    assert not Path(env).exists()


@pytest.mark.parametrize(("os_name", "driver"), [("linux", "535.104.05"), ("windows", "536.0")])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_install_step_is_not_left_to_do_in_any_language(
    os_name: str, driver: str, lang: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The system route's own Install step is what tfenv install does: it is found among
    the plan's steps (worded in the run's language) and not listed as still to do."""
    flags = ["--os", os_name, "--gpu", "RTX 3060", "--driver", driver, "--python", "3.10"]
    argv = [str(tmp_path / "e"), *flags, "--tf", "2.10", "--manager", "pip", "--dry-run"]
    code, out, err = _install(capsys, *argv, "--lang", lang)
    assert code == 0, err
    marker = "Still to do by hand:" if lang == "en" else "仍需手动完成："
    assert marker in out, out
    left = out.split(marker)[1]
    install = "Install TensorFlow with the commands" if lang == "en" else "安装 TensorFlow"
    assert install not in left, left
    assert "cuDNN 8.1" in left


def test_system_route_reports_what_is_left(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """TensorFlow 2.10 with CUDA on Linux without its wheels: the Python side is installed;
    doctor, checking for the GPU the plan is for, finds no CUDA 11.2 libraries; the steps
    left to do by hand follow. The environment is complete, so it is kept."""
    from tfenv.install.interpreters import find_python

    if find_python("3.10", "linux", os.environ) is None:
        pytest.skip("no Python 3.10 here")
    env = tmp_path / "env"
    machine = ["--gpu", "RTX 3060", "--driver", "535.104.05", "--python", "3.10"]
    argv = [str(env), *machine, "--tf", "2.10", "--manager", "pip"]
    code, out, err = _install(capsys, *argv, "--index-url", install_index.url)
    assert code == 1, err
    assert "route system" in out
    assert "[PROBLEM] libcudart.so.11.0 not found" in out
    assert "Still to do by hand:" in out
    left = out.split("Still to do by hand:")[1]
    assert "  - CUDA Toolkit 11.2.2: download cuda_11.2.2_" in left
    assert "  - cuDNN 8.1 for CUDA 11" in left
    assert "Install TensorFlow with the commands" not in left  # done by tfenv install
    assert "its activation script sets CUDA_HOME, LD_LIBRARY_PATH, PATH and XLA_FLAGS" in left
    assert (env / "bin" / "activate-tfenv.sh").is_file()
    assert (
        f"Verify: not yet: do the steps above, then check again with 'tfenv doctor --prefix {env}"
        in out
    )


# -- the disk-space check -----------------------------------------------------------------


def _sized(index: LockIndex, prefix: str, size: int) -> None:
    """The index gives every file whose name starts with ``prefix`` this PEP 700 size."""
    for path in index.folder.iterdir():
        if path.name.startswith(prefix):
            index.file_info[path.name] = {"size": size}


def test_install_says_how_much_space_it_needs(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    env = tmp_path / "env"
    code, doc, err = _install(capsys, str(env), *PLAN, "--index-url", install_index.url, "--json")
    assert code == 0, err
    assert isinstance(doc, dict)
    assert doc["space"].startswith("Disk space: about ")
    assert "free at " in doc["space"]
    assert doc["space"] in err
    assert any(r.endswith("/tensorflow-cpu/") for r in install_index.requests)


def test_the_same_pins_are_sized_once(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """Installing the same plan from the same index again takes the estimate from tfenv's
    cache (a pinned version's files do not change): the index is not asked again, so a
    size it gives now is not seen; another index is asked."""
    url = ["--index-url", install_index.url]
    code, first, err = _install(capsys, str(tmp_path / "a"), *PLAN, *url, "--json")
    assert code == 0, err
    _sized(install_index, "tensorflow", 10**15)
    code, again, err = _install(capsys, str(tmp_path / "b"), *PLAN, *url, "--json")
    assert code == 0, err
    assert isinstance(first, dict)
    assert isinstance(again, dict)
    assert again["space"].split(", ")[0] == first["space"].split(", ")[0]  # "about N MB for"
    other = install_index.url.replace("127.0.0.1", "localhost")
    code, _, err = _install(capsys, str(tmp_path / "c"), *PLAN, "--index-url", other)
    assert code == 2, err
    assert "Not enough disk space" in err


def test_install_refuses_when_the_disk_is_short(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    """The index says the TensorFlow wheel is 1 PB: nothing is made, exit 2, the message
    says how much is needed and how much is free where; --no-space-check goes on."""
    _sized(install_index, "tensorflow", 10**15)
    env = tmp_path / "env"
    code, _, err = _install(capsys, str(env), *PLAN, "--index-url", install_index.url)
    assert code == 2, err
    assert "Not enough disk space: this install needs about 5500000.0 GB for " in err
    assert "(1000000.0 GB to download for 1 pinned package," in err
    assert f"is free at {tmp_path}" in err
    assert "--no-space-check" in err
    assert not env.exists()
    code, doc, err = _install(capsys, str(env), *PLAN, "--index-url", install_index.url,
                              "--no-space-check", "--json")  # fmt: skip
    assert code == 0, err
    assert isinstance(doc, dict)
    assert doc["space"] == ""


def test_install_from_lockfile_sizes_every_pin(
    tmp_path: Path, install_index: LockIndex, capsys: pytest.CaptureFixture[str]
) -> None:
    url = install_index.url
    project = _locked_project(tmp_path, url, capsys)
    _sized(install_index, "six-", 10**15)  # a dependency the lockfile pins
    env = tmp_path / "env"
    code, _, err = _install(capsys, str(env), "--target", "here", "--config", str(project),
                            "--index-url", url)  # fmt: skip
    assert code == 2, err
    assert "Not enough disk space" in err
    assert not env.exists()


def test_space_needs_per_filesystem(tmp_path: Path) -> None:
    from tfenv.install.space import UNPACKED, Estimate, needs

    est = Estimate(10**9, ("a==1",))
    env, cache = tmp_path / "env" / "deeper", tmp_path / "cache"
    unpacked = int(10**9 * UNPACKED)
    [one] = needs(est, env, cache)  # one filesystem: the sum, once
    assert (one.path, one.bytes) == (tmp_path, 10**9 + unpacked)
    [pip] = needs(est, env, None)
    assert pip.bytes == 10**9 + unpacked
    other = Path("/dev/shm")
    if not other.is_dir() or other.stat().st_dev == tmp_path.stat().st_dev:
        pytest.skip("no second filesystem (/dev/shm) to put the cache on")
    apart = needs(est, env, other / "uv-cache")
    assert [(n.path, n.bytes) for n in apart] == [(tmp_path, unpacked), (other, 10**9 + unpacked)]


def test_space_estimate_takes_the_largest_file_of_the_pinned_version() -> None:
    from tfenv.install.space import estimate

    pages = {
        "a": [("a-1.0-py3-none-any.whl", 10), ("a-1.0-cp311-cp311-win_amd64.whl", 30),
              ("a-1.0.tar.gz", 20), ("a-2.0-py3-none-any.whl", 99)],
        "b": [("b-2.0-py3-none-any.whl", 5)],
    }  # fmt: skip
    est = estimate([("a", "1.0"), ("b", "1.0"), ("c", "1")], pages.get)
    assert est.download == 30
    assert est.counted == ("a==1.0",)
    assert est.unknown == (
        "b 1.0: the index lists no sized file of it",
        "c: the index has no page for it",
    )
