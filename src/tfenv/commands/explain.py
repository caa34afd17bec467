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

    if args.text == "-" or (args.text is None and not _is_terminal(sys.stdin)):
        text, cut = read_stdin()
    elif args.text is None:
        raise UsageError("Give the error text as an argument, or '-' to read it from stdin.")
    else:
        text, cut = _bounded(args.text)
    if not text.strip():
        raise UsageError("The error text is empty.")
    host = None
    if not args.no_detect:
        from tfenv.host import detect

        host = detect()
    result = explain(text, KnowledgeBase.from_environment(), host)
    if cut:
        print(
            f"tfenv: the text is longer than {MAX_TEXT // (1024 * 1024)} MiB; only its last "
            f"{MAX_TEXT // (1024 * 1024)} MiB were read.",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(_to_dict(result), indent=2))
    else:
        _print(result)
    return 0 if result.known else 1


MAX_TEXT = 8 * 1024 * 1024  # a log's last 8 MiB hold its errors; more is not kept
MAX_STREAM = 256 * 1024 * 1024  # and reading stops after this much (an endless stream)


def read_stdin() -> tuple[str, bool]:
    """(text, whether it was cut) from stdin, as bytes: the last :data:`MAX_TEXT` bytes,
    decoded as UTF-8 with undecodable bytes replaced (a log is not always clean UTF-8,
    whatever the locale says)."""
    from tfenv.errors import UsageError

    if sys.stdin is None:
        raise UsageError("There is no stdin to read the error text from (it is closed).")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a text-only stdin (replaced in-process)
        return _bounded(sys.stdin.read(MAX_TEXT + 1))
    _check_stdin(stream)
    kept = bytearray()
    cut = False
    total = 0
    while total < MAX_STREAM:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        total += len(chunk)
        kept += chunk
        if len(kept) > MAX_TEXT:
            del kept[: len(kept) - MAX_TEXT]
            cut = True
    else:
        cut = True
    return bytes(kept).decode("utf-8", "replace"), cut


def _check_stdin(stream: object) -> None:
    """A device that is not a terminal (``< /dev/zero``) is not a log: refuse it."""
    import os
    import stat

    from tfenv.errors import UsageError

    try:
        fd = stream.fileno()  # type: ignore[attr-defined]
        st = os.fstat(fd)
        null = os.stat(os.devnull)
    except (AttributeError, ValueError, OSError):
        return
    device = stat.S_ISCHR(st.st_mode) and not os.isatty(fd) and st.st_rdev != null.st_rdev
    if stat.S_ISDIR(st.st_mode) or device:
        raise UsageError(
            "stdin is a device, not a log or a pipe; give the error text as an argument, "
            "or pipe or redirect a log file into 'tfenv explain -'."
        )


def _bounded(text: str) -> tuple[str, bool]:
    if len(text) <= MAX_TEXT:
        return text, False
    return text[-MAX_TEXT:], True


def _is_terminal(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # a closed stdin
        return False


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
    from tfenv.textsafe import visible

    if not result.known:
        print("tfenv does not recognise this message.")
        print("Run `tfenv doctor` (and `tfenv doctor --import`) to check the environment.")
        return
    for i, m in enumerate(result.matches):
        if i:
            print()
        print(f"{m.entry.title} [{m.entry.severity}]  ({m.entry.id})")
        print(f"  line:  {visible(m.excerpt)}")
        print(f"  cause: {m.entry.cause}")
        for fact in m.facts:
            print(f"  fact:  {visible(fact)}")
        if m.elsewhere:
            print(f"  note:  {m.elsewhere}")
        print(f"  fix:   {m.entry.fix}")
        print(f"  see:   {m.entry.provenance.cite()}")
