"""Benchmark tfenv's start-up: ``tfenv --version``, ``tfenv <command> --help`` and a whole
``tfenv resolve`` (text and ``--json``, warm cache) against ``python -c pass``, wall time and
CPU time (user + system, the child's own).

Run by hand: ``python bench/bench_startup.py [-n RUNS]``. The runs are interleaved, so
compare the differences and ratios measured in one run (figures go in the issue notes,
not in tests; ``tests/test_imports.py`` guards what these paths import).
"""

from __future__ import annotations

import argparse
import resource  # POSIX only, as the measurement is
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from _timing import bench_env

# the README's first example
MACHINE = ["--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--python", "3.11"]
COMMANDS: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "tfenv --version": ["-m", "tfenv", "--version"],
    "tfenv --version (script)": ["SCRIPT", "--version"],
    "tfenv resolve --help": ["-m", "tfenv", "resolve", "--help"],
    "tfenv lock --help": ["-m", "tfenv", "lock", "--help"],
    "tfenv check-upgrade --help": ["-m", "tfenv", "check-upgrade", "--help"],
    "tfenv resolve (RTX 3060)": ["-m", "tfenv", "resolve", *MACHINE],
    "tfenv resolve --json (RTX 3060)": ["-m", "tfenv", "resolve", *MACHINE, "--json"],
    # the README's command as a user runs it: the console script (no runpy)
    "tfenv resolve (RTX 3060, script)": ["SCRIPT", "resolve", *MACHINE],
    "tfenv resolve --json (RTX 3060, script)": ["SCRIPT", "resolve", *MACHINE, "--json"],
}


def _once(argv: Sequence[str], env: Mapping[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--runs", type=int, default=30)
    parser.add_argument(
        "--compare",
        metavar="SRC",
        help="also time the tfenv of another source tree (its src/ folder, put first on "
        "PYTHONPATH), interleaved with this one: e.g. a checkout of main",
    )
    args = parser.parse_args()
    # a cache folder of its own: the warm-up fills it, and no other tfenv on this account
    # (another checkout, another version) replaces its entries between the timed runs
    caches = tempfile.TemporaryDirectory(prefix="tfenv-bench-")
    env = {**bench_env(), "TFENV_CACHE_DIR": str(Path(caches.name, "this"))}
    script = str(Path(sys.executable).with_name("tfenv"))  # the console script, as a user runs it
    argvs = {
        name: [script, *rest[1:]] if rest[0] == "SCRIPT" else [sys.executable, *rest]
        for name, rest in COMMANDS.items()
    }
    envs: dict[str, Mapping[str, str]] = dict.fromkeys(argvs, env)
    if args.compare:
        other = {
            **env,
            "PYTHONPATH": str(Path(args.compare).resolve()),
            "TFENV_CACHE_DIR": str(Path(caches.name, "other")),
        }
        for name, argv in list(argvs.items())[1:]:
            argvs[f"{name} [{args.compare}]"] = argv
            envs[f"{name} [{args.compare}]"] = other
    for name, argv in argvs.items():  # warm-up: bytecode, the OS's file cache
        subprocess.run(argv, env=envs[name], stdout=subprocess.DEVNULL, check=False)
    wall: dict[str, list[float]] = {n: [] for n in argvs}
    cpu: dict[str, list[float]] = {n: [] for n in argvs}
    for _ in range(args.runs):
        for name, argv in argvs.items():
            w, c = _once(argv, envs[name])
            wall[name].append(w)
            cpu[name].append(c)
    base = "python -c pass"
    ref_w = statistics.median(wall[base]) * 1000
    ref_c = statistics.median(cpu[base]) * 1000
    print(f"{args.runs} interleaved runs each; medians")
    for name in argvs:
        w = statistics.median(wall[name]) * 1000
        c = statistics.median(cpu[name]) * 1000
        print(
            f"{name:<44} wall {w:7.1f} ms (+{w - ref_w:6.1f}, x{w / ref_w:4.2f})   "
            f"cpu {c:7.1f} ms (+{c - ref_c:6.1f}, x{c / ref_c:4.2f})"
        )


if __name__ == "__main__":
    main()
