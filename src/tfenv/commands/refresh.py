"""``tfenv refresh``: regenerate the index-derived knowledge-base files.

Reads the configured package index (``--index-url``, else ``TFENV_INDEX_URL``,
``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``, ``PIP_INDEX_URL``, else pip's
configuration, else pip's default) and rewrites ``data/index/*.json``. With
``--check`` it writes nothing, prints what changed and exits 1 on drift.

``--gpus README.md`` (a path or URL) instead regenerates ``data/nvidia/gpus-readme.json``
from the "Compatible GPUs" table of NVIDIA's open-kernel-module README; the package
index is not read then.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tfenv.i18n import _, ngettext

if TYPE_CHECKING:
    from tfenv.refresh import GpuRefreshOutcome, RefreshOutcome


def _default_data_dir() -> Path:
    import tfenv.data

    return Path(tfenv.data.__file__).parent


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--index-url", help=_("the simple index to read (default: configuration)"))
    parser.add_argument(
        "--check",
        action="store_true",
        help=_("compare with the shipped files, print the drift, exit 1 on drift; write nothing"),
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help=_("the data directory holding index/ (default: tfenv's own data)"),
    )
    parser.add_argument(
        "--package",
        action="append",
        default=None,
        metavar="NAME",
        help=_("refresh only this package (repeatable; 'cuda-wheels' for the and-cuda list)"),
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, help=_("seconds per HTTP request (default 30)")
    )
    parser.add_argument("-q", "--quiet", action="store_true", help=_("no progress messages"))
    parser.add_argument(
        "--json",
        action="store_true",
        help=_("print a JSON summary on stdout (drift, files written)"),
    )
    parser.add_argument(
        "--gpus",
        metavar="README",
        default=None,
        help=_(
            "regenerate the GPU table from NVIDIA/open-gpu-kernel-modules' README.md "
            "(a file path or URL) instead of reading the package index"
        ),
    )
    parser.add_argument(
        "--gpus-commit",
        metavar="SHA",
        default=None,
        help=_(
            "the commit (or release tag) that README was read at, recorded as its source "
            "(taken from a GitHub raw/blob URL when not given)"
        ),
    )


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text)


def run(args: argparse.Namespace) -> int:
    from tfenv.errors import UsageError
    from tfenv.index_url import redact
    from tfenv.refresh import make_client, refresh

    data_dir: Path = args.data_dir or _default_data_dir()
    try:
        usable = data_dir.is_dir() or (not args.check and not data_dir.exists())
    except (OSError, ValueError):
        usable = False
    if not usable:
        raise UsageError(_("--data-dir {data_dir}: not a folder.").format(data_dir=data_dir))
    if args.gpus is not None:
        return _run_gpus(args, data_dir)
    if args.gpus_commit is not None:
        raise UsageError(_("--gpus-commit goes with --gpus README."))
    index_url, origin = _index(args)
    say = _silent if args.quiet or args.json else _to_stderr
    say(_("index: {index_url} (from {origin})").format(index_url=redact(index_url), origin=origin))
    started = time.monotonic()
    with make_client(args.timeout) as client:
        outcome = refresh(
            client,
            index_url,
            data_dir,
            packages=args.package,
            check=args.check,
            progress=say,
        )
    took = time.monotonic() - started
    code = 1 if args.check and outcome.drift else 0
    if args.json:
        doc = {
            "command": "refresh --check" if args.check else "refresh",
            "ok": code == 0,
            "index_url": redact(index_url),
            "index_url_from": origin,
            "releases": outcome.releases,
            "wheels": outcome.wheels,
            "seconds": round(took, 1),
            "drift": list(outcome.drift),
            "written": [str(p) for p in outcome.written],
        }
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return code
    summary = _("{releases}, {wheels}, {seconds} s").format(
        releases=ngettext("{count} release", "{count} releases", outcome.releases).format(
            count=outcome.releases
        ),
        wheels=ngettext("{count} wheel", "{count} wheels", outcome.wheels).format(
            count=outcome.wheels
        ),
        seconds=f"{took:.1f}",
    )
    return _report(args, outcome, summary, gpus=False)


def _index(args: argparse.Namespace) -> tuple[str, str]:
    """The index to read and where its URL came from; a UsageError when there is none."""
    from tfenv.errors import UsageError
    from tfenv.index_url import configured_index_url
    from tfenv.specs import parse_index_url

    index_url, origin = configured_index_url(args.index_url)
    if not index_url:
        raise UsageError(
            _("No package index to read: {origin}.").format(origin=origin),
            hint=_("Pass --index-url URL, or set PIP_INDEX_URL or UV_INDEX_URL."),
        )
    parse_index_url("--index-url" if args.index_url else origin, index_url)
    return index_url, origin


def _report(
    args: argparse.Namespace,
    outcome: RefreshOutcome | GpuRefreshOutcome,
    summary: str,
    gpus: bool,
) -> int:
    """Print what a refresh wrote, or with --check what drifted (exit 1 when anything did):
    of the index files, or (``gpus``) of the GPU table read from NVIDIA's README."""
    if args.check:
        n = len(outcome.drift)
        if outcome.drift:
            if gpus:
                heading = ngettext(
                    "drift from the README ({count} difference):",
                    "drift from the README ({count} differences):",
                    n,
                )
                rerun = _("({summary}) run 'tfenv refresh --gpus' to update the file.")
            else:
                heading = ngettext(
                    "drift from the index ({count} difference):",
                    "drift from the index ({count} differences):",
                    n,
                )
                rerun = _("({summary}) run 'tfenv refresh' to update the files.")
            print(heading.format(count=n))
            for line in outcome.drift:
                print(f"  {line}")
            print(rerun.format(summary=summary))
            return 1
        if gpus:
            print(
                _("no drift: the shipped GPU table matches the README ({summary}).").format(
                    summary=summary
                )
            )
        else:
            print(
                _("no drift: the shipped index files match the index ({summary}).").format(
                    summary=summary
                )
            )
        return 0
    for path in outcome.written:
        print(_("wrote {path}").format(path=path))
    print(_("done ({summary}).").format(summary=summary))
    return 0


def _to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _silent(message: str) -> None:
    return


def _run_gpus(args: argparse.Namespace, data_dir: Path) -> int:
    from tfenv.refresh import make_client, refresh_gpus

    with make_client(args.timeout) as client:
        outcome = refresh_gpus(
            args.gpus, data_dir, commit=args.gpus_commit, check=args.check, client=client
        )
    doc = outcome.document
    count = len(doc["gpus"])
    summary = ngettext(
        "{count} GPU from {rows} rows of {source}",
        "{count} GPUs from {rows} rows of {source}",
        count,
    ).format(count=count, rows=doc["rows"], source=doc["source"])
    return _report(args, outcome, summary, gpus=True)
