"""Lock one target: its plan, locked by uv (pip routes) or py-rattler (conda routes),
rendered into its lockfiles with the header that records its inputs and pins.

:func:`lock_one` runs on a worker thread of :func:`tfenv.lock.lock_project`; the uv runs
it needs are shared between targets with equal inputs (``ctx.runs``, ``shared.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from tfenv.errors import LockError, TfenvError
from tfenv.i18n import _
from tfenv.lock import LockOptions, TargetFiles, shared_runs

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig, TargetSpec
    from tfenv.kb import KnowledgeBase
    from tfenv.lock.header import Inputs
    from tfenv.lock.progress import Progress
    from tfenv.lock.shared import SharedRuns
    from tfenv.models.plan import Resolution
    from tfenv.models.target import Target
    from tfenv.team import TeamResolution

__all__ = ["LockContext", "distinct_pip_specs", "lock_one"]


@dataclass(frozen=True)
class LockContext:
    """What every target's lock reads: the team's plans, the inputs, the uv runs."""

    config: ProjectConfig
    team: TeamResolution
    targets: dict[str, Target]
    kb_version: str
    options: LockOptions
    index_url: str
    uv_bin: Optional[str] = None  # found once, before the worker threads start
    runs: SharedRuns = field(default_factory=lambda: shared_runs(None))  # one uv run per input


def lock_one(kb: KnowledgeBase, ctx: LockContext, spec: TargetSpec, shown: Progress) -> TargetFiles:
    from tfenv import routes
    from tfenv.lock.header import lock_inputs

    res = ctx.team.by_target[spec.name]
    plan = res.plan
    assert plan is not None
    shown.start(spec.name, f"TensorFlow {plan.tensorflow} ({plan.route})")
    try:
        inputs = lock_inputs(ctx.config, ctx.targets, spec.name, ctx.kb_version)
        if routes.route(plan.route).locker == "conda":
            files = _conda_files(kb, ctx, spec, res, inputs)
        else:
            files = _pip_files(ctx, spec, res, inputs)
    except TfenvError as exc:
        shown.failed(spec.name, str(exc))
        raise
    except Exception as exc:  # a bug: shown here, then reported by the CLI's last resort
        shown.failed(spec.name, str(exc))
        raise
    shown.done(spec.name, ", ".join(n for n, _ in files))
    return TargetFiles(spec.name, plan.route, plan.tensorflow, tuple(files))


def _pip_spec(
    ctx: LockContext, res: Resolution, reqs: Sequence[str], cons: Sequence[str], py: str
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


def _target_pip_spec(ctx: LockContext, res: Resolution) -> Any:
    """The uv run that locks a pip-route target: equal for targets with equal inputs."""
    from tfenv.lock.pip import plan_requirements

    plan = res.plan
    assert plan is not None
    reqs, cons = plan_requirements(plan, ctx.config.dependencies)
    return _pip_spec(ctx, res, reqs, cons, _python_of(res))


def distinct_pip_specs(ctx: LockContext, names: Sequence[str]) -> list[Any]:
    from tfenv import routes

    found: dict[Any, None] = {}
    for name in names:
        res = ctx.team.by_target[name]
        if res.plan is None or routes.route(res.plan.route).locker == "conda":
            continue
        try:
            found.setdefault(_target_pip_spec(ctx, res))
        except TfenvError:
            continue  # the target's own run reports it
    return list(found)


def _python_of(res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    py = plan.python or (str(res.target.python) if res.target.python else None)
    if py is None:
        raise LockError(_("The plan names no Python version: give the target's python."))
    return py


def _pip_files(
    ctx: LockContext, spec: TargetSpec, res: Resolution, inputs: Inputs
) -> list[tuple[str, str]]:
    from tfenv.formats import pylock, requirements_txt
    from tfenv.formats.cuda_pins import cuda_pins
    from tfenv.lock.header import header_lines, stamp_content
    from tfenv.lock.pip import DEFAULT_GLIBC, python_platform

    plan = res.plan
    assert plan is not None
    py = _python_of(res)
    shared = ctx.runs.get(_target_pip_spec(ctx, res))
    notes = [f"Resolved by uv for {python_platform(res.target)}, Python {py}"]
    if res.target.platform.is_linux and res.target.glibc is None:
        notes.append(
            f"glibc not given: assumed {DEFAULT_GLIBC[0]}.{DEFAULT_GLIBC[1]} for wheel tags"
        )
    pinned = cuda_pins((p.name, str(p.version)) for p in shared.lock.packages if p.version)
    header = header_lines(ctx.config, res, spec.name, inputs.digest, notes, inputs.keys, pinned)
    tool = {"target": spec.name, "tensorflow": plan.tensorflow, "inputs-sha256": inputs.digest}
    lock = pylock.restamp(shared.lock, res.target, py, tool)
    pylock_text = pylock.render_pylock(lock, header, shared.packages_toml)
    return [
        (
            f"requirements.{spec.name}.txt",
            stamp_content(requirements_txt.render_locked(lock, header)),
        ),
        (f"pylock.{spec.name}.toml", stamp_content(pylock_text)),
    ]


def _conda_files(
    kb: KnowledgeBase, ctx: LockContext, spec: TargetSpec, res: Resolution, inputs: Inputs
) -> list[tuple[str, str]]:
    from tfenv import routes
    from tfenv.formats.cuda_pins import cuda_pins
    from tfenv.lock.conda import CondaLockSpec, lock_conda
    from tfenv.lock.header import header_lines, stamp_content
    from tfenv.textsafe import comment_block

    plan = res.plan
    assert plan is not None
    cspec = CondaLockSpec(channels=ctx.config.channels, cache_dir=None, offline=ctx.options.offline)
    result = lock_conda(res.target, plan, cspec, kb=kb, label=spec.name)
    pip_reqs = (plan.pip if routes.route(plan.route).pip_in_conda else ()) + ctx.config.dependencies
    if pip_reqs:
        result = result.with_pip(_conda_pip_packages(ctx, res, result, pip_reqs))
    pinned = cuda_pins(((p.name, p.version) for p in result.packages), conda=True)
    if not pinned:  # conda+pip: the CUDA wheels come from pip
        pinned = cuda_pins((p.name, p.version) for p in result.pip_packages)
    header = comment_block(
        header_lines(ctx.config, res, spec.name, inputs.digest, result.notes, inputs.keys, pinned)
    )
    return [
        (result.lock_file_name, stamp_content(header + result.lock_text)),
        (result.env_file_name, stamp_content(header + result.env_text)),
    ]


def _conda_pip_packages(
    ctx: LockContext, res: Resolution, result: Any, reqs: Sequence[str]
) -> list[Any]:
    """The pip half of a conda route: uv resolves what pip installs on top of conda,
    with every conda-provided package pinned as a constraint and left out."""
    from tfenv.lock.conda import LockedPipPackage

    conda_names = {p.name for p in result.packages}
    cons = tuple(f"{p.name}=={p.version}" for p in result.packages if p.name != "python")
    if res.plan is not None:  # what the release needs to run binds the project's packages too
        cons += tuple(c.line for c in res.plan.constraints)
    py = result.python_minor or _python_of(res)
    lock = ctx.runs.get(_pip_spec(ctx, res, reqs, cons, py)).lock
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
