"""``tfenv check-upgrade``: every boundary both ways, teams, lockfiles, output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tfenv.cli import main

DATA = Path(__file__).parent / "data" / "upgrade"
LINUX_GPU = ("--os", "linux", "--glibc", "2.31")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["check-upgrade", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run(capsys, *argv, "--json")
    assert err == "" or code != 2, err
    data = json.loads(out)
    assert isinstance(data, dict)
    return code, data


def findings(data: dict[str, Any], target: int = 0) -> dict[str, str]:
    """ref (or kind) -> severity of one target's findings."""
    return {f["ref"] or f["kind"]: f["severity"] for f in data["targets"][target]["findings"]}


# -- blockers going up -----------------------------------------------------------------

BLOCKERS_UP = [
    # (from, to, machine flags, the record that sources the blocker, words in the fix)
    (
        "2.14",
        "2.15",
        (*LINUX_GPU, "--cc", "8.6", "--driver", "470.82.01", "--python", "3.10"),
        "cuda-12",
        "driver >= 525.60.13",
    ),
    (
        "2.14",
        "2.15",
        (*LINUX_GPU, "--cc", "3.7", "--driver", "550.54", "--python", "3.10"),
        "kepler-dropped",
        "stay on TensorFlow 2.14.1",
    ),
    (
        "2.16",
        "2.17",
        (*LINUX_GPU, "--cc", "5.2", "--driver", "550.54", "--python", "3.11"),
        "maxwell-dropped",
        "stay on TensorFlow 2.16.2",
    ),
    (
        "2.10",
        "2.11",
        ("--os", "windows", "--cc", "8.6", "--driver", "537.13", "--python", "3.10"),
        "native-windows-gpu-ended",
        "WSL2",
    ),
    (
        "2.16",
        "2.17",
        ("--os", "macos", "--arch", "x86_64", "--python", "3.11"),
        "macos-x86-ended",
        "Stay on TensorFlow 2.16.2",
    ),
    (
        "2.20",
        "2.21",
        ("--os", "linux", "--no-gpu", "--glibc", "2.17", "--python", "3.11"),
        "glibc-2-27",
        "glibc >= 2.27",
    ),
    (
        "2.13",
        "2.14",
        ("--os", "linux", "--no-gpu", "--glibc", "2.31", "--python", "3.8"),
        "python-3-8-dropped",
        "Python 3.11",
    ),
]


@pytest.mark.parametrize(("frm", "to", "machine", "ref", "fix"), BLOCKERS_UP)
def test_blocker_going_up(
    capsys: pytest.CaptureFixture[str],
    frm: str,
    to: str,
    machine: tuple[str, ...],
    ref: str,
    fix: str,
) -> None:
    code, data = as_json(capsys, "--from", frm, "--to", to, *machine)
    assert code == 1
    assert data["status"] == "blocked"
    target = data["targets"][0]
    assert target["status"] == "blocked"
    blocker = next(f for f in target["findings"] if f["ref"] == ref)
    assert blocker["severity"] == "blocker"
    assert fix in blocker["fix"]
    assert blocker["sources"], "every finding names its source"


def test_the_release_before_the_boundary_is_safe_for_the_same_machine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    machine = (*LINUX_GPU, "--cc", "5.2", "--driver", "550.54", "--python", "3.11")
    code, data = as_json(capsys, "--from", "2.15", "--to", "2.16", *machine)
    assert "maxwell-dropped" not in findings(data)
    assert data["targets"][0]["status"] != "blocked"
    assert code == 0


# -- warnings going up -----------------------------------------------------------------

A100 = (*LINUX_GPU, "--gpu", "A100", "--driver", "550.54", "--python", "3.11")


@pytest.mark.parametrize(
    ("frm", "to", "machine", "ref"),
    [
        ("2.15", "2.16", A100, "keras-3-default"),
        ("2.17", "2.18", A100, "cudnn-9"),
        ("2.14", "2.15", A100, "cuda-12"),
        ("2.19", "2.20", A100, "gcs-filesystem-optional"),
        ("2.20", "2.21", A100, "tensorboard-dependency-removed"),
        (
            "2.7",
            "2.8",
            (*LINUX_GPU, "--cc", "8.6", "--driver", "550.54", "--python", "3.9"),
            "ampere-mostly-ptx",
        ),
    ],
)
def test_warning_going_up(
    capsys: pytest.CaptureFixture[str], frm: str, to: str, machine: tuple[str, ...], ref: str
) -> None:
    code, data = as_json(capsys, "--from", frm, "--to", to, *machine)
    assert findings(data).get(ref) == "warning", data["targets"][0]["findings"]
    assert code == 0
    code, _ = as_json(capsys, "--from", frm, "--to", to, *machine, "--strict")
    assert code == 1


def test_keras_3_fix_names_the_way_back(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = as_json(capsys, "--from", "2.15", "--to", "2.16", *A100)
    keras = next(f for f in data["targets"][0]["findings"] if f["kind"] == "keras")
    assert "tf-keras" in keras["fix"]
    assert "TF_USE_LEGACY_KERAS=1" in keras["fix"]


def test_ptx_jit_instead_of_native_code(capsys: pytest.CaptureFixture[str]) -> None:
    machine = (*LINUX_GPU, "--cc", "8.6", "--driver", "550.54", "--python", "3.9")
    _, data = as_json(capsys, "--from", "2.7", "--to", "2.8", *machine)
    jit = next(f for f in data["targets"][0]["findings"] if f["kind"] == "gpu-arch")
    assert "PTX JIT" in jit["summary"]
    assert "2.7" in jit["fix"]


def test_known_broken_release_is_a_blocker_with_the_release_to_use(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, data = as_json(capsys, "--from", "2.15", "--to", "2.16.1", "--manager", "pip", *A100)
    found = {f["ref"]: f for f in data["targets"][0]["findings"] if f["kind"] == "issue"}
    broken = found["pip-cuda-libs-not-found"]
    assert broken["severity"] == "blocker"
    assert "2.16.2" in broken["fix"]
    assert "LD_LIBRARY_PATH" in broken["fix"]  # the issue's own action, after the release
    # the phantom tensorflow-cpu-aws pin concerns aarch64 environments, not this machine
    assert "phantom-cpu-aws-pin-2-16-1" not in found
    assert code == 1


def test_a_remedied_broken_extra_is_not_a_blocker(capsys: pytest.CaptureFixture[str]) -> None:
    # tensorflow[and-cuda]==2.15.0 is uninstallable (TensorRT pins without wheels); the pip
    # plan pins the extra's CUDA wheels itself and leaves TensorRT out
    code, data = as_json(capsys, "--from", "2.14", "--to", "2.15.0", *A100)
    plan = data["targets"][0]["new_plan"]
    assert plan["route"] == "pip"
    pins = plan["packages"]["pip"]
    assert pins[0] == "tensorflow==2.15.0"
    assert "nvidia-cudnn-cu12==8.9.4.25" in pins
    assert not any(p.startswith("tensorrt") for p in pins)
    assert "and-cuda-2-15-0-tensorrt-unresolvable" not in findings(data)
    assert code == 0


def test_inferred_python_that_disappears_is_only_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # no --python: the current plan's Python (3.11 for 2.13) stays; 2.14 still has it
    code, data = as_json(
        capsys, "--from", "2.13", "--to", "2.21", "--os", "linux", "--no-gpu", "--glibc", "2.35"
    )
    assert data["targets"][0]["status"] != "blocked"
    assert code == 0


# -- downgrades ------------------------------------------------------------------------


def test_downgrade_needs_allow_downgrade(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--from", "2.16", "--to", "2.15", *A100)
    assert code == 2
    assert out == ""
    assert "--allow-downgrade" in err
    assert "Traceback" not in err


def test_downgrade_keras_3_to_2_and_losing_native_code(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(capsys, "--from", "2.16", "--to", "2.15", *A100, "--allow-downgrade")
    assert data["direction"] == "downgrade"
    found = findings(data)
    assert found["keras-3-default"] == "warning"
    keras = next(f for f in data["targets"][0]["findings"] if f["kind"] == "keras")
    assert "Keras 3 -> Keras 2" in keras["summary"]
    assert "tf.keras" in keras["fix"]
    jit = next(f for f in data["targets"][0]["findings"] if f["kind"] == "gpu-arch")
    assert jit["severity"] == "warning"
    assert "PTX JIT" in jit["summary"]
    assert code == 0


def test_downgrade_losing_a_python_is_a_blocker(capsys: pytest.CaptureFixture[str]) -> None:
    machine = (*LINUX_GPU, "--gpu", "A100", "--driver", "550.54", "--python", "3.12")
    code, data = as_json(capsys, "--from", "2.16", "--to", "2.15", *machine, "--allow-downgrade")
    blocker = next(f for f in data["targets"][0]["findings"] if f["kind"] == "python")
    assert blocker["severity"] == "blocker"
    assert blocker["ref"] == "python-3-12-added"
    assert "go no lower than TensorFlow 2.16" in blocker["fix"]
    assert code == 1


def test_downgrade_below_numpy_2_support_warns(capsys: pytest.CaptureFixture[str]) -> None:
    _code, data = as_json(capsys, "--from", "2.18", "--to", "2.17", *A100, "--allow-downgrade")
    assert findings(data)["numpy-2-support"] == "warning"
    assert findings(data)["cudnn-9"] == "warning"  # cuDNN 9 -> 8 going down


@pytest.mark.parametrize(
    ("frm", "to", "machine", "ref"),
    [
        (
            "2.17",
            "2.16",
            (*LINUX_GPU, "--cc", "5.2", "--driver", "550.54", "--python", "3.11"),
            None,
        ),
        (
            "2.15",
            "2.14",
            (*LINUX_GPU, "--cc", "3.7", "--driver", "470.82.01", "--python", "3.10"),
            None,
        ),
        (
            "2.11",
            "2.10",
            ("--os", "windows", "--cc", "8.6", "--driver", "537.13", "--python", "3.10"),
            None,
        ),
        ("2.17", "2.16", ("--os", "macos", "--arch", "x86_64", "--python", "3.11"), None),
    ],
)
def test_going_back_across_a_boundary_unblocks(
    capsys: pytest.CaptureFixture[str],
    frm: str,
    to: str,
    machine: tuple[str, ...],
    ref: object,
) -> None:
    code, data = as_json(capsys, "--from", frm, "--to", to, *machine, "--allow-downgrade")
    assert data["targets"][0]["resolves"] is True
    assert data["targets"][0]["status"] != "blocked", data["targets"][0]["findings"]
    assert code == 0


# -- teams -----------------------------------------------------------------------------


def test_team_where_one_machine_blocks(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(capsys, "--config", str(DATA / "team"), "--to", "2.16")
    status = {t["name"]: t["status"] for t in data["targets"]}
    assert status == {"cluster": "warnings", "old-k80": "blocked", "laptop": "warnings"}
    assert code == 1
    k80 = findings(data, 1)
    assert k80["kepler-dropped"] == "blocker"
    assert k80["cuda-12"] == "blocker"


def test_team_target_filter(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(
        capsys, "--config", str(DATA / "team"), "--to", "2.16", "--target", "cluster"
    )
    assert [t["name"] for t in data["targets"]] == ["cluster"]
    assert code == 0


def test_team_markdown_and_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--config", str(DATA / "team"), "--to", "2.16", "--markdown")
    assert code == 1
    assert "| target | from | to | status | blockers | warnings |" in out
    assert "| old-k80 | 2.14.1 | 2.16.2 | BLOCKED | 2 |" in out
    assert "[kepler-dropped]" in out
    code, out, _ = run(capsys, "--config", str(DATA / "team"), "--to", "2.16")
    assert "== old-k80: 2.14.1 -> 2.16.2  [BLOCKED]" in out
    assert "Not safe: blocked on old-k80." in out


def test_latest_checks_the_newest_series_not_the_newest_that_fits(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, data = as_json(capsys, "--config", str(DATA / "team"))
    assert data["to"].startswith("latest (")
    k80 = data["targets"][1]
    assert k80["status"] == "blocked"
    assert k80["to"].startswith(data["to"][8:12])
    assert code == 1


# -- lockfiles -------------------------------------------------------------------------


def test_requirements_lock_diff(capsys: pytest.CaptureFixture[str]) -> None:
    lock = DATA / "locks" / "requirements-cluster.txt"
    code, data = as_json(capsys, "--from-file", str(lock), "--to", "2.16", *A100)
    target = data["targets"][0]
    assert target["from"] == "2.14.1"
    changes = {p["name"]: p for p in target["packages"]["changes"]}
    assert changes["tensorflow"]["change"] == "changed"
    assert changes["tensorflow"]["old"] == "2.14.1"
    assert changes["tensorflow"]["new"] == "2.16.2"
    assert changes["keras"]["change"] == "changed"
    assert changes["keras"]["new"] == ">=3.0.0"
    assert changes["tensorflow-estimator"]["change"] == "removed"
    assert changes["nvidia-cudnn-cu12"]["change"] == "added"
    assert "top-level" in target["packages"]["basis"]
    assert code == 0


def test_pylock_gives_version_and_python(capsys: pytest.CaptureFixture[str]) -> None:
    lock = DATA / "locks" / "pylock.laptop.toml"
    _, data = as_json(
        capsys,
        "--from-file",
        str(lock),
        "--to",
        "2.16",
        "--os",
        "linux",
        "--no-gpu",
        "--glibc",
        "2.35",
    )
    target = data["targets"][0]
    assert target["from"] == "2.15.1"
    assert target["new_plan"]["python"] == "3.11"


def test_conda_lock_picks_the_targets_platform(capsys: pytest.CaptureFixture[str]) -> None:
    lock = DATA / "locks" / "conda-lock.yml"
    _, data = as_json(
        capsys, "--from-file", str(lock), "--to", "2.16", "--os", "macos", "--arch", "arm64"
    )
    assert data["targets"][0]["from"] == "2.13.0"
    _, data = as_json(
        capsys,
        "--from-file",
        str(lock),
        "--to",
        "2.16",
        "--os",
        "linux",
        "--no-gpu",
        "--glibc",
        "2.35",
    )
    assert data["targets"][0]["from"] == "2.15.0"


def test_environment_yml_python_gone(capsys: pytest.CaptureFixture[str]) -> None:
    env = DATA / "locks" / "environment.yml"
    code, data = as_json(
        capsys,
        "--from-file",
        str(env),
        "--to",
        "2.21",
        "--os",
        "linux",
        "--no-gpu",
        "--glibc",
        "2.35",
    )
    assert data["targets"][0]["from"] == "2.13.1"
    assert findings(data)["python-3-9-dropped"] == "blocker"
    assert code == 1


def test_one_lockfile_per_team_target(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(
        capsys,
        "--config",
        str(DATA / "team"),
        "--from-file",
        str(DATA / "locks" / "requirements-cluster.txt"),
        "--from-file",
        str(DATA / "locks" / "pylock.laptop.toml"),
        "--to",
        "2.16",
        "--target",
        "cluster",
        "--target",
        "laptop",
    )
    froms = {t["name"]: t["from"] for t in data["targets"]}
    assert froms == {"cluster": "2.14.1", "laptop": "2.15.1"}
    assert code == 0


def test_installed_environment_is_read_from_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "lib" / "python3.10" / "site-packages"
    for name, version in (("tensorflow", "2.13.1"), ("keras", "2.13.1")):
        info = site / f"{name}-{version}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    code, data = as_json(
        capsys,
        "--from-env",
        str(tmp_path),
        "--to",
        "2.16",
        "--os",
        "linux",
        "--no-gpu",
        "--glibc",
        "2.35",
    )
    target = data["targets"][0]
    assert target["from"] == "2.13.1"
    assert target["new_plan"]["python"] == "3.10"
    assert {p["name"] for p in target["packages"]["changes"]} >= {"tensorflow", "keras"}
    assert code == 0


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("--from", "9.9", "--to", "2.16"), "No TensorFlow release matches --from 9.9"),
        (("--from", "2.12", "--to", "7.1"), "No TensorFlow release matches --to 7.1"),
        (("--from", "2.12", "--to", "not a version!"), "--to 'not a version!'"),
        (("--from-file", str(DATA / "missing.txt"), "--to", "2.16"), "does not exist"),
        (("--from-file", str(DATA / "garbage-requirements.txt"), "--to", "2.16"), "line 2"),
        (("--from-file", str(DATA / "requirements-no-tf.txt"), "--to", "2.16"), "no TensorFlow"),
        (("--from-file", str(DATA / "pylock.broken.toml"), "--to", "2.16"), "not valid TOML"),
        (("--from-file", str(DATA / "team" / "pyproject.toml"), "--to", "2.16"), "not a file"),
        (("--from-env", str(DATA / "missing-env"), "--to", "2.16"), "not a folder"),
        (("--from", "2.16", "--to", "2.12"), "--allow-downgrade"),
        (("--config", str(DATA / "missing"), "--to", "2.16"), "does not exist"),
        (("--config", str(DATA / "team"), "--target", "cluster"), "leave out the machine flags"),
    ],
)
def test_bad_input_exits_2_with_a_message(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], words: str
) -> None:
    code, out, err = run(capsys, *argv, "--os", "linux", "--no-gpu")
    assert code == 2
    assert words in err
    assert "Traceback" not in err
    assert out == ""


def test_unknown_target(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--config", str(DATA / "team"), "--target", "nope", "--to", "2.16")
    assert code == 2
    assert "nope" in err
    assert "Traceback" not in err


def test_unreadable_lockfile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = tmp_path / "requirements.txt"
    lock.write_bytes(b"\xff\xfe\x00tensorflow")
    code, _, err = run(
        capsys, "--from-file", str(lock), "--to", "2.16", "--os", "linux", "--no-gpu"
    )
    assert code == 2
    assert "not UTF-8" in err


# -- output ----------------------------------------------------------------------------


def test_json_shape(capsys: pytest.CaptureFixture[str]) -> None:
    _, data = as_json(capsys, "--from", "2.15", "--to", "2.16", *A100)
    assert set(data) == {
        "from",
        "to",
        "direction",
        "status",
        "strict",
        "exit_code",
        "targets",
        "notes",
    }
    target = data["targets"][0]
    assert set(target) >= {
        "name",
        "machine",
        "status",
        "from",
        "to",
        "resolves",
        "findings",
        "packages",
        "current_plan",
        "new_plan",
    }
    assert target["findings"]  # Keras 2 -> 3 at least: the shape below is checked
    for f in target["findings"]:
        assert set(f) == {"severity", "kind", "summary", "fix", "sources", "ref"}
        assert f["fix"], f


def test_same_version_is_safe(capsys: pytest.CaptureFixture[str]) -> None:
    code, data = as_json(
        capsys,
        "--from",
        "2.16.2",
        "--to",
        "2.16.2",
        "--os",
        "linux",
        "--no-gpu",
        "--glibc",
        "2.35",
        "--python",
        "3.11",
    )
    assert data["direction"] == "same"
    assert data["status"] == "safe"
    assert code == 0


def test_a_blocked_move_does_not_drop_the_locks_cuda_wheels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An H100 on driver 535 cannot JIT 2.17's PTX: with no new plan, the lock's nvidia-*
    wheels are compared as the same route, not listed as "no longer required"."""
    lock = tmp_path / "requirements-h100.txt"
    lock.write_text(
        "tensorflow==2.16.2\nnvidia-cudnn-cu12==8.9.7.29\nnvidia-cublas-cu12==12.3.4.1\n"
        "tensorboard==2.16.2\n"
    )
    machine = (*LINUX_GPU, "--gpu", "H100", "--driver", "535.183.01", "--python", "3.11")
    code, data = as_json(capsys, "--from-file", str(lock), "--to", "2.17", *machine)
    assert code == 1
    assert data["targets"][0]["status"] == "blocked"
    changes = {p["name"]: p for p in data["targets"][0]["packages"]["changes"]}
    assert changes["tensorflow"]["new"] == "2.17.1"
    assert not [
        n for n, p in changes.items() if n.startswith("nvidia-") and p["change"] == "removed"
    ]


def test_the_ptx_jit_driver_blocker_cites_the_wheel_scan_not_an_unrelated_change(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """2.17 needs driver 545 to JIT its PTX on an H100; the gpu-arch change recorded for 2.17
    is Maxwell's removal, which says nothing about an H100 and is not this blocker's source."""
    machine = (*LINUX_GPU, "--gpu", "H100", "--driver", "535.183.01", "--python", "3.11")
    code, data = as_json(capsys, "--from", "2.16", "--to", "2.17", *machine)
    assert code == 1
    blocker = next(f for f in data["targets"][0]["findings"] if f["severity"] == "blocker")
    assert "545.23.06" in blocker["summary"]
    assert blocker["ref"] != "maxwell-dropped"
    assert not any("v2.17.0" in s for s in blocker["sources"]), blocker["sources"]
    assert any("fatbin" in s for s in blocker["sources"]), blocker["sources"]
