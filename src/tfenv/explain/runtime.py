"""Answers about what TensorFlow needs of its dependencies to run (``tensorflow/runtime.yaml``):
a NumPy or protobuf that the installed release cannot import with; TensorBoard without
``pkg_resources`` or not installed (``tensorflow/tensorboard.yaml``); generated protobuf code
newer than the protobuf runtime."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import InvalidVersion, Version

from tfenv.explain.common import pip_command, shell_command, version_or_none
from tfenv.explain.context import Answer, Context
from tfenv.i18n import _
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
    declared = c.declared or _("no bound on {package}").format(package=c.package)
    return _(
        "TensorFlow {tf} on Python {python} needs {line} to run: it declares {declared} but "
        "cannot import or run with {excluded} ({error}; measured: {evidence}; {sources})."
    ).format(
        tf=tf,
        python=python,
        line=c.line,
        declared=declared,
        excluded=excluded(c.package, c.requirement),
        error=c.error.rstrip("."),
        evidence=c.evidence_text(),
        sources="; ".join(c.sources),
    )


def _answer(package: str) -> Callable[[Mapping[str, str], Context], Answer]:
    def answer(groups: Mapping[str, str], ctx: Context) -> Answer:
        tf, python = _installed_tf(ctx), _python(ctx)
        facts: list[str] = []
        seen = groups.get(package)
        if seen:
            facts.append(
                _("The message names {package} {version}.").format(package=package, version=seen)
            )
        if tf is None or python is None:
            if tf is None and python is None:
                unknown = _(
                    "The TensorFlow and the Python of this environment is not known, so its "
                    "{package} bound is not either (give --tf and --python, or run it in the "
                    "environment)."
                )
            elif tf is None:
                unknown = _(
                    "The TensorFlow of this environment is not known, so its {package} bound is "
                    "not either (give --tf and --python, or run it in the environment)."
                )
            else:
                unknown = _(
                    "The Python of this environment is not known, so its {package} bound is not "
                    "either (give --tf and --python, or run it in the environment)."
                )
            facts.append(unknown.format(package=package))
            facts += _recorded(ctx, package)
            return Answer(tuple(facts), _unknown_fix(ctx, package))
        found = [c for c in ctx.kb.runtime.constraints_for(tf, python) if c.package == package]
        if not found:
            facts.append(
                _(
                    "The runtime facts record no {package} bound for TensorFlow {tf} on Python "
                    "{python} (the sweep ran it with the {package} its requirements resolve to)."
                ).format(package=package, tf=tf, python=python)
            )
            return Answer(tuple(facts))
        facts += [_constraint_fact(tf, python, c) for c in found]
        fix = _(
            "`{command}` in this environment (TensorFlow {tf}); `{plan}` plans it with this pin."
        ).format(
            command=pip_command(ctx, *(c.line for c in found), module=True),
            tf=tf,
            plan=_plan_line(ctx, str(tf), str(python)),
        )
        return Answer(tuple(facts), fix)

    return answer


def _plan_line(ctx: Context, tf: str, python: str) -> str:
    """The ``tfenv resolve`` line of release ``tf`` on ``python``: for the machine explain
    was told about, with its every fact (:func:`tfenv.rerun.line_for`); else for this one,
    which it detects."""
    from dataclasses import replace

    from packaging.specifiers import SpecifierSet

    from tfenv.models.target import Request
    from tfenv.rerun import line_for

    m = ctx.machine
    if m is None:
        return shell_command(ctx, ["tfenv", "resolve", "--tf", tf, "--python", python])
    pinned = Request(tf=SpecifierSet(f"=={tf}"), tf_text=tf)
    return line_for(replace(m, python=Version(python)), pinned, tf)


def _unknown_fix(ctx: Context, package: str) -> Optional[str]:
    """The fix when the environment's TensorFlow is not known: the bound most releases
    record, as a command for the machine's shell (None: none recorded, the catalog's)."""
    from collections import Counter

    lines = Counter(c.line for c in ctx.kb.runtime.constraints if c.package == package)
    if not lines:
        return None
    line = lines.most_common(1)[0][0]
    return _(
        "`{command}` in this environment if its TensorFlow is one the recorded bounds name "
        "(`tfenv doctor` run there reads it and prints the exact fix), or upgrade TensorFlow."
    ).format(command=pip_command(ctx, line, module=True))


def _recorded(ctx: Context, package: str) -> list[str]:
    """The releases the runtime facts record a bound on ``package`` for, in one sentence."""
    found = [c for c in ctx.kb.runtime.constraints if c.package == package]
    if not found:
        return []
    items = [
        _("{line} for TensorFlow {releases}").format(line=c.line, releases=c.releases)
        for c in found[:6]
    ]
    if len(found) > 6:
        template = _("Recorded {package} bounds: {bounds} and {more} more.")
    else:
        template = _("Recorded {package} bounds: {bounds}.")
    return [template.format(package=package, bounds=_("; ").join(items), more=len(found) - 6)]


# -- TensorBoard and protobuf's generated code ---------------------------------------------


def _installed(ctx: Context, package: str) -> Optional[Version]:
    return version_or_none(ctx.host.package_version(package) if ctx.host else None)


def _tensorboard_setuptools(groups: Mapping[str, str], ctx: Context) -> Answer:
    """``No module named 'pkg_resources'`` from TensorBoard: the measured setuptools bound,
    and what this environment has."""
    bound = ctx.kb.tensorboard
    facts = [
        _(
            "TensorBoard before {fixed} imports pkg_resources when it starts, and setuptools "
            "{first_bad} removed it (measured {checked}: setuptools {last_good} ran, "
            "{first_bad} broke; {sources})."
        ).format(
            fixed=bound.fixed,
            first_bad=bound.first_bad,
            checked=bound.checked,
            last_good=bound.last_good,
            sources="; ".join(bound.sources),
        )
    ]
    tensorboard, setuptools = _installed(ctx, "tensorboard"), _installed(ctx, bound.package)
    if tensorboard is not None:
        facts.append(
            _("Installed here: TensorBoard {tensorboard}, setuptools {setuptools}.").format(
                tensorboard=tensorboard, setuptools=setuptools or _("none")
            )
        )
    upgrade = pip_command(ctx, "--upgrade", f"tensorboard>={bound.fixed}", module=True)
    if tensorboard is not None and not bound.breaks(tensorboard, setuptools):
        facts.append(
            _(
                "This environment's TensorBoard starts with its setuptools: the message comes "
                "from another environment (or another Python on PATH)."
            )
        )
        return Answer(tuple(facts))
    fix = _("`{command}` in this environment, or upgrade TensorBoard: `{upgrade}`.").format(
        command=pip_command(ctx, bound.line, module=True), upgrade=upgrade
    )
    return Answer(tuple(facts), fix)


def _tf_requirement(ctx: Context, tf: Version, package: str) -> Optional[str]:
    """What TensorFlow ``tf`` itself requires of ``package`` on this environment's Python
    (:func:`tfenv.kb.index.declared`; None: nothing, or the release is not in the index)."""
    from tfenv.kb.index import declared

    python = _python(ctx)
    for name in ("tensorflow", "tensorflow-cpu"):
        release = ctx.kb.index.release(name, tf)
        for wheels in release.wheels.values() if release is not None else ():
            found = declared(wheels.requires, package, str(python) if python else None)
            if found is not None:
                return f"{package}{found}"
    return None


def _tensorboard_missing(groups: Mapping[str, str], ctx: Context) -> Answer:
    """``TBNotInstalledError``: tf.summary's writers live in TensorBoard; which one to install
    for the TensorFlow at hand."""
    from packaging.requirements import InvalidRequirement, Requirement

    bound = ctx.kb.tensorboard
    tf = _installed_tf(ctx)
    facts = [
        _(
            "tf.summary's ops are implemented in the tensorboard package, which is not "
            "installed in the environment that ran this."
        )
    ]
    wanted = _tf_requirement(ctx, tf, "tensorboard") if tf is not None else None
    if tf is not None and wanted is None:
        facts.append(
            _("TensorFlow {tf} does not require tensorboard: install it beside it.").format(tf=tf)
        )
    elif tf is not None:
        facts.append(_("TensorFlow {tf} requires {requirement}.").format(tf=tf, requirement=wanted))
    specs = [wanted or f"tensorboard>={bound.fixed}"]
    try:
        allowed = Requirement(specs[0]).specifier
    except InvalidRequirement:
        allowed = None
    if allowed is not None and not allowed.contains(bound.fixed, prereleases=True):
        specs.append(bound.line)  # the TensorBoard it allows imports pkg_resources
        facts.append(
            _(
                "TensorBoard before {fixed} needs {line} to start (setuptools {first_bad} "
                "removed pkg_resources)."
            ).format(fixed=bound.fixed, line=bound.line, first_bad=bound.first_bad)
        )
    fix = _("`{command}` in this environment.").format(
        command=pip_command(ctx, *specs, module=True)
    )
    return Answer(tuple(facts), fix)


def _protobuf_runtime_version(groups: Mapping[str, str], ctx: Context) -> Answer:
    """``cannot import name 'runtime_version' from 'google.protobuf'``: generated code newer
    than the protobuf runtime; the installed protobuf and the TensorFlow's bound on it."""
    facts = [
        _(
            "A _pb2.py module generated by a newer protoc imports google.protobuf."
            "runtime_version, which the installed protobuf is too old to have: the runtime must "
            "be at least the version the generated file names on its '# Protobuf Python "
            "Version:' line."
        )
    ]
    protobuf = _installed(ctx, "protobuf")
    if protobuf is not None:
        facts.append(_("Installed here: protobuf {version}.").format(version=protobuf))
    tf, python = _installed_tf(ctx), _python(ctx)
    found = []
    if tf is not None and python is not None:
        found = [c for c in ctx.kb.runtime.constraints_for(tf, python) if c.package == "protobuf"]
    if found and tf is not None and python is not None:
        facts.append(
            _("TensorFlow {tf} on Python {python} needs {lines} to run (measured: {ids}).").format(
                tf=tf,
                python=python,
                lines=", ".join(c.line for c in found),
                ids=", ".join(c.id for c in found),
            )
        )
        fix = _(
            "TensorFlow {tf} cannot run with a newer protobuf ({lines}): install the package "
            "whose generated code this is at a version generated for that protobuf, or "
            "upgrade TensorFlow."
        ).format(tf=tf, lines=", ".join(c.line for c in found))
        return Answer(tuple(facts), fix)
    declared = _tf_requirement(ctx, tf, "protobuf") if tf is not None else None
    if declared is not None and declared != "protobuf":
        facts.append(
            _("TensorFlow {tf} requires {requirement}.").format(tf=tf, requirement=declared)
        )
    fix = _("`{command}` in this environment.").format(
        command=pip_command(ctx, "--upgrade", declared or "protobuf", module=True)
    )
    return Answer(tuple(facts), fix)


ANSWERS = {
    "runtime-numpy": _answer("numpy"),
    "runtime-protobuf": _answer("protobuf"),
    "tensorboard-setuptools": _tensorboard_setuptools,
    "tensorboard-missing": _tensorboard_missing,
    "protobuf-runtime-version": _protobuf_runtime_version,
}
