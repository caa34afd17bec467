"""One uv run per distinct resolution: targets with equal inputs share its result.

Twelve Linux x86_64 GPU machines on one Python ask uv the same question (the same
``--python-platform``, ``--python-version``, requirements, constraints and index):
:class:`SharedRuns` answers it once and hands every such target the same validated
lock, and the same rendered package tables. What differs per target (its header,
its environment marker, its ``[tool.tfenv]`` table) is rendered per target, so the
files are byte for byte those that separate runs write.

Thread-safe: the first target to ask runs uv; the others wait for that answer
(or that failure) instead of starting their own run. Runs started ahead of planning
(``ahead.py``) answer the targets whose inputs turn out to be theirs; the rest are
cancelled.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
    from packaging.pylock import Pylock

    from tfenv.lock.pip import PipLockSpec, UvRun

__all__ = ["Resolved", "SharedRuns"]


@dataclass(frozen=True)
class Resolved:
    """A validated lock from one uv run, and its ``[[packages]]`` tables rendered once."""

    lock: Pylock
    packages_toml: str


class SharedRuns:
    """A memo of uv runs keyed by their complete input (:class:`PipLockSpec`)."""

    def __init__(
        self,
        environ: Optional[Mapping[str, str]] = None,
        started: Optional[Mapping[PipLockSpec, UvRun]] = None,
    ) -> None:
        self._environ = environ
        self._guard = threading.Lock()
        self._runs: dict[PipLockSpec, Future[Resolved]] = {}
        self._started = dict(started or {})

    @property
    def runs(self) -> int:
        """How many distinct resolutions were asked for."""
        return len(self._runs)

    @property
    def specs(self) -> tuple[PipLockSpec, ...]:
        """The distinct resolutions asked for, in the order first asked."""
        return tuple(self._runs)

    def get(self, spec: PipLockSpec, run: Optional[Callable[[], Resolved]] = None) -> Resolved:
        """The resolution for ``spec``: computed by the first caller, shared with the rest."""
        ahead: Optional[UvRun] = None
        with self._guard:
            found = self._runs.get(spec)
            owner = found is None
            if found is None:
                found = self._runs[spec] = Future()
                ahead = self._started.pop(spec, None)
        if owner:
            try:
                if ahead is not None:
                    found.set_result(_finish(ahead.result()))
                else:
                    found.set_result((run or (lambda: resolve(spec, self._environ)))())
            except BaseException as exc:
                found.set_exception(exc)
        return found.result()

    def cancel_unused(self) -> int:
        """Stop the runs started ahead that no target asked for; how many there were."""
        with self._guard:
            unused, self._started = list(self._started.values()), {}
        for run in unused:
            run.cancel()
        return len(unused)


def resolve(spec: PipLockSpec, environ: Optional[Mapping[str, str]] = None) -> Resolved:
    """Run uv once for ``spec``; validate its lock and render its package tables."""
    from tfenv.lock.pip import compile_pylock

    return _finish(compile_pylock(spec, environ))


def _finish(doc: Mapping[str, Any]) -> Resolved:
    from tfenv.formats import pylock

    lock = pylock.validate(doc)
    return Resolved(lock, pylock.render_packages(lock))
