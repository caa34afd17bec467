"""What can go wrong in the conda half of a lock (exit code 1)."""

from __future__ import annotations

from tfenv.errors import TfenvError

__all__ = [
    "CondaChannelError",
    "CondaLockError",
    "CondaLockUnavailableError",
    "CondaUnsatisfiableError",
]


class CondaLockError(TfenvError):
    """The conda half of a lock could not be made."""

    exit_code = 1


class CondaLockUnavailableError(CondaLockError):
    """py-rattler or conda-lock is not installed (or Python is older than 3.10)."""


class CondaUnsatisfiableError(CondaLockError):
    """The conda solver found no environment for the specs on the target."""

    def __init__(self, message: str, *, solver_message: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.solver_message = solver_message


class CondaChannelError(CondaLockError):
    """A channel's repodata could not be read (network, missing subdir, empty cache offline)."""
