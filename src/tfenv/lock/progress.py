"""What the user sees while targets lock: one line per target on a terminal, nothing in CI.

:func:`make_progress` picks the display; both kinds are thread-safe, since
targets lock concurrently. The terminal display writes through a callable the
command gives it, so this module never prints.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import Callable, Optional, Protocol

from tfenv.i18n import _

__all__ = ["NullProgress", "Progress", "TerminalProgress", "make_progress", "wants_display"]

_CI_VARS = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")


class Progress(Protocol):
    def start(self, name: str, what: str) -> None: ...

    def done(self, name: str, what: str) -> None: ...

    def failed(self, name: str, why: str) -> None: ...

    def close(self) -> None: ...


class NullProgress:
    """Says nothing (CI, pipes, --quiet)."""

    def start(self, name: str, what: str) -> None:
        return

    def done(self, name: str, what: str) -> None:
        return

    def failed(self, name: str, why: str) -> None:
        return

    def close(self) -> None:
        return


class TerminalProgress:
    """A block of lines, one per target, redrawn in place with ANSI cursor movement."""

    def __init__(
        self,
        names: Sequence[str],
        write: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._names = list(names)
        self._write = write
        self._clock = clock
        self._lock = threading.Lock()
        self._state = {n: _("waiting") for n in self._names}
        self._since: dict[str, float] = {}
        self._drawn = False
        self._width = max((len(n) for n in self._names), default=0)

    def start(self, name: str, what: str) -> None:
        with self._lock:
            self._since[name] = self._clock()
            self._set(name, _("{what}...").format(what=what))

    def done(self, name: str, what: str) -> None:
        with self._lock:
            self._set(
                name, _("done  {what} ({elapsed})").format(what=what, elapsed=self._elapsed(name))
            )

    def failed(self, name: str, why: str) -> None:
        with self._lock:
            first = why.splitlines()[0] if why else _("failed")
            self._set(
                name,
                _("FAILED {why} ({elapsed})").format(why=first[:100], elapsed=self._elapsed(name)),
            )

    def close(self) -> None:
        return

    def _elapsed(self, name: str) -> str:
        start = self._since.get(name)
        return "-" if start is None else f"{self._clock() - start:.1f}s"

    def _set(self, name: str, text: str) -> None:
        self._state[name] = text
        lines = [f"  {n.ljust(self._width)}  {self._state[n]}" for n in self._names]
        up = f"\x1b[{len(lines)}F" if self._drawn else ""
        self._write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
        self._drawn = True


def wants_display(is_tty: bool, environ: Mapping[str, str]) -> bool:
    """A live display only on a real terminal, never in CI or with TERM=dumb."""
    if not is_tty or environ.get("TERM") == "dumb":
        return False
    return not any(environ.get(v) for v in _CI_VARS)


def make_progress(
    names: Sequence[str],
    write: Callable[[str], None],
    is_tty: bool,
    environ: Mapping[str, str],
    quiet: Optional[bool] = False,
) -> Progress:
    if quiet or not wants_display(is_tty, environ):
        return NullProgress()
    return TerminalProgress(names, write)
