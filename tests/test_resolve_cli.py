"""``tfenv resolve`` through its command line: output shape, exit codes, error messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from tests.host_doc import host_document
from tfenv import __version__
from tfenv.cli import main

PLAN = ("--os", "linux", "--cc", "8.6", "--driver", "535.104.05", "--python", "3.11")
UNSAT: tuple[str, ...] = ("--os", "linux", "--cc", "8.6", "--driver", "470.82.01")
UNSAT += ("--python", "3.11", "--tf", "2.15")

TOP_KEYS = {"status", "target", "plan", "conflicts", "suggestions"}
PLAN_KEYS = {
    "tensorflow",
    "python",
    "cuda",
    "cudnn",
    "gpu",
    "route",
    "min_driver",
    "packages",
    "warnings",
    "reasons",
}


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tfenv resolve ARGV`` in this process: (exit code, stdout, stderr)."""
    capsys.readouterr()  # drop anything printed before
    code = main(["resolve", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def subprocess_tfenv(
    *argv: str, hash_seed: Optional[str] = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed  # set iteration order must not leak into output
    return subprocess.run(
        [sys.executable, "-m", "tfenv", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def one_json_object(text: str) -> dict[str, Any]:
    """``text`` is exactly one JSON object (and whitespace), nothing before or after it."""
    decoder = json.JSONDecoder()
    stripped = text.lstrip()
    assert stripped == text, "output starts with whitespace"
    value, end = decoder.raw_decode(stripped)
    assert text[end:].strip() == "", f"text after the JSON object: {text[end:]!r}"
    assert isinstance(value, dict)
    return value


# -- --json --------------------------------------------------------------------


def test_json_plan_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *PLAN, "--tf", "2.15", "--json")
    assert code == 0, err
    data = one_json_object(out)
    assert set(data) >= TOP_KEYS
    assert data["status"] == "ok"
    assert data["conflicts"] == []
    assert data["suggestions"] == []
    plan = data["plan"]
    assert set(plan) >= PLAN_KEYS
    assert set(plan["packages"]) == {"pip", "conda"}
    assert isinstance(plan["packages"]["pip"], list)
    assert isinstance(plan["packages"]["conda"], list)
    assert plan["tensorflow"] == "2.15.1"
    assert plan["python"] == "3.11"
    assert plan["gpu"] is True
    assert isinstance(plan["warnings"], list)
    assert isinstance(plan["reasons"], list)
    assert plan["reasons"], "a plan says why"
    assert data["target"]["os"] == "linux"
    assert data["target"]["compute_capability"] == "8.6"
    assert data["target"]["driver"] == "535.104.05"


def test_json_unsatisfiable_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *UNSAT, "--json")
    assert code == 1, err
    data = one_json_object(out)
    assert set(data) >= TOP_KEYS
    assert data["status"] == "unsatisfiable"
    assert data["plan"] is None
    assert data["conflicts"]
    assert all(isinstance(c["sentence"], str) for c in data["conflicts"])
    assert data["suggestions"]
    assert all(isinstance(s["sentence"], str) for s in data["suggestions"])
    assert err == ""


def test_json_conflicts_carry_their_fields(capsys: pytest.CaptureFixture[str]) -> None:
    """Each conflict gives its rule, releases, requirement, the machine's fact and its fix as
    fields, and the sentence the text output shows."""
    code, out, _ = cli(capsys, *UNSAT, "--json")
    assert code == 1
    driver = one_json_object(out)["conflicts"][0]
    assert driver["message"] == "conflict.release"
    assert driver["kind"] == "driver"
    assert driver["topic"] == "The NVIDIA driver is too old"
    assert driver["version"] == "2.15.1"
    assert driver["older"] == ["2.15.0", "2.15.0.post1"]
    assert driver["requirements"][0].startswith("an NVIDIA driver >= 525.60.13")
    assert driver["fact"] == {
        "key": "driver",
        "value": "470.82.01",
        "origin": "given",
        "text": "this machine's driver is 470.82.01",
    }
    assert driver["fix"] == "Install an NVIDIA driver >= 525.60.13"
    assert driver["sentence"].startswith("The NVIDIA driver is too old: TensorFlow 2.15.1 ")
    code, text, _ = cli(capsys, *UNSAT)
    assert f"  - {driver['sentence']}\n" in text
    ways = one_json_object(cli(capsys, *UNSAT, "--json")[1])["suggestions"]
    assert ways[0]["message"] == "way-out.other-tf"
    assert ways[0]["fields"] == {
        "tensorflow": "2.14.1",
        "command": "tfenv resolve --tf 2.14.1 --os linux --arch x86_64 --python 3.11 --cc 8.6 "
        "--driver 470.82.01",
    }


def test_json_cpu_plan(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--os", "linux", "--no-gpu", "--python", "3.11", "--json")
    assert code == 0
    plan = one_json_object(out)["plan"]
    assert plan["gpu"] is False
    assert plan["cuda"] is None
    assert plan["cudnn"] is None
    assert plan["route"] == "cpu"
    assert plan["min_driver"] is None


# -- exit codes and text -------------------------------------------------------


def test_text_plan_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *PLAN, "--tf", "2.15")
    assert code == 0, err
    assert "Plan: TensorFlow 2.15.1" in out
    assert "Traceback" not in out + err


def test_text_unsatisfiable_exit_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, *UNSAT)
    assert code == 1
    assert "Nothing fits." in out
    assert "Ways out:" in out
    assert "470.82.01" in out
    assert err == ""


def _host_with(tmp_path: Path, **changes: Any) -> Path:
    data = host_document(**changes)
    path = tmp_path / "host.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_valid_host_file_is_read(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The baseline for the bad-host-file cases below: the same file, unbroken, works."""
    code, out, err = cli(capsys, "--host", str(_host_with(tmp_path)), "--json")
    assert code == 0, err
    data = one_json_object(out)
    assert data["target"]["os"] == "linux"
    assert data["target"]["python"] == "3.11"
    assert data["target"]["glibc"] == "2.35"
    assert data["target"]["detected"] == []  # a host file is given, not detected


BAD_INPUT: list[tuple[tuple[str, ...], str]] = [
    (("--os", "linux", "--driver", "banana"), "banana"),
    (("--os", "linux", "--cc", "99.9"), "99.9"),
    (("--os", "linux", "--tf", "9.99"), "9.99"),
    (("--os", "linux", "--tf", "2.16.0"), "2.16.0"),
    (("--os", "linux", "--tf", "not a version!"), "not a version"),
    (("--os", "linux", "--gpu", "Banana 9000"), "Banana 9000"),
    (("--os", "linux", "--gpu", "TITAN X"), "ambiguous"),
    (("--os", "linux", "--python", "three"), "three"),
    (("--os", "linux", "--glibc", "new"), "new"),
    (("--os", "beos"), "beos"),
    (("--os", "linux", "--arch", "sparc"), "sparc"),
    (("--os", "linux", "--manager", "brew"), "brew"),
    (("--os", "linux", "--cc", "8.6", "--no-gpu"), "does not go with --no-gpu"),
    (("--host", "/nonexistent.json"), "/nonexistent.json"),
]


def _assert_usage_error(code: int, out: str, err: str, needle: str) -> None:
    assert code == 2, (code, out, err)
    assert out == "", "nothing on stdout for bad input"
    assert "Traceback" not in err
    text = err.strip()
    assert text, "an error message on stderr"
    assert "\n\n" not in text, f"more than one paragraph: {err!r}"
    assert len(text.splitlines()) == 1, f"not one paragraph: {err!r}"
    assert text.startswith("tfenv"), err
    assert needle in text, (needle, err)


@pytest.mark.parametrize(("argv", "needle"), BAD_INPUT, ids=[" ".join(a) for a, _ in BAD_INPUT])
def test_bad_input_exit_2(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...], needle: str
) -> None:
    code, out, err = cli(capsys, *argv)
    _assert_usage_error(code, out, err, needle)


def test_ambiguous_gpu_names_both_cards(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--os", "linux", "--gpu", "TITAN X")
    _assert_usage_error(code, out, err, "TITAN X")
    assert "5.2" in err
    assert "6.1" in err


def test_host_file_not_json(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "host.json"
    path.write_text("this is not json {", "utf-8")
    code, out, err = cli(capsys, "--host", str(path))
    _assert_usage_error(code, out, err, "JSON")


@pytest.mark.parametrize(
    ("field", "value"),
    [("os", "beos"), ("python", "three"), ("schema", 7), ("gpus", "none")],
)
def test_host_file_wrong_field(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, field: str, value: object
) -> None:
    path = _host_with(tmp_path, **{field: value})
    code, out, err = cli(capsys, "--host", str(path))
    _assert_usage_error(code, out, err, field)


def test_host_file_unknown_key(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = _host_with(tmp_path, colour="green")
    code, out, err = cli(capsys, "--host", str(path))
    _assert_usage_error(code, out, err, "colour")


# -- subprocess ----------------------------------------------------------------


def test_subprocess_bad_input_has_no_traceback() -> None:
    done = subprocess_tfenv("resolve", "--os", "linux", "--driver", "banana")
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_subprocess_unsatisfiable_exit_1() -> None:
    done = subprocess_tfenv("resolve", *UNSAT, "--json")
    assert done.returncode == 1, done.stderr
    assert one_json_object(done.stdout)["status"] == "unsatisfiable"


@pytest.mark.parametrize("fmt", [(), ("--json",)], ids=["text", "json"])
def test_subprocess_output_is_byte_identical(fmt: tuple[str, ...]) -> None:
    argv = ("resolve", *PLAN, "--tf", "2.15", *fmt)
    first = subprocess_tfenv(*argv, hash_seed="1")
    second = subprocess_tfenv(*argv, hash_seed="2")
    assert first.returncode == second.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert first.stdout


@pytest.mark.parametrize("fmt", [(), ("--json",)], ids=["text", "json"])
def test_unsatisfiable_output_is_byte_identical(fmt: tuple[str, ...]) -> None:
    argv = ("resolve", *UNSAT, *fmt)
    first = subprocess_tfenv(*argv, hash_seed="3")
    second = subprocess_tfenv(*argv, hash_seed="4")
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout


def test_in_process_runs_are_identical(capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ((), ("--json",)):
        first = cli(capsys, "--os", "windows", "--cc", "8.6", "--driver", "552.22", *fmt)
        second = cli(capsys, "--os", "windows", "--cc", "8.6", "--driver", "552.22", *fmt)
        assert first == second


def test_version() -> None:
    done = subprocess_tfenv("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"tfenv {__version__}"


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "resolve" in capsys.readouterr().out


def test_newest_cuda_libs_do_not_claim_tensorflow_was_built_with_them() -> None:
    """--cuda-libs newest pins CUDA 12.9 / cuDNN 9.28 wheels under 2.21.0: the reason names
    them as what the plan installs, and the build's own CUDA 12.5 / cuDNN 9.3 beside them."""
    import tfenv

    res = tfenv.resolve(
        tf="2.21.0",
        cuda_libs="newest",
        os="linux",
        gpu="RTX 5090",
        driver="575.57.08",
        python="3.12",
    )
    assert res.plan is not None
    why = [r for r in res.plan.reasons if r.startswith(f"CUDA {res.plan.cuda} ")]
    assert str(res.plan.cuda) == "12.9", res.plan.cuda
    assert len(why) == 1
    assert "built and tested with CUDA 12.5 and cuDNN 9.3" in why[0]
    assert "what the plan installs" in why[0]


@pytest.mark.parametrize(
    ("argv", "example"),
    [
        (["resolve", "--os", "linux", "--cc", "abc"], "8.6"),
        (["resolve", "--os", "linux", "--cc", "8"], "8.6"),
        (["resolve", "--os", "linux", "--glibc", "2"], "2.35"),
        (["resolve", "--os", "linux", "--python", "x"], "3.11"),
        (["check-upgrade", "--from", "2.15", "--os", "linux", "--glibc", "abc"], "2.35"),
        (["detect", "--glibc", "2"], "2.35"),
        (["detect", "--python", "3"], "3.11"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else v,
)
def test_a_version_flags_hint_gives_its_own_example(
    argv: list[str], example: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A compute capability's example is 8.6 and glibc's 2.35, not a Python's 3.11."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"is not a version of the form X.Y (for example {example})." in err, err


@pytest.mark.parametrize(("key", "example"), [("glibc", "2.35"), ("python", "3.11"), ("cc", "8.6")])
def test_a_config_versions_hint_gives_its_own_example(
    key: str, example: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "tfenv.toml").write_text(f'[targets.a]\nos = "linux"\n{key} = "2"\n', "utf-8")
    assert main(["lock", "--config", str(tmp_path), "--offline"]) == 2
    err = capsys.readouterr().err
    assert f"(for example {example})" in err, err
