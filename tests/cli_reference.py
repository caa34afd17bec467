"""Render docs/cli.md from the CLI's own parsers, so the reference cannot drift.

Regenerate with ``python -m tests.cli_reference > docs/cli.md``; tests/test_docs.py
fails when the page and the parsers disagree.
"""

from __future__ import annotations

import argparse
import os
import sys

HEAD = """\
# CLI reference

Generated from tfenv's argument parsers by `python -m tests.cli_reference > docs/cli.md`;
do not edit by hand. Exit codes: 0 success, 1 a valid question with no good answer
(nothing fits, a problem found, a blocker, stale files), 2 bad input, 3 a bug in tfenv
(`TFENV_DEBUG=1` shows the traceback). See [errors.md](errors.md). Every flag that takes
a value refuses an empty or blank one (`--tf=`, `--index-url ''`), naming the flag (exit
2): leave a flag out for its default.

Language: every command answers in English (`--lang en`) or Simplified Chinese (`--lang zh`),
given before or after the command; without the flag, `TFENV_LANG`, else the locale (the
first set of `LC_ALL`, `LC_MESSAGES`, `LANG`: `zh_CN`, `zh_SG`, `zh_TW`, `zh_HK` and `zh`
all mean Simplified Chinese for now; `C`, `POSIX`, `en_*` and every other language mean
English), else English. A `--lang` or `TFENV_LANG` naming another language is refused (exit
2). A terminal whose encoding cannot show Chinese (`PYTHONIOENCODING=ascii`, a non-Chinese
Windows code page) gets English and a one-line note. `--json` output (English sentences, each
beside a language-neutral code: [json.md](json.md)) and lockfiles (`tfenv lock`'s
`requirements.*.txt`, `pylock.*.toml`, `conda-lock.*.yml`, `environment.*.yml`) are the same
bytes in every language: a team's lockfiles and their digests must not depend on who locked.
The files `resolve --emit` and `tfenv install` write are for a person and follow the language:
their comments (the header, each pin's reason, the Dockerfile's and scripts' notes) and
`INSTALL.md`; the same inputs in the same language write the same bytes, and the header's
regenerate command carries `--lang zh` when the language is not English (and the GPU by its
name, quoted for the target's shell). Two exceptions stay ASCII English in every language:
the Windows scripts `activate-tfenv.bat` and `.ps1` (cmd.exe reads a batch file in the
console's code page and Windows PowerShell 5.1 a script without a BOM in the ANSI code page:
[windows.md](windows.md)), and the `added by tfenv install` line in a venv's own activation
scripts (a marker tfenv looks for). A requirements file that is not ASCII starts with
`# -*- coding: utf-8 -*-`, which pip before 24.2 needs to read it in a GBK or C locale
(pypa/pip#12771). `--json` runs in English, so `--json --emit` writes English files. See
[zh/index.md](zh/index.md). Help text is wrapped by display width (a Chinese character takes
two columns).
"""


def render() -> str:
    from tfenv.cli import COMMANDS, _build_parser

    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal width
    parts = [HEAD, "## tfenv\n", "```\n" + _build_parser([]).format_help() + "```\n"]
    for name in COMMANDS:
        parser = _build_parser([name])
        action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        sub = action.choices[name]
        parts.append(f"## tfenv {name}\n")
        parts.append("```\n" + sub.format_help() + "```\n")
    return "\n".join(parts)


if __name__ == "__main__":
    sys.stdout.write(render())
