"""``tfenv doctor``: diagnose an installed TensorFlow environment.

Reads the target environment (``--interpreter PATH``, ``--prefix DIR``, else the one the
user is in: the activated venv, the activated conda environment, the python on PATH, else
tfenv's own; :mod:`tfenv.doctor.where`) and checks TensorFlow, the nvidia-* wheels, the
CUDA libraries, ptxas/libdevice, the driver and the GPUs against the knowledge base, for
this machine or, with ``--host FILE`` or the machine flags (``--gpu``, ``--driver`` ...),
for the machine the environment is meant for: a GPU environment built on a CI runner or
in a Docker build, where there is no GPU, is checked as it will run there. Nothing from
the target environment runs unless asked (the python on PATH, or --interpreter, is asked
for its paths in an isolated child that imports only the standard library):
``--load-libraries`` loads each CUDA library found (in a child process; their
initialisation code runs), ``--import`` also imports TensorFlow in an isolated child
interpreter, on this machine. Exit 0 when healthy, 1 when a problem was found, 2 for bad
input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from tfenv.i18n import _, ngettext

if TYPE_CHECKING:
    from tfenv.doctor.env import TargetEnv
    from tfenv.doctor.findings import Finding
    from tfenv.doctor.where import Where
    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase

__all__ = ["configure", "run"]

_MARK = {"ok": "ok     ", "warning": "WARNING", "problem": "PROBLEM"}


def configure(parser: argparse.ArgumentParser) -> None:
    from tfenv.commands.resolve import add_machine_flags

    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--interpreter",
        "--python",
        dest="interpreter",
        action=_RememberFlag,
        metavar="PATH",
        help=_(
            "check the environment of this Python interpreter (a path; --python is an old "
            "name for it)"
        ),
    )
    target.add_argument("--prefix", metavar="DIR", help=_("check the environment in this folder"))
    add_machine_flags(parser, python=False)
    parser.add_argument(
        "--load-libraries",
        action="store_true",
        help=_(
            "also load each CUDA library found, in a child process (runs their "
            "initialisation code; without it doctor only reads files)"
        ),
    )
    parser.add_argument(
        "--import",
        dest="do_import",
        action="store_true",
        help=_(
            "also import TensorFlow in an isolated subprocess and run the plans' Verify "
            "check there (the GPU list, a computation) and a matmul on the GPU; a failing "
            "import's log is printed (implies --load-libraries)"
        ),
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=300.0,
        metavar="S",
        help=_("limit for --import (default 300 s)"),
    )
    parser.add_argument("--json", action="store_true", help=_("print the findings as JSON"))


class _RememberFlag(argparse.Action):
    """Store the value and the flag it came with (errors name the flag the user typed)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: Optional[str] = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_flag", option_string or self.option_strings[0])


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text)


def run(args: argparse.Namespace) -> int:
    import os

    from tfenv.doctor.checks import Inputs, diagnose
    from tfenv.host import detect
    from tfenv.kb import KnowledgeBase

    env, where = _environment(args)
    kb = KnowledgeBase.from_environment()
    here = detect(gpu_catalog=lambda: kb.gpus)
    machine = _target_machine(kb, args, here, env)
    inputs = Inputs(
        env=env,
        host=machine or here,
        kb=kb,
        environ=dict(os.environ),
        load_libraries=args.load_libraries or args.do_import,
        given=machine is not None,
    )
    findings = diagnose(inputs)
    log = ""
    if args.do_import:
        from tfenv.doctor.imports import run_import_check

        python = env.interpreter or args.interpreter or sys.executable
        from tfenv.doctor.checks import fix_os

        result = run_import_check(python, args.timeout, has_gpu=here.has_gpu, os=fix_os(inputs))
        findings += list(result.findings)
        log = result.log
    _print(findings, log, args.json, where)
    return 1 if any(f.status == "problem" for f in findings) else 0


def _environment(args: argparse.Namespace) -> tuple[TargetEnv, Where]:
    """The environment to check and how it was chosen: --interpreter, --prefix, else the
    one the user is in (:func:`tfenv.doctor.where.locate`)."""
    import os
    from pathlib import Path

    from tfenv.doctor import env as target_env
    from tfenv.doctor.where import Where

    if args.interpreter is not None:
        flag = getattr(args, "interpreter_flag", "--interpreter")
        env = target_env.from_python(_interpreter(args.interpreter, flag), flag=flag)
        return env, Where("interpreter", env.interpreter, env.prefix)
    if args.prefix is not None:
        env = target_env.from_prefix(Path(args.prefix))
        return env, Where("prefix", env.interpreter, env.prefix)
    return user_environment(os.environ)


def user_environment(environ: Mapping[str, str]) -> tuple[TargetEnv, Where]:
    """The environment the user is in, read: an activated one from its folder (nothing
    runs), the python on PATH by asking it (isolated, stdlib only); tfenv's own when
    there is none, or when the python on PATH cannot be run."""
    from tfenv.doctor import env as target_env
    from tfenv.doctor.where import Where, locate
    from tfenv.errors import UsageError

    where = locate(environ)
    if where.source in ("VIRTUAL_ENV", "CONDA_PREFIX") and where.prefix is not None:
        env = target_env.from_prefix(where.prefix, flag=where.source)
        return env, Where(where.source, env.interpreter, where.prefix)
    if where.source == "PATH" and where.interpreter is not None:
        try:
            env = target_env.from_python(where.interpreter, flag="PATH")
            return env, Where("PATH", where.interpreter, env.prefix)
        except UsageError:
            pass  # (a stub or a broken python on PATH): tfenv's own, and it says so
    env = target_env.current()
    return env, Where("tfenv", env.interpreter, env.prefix)


def _interpreter(text: str, flag: str) -> str:
    """--interpreter is a path: a bare X.Y (what --python means elsewhere) is refused; a
    relative path is taken from the current folder (the probe runs in a neutral one)."""
    import os
    import re

    from tfenv.errors import UsageError

    if re.fullmatch(r"\s*[0-9]+\.[0-9]+\s*", text):
        raise UsageError(
            _(
                "doctor's {flag} is the path of a Python interpreter, not a version: {text!r}."
            ).format(flag=flag, text=text),
            hint=_("Give the interpreter, e.g. {flag} $(command -v python{value}).").format(
                flag=flag, value=text.strip()
            ),
        )
    has_folder = os.sep in text or (os.altsep is not None and os.altsep in text)
    return os.path.abspath(text) if has_folder and not os.path.isabs(text) else text


def _target_machine(
    kb: KnowledgeBase, args: argparse.Namespace, here: HostProfile, env: TargetEnv
) -> Optional[HostProfile]:
    """The machine --host or the machine flags describe (None: check for this machine)."""
    from dataclasses import replace

    from tfenv.commands.resolve import given_machine
    from tfenv.models.target import MachineArgs

    m = given_machine(args)
    if m is None:
        return None
    if m.host_file is not None and replace(m, host_file=None) == MachineArgs():
        from tfenv.host.profile import read_host_file

        return read_host_file(m.host_file)  # the file alone: its machine as it is
    from tfenv import api
    from tfenv.doctor.checks import profile_of

    target = api.build_target(kb, m, detect=lambda: here)
    return profile_of(kb, target, env.python)


_LOG_LINES = 60  # the most of the import's log text mode prints (JSON carries 20,000 chars)


def _print(findings: list[Finding], log: str, as_json: bool, where: Where) -> None:
    from tfenv.doctor.where import describe

    if as_json:
        doc: dict[str, object] = {
            "healthy": not any(f.status == "problem" for f in findings),
            "environment": where.to_dict(),
            "findings": [f.to_dict() for f in findings],
        }
        if log:
            doc["import_log"] = log[-20000:]
        print(json.dumps(doc, indent=2))
        return
    from tfenv.textsafe import visible

    print(_("Checking: {where}").format(where=visible(describe(where))))
    print()
    for f in findings:
        print(f"[{_MARK[f.status]}] {visible(f.title)}")
        if f.detail:
            print(f"          {visible(f.detail)}")
        if f.fix and f.status != "ok":
            print("          " + _("fix: {fix}").format(fix=visible(f.fix)))
    n_problems = sum(f.status == "problem" for f in findings)
    n_warnings = sum(f.status == "warning" for f in findings)
    problems = ngettext("{count} problem", "{count} problems", n_problems)
    warnings = ngettext("{count} warning", "{count} warnings", n_warnings)
    print()
    print(
        _("{problems}, {warnings}.").format(
            problems=problems.format(count=n_problems), warnings=warnings.format(count=n_warnings)
        )
    )
    failed = any(f.id == "import" and f.status == "problem" for f in findings)
    if log.strip() and failed:
        lines = log.rstrip().splitlines()
        shown = lines[-_LOG_LINES:]
        print()
        if len(shown) < len(lines):
            print(
                _(
                    "The failing import's log, its last {shown} of {total} lines (tfenv "
                    "explain - reads it):"
                ).format(shown=len(shown), total=len(lines))
            )
        else:
            print(_("The failing import's log (tfenv explain - reads it):"))
        for line in shown:
            print(f"  | {visible(line)}")
