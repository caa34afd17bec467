"""``tfenv lock``: write team lockfiles for every target machine, from any machine."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        type=Path,
        default=Path("."),
        help="tfenv.toml, pyproject.toml, or a folder holding one (default: .)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 when a lockfile no longer matches the configuration",
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="NAME",
        help="lock only this target (repeatable)",
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=_out_dir,
        help="where lockfiles go (default: the config's folder)",
    )
    parser.add_argument("--offline", action="store_true", help="lock from caches only")
    parser.add_argument(
        "--index-url", metavar="URL", type=_index_url, help="the package index to lock from"
    )
    parser.add_argument("--cache-dir", metavar="DIR", type=Path, help="uv's cache directory")
    parser.add_argument("--jobs", type=_jobs, default=4, metavar="N", help="targets locked at once")
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, metavar="S", help="network timeout in seconds"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress display")


def run(args: argparse.Namespace) -> int:
    from tfenv.config import load_config
    from tfenv.kb import KnowledgeBase
    from tfenv.lock import LockOptions, check_project, lock_project
    from tfenv.lock.progress import make_progress

    config = load_config(args.config)
    kb = KnowledgeBase.from_environment()
    options = LockOptions(
        out_dir=args.out,
        only=tuple(args.target),
        index_url=args.index_url,
        cache_dir=args.cache_dir,
        offline=args.offline,
        jobs=args.jobs,
        timeout_s=args.timeout,
    )
    if args.check:
        outcome = check_project(kb, config, options)
        for problem in outcome.problems:
            print(f"tfenv lock --check: {problem}", file=sys.stderr)
        if outcome.problems:
            print("Run 'tfenv lock' to regenerate the lockfiles.", file=sys.stderr)
            return 1
        print(f"{len(outcome.ok)} lockfile(s) up to date.", file=sys.stderr)
        return 0
    names = [t.name for t in config.targets if not args.target or t.name in args.target]
    progress = make_progress(names, _write_err, sys.stderr.isatty(), os.environ, quiet=args.quiet)
    result = lock_project(kb, config, options, progress)
    tf = result.team.tensorflow
    print(
        f"Locked {len(result.targets)} target(s) on TensorFlow {tf}: "
        + ", ".join(str(p) for p in result.written),
        file=sys.stderr,
    )
    return 0


def _write_err(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


# -- flag values: checked by tfenv.specs (exit 2 with one paragraph) -------------------


def _jobs(text: str) -> int:
    from tfenv.specs import parse_count

    return parse_count("--jobs", text, minimum=1, maximum=64)


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text)


def _index_url(text: str) -> str:
    from tfenv.specs import parse_index_url

    return parse_index_url("--index-url", text)


def _out_dir(text: str) -> Path:
    """A folder that exists, or can be created: not a file, a name the OS accepts."""
    import errno

    from tfenv.errors import UsageError
    from tfenv.fsutil import describe_oserror

    path = Path(text)
    try:
        if not path.is_dir() and path.exists():
            raise UsageError(f"--out {text}: not a folder.")
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENOENT:
            return path
        raise UsageError(f"--out {text}: {describe_oserror(exc)}.") from None
    return path
