"""What ``tfenv install`` installs: a plan for this machine, or a target's lockfile.

A plan comes from the solver exactly as ``tfenv resolve`` makes it (the command builds the
request and the target). A lockfile comes with the project's configuration: its target's
plan (planned with the team, as ``tfenv lock`` did) gives the Python, the route and the
variables, the lockfile gives the packages, each checked against its hash. A lockfile
edited by hand since ``tfenv lock`` wrote it, one without hashes, or one for another
kind of machine is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from tfenv.errors import UsageError
from tfenv.i18n import _
from tfenv.install import InstallError
from tfenv.models.platform import os_title

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Plan, Resolution

__all__ = ["Source", "check_machine", "from_lock", "from_resolution", "lock_target_name"]

_LOCK_NAME = re.compile(r"^(?:requirements|conda-lock|pylock)\.([A-Za-z0-9][A-Za-z0-9_-]*)\.")


@dataclass(frozen=True)
class Source:
    res: Resolution
    lock: Optional[Path] = None  # the hashed lockfile to install, if any
    target: Optional[str] = None  # its target in the project's configuration
    stale: tuple[str, ...] = ()  # why the lockfile is stale, installed with --allow-stale

    @property
    def plan(self) -> Plan:
        assert self.res.plan is not None
        return self.res.plan

    def describe(self) -> str:
        if self.lock is None:
            return _("the plan for this machine: {summary}").format(summary=self.plan.summary())
        return _("{lock} (target '{target}'): {summary}").format(
            lock=self.lock, target=self.target, summary=self.plan.summary()
        )


def from_resolution(res: Resolution) -> Source:
    """The plan to install; :class:`InstallError` with the conflicts when nothing fits."""
    if res.plan is None:
        raise InstallError(
            _("Nothing fits this machine, so there is nothing to install."),
            hint=_("'tfenv resolve' with the same flags shows why and the ways out."),
            details=(
                *res.conflict_sentences,
                *(_("way out: {way}").format(way=s) for s in res.suggestion_sentences),
            ),
        )
    if res.plan.image is not None:
        raise UsageError(
            _(
                "The container route plans a Docker image; tfenv install makes environments on "
                "this machine."
            ),
            hint=_("Use 'tfenv resolve --manager container --emit DIR' and build the image."),
        )
    return Source(res)


def lock_target_name(path: Path) -> Optional[str]:
    """The target a lockfile's name says (``requirements.gpu.txt`` -> ``gpu``)."""
    m = _LOCK_NAME.match(path.name)
    return m.group(1) if m else None


def from_lock(
    kb: KnowledgeBase,
    config: ProjectConfig,
    target: Optional[str],
    lock: Optional[Path],
    allow_stale: bool = False,
) -> Source:
    """``--target NAME`` (its lockfile in the configuration's lock folder) and/or
    ``--lock FILE`` (its target from its name). A lockfile whose inputs changed since
    ``tfenv lock`` wrote it (what ``tfenv lock --check`` reports: the configuration, a
    target's facts, the knowledge base of another tfenv version) is refused unless
    ``allow_stale``; one edited by hand is refused always."""
    from tfenv.lock import expected_files, plan_team

    name = target or (lock_target_name(lock) if lock is not None else None)
    if name is None:
        raise UsageError(
            _(
                "--lock {lock}: its name does not say its target (tfenv lock writes "
                "requirements.TARGET.txt); give --target NAME too."
            ).format(lock=lock)
        )
    config.target(name)  # an unknown name is a usage error naming the known ones
    team = plan_team(kb, config)
    res = team.by_target[name]
    source = from_resolution(res)
    files = expected_files(name, source.plan.route)
    path = lock if lock is not None else config.lock_folder / files[0]
    _check_lock(path, files[0])
    stale = _stale(kb, config, name, path)
    if stale and not allow_stale:
        raise UsageError(
            _(
                "{path} is stale: {why}. tfenv install installs a lockfile that matches the "
                "project's configuration (what 'tfenv lock --check' checks)."
            ).format(path=path, why=_("; ").join(stale)),
            hint=_("Lock again ({command}), or install it as it is with --allow-stale.").format(
                command=_relock(config)
            ),
        )
    return Source(res, path, name, stale)


def _stale(kb: KnowledgeBase, config: ProjectConfig, name: str, path: Path) -> tuple[str, ...]:
    """Why the lockfile at ``path`` no longer matches its inputs (as ``tfenv lock --check``
    words it); empty when it does, or when it has no tfenv header to tell."""
    from tfenv.lock.check import input_changes
    from tfenv.lock.header import kb_data_version, lock_inputs, read_stamp
    from tfenv.team import build_targets

    stamp = read_stamp(path)
    if stamp is None or stamp.inputs is None:
        return ()
    inputs = lock_inputs(config, build_targets(kb, config.targets), name, kb_data_version(kb))
    if stamp.inputs == inputs.digest:
        return ()
    return tuple(input_changes(stamp.keys, inputs.keys, name)) or (
        _("its inputs changed (the configuration or the knowledge base)"),
    )


def _relock(config: ProjectConfig) -> str:
    import sys

    from tfenv.install.shell import command

    argv = ["tfenv", "lock", "--config", str(config.path)]
    return command(argv, "windows" if sys.platform == "win32" else "linux")


def _check_lock(path: Path, expected: str) -> None:
    from tfenv.fsutil import InputFileError, read_text
    from tfenv.lock.header import read_stamp

    try:
        text = read_text(path, limit=64 * 1024 * 1024)
    except InputFileError as exc:
        raise UsageError(
            _("The lockfile {path} cannot be read ({exc}).").format(path=path, exc=exc)
        ) from None
    except OSError as exc:
        from tfenv.fsutil import describe_oserror

        raise UsageError(
            _("The lockfile {path} cannot be read: {exc}.").format(
                path=path, exc=describe_oserror(exc)
            )
        ) from None
    if expected.startswith("requirements.") and "--hash" not in text:
        raise UsageError(
            _(
                "{path} has no --hash lines; tfenv install installs lockfiles with every file "
                "checked against its hash."
            ).format(path=path),
            hint=_("Write it with 'tfenv lock'."),
        )
    stamp = read_stamp(path)
    if stamp is not None and stamp.edited:
        raise UsageError(
            _("{path} was edited since tfenv lock wrote it (its content digest differs).").format(
                path=path
            ),
            hint=_("Regenerate it with 'tfenv lock' ('tfenv lock --check' says what changed)."),
        )


def check_machine(res: Resolution, here: HostProfile) -> None:
    """A plan (or a lock) for another kind of machine is not installed here."""
    t = res.target
    if (t.os, t.arch) != (here.os, here.arch):
        raise UsageError(
            _(
                "This plan is for {os} {arch}, and this machine is {os2} {arch2}; tfenv install"
                " installs on this machine."
            ).format(os=os_title(t.os), arch=t.arch, os2=os_title(here.os), arch2=here.arch),
            hint=_(
                "Drop --os/--arch (or pick the lock of a target like this machine); --dry-run "
                "shows the steps for another machine."
            ),
        )
