"""Warnings: the new release runs here, but something changes or needs doing.

Each comes from comparing the two releases' knowledge-base facts for this target,
with the boundary release found by walking between them and the change records
(``changes.yaml``) or known issues (``known_issues.yaml``) there as the source.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import Version

from tfenv import rules
from tfenv.i18n import N_, _, language
from tfenv.kb.prose import opt_prose, prose
from tfenv.kb.releases import build_of
from tfenv.models import choices, messages
from tfenv.rules.gpu_code import gpu_code
from tfenv.upgrade.changes import boundary, crossed, sources_of, window
from tfenv.upgrade.model import Severity, UpgradeFinding

if TYPE_CHECKING:
    from tfenv.kb.changes import Change
    from tfenv.kb.known_issues import KnownIssue
    from tfenv.models.plan import Plan
    from tfenv.upgrade.checks import Facts
    from tfenv.upgrade.current import CurrentState

__all__ = ["OWN_CHANGE_KINDS", "warnings"]

#: the changes.yaml kinds of the findings made here (Keras, the CUDA and cuDNN majors, the
#: recorded packaging and API changes); with the rules' ``change_kind``s they are every kind
#: models.choices lists, no more (checked when imported)
OWN_CHANGE_KINDS = frozenset({"keras", "cuda", "cudnn", "packaging", "api"})
choices.check_registry(
    "the change kinds of the rules and of check-upgrade",
    OWN_CHANGE_KINDS | {r.change_kind for r in rules.RULES if r.change_kind},
    choices.CHANGE_KINDS,
)


def warnings(f: Facts, current: CurrentState, plan: Optional[Plan]) -> list[UpgradeFinding]:
    out = [x for x in (_keras(f), _layout(f)) if x is not None]
    if f.wants_gpu == "cuda" and f.target.has_nvidia_gpu:
        out += [x for x in (_major(f, "cuda"), _major(f, "cudnn"), _gpu_code(f)) if x is not None]
        out += [x for x in (_unknown_build(f), _driver_below_toolkit(f, plan)) if x is not None]
    issues = _issues(f, plan)
    out += issues
    out += _recorded(f, current, plan, {i.ref for i in issues})
    return out


def _edge(f: Facts, value: Callable[[Version], Hashable]) -> tuple[Version, Version]:
    found = boundary(f.kb, f.start, f.end, value)
    return found if found else (f.start, f.end)


def _finding(
    f: Facts,
    kind: str,
    value: Callable[[Version], Hashable],
    summary: str,
    fix: str,
    severity: Severity = "warning",
) -> UpgradeFinding:
    prev, first = _edge(f, value)
    changes = window(f.kb, (kind,), prev, first)
    build = build_of(f.kb, first)
    sources = sources_of(changes) or (build.provenance.sources[:1] if build else ())
    ref = changes[0].id if len(changes) == 1 else None
    if f.up and len(changes) == 1 and not fix:
        fix = prose(changes[0], "action")
    if fix and not fix.endswith("."):
        fix += "."
    return UpgradeFinding(severity, kind, summary, fix, sources, ref)


# -- Keras -----------------------------------------------------------------------------


def _keras_major(f: Facts, v: Version) -> Optional[int]:
    build = build_of(f.kb, v)
    return build.keras_major if build else None


def _keras(f: Facts) -> Optional[UpgradeFinding]:
    old, new = _keras_major(f, f.start), _keras_major(f, f.end)
    if old is None or new is None or old == new:
        return None
    first = _edge(f, _value(f, _keras_major))[1]
    summary = _("Keras {old} -> Keras {new}: tf.keras is Keras {new} from {release}").format(
        old=old, new=new, release=_release(f, first)
    )
    fix = ""
    if not f.up:
        summary = _(
            "Keras {old} -> Keras {new}: code written for Keras {old} (import keras) breaks"
        ).format(old=old, new=new)
        stay = _edge(f, _value(f, _keras_major))[0]
        fix = _(
            "Port the code back to tf.keras (Keras {new}) and drop the keras>={old} and tf-keras "
            "pins and TF_USE_LEGACY_KERAS, or stay on TensorFlow {stay}"
        ).format(old=old, new=new, stay=stay)
    return _finding(f, "keras", _value(f, _keras_major), summary, fix)


def _value(f: Facts, fn: Callable[[Facts, Version], Hashable]) -> Callable[[Version], Hashable]:
    return lambda v: fn(f, v)


def _release(f: Facts, v: Version) -> str:
    """ "TensorFlow 2.16" when ``v`` is the first stable release of its series (2.16.1 is
    2.16's first), else "TensorFlow 2.16.2": the release where something changed."""
    from tfenv.kb.tensorflow import series_of
    from tfenv.upgrade.changes import stable_releases

    same = [r for r in stable_releases(f.kb) if series_of(r) == series_of(v)]
    return f"TensorFlow {series_of(v) if same and min(same) == v else v}"


# -- CUDA, cuDNN, GPU code -------------------------------------------------------------


def _cuda_of(f: Facts, v: Version, what: str) -> Optional[Version]:
    build = build_of(f.kb, v)
    cb = build.for_machine(f.target.os) if build else None
    value: Optional[Version] = getattr(cb, what) if cb is not None else None
    return value


def _major(f: Facts, what: str) -> Optional[UpgradeFinding]:
    old, new = _cuda_of(f, f.start, what), _cuda_of(f, f.end, what)
    if old is None or new is None or old.major == new.major:
        return None
    label = "CUDA" if what == "cuda" else "cuDNN"
    summary = f"{label} {old.major} -> {label} {new.major} ({old} -> {new})"
    generic = _(
        "Replace the {label} {old} libraries with {label} {new} ones (the plan's "
        "install commands do it); rebuild custom ops against them"
    ).format(label=label, old=old.major, new=new.major)

    def major(v: Version) -> Hashable:
        found = _cuda_of(f, v, what)
        return found.major if found else None

    finding = _finding(f, what, major, summary, "" if f.up else generic)
    return finding if finding.fix else replace(finding, fix=generic)


def _mode(f: Facts, v: Version) -> Optional[str]:
    build = build_of(f.kb, v)
    caps = build.compute if build else None
    if caps is None or f.target.cc is None:
        return None
    return gpu_code(f.target.cc, caps).verdict


def _gpu_code(f: Facts) -> Optional[UpgradeFinding]:
    old, new = _mode(f, f.start), _mode(f, f.end)
    if old is None or new is None or old == new:
        return None
    name = f.target.gpu_name or _("compute capability {cc}").format(cc=f.target.cc)
    if new == "cannot-load":
        return None  # a blocker (checks.py), not a warning
    if new in ("jit", "partly-jit") and old == "native":
        prev = _edge(f, _value(f, _mode))[0]
        if new == "jit":
            summary = _(
                "PTX JIT instead of native code: TensorFlow {release} runs all kernels on {name} "
                "by JIT from PTX on first use"
            )
        else:
            summary = _(
                "PTX JIT instead of native code: TensorFlow {release} runs its MLIR-generated "
                "kernels on {name} by JIT from PTX on first use"
            )
        summary = summary.format(release=f.end, name=name)
        fix = _(
            "Nothing to install; expect a slow first start (cached in {cache}, raise "
            "CUDA_CACHE_MAXSIZE), or stay on TensorFlow {release} for native code"
        ).format(cache=f.kb.windows_manual.jit_cache(f.target.system), release=prev)
        return _finding(f, "gpu-arch", _value(f, _mode), summary, fix)
    if new != "native":
        return None
    summary = _(
        "Native code again: TensorFlow {release} has native kernels for {name} (no PTX JIT)"
    ).format(release=f.end, name=name)
    return _finding(f, "gpu-arch", _value(f, _mode), summary, _("None needed."), "info")


def _unknown_build(f: Facts) -> Optional[UpgradeFinding]:
    """A warning, not "safe", where the new release's CUDA build facts are not recorded:
    the checks that need them (driver, cuDNN, GPU code) could not run."""
    build = build_of(f.kb, f.end)
    if build is not None and f.target.platform.key not in build.gpu_platforms:
        return None  # no CUDA build here at all: a blocker (checks.py)
    cb = build.for_machine(f.target.os) if build is not None else None
    missing = [
        what
        for what, known in (
            (_("its CUDA version"), cb is not None and cb.cuda is not None),
            (_("its cuDNN version"), cb is not None and cb.cudnn is not None),
            (_("the GPUs it has code for"), build is not None and build.compute is not None),
        )
        if not known
    ]
    if not missing:
        return None
    summary = _(
        "TensorFlow {release}'s build facts are not known to tfenv ({missing}), so "
        "whether this machine's driver and GPU run it could not be checked"
    ).format(release=f.end, missing=_(", ").join(missing))
    fix = _(
        "Read {release}'s release notes (CUDA, cuDNN, compute capabilities) and check them "
        "against this machine before moving, or run 'tfenv refresh' once its wheels are on the "
        "index and check again."
    ).format(release=f.end)
    sources = build.provenance.sources[:1] if build is not None else ()
    return UpgradeFinding("warning", "cuda", summary, fix, sources)


def _driver_below_toolkit(f: Facts, plan: Optional[Plan]) -> Optional[UpgradeFinding]:
    """The new plan runs on this driver only through minor-version compatibility: the
    plan's own warning (the same sentence, from the same facts: how this GPU runs the
    kernels, the driver its PTX needs), as a finding so that text, Markdown and --strict
    show it. Where the plan says the driver runs it (native code, or PTX this driver
    JIT-compiles), the driver is advised for XLA's parallel compilation only."""
    from tfenv.rules.base import Context
    from tfenv.rules.driver import driver_fix

    t = f.target
    if plan is None or plan.accelerator != "cuda" or not plan.cuda:
        return None
    said = next((w for w in plan.warnings if w.code == "driver-below-toolkit"), None)
    toolkit = f.kb.cuda.toolkit(plan.cuda)
    own = toolkit.min_driver(t.driver_os) if toolkit is not None and t.driver_os else None
    if said is None or toolkit is None or own is None:
        return None
    from tfenv.resolver.reasons import RUNS_SLOWER

    runs = said.params.get("outcome") == RUNS_SLOWER
    fix = (
        _("{fix} for XLA's parallel compilation (this driver runs the plan)")
        if runs
        else _("{fix} if kernels fail to load or XLA fails to compile")
    ).format(fix=driver_fix(Context(f.kb, t), own))
    return UpgradeFinding(
        "warning", "driver", str(said), messages.sentences((fix,)), toolkit.provenance.sources[:1]
    )


# -- wheel layout (stub wheels) --------------------------------------------------------


def _stub(f: Facts, v: Version) -> Optional[str]:
    o = f.option(v)
    return o.wheels.stub_for if o is not None and o.wheels is not None else None


def _layout(f: Facts) -> Optional[UpgradeFinding]:
    old, new = _stub(f, f.start), _stub(f, f.end)
    if old == new or f.option(f.end) is None or f.option(f.end).wheels is None:  # type: ignore[union-attr]
        return None
    before = _("a stub that installs {package}").format(package=old) if old else _("a full build")
    after = _("a stub that installs {package}").format(package=new) if new else _("a full build")
    summary = _("The {platform} tensorflow wheel changes from {before} to {after}").format(
        platform=f.target.platform, before=before, after=after
    )
    if old:
        fix = _("Relock {platform} on its own: {package} is gone")
    else:
        fix = _("Relock {platform} on its own: {package} is new")
    fix = fix.format(platform=f.target.platform, package=old or new)
    return _finding(f, "platform", _value(f, _stub), summary, fix)


# -- known issues of the new release ---------------------------------------------------


def _issues(f: Facts, plan: Optional[Plan]) -> list[UpgradeFinding]:
    out: list[UpgradeFinding] = []
    package = plan.package if plan else "tensorflow"
    for issue in f.kb.known_issues:
        if not issue.matches(f.end, f.target.platform.key, package):
            continue
        if plan is not None and issue.remedy is not None and issue.remedy in plan.remedies:
            continue  # the new plan avoids it (and says how in its reasons)
        if not _concerns(issue, plan, f):
            continue
        severity: Severity = "blocker" if issue.severity == "broken" else "warning"
        other = issue.prefer or _unaffected(f, issue)
        fix = prose(issue, "action")
        if other is not None and other != f.end:
            action = fix[:1].lower() + fix[1:] if language() == "en" else fix
            fix = _("Use TensorFlow {release} instead, or {action}").format(
                release=other, action=action
            )
        summary = _("Known issue in TensorFlow {release}: {issue}").format(
            release=f.end, issue=issue.text_for(f.target.cc)
        )
        out.append(
            UpgradeFinding(severity, "issue", summary, fix, issue.provenance.sources[:1], issue.id)
        )
    return out


def _unaffected(f: Facts, issue: KnownIssue) -> Optional[Version]:
    """The newest release of the same series that the issue does not hit."""
    from tfenv.kb.tensorflow import series_of
    from tfenv.upgrade.changes import stable_releases

    same = [
        v
        for v in stable_releases(f.kb)
        if series_of(v) == series_of(f.end) and not issue.matches(v, f.target.platform.key)
    ]
    return max(same) if same else None


# -- recorded packaging and API changes ------------------------------------------------


def _recorded(
    f: Facts, current: CurrentState, plan: Optional[Plan], reported: set[Optional[str]]
) -> list[UpgradeFinding]:
    out: list[UpgradeFinding] = []
    for change in crossed(f.kb, f.start, f.end):
        if change.kind not in ("packaging", "api") or not _relevant(f, change, current):
            continue
        if change.issue is not None and f.up:
            if change.issue in reported:
                continue  # the known issue says it, with its fix
            done = _remedied(f, change.issue, plan)
            if done is False:
                continue  # the new plan does not take the route it concerns
            if done:
                out.append(_remedied_finding(change, done))
                continue
        out.append(_change_finding(f, change))
    return out


#: what a plan that applies a known issue's remedy does, in words (known_issues.yaml: remedy)
_REMEDY_DONE = {
    "pin-cuda-wheels": N_("the new plan, and so tfenv's lockfiles, pin the nvidia-* wheels"),
}


def _concerns(issue: KnownIssue, plan: Optional[Plan], f: Facts) -> bool:
    """Whether the known issue concerns the new plan (its route, the GPU it runs on, its
    Python); without a plan, this machine (an issue of a route concerns no machine then)."""
    if plan is None:
        cc = f.target.cc if f.accel == "cuda" else None
        return not issue.routes and issue.concerns("", cc, f.target.python)
    cc = f.target.cc if plan.accelerator == "cuda" else None
    return issue.concerns(plan.route, cc, Version(plan.python) if plan.python else None)


def _remedied(f: Facts, issue_id: str, plan: Optional[Plan]) -> Optional[object]:
    """What the new plan does about the known issue ``issue_id`` (a sentence), False when
    the issue does not concern the plan, None when the plan does nothing about it."""
    issue = next((i for i in f.kb.known_issues if i.id == issue_id), None)
    if issue is None or plan is None:
        return None
    if not _concerns(issue, plan, f):
        return False
    if issue.remedy is not None and issue.remedy in plan.remedies:
        pins = [p for p in plan.pip if p.startswith(("nvidia-cudnn-", "nvidia-cuda-runtime-"))]
        known = _REMEDY_DONE.get(issue.remedy)
        done = _(known) if known else _("the new plan applies {remedy}").format(remedy=issue.remedy)
        return done + (f" ({', '.join(pins)})" if pins else "")
    return None


def _remedied_finding(change: Change, done: object) -> UpgradeFinding:
    return UpgradeFinding(
        "info",
        change.kind,
        prose(change, "summary"),
        _("None needed: {done}.").format(done=done),
        change.provenance.sources[:1],
        change.id,
    )


def _relevant(f: Facts, change: Change, current: CurrentState) -> bool:
    """Whom a recorded change concerns is part of the record (changes.yaml: concerns)."""
    if change.concerns == "tensorflow-gpu":
        return current.package == "tensorflow-gpu"
    if change.concerns == "cuda":
        return f.wants_gpu == "cuda" and f.target.platform.is_linux
    return True


def _change_finding(f: Facts, change: Change) -> UpgradeFinding:
    """A recorded change crossed: going up, a warning with its action (a gain: info, what
    it makes possible); going down, what undoing it means (losing a gain: a warning)."""
    sources = change.provenance.sources[:1]
    gain = change.effect == "gain"
    if f.up:
        severity: Severity = "info" if gain else "warning"
        return UpgradeFinding(
            severity,
            change.kind,
            prose(change, "summary"),
            prose(change, "action"),
            sources,
            change.id,
        )
    severity = "warning" if gain or change.kind == "api" else "info"
    summary = _("Going below {since} undoes: {summary}").format(
        since=change.since, summary=prose(change, "summary")
    )
    fix = opt_prose(change, "undo") or _(
        "Expect the behaviour before {since}; adjust code and requirements that relied on it."
    ).format(since=change.since)
    return UpgradeFinding(severity, change.kind, summary, fix, sources, change.id)
