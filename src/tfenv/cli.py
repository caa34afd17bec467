"""Command-line entry point: parse argv, run one command, map errors to exit codes.

Each subcommand lives in ``tfenv.commands.<name>`` and exposes two functions:
``configure(parser)`` adds its flags, ``run(args) -> int`` does the work. Those
modules import what they need inside ``run`` so that ``tfenv resolve`` never pays
for httpx or any other heavy import it does not use.

Exit codes: 0 an answer, 1 a valid question with no good answer, 2 bad input, 3 a bug
in tfenv (the last-resort handler: one paragraph, the traceback with ``TFENV_DEBUG=1``),
130/143 interrupted or terminated (child processes are ended too), 141 when the reader
of the output went away (``tfenv matrix | head -1``).
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys

from tfenv import __version__
from tfenv.errors import TfenvError, UsageError
from tfenv.i18n import N_, UnknownLanguage, _, choose, language, set_language

# typing, contextlib and threading are not imported: `tfenv --version` and `tfenv
# <command> --help` import no more than they need (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn, Optional, Protocol

    class _Command(Protocol):
        def configure(self, parser: argparse.ArgumentParser) -> None: ...

        def run(self, args: argparse.Namespace) -> int: ...


__all__ = ["EXIT_BUG", "main"]

EXIT_BUG = 3
_EXIT_PIPE = 128 + 13  # as a program killed by SIGPIPE
_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")

# name -> (module, one-line help); order is the order shown in --help
COMMANDS: dict[str, tuple[str, str]] = {
    "resolve": (
        "tfenv.commands.resolve",
        N_("pick a consistent TensorFlow/Python/CUDA/cuDNN stack"),
    ),
    "detect": ("tfenv.commands.detect", N_("read this machine: OS, glibc, GPUs, driver")),
    "lock": ("tfenv.commands.lock", N_("write team lockfiles for every target machine")),
    "install": ("tfenv.commands.install", N_("create a verified TensorFlow environment here")),
    "check-upgrade": (
        "tfenv.commands.check_upgrade",
        N_("is another TensorFlow version safe here?"),
    ),
    "matrix": ("tfenv.commands.matrix", N_("print the TensorFlow compatibility table")),
    "doctor": ("tfenv.commands.doctor", N_("diagnose an installed TensorFlow environment")),
    "explain": ("tfenv.commands.explain", N_("explain a TensorFlow/CUDA error message")),
    "refresh": ("tfenv.commands.refresh", N_("regenerate index-derived knowledge-base files")),
}

# argparse's own words (it looks them up with gettext; _use_our_catalogue points it at
# ours): the headings and messages a tfenv user meets, as Python 3.9 to 3.13 word them
ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("options"),
    N_("optional arguments"),
    N_("positional arguments"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("expected one argument"),
    N_("expected at least one argument"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("not allowed with argument %s"),
    N_("one of the arguments %s is required"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
)


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so errors get our one-paragraph form.

    A flag given an empty or blank value (``--tf=``, ``--index-url ''``) is refused here,
    for every flag of every command, before its own type sees it: no flag takes an
    empty value to mean its default.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgvError(
            _("{prog}: {message}. See '{prog} --help'.").format(prog=self.prog, message=message)
        )

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # the strings given on the command line (a bare --from-env gives none: its const)
        if action.option_strings and any(not text.strip() for text in arg_strings):
            flag = max(action.option_strings, key=len)
            raise _ArgvError(
                _(
                    "{prog}: {flag} was given an empty value; give it a value, or leave "
                    "the flag out for its default. See '{prog} --help'."
                ).format(prog=self.prog, flag=flag)
            )
        return super()._get_values(action, arg_strings)


class _ArgvError(Exception):
    pass


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help, its lines filled by display width: a Chinese character takes two
    columns, and a Chinese sentence (no spaces) may break between two characters.

    The terminal's width is read when help is first formatted, not when the formatter is
    made: argparse makes one for every flag added (to check its metavar), and asking
    ``shutil`` each time put it (and its compression modules) on every run's path.
    """

    def __init__(
        self,
        prog: str,
        indent_increment: int = 2,
        max_help_position: int = 24,
        width: Optional[int] = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or 80, **kwargs)
        if width is None:
            self._unmeasured = (indent_increment, max_help_position)
            del self._width, self._max_help_position  # __getattr__ measures on first use

    def __getattr__(self, name: str) -> Any:
        unmeasured = self.__dict__.get("_unmeasured")
        if unmeasured is None or name not in ("_width", "_max_help_position"):
            raise AttributeError(name)
        import shutil

        # what argparse.HelpFormatter.__init__ does with width=None
        indent_increment, max_help_position = unmeasured
        width = shutil.get_terminal_size().columns - 2
        self._width = width
        self._max_help_position = min(max_help_position, max(width - 20, indent_increment * 2))
        del self._unmeasured
        return self.__dict__[name]

    def _split_lines(self, text: str, width: int) -> list[str]:
        from tfenv.i18n.width import wrap

        return wrap(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        from tfenv.i18n.width import wrap

        return "\n".join(indent + line for line in wrap(text, width - len(indent)))


def _build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tfenv",
        description=_(
            "Which TensorFlow, Python, CUDA and cuDNN go together on a machine, "
            "explained, and locked for a whole team."
        ),
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"tfenv {__version__}",
        help=_("show program's version number and exit"),
    )
    _add_lang(parser, None)
    # prog given: argparse would format a usage line (and so measure the terminal) for it
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", prog=parser.prog)
    wanted = _command_word(argv)
    for name, (module, help_text) in COMMANDS.items():
        if wanted in COMMANDS and name != wanted:
            continue  # a command was named: only its parser is built (start-up time)
        cmd_parser = sub.add_parser(name, help=_(help_text), description=_(help_text))
        # also after the command: tfenv resolve --lang zh (the value given first wins)
        _add_lang(cmd_parser, argparse.SUPPRESS)
        # only the chosen command's module is imported
        if name == wanted:
            _load(module).configure(cmd_parser)
    return parser


def _add_lang(parser: argparse.ArgumentParser, default: Any) -> None:
    if default is None:
        help_text = _(
            "the language to answer in: en (English) or zh (Simplified Chinese); "
            "default: $TFENV_LANG, else the locale (LC_ALL, LC_MESSAGES, LANG), else en"
        )
    else:
        help_text = _("the language to answer in: en or zh (see tfenv --help)")
    parser.add_argument("--lang", metavar="LANG", default=default, help=help_text)


def _command_word(argv: Sequence[str]) -> Optional[str]:
    """The subcommand: the first word that is neither a flag nor --lang's value."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--lang":
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def _lang_flag(argv: Sequence[str]) -> Optional[str]:
    """--lang's value in ``argv`` (before a bare ``--``), read before the parser is built
    so that its help is in that language; the first one given wins."""
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg[len("--lang=") :]
    return None


def _set_language(argv: Sequence[str]) -> None:
    """The language, once for the run: --lang, TFENV_LANG, the locale. A terminal whose
    encoding cannot show Chinese gets English and a one-line note, never an exception."""
    try:
        code = choose(_lang_flag(argv), os.environ)
    except UnknownLanguage as exc:
        raise UsageError(str(exc)) from None
    if code != "en" and not all(_can_show_chinese(s) for s in (sys.stdout, sys.stderr)):
        encoding = getattr(sys.stdout, "encoding", None) or "unknown"
        _say(
            f"tfenv: note: this terminal's encoding ({encoding}) cannot show Chinese, so "
            "tfenv answers in English; set PYTHONIOENCODING=utf-8 (or use a UTF-8 "
            "terminal) for Chinese."
        )
        code = "en"
    set_language(code)
    _use_our_catalogue()


def _can_show_chinese(stream: Any) -> bool:
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return True  # a StringIO: it takes any text
    try:
        "中文，。：；（）".encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def _use_our_catalogue() -> None:
    """argparse words its headings and errors with gettext; give it ours."""
    from tfenv import i18n

    argparse._ = i18n._  # type: ignore[attr-defined]
    argparse.ngettext = i18n.ngettext  # type: ignore[attr-defined]


def _load(module: str) -> _Command:
    from importlib import import_module

    return import_module(module)  # type: ignore[return-value,unused-ignore]


class _Terminated(BaseException):
    """SIGTERM (or SIGHUP) arrived: unwind, so that temp files and children are cleaned."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def main(argv: Optional[Sequence[str]] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    _safe_streams()
    restore = _handle_signals()
    before = language()
    try:
        return _main(args_list)
    except BrokenPipeError:
        _silence_stdout()
        return _EXIT_PIPE
    finally:
        restore()
        set_language(before)  # main() called in a process that goes on (tests, the API)


def _main(args_list: list[str]) -> int:
    if args_list == ["--version"]:  # what argparse's version action prints, without its formatter
        sys.stdout.write(f"tfenv {__version__}\n")
        return 0
    args: Optional[argparse.Namespace] = None
    try:
        _set_language(args_list)
        if _json_flag(args_list):  # machine output: English, its errors too (docs/json.md)
            set_language("en")
        parser = _build_parser(args_list)
        args = parser.parse_args(args_list)
        if args.command is None:
            parser.print_help()
            return 2
        return _run(args)
    except _ArgvError as exc:
        return _argv_error(exc, args_list)
    except TfenvError as exc:
        return _tfenv_error(exc, args, args_list)
    except KeyboardInterrupt:
        _end_children()
        _say(_("tfenv: interrupted"))
        return 130
    except _Terminated as exc:
        _end_children()
        _say(_("tfenv: terminated"))
        return 128 + exc.signum
    except BrokenPipeError:
        raise
    except Exception as exc:
        return _bug(exc)


def _argv_error(exc: _ArgvError, argv: Sequence[str]) -> int:
    """A command line argparse refuses: its line on stderr (and the error object with
    ``--json``), exit 2."""
    _say(str(exc))
    if _json_flag(argv):
        _print_error_json(_error_json(_command_word(argv), 2, str(exc), None))
    return 2


def _tfenv_error(exc: TfenvError, args: Optional[argparse.Namespace], argv: Sequence[str]) -> int:
    """The error paragraph and its lines on stderr (and the error object with ``--json``)."""
    _say(_("tfenv: error: {paragraph}").format(paragraph=exc.paragraph))
    for line in exc.details:
        _say(f"  {line}")
    if getattr(args, "json", False) or _json_flag(argv):
        _print_error_json(_tfenv_error_json(args, argv, exc))
    return exc.exit_code


def _json_flag(argv: Sequence[str]) -> bool:
    """Whether ``--json`` is among the flags (before a bare ``--``): read before argparse,
    whose own errors then come as JSON too."""
    for arg in argv:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def _error_json(
    command: Optional[str], code: int, message: str, hint: Optional[str]
) -> dict[str, Any]:
    """The one error object of every command's ``--json`` (docs/json.md): what the error
    paragraph on stderr says, as values."""
    return {"command": command, "ok": False, "exit_code": code, "error": message, "hint": hint}


def _tfenv_error_json(
    args: Optional[argparse.Namespace], argv: Sequence[str], exc: TfenvError
) -> dict[str, Any]:
    """A TfenvError as the error object: ``details`` when it has lines of its own, and what
    the command adds (its module's ``error_fields(args, exc)``: lock's failing targets)."""
    command = getattr(args, "command", None) or _command_word(argv)
    doc = _error_json(command, exc.exit_code, exc.message, exc.hint)
    if exc.details:
        doc["details"] = list(exc.details)
    if args is not None and command in COMMANDS:
        more = getattr(_load(COMMANDS[command][0]), "error_fields", None)
        if more is not None:
            doc.update(more(args, exc))
    return doc


def _print_error_json(doc: dict[str, Any]) -> None:
    import json

    try:
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()


def _run(args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        # machine output: the same bytes in every language, English sentences beside
        # their codes (docs/json.md); main() restores the language afterwards
        set_language("en")
    return _load(COMMANDS[args.command][0]).run(args)


def _bug(exc: Exception) -> int:
    """The last resort: an exception no code anticipated is a bug; say so in one paragraph."""
    from resolvelib import ResolutionTooDeep

    if isinstance(exc, ResolutionTooDeep):  # a solve outside tfenv.resolver: worded as there
        from tfenv.errors import SolverGaveUp

        gave_up = SolverGaveUp(exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0)
        _say(_("tfenv: error: {paragraph}").format(paragraph=gave_up.paragraph))
        return gave_up.exit_code
    if isinstance(exc, MemoryError):
        _say(_("tfenv: error: out of memory while reading the input; is a file far too large?"))
        return 2
    if os.environ.get("TFENV_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exc(file=sys.stderr)
    _say(
        _(
            "tfenv: internal error: this is a bug in tfenv, not a problem with your input "
            "({error}). Run the command again with TFENV_DEBUG=1 to see the traceback, and "
            "please report it with that output."
        ).format(error=f"{type(exc).__name__}: {exc}")
    )
    return EXIT_BUG


def _say(text: str) -> None:
    """One paragraph on stderr: credentials in URLs masked, control characters (newlines
    from a value quoted in the message, terminal escapes) shown as escapes."""
    from tfenv.textsafe import visible

    print(visible(_CREDENTIALS.sub("***@", text)), file=sys.stderr)


def _safe_streams() -> None:
    """Text that cannot be encoded (a lone surrogate) is escaped, never an exception."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure: Any = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:  # noqa: SIM105 (contextlib is not imported, for start-up time)
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def _silence_stdout() -> None:
    """The reader went away: point stdout at /dev/null so the final flush cannot fail."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass


def _end_children() -> None:
    if "tfenv.procs" in sys.modules:  # only if any child could have been started
        from tfenv import procs

        procs.end_all()


def _terminated(signum: int, _frame: object) -> NoReturn:
    _end_children()
    raise _Terminated(signum)


def _interrupted(_signum: int, _frame: object) -> NoReturn:
    _end_children()
    raise KeyboardInterrupt


def _handle_signals() -> Any:
    """SIGTERM/SIGHUP unwind like Ctrl-C (temp files removed, children ended); SIGINT
    ends the children first, so a worker waiting on one returns at once."""
    if "threading" in sys.modules:  # else no thread was started: this is the main one
        import threading

        if threading.current_thread() is not threading.main_thread():
            return lambda: None
    wanted: list[tuple[int, Any]] = [(signal.SIGTERM, _terminated)]
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # kept when run with nohup &
        wanted.append((signal.SIGINT, _interrupted))
    if hasattr(signal, "SIGHUP"):
        wanted.append((signal.SIGHUP, _terminated))
    previous = {signum: signal.signal(signum, handler) for signum, handler in wanted}

    def restore() -> None:
        for signum, handler in previous.items():
            signal.signal(signum, handler)

    return restore
