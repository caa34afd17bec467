"""From argv-level choices to the inputs of an assessment: targets, current state, the move.

No printing here; every bad input becomes a :class:`~tfenv.errors.TfenvError` (exit 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.errors import UsageError
from tfenv.i18n import _
from tfenv.models.target import MachineArgs
from tfenv.upgrade.assess import Move, TargetInput
from tfenv.upgrade.changes import stable_releases
from tfenv.upgrade.current import (
    CurrentSource,
    CurrentState,
    from_env,
    from_files,
    from_spec,
    from_targets,
)

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import MachineArgs

__all__ = [
    "current_source",
    "direction",
    "find_project",
    "make_move",
    "parse_version_arg",
    "targets",
]

_AUTO_LOCKS = ("pylock*.toml", "conda-lock*.yml", "conda-lock*.yaml")


def parse_version_arg(kb: KnowledgeBase, flag: str, text: str, pre: bool = False) -> SpecifierSet:
    """A ``--from``/``--to`` value: a spec that matches at least one known release."""
    from tfenv import specs

    try:
        spec = specs.parse_tf_spec(text)
    except UsageError:
        raise UsageError(
            _("{flag} {text!r} is not a TensorFlow version or specifier.").format(
                flag=flag, text=text
            ),
            hint=_(
                "Use 'latest', a series such as 2.16, a release such as 2.16.2 or a PEP 440 "
                "specifier such as '>=2.15,<2.17'."
            ),
        ) from None
    known = [r.version for r in kb.index.releases("tensorflow")]
    known += [r.version for r in kb.index.releases("tensorflow-gpu")]
    if spec and not any(spec.contains(v, prereleases=True) for v in known):
        stable = stable_releases(kb)
        raise UsageError(
            _("No TensorFlow release matches {flag} {text}.").format(flag=flag, text=text),
            hint=_(
                "Known releases run from {stable} to {stable2}; 'tfenv matrix' lists them."
            ).format(stable=stable[0], stable2=stable[-1]),
        )
    return spec


def newest(kb: KnowledgeBase, spec: SpecifierSet, pre: bool = False) -> Version:
    stable = [v for v in stable_releases(kb) if spec.contains(v)]
    if stable and not pre:
        return max(stable)
    every = [r.version for r in kb.index.releases("tensorflow") if spec.contains(r.version, True)]
    every += [
        r.version for r in kb.index.releases("tensorflow-gpu") if spec.contains(r.version, True)
    ]
    if not every:
        raise UsageError(
            _("No TensorFlow release matches {value}.").format(value=spec or "latest"),
            hint=_("'tfenv matrix' lists the known releases."),
        )
    return max(every)


def make_move(kb: KnowledgeBase, text: str, pre: bool) -> Move:
    spec = parse_version_arg(kb, "--to", text, pre)
    if not spec:  # latest: the newest series, so a target that cannot run it is not hidden
        top = newest(kb, spec, pre)
        series = SpecifierSet(f"=={top.major}.{top.minor}.*")
        return Move(series, f"latest ({top.major}.{top.minor})", newest(kb, series, pre), pre)
    pre = pre or bool(spec.prereleases)  # a spec that names a pre-release asks for it
    if not pre:
        _refuse_only_pre(kb, spec, text)
    return Move(spec, text, newest(kb, spec, pre), pre)


def _refuse_only_pre(kb: KnowledgeBase, spec: SpecifierSet, text: str) -> None:
    """``--to`` a series that has only pre-releases, without ``--pre``: bad input (a gate
    that checked a release candidate unasked, or checked nothing, would mislead)."""
    if any(spec.contains(v) for v in stable_releases(kb)):
        return
    pres = sorted(
        r.version
        for r in kb.index.releases("tensorflow")
        if r.version.is_prerelease and spec.contains(r.version, prereleases=True)
    )
    if not pres:
        return  # only yanked or pre-2.0 releases match: the move reports what it finds
    stable = stable_releases(kb)
    older = [v for v in stable if v < pres[0]]
    if older:
        hint = _(
            "Add --pre to check {pres}, or --to {series} for the newest stable series."
        ).format(pres=pres[-1], series=f"{older[-1].major}.{older[-1].minor}")
    else:
        hint = _("Add --pre to check {pres}.").format(pres=pres[-1])
    raise UsageError(
        _(
            "--to {text} matches only pre-releases ({value}); check-upgrade checks "
            "pre-releases only when asked."
        ).format(text=text, value=", ".join(str(v) for v in pres)),
        hint=hint,
    )


def direction(
    kb: KnowledgeBase,
    source: CurrentSource,
    move: Move,
    allow_down: bool,
    moving: Optional[Sequence[CurrentState]] = None,
) -> str:
    """upgrade, downgrade or same; a downgrade needs ``allow_down``. ``moving``: the
    current states of the targets that move (not those the team holds on a TensorFlow of
    their own); None: every state of the source."""
    states = [s for _, s in source.states] if moving is None else list(moving)
    if not states:  # every target is held: nothing moves
        return "upgrade"
    starts = [state.version or newest(kb, SpecifierSet(_spec_of(state.spec))) for state in states]
    highest = max(starts)
    if move.version < highest and not allow_down:
        raise UsageError(
            _("--to {to_text} ({version}) is older than the current {highest}.").format(
                to_text=move.to_text, version=move.version, highest=highest
            ),
            hint=_("Pass --allow-downgrade to check a downgrade."),
        )
    if move.version < highest:
        return "downgrade"
    return "same" if all(s == move.version for s in starts) else "upgrade"


def _spec_of(text: str) -> str:
    from tfenv import specs

    return str(specs.parse_tf_spec(text))


def find_project(path: Optional[Path]) -> Optional[ProjectConfig]:
    """The project configuration: ``path`` (must exist), else the working folder's (optional)."""
    from tfenv.config import load_config, optional_config

    return load_config(path) if path is not None else optional_config(Path.cwd())


def current_source(
    kb: KnowledgeBase,
    from_text: Optional[str],
    files: Sequence[Path],
    env: Optional[str],
    config: Optional[ProjectConfig],
) -> CurrentSource:
    if from_text is not None:
        parse_version_arg(kb, "--from", from_text)
        return from_spec(from_text, f"--from {from_text}")
    if files:
        return from_files(list(files))
    if env is not None:
        return from_env(Path(env) if env else None)
    if config is not None:
        folder = config.lock_folder
        locks = sorted({p for pat in _AUTO_LOCKS for p in folder.glob(pat)})
        if locks:
            return from_files(locks)
        own = _own_states(kb, config)
        shared: Optional[CurrentState] = None
        if config.tensorflow != "latest":
            origin = f"tensorflow = {config.tensorflow!r} in {config.path}"
            parse_version_arg(
                kb, f"The configuration's tensorflow ({config.path})", config.tensorflow
            )
            if not own:
                return from_spec(config.tensorflow, origin, config.python)
            shared = from_spec(config.tensorflow, origin, config.python).states[0][1]
        if own:
            if shared is None and len(own) < len(config.targets):
                shared = from_env(None).states[0][1]  # the others: what is installed here
            return from_targets(shared, own)
    return from_env(None)


def _own_states(kb: KnowledgeBase, config: ProjectConfig) -> dict[str, CurrentState]:
    """The current state of each configured target that pins a TensorFlow of its own
    (``tensorflow`` in its table): its upgrade is judged from that version."""
    out: dict[str, CurrentState] = {}
    for spec in config.targets:
        if spec.tensorflow is None or spec.tensorflow == "latest":
            continue
        where = f"tensorflow = {spec.tensorflow!r} of target {spec.name} in {config.path}"
        parse_version_arg(kb, f"Target {spec.name}'s tensorflow ({config.path})", spec.tensorflow)
        python = spec.machine.python or config.python
        out[spec.name] = from_spec(spec.tensorflow, where, python).states[0][1]
    return out


def targets(
    kb: KnowledgeBase,
    machine: Optional[MachineArgs],
    config: Optional[ProjectConfig],
    names: Sequence[str],
    manager: str,
    allow_cpu: bool,
) -> list[TargetInput]:
    """Flags or a host file (one target), else the configured targets, else this machine."""
    from tfenv import api

    if machine is not None and names:
        raise UsageError(
            _(
                "--target picks configured targets; leave out the machine flags (--os, --gpu, "
                "--host ...) to use it."
            )
        )
    if machine is not None:
        name = machine.host_file.stem if machine.host_file else "given machine"
        target = api.build_target(kb, machine)
        return [TargetInput(name, target, manager, allow_cpu, machine.no_gpu)]
    if config is not None:
        from tfenv.team import build_targets

        specs_ = [config.target(n) for n in names] if names else list(config.targets)
        built = build_targets(kb, specs_)
        return [
            TargetInput(
                s.name,
                built[s.name],
                s.manager if manager == "auto" else manager,
                s.allow_cpu or allow_cpu,
                s.machine.no_gpu,
                s.cuda_libs or config.cuda_libs,
                s.tensorflow if s.tensorflow != "latest" else None,
            )
            for s in specs_
        ]
    if names:
        raise UsageError(_("--target needs a project configuration ([tool.tfenv] or tfenv.toml)."))
    return [TargetInput("this machine", api.build_target(kb, MachineArgs()), manager, allow_cpu)]
