"""Shared helpers for the benchmark scripts: run commands N times, interleaved, report medians."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

__all__ = ["bench_env", "median_ms", "run_interleaved"]


def bench_env() -> dict[str, str]:
    """The environment for timed runs: bytecode caching on, as on a user's machine."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_interleaved(commands: dict[str, Sequence[str]], runs: int) -> dict[str, list[float]]:
    """Run each command ``runs`` times, round-robin so load spikes hit all alike."""
    env = bench_env()
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up: caches, bytecode
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=False)
    for _ in range(runs):
        for name, argv in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=False)
            times[name].append(time.perf_counter() - start)
    return times


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def report(times: dict[str, list[float]], base: str) -> None:
    ref = median_ms(times[base])
    for name, samples in times.items():
        med = median_ms(samples)
        print(
            f"{name:<40} median {med:8.1f} ms   +{med - ref:7.1f} ms over {base}   "
            f"x{med / ref:5.2f}",
            file=sys.stdout,
        )
