"""Commands as the machine's shell reads them (for ``--dry-run`` and the step log)."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence

__all__ = ["command"]


def command(argv: Sequence[str], os_name: str) -> str:
    """``argv`` written for the shell of ``os_name`` by tfenv's renderer
    (:mod:`tfenv.shells`). A Windows command it cannot write for both cmd.exe and
    PowerShell (a program path with a space, which PowerShell would read as a string) is
    shown as Windows programs parse their command line, for reading: install runs argv
    itself, never through a shell."""
    from tfenv.shells import UnsafeWord, shell_for
    from tfenv.shells import command as render

    try:
        return render(argv, shell_for(os_name))
    except UnsafeWord:
        return subprocess.list2cmdline(list(argv))
