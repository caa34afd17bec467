"""Benchmark ``tfenv matrix --json`` (loads and validates the whole KB) against ``python -c pass``.

Run by hand: ``python bench/bench_matrix.py [-n RUNS]``. Two figures for ``tfenv matrix``:
with the per-user KB cache warm, and with it disabled (``TFENV_CACHE_DIR=``), which parses
and validates every data file from scratch.
"""

from __future__ import annotations

import argparse
import sys

from _timing import report, run_interleaved


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--runs", type=int, default=20)
    args = parser.parse_args()
    no_cache = [
        sys.executable,
        "-c",
        "import os, sys; os.environ['TFENV_CACHE_DIR'] = ''; "
        "from tfenv.cli import main; sys.exit(main(['matrix', '--json']))",
    ]
    times = run_interleaved(
        {
            "python -c pass": [sys.executable, "-c", "pass"],
            "tfenv matrix --json (cache warm)": [sys.executable, "-m", "tfenv", "matrix", "--json"],
            "tfenv matrix --json (no cache)": no_cache,
        },
        args.runs,
    )
    report(times, "python -c pass")


if __name__ == "__main__":
    main()
