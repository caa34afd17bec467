"""The installed environment against what its TensorFlow needs of its dependencies to run
(``tensorflow/runtime.yaml``): a NumPy 2 under TensorFlow 2.10, a protobuf 4 under 2.3."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import InvalidVersion, Version

from tfenv.doctor.findings import Finding
from tfenv.i18n import _
from tfenv.models.plan import excluded
from tfenv.models.sentence import Sentence, said

if TYPE_CHECKING:
    from tfenv.doctor.env import TargetEnv
    from tfenv.kb import KnowledgeBase

__all__ = ["check_runtime", "check_tensorboard", "fix_command", "lacks_pip", "pip_line"]


def check_runtime(
    kb: KnowledgeBase, env: TargetEnv, tf: Version, os: str = "linux"
) -> list[Finding]:
    """One finding per constraint the installed TensorFlow ``tf`` needs on this Python: a
    problem, with the pip command that fixes it (for ``os``'s shell), where the installed
    package violates it."""
    if env.python is None:
        return []
    out = []
    for c in kb.runtime.constraints_for(tf, env.python):
        if c.component == "tensorboard":
            continue  # TensorBoard's bound: check_tensorboard reads the TensorBoard installed
        dist = env.dist(c.package)
        version = _version(dist.version) if dist is not None else None
        if version is None:
            continue  # not installed (or unreadable): the import check says what is missing
        ident = f"runtime-{c.package}"
        if SpecifierSet(c.requirement).contains(version, prereleases=True):
            out.append(
                Finding(
                    ident,
                    "ok",
                    said(
                        "runtime-ok",
                        _("{package} {version} satisfies {line} (TensorFlow {tf})"),
                        package=c.package,
                        version=version,
                        line=c.line,
                        tf=tf,
                        id=c.id,
                    ),
                )
            )
            continue
        out.append(
            Finding(
                ident,
                "problem",
                said(
                    "runtime-violated",
                    _(
                        "{package} {version} is installed, but TensorFlow {tf} cannot import or "
                        "run with {package2}"
                    ),
                    package=c.package,
                    version=version,
                    tf=tf,
                    package2=excluded(c.package, c.requirement),
                    id=c.id,
                ),
                said(
                    "runtime-violated-detail",
                    _(
                        "TensorFlow {tf} declares {value}; without {line} it fails with: {error} "
                        "(measured: {evidence}; {sources})"
                    ),
                    tf=tf,
                    value=c.declared or _("no bound on {package}").format(package=c.package),
                    line=c.line,
                    error=c.error,
                    evidence=c.evidence_text(),
                    sources="; ".join(c.sources),
                ),
                fix_command(env, c.line, os),
            )
        )
    return out


def check_tensorboard(kb: KnowledgeBase, env: TargetEnv, os: str = "linux") -> list[Finding]:
    """A problem where the installed TensorBoard cannot start: a release before the one that
    left ``pkg_resources`` (``tensorflow/tensorboard.yaml``) beside a setuptools without it
    (82 and later, or none), with the pip command that fixes it; nothing where TensorBoard is
    not installed or starts."""
    dist = env.dist("tensorboard")
    tensorboard = _version(dist.version) if dist is not None else None
    if tensorboard is None:
        return []
    bound = kb.tensorboard
    found = env.dist(bound.package)
    setuptools = _version(found.version) if found is not None else None
    if not bound.breaks(tensorboard, setuptools):
        return []
    if setuptools is None:
        title = said(
            "tensorboard-no-setuptools",
            _("TensorBoard {version} cannot start: setuptools is not installed"),
            version=tensorboard,
        )
    else:
        title = said(
            "tensorboard-pkg-resources",
            _("TensorBoard {version} cannot start with setuptools {setuptools}"),
            version=tensorboard,
            setuptools=setuptools,
        )
    detail = said(
        "tensorboard-pkg-resources-detail",
        _(
            "TensorBoard before {fixed} imports pkg_resources when it starts, which setuptools "
            "{first_bad} removed; it fails with: {error} (measured: setuptools {last_good} "
            "ran, {first_bad} broke, {checked}; {sources}). Upgrading TensorBoard to {fixed} "
            "fixes it too."
        ),
        fixed=bound.fixed,
        first_bad=bound.first_bad,
        last_good=bound.last_good,
        error=bound.error,
        checked=bound.checked,
        sources="; ".join(bound.sources),
    )
    return [Finding("tensorboard", "problem", title, detail, fix_command(env, bound.line, os))]


def fix_command(env: TargetEnv, line: str, os: str = "linux") -> Sentence:
    """``/path/to/python -m pip install 'numpy<2'`` for this environment, in ``os``'s shell.
    On native Windows (one form for cmd.exe and PowerShell) the interpreter is named only
    where it can start a command bare (``C:\\envs\\tf\\Scripts\\python.exe``; a quoted
    path is a string to PowerShell): else ``python``, in the activated environment."""
    ran, activated = _pip(env, ["install", line], os)
    if not activated:
        return said("fix-pip-command", "{command}", command=ran, line=line)
    return said(
        "fix-pip-command-activated",
        _("{command} (in the activated environment)"),
        command=ran,
        line=line,
    )


def pip_line(env: TargetEnv, args: Sequence[str], os: str = "linux") -> str:
    """``python -m pip ARGS`` run by this environment's interpreter, written for ``os``'s
    shell as :func:`fix_command` writes it (a command the fix sentences quote)."""
    ran, activated = _pip(env, args, os)
    if not activated:
        return ran
    return _("{command} (in the activated environment)").format(command=ran)


def _pip(env: TargetEnv, args: Sequence[str], os: str) -> tuple[str, bool]:
    """The command and whether it must run in the activated environment (a Windows
    interpreter path that cannot start a command bare: ``python`` stands for it). An
    environment without pip (``uv venv`` makes none) gets pip first, from the standard
    library's ``ensurepip``: on POSIX one line joined by ``&&``; for cmd.exe and PowerShell
    (Windows PowerShell 5.1 has no ``&&``) two commands, in order."""
    from tfenv.shells import UnsafeWord, command, shell_for

    shell = shell_for(os)
    python, activated = "python", shell != "posix"
    if env.interpreter:
        try:
            command([env.interpreter], shell)
            python, activated = env.interpreter, False
        except UnsafeWord:
            pass
    ran = command([python, "-m", "pip", *args], shell)
    if not lacks_pip(env):
        return ran, activated
    ensure = command([python, "-m", "ensurepip"], shell)
    if shell == "posix":
        return f"{ensure} && {ran}", activated
    return _("{ensurepip}, then {command}").format(ensurepip=ensure, command=ran), activated


def lacks_pip(env: TargetEnv) -> bool:
    """Whether the environment has an interpreter and site-packages but no pip in them."""
    return bool(env.interpreter and env.site_packages) and env.dist("pip") is None


def _version(text: str) -> Optional[Version]:
    try:
        return Version(text)
    except InvalidVersion:
        return None
