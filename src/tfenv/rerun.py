"""The one place that writes a ``tfenv resolve`` command for a machine.

Every ``tfenv resolve`` line tfenv prints (the ways out of an unsatisfiable request, the
regenerate line of emitted files, explain's and lock's advice) is made here, from the
:class:`~tfenv.models.target.Target` and :class:`~tfenv.models.target.Request` it is meant
to reproduce: every fact of the machine (given, detected or read from a host file) is a
flag, so the line gives the same answer wherever it is run, on whatever machine, with
only the change it proposes. A machine described by flags turns detection off
(``--os`` and ``--arch`` are always written), so nothing of the machine it runs on leaks in.

The line is written for ``shell`` (:mod:`tfenv.shells`). A word that cmd.exe or PowerShell
would change (a GPU name that is not ASCII, ``--tf '!=2.11'``) gives way to a form that
gives the same answer: the GPU by its compute capability alone, the release the plan
picked instead of the specifier.
"""

from __future__ import annotations

from typing import Optional

from tfenv.i18n import language
from tfenv.models.target import Request, Target
from tfenv.shells import Shell, UnsafeWord, command

__all__ = ["line_for", "machine_flags", "request_flags", "resolve_argv", "resolve_line", "tf_flags"]


def machine_flags(t: Target, named: bool = True) -> list[str]:
    """The flags that describe ``t``, every fact it has: ``--os``, ``--arch``, the Python,
    the GPU (its name with ``--cc`` beside it, which makes the same target of a name tfenv
    does not know or one shared by cards of different capability; ``named=False``: the
    compute capability alone), the driver and glibc."""
    flags = ["--os", t.os, "--arch", t.arch]
    if t.python:
        flags += ["--python", str(t.python)]
    if t.cc is not None:
        flags += [*(["--gpu", t.gpu_name] if named and t.gpu_name else []), "--cc", str(t.cc)]
    elif t.gpu_name:  # a Mac's own GPU (AMD, Apple): no compute capability
        flags += ["--gpu", t.gpu_name]
    if t.driver:
        flags += ["--driver", str(t.driver)]
    if t.glibc:
        flags += ["--glibc", str(t.glibc)]
    return flags


def request_flags(r: Request) -> list[str]:
    """The flags of what ``r`` asks but the release (:func:`tf_flags`), and the interface
    language where it is not English."""
    flags = ["--no-gpu"] if r.no_gpu else []
    if r.manager != "auto":
        flags += ["--manager", r.manager]
    if r.cuda_libs != "build":
        flags += ["--cuda-libs", r.cuda_libs]
    if r.allow_cpu:
        flags.append("--allow-cpu")
    if r.pre:
        flags.append("--pre")
    if language() != "en":
        flags += ["--lang", language()]
    return flags


def tf_flags(r: Request, tf: Optional[str] = None) -> list[str]:
    """``--tf`` as ``r`` asks it (``tf``: another value in its place); none for the latest."""
    tf = r.tf_text if tf is None else tf
    return [] if tf == "latest" else ["--tf", tf]


def resolve_argv(t: Target, r: Request, tf: Optional[str] = None, named: bool = True) -> list[str]:
    """``tfenv resolve`` with every fact of ``t`` and everything ``r`` asks (with
    ``--no-gpu``, the GPU is left out: the flags do not go together)."""
    machine = machine_flags(_without_gpu(t) if r.no_gpu else t, named)
    return ["tfenv", "resolve", *tf_flags(r, tf), *machine, *request_flags(r)]


def resolve_line(t: Target, r: Request, shell: Shell, tensorflow: Optional[str] = None) -> str:
    """:func:`resolve_argv` written for ``shell``. Where a word cannot be written for it,
    the GPU gives way to its compute capability and the ``--tf`` specifier to
    ``tensorflow`` (the release the line is to give), which answer the same."""
    tried: list[tuple[Optional[str], bool]] = [(None, True), (None, False)]
    if tensorflow is not None:
        tried[1:1] = [(tensorflow, True)]
        tried.append((tensorflow, False))
    for tf, named in tried:
        try:
            return command(resolve_argv(t, r, tf, named), shell)
        except UnsafeWord:
            continue
    # the last resort still holds a word the shell cannot take: say which
    return command(resolve_argv(t, r, tried[-1][0], False), shell)


def _without_gpu(t: Target) -> Target:
    from tfenv.models._record import replace

    return replace(t, cc=None, gpu_name=None)


def line_for(t: Target, r: Request, tensorflow: Optional[str] = None) -> str:
    """:func:`resolve_line` for the shell of the machine ``t`` itself."""
    from tfenv.shells import shell_for

    return resolve_line(t, r, shell_for(t.os), tensorflow=tensorflow)
