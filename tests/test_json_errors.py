"""With ``--json``, every command's bad input prints one JSON error object on stdout (the
shape lock's failures have: command, ok, exit_code, error, hint) and exits 2; the prose
goes to stderr as without ``--json`` (docs/json.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfenv.cli import main

BAD: dict[str, list[str]] = {
    "resolve": ["resolve", "--json", "--os", "foo"],
    "resolve-argparse-choice": ["resolve", "--json", "--manager", "foo"],
    "resolve-unknown-flag": ["resolve", "--json", "--bogus"],
    "resolve-bad-cc": ["resolve", "--json", "--os", "linux", "--cc", "abc"],
    "check-upgrade": ["check-upgrade", "--json", "--to", "banana"],
    "matrix": ["matrix", "--json", "--tf", "9"],
    "detect": ["detect", "--json", "--glibc", "2"],
    "explain": ["explain", "--json", " "],
    "doctor": ["doctor", "--json", "--glibc", "2"],
    "install": ["install", "--json", "--os", "foo", "--dry-run"],
    "lock": ["lock", "--json", "--config", "/nonexistent/tfenv.toml"],
    "refresh": ["refresh", "--json", "--timeout", "-1"],
    "json-first": ["--lang", "zh", "resolve", "--json", "--glibc", "x"],
}


@pytest.mark.parametrize("argv", list(BAD.values()), ids=list(BAD))
def test_bad_input_with_json_prints_one_error_object(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    doc = json.loads(out)  # one object, and nothing else on stdout
    assert {"command", "ok", "exit_code", "error", "hint"} <= set(doc)
    assert doc["ok"] is False
    assert doc["exit_code"] == 2
    assert doc["command"].split()[0] == next(a for a in argv if a in _COMMANDS)
    assert doc["error"]
    assert doc["error"] in err  # the same words as the prose on stderr
    assert "Traceback" not in err
    assert all(ord(c) < 0x3000 for c in doc["error"])  # English, whatever --lang says


_COMMANDS = {"resolve", "check-upgrade", "matrix", "detect", "explain", "doctor", "install"}
_COMMANDS |= {"lock", "refresh"}


def test_without_json_stdout_stays_empty(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", "--os", "foo"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "--os 'foo'" in err


def test_a_json_flag_after_dashdash_is_not_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", "--os", "foo", "--", "--json"]) == 2
    assert capsys.readouterr().out == ""


def test_the_error_object_in_a_real_process(tmp_path: Path) -> None:
    """What a CI script reads: stdout parses as one object, the exit status is 2."""
    run = subprocess.run(
        [sys.executable, "-m", "tfenv", "resolve", "--json", "--python", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert run.returncode == 2
    assert json.loads(run.stdout)["error"].startswith("--python '3' is not a version")
    assert run.stderr.startswith("tfenv: error: --python '3'")
