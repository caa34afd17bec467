"""``tfenv check-upgrade``: is moving to another TensorFlow version safe on our machines?"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tfenv.i18n import _

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    from tfenv.commands.resolve import add_machine_flags
    from tfenv.models.choices import MANAGERS

    src = parser.add_mutually_exclusive_group()
    src.add_argument(
        "--from", dest="from_version", metavar="SPEC", help=_("current version, e.g. 2.12")
    )
    src.add_argument(
        "--from-file",
        metavar="FILE",
        type=Path,
        action="append",
        default=[],
        help=_(
            "requirements*.txt, pylock*.toml, conda-lock*.yml or environment*.yml (or a folder "
            "of them); repeat for one lockfile per target (matched by name)"
        ),
    )
    src.add_argument(
        "--from-env",
        metavar="PREFIX",
        nargs="?",
        const="",
        help=_("read the installed TensorFlow of a venv/conda prefix (default: this interpreter)"),
    )
    parser.add_argument(
        "--to",
        metavar="SPEC",
        default="latest",
        help=_("latest (default), 2.16, 2.16.2 or a specifier"),
    )
    add_machine_flags(parser)
    parser.add_argument(
        "--config", metavar="PATH", type=Path, help=_("pyproject.toml or tfenv.toml")
    )
    parser.add_argument(
        "--target",
        metavar="NAME",
        action="append",
        default=[],
        help=_("only this configured target"),
    )
    parser.add_argument("--manager", choices=MANAGERS, default="auto")
    parser.add_argument(
        "--allow-cpu", action="store_true", help=_("accept CPU plans on GPU machines")
    )
    parser.add_argument(
        "--pre",
        action="store_true",
        help=_("consider pre-releases (needed for --to a series that has only pre-releases)"),
    )
    parser.add_argument(
        "--allow-downgrade",
        action="store_true",
        help=_("allow --to older than the current version"),
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help=_("warnings the move brings fail too (exit code 1); standing ones do not"),
    )
    parser.add_argument(
        "--relock",
        action="store_true",
        help=_(
            "diff every pin against a fresh lock of the new version (configured targets; "
            "uses the package index like 'tfenv lock')"
        ),
    )
    parser.add_argument(
        "--index-url",
        metavar="URL",
        type=_index_url,
        help=_("with --relock: the index to lock from"),
    )
    parser.add_argument("--offline", action="store_true", help=_("with --relock: caches only"))
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help=_("print one JSON object"))
    out.add_argument("--markdown", action="store_true", help=_("print Markdown for a PR comment"))


def _index_url(text: str) -> str:
    from tfenv.specs import parse_index_url

    return parse_index_url("--index-url", text)


def run(args: argparse.Namespace) -> int:
    from tfenv.commands.resolve import machine_args
    from tfenv.textsafe import visible_lines
    from tfenv.upgrade import render
    from tfenv.upgrade.api import check_upgrade

    report = check_upgrade(
        args.to,
        from_version=args.from_version,
        from_files=args.from_file,
        from_env=True if args.from_env == "" else args.from_env,
        config=args.config,
        targets=args.target,
        machine=machine_args(args),
        manager=args.manager,
        allow_cpu=args.allow_cpu,
        pre=args.pre,
        allow_downgrade=args.allow_downgrade,
        relock=args.relock,
        index_url=args.index_url,
        offline=args.offline,
    )
    if args.json:
        sys.stdout.write(render.to_json(report, args.strict))
    elif args.markdown:
        sys.stdout.write(visible_lines(render.to_markdown(report, args.strict)))
    else:
        sys.stdout.write(visible_lines(render.to_text(report, args.strict)))
    return report.exit_code(args.strict)
