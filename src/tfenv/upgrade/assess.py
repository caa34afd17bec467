"""One target, one move: resolve the current and the new version, classify what changes.

Blockers come from :mod:`.checks` (and from the solver when it finds a conflict
the checks do not name); warnings from comparing the two releases' facts (Keras
major, CUDA and cuDNN majors, native code vs PTX JIT, wheel layout), the known
issues of the new release and the recorded packaging and API changes crossed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.models import messages
from tfenv.upgrade import checks, warnings
from tfenv.upgrade.model import Severity, TargetReport, UpgradeFinding
from tfenv.upgrade.runtime import runtime_changes

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution
    from tfenv.models.target import Request, Target
    from tfenv.upgrade.current import CurrentState

__all__ = ["Move", "TargetInput", "assess"]


@dataclass(frozen=True)
class TargetInput:
    """A named target machine and how it installs TensorFlow."""

    name: str
    target: Target
    manager: str = "auto"
    allow_cpu: bool = False
    no_gpu: bool = False
    cuda_libs: str = "build"  # the CUDA-library preference of its pip plans (cuda-libs)
    tensorflow: Optional[str] = None  # a configured target's own TensorFlow (its key)


@dataclass(frozen=True)
class Move:
    """Where to: ``to`` is the specifier each target resolves, ``version`` its newest release."""

    to: SpecifierSet
    to_text: str
    version: Version
    pre: bool = False


def assess(kb: KnowledgeBase, inp: TargetInput, current: CurrentState, move: Move) -> TargetReport:
    from tfenv.resolver import resolve, solve_once

    target = _python_fixed(inp.target, current)
    severity: Severity = "blocker"
    cur = solve_once(
        kb, target, _request(inp, SpecifierSet(_spec(current.spec)), current.spec, move)
    )
    if target.python is None and cur.plan is not None and cur.plan.python:
        target, severity = replace(target, python=Version(cur.plan.python)), "warning"
    new = resolve(kb, target, _request(inp, move.to, move.to_text, move))
    start = current.version or (Version(cur.plan.tensorflow) if cur.plan else None)
    start = start or _newest(kb, SpecifierSet(_spec(current.spec)))
    end = Version(new.plan.tensorflow) if new.plan else move.version
    facts = checks.Facts(kb, target, start, end, _accelerator(kb, cur, target, inp), severity)
    found = _findings(facts, current, new, cur)
    before = _findings(replace(facts, end=facts.start), current, cur, cur)
    changes, standing = _split(found, before, facts)
    return _report(kb, inp, current, cur, new, facts, changes, standing)


def _findings(
    facts: checks.Facts, current: CurrentState, new: Resolution, cur: Resolution
) -> tuple[UpgradeFinding, ...]:
    """Every finding of ``facts.end`` on this target (``new`` is its resolution)."""
    found = checks.blockers(facts)
    found += _solver_blockers(new, cur, found, facts.start)
    found += warnings.warnings(facts, current, new.plan)
    found += runtime_changes(facts, cur.plan, new.plan)
    return _dedupe(found)


def _split(
    found: tuple[UpgradeFinding, ...], before: tuple[UpgradeFinding, ...], facts: checks.Facts
) -> tuple[tuple[UpgradeFinding, ...], tuple[UpgradeFinding, ...]]:
    """The changes, and the standing conditions: what the current release has here too
    (the same finding, its release aside) is not a change the move makes."""
    held = {_condition(f, facts.start) for f in before}
    standing = tuple(f for f in found if _condition(f, facts.end) in held)
    return tuple(f for f in found if f not in standing), standing


def _condition(f: UpgradeFinding, version: Version) -> tuple[str, str, str]:
    """A finding with the release it was found for taken out of its words."""
    return f.severity, f.kind, f.summary.replace(str(version), "<release>")


def _python_fixed(target: Target, current: CurrentState) -> Target:
    """The target on the current environment's Python when it gives none (a known Python:
    a wrong one blocks; one only inferred from the current plan merely warns)."""
    if target.python is None and current.python is not None:
        return replace(target, python=current.python)
    return target


def _spec(text: str) -> str:
    from tfenv import specs

    return str(specs.parse_tf_spec(text))


def _request(inp: TargetInput, spec: SpecifierSet, text: str, move: Move) -> Request:
    from tfenv.models.target import Request

    return Request(
        tf=spec,
        tf_text=text,
        manager=inp.manager,
        allow_cpu=inp.allow_cpu,
        no_gpu=inp.no_gpu,
        pre=move.pre,
        cuda_libs=inp.cuda_libs,
    )


def _newest(kb: KnowledgeBase, spec: SpecifierSet) -> Version:
    from tfenv.upgrade.changes import stable_releases

    matching = [v for v in stable_releases(kb) if spec.contains(v)]
    if not matching:
        matching = [
            r.version
            for r in kb.index.releases("tensorflow")
            if spec.contains(r.version, prereleases=True)
        ]
    return max(matching) if matching else Version("0")


def _accelerator(kb: KnowledgeBase, cur: Resolution, target: Target, inp: TargetInput) -> str:
    if cur.plan is not None:
        return "" if cur.plan.accelerator == "cpu" else cur.plan.accelerator
    if inp.no_gpu:
        return ""
    if target.has_nvidia_gpu:
        return "cuda"
    if not target.platform.is_macos:
        return ""
    from tfenv.kb import metal

    return "metal" if metal.runs_on_gpu(kb, target.platform.key, target.gpu_vendor) else ""


def _solver_blockers(
    new: Resolution, cur: Resolution, found: list[UpgradeFinding], start: Version
) -> list[UpgradeFinding]:
    """What the solver rejects (or demotes to the CPU) that no check named."""
    if any(f.severity == "blocker" for f in found):
        return []
    if new.plan is None:
        said = " ".join(new.conflict_sentences)
        summary = messages.render("upgrade.does-not-resolve", {"conflicts": said})
        fix = _way_out(new, start)
        return [
            UpgradeFinding("blocker", "resolve", summary.rstrip("."), fix, conflicts=new.conflicts)
        ]
    if cur.plan is not None and cur.plan.gpu and not new.plan.gpu:
        summary = f"TensorFlow {new.plan.tensorflow} would run on the CPU here, not the GPU"
        return [UpgradeFinding("blocker", "platform", summary, "Stay on the current release.")]
    return []


def _way_out(new: Resolution, start: Version) -> str:
    """The solver's first way out, unless it is the release already in use: staying is
    not a fix to run (``tfenv resolve --tf`` the current version)."""
    moves = [
        s
        for s in new.suggestions
        if not (s.message == "way-out.other-tf" and dict(s.fields).get("tensorflow") == str(start))
    ]
    if moves:
        return moves[0].sentence
    if new.suggestions:
        return messages.render("upgrade.stay", {"tensorflow": start})
    return messages.render("upgrade.see-resolve")


def _dedupe(found: list[UpgradeFinding]) -> tuple[UpgradeFinding, ...]:
    out: list[UpgradeFinding] = []
    seen: set[tuple[str, str]] = set()
    for f in sorted(found, key=lambda x: ("blocker", "warning", "info").index(x.severity)):
        key = (f.kind, f.ref or f.summary)
        if key in seen or (f.ref and any(o.ref == f.ref for o in out)):
            continue
        seen.add(key)
        out.append(f)
    return tuple(out)


def _report(
    kb: KnowledgeBase,
    inp: TargetInput,
    current: CurrentState,
    cur: Resolution,
    new: Resolution,
    facts: checks.Facts,
    found: tuple[UpgradeFinding, ...],
    standing: tuple[UpgradeFinding, ...] = (),
) -> TargetReport:
    from tfenv.upgrade.diff import package_diff

    basis, changes = package_diff(kb, facts, current, cur.plan, new.plan)
    return TargetReport(
        name=inp.name,
        machine=facts.target.describe(),
        from_version=str(facts.start),
        to_version=str(facts.end),
        resolves=new.ok,
        current=cur.plan.to_dict() if cur.plan else None,
        new=new.plan.to_dict() if new.plan else None,
        findings=found,
        standing=standing,
        conflicts=new.conflicts,
        suggestions=new.suggestions,
        packages=changes,
        packages_basis=basis,
    )
