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
    from tfenv import matrix, specs
    from tfenv.kb import KnowledgeBase

    kb = KnowledgeBase.from_environment()
    kb.load_all()
    series = sorted(b.series for b in kb.builds.all)
    tf = None
    if args.tf is not None:
        if not re.fullmatch(r"[0-9]{1,4}\.[0-9]{1,4}", args.tf.strip()):
            raise UsageError(f"--tf {args.tf!r} is not a TensorFlow series such as 2.15.")
        wanted = specs.parse_xy("--tf", args.tf)
        if wanted not in series:
            raise UsageError(
                f"--tf {args.tf.strip()}: the knowledge base has no TensorFlow {wanted} series.",
                hint=f"It knows {series[0]} to {series[-1]}.",
            )
        tf = str(wanted)
    cuda = None if args.cuda is None else specs.parse_count("--cuda", args.cuda, 1, 99)
    rows = matrix.matrix_rows(kb, tf, cuda)
    if not rows:
        if tf is None:
            raise UsageError(f"--cuda {cuda}: no TensorFlow series is built with CUDA {cuda}.")
        print(f"The TensorFlow {tf} series is not built with CUDA {cuda}.", file=sys.stderr)
        return 1
    if args.json:
        sys.stdout.write(matrix.render_json(rows))
    elif args.docs_page:
        sys.stdout.write(matrix.render_docs_page(rows))
    elif args.markdown:
        sys.stdout.write(matrix.render_markdown(rows))
    else:
        sys.stdout.write(matrix.render_text(rows))
    return 0
