"""Commands as the machine's shell reads them (for ``--dry-run`` and the step log)."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence

__all__ = ["command"]


def command(argv: Sequence[str], os_name: str) -> str:
    """``argv`` written for the shell of ``os_name``: POSIX words (Linux, WSL2, macOS), or
    the quoting Windows programs parse (native Windows)."""
    if os_name == "windows":
        return subprocess.list2cmdline(list(argv))
    return shlex.join(argv)
