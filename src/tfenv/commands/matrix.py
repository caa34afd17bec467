"""``tfenv matrix``: the compatibility table (text, --json or --markdown)."""

from __future__ import annotations

import argparse
import re
import sys

from tfenv.errors import UsageError

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tf", metavar="X.Y", help="only this TensorFlow series, e.g. 2.15")
    parser.add_argument(
        "--cuda", metavar="MAJOR", help="only series built with this CUDA major, e.g. 12"
    )
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="machine-readable rows")
    fmt.add_argument("--markdown", action="store_true", help="a Markdown table")
    fmt.add_argument("--docs-page", action="store_true", help="the whole docs/matrix.md page")


def run(args: argparse.Namespace) -> int:
    from tfenv import matrix
    from tfenv.kb import KnowledgeBase

    if args.tf is not None and not re.fullmatch(r"\d+\.\d+", args.tf):
        raise UsageError(f"--tf {args.tf!r} is not a TensorFlow series such as 2.15.")
    if args.cuda is not None and not args.cuda.isdigit():
        raise UsageError(f"--cuda {args.cuda!r} is not a CUDA major version such as 12.")
    kb = KnowledgeBase.from_environment()
    kb.load_all()
    rows = matrix.matrix_rows(kb, args.tf, int(args.cuda) if args.cuda else None)
    if args.json:
        sys.stdout.write(matrix.render_json(rows))
    elif args.docs_page:
        sys.stdout.write(matrix.render_docs_page(rows))
    elif args.markdown:
        sys.stdout.write(matrix.render_markdown(rows))
    else:
        sys.stdout.write(matrix.render_text(rows))
    return 0
