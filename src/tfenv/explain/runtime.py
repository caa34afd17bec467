"""Answers about what TensorFlow needs of its dependencies to run (``tensorflow/runtime.yaml``):
a NumPy or protobuf that the installed release cannot import with."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import InvalidVersion, Version

from tfenv.explain.context import Answer, Context
from tfenv.models.plan import excluded

if TYPE_CHECKING:
    from tfenv.kb.runtime import RuntimeConstraint

__all__ = ["ANSWERS"]


def _installed_tf(ctx: Context) -> Optional[Version]:
    """The TensorFlow at hand: --tf, the installed one (any of its distributions), the text's."""
    from tfenv.kb.index import TF_DISTRIBUTIONS

    if ctx.tf is not None:
        return ctx.tf
    for name in TF_DISTRIBUTIONS:
        text = ctx.host.package_version(name) if ctx.host else None
        if not text:
            continue
        try:
            return Version(text)
        except InvalidVersion:
            continue
    return None


def _python(ctx: Context) -> Optional[str]:
    m = ctx.machine
    if m is not None and m.python is not None:
        return f"{m.python.major}.{m.python.minor}"
    return None


def _constraint_fact(tf: Version, python: str, c: RuntimeConstraint) -> str:
    declared = c.declared or f"no bound on {c.package}"
    return (
        f"TensorFlow {tf} on Python {python} needs {c.line} to run: it declares {declared} "
        f"but cannot import or run with {excluded(c.package, c.requirement)} "
        f"({c.error.rstrip('.')}; measured: {c.evidence}; {'; '.join(c.sources)})."
    )


def _answer(package: str) -> Callable[[Mapping[str, str], Context], Answer]:
    def answer(groups: Mapping[str, str], ctx: Context) -> Answer:
        tf, python = _installed_tf(ctx), _python(ctx)
        facts: list[str] = []
        seen = groups.get(package)
        if seen:
            facts.append(f"The message names {package} {seen}.")
        if tf is None or python is None:
            missing = " and ".join(
                w for w, v in (("the TensorFlow", tf), ("the Python", python)) if v is None
            )
            facts.append(
                f"{missing[:1].upper()}{missing[1:]} of this environment is not known, so its "
                f"{package} bound is not either (give --tf and --python, or run it in the "
                "environment)."
            )
            facts += _recorded(ctx, package)
            return Answer(tuple(facts))
        found = [c for c in ctx.kb.runtime.constraints_for(tf, python) if c.package == package]
        if not found:
            facts.append(
                f"The runtime facts record no {package} bound for TensorFlow {tf} on Python "
                f"{python} (the sweep ran it with the {package} its requirements resolve to)."
            )
            return Answer(tuple(facts))
        facts += [_constraint_fact(tf, python, c) for c in found]
        lines = " ".join(f"'{c.line}'" for c in found)
        fix = (
            f"`python -m pip install {lines}` in this environment (TensorFlow {tf}); "
            f"`tfenv resolve --tf {tf} --python {python}` plans it with this pin."
        )
        return Answer(tuple(facts), fix)

    return answer


def _recorded(ctx: Context, package: str) -> list[str]:
    """The releases the runtime facts record a bound on ``package`` for, in one sentence."""
    found = [c for c in ctx.kb.runtime.constraints if c.package == package]
    if not found:
        return []
    items = [f"{c.line} for TensorFlow {c.releases}" for c in found[:6]]
    more = f" and {len(found) - 6} more" if len(found) > 6 else ""
    return [f"Recorded {package} bounds: {'; '.join(items)}{more}."]


ANSWERS = {
    "runtime-numpy": _answer("numpy"),
    "runtime-protobuf": _answer("protobuf"),
}
