"""Benchmark ``tfenv install`` against the three commands it stands for, warm uv cache.

The baseline is what a user would type to get the same environment and know that it
imports::

    uv venv --python PY DIR
    uv pip install --python DIR/bin/python tensorflow-cpu==2.21.0
    DIR/bin/python -c "import tensorflow"

against ``tfenv install DIR --tf 2.21 --python 3.12`` (on a machine without an NVIDIA GPU
its plan is that same ``tensorflow-cpu`` pin: the benchmark reads the pins from ``--dry-run
--json`` first). The baseline is the issue's, without ``--seed``: tfenv's environment has
pip (``uv venv --seed``), and that is counted against it. Both runs get the same
interpreter (the one tfenv finds, given to uv as ``--python``: neither pays for
interpreter discovery) and the same uv cache
(``UV_CACHE_DIR``: ``--cache DIR``, default uv's own), which a warm-up run of each fills;
every timed run makes a new environment in a fresh folder (so both pay for the first
import's bytecode compilation) and removes it. The runs are interleaved, so compare the
ratio measured in one run. tfenv's step times (its ``--json``) are reported too: where the
time goes. The aim (issue #33): tfenv at most 1.15x the baseline. Usage::

    .venv/bin/python bench/bench_install.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import resource  # POSIX only, as the measurement is
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Callable

from _timing import bench_env


def _tfenv(*args: str) -> list[str]:
    return [sys.executable, "-m", "tfenv", *args]


def _interpreter(python: str) -> str:
    from tfenv.install.interpreters import find_python

    found = find_python(python, "linux", os.environ)
    if found is None or len(found) != 1:
        sys.exit(f"no Python {python} found here")
    return found[0]


def _plan_pins(tf: str, python: str, env: Mapping[str, str], folder: Path) -> list[str]:
    """The pins ``tfenv install`` would install here (its dry run)."""
    argv = _tfenv("install", str(folder), "--tf", tf, "--python", python, "--dry-run", "--json")
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout
    return list(json.loads(out)["plan"]["packages"]["pip"])


def _baseline(uv: str, interpreter: str, pins: Sequence[str], folder: Path) -> list[list[str]]:
    python = str(folder / "bin" / "python")
    return [
        [uv, "venv", "-q", "--python", interpreter, str(folder)],
        [uv, "pip", "install", "-q", "--python", python, *pins],
        [python, "-c", "import tensorflow"],
    ]


def _timed(argvs: Sequence[Sequence[str]], env: Mapping[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (the children's user + system) of ``argvs`` run one after the
    other (all must succeed), and the last one's stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    stdout = ""
    for argv in argvs:
        proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            sys.exit(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        stdout = proc.stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, stdout


BASE = "baseline (uv venv, uv pip install, import)"


def main() -> None:
    from tfenv.install.create import find_uv

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=5)
    parser.add_argument("--tf", default="2.21")
    parser.add_argument("--python", default="3.12")
    parser.add_argument("--cache", metavar="DIR", help="uv's cache for all (default: uv's own)")
    parser.add_argument(
        "--compare",
        metavar="SRC",
        help="also time the tfenv of another source tree (its src/ folder, put first on "
        "PYTHONPATH), interleaved: e.g. a checkout of main",
    )
    args = parser.parse_args()
    env = bench_env()
    if args.cache:
        env["UV_CACHE_DIR"] = str(Path(args.cache).absolute())
    uv = find_uv(os.environ)
    if uv is None:
        sys.exit("uv is not installed here (pip install uv)")
    interpreter = _interpreter(args.python)
    scratch = Path(tempfile.mkdtemp(prefix="tfenv-bench-install-"))
    try:
        pins = _plan_pins(args.tf, args.python, env, scratch / "plan")
        cache = env.get("UV_CACHE_DIR", "uv's default")
        print(f"plan: {' '.join(pins)}; Python {interpreter}; uv cache {cache}")
        tfenv_argv = ["--tf", args.tf, "--python", args.python, "--json"]
        commands: dict[str, tuple[Callable[[Path], list[list[str]]], Mapping[str, str]]] = {
            BASE: (lambda d: _baseline(uv, interpreter, pins, d), env),
            "tfenv install": (lambda d: [_tfenv("install", str(d), *tfenv_argv)], env),
        }
        if args.compare:
            other = {**env, "PYTHONPATH": str(Path(args.compare).resolve())}
            commands[f"tfenv install [{args.compare}]"] = (commands["tfenv install"][0], other)
        wall, cpu, steps = _rounds(commands, args.runs, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    _report(wall, cpu, steps, args.runs)


Samples = dict[str, list[float]]


def _rounds(
    commands: Mapping[str, tuple[Callable[[Path], list[list[str]]], Mapping[str, str]]],
    runs: int,
    scratch: Path,
) -> tuple[Samples, Samples, dict[str, Samples]]:
    """Wall and CPU seconds of each command, ``runs`` interleaved rounds after a warm-up
    round (which fills uv's cache), and each tfenv command's step times."""
    wall: Samples = {name: [] for name in commands}
    cpu: Samples = {name: [] for name in commands}
    steps: dict[str, Samples] = {name: {} for name in commands if name != BASE}
    for run in range(runs + 1):
        for i, (name, (make, env)) in enumerate(commands.items()):
            folder = scratch / f"env-{run}-{i}"
            seconds, used, stdout = _timed(make(folder), env)
            shutil.rmtree(folder, ignore_errors=True)
            if run == 0:
                continue
            wall[name].append(seconds)
            cpu[name].append(used)
            if name in steps:
                for step in json.loads(stdout)["steps"]:
                    steps[name].setdefault(step["step"], []).append(step["seconds"])
            print(f"  run {run}: {name:<48} {seconds:6.2f} s wall {used:6.2f} s cpu", flush=True)
    return wall, cpu, steps


def _report(wall: Samples, cpu: Samples, steps: dict[str, Samples], runs: int) -> None:
    med = statistics.median
    print(f"{runs} interleaved runs each; medians")
    for name in wall:
        print(
            f"{name:<48} wall {med(wall[name]):6.2f} s (min {min(wall[name]):6.2f})  "
            f"cpu {med(cpu[name]):6.2f} s"
        )
    for name, by_step in steps.items():
        print(f"{name}: " + ", ".join(f"{s} {med(v):.2f} s" for s, v in by_step.items()))
        paired = med([t / b for t, b in zip(wall[name], wall[BASE])])
        print(
            f"  ratio to the baseline: wall {med(wall[name]) / med(wall[BASE]):.3f} "
            f"(median of the rounds' ratios {paired:.3f}), cpu "
            f"{med(cpu[name]) / med(cpu[BASE]):.3f}  (aim: wall <= 1.15)"
        )


if __name__ == "__main__":
    main()
