"""``tfenv install [DIR]``: plan (or take a lockfile), create the environment, install,
write its activation scripts, and verify it here. See docs/install.md."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.host.profile import HostProfile
    from tfenv.install.source import Source
    from tfenv.install.steps import Outcome
    from tfenv.install.verify import Verdict
    from tfenv.kb import KnowledgeBase

__all__ = ["configure", "run"]

_MARK = {"ok": "ok     ", "warning": "WARNING", "problem": "PROBLEM"}


def configure(parser: argparse.ArgumentParser) -> None:
    from tfenv.commands.resolve import add_machine_flags
    from tfenv.models.choices import CUDA_LIBS, MANAGERS

    parser.add_argument(
        "dir",
        nargs="?",
        metavar="DIR",
        help=_(
            "the environment's folder (default .venv; a conda route: an environment name "
            "or folder, default tf-VERSION)"
        ),
    )
    parser.add_argument(
        "--tf", metavar="SPEC", help=_("latest (default), 2.15, 2.15.1 or a PEP 440 specifier")
    )
    add_machine_flags(parser)
    parser.add_argument("--manager", choices=MANAGERS, default="auto", help=_("as for resolve"))
    parser.add_argument("--allow-cpu", action="store_true", help=_("as for resolve"))
    parser.add_argument("--pre", action="store_true", help=_("consider pre-releases"))
    parser.add_argument("--cuda-libs", choices=CUDA_LIBS, default="build", help=_("as for resolve"))
    parser.add_argument(
        "--lock", metavar="FILE", type=Path, help=_("install this hashed lockfile of 'tfenv lock'")
    )
    parser.add_argument(
        "--target", metavar="NAME", help=_("install the lockfile of this target of the project")
    )
    parser.add_argument(
        "--allow-stale",
        action="store_true",
        help=_(
            "install a lockfile whose inputs changed since it was written (the "
            "configuration, a target, another tfenv's data); one edited by hand is refused always"
        ),
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        help=_(
            "the project's configuration for --lock/--target (default: the lockfile's "
            "folder, else the current one)"
        ),
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help=_("replace an environment tfenv install created in DIR (nothing else is deleted)"),
    )
    parser.add_argument(
        "--keep-failed", action="store_true", help=_("keep a failed environment for inspection")
    )
    parser.add_argument("--offline", action="store_true", help=_("install from uv's cache only"))
    parser.add_argument(
        "--no-uv",
        action="store_true",
        help=_("create with python -m venv and install with pip (default: uv where installed)"),
    )
    parser.add_argument(
        "--no-space-check",
        action="store_true",
        help=_("skip the check that the disk has room for the download and the environment"),
    )
    parser.add_argument("--dry-run", action="store_true", help=_("print the steps, change nothing"))
    parser.add_argument("--index-url", metavar="URL", type=_index_url, help=_("the package index"))
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=300.0,
        metavar="S",
        help=_("limit for the Verify step's import (default 300 s)"),
    )
    parser.add_argument("--json", action="store_true", help=_("print each step as JSON"))


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text)


def _index_url(text: str) -> str:
    from tfenv.specs import parse_index_url

    return parse_index_url("--index-url", text)


def run(args: argparse.Namespace) -> int:
    import os

    from tfenv.host import detect
    from tfenv.install import flow, steps
    from tfenv.install.runner import Runner
    from tfenv.install.source import check_machine
    from tfenv.kb import KnowledgeBase

    _refuse_host(args)
    kb = KnowledgeBase.from_environment()
    here = detect(gpu_catalog=lambda: kb.gpus)
    source = _source(args, kb, here)
    if not args.dry_run:
        check_machine(source.res, here)
    options = steps.Options(
        folder=args.dir,
        force=args.force,
        keep_failed=args.keep_failed,
        offline=args.offline,
        index_url=args.index_url,
        use_uv=not args.no_uv,
        timeout=args.timeout,
        environ=dict(os.environ),
    )
    out = steps.prepare(source, options, source.res.target.os)
    if args.dry_run:
        from tfenv.install.claim import claim

        if out.layout.here:  # refusals (not for a folder of another kind of machine)
            claim(out.layout.folder, force=args.force, keep_failed=args.keep_failed)
        _report(out, args.json, dry_run=True)
        return 0
    if not args.no_space_check:
        from tfenv.install.claim import claim
        from tfenv.install.space import preflight

        claim(out.layout.folder, force=args.force, keep_failed=args.keep_failed)  # refusals first
        out.space = preflight(out, options)  # UsageError (exit 2) when a disk is short
    runner = Runner(_say, terminal=_on_terminal(), echo=True)
    _say(_("Installing {what}").format(what=source.describe()))
    if out.space:
        _say(out.space)
    if source.stale:
        _say(
            _("warning: the lockfile is stale (--allow-stale): {changes}").format(
                changes="; ".join(source.stale)
            )
        )
    flow.execute(out, options, here, kb, runner)
    _report(out, args.json, dry_run=False)
    return 0 if out.status == "ok" else 1


def _refuse_host(args: argparse.Namespace) -> None:
    from tfenv.errors import UsageError

    if args.host is not None:
        raise UsageError(
            _(
                "tfenv install installs on this machine, so --host (another machine's profile) "
                "does not apply."
            ),
            hint=_("Use 'tfenv resolve --host FILE' or 'tfenv lock' to plan for another machine."),
        )
    if args.lock is None and args.target is None:
        if args.config is not None:
            raise UsageError(_("--config goes with --lock or --target."))
        if args.allow_stale:
            raise UsageError(_("--allow-stale goes with --lock or --target."))


def _source(args: argparse.Namespace, kb: KnowledgeBase, here: HostProfile) -> Source:
    from tfenv.install.source import from_lock, from_resolution

    if args.lock is not None or args.target is not None:
        _no_plan_flags(args)
        from tfenv.config import load_config

        if args.lock is not None and not _is_file(args.lock):
            from tfenv.errors import UsageError

            raise UsageError(_("--lock {lock}: no such file.").format(lock=args.lock))

        folder = args.config or (str(args.lock.parent) if args.lock is not None else ".")
        return from_lock(kb, load_config(folder), args.target, args.lock, args.allow_stale)
    from tfenv import api
    from tfenv.commands.resolve import machine_args
    from tfenv.resolver import resolve

    request = api.build_request(
        kb, args.tf, args.manager, args.allow_cpu, args.no_gpu, args.pre, args.cuda_libs
    )
    target = api.build_target(kb, machine_args(args), detect=lambda: here)
    return from_resolution(resolve(kb, target, request))


def _no_plan_flags(args: argparse.Namespace) -> None:
    from tfenv.commands.resolve import given_machine
    from tfenv.errors import UsageError

    given = [
        flag
        for flag, on in (
            ("--tf", args.tf is not None),
            ("--manager", args.manager != "auto"),
            ("--allow-cpu", args.allow_cpu),
            ("--pre", args.pre),
            ("--cuda-libs", args.cuda_libs != "build"),
            (_("the machine flags"), given_machine(args) is not None),
        )
        if on
    ]
    if given:
        raise UsageError(
            _(
                "{given} plan(s) for a machine, and a lockfile's target is planned by the "
                "project's configuration; give one or the other."
            ).format(given=_(", ").join(given))
        )


def _on_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _say(text: str) -> None:
    from tfenv.textsafe import visible

    print(visible(text), file=sys.stderr, flush=True)


def _report(out: Outcome, as_json: bool, dry_run: bool) -> None:
    if as_json:
        print(json.dumps(out.to_dict(), indent=2))
    elif dry_run:
        _print_dry_run(out)
    elif out.status == "failed":
        failed = next(s for s in out.steps if s.outcome == "failed")
        _p(
            _("Install failed at step '{name}': {detail}").format(
                name=failed.name, detail=failed.detail
            )
        )
        _p(out.rolled_back)
    else:
        _print_done(out)


def _p(text: str = "") -> None:
    from tfenv.textsafe import visible

    print(visible(text))


def _print_dry_run(out: Outcome) -> None:
    from tfenv.install.shell import command
    from tfenv.install.steps import remaining_steps

    _p(_("Plan: {plan}").format(plan=out.source.plan.summary()))
    if out.missing:
        _p(_("({missing} These are the commands to run once one is.)").format(missing=out.missing))
    _p(_("Steps:"))
    for n, step in enumerate(out.steps, 1):
        _p(f"  {n}. {step.title}")
        for argv in step.argv:
            _p(f"       {command(argv, out.layout.os_name)}")
    _print_remaining(remaining_steps(out.source, conda_here=not out.missing))


def _print_remaining(lines: tuple[str, ...]) -> None:
    if lines:
        _p(_("Still to do by hand:"))
        for line in lines:
            _p(f"  - {line}")


def _print_done(out: Outcome) -> None:
    from tfenv.install.shell import command

    os_name = out.layout.os_name
    _p(
        _("Environment: {prefix} ({tool}): {plan}").format(
            prefix=out.layout.prefix, tool=out.tool, plan=out.source.plan.summary()
        )
    )
    for step in out.steps:
        took = "-" if step.seconds is None else f"{step.seconds:.1f} s"
        _p(f"  {step.name:<11} {step.outcome:<8} {took:>9}  {step.detail}".rstrip())
    if out.verdict is not None:
        _print_verdict(out.verdict)
    _print_remaining(out.remaining)
    _p()
    if out.status == "ok":
        _p(_("Verify: ok"))
    elif out.remaining:
        doctor = command(
            ["tfenv", "doctor", "--prefix", str(out.layout.prefix), "--import"], os_name
        )
        _p(
            _(
                "Verify: not yet: do the steps above, then check again with '{doctor}' after "
                "activating"
            ).format(doctor=doctor)
        )
    else:
        _p(_("Verify: found a problem (see above)"))
    _p(_("Activate it with: {out}").format(out=_activate_line(out)))
    if out.layout.windows:
        _p(_powershell_line(out))


def _powershell_line(out: Outcome) -> str:
    """Windows: what PowerShell needs to activate the environment, whose activation runs a
    .ps1 script (Activate.ps1; conda's profile and activate-tfenv.ps1): scripts allowed
    by the execution policy (routes/powershell.py words the plan's step)."""
    from tfenv.install.shell import command
    from tfenv.kb import KnowledgeBase
    from tfenv.shells import powershell_script

    policy = KnowledgeBase.from_environment().conda.execution_policy
    allow = {
        "current_user": command(list(policy.current_user), "windows"),
        "process": command(list(policy.process), "windows"),
        "page": policy.page,
    }
    if out.layout.conda:
        return _(
            "In PowerShell (after conda init powershell), first allow scripts for your user "
            "with {current_user}, or for this window only with {process} (Microsoft's "
            "about_Execution_Policies: {page})."
        ).format(**allow)
    script = powershell_script(str(out.layout.scripts / "Activate.ps1"))
    return _(
        "In PowerShell: {script}, once scripts are allowed for your user with {current_user}, "
        "or for this window only with {process} (Microsoft's about_Execution_Policies: {page})."
    ).format(script=script, **allow)


def _print_verdict(verdict: Verdict) -> None:
    _p()
    for f in verdict.findings:
        if f.status == "ok" and not f.id.startswith("import"):
            continue  # doctor's passing checks: the problems and the import say enough
        _p(f"[{_MARK[f.status]}] {f.title}")
        if f.detail:
            _p(f"          {f.detail}")
        if f.fix and f.status != "ok" and not (verdict.answers and "tfenv explain" in f.fix):
            _p("          " + _("fix: {fix}").format(fix=f.fix))  # (explain's answers follow)
    for note in verdict.notes:
        _p(_("No GPU here: {note}").format(note=note))
    if verdict.answers:
        _p(_("tfenv explain says:"))
        for answer in verdict.answers:
            _p(f"  - {answer}")


def _activate_line(out: Outcome) -> str:
    from tfenv.install.shell import command

    layout = out.layout
    if layout.conda:
        return command(
            [out.tool if out.tool != "conda" else "conda", "activate", str(layout.prefix)],
            layout.os_name,
        )
    if layout.windows:  # cmd.exe's form (PowerShell's follows: _powershell_line)
        return command([str(layout.scripts / "activate.bat")], layout.os_name)
    return command([".", str(layout.scripts / "activate")], layout.os_name)


def _is_file(path: Path) -> bool:
    """Path.is_file, with a name the system refuses (too long, say) taken as no file."""
    try:
        return path.is_file()
    except OSError:
        return False
