"""Command-line entry point: parse argv, run one command, map errors to exit codes.

Each subcommand lives in ``tfenv.commands.<name>`` and exposes two functions:
``configure(parser)`` adds its flags, ``run(args) -> int`` does the work. Those
modules import what they need inside ``run`` so that ``tfenv resolve`` never pays
for httpx or any other heavy import it does not use.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Optional, Protocol, Sequence

from tfenv import __version__
from tfenv.errors import TfenvError

__all__ = ["main"]

# name -> (module, one-line help); order is the order shown in --help
COMMANDS: dict[str, tuple[str, str]] = {
    "resolve": ("tfenv.commands.resolve", "pick a consistent TensorFlow/Python/CUDA/cuDNN stack"),
    "detect": ("tfenv.commands.detect", "read this machine: OS, glibc, GPUs, driver"),
    "lock": ("tfenv.commands.lock", "write team lockfiles for every target machine"),
    "check-upgrade": ("tfenv.commands.check_upgrade", "is another TensorFlow version safe here?"),
    "matrix": ("tfenv.commands.matrix", "print the TensorFlow compatibility table"),
    "doctor": ("tfenv.commands.doctor", "diagnose an installed TensorFlow environment"),
    "explain": ("tfenv.commands.explain", "explain a TensorFlow/CUDA error message"),
    "refresh": ("tfenv.commands.refresh", "regenerate index-derived knowledge-base files"),
}


class _Command(Protocol):
    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so errors get our one-paragraph form."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgvError(f"{self.prog}: {message}. See '{self.prog} --help'.")


class _ArgvError(Exception):
    pass


def _build_parser(argv: Sequence[str]) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tfenv",
        description="Which TensorFlow, Python, CUDA and cuDNN go together on a machine, "
        "explained, and locked for a whole team.",
    )
    parser.add_argument("--version", action="version", version=f"tfenv {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, (module, help_text) in COMMANDS.items():
        cmd_parser = sub.add_parser(name, help=help_text, description=help_text)
        # only the chosen command's module is imported
        if name == wanted:
            _load(module).configure(cmd_parser)
    return parser


def _load(module: str) -> _Command:
    return importlib.import_module(module)  # type: ignore[return-value,unused-ignore]


def main(argv: Optional[Sequence[str]] = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    try:
        parser = _build_parser(args_list)
        args = parser.parse_args(args_list)
        if args.command is None:
            parser.print_help()
            return 2
        return _load(COMMANDS[args.command][0]).run(args)
    except _ArgvError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except TfenvError as exc:
        print(f"tfenv: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("tfenv: interrupted", file=sys.stderr)
        return 130
