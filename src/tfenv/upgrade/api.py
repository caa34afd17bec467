"""The Python API of ``tfenv check-upgrade`` (docs/api.md): :func:`check_upgrade`.

Re-exported from ``tfenv`` (``tfenv.check_upgrade(...)``). It takes what the command's
flags give and returns an :class:`~tfenv.upgrade.model.UpgradeReport` (findings as
values; ``report.exit_code(strict)`` is the command's exit status); bad input raises
:class:`~tfenv.errors.TfenvError`. Nothing is printed: ``tfenv check-upgrade`` renders
the report (``tfenv.upgrade.render``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Optional, Union

from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import MachineArgs
    from tfenv.upgrade.assess import Move, TargetInput
    from tfenv.upgrade.current import CurrentSource, CurrentState
    from tfenv.upgrade.model import TargetReport, UpgradeReport

__all__ = ["check_upgrade"]


def check_upgrade(
    to: str = "latest",
    *,
    from_version: Optional[str] = None,
    from_files: Sequence[Union[str, Path]] = (),
    from_env: Union[str, Path, Literal[True], None] = None,
    config: Union[str, Path, None] = None,
    targets: Sequence[str] = (),
    os: Optional[str] = None,
    arch: Optional[str] = None,
    gpu: Optional[str] = None,
    cc: Optional[str] = None,
    driver: Optional[str] = None,
    glibc: Optional[str] = None,
    python: Optional[str] = None,
    host: Union[str, Path, None] = None,
    gpu_index: Optional[int] = None,
    no_gpu: bool = False,
    machine: Optional[MachineArgs] = None,
    manager: str = "auto",
    allow_cpu: bool = False,
    pre: bool = False,
    allow_downgrade: bool = False,
    relock: bool = False,
    index_url: Optional[str] = None,
    offline: bool = False,
    kb: Optional[KnowledgeBase] = None,
) -> UpgradeReport:
    """What moving to TensorFlow ``to`` (``latest``, a series, a release or a specifier)
    means on each machine: what ``tfenv check-upgrade`` answers.

    The current version comes from one of ``from_version``, ``from_files`` (lockfiles or
    folders of them), ``from_env`` (a venv or conda prefix; ``True``: this interpreter)
    or, when none is given, the project configuration's lockfiles or version. The
    machines are the one the machine facts (as for :func:`tfenv.resolve`) describe, else
    the configuration's targets (``targets``: only these), else this machine.
    ``relock`` diffs every pin against a fresh lock (the package index, as ``tfenv
    lock``)."""
    from tfenv.upgrade import inputs
    from tfenv.upgrade.model import UpgradeReport

    if sum([from_version is not None, bool(from_files), from_env is not None]) > 1:
        raise _usage("Give one of from_version, from_files and from_env.")
    m = _machine(machine, host, os, arch, gpu, cc, no_gpu, driver, glibc, python, gpu_index)
    one = isinstance(from_files, (str, Path))
    files = [Path(from_files)] if one else [Path(f) for f in from_files]  # type: ignore[arg-type]
    env = "" if from_env is True else None if from_env is None else str(from_env)
    try:
        kb = kb if kb is not None else _kb()
        move = inputs.make_move(kb, to, pre)
        project = inputs.find_project(_path(config)) if (config or m is None) else None
        source = inputs.current_source(kb, from_version, files, env, project)
        chosen = inputs.targets(kb, m, project, targets, manager, allow_cpu)
        way = inputs.direction(kb, source, move, allow_downgrade, _moving(source, chosen, move))
        reports = tuple(_assess(kb, project, t, source, move) for t in chosen)
        notes: tuple[str, ...] = ()
        if relock:
            reports = _relocked(kb, project, source, chosen, reports, index_url, offline)
        elif source.locked:
            notes = (
                "Package changes compare lock pins with the new plan's top-level pins and "
                "TensorFlow's declared requirements; --relock compares every pin with a fresh "
                "lock.",
            )
    except OSError as exc:  # a folder or file the OS refuses: bad input, not a crash
        from tfenv.errors import ConfigError

        raise ConfigError(
            _("Cannot read {filename}: {value}.").format(
                filename=exc.filename, value=exc.strerror or exc
            )
        ) from None
    folder = str(project.folder) if project is not None else None
    return UpgradeReport(source.describe, move.to_text, way, reports, notes, folder)  # type: ignore[arg-type]


def _moving(
    source: CurrentSource, chosen: Sequence[TargetInput], move: Move
) -> Optional[list[CurrentState]]:
    """The current states of the targets the move moves, where the team holds some on a
    TensorFlow of their own (None: every target moves; the source's states decide)."""
    from tfenv.upgrade.held import holds

    if not any(holds(t, move) for t in chosen):
        return None
    return [
        source.for_target(t.name, t.target.platform.conda_subdir)
        for t in chosen
        if not holds(t, move)
    ]


def _assess(
    kb: KnowledgeBase,
    project: Optional[ProjectConfig],
    inp: TargetInput,
    source: CurrentSource,
    move: Move,
) -> TargetReport:
    """One target's report: held where the team keeps it on its own TensorFlow."""
    from tfenv.upgrade.assess import assess
    from tfenv.upgrade.held import held_report

    current = source.for_target(inp.name, inp.target.platform.conda_subdir)
    return held_report(kb, project, inp, current, move) or assess(kb, inp, current, move)


def _machine(
    machine: Optional[MachineArgs],
    host: Union[str, Path, None],
    os: Optional[str],
    arch: Optional[str],
    gpu: Optional[str],
    cc: Optional[str],
    no_gpu: bool,
    driver: Optional[str],
    glibc: Optional[str],
    python: Optional[str],
    gpu_index: Optional[int],
) -> Optional[MachineArgs]:
    """The machine the facts describe; None when none was given (then: the configuration's
    targets, else this machine)."""
    from tfenv.api import machine_facts
    from tfenv.models.target import MachineArgs

    facts = MachineArgs(
        host_file=_path(host), os=os, arch=arch, gpu=gpu, cc=cc, no_gpu=no_gpu, driver=driver,
        glibc=glibc, python=python, gpu_index=gpu_index,
    )  # fmt: skip
    facts = machine_facts("check_upgrade", machine, facts)
    return None if facts == MachineArgs() else facts


def _relocked(
    kb: KnowledgeBase,
    config: Optional[ProjectConfig],
    source: CurrentSource,
    chosen: Sequence[TargetInput],
    reports: tuple[TargetReport, ...],
    index_url: Optional[str],
    offline: bool,
) -> tuple[TargetReport, ...]:
    """Replace each target's package diff by a full diff against a fresh lock."""
    import os
    from dataclasses import replace

    from tfenv.lock import LockOptions
    from tfenv.upgrade.relock import fresh_pins, pin_diff

    if config is None or not source.locked:
        raise _usage(
            _(
                "--relock needs the team's configuration ([tool.tfenv] or tfenv.toml) and its "
                "lockfiles, to lock each target again for the new version."
            )
        )
    options = LockOptions(index_url=index_url, offline=offline, environ=os.environ)
    out = []
    for inp, report in zip(chosen, reports):
        current = source.for_target(inp.name, inp.target.platform.conda_subdir)
        if not report.resolves or report.to_version is None or current.pins is None:
            out.append(report)
            continue
        name, pins = fresh_pins(kb, config, inp.name, report.to_version, options)
        basis = f"{current.origin} vs a fresh lock of TensorFlow {report.to_version} ({name})"
        out.append(replace(report, packages=pin_diff(current.pins, pins), packages_basis=basis))
    return tuple(out)


def _usage(message: str) -> Exception:
    from tfenv.errors import UsageError

    return UsageError(message)


def _path(value: Union[str, Path, None]) -> Optional[Path]:
    return None if value is None else Path(value)


def _kb() -> KnowledgeBase:
    from tfenv.kb import KnowledgeBase

    return KnowledgeBase.from_environment()
