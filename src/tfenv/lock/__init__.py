"""``tfenv lock``: lockfiles for every target of the team, from any machine.

Flow: :func:`plan_team` picks one TensorFlow version every target can run
(``tfenv.team``); :func:`lock_project` locks the targets concurrently (pip routes
through uv, ``pip.py``; conda routes through ``tfenv.lock.conda``), renders every
file in memory, and only when every target succeeded writes them all: temp files
first, then renames, so a failure leaves every existing lockfile untouched.
:func:`check_project` compares existing lockfiles with what they recorded when
written (a content digest) and with what the configuration and the knowledge base
give now (``check.py`` says which input changed). Submodules are imported inside
functions, so importing this package (for :class:`LockError`) costs nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Optional, Union

from tfenv.errors import LOCK_EXTRA_HINT, LockError, NoTeamVersion, TfenvError
from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.kb import KnowledgeBase
    from tfenv.lock.check import Stale
    from tfenv.lock.progress import Progress
    from tfenv.lock.shared import SharedRuns
    from tfenv.lock.target import LockContext
    from tfenv.team import TeamResolution

__all__ = [
    "LOCK_EXTRA_HINT",
    "CheckOutcome",
    "LockError",
    "LockOptions",
    "LockOutcome",
    "TargetFiles",
    "check_project",
    "expected_files",
    "lock_project",
    "lock_target",
    "plan_team",
]


@dataclass(frozen=True)
class LockOptions:
    """How to lock; the defaults suit the CLI."""

    out_dir: Optional[Path] = None  # None: the configuration's ``out``, else its folder
    only: tuple[str, ...] = ()  # lock only these targets (all when empty)
    index_url: Optional[str] = None  # overrides the configuration and the environment
    cache_dir: Optional[Path] = None  # uv's cache (shared by all targets); None: uv's default
    offline: bool = False
    jobs: int = 4
    timeout_s: float = 30.0
    retries: int = 3
    uv_bin: Optional[str] = None
    environ: Optional[Mapping[str, str]] = None  # None: os.environ

    def folder(self, config: ProjectConfig) -> Path:
        return self.out_dir if self.out_dir is not None else config.lock_folder


@dataclass(frozen=True)
class TargetFiles:
    """One target's lockfiles, rendered: file name -> text."""

    name: str
    route: str
    tensorflow: str
    files: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class LockOutcome:
    team: TeamResolution
    targets: tuple[TargetFiles, ...]
    written: tuple[Path, ...]
    resolutions: int = 0  # uv runs: targets with equal resolution inputs share one
    uv_runs: tuple[Any, ...] = ()  # their PipLockSpecs (what ahead.record keeps)
    folder: Optional[Path] = None  # where the lockfiles were written


@dataclass(frozen=True)
class CheckOutcome:
    ok: tuple[str, ...] = ()  # up-to-date lockfiles
    stale: tuple[Stale, ...] = field(default=())
    folder: Optional[Path] = None  # where the lockfiles were looked for

    @property
    def up_to_date(self) -> bool:
        return not self.stale

    @property
    def problems(self) -> tuple[str, ...]:
        """One line per stale file: the file, its target, and why."""
        return tuple(s.describe() for s in self.stale)


def plan_team(kb: KnowledgeBase, config: ProjectConfig) -> TeamResolution:
    """The team's TensorFlow version and each target's plan; NoTeamVersion when none."""
    from tfenv.team import team_resolve

    team = team_resolve(kb, config)
    if not team.ok:
        raise NoTeamVersion(
            team.explain(),
            hint=_("Drop or change the blocking target, or pin a TensorFlow version it runs."),
            details=team.explain_lines(),
            blockers=[b.to_dict() for b in team.blockers],
            limits=team.limits_json(),
        )
    return team


def expected_files(name: str, route: str) -> tuple[str, ...]:
    """The lockfile names a target's route produces."""
    from tfenv import routes

    return routes.route(route).lockfiles(name)


def lock_project(
    kb: KnowledgeBase,
    config: ProjectConfig,
    options: LockOptions = LockOptions(),
    progress: Optional[Progress] = None,
    started: Optional[Mapping[Any, Any]] = None,
) -> LockOutcome:
    """Lock every (selected) target; write all files only when all succeeded.

    ``started``: uv runs already under way (``ahead.start``), used by the targets whose
    planned run equals one of them in every input, cancelled otherwise."""
    from concurrent.futures import ThreadPoolExecutor  # here: uv can start before this import

    from tfenv.lock.progress import NullProgress
    from tfenv.lock.target import distinct_pip_specs, lock_one

    ctx = _context(kb, config, options, started=started)
    names = _selected(config, options)
    shown = progress or NullProgress()
    results: dict[str, TargetFiles] = {}
    failures: dict[str, str] = {}
    try:
        with ThreadPoolExecutor(max_workers=max(1, min(options.jobs, len(names)))) as pool:
            for pspec in distinct_pip_specs(ctx, names):  # each uv run once, before any waits
                pool.submit(ctx.runs.get, pspec)  # a failure reaches the targets that need it
            futures = {n: pool.submit(lock_one, kb, ctx, config.target(n), shown) for n in names}
            _prepare_rendering()  # while uv runs
            for name, fut in futures.items():
                try:
                    results[name] = fut.result()
                except TfenvError as exc:
                    failures[name] = str(exc)
    finally:
        ctx.runs.cancel_unused()
    shown.close()
    if failures:
        raise LockError(
            _(
                "Locking failed for {len_failures} of {len_names} target(s); no lockfile was "
                "written or changed."
            ).format(len_failures=len(failures), len_names=len(names)),
            failures=failures,
        )
    ordered = tuple(results[n] for n in names)
    files = [(name, text) for t in ordered for name, text in t.files]
    folder = options.folder(config)
    written = write_all(folder, files)
    return LockOutcome(ctx.team, ordered, written, ctx.runs.runs, ctx.runs.specs, folder)


def _prepare_rendering() -> None:
    """Import what rendering needs, on the main thread while the workers wait for uv."""
    import packaging.pylock  # noqa: F401

    import tfenv.formats.pylock
    import tfenv.formats.requirements_txt  # noqa: F401


def lock_target(
    kb: KnowledgeBase, config: ProjectConfig, name: str, options: LockOptions = LockOptions()
) -> TargetFiles:
    """One target's files, rendered but not written (for tests and tools)."""
    from tfenv.lock.progress import NullProgress
    from tfenv.lock.target import lock_one

    ctx = _context(kb, config, options)
    return lock_one(kb, ctx, config.target(name), NullProgress())


def check_project(
    kb: KnowledgeBase, config: ProjectConfig, options: LockOptions = LockOptions()
) -> CheckOutcome:
    """Are the lockfiles on disk exactly what ``tfenv lock`` wrote, from the inputs of now?"""
    from tfenv.lock.check import check_file
    from tfenv.lock.header import lock_inputs

    ctx = _context(kb, config, options, need_index=False)
    folder = options.folder(config)
    ok: list[str] = []
    stale: list[Stale] = []
    for name in _selected(config, options):
        res = ctx.team.by_target[name]
        assert res.plan is not None
        inputs = lock_inputs(config, ctx.targets, name, ctx.kb_version)
        for file_name in expected_files(name, res.plan.route):
            found = check_file(folder / file_name, name, inputs)
            if found is None:
                ok.append(file_name)
            else:
                stale.append(found)
    return CheckOutcome(tuple(ok), tuple(stale), folder)


def write_all(folder: Path, files: Sequence[tuple[str, str]]) -> tuple[Path, ...]:
    """Write every file or none (``fsutil.replace_all``: staged, backed up, restored on error)."""
    from tfenv.fsutil import describe_oserror, replace_all

    try:
        written = replace_all(folder, [(name, text.encode("utf-8")) for name, text in files])
    except OSError as exc:
        raise LockError(
            _("Cannot write the lockfiles in {folder}: {exc}. No lockfile was changed.").format(
                folder=folder, exc=describe_oserror(exc)
            )
        ) from None
    return tuple(written)


def _context(
    kb: KnowledgeBase,
    config: ProjectConfig,
    options: LockOptions,
    need_index: bool = True,
    started: Optional[Mapping[Any, Any]] = None,
) -> LockContext:
    from tfenv.lock.header import kb_data_version
    from tfenv.team import build_targets

    team = plan_team(kb, config)
    targets = build_targets(kb, config.targets)
    index_url = ""
    uv_bin = None
    if need_index:
        from tfenv.index_url import configured_index_url
        from tfenv.lock.pip import find_uv

        uv_bin = options.uv_bin or find_uv()

        index_url = options.index_url or config.index_url or ""
        if not index_url:
            index_url, _source = configured_index_url(None, options.environ)
    version = kb_data_version(kb)
    runs = shared_runs(options.environ, started)
    from tfenv.lock.target import LockContext

    return LockContext(config, team, targets, version, options, index_url, uv_bin, runs)


def shared_runs(
    environ: Optional[Mapping[str, str]], started: Optional[Mapping[Any, Any]] = None
) -> SharedRuns:
    from tfenv.lock.shared import SharedRuns

    return SharedRuns(environ, started)


def _selected(config: ProjectConfig, options: LockOptions) -> list[str]:
    names = [t.name for t in config.targets]
    if not options.only:
        return names
    for n in options.only:
        config.target(n)  # raises UsageError naming the known targets
    return [n for n in names if n in options.only]


class _Package(ModuleType):
    """``tfenv.lock(...)`` is the Python API's :func:`tfenv.lock.api.lock` (docs/api.md).

    ``tfenv.lock`` is this package whenever any of its modules was imported (Python sets
    the attribute), so the function cannot take the name: the package itself is callable.
    """

    def __call__(
        self, config: Union[str, Path] = ".", /, **options: Any
    ) -> LockOutcome:  # the keywords of tfenv.lock.api.lock
        from tfenv.lock.api import lock

        return lock(config, **options)


sys.modules[__name__].__class__ = _Package
