"""tfenv.procs: a child started with ``own_group`` ends with everything it started."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from tfenv import procs

# a child that starts a grandchild (as ``python -m venv`` starts ensurepip's pip), says its
# pid and waits for it
PARENT = (
    "import subprocess, sys\n"
    "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
    "print(p.pid, flush=True)\n"
    "p.wait()\n"
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("own_group", [True, False])
def test_kill_reaches_the_grandchild_only_with_own_group(own_group: bool) -> None:
    proc = procs.start([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, own_group=own_group)
    assert proc.stdout is not None
    grandchild = int(proc.stdout.readline())
    try:
        assert os.getpgid(proc.pid) == (proc.pid if own_group else os.getpgid(0))
        procs.kill(proc)
        deadline = time.monotonic() + 5
        while _alive(grandchild) and time.monotonic() < deadline:
            time.sleep(0.05)
        # without a group of its own the grandchild outlives its parent (the bug this
        # option fixes: pip kept writing into the environment tfenv was removing)
        assert _alive(grandchild) is not own_group
    finally:
        procs.forget(proc)
        proc.stdout.close()
        if _alive(grandchild):
            os.kill(grandchild, 9)
