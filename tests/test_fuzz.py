"""The fuzzer of every command (tests/fuzz_cli.py), bounded in time, as part of the suite.

It runs in a child interpreter so that a hang is caught by the timeout here and a crash
of the interpreter cannot take the test session down. The seed is fixed so a failure
reproduces: ``python -m tests.fuzz_cli --seed 13 --budget 40`` runs the same cases.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz_cli import COMMANDS

ROOT = Path(__file__).parent.parent
SEED = int(os.environ.get("TFENV_FUZZ_SEED", "13"))
BUDGET_S = float(os.environ.get("TFENV_FUZZ_BUDGET", "40"))


@pytest.mark.slow
def test_every_command_survives_hostile_input() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.fuzz_cli", "--seed", str(SEED), "--budget", str(BUDGET_S),
         "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=BUDGET_S + 120,
        check=False,
    )  # fmt: skip
    assert proc.stdout.strip(), proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    failures = "\n".join(json.dumps(f, ensure_ascii=True)[:800] for f in report["failures"])
    assert not report["failures"], failures
    assert report["tracebacks"] == 0
    assert report["hangs"] == 0
    assert report["leftovers"] == []  # no temp file, backup or uv folder stays behind
    assert set(report["cases"]) == set(COMMANDS)  # every command was tried
    assert report["total"] >= 200, report
