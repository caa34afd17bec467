"""The install, step by step: environment, packages, activation, Verify; timed, reported.

:func:`execute` claims the folder and runs the steps :func:`tfenv.install.steps.prepare`
worked out; a failure or an interruption (Ctrl-C, SIGTERM, SIGHUP: the CLI turns them into
exceptions that unwind through here) removes what was made (:mod:`.claim`), unless
``--keep-failed``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from tfenv.errors import TfenvError
from tfenv.i18n import _, ngettext
from tfenv.install import InstallError
from tfenv.install.shell import command
from tfenv.install.steps import Options, Outcome, Step, remaining_steps

if TYPE_CHECKING:
    from tfenv.host.profile import HostProfile
    from tfenv.install.claim import Claim
    from tfenv.install.runner import Runner
    from tfenv.kb import KnowledgeBase

__all__ = ["execute"]


def execute(
    out: Outcome,
    options: Options,
    here: HostProfile,
    kb: KnowledgeBase,
    runner: Runner,
) -> Outcome:
    """Run the steps: the folder is claimed first, and given back on any failure."""
    from tfenv.install.claim import claim

    if out.missing:
        lines = [command(a, out.layout.os_name) for s in out.steps for a in s.argv]
        raise InstallError(
            _(
                "{missing} This plan's environment is made by one of them; run these commands "
                "once one is installed (or install micromamba and run tfenv install again):"
            ).format(missing=out.missing),
            details=tuple(lines),
        )
    grant = claim(out.layout.folder, force=options.force, keep_failed=options.keep_failed)
    say = runner.say
    grant.take()  # outside the try: when the old environment cannot move, nothing is undone
    try:
        for step in out.steps:
            _run_step(step, out, options, here, kb, runner, grant)
            if step.outcome == "failed":
                out.rolled_back = grant.rollback()
                return out
    except BaseException:
        said = grant.rollback()
        say(_("tfenv install stopped: {said}").format(said=said))
        raise
    grant.commit()
    out.remaining = remaining_steps(out.source)
    return out


def _run_step(
    step: Step,
    out: Outcome,
    options: Options,
    here: HostProfile,
    kb: KnowledgeBase,
    runner: Runner,
    grant: Claim,
) -> None:
    from tfenv.install.create import child_env

    total = len(out.steps)
    number = out.steps.index(step) + 1
    runner.say(f"[{number}/{total}] {step.title}")
    started = time.monotonic()
    env = child_env(options.environ)
    for argv in step.argv:
        runner.say(f"    $ {command(argv, out.layout.os_name)}")
        try:
            ran = runner.run(argv, env, _doing(step.name))
        except OSError as exc:
            step.outcome = "failed"
            step.detail = _("Cannot run {program}: {why}.").format(
                program=argv[0], why=exc.strerror or exc
            )
            break
        if ran.code != 0:
            said = _("its output is above") if ran.on_terminal else _last(ran.tail)
            step.outcome = "failed"
            step.detail = _("{program} exited with status {code}: {said}").format(
                program=argv[0], code=ran.code, said=said
            )
            break
    else:
        step.outcome = "ok"
    if step.outcome == "ok":
        try:
            _after(step, out, options, here, kb, grant)
        except (OSError, ValueError, TfenvError) as exc:
            from tfenv.fsutil import describe_oserror

            why = describe_oserror(exc) if isinstance(exc, OSError) else str(exc)
            step.outcome, step.detail = "failed", why
    step.seconds = time.monotonic() - started
    if step.outcome != "failed":
        runner.say(f"    {step.outcome} ({_took(step.seconds)})")


def _after(
    step: Step,
    out: Outcome,
    options: Options,
    here: HostProfile,
    kb: KnowledgeBase,
    grant: Claim,
) -> None:
    """What a step does besides its commands: the marker, the scripts, the Verify step."""
    plan = out.source.plan
    if step.name == "create":
        lock = None if out.source.lock is None else str(out.source.lock)
        about = {"tensorflow": plan.tensorflow, "route": plan.route, "python": plan.python}
        grant.mark({**about, "lock": lock})
    elif step.name == "activation":
        step.detail = _activation(out)
    elif step.name == "verify":
        from tfenv.install.verify import verify

        res = out.source.res
        out.verdict = verify(out.layout, res, here, kb, options.environ, options.timeout)
        step.outcome = "ok" if out.verdict.ok else "problem"
        count = len(out.verdict.problems)
        step.detail = ngettext("{count} problem", "{count} problems", count).format(count=count)


def _activation(out: Outcome) -> str:
    from tfenv.install.activation import write_hooks

    written = write_hooks(out.layout, out.source.res)
    if not written:
        return _("nothing to set for this plan")
    return _("wrote {files}").format(files=", ".join(str(p) for p in written))


def _doing(name: str) -> str:
    doing = {"create": _("creating the environment"), "packages": _("installing packages")}
    return doing.get(name, name)


def _last(tail: str) -> str:
    lines = [ln for ln in tail.splitlines() if ln.strip()]
    return " ".join(lines[-6:]) if lines else _("(it printed nothing)")


def _took(seconds: float) -> str:
    from tfenv.install.runner import duration

    return duration(seconds)
