#!/usr/bin/env python3
"""Freeze the shipped knowledge base into ``tests/kb_snapshot/`` for the tests.

Usage::

    python tools/snapshot_kb.py [--date YYYY-MM-DD] [--check]

The solver, wording and golden cases run on this frozen copy (``tests/conftest.py`` points
``TFENV_DATA_DIR`` at it), so that ``tfenv refresh`` adding a release to ``src/tfenv/data``
changes data and docs, never a test expectation. Only the invariant tests
(``tests/test_kb_invariants.py``) and the tests of the generated docs read the shipped data.

Re-run it only when a test needs a fact the snapshot lacks (a new rule's data, a corrected
fact); then review the expectations that move. It copies every data file (YAML and JSON)
byte for byte and writes ``SNAPSHOT.txt``: the date and the commit the copy was taken from.
``--check`` exits 1 when the snapshot lacks a data file the shipped data has (the loaders
read a new file: take the snapshot again), without writing.

Not part of the tfenv package; needs only the standard library and git.
"""

from __future__ import annotations

import argparse
import datetime
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "src" / "tfenv" / "data"
SNAPSHOT = ROOT / "tests" / "kb_snapshot"
STAMP = "SNAPSHOT.txt"


def data_files(root: Path) -> list[Path]:
    """The data files below ``root``, relative to it, sorted."""
    return sorted(
        p.relative_to(root)
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".yaml", ".json") and "__pycache__" not in p.parts
    )


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return out.stdout.strip() or "unknown"


def write(date: str) -> None:
    tmp = SNAPSHOT.with_name(SNAPSHOT.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for rel in data_files(DATA):
        (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(DATA / rel, tmp / rel)
    (tmp / STAMP).write_text(
        "A frozen copy of src/tfenv/data for the tests (written by tools/snapshot_kb.py).\n"
        f"taken: {date}\nfrom commit: {_commit()}\n",
        "utf-8",
    )
    shutil.rmtree(SNAPSHOT, ignore_errors=True)
    tmp.rename(SNAPSHOT)


def check() -> list[str]:
    """The data files the snapshot lacks (a file the loaders now read: the snapshot must be
    taken again). Differing contents are expected: the shipped data moves on."""
    problems = []
    for rel in data_files(DATA):
        if not (SNAPSHOT / rel).is_file():
            problems.append(f"{rel}: missing from the snapshot (re-run tools/snapshot_kb.py)")
    if not (SNAPSHOT / STAMP).is_file():
        problems.append(f"{STAMP}: missing")
    return problems


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    write(args.date)
    print(f"wrote {SNAPSHOT.relative_to(ROOT)} ({len(data_files(SNAPSHOT))} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
