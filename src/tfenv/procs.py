"""Child processes that end with tfenv.

Every program tfenv runs (uv, nvidia-smi, a target interpreter) is started by
:func:`run`. Children stay in tfenv's process group, so a signal to the group (Ctrl-C
in a terminal, ``kill -- -PGID``) reaches them too. Each is also registered here:
:func:`end_all`, called by the CLI when tfenv is interrupted or terminated, refuses new
children and terminates the running ones, so worker threads waiting on them return at
once. On Linux a child is also asked to receive SIGKILL when tfenv dies (even by
SIGKILL, which tfenv cannot handle), so no ``uv pip compile`` outlives it.

A child that starts programs of its own which write where tfenv cleans up (``python -m
venv`` runs ensurepip's pip in the new environment) is started with ``own_group``: it leads
a process group, and tfenv's signals go to the whole group, so nothing it started is left
writing into a folder that tfenv is removing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional

__all__ = ["Stopping", "end_all", "forget", "kill", "run", "start"]

_lock = threading.RLock()  # end_all may run in a signal handler while run() holds it
_running: set[subprocess.Popen[str]] = set()
_leaders: set[int] = set()  # the pids of children started with own_group (POSIX)
_stopping = False
_GRACE_S = 2.0
TEMP_PREFIX = "tfenv-run-"  # the empty folder a neutral_cwd child runs in


class Stopping(Exception):
    """tfenv is shutting down; no new child process is started."""


def run(
    argv: Sequence[str],
    *,
    timeout: float,
    input: Optional[str] = None,
    cwd: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    errors: Optional[str] = None,
    neutral_cwd: bool = False,
) -> subprocess.CompletedProcess[str]:
    """Like ``subprocess.run(..., capture_output=True, text=True, timeout=...)``.

    ``neutral_cwd`` runs the child in a new empty folder (removed afterwards), so that
    nothing in the caller's folder can be picked up by it. Raises
    ``subprocess.TimeoutExpired`` (the child is killed first), ``OSError`` when it cannot
    be started, and :class:`Stopping` once :func:`end_all` has been called.
    """
    if neutral_cwd:
        from tfenv.fsutil import temp_folder

        with temp_folder(TEMP_PREFIX) as empty:
            return run(argv, timeout=timeout, input=input, cwd=empty, env=env, errors=errors)
    with _lock:
        if _stopping:
            raise Stopping("tfenv is stopping")
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=None if env is None else dict(env),
            text=True,
            errors=errors,
            preexec_fn=_die_with_parent(),
        )
        _running.add(proc)
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        _kill(proc)
        raise
    finally:
        with _lock:
            _running.discard(proc)
    return subprocess.CompletedProcess(list(argv), proc.returncode, out, err)


def start(
    argv: Sequence[str],
    *,
    cwd: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
    stderr: Any = None,
    stdout: Any = subprocess.DEVNULL,
    own_group: bool = False,
) -> subprocess.Popen[str]:
    """Start a child that runs while tfenv goes on (stdout discarded unless ``stdout`` says
    where, ``stderr`` to a file object); registered like :func:`run`'s until :func:`forget`
    is called. ``own_group`` (POSIX): the child leads a process group of its own, which
    :func:`end_all` and :func:`kill` signal as a whole."""
    group = own_group and os.name == "posix"
    with _lock:
        if _stopping:
            raise Stopping("tfenv is stopping")
        proc = subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            cwd=cwd,
            env=None if env is None else dict(env),
            text=True,
            preexec_fn=_die_with_parent(group),
        )
        _running.add(proc)
        if group:
            _leaders.add(proc.pid)
    return proc


def kill(proc: subprocess.Popen[str]) -> None:
    """SIGKILL a child started by :func:`start` that still runs (its whole group with
    ``own_group``) and wait for it a moment."""
    if proc.poll() is None:
        _send(proc, hard=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(_GRACE_S)


def forget(proc: subprocess.Popen[str]) -> None:
    """Stop tracking a child started by :func:`start` (once it has ended)."""
    with _lock:
        _running.discard(proc)
        _leaders.discard(proc.pid)


def end_all() -> None:
    """Start no more children and terminate the running ones (SIGTERM, then SIGKILL)."""
    global _stopping
    with _lock:
        _stopping = True
        procs = list(_running)
    for proc in procs:
        _send(proc, hard=False)
    for proc in procs:
        try:
            proc.wait(_GRACE_S)
        except subprocess.TimeoutExpired:
            _send(proc, hard=True)


def _kill(proc: subprocess.Popen[str]) -> None:
    _send(proc, hard=True)
    with contextlib.suppress(subprocess.TimeoutExpired, OSError, ValueError):
        proc.communicate(timeout=_GRACE_S)


def _send(proc: subprocess.Popen[str], hard: bool) -> None:
    """SIGKILL (``hard``) or SIGTERM to the child, or to its whole process group while it
    leads one (its pid cannot name another group before it is reaped, which happens only
    after this). On Windows, which has neither signal nor groups here, ``Popen.kill`` and
    ``Popen.terminate`` (both TerminateProcess)."""
    with contextlib.suppress(OSError):  # it has already exited
        if proc.pid in _leaders and proc.returncode is None:
            os.killpg(proc.pid, signal.SIGKILL if hard else signal.SIGTERM)
        elif hard:
            proc.kill()
        else:
            proc.terminate()


def _die_with_parent(own_group: bool = False) -> Optional[Callable[[], None]]:
    """A pre-exec hook asking Linux to SIGKILL the child when tfenv dies; None elsewhere.
    With ``own_group`` it first makes the child the leader of a new process group.

    SIGKILL, not SIGTERM: a child may handle SIGTERM by finishing what it waits for (uv
    waiting on an index that never answers), and nobody is left to read its answer. The
    hook only calls prctl(PR_SET_PDEATHSIG), resolved before the fork, and then checks
    that tfenv did not die in between (the request would come too late); it takes no
    lock in the child.
    """
    prctl = _prctl() if sys.platform.startswith("linux") else None
    if prctl is None:
        return _new_group if own_group else None

    parent = os.getpid()

    def hook() -> None:
        if own_group:
            os.setpgid(0, 0)
        prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL: a child whose tfenv is gone has no reader
        if os.getppid() != parent:  # tfenv died before the request took effect
            os._exit(1)

    return hook


def _new_group() -> None:
    os.setpgid(0, 0)


_PRCTL: list[Any] = []


def _prctl() -> Any:
    if not _PRCTL:
        try:
            import ctypes

            _PRCTL.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (OSError, AttributeError, ImportError):
            _PRCTL.append(None)
    return _PRCTL[0]
