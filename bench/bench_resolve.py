"""Benchmark ``tfenv resolve --json`` against ``python -c pass``, and the whole matrix in-process.

Run by hand: ``python bench/bench_resolve.py [-n RUNS]``. Figures go in the issue notes,
not in tests: compare the ratios measured in one run.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from _timing import report, run_interleaved

RESOLVE = [
    "-m",
    "tfenv",
    "resolve",
    "--os",
    "linux",
    "--gpu",
    "RTX 3060",
    "--driver",
    "535.104.05",
    "--python",
    "3.11",
    "--json",
]

OSES = [
    ("linux", "x86_64"),
    ("wsl2", "x86_64"),
    ("windows", "x86_64"),
    ("macos", "arm64"),
    ("macos", "x86_64"),
    ("linux", "aarch64"),
]
GPUS = [None, "3.5", "5.2", "6.1", "7.0", "7.5", "8.0", "8.6", "8.9", "9.0", "12.0"]
DRIVERS = ["418.87.01", "470.82.01", "525.60.13", "535.104.05", "552.22", "580.65.06"]


def matrix_cells() -> float:
    """Solve every TF minor x OS x GPU x driver cell in one process; return seconds."""
    from tfenv.api import build_request, build_target
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import MachineArgs
    from tfenv.resolver import resolve

    kb = KnowledgeBase()
    series = sorted({f"{b.series}" for b in kb.builds.all})
    start = time.perf_counter()
    cells = 0
    for tf in series:
        request = build_request(kb, tf)
        for os_, arch in OSES:
            for cc in GPUS:
                for driver in DRIVERS if cc else [None]:
                    m = MachineArgs(os=os_, arch=arch, cc=cc, no_gpu=cc is None, driver=driver)
                    resolve(kb, build_target(kb, m), request)
                    cells += 1
    elapsed = time.perf_counter() - start
    print(f"matrix: {cells} cells in {elapsed:.2f} s ({elapsed / cells * 1000:.2f} ms per cell)")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--runs", type=int, default=20)
    parser.add_argument("--no-matrix", action="store_true", help="only the CLI start-up")
    args = parser.parse_args()
    times = run_interleaved(
        {
            "python -c pass": [sys.executable, "-c", "pass"],
            "tfenv resolve --json": [sys.executable, *RESOLVE],
        },
        args.runs,
    )
    report(times, "python -c pass")
    if args.no_matrix:
        return
    runs = [matrix_cells() for _ in range(3)]
    print(f"matrix median {statistics.median(runs):.2f} s over 3 runs")


if __name__ == "__main__":
    main()
