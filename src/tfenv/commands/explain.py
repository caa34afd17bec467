"""``tfenv explain "<error text>"``: the cause and fix of a TensorFlow/CUDA error message.

The text comes from the argument, from stdin with ``-``, or from stdin when no argument
is given and stdin is not a terminal. Exit 0 when the text is recognised, 1 when it is
not, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfenv.explain import Explanation

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="?", help="the error message or log ('-' reads stdin)")
    parser.add_argument("--json", action="store_true", help="print the explanation as JSON")
    parser.add_argument(
        "--no-detect", action="store_true", help="do not read this machine (no host-specific facts)"
    )


def run(args: argparse.Namespace) -> int:
    from tfenv.errors import UsageError
    from tfenv.explain import explain
    from tfenv.kb import KnowledgeBase

    if args.text == "-" or (args.text is None and not sys.stdin.isatty()):
        text = sys.stdin.read()
    elif args.text is None:
        raise UsageError("Give the error text as an argument, or '-' to read it from stdin.")
    else:
        text = args.text
    if not text.strip():
        raise UsageError("The error text is empty.")
    host = None
    if not args.no_detect:
        from tfenv.host import detect

        host = detect()
    result = explain(text, KnowledgeBase.from_environment(), host)
    if args.json:
        print(json.dumps(_to_dict(result), indent=2))
    else:
        _print(result)
    return 0 if result.known else 1


def _to_dict(result: Explanation) -> dict[str, object]:
    return {
        "known": result.known,
        "matches": [
            {
                "id": m.entry.id,
                "title": m.entry.title,
                "severity": m.entry.severity,
                "line": m.excerpt,
                "named": dict(m.groups),
                "cause": m.entry.cause,
                "fix": m.entry.fix,
                "facts": list(m.facts),
                "elsewhere": m.elsewhere,
                "sources": list(m.entry.provenance.sources),
                "retrieved": m.entry.provenance.retrieved,
            }
            for m in result.matches
        ],
        "suggest": None if result.known else "tfenv doctor",
    }


def _print(result: Explanation) -> None:
    if not result.known:
        print("tfenv does not recognise this message.")
        print("Run `tfenv doctor` (and `tfenv doctor --import`) to check the environment.")
        return
    for i, m in enumerate(result.matches):
        if i:
            print()
        print(f"{m.entry.title} [{m.entry.severity}]  ({m.entry.id})")
        print(f"  line:  {m.excerpt}")
        print(f"  cause: {m.entry.cause}")
        for fact in m.facts:
            print(f"  fact:  {fact}")
        if m.elsewhere:
            print(f"  note:  {m.elsewhere}")
        print(f"  fix:   {m.entry.fix}")
        print(f"  see:   {m.entry.provenance.cite()}")
