"""Benchmark ``tfenv lock`` against plain ``uv pip compile`` (and pip-compile) on the same inputs.

Compares, with a warm and a cold cache: one target locked by tfenv vs. uv alone for
the same requirement, platform and Python; and four targets vs. one. Medians of
``--runs`` interleaved runs. The index is the configured one (``--index-url``
overrides). Usage::

    .venv/bin/python bench/bench_lock.py --runs 5
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Callable

ONE = """
tensorflow = "2.15.1"
python = "3.11"
[targets.cluster]
os = "linux"
cc = "8.0"
driver = "535.104.05"
glibc = "2.31"
"""
FOUR = (
    ONE
    + """
[targets.cpu]
os = "linux"
no-gpu = true
glibc = "2.31"
[targets.win]
os = "windows"
no-gpu = true
[targets.mac]
os = "macos"
arch = "arm64"
"""
)


def _uv(index: str, out: Path, cache: Path | None, fmt: str = "pylock.toml") -> list[str]:
    from uv import find_uv_bin

    req = out.parent / "bench.in"
    req.write_text("tensorflow[and-cuda]==2.15.1\n")
    cmd = [str(find_uv_bin()), "pip", "compile", str(req), "--python-platform"]
    cmd += ["x86_64-manylinux_2_31", "--python-version", "3.11", "--generate-hashes"]
    cmd += ["--index-url", index, "--no-config", "--format", fmt, "-o", str(out), "--quiet"]
    cmd += ["--no-cache"] if cache is None else ["--cache-dir", str(cache)]
    return cmd


def _tfenv(folder: Path, cache: Path, index: str) -> list[str]:
    cmd = [sys.executable, "-m", "tfenv", "lock", "--config", str(folder), "--quiet"]
    return [*cmd, "--cache-dir", str(cache), "--index-url", index]


def _time(cases: dict[str, Callable[[], Sequence[str]]], runs: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {k: [] for k in cases}
    for make in cases.values():  # warm-up (fills the warm cache)
        subprocess.run(make(), capture_output=True, check=False)
    for _ in range(runs):
        for name, make in cases.items():
            argv = make()
            start = time.perf_counter()
            proc = subprocess.run(argv, capture_output=True, text=True, check=False)
            times[name].append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise SystemExit(f"{name} failed: {proc.stderr.strip()[-800:]}")
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--index-url")
    args = parser.parse_args(argv)
    from tfenv.kb._index_url import configured_index_url

    index = args.index_url or configured_index_url()[0]
    root = Path(tempfile.mkdtemp(prefix="tfenv-bench-"))
    try:
        one, four, warm = root / "one", root / "four", root / "warm-cache"
        for folder, text in ((one, ONE), (four, FOUR)):
            folder.mkdir()
            (folder / "tfenv.toml").write_text(text)
        plain = root / "plain"
        plain.mkdir()
        counter = iter(range(10**6))

        def cold() -> Path:
            return root / f"cold-{next(counter)}"

        cases: dict[str, Callable[[], Sequence[str]]] = {
            "uv warm": lambda: _uv(index, plain / "pylock.toml", warm),
            "tfenv 1 target warm": lambda: _tfenv(one, warm, index),
            "tfenv 4 targets warm": lambda: _tfenv(four, warm, index),
            "uv cold": lambda: _uv(index, plain / "pylock.toml", None),
            "tfenv 1 target cold": lambda: _tfenv(one, cold(), index),
            "tfenv 4 targets cold": lambda: _tfenv(four, cold(), index),
        }
        pip_compile = shutil.which("pip-compile")
        if pip_compile:
            req = plain / "pc.in"
            req.write_text("tensorflow[and-cuda]==2.15.1\n")
            cases["pip-compile"] = lambda: [
                pip_compile, "--generate-hashes", "--index-url", index,
                "-o", str(plain / "pc.txt"), str(req), "--quiet",
            ]  # fmt: skip
        else:
            print("pip-compile: skipped (pip-tools is not installed)")
        times = _time(cases, args.runs)
        med = {k: statistics.median(v) * 1000 for k, v in times.items()}
        for name, ms in med.items():
            print(f"{name:24s} median {ms:8.1f} ms over {len(times[name])} runs")
        print(f"tfenv/uv, warm: {med['tfenv 1 target warm'] / med['uv warm']:.2f}x (aim <= 1.3)")
        print(f"tfenv/uv, cold: {med['tfenv 1 target cold'] / med['uv cold']:.2f}x")
        print(f"4 targets/1, warm: {med['tfenv 4 targets warm'] / med['tfenv 1 target warm']:.2f}x")
        print(f"4 targets/1, cold: {med['tfenv 4 targets cold'] / med['tfenv 1 target cold']:.2f}x")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
