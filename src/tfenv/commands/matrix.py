"""``tfenv matrix``: the compatibility table (text, --json or --markdown) and its chart
(--svg, --html)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from tfenv.errors import UsageError
from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.matrix import Row

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tf", metavar="X.Y", help=_("only this TensorFlow series, e.g. 2.15"))
    parser.add_argument(
        "--cuda", metavar="MAJOR", help=_("only series built with this CUDA major, e.g. 12")
    )
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help=_("machine-readable rows"))
    fmt.add_argument("--markdown", action="store_true", help=_("a Markdown table"))
    fmt.add_argument("--docs-page", action="store_true", help=_("the whole docs/matrix.md page"))
    parser.add_argument(
        "--svg", metavar="FILE", type=Path, help=_("also write the compatibility chart as SVG")
    )
    parser.add_argument(
        "--html", metavar="FILE", type=Path, help=_("also write the chart as one HTML page")
    )


def run(args: argparse.Namespace) -> int:
    from tfenv import matrix, specs
    from tfenv.kb import KnowledgeBase

    charts = _chart_paths(args)
    kb = KnowledgeBase.from_environment()
    kb.load_all()
    series = sorted(b.series for b in kb.builds.all)
    tf = None
    if args.tf is not None:
        if not re.fullmatch(r"[0-9]{1,4}\.[0-9]{1,4}", args.tf.strip()):
            raise UsageError(
                _("--tf {tf!r} is not a TensorFlow series such as 2.15.").format(tf=args.tf)
            )
        wanted = specs.parse_xy("--tf", args.tf, "2.15")
        if wanted not in series:
            raise UsageError(
                _("--tf {value}: the knowledge base has no TensorFlow {wanted} series.").format(
                    value=args.tf.strip(), wanted=wanted
                ),
                hint=_("It knows {series} to {series2}.").format(
                    series=series[0], series2=series[-1]
                ),
            )
        tf = str(wanted)
    cuda = None if args.cuda is None else specs.parse_count("--cuda", args.cuda, 1, 99)
    rows = matrix.matrix_rows(kb, tf, cuda)
    if not rows:
        if tf is None:
            raise UsageError(
                _("--cuda {cuda}: no TensorFlow series is built with CUDA {cuda}.").format(
                    cuda=cuda
                )
            )
        print(
            _("The TensorFlow {tf} series is not built with CUDA {cuda}.").format(tf=tf, cuda=cuda),
            file=sys.stderr,
        )
        return 1
    if charts:  # --svg/--html also write a chart: the table is printed all the same
        _write_charts(kb, rows, charts)
    sys.stdout.write(_table(args, rows))
    return 0


def _table(args: argparse.Namespace, rows: list[Row]) -> str:
    from tfenv import matrix

    if args.json:
        return matrix.render_json(rows)
    if args.docs_page:
        return matrix.render_docs_page(rows)
    if args.markdown:
        return matrix.render_markdown(rows)
    return matrix.render_text(rows)


def _chart_paths(args: argparse.Namespace) -> list[tuple[str, str, Path]]:
    """(flag, format, path) of each chart asked for, checked before any work."""
    from tfenv.chart.files import check_path

    out = [(f"--{fmt}", fmt, p) for fmt, p in (("svg", args.svg), ("html", args.html)) if p]
    for flag, _fmt, path in out:
        check_path(flag, path)
    if len(out) == 2 and out[0][2].resolve() == out[1][2].resolve():
        raise UsageError(
            _("--svg and --html name the same file ({svg}); give two names.").format(svg=args.svg)
        )
    return out


def _write_charts(kb: KnowledgeBase, rows: list[Row], charts: list[tuple[str, str, Path]]) -> None:
    from tfenv.chart.files import write_chart
    from tfenv.chart.render import matrix_chart_text
    from tfenv.textsafe import visible

    for flag, fmt, path in charts:
        write_chart(flag, path, matrix_chart_text(kb, rows, fmt))
        print(_("Wrote {paths}").format(paths=visible(str(path))), file=sys.stderr)
