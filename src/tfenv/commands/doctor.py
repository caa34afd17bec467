"""``tfenv doctor``: diagnose an installed TensorFlow environment on this machine.

Reads the target environment from disk (the current one, ``--python PATH`` or
``--prefix DIR``), detects the machine, and checks TensorFlow, the nvidia-* wheels, the
CUDA libraries, ptxas/libdevice, the driver and the GPUs against the knowledge base.
Nothing from the target environment runs unless asked: ``--load-libraries`` loads each
CUDA library found (in a child process; their initialisation code runs), ``--import``
also imports TensorFlow in an isolated child interpreter. Exit 0 when healthy, 1 when a
problem was found, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfenv.doctor.findings import Finding

__all__ = ["configure", "run"]

_MARK = {"ok": "ok     ", "warning": "WARNING", "problem": "PROBLEM"}


def configure(parser: argparse.ArgumentParser) -> None:
    target = parser.add_mutually_exclusive_group()
    target.add_argument(
        "--python", metavar="PATH", help="check the environment of this interpreter"
    )
    target.add_argument("--prefix", metavar="DIR", help="check the environment in this folder")
    parser.add_argument(
        "--load-libraries",
        action="store_true",
        help="also load each CUDA library found, in a child process (runs their "
        "initialisation code; without it doctor only reads files)",
    )
    parser.add_argument(
        "--import",
        dest="do_import",
        action="store_true",
        help="also import TensorFlow in an isolated subprocess and run a matmul on the GPU "
        "(implies --load-libraries)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=300.0,
        metavar="S",
        help="limit for --import (default 300 s)",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text)


def run(args: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from tfenv.doctor import env as target_env
    from tfenv.doctor.checks import Inputs, diagnose
    from tfenv.host import detect
    from tfenv.kb import KnowledgeBase

    if args.python is not None:
        env = target_env.from_python(args.python)
    elif args.prefix is not None:
        env = target_env.from_prefix(Path(args.prefix))
    else:
        env = target_env.current()
    host = detect()
    inputs = Inputs(
        env=env,
        host=host,
        kb=KnowledgeBase.from_environment(),
        environ=dict(os.environ),
        load_libraries=args.load_libraries or args.do_import,
    )
    findings = diagnose(inputs)
    log = ""
    if args.do_import:
        from tfenv.doctor.imports import run_import_check

        python = env.interpreter or args.python or sys.executable
        result = run_import_check(python, args.timeout)
        findings += list(result.findings)
        log = result.log
    _print(findings, log, args.json)
    return 1 if any(f.status == "problem" for f in findings) else 0


def _print(findings: list[Finding], log: str, as_json: bool) -> None:
    if as_json:
        doc: dict[str, object] = {
            "healthy": not any(f.status == "problem" for f in findings),
            "findings": [f.to_dict() for f in findings],
        }
        if log:
            doc["import_log"] = log[-20000:]
        print(json.dumps(doc, indent=2))
        return
    from tfenv.textsafe import visible

    for f in findings:
        print(f"[{_MARK[f.status]}] {visible(f.title)}")
        if f.detail:
            print(f"          {visible(f.detail)}")
        if f.fix and f.status != "ok":
            print(f"          fix: {visible(f.fix)}")
    n_problems = sum(f.status == "problem" for f in findings)
    n_warnings = sum(f.status == "warning" for f in findings)
    print(f"\n{n_problems} problem(s), {n_warnings} warning(s).")
    if log and n_problems:
        print("TensorFlow's log from --import can be explained with: tfenv explain -")
