"""The environment's folder: claimed before anything is made, given back whole on failure.

- A folder that does not exist is created by the install and removed again if the install
  fails or is interrupted (SIGINT, SIGTERM, SIGHUP unwind through :meth:`Claim.rollback`).
- An existing folder is refused. With ``--force`` an environment tfenv created (it holds
  :data:`MARKER`, a regular file whose record says tfenv install wrote it) is moved
  aside, replaced, and deleted only once the new one is complete (put back if not); an
  empty folder is used; anything else is refused even with ``--force``: tfenv never
  deletes what it did not create.
- ``--keep-failed`` leaves a failed environment where it is, for inspection.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from pathlib import Path
from typing import Optional

from tfenv.errors import UsageError
from tfenv.fsutil import atomic_write, describe_oserror
from tfenv.i18n import _

__all__ = ["MARKER", "Claim", "claim"]

MARKER = ".tfenv-install.json"


class Claim:
    """What :func:`claim` found and did: ``state`` is ``new``, ``empty`` or ``replace``."""

    def __init__(self, folder: Path, state: str, keep_failed: bool) -> None:
        self.folder = folder
        self.state = state
        self.keep_failed = keep_failed
        self.old: Optional[Path] = None  # the replaced environment, until commit

    def take(self) -> None:
        """Move a replaced environment aside (the first change on disk)."""
        if self.state != "replace":
            return
        old = self.folder.with_name(f".{self.folder.name}.tfenv-old-{os.getpid()}")
        try:
            self.folder.rename(old)
        except OSError as exc:
            raise UsageError(
                _("Cannot move the old environment {folder} aside: {exc}.").format(
                    folder=self.folder, exc=describe_oserror(exc)
                )
            ) from None
        self.old = old

    def mark(self, about: dict[str, object]) -> None:
        """Record in the new environment that tfenv created it (what --force checks)."""
        text = json.dumps({"created-by": "tfenv install", **about}, indent=2, sort_keys=True)
        atomic_write(self.folder / MARKER, text + "\n")

    def commit(self) -> None:
        """The new environment is complete: delete the one it replaced."""
        if self.old is not None:
            shutil.rmtree(self.old, ignore_errors=True)
            self.old = None

    def rollback(self) -> str:
        """Remove what the install made (unless ``keep_failed``) and put back what it
        replaced; returns a sentence saying what was done."""
        if self.keep_failed:
            if self.old is not None:
                return _(
                    "The failed environment is kept in {folder} (--keep-failed); the one it "
                    "replaced is in {old}."
                ).format(folder=self.folder, old=self.old)
            return _("The failed environment is kept in {folder} (--keep-failed).").format(
                folder=self.folder
            )
        if self.state == "empty":
            _empty(self.folder)
        else:
            shutil.rmtree(self.folder, ignore_errors=True)
        said = _("Nothing is left in {folder}.").format(folder=self.folder)
        if self.state != "empty" and self.folder.exists():
            said = _("Could not remove all of {folder}; remove it by hand.").format(
                folder=self.folder
            )
        if self.old is not None:
            try:
                self.old.rename(self.folder)
                said = _("The previous environment in {folder} is back in place.").format(
                    folder=self.folder
                )
            except OSError as exc:
                said = _(
                    "The previous environment could not be put back ({why}); it is in {old}."
                ).format(why=describe_oserror(exc), old=self.old)
            self.old = None
        return said


def claim(folder: Path, *, force: bool, keep_failed: bool) -> Claim:
    """Check that the install may use ``folder`` (nothing changes on disk yet)."""
    try:
        is_link = folder.is_symlink()
        exists = folder.exists()
        is_dir = folder.is_dir()
    except (OSError, ValueError) as exc:
        raise UsageError(
            _("{folder}: {why}.").format(folder=folder, why=describe_oserror(exc))
        ) from None
    if not exists and not is_link:
        return Claim(folder, "new", keep_failed)
    if is_link or not is_dir:
        raise UsageError(
            _("{folder} exists and is not a folder; tfenv install does not replace it.").format(
                folder=folder
            ),
            hint=_("Choose another folder for the environment."),
        )
    try:
        entries = os.listdir(folder)
    except OSError as exc:
        raise UsageError(
            _("{folder}: {why}.").format(folder=folder, why=describe_oserror(exc))
        ) from None
    ours = _ours(folder)
    if not force:
        what = _("an environment tfenv created") if ours else _("a folder")
        raise UsageError(
            _(
                "{folder} already exists ({what}); tfenv install does not touch an existing folder."
            ).format(folder=folder, what=what),
            hint=_(
                "Give --force to replace an environment tfenv created, or choose another folder."
            ),
        )
    if not entries:
        return Claim(folder, "empty", keep_failed)
    if ours:
        return Claim(folder, "replace", keep_failed)
    raise UsageError(
        _(
            "{folder} exists and tfenv did not create it (no {marker} in it); --force "
            "replaces only environments tfenv created."
        ).format(folder=folder, marker=MARKER),
        hint=_("Remove it yourself, or choose another folder."),
    )


def _ours(folder: Path) -> bool:
    """Whether ``folder`` holds tfenv install's own marker: a regular file (not a link)
    whose record says ``tfenv install`` created the environment (what :meth:`Claim.mark`
    writes). A marker of another making, or one that cannot be read, is not ours."""
    from tfenv.fsutil import read_text

    marker = folder / MARKER
    try:
        if marker.is_symlink() or not marker.is_file():
            return False
        record = json.loads(read_text(marker, limit=64 * 1024))
    except (OSError, ValueError):
        return False
    return isinstance(record, dict) and record.get("created-by") == "tfenv install"


def _empty(folder: Path) -> None:
    """Remove what is in ``folder`` (a folder that was empty before the install)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
