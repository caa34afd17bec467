"""Time and peak memory of reading hostile TOML (``tfenv.structured.load_toml``), issue 26.

Each document is read in a fresh subprocess (its peak resident memory, VmHWM, is its
own), ``--runs`` times, interleaved: the scan, then ``tomli`` (the parser ``load_toml``
uses) on what the scan lets through (also past :data:`~tfenv.structured.MAX_TOML`, which
``load_toml`` refuses unread, to show what a larger bound would cost). The median wall
time, the median CPU time (what the work costs on a busy machine), the scan's share, the
peak memory and the ratio to a benign document of the same size are printed. Usage::

    .venv/bin/python bench/bench_toml.py [-n 3] [--size-kib 512]

The hostile documents are the ones the issue names (a 20,000-part dotted key, a
100,000-level table header) grown to the read limit, and the worst the scan lets through
(every line a 63-part key, every line 63 opening brackets).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence

_CHILD = """
import json, resource, sys, time
from tfenv.structured import MAX_TOML, StructureError, load_toml, toml_depth_problem
import tomli as tomllib  # the parser load_toml uses
text = open(sys.argv[1], encoding="utf-8").read()
start, cpu = time.perf_counter(), time.process_time()
problem = toml_depth_problem(text)
scan = time.perf_counter() - start
if problem is None:  # what load_toml hands to the parser (past MAX_TOML too, to compare)
    try:
        tomllib.loads(text)
        outcome = "parsed"
    except (ValueError, RecursionError) as exc:
        outcome = "parser: " + type(exc).__name__
else:
    outcome = problem
took, cpu = time.perf_counter() - start, time.process_time() - cpu
if len(text) > MAX_TOML:
    outcome += f" (past MAX_TOML: refused unread)"
try:  # this process's own peak (ru_maxrss would carry the parent's over fork and exec)
    status = open("/proc/self/status").read().split("VmHWM:")[1]
    peak = int(status.split()[0]) / 1024
except (OSError, IndexError):
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"s": took, "cpu": cpu, "scan": scan, "mib": peak, "outcome": outcome}))
"""


def _documents(size: int) -> dict[str, str]:
    def fill(line: Callable[[int], str]) -> str:
        out, total, i = [], 0, 0
        while total + len(line(i)) <= size:
            out.append(line(i))
            total += len(out[-1])
            i += 1
        return "".join(out)

    return {
        "benign: key = string lines": fill(lambda i: f'key{i} = "{"v" * 40}"\n'),
        "benign: a pylock-like file": fill(
            lambda i: (
                f'[[packages]]\nname = "p{i}"\nversion = "1.{i}"\n'
                f'wheels = [{{ url = "https://files.example/p{i}-1.{i}-py3-none-any.whl", '
                f'hashes = {{ sha256 = "{"0" * 64}" }} }}]\n'
            )
        ),
        "20,000-part dotted key (issue)": "k" + ".k" * 19_999 + " = 1\n",
        "dotted key to the limit": "k" + ".k" * (size // 2 - 4) + " = 1\n",
        "100,000-level header (issue)": "[k" + ".k" * 99_999 + "]\n",
        "header to the limit": "[k" + ".k" * (size // 2 - 4) + "]\n",
        "inline tables to the limit": "a = " + "{b = " * (size // 5),
        "arrays to the limit": "a = " + "[" * (size - 4),
        "worst passed: 63-part keys": fill(lambda i: "k" + ".k" * 61 + f".x{i} = 1\n"),
        "worst passed: 63-part headers": fill(lambda i: "[k" + ".k" * 61 + f".x{i}]\n"),
        "worst passed: dots in strings": fill(lambda i: f'k{i} = "{"." * 70}"\n'),
    }


def _measure(path: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, path], capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(proc.stdout)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    import tempfile
    from pathlib import Path

    from tfenv.structured import MAX_TOML

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-n", "--runs", type=int, default=3, help="runs per document")
    parser.add_argument(
        "--size-kib", type=int, default=MAX_TOML // 1024, help="size of the grown inputs"
    )
    args = parser.parse_args(argv)
    docs = _documents(args.size_kib * 1024)
    samples: dict[str, list[dict[str, object]]] = {name: [] for name in docs}
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for i, (name, text) in enumerate(docs.items()):
            paths[name] = str(Path(tmp) / f"{i}.toml")
            Path(paths[name]).write_text(text, "utf-8")
        for _ in range(args.runs):
            for name, path in paths.items():
                samples[name].append(_measure(path))
    base_s = statistics.median(float(str(s["s"])) for s in samples["benign: a pylock-like file"])
    print(f"{'document':<32} {'KiB':>6} {'median s':>9} {'cpu s':>6} {'scan s':>7} "
          f"{'peak MiB':>9} {'x benign':>8}  outcome")  # fmt: skip
    for name, runs in samples.items():
        took = statistics.median(float(str(r["s"])) for r in runs)
        cpu = statistics.median(float(str(r["cpu"])) for r in runs)
        scan = statistics.median(float(str(r["scan"])) for r in runs)
        peak = max(float(str(r["mib"])) for r in runs)
        outcome = str(runs[0]["outcome"])
        size = len(docs[name].encode("utf-8")) // 1024
        print(f"{name:<32} {size:6d} {took:9.3f} {cpu:6.3f} {scan:7.3f} {peak:9.1f} "
              f"{took / base_s:8.2f}  {outcome}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
