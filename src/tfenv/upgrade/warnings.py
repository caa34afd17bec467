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

from tfenv.kb.releases import build_of
from tfenv.rules.gpu_code import gpu_code
from tfenv.upgrade.changes import boundary, crossed, sources_of, window
from tfenv.upgrade.model import Severity, UpgradeFinding

if TYPE_CHECKING:
    from tfenv.kb.changes import Change
    from tfenv.kb.known_issues import KnownIssue
    from tfenv.models.plan import Plan
    from tfenv.upgrade.checks import Facts
    from tfenv.upgrade.current import CurrentState

__all__ = ["warnings"]


def warnings(f: Facts, current: CurrentState, plan: Optional[Plan]) -> list[UpgradeFinding]:
    out = [x for x in (_keras(f), _layout(f)) if x is not None]
    if f.wants_gpu == "cuda" and f.target.has_nvidia_gpu:
        out += [x for x in (_major(f, "cuda"), _major(f, "cudnn"), _gpu_code(f)) if x is not None]
    out += _issues(f, plan)
    out += _recorded(f, current)
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
        fix = changes[0].action
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
    summary = f"Keras {old} -> Keras {new}: tf.keras is Keras {new} from TensorFlow {f.end}"
    fix = ""
    if not f.up:
        summary = f"Keras {old} -> Keras {new}: code written for Keras {old} (import keras) breaks"
        stay = _edge(f, _value(f, _keras_major))[0]
        fix = (
            f"Port the code back to tf.keras (Keras {new}) and drop the keras>={old} and tf-keras "
            f"pins and TF_USE_LEGACY_KERAS, or stay on TensorFlow {stay}"
        )
    return _finding(f, "keras", _value(f, _keras_major), summary, fix)


def _value(f: Facts, fn: Callable[[Facts, Version], Hashable]) -> Callable[[Version], Hashable]:
    return lambda v: fn(f, v)


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
    generic = (
        f"Replace the {label} {old.major} libraries with {label} {new.major} ones (the plan's "
        "install commands do it); rebuild custom ops against them"
    )

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
    name = f.target.gpu_name or f"compute capability {f.target.cc}"
    if new == "cannot-load":
        return None  # a blocker (checks.py), not a warning
    if new in ("jit", "partly-jit") and old == "native":
        prev = _edge(f, _value(f, _mode))[0]
        summary = (
            f"PTX JIT instead of native code: TensorFlow {f.end} runs "
            f"{'all' if new == 'jit' else 'its MLIR-generated'} kernels on {name} by JIT "
            "from PTX on first use"
        )
        fix = (
            "Nothing to install; expect a slow first start (cached in ~/.nv/ComputeCache, "
            f"raise CUDA_CACHE_MAXSIZE), or stay on TensorFlow {prev} for native code"
        )
        return _finding(f, "gpu-arch", _value(f, _mode), summary, fix)
    if new != "native":
        return None
    summary = f"Native code again: TensorFlow {f.end} has native kernels for {name} (no PTX JIT)"
    return _finding(f, "gpu-arch", _value(f, _mode), summary, "None needed.", "info")


# -- wheel layout (stub wheels) --------------------------------------------------------


def _stub(f: Facts, v: Version) -> Optional[str]:
    o = f.option(v)
    return o.wheels.stub_for if o is not None and o.wheels is not None else None


def _layout(f: Facts) -> Optional[UpgradeFinding]:
    old, new = _stub(f, f.start), _stub(f, f.end)
    if old == new or f.option(f.end) is None or f.option(f.end).wheels is None:  # type: ignore[union-attr]
        return None
    before = f"a stub that installs {old}" if old else "a full build"
    after = f"a stub that installs {new}" if new else "a full build"
    summary = f"The {f.target.platform} tensorflow wheel changes from {before} to {after}"
    fix = f"Relock {f.target.platform} on its own: {old or new} is {'gone' if old else 'new'}"
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
        python = Version(plan.python) if plan is not None and plan.python else None
        if (plan is not None and not issue.concerns(plan.route, f.target.cc, python)) or (
            plan is None and issue.routes
        ):
            continue
        severity: Severity = "blocker" if issue.severity == "broken" else "warning"
        other = issue.prefer or _unaffected(f, issue)
        fix = f"Use TensorFlow {other} instead" if other else "See the source for the workaround"
        summary = f"Known issue in TensorFlow {f.end}: {issue.summary}"
        out.append(
            UpgradeFinding(
                severity, "issue", summary, fix + ".", issue.provenance.sources[:1], issue.id
            )
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


def _recorded(f: Facts, current: CurrentState) -> list[UpgradeFinding]:
    out: list[UpgradeFinding] = []
    for change in crossed(f.kb, f.start, f.end):
        if change.kind not in ("packaging", "api") or not _relevant(f, change, current):
            continue
        out.append(_change_finding(f, change))
    return out


def _relevant(f: Facts, change: Change, current: CurrentState) -> bool:
    """Whom a recorded change concerns is part of the record (changes.yaml: concerns)."""
    if change.concerns == "tensorflow-gpu":
        return current.package == "tensorflow-gpu"
    if change.concerns == "cuda":
        return f.wants_gpu == "cuda" and f.target.platform.is_linux
    return True


def _change_finding(f: Facts, change: Change) -> UpgradeFinding:
    sources = change.provenance.sources[:1]
    if f.up:
        return UpgradeFinding(
            "warning", change.kind, change.summary, change.action, sources, change.id
        )
    severity: Severity = "warning" if change.kind == "api" else "info"
    summary = f"Going below {change.since} undoes: {change.summary}"
    fix = (
        change.action
        if change.kind == "api"
        else f"Expect the behaviour before {change.since}; adjust requirements that relied on it."
    )
    return UpgradeFinding(severity, change.kind, summary, fix, sources, change.id)
