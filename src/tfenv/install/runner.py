"""Run one install command with progress, and keep what it said for the error message.

On a terminal the child writes to it directly (stdout redirected to stderr, so that
``--json`` keeps stdout to itself): uv and pip draw their own download bars, which is the
progress that matters when CUDA wheels weigh several GB. Elsewhere (CI, a pipe) its output
is read line by line, shown indented, and its last lines kept for the error message; a line
every ``heartbeat_s`` says the step is still running. The child is a :mod:`tfenv.procs`
child of its own process group: Ctrl-C or SIGTERM ends it, and whatever it started (``python
-m venv`` runs ensurepip's pip in the new environment), before tfenv removes the half-made
environment.
"""

from __future__ import annotations

import collections
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Callable, Optional

from tfenv.i18n import _

__all__ = ["Ran", "Runner"]

_TAIL = 30  # lines kept for the error message


@dataclass(frozen=True)
class Ran:
    code: int
    tail: str  # the last lines it wrote ("" when it wrote to the terminal)
    on_terminal: bool


class Runner:
    """Runs commands for the install; ``say`` writes one line of progress (stderr)."""

    def __init__(
        self,
        say: Callable[[str], None],
        *,
        terminal: bool = False,
        heartbeat_s: float = 30.0,
        echo: bool = True,
    ) -> None:
        self.say = say
        self.terminal = terminal
        self.heartbeat_s = heartbeat_s
        self.echo = echo

    def run(self, argv: Sequence[str], env: Mapping[str, str], label: str) -> Ran:
        from tfenv import procs

        started = time.monotonic()
        if self.terminal:
            proc = procs.start(argv, env=env, stdout=sys.stderr, stderr=None, own_group=True)
            try:
                return Ran(self._wait(proc, label, started), "", True)
            finally:
                _end(proc)
        proc = procs.start(
            argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, own_group=True
        )
        tail: collections.deque[str] = collections.deque(maxlen=_TAIL)
        assert proc.stdout is not None
        reader = threading.Thread(target=self._read, args=(proc.stdout, tail), daemon=True)
        reader.start()
        try:
            code = self._wait(proc, label, started)
            reader.join()
        finally:
            _end(proc)
        return Ran(code, "\n".join(tail), False)

    def _wait(self, proc: subprocess.Popen[str], label: str, started: float) -> int:
        while True:
            try:
                return proc.wait(timeout=self.heartbeat_s)
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - started
                self.say(
                    _("    ... still {label} ({elapsed} so far)").format(
                        label=label, elapsed=_duration(elapsed)
                    )
                )

    def _read(self, stream: IO[str], tail: collections.deque[str]) -> None:
        from tfenv.textsafe import visible

        for line in stream:
            text = visible(line.rstrip("\r\n"))
            if not text.strip():
                continue
            tail.append(text)
            if self.echo:
                self.say(f"    {text}")


def _end(proc: subprocess.Popen[str]) -> None:
    """Kill the child if it still runs (tfenv is unwinding), and stop tracking it."""
    from tfenv import procs

    procs.kill(proc)
    if proc.stdout is not None:
        proc.stdout.close()
    procs.forget(proc)


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def duration(seconds: Optional[float]) -> str:
    """A step's duration for the report: ``0.4 s``, ``2m05s``."""
    if seconds is None:
        return "-"
    return f"{seconds:.1f} s" if seconds < 60 else _duration(seconds)
