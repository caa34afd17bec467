"""``tfenv explain "<error text>"``: the cause and fix of TensorFlow/CUDA error messages.

The text comes from the argument, from a file with ``--file LOG``, from stdin with ``-``,
or from stdin when no argument is given and stdin is not a terminal; a whole log is fine:
every distinct known error is answered, in the order it first appears, and harmless notices
are summed up at the end. Answers are for the machine at hand: the one ``--host`` or the
machine flags describe, else this one (unless ``--no-detect``). Exit 0 when the text is
recognised, 1 when it is not, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.kb.prose import prose

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.doctor.where import Where
    from tfenv.explain import Explanation, Match
    from tfenv.host.profile import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.models.target import Target

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    from tfenv.commands.resolve import add_machine_flags

    parser.add_argument("text", nargs="?", help=_("the error message or log ('-' reads stdin)"))
    parser.add_argument(
        "--file", metavar="LOG", type=Path, help=_("read the message or a whole log from this file")
    )
    parser.add_argument("--json", action="store_true", help=_("print the explanation as JSON"))
    parser.add_argument(
        "--no-detect",
        action="store_true",
        help=_("do not read this machine (answers use only --host or the machine flags)"),
    )
    parser.add_argument(
        "--tf",
        metavar="VERSION",
        help=_(
            "the TensorFlow release the text comes from (default: the one installed here, "
            "else what the text says)"
        ),
    )
    add_machine_flags(parser)


def run(args: argparse.Namespace) -> int:
    from tfenv.explain import explain
    from tfenv.kb import KnowledgeBase

    text, cut = _text(args)
    kb = KnowledgeBase.from_environment()
    host, target, where = _machine(kb, args)
    result = explain(text, kb, host, target=target, tf=_tf(kb, args.tf))
    if cut:
        print(
            _(
                "tfenv: the text is longer than {mib} MiB; only its last {mib} MiB were read."
            ).format(mib=MAX_TEXT // (1024 * 1024)),
            file=sys.stderr,
        )
    if args.json:
        doc = _to_dict(result)
        doc["environment"] = where.to_dict() if where is not None else None
        print(json.dumps(doc, indent=2))
    else:
        _print(result, where)
    return 0 if result.known else 1


def _text(args: argparse.Namespace) -> tuple[str, bool]:
    from tfenv.errors import UsageError

    if args.file is not None:
        if args.text is not None:
            raise UsageError(_("Give the text as an argument or with --file, not both."))
        text, cut = read_file(args.file)
    elif args.text == "-" or (args.text is None and not _is_terminal(sys.stdin)):
        text, cut = read_stdin()
    elif args.text is None:
        raise UsageError(
            _("Give the error text as an argument, a log with --file LOG, or '-' to read stdin.")
        )
    else:
        text, cut = _bounded(args.text)
    if not text.strip():
        raise UsageError(_("The error text is empty."))
    return text, cut


def read_file(path: Path) -> tuple[str, bool]:
    """The last :data:`MAX_TEXT` bytes of a log file, decoded as :func:`read_stdin` does."""
    from tfenv.errors import UsageError
    from tfenv.fsutil import InputFileError, read_tail

    try:
        data, cut = read_tail(path, MAX_TEXT)
    except InputFileError as exc:
        raise UsageError(
            _("--file {path}: cannot read it ({strerror}).").format(
                path=path, strerror=exc.strerror
            )
        ) from None
    return data.decode("utf-8", "replace"), cut


def _machine(
    kb: KnowledgeBase, args: argparse.Namespace
) -> tuple[Optional[HostProfile], Optional[Target], Optional[Where]]:
    """This machine's profile (None with --no-detect, or when --host, --os or --arch describe
    another machine), with the Python and the packages of the environment the user is in
    (:func:`tfenv.commands.doctor.user_environment`), the machine to answer for: the one
    --host or the flags describe, else this one, and that environment (None: none read, or
    an activated one that cannot be read)."""
    from tfenv import api
    from tfenv.commands.resolve import given_machine

    m = given_machine(args)
    # a host file, --os or --arch describe another machine: this one is not read (as resolve)
    elsewhere = m is not None and (m.host_file is not None or m.describes_another_machine)
    host = None
    if not (args.no_detect or elsewhere):
        from tfenv.host import detect

        host = detect(gpu_catalog=lambda: kb.gpus)
    where = None
    if host is not None:
        host, where = _in_user_environment(host)
    if m is None:
        return host, None, where
    if host is None and not elsewhere:
        from dataclasses import replace

        m = replace(m, os="linux")  # --no-detect: the flags describe a Linux machine
    target = api.build_target(kb, m, detect=(lambda: host) if host is not None else None)
    return host, target, where


def _in_user_environment(host: HostProfile) -> tuple[HostProfile, Optional[Where]]:
    """``host`` with the Python and the TensorFlow-related packages of the environment the
    user is in (detect reads tfenv's own interpreter)."""
    import os
    from dataclasses import replace

    from packaging.version import InvalidVersion, Version

    from tfenv.commands.doctor import user_environment
    from tfenv.errors import UsageError
    from tfenv.host import _wanted_package

    try:
        env, where = user_environment(os.environ)
    except UsageError:  # an activated environment that cannot be read: answer without it
        return host, None
    if where.source == "tfenv":
        return host, where
    try:
        python = Version(env.python) if env.python else host.python
    except InvalidVersion:
        python = host.python
    packages = tuple((d.name, d.version) for d in env.distributions if _wanted_package(d.name))
    return replace(host, python=python, packages=packages), where


def _tf(kb: KnowledgeBase, text: Optional[str]) -> Optional[Version]:
    """--tf as a release: a series (2.15) is its newest release tfenv knows."""
    if text is None:
        return None
    from tfenv.errors import UsageError
    from tfenv.kb.releases import known_versions
    from tfenv.specs import to_version

    try:
        version = to_version(text)
    except ValueError as exc:
        raise UsageError(
            _("--tf: {exc}.").format(exc=exc), hint=_("Give a release such as 2.15.1.")
        ) from None
    if len(version.release) == 2:
        series = [
            v
            for v in known_versions(kb)
            if v.release[:2] == version.release and not v.is_prerelease
        ]
        if series:
            return max(series)
    return version


MAX_TEXT = 8 * 1024 * 1024  # a log's last 8 MiB hold its errors; more is not kept
MAX_STREAM = 256 * 1024 * 1024  # and reading stops after this much (an endless stream)


def read_stdin() -> tuple[str, bool]:
    """(text, whether it was cut) from stdin, as bytes: the last :data:`MAX_TEXT` bytes,
    decoded as UTF-8 with undecodable bytes replaced (a log is not always clean UTF-8,
    whatever the locale says)."""
    from tfenv.errors import UsageError

    if sys.stdin is None:
        raise UsageError(_("There is no stdin to read the error text from (it is closed)."))
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
            _(
                "stdin is a device, not a log or a pipe; give the error text as an argument, or"
                " pipe or redirect a log file into 'tfenv explain -'."
            )
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
        "machine": result.machine or None,
        "lines": result.lines,
        "errors": [m.entry.id for m in result.errors],
        "noise": [m.entry.id for m in result.noise],
        "matches": [
            {
                "id": m.entry.id,
                "title": prose(m.entry, "title"),
                "severity": m.entry.severity,
                "line": m.excerpt,
                "line_number": m.line,
                "count": m.count,
                "named": dict(m.groups),
                "cause": prose(m.entry, "cause"),
                "fix": m.fix_text,
                "facts": list(m.facts),
                "elsewhere": m.elsewhere,
                "follows": list(m.follows),
                "sources": list(m.entry.provenance.sources),
                "retrieved": m.entry.provenance.retrieved,
            }
            for m in result.matches
        ],
        "suggest": None if result.known else "tfenv doctor",
    }


def _print(result: Explanation, where: Optional[Where]) -> None:
    from tfenv.doctor.where import describe
    from tfenv.textsafe import visible

    if not result.known:
        print(_("tfenv does not recognise this message."))
        print(_("Run `tfenv doctor` (and `tfenv doctor --import`) to check the environment."))
        return
    print(_("Machine: {machine}").format(machine=result.machine))
    if where is not None:
        print(_("Environment: {where}").format(where=visible(describe(where))))
    errors, noise = result.errors, result.noise
    shown = errors or noise
    if len(shown) > 1 or result.lines > 1:
        if errors:
            line = _("Read {lines} line(s): {n} error(s).")
        else:
            line = _("Read {lines} line(s): nothing wrong, only notices.")
        print(line.format(lines=result.lines, n=len(errors)))
    said: dict[str, str] = {}  # text already printed -> the number it was printed under
    for i, m in enumerate(shown):
        print()
        _print_match(m, f"{i + 1}. " if len(shown) > 1 else "", said, f"{i + 1}.")
    if errors and noise:
        print()
        parts = [
            _("{title}{times} (line {line})").format(
                title=prose(m.entry, "title"), times=_times(m), line=m.line
            )
            for m in noise
        ]
        print(
            _("Harmless notices (nothing to fix): {notices}.").format(notices=_("; ").join(parts))
        )


def _times(m: Match) -> str:
    return f" x{m.count}" if m.count > 1 else ""


def _print_match(m: Match, number: str, said: dict[str, str], label: str) -> None:
    """One error; what an earlier one already said (the cause of the same entry, a fact, the
    same fix) is referred to, not repeated."""
    from tfenv.textsafe import visible

    def once(text: str) -> Optional[str]:
        if text in said:
            return None
        said[text] = label
        return text

    print(
        _("{number}{title} [{severity}]  ({id}; {where})").format(
            number=number,
            title=prose(m.entry, "title"),
            severity=_severity(m.entry.severity),
            id=m.entry.id,
            where=_where(m),
        )
    )
    print(_("  line:  {line}").format(line=visible(m.excerpt)))
    cause = prose(m.entry, "cause")
    if once(cause):
        print(_("  cause: {cause}").format(cause=cause))
    else:
        print(_("  cause: as for {number}").format(number=said[cause]))
    for fact in m.facts:
        if once(fact):
            print(_("  fact:  {fact}").format(fact=visible(fact)))
    if m.elsewhere:
        print(_("  note:  {note}").format(note=m.elsewhere))
    fix = m.fix_text
    if once(fix):
        print(_("  fix:   {fix}").format(fix=visible(fix)))
    else:
        print(_("  fix:   as for {number}").format(number=said[fix]))
    also = _("{ids} (found too; they only follow from this)").format(ids=", ".join(m.follows))
    if m.follows and once(also):
        print(_("  also:  {also}").format(also=also))
    see = m.entry.provenance.cite()
    if once(see):
        print(_("  see:   {see}").format(see=see))


def _where(m: Match) -> str:
    from tfenv.i18n import ngettext

    if m.count > 1:
        return ngettext("line {line}, {count} time", "line {line}, {count} times", m.count).format(
            line=m.line, count=m.count
        )
    return _("line {line}").format(line=m.line)


def _severity(severity: str) -> str:
    """The entry's severity as printed (the JSON keeps the word)."""
    words = {"problem": N_("problem"), "warning": N_("warning"), "harmless": N_("harmless")}
    word = words.get(severity)
    return _(word) if word is not None else severity
