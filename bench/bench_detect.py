"""Time ``tfenv detect --json`` against a bare ``python -c pass``.

Each command runs in a fresh subprocess N times (after one warm-up run); the
median wall time of each and their ratio are printed. Usage::

    .venv/bin/python bench/bench_detect.py [-n 20]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence


def median_seconds(argv: Sequence[str], runs: int) -> float:
    subprocess.run(argv, capture_output=True, check=True)  # warm the file cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=20, help="runs per command")
    args = parser.parse_args(argv)
    baseline = median_seconds([sys.executable, "-c", "pass"], args.runs)
    detect = median_seconds([sys.executable, "-m", "tfenv", "detect", "--json"], args.runs)
    print(f"runs per command:          {args.runs}")
    print(f"python -c pass      median {baseline * 1000:8.1f} ms")
    print(f"tfenv detect --json median {detect * 1000:8.1f} ms")
    print(f"ratio                      {detect / baseline:8.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
