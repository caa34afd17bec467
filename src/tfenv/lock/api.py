"""The Python API of ``tfenv lock`` (docs/api.md): :func:`lock` and :func:`check_lock`.

Re-exported from ``tfenv`` (``tfenv.lock(...)``, ``tfenv.check_lock(...)``). They take
what the command's flags give, return values (:class:`~tfenv.lock.LockOutcome`,
:class:`~tfenv.lock.CheckOutcome`) and raise :class:`~tfenv.errors.TfenvError`; they
print nothing: ``tfenv lock`` renders what they return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, Union

from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.lock import CheckOutcome, LockOptions, LockOutcome
    from tfenv.lock.progress import Progress

__all__ = ["check_lock", "lock"]


def lock(
    config: Union[str, Path] = ".",
    *,
    targets: Sequence[str] = (),
    out: Union[str, Path, None] = None,
    index_url: Optional[str] = None,
    cache_dir: Union[str, Path, None] = None,
    offline: bool = False,
    jobs: int = 4,
    timeout: float = 30.0,
    progress: Optional[Callable[[Sequence[str]], Progress]] = None,
    environ: Optional[Mapping[str, str]] = None,
    kb: Optional[KnowledgeBase] = None,
) -> LockOutcome:
    """Lock the team of the configuration ``config`` (tfenv.toml, pyproject.toml or a
    folder holding one): one TensorFlow version for every target (``targets``: only
    these), each target's lockfiles written to ``out`` (default: the configuration's
    ``out``, else its folder), all or none. ``progress`` makes the display for the
    targets' names. The uv runs the last lock of the same configuration needed start
    before the configuration is read (``tfenv.lock.ahead``)."""
    from tfenv.lock import ahead

    options = _options(targets, out, index_url, cache_dir, offline, jobs, timeout, environ)
    cache = None if options.cache_dir is None else str(options.cache_dir.resolve())
    key = ahead.run_key(Path(config), (options.only, index_url, cache, offline, timeout))
    started = ahead.start(key, max(1, jobs), options.environ)  # planning runs meanwhile
    try:
        from tfenv.config import load_config
        from tfenv.lock import lock_project

        project = load_config(config)
        kb = kb if kb is not None else _kb()
        shown = None
        if progress is not None:
            shown = progress([t.name for t in project.targets if not targets or t.name in targets])
        result = lock_project(kb, project, options, shown, started)
    finally:
        for run in started.values():
            run.cancel()  # those no target used (the others are done already)
    ahead.record(key, result.uv_runs)
    return result


def check_lock(
    config: Union[str, Path] = ".",
    *,
    targets: Sequence[str] = (),
    out: Union[str, Path, None] = None,
    kb: Optional[KnowledgeBase] = None,
) -> CheckOutcome:
    """Are the lockfiles of ``config`` exactly what :func:`lock` wrote, from the inputs
    of now? Writes nothing and needs no network: ``CheckOutcome.stale`` says which file
    is stale and why (``up_to_date`` is False then)."""
    from tfenv.config import load_config
    from tfenv.lock import check_project

    project = load_config(config)
    options = _options(targets, out)
    return check_project(kb if kb is not None else _kb(), project, options)


def _options(
    targets: Sequence[str],
    out: Union[str, Path, None],
    index_url: Optional[str] = None,
    cache_dir: Union[str, Path, None] = None,
    offline: bool = False,
    jobs: int = 4,
    timeout: float = 30.0,
    environ: Optional[Mapping[str, str]] = None,
) -> LockOptions:
    from tfenv.errors import UsageError
    from tfenv.lock import LockOptions

    if isinstance(targets, str):
        raise UsageError(
            _("targets={targets!r}: give a list of target names.").format(targets=targets)
        )
    if jobs < 1:
        raise UsageError(_("jobs={jobs}: at least 1 target is locked at a time.").format(jobs=jobs))
    if not timeout > 0:
        raise UsageError(
            _("timeout={timeout}: a number of seconds above 0.").format(timeout=timeout)
        )
    return LockOptions(
        out_dir=None if out is None else Path(out),
        only=tuple(targets),
        index_url=index_url,
        cache_dir=None if cache_dir is None else Path(cache_dir),
        offline=offline,
        jobs=jobs,
        timeout_s=timeout,
        environ=environ,  # None: os.environ
    )


def _kb() -> KnowledgeBase:
    from tfenv.kb import KnowledgeBase

    return KnowledgeBase.from_environment()
