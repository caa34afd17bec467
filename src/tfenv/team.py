"""One TensorFlow version for a whole team: the newest that every target can run.

:func:`team_resolve` solves each target alone first (that gives each one's newest
release), then walks down from the oldest of those newest releases until one
version resolves on every target. When no version does, the answer names the
targets that block and why, in the solver's own words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, NoReturn, Optional, Union

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv import errors
from tfenv.config import ProjectConfig, TargetSpec
from tfenv.errors import ConfigError
from tfenv.i18n import _
from tfenv.models import messages
from tfenv.models.conflict import Conflict, Skipped, Suggestion

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution
    from tfenv.models.target import Request, Target

__all__ = [
    "Blocker",
    "Gap",
    "Limit",
    "SharedLimit",
    "TeamResolution",
    "build_targets",
    "request_for",
    "team_resolve",
]


@dataclass(frozen=True)
class Blocker:
    """A target that keeps the team from a common version, and the solver's reasons.

    ``reason`` is ``team.no-stack`` (it runs no release at all) or ``team.blocked-at`` (it
    cannot run ``tensorflow``, the newest release the other targets allow)."""

    target: str
    reason: str
    conflicts: tuple[Conflict, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()
    tensorflow: Optional[str] = None
    held_by: tuple[str, ...] = ()  # the targets whose newest release is ``tensorflow``

    def _reason(self) -> str:
        if self.reason == "team.blocked-at" and self.held_by:
            holders = ", ".join(f"'{n}'" for n in self.held_by)
            return messages.render(
                "team.blocked-by", {"tensorflow": self.tensorflow, "holders": holders}
            )
        return messages.render(self.reason, {"tensorflow": self.tensorflow})

    def lines(self) -> list[str]:
        """The blocker as lines (a failed lock's details): what it cannot run, each of the
        solver's reasons on a line of its own, then each way out."""
        head = messages.render(
            "team.blocker.head", {"target": self.target, "reason": self._reason()}
        )
        out = ["- " + head, *("    " + c.sentence for c in self.conflicts)]
        if self.suggestions:
            out.append("  " + messages.render("team.ways-out"))
            out += ["    " + s.sentence for s in self.suggestions]
        return out

    def describe(self) -> str:
        """The blocker in words (:mod:`tfenv.models.messages`)."""
        fields = {
            "target": self.target,
            "reason": self._reason(),
            "conflicts": messages.sentences([c.sentence for c in self.conflicts]),
            "ways_out": messages.sentences([s.sentence for s in self.suggestions]),
        }
        message = "team.blocker"
        if self.conflicts:
            message += "+conflicts"
        if self.suggestions:
            message += "+ways-out"
        return messages.render(message, fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "reason": self.reason,
            "tensorflow": self.tensorflow,
            "conflicts": [c.to_dict() for c in self.conflicts],
            "suggestions": [s.to_dict() for s in self.suggestions],
            "sentence": self.describe(),
        }


@dataclass(frozen=True)
class Limit:
    """A target that holds the team below what the others run alone: the team's version
    (``tensorflow``), why the target runs nothing newer (its plan's :class:`Skipped`
    values for the series in between), what each other target runs alone (``others``),
    and the split: with ``tensorflow = series`` of its own (``table`` in ``file``), the
    others share ``shared``."""

    target: str
    tensorflow: str
    skipped: tuple[Skipped, ...]
    others: tuple[tuple[str, str], ...]
    series: str
    shared: Optional[str]
    file: str
    table: str

    def describe(self) -> str:
        """What set the limit, in words (:mod:`tfenv.models.messages`)."""
        fields = {
            "target": self.target,
            "tensorflow": self.tensorflow,
            "reasons": messages.sentences([x.sentence for x in self.skipped]),
            "others": ", ".join(f"'{n}' {v}" for n, v in self.others),
        }
        return messages.render("team.limit+reasons" if self.skipped else "team.limit", fields)

    def lines(self) -> list[str]:
        """The limit as lines (a failed lock's details): the target, each reason why it runs
        nothing newer on a line of its own, then how to split the team."""
        fields = {
            "target": self.target,
            "tensorflow": self.tensorflow,
            "others": ", ".join(f"'{n}' {v}" for n, v in self.others),
        }
        head = messages.render("team.limit.head" if self.skipped else "team.limit", fields)
        return ["- " + head, *("    " + x.sentence for x in self.skipped), "  " + self.split()]

    def split(self) -> str:
        """How to split the team: the target's own ``tensorflow``, and what the others get."""
        fields = {
            "target": self.target,
            "series": self.series,
            "file": self.file,
            "table": self.table,
            "shared": self.shared,
        }
        return messages.render("team.split+shared" if self.shared else "team.split", fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "target",
            "target": self.target,
            "tensorflow": self.tensorflow,
            "rules": sorted({c.kind for x in self.skipped for c in x.conflicts}),
            "skipped": [x.to_dict() for x in self.skipped],
            "others": dict(self.others),
            "split": {
                "file": self.file,
                "table": self.table,
                "tensorflow": self.series,
                "others_share": self.shared,
                "sentence": self.split(),
            },
            "sentence": self.describe(),
        }


@dataclass(frozen=True)
class Gap:
    """A release above the team's version that one target cannot run, and why (the
    conflicts of that target's solve pinned to it)."""

    release: str
    target: str
    conflicts: tuple[Conflict, ...]

    def describe(self) -> str:
        reasons = messages.sentences([c.sentence for c in self.conflicts])
        return messages.render(
            "team.shared.missing",
            {"release": self.release, "target": self.target, "reasons": reasons},
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "release": self.release,
            "target": self.target,
            "rules": sorted({c.kind for c in self.conflicts}),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "sentence": self.describe(),
        }


@dataclass(frozen=True)
class SharedLimit:
    """A team version no single target stops at: every target runs something newer alone
    (``ceilings``, each target's own newest), and the team's version is the newest release
    they all share; ``gaps`` say, for each release between it and the lowest ceiling, which
    target cannot run it and why."""

    tensorflow: str
    ceilings: tuple[tuple[str, str], ...]
    gaps: tuple[Gap, ...]

    def describe(self) -> str:
        fields = {
            "tensorflow": self.tensorflow,
            "ceilings": ", ".join(f"'{n}' {v}" for n, v in self.ceilings),
            "missing": " ".join(g.describe() for g in self.gaps),
        }
        return messages.render("team.shared+missing" if self.gaps else "team.shared", fields)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "shared",
            "tensorflow": self.tensorflow,
            "targets": [n for n, _v in self.ceilings],
            "rules": sorted({c.kind for g in self.gaps for c in g.conflicts}),
            "ceilings": dict(self.ceilings),
            "gaps": [g.to_dict() for g in self.gaps],
            "sentence": self.describe(),
        }


@dataclass(frozen=True)
class TeamResolution:
    """The team's version and each target's resolution at it, or the blockers.

    ``tensorflow`` is the version the targets without one of their own share (None when
    every target has its own); ``limits`` name the targets that hold the others back."""

    tensorflow: Optional[str]
    resolutions: tuple[tuple[str, Resolution], ...]
    blockers: tuple[Blocker, ...] = ()
    newest: tuple[tuple[str, str], ...] = ()  # target -> newest release it runs alone
    limits: tuple[Limit, ...] = ()
    own: tuple[str, ...] = ()  # the targets locked on a TensorFlow of their own
    shared_limit: Optional[SharedLimit] = None  # no single target stops at the team's version

    def limit_sentences(self) -> tuple[str, ...]:
        """What held the team down, in words: each limiting target and how to split the
        team, or the releases the targets' intersection lacks."""
        out: list[str] = []
        for limit in self.limits:
            out += [limit.describe(), limit.split()]
        if self.shared_limit is not None:
            out.append(self.shared_limit.describe())
        return tuple(out)

    def limits_json(self) -> list[dict[str, Any]]:
        """``limits`` of ``--json``: one entry per limiting target (kind "target"), or one
        of kind "shared" where the team's version is set by the targets together."""
        out = [limit.to_dict() for limit in self.limits]
        if self.shared_limit is not None:
            out.append(self.shared_limit.to_dict())
        return out

    @property
    def ok(self) -> bool:
        if self.blockers or not self.resolutions:
            return False
        return self.tensorflow is not None or all(r.ok for _, r in self.resolutions)

    @property
    def by_target(self) -> dict[str, Resolution]:
        return dict(self.resolutions)

    def explain(self) -> str:
        """One short paragraph: why there is no common version (empty when there is one).
        Where some targets run nothing newer than what the others cannot run, it names
        those first (they hold the team back); :meth:`explain_lines` gives the reasons."""
        if self.ok:
            return ""
        fields = {
            "newest": ", ".join(f"{n} {v}" for n, v in self.newest),
            "blockers": "; ".join(
                messages.render("team.blocker", {"target": b.target, "reason": b._reason()})
                for b in self.blockers
            ),
        }
        if self.limits:
            fields["holders"] = ", ".join(f"'{x.target}'" for x in self.limits)
            fields["blocked"] = ", ".join(f"'{b.target}'" for b in self.blockers)
            fields["tensorflow"] = self.limits[0].tensorflow
            return messages.render("team.none+held", fields)
        return messages.render("team.none+newest" if self.newest else "team.none", fields)

    def explain_lines(self) -> tuple[str, ...]:
        """Why there is no common version, a few lines per target: the targets that hold
        the team back first (why they run nothing newer, how to split the team), then each
        blocking target (the solver's reasons, its ways out)."""
        if self.ok:
            return ()
        out: list[str] = []
        for limit in self.limits:
            out += limit.lines()
        for blocker in self.blockers:
            out += blocker.lines()
        return tuple(out)


def request_for(request: Request, spec: TargetSpec) -> Request:
    """The team's request as it applies to one target (its route, CPU and CUDA-library
    preferences: a target's own ``cuda-libs`` wins over the project's)."""
    out = replace(
        request,
        manager=spec.manager if spec.manager != "auto" else request.manager,
        allow_cpu=spec.allow_cpu or request.allow_cpu,
        no_gpu=spec.machine.no_gpu,
        cuda_libs=spec.cuda_libs or request.cuda_libs,
    )
    if spec.tensorflow is not None:
        from tfenv.specs import parse_tf_spec

        out = replace(out, tf=parse_tf_spec(spec.tensorflow), tf_text=spec.tensorflow)
    return out


def build_targets(kb: KnowledgeBase, specs_: Sequence[TargetSpec]) -> dict[str, Target]:
    """Each target's normalised facts; a bad fact becomes a ConfigError naming the target."""
    from tfenv import api

    out: dict[str, Target] = {}
    for spec in specs_:
        try:
            out[spec.name] = api.build_target(kb, spec.machine, detect=_no_detect)
        except ConfigError:
            raise
        except errors.TfenvError as exc:
            raise ConfigError(
                _("Target '{name}': {message}").format(name=spec.name, message=exc.message),
                key=f"targets.{spec.name}",
                hint=exc.hint,
            ) from None
    return out


def team_resolve(
    kb: KnowledgeBase,
    config_or_targets: Union[ProjectConfig, Sequence[TargetSpec]],
    request: Optional[Request] = None,
) -> TeamResolution:
    """The newest TensorFlow every target can run, with each target's resolution at it."""
    if isinstance(config_or_targets, ProjectConfig):
        specs_ = config_or_targets.targets
        if request is None:
            request = _config_request(kb, config_or_targets)
    else:
        specs_ = tuple(config_or_targets)
    if request is None:
        raise errors.UsageError(_("team_resolve needs a request when given bare targets."))
    if not specs_:
        raise ConfigError(_("No targets to resolve."), key="targets")
    targets = build_targets(kb, specs_)
    config = config_or_targets if isinstance(config_or_targets, ProjectConfig) else None
    alone = {
        s.name: _solve(kb, targets[s.name], request_for(request, s), full=True) for s in specs_
    }
    blockers = tuple(
        Blocker(name, "team.no-stack", r.conflicts, r.suggestions)
        for name, r in alone.items()
        if r.plan is None
    )
    own = tuple(s.name for s in specs_ if s.tensorflow is not None)
    if blockers:
        return TeamResolution(None, tuple(alone.items()), blockers, own=own)
    newest = {n: r.plan.tensorflow for n, r in alone.items() if r.plan is not None}
    shared = [s for s in specs_ if s.tensorflow is None]
    if not shared:  # every target has its own TensorFlow: nothing is shared
        return TeamResolution(None, tuple(alone.items()), (), tuple(newest.items()), own=own)
    found = _common(kb, shared, targets, request, alone, newest)
    if found is None:  # the targets at the lowest newest release hold the others back
        ceiling = min(Version(newest[s.name]) for s in shared)
        held = _limits(kb, config, shared, targets, request, alone, newest, ceiling)
        return TeamResolution(
            None,
            tuple(alone.items()),
            _blockers_at(kb, shared, targets, request, ceiling, tuple(x.target for x in held)),
            tuple(newest.items()),
            held,
            own=own,
        )
    version, at = found
    by_name = {**alone, **dict(at)}
    limits = _limits(kb, config, shared, targets, request, alone, newest, version)
    together = (
        None if limits else _shared_limit(kb, shared, targets, request, alone, newest, version)
    )
    return TeamResolution(
        str(version),
        tuple((s.name, by_name[s.name]) for s in specs_),
        (),
        tuple(newest.items()),
        limits,
        own,
        together,
    )


def _common(
    kb: KnowledgeBase,
    shared: Sequence[TargetSpec],
    targets: dict[str, Target],
    request: Request,
    alone: dict[str, Resolution],
    newest: dict[str, str],
) -> Optional[tuple[Version, tuple[tuple[str, Resolution], ...]]]:
    """The newest version every target of ``shared`` runs, with their resolutions at it."""
    ceiling = min(Version(newest[s.name]) for s in shared)
    for version in _candidates(kb, request, ceiling):
        found = _all_at(kb, shared, targets, request, alone, version)
        if found is not None:
            return version, found
    return None


def _limits(
    kb: KnowledgeBase,
    config: Optional[ProjectConfig],
    shared: Sequence[TargetSpec],
    targets: dict[str, Target],
    request: Request,
    alone: dict[str, Resolution],
    newest: dict[str, str],
    version: Version,
) -> tuple[Limit, ...]:
    """The targets that run nothing newer than the team's version while others do, and
    what the others would share without them."""
    from tfenv.kb.tensorflow import series_of

    names = [s.name for s in shared]
    held = [n for n in names if Version(newest[n]) == version]
    rest = [s for s in shared if s.name not in held]
    if not held or not rest:
        return ()
    found = _common(kb, rest, targets, request, alone, newest)
    shared_version = found[0] if found is not None else None
    top = shared_version or max(Version(newest[s.name]) for s in rest)
    file = config.path.name if config is not None else _("the configuration")
    prefix = config.prefix if config is not None else ""
    out = []
    for name in held:
        plan = alone[name].plan
        skipped = tuple(
            x
            for x in (plan.skipped if plan is not None else ())
            if x.subject == "tensorflow"
            and Version(x.oldest or x.name) <= series_of(top)
            and Version(x.name) > series_of(version)
        )
        out.append(
            Limit(
                name,
                str(version),
                skipped,
                tuple((s.name, newest[s.name]) for s in rest),
                str(series_of(version)),
                str(shared_version) if shared_version is not None else None,
                file,
                f"{prefix}targets.{name}",
            )
        )
    return tuple(out)


def _shared_limit(
    kb: KnowledgeBase,
    shared: Sequence[TargetSpec],
    targets: dict[str, Target],
    request: Request,
    alone: dict[str, Resolution],
    newest: dict[str, str],
    version: Version,
) -> Optional[SharedLimit]:
    """Where no target's own newest is the team's version (each runs something newer
    alone): each target's ceiling, and for each release above the team's version up to the
    lowest ceiling, the targets that cannot run it and why."""
    if len(shared) < 2 or any(Version(newest[s.name]) == version for s in shared):
        return None
    ceiling = min(Version(newest[s.name]) for s in shared)
    gaps: list[Gap] = []
    for release in _candidates(kb, request, ceiling):
        if release <= version:
            break
        for spec in shared:
            if Version(newest[spec.name]) == release:
                continue  # its own plan is this release
            res = _solve(kb, targets[spec.name], _pinned(request_for(request, spec), release))
            if res.plan is None:
                gaps.append(Gap(str(release), spec.name, res.conflicts))
    return SharedLimit(str(version), tuple((s.name, newest[s.name]) for s in shared), tuple(gaps))


def _all_at(
    kb: KnowledgeBase,
    specs_: Sequence[TargetSpec],
    targets: dict[str, Target],
    request: Request,
    alone: dict[str, Resolution],
    version: Version,
) -> Optional[tuple[tuple[str, Resolution], ...]]:
    out: list[tuple[str, Resolution]] = []
    for spec in specs_:
        own = alone[spec.name]
        if own.plan is not None and Version(own.plan.tensorflow) == version:
            out.append((spec.name, own))
            continue
        res = _solve(kb, targets[spec.name], _pinned(request_for(request, spec), version))
        if res.plan is None:
            return None
        out.append((spec.name, res))
    return tuple(out)


def _blockers_at(
    kb: KnowledgeBase,
    specs_: Sequence[TargetSpec],
    targets: dict[str, Target],
    request: Request,
    version: Version,
    held_by: tuple[str, ...] = (),
) -> tuple[Blocker, ...]:
    found = []
    for spec in specs_:
        pinned = _pinned(request_for(request, spec), version)
        res = _solve(kb, targets[spec.name], pinned, full=True)
        if res.plan is None:
            blocker = Blocker(
                spec.name, "team.blocked-at", res.conflicts, res.suggestions, str(version), held_by
            )
            found.append(blocker)
    return tuple(found)


def _candidates(kb: KnowledgeBase, request: Request, ceiling: Version) -> list[Version]:
    from tfenv.kb.releases import known_versions

    ok = (v for v in known_versions(kb) if v <= ceiling and request.allows(v))
    return sorted(ok, reverse=True)


def _pinned(request: Request, version: Version) -> Request:
    return replace(request, tf=SpecifierSet(f"=={version}"), tf_text=str(version))


def _solve(kb: KnowledgeBase, target: Target, request: Request, full: bool = False) -> Resolution:
    from tfenv import resolver

    if full:
        return resolver.resolve(kb, target, request)
    return resolver.solve_once(kb, target, request)


def _config_request(kb: KnowledgeBase, config: ProjectConfig) -> Request:
    from tfenv import api

    try:
        return api.build_request(
            kb,
            config.tensorflow,
            config.manager,
            config.allow_cpu,
            False,
            config.pre,
            cuda_libs=config.cuda_libs,
        )
    except errors.UsageError as exc:
        raise ConfigError(
            _("{path}: 'tensorflow' = {tensorflow!r}: {message}").format(
                path=config.path, tensorflow=config.tensorflow, message=exc.message
            ),
            key="tensorflow",
            hint=exc.hint,
        ) from None


def _no_detect() -> NoReturn:
    raise errors.UsageError(_("A target must describe its machine; tfenv never detects it here."))
