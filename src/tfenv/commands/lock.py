"""``tfenv lock``: write team lockfiles for every target machine, from any machine."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from tfenv.i18n import _, ngettext

TYPE_CHECKING = False  # typing is not imported: `tfenv lock --help` stays cheap
if TYPE_CHECKING:
    from tfenv.errors import TfenvError
    from tfenv.lock import CheckOutcome, LockOutcome
    from tfenv.lock.progress import Progress

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="PATH",
        type=Path,
        default=Path("."),
        help=_("tfenv.toml, pyproject.toml, or a folder holding one (default: .)"),
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help=_("write nothing; exit 1 when a lockfile no longer matches the configuration"),
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="NAME",
        help=_("lock only this target (repeatable)"),
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        type=_out_dir,
        help=_("where lockfiles go (default: 'out' in the configuration, else its folder)"),
    )
    parser.add_argument("--offline", action="store_true", help=_("lock from caches only"))
    parser.add_argument(
        "--index-url", metavar="URL", type=_index_url, help=_("the package index to lock from")
    )
    parser.add_argument("--cache-dir", metavar="DIR", type=Path, help=_("uv's cache directory"))
    parser.add_argument(
        "--jobs", type=_jobs, default=4, metavar="N", help=_("targets locked at once")
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=30.0, metavar="S", help=_("network timeout in seconds")
    )
    parser.add_argument("-q", "--quiet", action="store_true", help=_("no progress display"))
    parser.add_argument(
        "--json",
        action="store_true",
        help=_("print a JSON summary on stdout: the targets, their files, what is stale"),
    )


def run(args: argparse.Namespace) -> int:
    from tfenv.lock import api

    if args.check:
        outcome = api.check_lock(args.config, targets=args.target, out=args.out)
        return _checked(outcome, args.json)
    result = api.lock(
        args.config,
        targets=args.target,
        out=args.out,
        index_url=args.index_url,
        cache_dir=args.cache_dir,
        offline=args.offline,
        jobs=args.jobs,
        timeout=args.timeout,
        progress=lambda names: _progress(names, args.quiet),
    )
    if args.json:
        _print_json(_summary(result))
        return 0
    versions = {t.tensorflow for t in result.targets}
    n = len(result.targets)
    files = ", ".join(str(p) for p in result.written)
    if len(versions) == 1:
        said = ngettext(
            "Locked {n} target on TensorFlow {tensorflow} (uv resolutions: {resolutions}): {files}",
            "Locked {n} targets on TensorFlow {tensorflow} (uv resolutions: {resolutions}): "
            "{files}",
            n,
        ).format(n=n, tensorflow=versions.pop(), resolutions=result.resolutions, files=files)
    else:
        each = _(", ").join(
            _("{target} on TensorFlow {tensorflow}").format(target=t.name, tensorflow=t.tensorflow)
            for t in result.targets
        )
        said = ngettext(
            "Locked {n} target ({each}) (uv resolutions: {resolutions}): {files}",
            "Locked {n} targets ({each}) (uv resolutions: {resolutions}): {files}",
            n,
        ).format(n=n, each=each, resolutions=result.resolutions, files=files)
    print(said, file=sys.stderr)
    for line in result.team.limit_sentences():  # what held the team down, how to split it
        print(line, file=sys.stderr)
    return 0


def _progress(names: Sequence[str], quiet: bool) -> Progress:
    from tfenv.lock.progress import make_progress

    return make_progress(names, _write_err, sys.stderr.isatty(), os.environ, quiet=quiet)


def _checked(outcome: CheckOutcome, as_json: bool) -> int:
    code = 0 if outcome.up_to_date else 1
    if as_json:
        _print_json(
            {
                "command": "lock --check",
                "ok": outcome.up_to_date,
                "folder": str(outcome.folder),
                "up_to_date": list(outcome.ok),
                "stale": [s.to_dict() for s in outcome.stale],
            }
        )
        return code
    for problem in outcome.problems:
        print(_("tfenv lock --check: {problem}").format(problem=problem), file=sys.stderr)
    if not outcome.up_to_date:
        if all(s.missing for s in outcome.stale):
            print(
                _(
                    "No lockfile was found in {folder}: lock there with 'tfenv lock', or say "
                    "where the lockfiles live with 'out' in the configuration (or --out)."
                ).format(folder=outcome.folder),
                file=sys.stderr,
            )
        else:
            print(_("Run 'tfenv lock' to regenerate the lockfiles."), file=sys.stderr)
        return code
    count = len(outcome.ok)
    print(
        ngettext(
            "{count} lockfile up to date in {folder}.",
            "{count} lockfiles up to date in {folder}.",
            count,
        ).format(count=count, folder=outcome.folder),
        file=sys.stderr,
    )
    return code


def _summary(result: LockOutcome) -> dict[str, object]:
    return {
        "command": "lock",
        "ok": True,
        "tensorflow": result.team.tensorflow,
        "folder": str(result.folder),
        "resolutions": result.resolutions,
        "targets": [
            {
                "name": t.name,
                "route": t.route,
                "tensorflow": t.tensorflow,
                "files": [name for name, _text in t.files],
                "own_tensorflow": t.name in result.team.own,
            }
            for t in result.targets
        ],
        "limits": result.team.limits_json(),
        "written": [str(p) for p in result.written],
    }


def error_fields(args: argparse.Namespace, exc: TfenvError) -> dict[str, object]:
    """What a failed lock's ``--json`` error object adds to every command's (the CLI prints
    it, and the prose on stderr): the failing targets, and with no common version the
    blocking targets and those that hold the team back."""
    failures = getattr(exc, "failures", {})
    return {
        "command": "lock --check" if args.check else "lock",
        "failures": [{"target": n, "error": why} for n, why in failures.items()],
        **_team_failure(exc),
    }


def _team_failure(exc: TfenvError) -> dict[str, object]:
    """No common version: the blocking targets and the targets that hold the team back
    (``limits``, as a successful lock gives them); the CLI adds the lines (``details``)."""
    from tfenv.errors import NoTeamVersion

    if not isinstance(exc, NoTeamVersion):
        return {}
    return {"blockers": exc.blockers, "limits": exc.limits}


def _print_json(doc: Mapping[str, object]) -> None:
    sys.stdout.write(json.dumps(doc, indent=2) + "\n")


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
            raise UsageError(_("--out {text}: not a folder.").format(text=text))
    except (OSError, ValueError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.ENOENT:
            return path
        raise UsageError(
            _("--out {text}: {exc}.").format(text=text, exc=describe_oserror(exc))
        ) from None
    return path
