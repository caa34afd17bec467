"""``tfenv check-upgrade``: is moving to another TensorFlow version safe on our machines?"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.kb import KnowledgeBase
    from tfenv.upgrade.assess import TargetInput
    from tfenv.upgrade.current import CurrentSource
    from tfenv.upgrade.model import TargetReport, UpgradeReport

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    from tfenv.commands.resolve import add_machine_flags
    from tfenv.models.target import MANAGERS

    src = parser.add_mutually_exclusive_group()
    src.add_argument(
        "--from", dest="from_version", metavar="SPEC", help="current version, e.g. 2.12"
    )
    src.add_argument(
        "--from-file",
        metavar="FILE",
        type=Path,
        action="append",
        default=[],
        help="requirements*.txt, pylock*.toml, conda-lock*.yml or environment*.yml (or a folder "
        "of them); repeat for one lockfile per target (matched by name)",
    )
    src.add_argument(
        "--from-env",
        metavar="PREFIX",
        nargs="?",
        const="",
        help="read the installed TensorFlow of a venv/conda prefix (default: this interpreter)",
    )
    parser.add_argument(
        "--to",
        metavar="SPEC",
        default="latest",
        help="latest (default), 2.16, 2.16.2 or a specifier",
    )
    add_machine_flags(parser)
    parser.add_argument("--config", metavar="PATH", type=Path, help="pyproject.toml or tfenv.toml")
    parser.add_argument(
        "--target", metavar="NAME", action="append", default=[], help="only this configured target"
    )
    parser.add_argument("--manager", choices=MANAGERS, default="auto")
    parser.add_argument("--allow-cpu", action="store_true", help="accept CPU plans on GPU machines")
    parser.add_argument(
        "--pre",
        action="store_true",
        help="consider pre-releases (needed for --to a series that has only pre-releases)",
    )
    parser.add_argument(
        "--allow-downgrade", action="store_true", help="allow --to older than the current version"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="warnings the move brings fail too (exit code 1); standing ones do not",
    )
    parser.add_argument(
        "--relock",
        action="store_true",
        help="diff every pin against a fresh lock of the new version (configured targets; "
        "uses the package index like 'tfenv lock')",
    )
    parser.add_argument(
        "--index-url", metavar="URL", type=_index_url, help="with --relock: the index to lock from"
    )
    parser.add_argument("--offline", action="store_true", help="with --relock: caches only")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--markdown", action="store_true", help="print Markdown for a PR comment")


def _index_url(text: str) -> str:
    from tfenv.specs import parse_index_url

    return parse_index_url("--index-url", text)


def run(args: argparse.Namespace) -> int:
    from tfenv.errors import ConfigError
    from tfenv.upgrade import render

    try:
        report = _report(args)
    except OSError as exc:  # a folder or file the OS refuses: bad input, not a crash
        raise ConfigError(f"Cannot read {exc.filename}: {exc.strerror or exc}.") from None
    from tfenv.textsafe import visible_lines

    if args.json:
        sys.stdout.write(render.to_json(report, args.strict))
    elif args.markdown:
        sys.stdout.write(visible_lines(render.to_markdown(report, args.strict)))
    else:
        sys.stdout.write(visible_lines(render.to_text(report, args.strict)))
    return report.exit_code(args.strict)


def _report(args: argparse.Namespace) -> UpgradeReport:
    from tfenv.commands.resolve import given_machine
    from tfenv.kb import KnowledgeBase
    from tfenv.upgrade import inputs
    from tfenv.upgrade.assess import assess
    from tfenv.upgrade.model import UpgradeReport

    kb = KnowledgeBase.from_environment()
    move = inputs.make_move(kb, args.to, args.pre)
    machine = given_machine(args)
    config = inputs.find_project(args.config) if (args.config or machine is None) else None
    source = inputs.current_source(kb, args.from_version, args.from_file, args.from_env, config)
    way = inputs.direction(kb, source, move, args.allow_downgrade)
    chosen = inputs.targets(kb, machine, config, args.target, args.manager, args.allow_cpu)
    reports = tuple(
        assess(kb, t, source.for_target(t.name, t.target.platform.conda_subdir), move)
        for t in chosen
    )
    notes: tuple[str, ...] = ()
    if args.relock:
        reports = _relocked(kb, args, config, source, chosen, reports)
    elif source.locked:
        notes = (
            "Package changes compare lock pins with the new plan's top-level pins and "
            "TensorFlow's declared requirements; --relock compares every pin with a fresh lock.",
        )
    folder = str(config.folder) if config is not None else None
    return UpgradeReport(source.describe, move.to_text, way, reports, notes, folder)  # type: ignore[arg-type]


def _relocked(
    kb: KnowledgeBase,
    args: argparse.Namespace,
    config: Optional[ProjectConfig],
    source: CurrentSource,
    chosen: Sequence[TargetInput],
    reports: tuple[TargetReport, ...],
) -> tuple[TargetReport, ...]:
    """Replace each target's package diff by a full diff against a fresh lock."""
    import os
    from dataclasses import replace

    from tfenv.errors import UsageError
    from tfenv.lock import LockOptions
    from tfenv.upgrade.relock import fresh_pins, pin_diff

    if config is None or not source.locked:
        raise UsageError(
            "--relock needs the team's configuration ([tool.tfenv] or tfenv.toml) and its "
            "lockfiles, to lock each target again for the new version."
        )
    options = LockOptions(index_url=args.index_url, offline=args.offline, environ=os.environ)
    out = []
    for inp, report in zip(chosen, reports):
        current = source.for_target(inp.name, inp.target.platform.conda_subdir)
        if not report.resolves or report.to_version is None or current.pins is None:
            out.append(report)
            continue
        name, pins = fresh_pins(kb, config, inp.name, report.to_version, options)
        basis = f"{current.origin} vs a fresh lock of TensorFlow {report.to_version} ({name})"
        out.append(replace(report, packages=pin_diff(current.pins, pins), packages_basis=basis))
    return tuple(out)
