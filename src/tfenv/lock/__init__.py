"""``tfenv lock``: lockfiles for every target of the team, from any machine.

Flow: :func:`plan_team` picks one TensorFlow version every target can run
(``tfenv.team``); :func:`lock_project` locks the targets concurrently (pip routes
through uv, ``pip.py``; conda routes through ``tfenv.lock.conda``), renders every
file in memory, and only when every target succeeded writes them all: temp files
first, then renames, so a failure leaves every existing lockfile untouched.
:func:`check_project` compares existing lockfiles' headers with what the
configuration and the knowledge base give now. Submodules are imported inside
functions, so importing this package (for :class:`LockError`) costs nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tfenv.errors import TfenvError, UnsatisfiableError

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig, TargetSpec
    from tfenv.kb import KnowledgeBase
    from tfenv.lock.progress import Progress
    from tfenv.resolver.plan import Resolution
    from tfenv.resolver.target import Target
    from tfenv.team import TeamResolution

__all__ = [
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


class LockError(TfenvError):
    """Locking failed (uv, the index, a target, a file): exit code 1."""

    reference = "lock-failed"
    exit_code = 1


@dataclass(frozen=True)
class LockOptions:
    """How to lock; the defaults suit the CLI."""

    out_dir: Optional[Path] = None  # None: the configuration's folder
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
        return self.out_dir if self.out_dir is not None else config.folder


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


@dataclass(frozen=True)
class CheckOutcome:
    ok: tuple[str, ...] = ()  # up-to-date lockfiles
    problems: tuple[str, ...] = field(default=())

    @property
    def up_to_date(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class _Context:
    config: ProjectConfig
    team: TeamResolution
    targets: dict[str, Target]
    kb_version: str
    options: LockOptions
    index_url: str
    uv_bin: Optional[str] = None  # found once, before the worker threads start


def plan_team(kb: KnowledgeBase, config: ProjectConfig) -> TeamResolution:
    """The team's TensorFlow version and each target's plan; UnsatisfiableError when none."""
    from tfenv.team import team_resolve

    team = team_resolve(kb, config)
    if not team.ok:
        raise UnsatisfiableError(
            team.explain(),
            hint="Drop or change the blocking target, or pin a TensorFlow version it runs.",
        )
    return team


def expected_files(name: str, route: str) -> tuple[str, ...]:
    """The lockfile names a target's route produces."""
    from tfenv.resolver.routes import CONDA_ROUTES

    if route in CONDA_ROUTES:
        return (f"conda-lock.{name}.yml", f"environment.{name}.yml")
    return (f"requirements.{name}.txt", f"pylock.{name}.toml")


def lock_project(
    kb: KnowledgeBase,
    config: ProjectConfig,
    options: LockOptions = LockOptions(),
    progress: Optional[Progress] = None,
) -> LockOutcome:
    """Lock every (selected) target; write all files only when all succeeded."""
    from tfenv.lock.progress import NullProgress

    ctx = _context(kb, config, options)
    names = _selected(config, options)
    shown = progress or NullProgress()
    results: dict[str, TargetFiles] = {}
    failures: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=max(1, min(options.jobs, len(names)))) as pool:
        futures = {n: pool.submit(_lock_one, kb, ctx, config.target(n), shown) for n in names}
        for name, fut in futures.items():
            try:
                results[name] = fut.result()
            except TfenvError as exc:
                failures[name] = str(exc)
    shown.close()
    if failures:
        raise LockError(_failure_message(failures, len(names)))
    ordered = tuple(results[n] for n in names)
    files = [(name, text) for t in ordered for name, text in t.files]
    written = write_all(options.folder(config), files)
    return LockOutcome(ctx.team, ordered, written)


def lock_target(
    kb: KnowledgeBase, config: ProjectConfig, name: str, options: LockOptions = LockOptions()
) -> TargetFiles:
    """One target's files, rendered but not written (for tests and tools)."""
    from tfenv.lock.progress import NullProgress

    ctx = _context(kb, config, options)
    return _lock_one(kb, ctx, config.target(name), NullProgress())


def check_project(
    kb: KnowledgeBase, config: ProjectConfig, options: LockOptions = LockOptions()
) -> CheckOutcome:
    """Do the lockfiles on disk still match the configuration and the knowledge base?"""
    from tfenv.lock.header import inputs_hash, read_inputs_hash

    ctx = _context(kb, config, options, need_index=False)
    folder = options.folder(config)
    ok: list[str] = []
    problems: list[str] = []
    for name in _selected(config, options):
        res = ctx.team.by_target[name]
        assert res.plan is not None
        want = inputs_hash(config, ctx.targets, name, ctx.kb_version)
        for file_name in expected_files(name, res.plan.route):
            path = folder / file_name
            found = read_inputs_hash(path)
            if not path.is_file():
                problems.append(f"{file_name}: missing (target '{name}')")
            elif found is None:
                problems.append(f"{file_name}: no tfenv header (not written by tfenv lock)")
            elif found != want:
                problems.append(
                    f"{file_name}: out of date (the configuration or the knowledge base changed)"
                )
            else:
                ok.append(file_name)
    return CheckOutcome(tuple(ok), tuple(problems))


def write_all(folder: Path, files: Sequence[tuple[str, str]]) -> tuple[Path, ...]:
    """Write every file or none (``fsutil.replace_all``: staged, backed up, restored on error)."""
    from tfenv.fsutil import describe_oserror, replace_all

    try:
        written = replace_all(folder, [(name, text.encode("utf-8")) for name, text in files])
    except OSError as exc:
        raise LockError(
            f"Cannot write the lockfiles in {folder}: {describe_oserror(exc)}. "
            "No lockfile was changed."
        ) from None
    return tuple(written)


def _context(
    kb: KnowledgeBase, config: ProjectConfig, options: LockOptions, need_index: bool = True
) -> _Context:
    from tfenv.lock.header import kb_data_version
    from tfenv.team import build_targets

    team = plan_team(kb, config)
    targets = build_targets(kb, config.targets)
    index_url = ""
    uv_bin = None
    if need_index:
        from tfenv.kb._index_url import configured_index_url
        from tfenv.lock.pip import find_uv

        uv_bin = options.uv_bin or find_uv()

        index_url = options.index_url or config.index_url or ""
        if not index_url:
            index_url, _source = configured_index_url(None, options.environ)
    return _Context(config, team, targets, kb_data_version(kb), options, index_url, uv_bin)


def _selected(config: ProjectConfig, options: LockOptions) -> list[str]:
    names = [t.name for t in config.targets]
    if not options.only:
        return names
    for n in options.only:
        config.target(n)  # raises UsageError naming the known targets
    return [n for n in names if n in options.only]


def _lock_one(kb: KnowledgeBase, ctx: _Context, spec: TargetSpec, shown: Progress) -> TargetFiles:
    from tfenv.resolver.routes import CONDA_ROUTES

    res = ctx.team.by_target[spec.name]
    plan = res.plan
    assert plan is not None
    shown.start(spec.name, f"TensorFlow {plan.tensorflow} ({plan.route})")
    try:
        if plan.route in CONDA_ROUTES:
            files = _conda_files(kb, ctx, spec, res)
        else:
            files = _pip_files(ctx, spec, res)
    except TfenvError as exc:
        shown.failed(spec.name, str(exc))
        raise
    except Exception as exc:  # a bug: shown here, then reported by the CLI's last resort
        shown.failed(spec.name, str(exc))
        raise
    shown.done(spec.name, ", ".join(n for n, _ in files))
    return TargetFiles(spec.name, plan.route, plan.tensorflow, tuple(files))


def _header(ctx: _Context, spec: TargetSpec, res: Resolution, notes: Sequence[str]) -> list[str]:
    from tfenv.lock.header import header_lines, inputs_hash

    digest = inputs_hash(ctx.config, ctx.targets, spec.name, ctx.kb_version)
    return header_lines(ctx.config, res, spec.name, digest, notes)


def _pip_spec(
    ctx: _Context, res: Resolution, reqs: Sequence[str], cons: Sequence[str], py: str
) -> Any:
    from tfenv.lock.pip import PipLockSpec, python_platform

    o = ctx.options
    return PipLockSpec(
        index_url=ctx.index_url,
        python_version=py,
        python_platform=python_platform(res.target),
        requirements=tuple(reqs),
        constraints=tuple(cons),
        cache_dir=o.cache_dir,
        offline=o.offline,
        timeout_s=o.timeout_s,
        retries=o.retries,
        uv_bin=ctx.uv_bin or o.uv_bin,
    )


def _python_of(res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    py = plan.python or (str(res.target.python) if res.target.python else None)
    if py is None:
        raise LockError("The plan names no Python version: give the target's python.")
    return py


def _pip_files(ctx: _Context, spec: TargetSpec, res: Resolution) -> list[tuple[str, str]]:
    from tfenv.lock import pylock
    from tfenv.lock.pip import DEFAULT_GLIBC, compile_pylock, plan_requirements, python_platform

    plan = res.plan
    assert plan is not None
    py = _python_of(res)
    reqs, cons = plan_requirements(plan, ctx.config.dependencies)
    pspec = _pip_spec(ctx, res, reqs, cons, py)
    doc = compile_pylock(pspec, ctx.options.environ)
    lock = pylock.validate(doc)
    notes = [f"Resolved by uv for {python_platform(res.target)}, Python {py}"]
    if res.target.platform.startswith("linux") and res.target.glibc is None:
        notes.append(
            f"glibc not given: assumed {DEFAULT_GLIBC[0]}.{DEFAULT_GLIBC[1]} for wheel tags"
        )
    header = _header(ctx, spec, res, notes)
    digest = header[-1].split("sha256:")[-1]
    tool = {"target": spec.name, "tensorflow": plan.tensorflow, "inputs-sha256": digest}
    lock = pylock.restamp(lock, res.target, py, tool)
    return [
        (f"requirements.{spec.name}.txt", pylock.render_requirements(lock, header)),
        (f"pylock.{spec.name}.toml", pylock.render_pylock(lock, header)),
    ]


def _conda_files(
    kb: KnowledgeBase, ctx: _Context, spec: TargetSpec, res: Resolution
) -> list[tuple[str, str]]:
    from tfenv.lock.conda import CondaLockSpec, lock_conda

    plan = res.plan
    assert plan is not None
    cspec = CondaLockSpec(channels=ctx.config.channels, cache_dir=None, offline=ctx.options.offline)
    result = lock_conda(res.target, plan, cspec, kb=kb, label=spec.name)
    pip_reqs = (plan.pip if plan.route == "conda+pip" else ()) + ctx.config.dependencies
    if pip_reqs:
        result = result.with_pip(_conda_pip_packages(ctx, res, result, pip_reqs))
    from tfenv.textsafe import comment_block

    header = comment_block(_header(ctx, spec, res, result.notes))
    return [
        (result.lock_file_name, header + result.lock_text),
        (result.env_file_name, header + result.env_text),
    ]


def _conda_pip_packages(
    ctx: _Context, res: Resolution, result: Any, reqs: Sequence[str]
) -> list[Any]:
    """The pip half of a conda route: uv resolves what pip installs on top of conda,
    with every conda-provided package pinned as a constraint and left out."""
    from tfenv.lock import pylock
    from tfenv.lock.conda import LockedPipPackage
    from tfenv.lock.pip import compile_pylock

    conda_names = {p.name for p in result.packages}
    cons = tuple(f"{p.name}=={p.version}" for p in result.packages if p.name != "python")
    py = result.python_minor or _python_of(res)
    lock = pylock.validate(compile_pylock(_pip_spec(ctx, res, reqs, cons, py), ctx.options.environ))
    out = []
    for pkg in lock.packages:
        if pkg.name in conda_names or not pkg.wheels or pkg.version is None:
            continue
        wheel = pkg.wheels[0]
        out.append(
            LockedPipPackage(
                name=pkg.name,
                version=str(pkg.version),
                url=str(wheel.url),
                sha256=(wheel.hashes or {}).get("sha256"),
            )
        )
    return out


def _failure_message(failures: Mapping[str, str], total: int) -> str:
    head = (
        f"Locking failed for {len(failures)} of {total} target(s); "
        "no lockfile was written or changed."
    )
    return head + " " + " ".join(f"Target '{n}': {why}" for n, why in failures.items())
