"""One error hierarchy for everything tfenv reports to a user.

Library code raises these with all the text a user needs, worded in the current language
(:mod:`tfenv.i18n`) where they are raised; only the CLI turns them into a message and an
exit code (see ``cli.py``). Nothing here imports any other tfenv module but
:mod:`tfenv.i18n`.
"""

from __future__ import annotations

from tfenv.i18n import N_, _

TYPE_CHECKING = False  # typing is not imported: `tfenv --version` reads this module
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any, Optional

__all__ = [
    "LOCK_EXTRA_HINT",
    "CondaChannelError",
    "CondaLockError",
    "CondaLockUnavailableError",
    "CondaUnsatisfiableError",
    "ConfigError",
    "DetectionError",
    "IndexUnreachable",
    "InstallError",
    "KBValidationError",
    "LockError",
    "NoTeamVersion",
    "SolverGaveUp",
    "TfenvError",
    "UnsafeWord",
    "UnsatisfiableError",
    "UsageError",
]


class TfenvError(Exception):
    """Base class: ``message`` is one paragraph, ``hint`` an optional way out.

    ``exit_code`` is what the CLI returns: 2 for bad input, 1 for a valid
    question with no answer.
    """

    exit_code = 2

    def __init__(
        self, message: str, *, hint: str | None = None, details: tuple[str, ...] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = details  # lines shown one each under the paragraph (one per target)

    @property
    def paragraph(self) -> str:
        """The message and the hint, one paragraph."""
        if not self.hint:
            return self.message
        # TRANSLATORS: an error's message and its hint, one paragraph (Chinese needs no space)
        return _("{message} {hint}").format(message=self.message, hint=self.hint)

    def __str__(self) -> str:
        return "\n".join([self.paragraph, *(f"  {d}" for d in self.details)])


class UsageError(TfenvError):
    """A flag or argument the user gave cannot be understood."""


class UnsafeWord(UsageError):
    """A word that cannot be written so that cmd.exe and PowerShell both read it unchanged
    (raised by :mod:`tfenv.shells`)."""


class KBValidationError(TfenvError):
    """A knowledge-base data file is malformed; names the file and the path inside it."""

    def __init__(self, file: str, path: str, problem: str) -> None:
        if path:
            message = _("The knowledge-base file {file}: at {path}: {problem}.")
        else:
            message = _("The knowledge-base file {file}: {problem}.")
        super().__init__(message.format(file=file, path=path, problem=problem))
        self.file = file
        self.path = path
        self.problem = problem


class ConfigError(TfenvError):
    """A configuration or host file is malformed; ``key`` is the dotted key at fault
    (``""`` for the whole file)."""

    def __init__(self, message: str, *, key: str = "", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.key = key


class DetectionError(TfenvError):
    """Reading the host failed in a way the user must hear about."""


class IndexUnreachable(TfenvError):
    """The package index could not be read (network, HTTP status, bad body)."""

    exit_code = 1


class UnsatisfiableError(TfenvError):
    """A valid request that no TensorFlow stack satisfies."""

    exit_code = 1


class NoTeamVersion(UnsatisfiableError):
    """A team without a common TensorFlow version: a short paragraph, a few
    ``details`` lines per target, and the same as values for ``--json`` (``blockers``,
    ``limits``: :mod:`tfenv.team`'s ``to_dict()`` values)."""

    def __init__(
        self,
        message: str,
        *,
        hint: Optional[str] = None,
        details: tuple[str, ...] = (),
        blockers: Sequence[Mapping[str, Any]] = (),
        limits: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        super().__init__(message, hint=hint, details=details)
        self.blockers = list(blockers)
        self.limits = list(limits)


# the English text: translate it where it is used, _(LOCK_EXTRA_HINT); the requirements in
# double quotes, which bash, zsh, cmd.exe and PowerShell all read the same (not single ones:
# cmd.exe passes them on, and pip refuses "'tfenv[lock]'")
LOCK_EXTRA_HINT = N_(
    'Install tfenv\'s lock extra: pip install "tfenv[lock]" where tfenv is on your index; '
    'in a checkout of tfenv, pip install -e ".[lock]"; from a wheel, '
    'pip install "./tfenv-<version>-py3-none-any.whl[lock]" (docs/lock.md).'
)


class InstallError(TfenvError):
    """``tfenv install``: a step failed, or the machine lacks what the route needs: exit
    code 1."""

    exit_code = 1


class LockError(TfenvError):
    """Locking failed (uv, the index, a target, a file): exit code 1.

    ``failures`` maps each failing target to what went wrong (empty when the failure
    is not one target's)."""

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        hint: Optional[str] = None,
        failures: Optional[Mapping[str, str]] = None,
    ) -> None:
        failed = dict(failures or {})
        details = tuple(
            _("target '{target}': {why}").format(target=n, why=why) for n, why in failed.items()
        )
        super().__init__(message, hint=hint, details=details)
        self.failures = failed


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


class SolverGaveUp(UnsatisfiableError):
    """The solver hit its round limit (resolvelib's ``ResolutionTooDeep``) without an answer."""

    def __init__(self, rounds: int) -> None:
        super().__init__(
            _(
                "The solver gave up after {rounds} rounds without an answer for this machine."
            ).format(rounds=rounds),
            hint=_(
                "Narrow the request (--tf, --python or --manager, e.g. --tf 2.15) and try again."
            ),
        )
        self.rounds = rounds
