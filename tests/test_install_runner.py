"""The install's command runner: output shown and kept, a heartbeat for long steps, and a
terminal left to the child (uv's own download bars), which then writes to stderr only."""

from __future__ import annotations

import os
import sys

import pytest

from tfenv.install.runner import Runner, duration

ENV = dict(os.environ)


def test_output_is_shown_and_its_tail_kept() -> None:
    said: list[str] = []
    code = "import sys\nfor i in range(40): print(f'line {i}')\nsys.exit(3)"
    ran = Runner(said.append).run([sys.executable, "-c", code], ENV, "testing")
    assert ran.code == 3
    assert not ran.on_terminal
    assert said[0] == "    line 0"
    assert ran.tail.splitlines() == [f"line {i}" for i in range(10, 40)]


def test_heartbeat_while_a_step_runs() -> None:
    said: list[str] = []
    runner = Runner(said.append, heartbeat_s=0.2)
    ran = runner.run([sys.executable, "-c", "import time; time.sleep(1)"], ENV, "sleeping")
    assert ran.code == 0
    assert any(s.startswith("    ... still sleeping (") for s in said)


def test_terminal_mode_writes_to_stderr_only(capfd: pytest.CaptureFixture[str]) -> None:
    said: list[str] = []
    code = "import sys; print('to stdout'); print('to stderr', file=sys.stderr)"
    ran = Runner(said.append, terminal=True).run([sys.executable, "-c", code], ENV, "x")
    out, err = capfd.readouterr()
    assert ran.on_terminal
    assert ran.tail == ""
    assert out == ""  # stdout stays free for --json
    assert "to stdout" in err
    assert "to stderr" in err


def test_control_characters_are_shown_escaped() -> None:
    said: list[str] = []
    Runner(said.append).run([sys.executable, "-c", r"print('a\x1b[2Jb')"], ENV, "x")
    assert said == ["    a\\x1b[2Jb"]


def test_durations() -> None:
    assert duration(0.44) == "0.4 s"
    assert duration(125) == "2m05s"
    assert duration(None) == "-"
