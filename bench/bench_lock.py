"""Benchmark ``tfenv lock`` against plain ``uv pip compile`` on the same input, and 12 targets vs 1.

Both ratios the issue sets come from one interleaved run (warm caches):

- one target: ``tfenv lock`` of one Linux x86_64 GPU machine vs ``uv pip compile`` of the
  same requirement (``tensorflow[and-cuda]==2.15.1``), platform, Python and index
  (aim: <= 1.3x);
- many machines: twelve Linux x86_64 GPU machines (different GPUs and drivers, one glibc,
  one Python) vs that one target (aim: <= 1.5x): their resolution inputs are equal, so
  uv runs once.

tfenv starts the uv runs its last lock of the same configuration needed while it plans
(``tfenv/lock/ahead.py``); the "unrecorded" rows time a lock without that record (a
configuration changed since the last lock). ``--offline`` adds the same three commands
from the caches alone (no network: tfenv's own
overhead against uv's local resolve); ``--cold`` adds cold-cache runs. The index is the
configured one (``--index-url`` overrides); ``--local`` serves the tests' small index on
127.0.0.1 instead (no network needed; uv's work is then tiny, so the one-target ratio
measures tfenv's fixed cost, not what a team sees). Both commands give uv the interpreter
to build with (``--python``), as tfenv does, so neither pays for interpreter discovery.
tfenv's knowledge-base cache and uv's cache are private to the run. Usage::

    .venv/bin/python bench/bench_lock.py --runs 8
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Callable

REQUIREMENT = "tensorflow[and-cuda]==2.15.1"
PLATFORM = "x86_64-manylinux_2_31"
HEAD = 'tensorflow = "2.15.1"\npython = "3.11"\n'
MACHINE = """[targets.{name}]
os = "linux"
arch = "x86_64"
{gpu}
driver = "{driver}"
glibc = "2.31"
"""
GPUS = (
    ('cc = "8.0"', "535.104.05"),
    ('gpu = "H100"', "550.54.15"),
    ('gpu = "RTX 3060"', "535.104.05"),
    ('gpu = "RTX 4090"', "545.23.08"),
    ('gpu = "V100"', "535.104.05"),
    ('gpu = "T4"', "525.85.12"),
    ('gpu = "A10"', "535.104.05"),
    ('gpu = "L4"', "550.54.15"),
    ('gpu = "RTX 3090"', "530.30.02"),
    ('gpu = "A6000"', "535.104.05"),
    ('gpu = "RTX 2080 Ti"', "535.104.05"),
    ('gpu = "A40"', "550.54.15"),
)
Make = Callable[[], Sequence[str]]


def team(n: int) -> str:
    """A tfenv.toml with ``n`` Linux x86_64 GPU machines (one glibc, one Python)."""
    machines = (
        MACHINE.format(name=f"gpu{i:02d}", gpu=gpu, driver=driver)
        for i, (gpu, driver) in enumerate(GPUS[:n])
    )
    return HEAD + "".join(machines)


def uv_cmd(index: str, folder: Path, cache: Path | None, offline: bool = False) -> list[str]:
    from uv import find_uv_bin

    req = folder / "bench.in"
    req.write_text(REQUIREMENT + "\n")
    cmd = [str(find_uv_bin()), "pip", "compile", str(req), "--python-platform", PLATFORM]
    cmd += ["--python-version", "3.11", "--python", sys.executable]  # as tfenv runs it
    cmd += ["--generate-hashes", "--index-url", index, "--no-config"]
    cmd += ["--format", "pylock.toml", "-o", str(folder / "pylock.toml"), "--quiet"]
    cmd += ["--no-cache"] if cache is None else ["--cache-dir", str(cache)]
    return [*cmd, "--offline"] if offline else cmd


def tfenv_cmd(folder: Path, cache: Path, index: str, offline: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "tfenv", "lock", "--config", str(folder), "-q"]
    cmd += ["--cache-dir", str(cache), "--index-url", index]
    return [*cmd, "--offline"] if offline else cmd


def timed(cases: dict[str, Make], runs: int, env: dict[str, str]) -> dict[str, list[float]]:
    """Median-ready samples: one warm-up each, then ``runs`` rounds, interleaved."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    for make in cases.values():
        subprocess.run(make(), env=env, capture_output=True, check=False)
    for _ in range(runs):
        for name, make in cases.items():
            argv = make()
            start = time.perf_counter()
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            times[name].append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise SystemExit(f"{name} failed: {proc.stderr.strip()[-800:]}")
    return times


@contextlib.contextmanager
def local_index(root: Path) -> Iterator[str]:
    """The tests' index (small real wheels) on 127.0.0.1."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.lock_index import LockIndex, build_wheels, serve

    for state in serve(LockIndex(build_wheels(root / "wheels"))):
        yield state.url


def cases_for(root: Path, index: str, offline: bool, cold: bool) -> dict[str, Make]:
    one, twelve, plain, warm = root / "one", root / "twelve", root / "plain", root / "uv-cache"
    for folder, text in ((one, team(1)), (twelve, team(12)), (plain, "")):
        folder.mkdir()
        if text:
            (folder / "tfenv.toml").write_text(text)
    ahead = root / "tfenv-cache" / "lock-ahead"

    def unrecorded(folder: Path) -> Sequence[str]:
        shutil.rmtree(ahead, ignore_errors=True)  # before the clock starts
        return tfenv_cmd(folder, warm, index)

    cases: dict[str, Make] = {
        "uv pip compile": lambda: uv_cmd(index, plain, warm),
        "tfenv lock, 1 target": lambda: tfenv_cmd(one, warm, index),
        "tfenv lock, 12 targets": lambda: tfenv_cmd(twelve, warm, index),
        "tfenv lock, 1, unrecorded": lambda: unrecorded(one),
        "tfenv lock, 12, unrecorded": lambda: unrecorded(twelve),
    }
    if offline:
        cases["uv pip compile --offline"] = lambda: uv_cmd(index, plain, warm, True)
        cases["tfenv lock --offline, 1"] = lambda: tfenv_cmd(one, warm, index, True)
        cases["tfenv lock --offline, 12"] = lambda: tfenv_cmd(twelve, warm, index, True)
    if cold:
        counter = iter(range(10**6))

        def fresh() -> Path:
            return root / f"cold-{next(counter)}"

        cases["uv pip compile, cold"] = lambda: uv_cmd(index, plain, None)
        cases["tfenv lock, 1 target, cold"] = lambda: tfenv_cmd(one, fresh(), index)
        cases["tfenv lock, 12 targets, cold"] = lambda: tfenv_cmd(twelve, fresh(), index)
    return cases


def report(times: dict[str, list[float]]) -> None:
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    for name, ms in med.items():
        spread = f"{min(times[name]) * 1000:7.1f}..{max(times[name]) * 1000:7.1f}"
        print(f"{name:30s} median {ms:8.1f} ms  ({spread} ms, {len(times[name])} runs)")
    pairs = [
        ("1 target / uv pip compile", "tfenv lock, 1 target", "uv pip compile", "<= 1.3"),
        ("12 targets / 1 target", "tfenv lock, 12 targets", "tfenv lock, 1 target", "<= 1.5"),
        ("unrecorded: 1 target / uv", "tfenv lock, 1, unrecorded", "uv pip compile", ""),
        ("unrecorded: 12 / 1", "tfenv lock, 12, unrecorded", "tfenv lock, 1, unrecorded", ""),
        ("offline: 1 target / uv", "tfenv lock --offline, 1", "uv pip compile --offline", ""),
        ("offline: 12 targets / 1", "tfenv lock --offline, 12", "tfenv lock --offline, 1", ""),
        ("cold: 1 target / uv", "tfenv lock, 1 target, cold", "uv pip compile, cold", ""),
        ("cold: 12 targets / 1", "tfenv lock, 12 targets, cold", "tfenv lock, 1 target, cold", ""),
    ]
    for label, num, den, aim in pairs:
        if num in med and den in med:
            goal = f"  (aim {aim})" if aim else ""
            print(f"{label:30s} {med[num] / med[den]:5.2f}x{goal}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--index-url")
    parser.add_argument("--local", action="store_true", help="the tests' index on 127.0.0.1")
    parser.add_argument("--offline", action="store_true", help="also time --offline runs")
    parser.add_argument("--cold", action="store_true", help="also time cold-cache runs")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="tfenv-bench-"))
    env = dict(os.environ, TFENV_CACHE_DIR=str(root / "tfenv-cache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caching on, as on a user's machine
    try:
        with contextlib.ExitStack() as stack:
            if args.local:
                index = stack.enter_context(local_index(root))
            else:
                from tfenv.index_url import configured_index_url

                index = args.index_url or configured_index_url()[0]
            print(f"index: {'local test index' if args.local else index}; runs: {args.runs}")
            cases = cases_for(root, index, args.offline, args.cold)
            report(timed(cases, args.runs, env))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
