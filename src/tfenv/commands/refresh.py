"""``tfenv refresh``: regenerate the index-derived knowledge-base files.

Reads the configured package index (``--index-url``, else ``TFENV_INDEX_URL``,
``UV_DEFAULT_INDEX``, ``UV_INDEX_URL``, ``PIP_INDEX_URL``, else pip's
configuration, else pip's default) and rewrites ``data/index/*.json``. With
``--check`` it writes nothing, prints what changed and exits 1 on drift.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def _default_data_dir() -> Path:
    import tfenv.data

    return Path(tfenv.data.__file__).parent


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--index-url", help="the simple index to read (default: configuration)")
    parser.add_argument(
        "--check",
        action="store_true",
        help="compare with the shipped files, print the drift, exit 1 on drift; write nothing",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="the data directory holding index/ (default: tfenv's own data)",
    )
    parser.add_argument(
        "--package",
        action="append",
        default=None,
        metavar="NAME",
        help="refresh only this package (repeatable; 'cuda-wheels' for the and-cuda list)",
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, help="seconds per HTTP request (default 30)"
    )


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text)


def run(args: argparse.Namespace) -> int:
    from tfenv.errors import UsageError
    from tfenv.kb._index_url import configured_index_url, redact
    from tfenv.kb.refresh import make_client, refresh
    from tfenv.specs import parse_index_url

    data_dir: Path = args.data_dir or _default_data_dir()
    try:
        usable = data_dir.is_dir() or (not args.check and not data_dir.exists())
    except (OSError, ValueError):
        usable = False
    if not usable:
        raise UsageError(f"--data-dir {data_dir}: not a folder.")
    index_url, origin = configured_index_url(args.index_url)
    if not index_url:
        raise UsageError(
            f"No package index to read: {origin}.",
            hint="Pass --index-url URL, or set PIP_INDEX_URL or UV_INDEX_URL.",
        )
    parse_index_url("--index-url" if args.index_url else origin, index_url)
    print(f"index: {redact(index_url)} (from {origin})", file=sys.stderr)
    started = time.monotonic()
    with make_client(args.timeout) as client:
        outcome = refresh(
            client,
            index_url,
            data_dir,
            packages=args.package,
            check=args.check,
            progress=lambda msg: print(msg, file=sys.stderr),
        )
    took = time.monotonic() - started
    summary = f"{outcome.releases} releases, {outcome.wheels} wheels, {took:.1f} s"
    if args.check:
        if outcome.drift:
            print(f"drift from the index ({len(outcome.drift)} difference(s)):")
            for line in outcome.drift:
                print(f"  {line}")
            print(f"({summary}) run 'tfenv refresh' to update the files.")
            return 1
        print(f"no drift: the shipped index files match the index ({summary}).")
        return 0
    for path in outcome.written:
        print(f"wrote {path}")
    print(f"done ({summary}).")
    return 0
