"""What ``tfenv install`` will do: every step and its commands, worked out from the source,
the machine and the tools that are here, without changing anything (``--dry-run`` stops
here; :mod:`.flow` runs them).

The environment's folder (``.venv`` by default; a conda route: ``tf-VERSION`` in the tool's
environments folder), the tool that makes it (uv, ``python -m venv``, micromamba, mamba or
conda), the install command, what the activation scripts set, and the Verify step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any, Optional

from tfenv.i18n import _, ngettext
from tfenv.install import InstallError
from tfenv.install.create import Layout
from tfenv.install.shell import command
from tfenv.models.platform import system

if TYPE_CHECKING:
    from tfenv.install.source import Source
    from tfenv.install.verify import Verdict

__all__ = ["DEFAULT_DIR", "Options", "Outcome", "Step", "prepare", "remaining_steps"]

DEFAULT_DIR = ".venv"


@dataclass(frozen=True)
class Options:
    folder: Optional[str] = None  # DIR as given; None: .venv (a conda route: tf-VERSION)
    force: bool = False
    keep_failed: bool = False
    offline: bool = False
    index_url: Optional[str] = None
    use_uv: bool = True  # False: python -m venv and pip, even where uv is installed
    timeout: float = 300.0  # the Verify step's import
    environ: Mapping[str, str] = field(default_factory=dict)


@dataclass
class Step:
    name: str  # create, packages, activation, verify
    title: str
    argv: list[list[str]] = field(default_factory=list)
    outcome: str = "planned"  # planned, ok, failed, problem, skipped
    seconds: Optional[float] = None
    detail: str = ""

    def to_dict(self, os_name: str) -> dict[str, Any]:
        return {
            "step": self.name,
            "title": self.title,
            "commands": [command(a, os_name) for a in self.argv],
            "outcome": self.outcome,
            "seconds": None if self.seconds is None else round(self.seconds, 3),
            "detail": self.detail,
        }


@dataclass
class Outcome:
    source: Source
    layout: Layout
    steps: list[Step]
    tool: str  # uv, venv, conda, mamba, micromamba
    verdict: Optional[Verdict] = None
    remaining: tuple[str, ...] = ()  # what is left to do by hand (system route)
    rolled_back: str = ""
    missing: str = ""  # why the steps cannot run here (no conda-family tool)
    space: str = ""  # what the disk-space check found (install.space), or why it did not run

    @property
    def status(self) -> str:
        if any(s.outcome == "failed" for s in self.steps):
            return "failed"
        if all(s.outcome == "planned" for s in self.steps):
            return "dry-run"
        if self.verdict is not None and not self.verdict.ok:
            return "problem"
        return "ok"

    def to_dict(self) -> dict[str, Any]:
        os_name = self.layout.os_name
        return {
            "status": self.status,
            "environment": str(self.layout.prefix),
            "tool": self.tool,
            "source": {
                "lock": None if self.source.lock is None else str(self.source.lock),
                "target": self.source.target,
                **({"stale": list(self.source.stale)} if self.source.stale else {}),
            },
            "plan": self.source.plan.to_dict(),
            "steps": [s.to_dict(os_name) for s in self.steps],
            "verify": None if self.verdict is None else self.verdict.to_dict(),
            "remaining": list(self.remaining),
            "rolled_back": self.rolled_back,
            "space": self.space,
        }


def is_conda(source: Source) -> bool:
    from tfenv.routes import route

    return route(source.plan.route).locker == "conda"


def prepare(source: Source, options: Options, os_name: str) -> Outcome:
    """Every step and its commands, for the tools found here (nothing is changed)."""
    from tfenv.install import create

    plan = source.plan
    environ = options.environ
    uv = create.find_uv(environ) if options.use_uv else None
    if uv is not None and not _runs_here(os_name):
        uv = "uv"  # the steps of another kind of machine: uv on its PATH
    if is_conda(source):
        return _prepare_conda(source, options, os_name, uv)
    layout = Layout(_prefix(options.folder or DEFAULT_DIR, os_name), os_name)
    python = plan.python or ""
    found = _interpreter(python, os_name, environ)
    if uv is not None:  # told the interpreter found here, else left to find or fetch one
        told = found[0] if found is not None and len(found) == 1 else python
        tool, make = (
            "uv",
            create.uv_venv_command(uv, told, layout.prefix, options.offline, options.index_url),
        )
    elif found is not None:
        tool, make = "venv", create.venv_command(found, layout.prefix)
    else:
        if system(os_name).is_windows:
            message = _(
                "No Python {python} found on this machine (PATH, pyenv, the py launcher), "
                "and uv, which can find or fetch one, is not installed."
            )
        else:
            message = _(
                "No Python {python} found on this machine (PATH, pyenv), and uv, which can "
                "find or fetch one, is not installed."
            )
        raise InstallError(
            message.format(python=python),
            hint=_(
                "Install Python {python} (e.g. 'pyenv install {python}'), or pip install uv."
            ).format(python=python),
        )
    steps = [
        Step(
            "create",
            _("Create the environment (Python {python}) in {prefix}").format(
                python=python, prefix=layout.prefix
            ),
            [make],
        ),
        _packages_step(source, layout, uv, options),
        *_last_steps(source, layout),
    ]
    return Outcome(source, layout, steps, tool)


def _runs_here(os_name: str) -> bool:
    """Whether the steps for ``os_name`` can run on this kind of machine (Windows or not);
    where they cannot, they are only shown (a --dry-run with --os)."""
    import sys

    return system(os_name).is_windows == (sys.platform == "win32")


def _prefix(folder: str, os_name: str) -> PurePath:
    """DIR as the environment's prefix: a folder of this machine, made absolute; for
    another kind of machine, a path in its own syntax (``C:\\envs\\tf23``), as given: it
    is not joined onto this machine's current folder."""
    if _runs_here(os_name):
        return Path(folder).absolute()
    return PureWindowsPath(folder) if system(os_name).is_windows else PurePosixPath(folder)


def _interpreter(python: str, os_name: str, environ: Mapping[str, str]) -> Optional[list[str]]:
    """Python ``python`` on this machine; None when not found, or when the steps are for
    another kind of machine (a --dry-run with --os)."""
    from tfenv.install.interpreters import find_python

    if not python or not _runs_here(os_name):
        return None
    return find_python(python, os_name, environ)


def _prepare_conda(source: Source, options: Options, os_name: str, uv: Optional[str]) -> Outcome:
    from tfenv.install import conda

    plan = source.plan
    tool = conda.find_tool(options.environ) if _runs_here(os_name) else None
    env = options.folder or f"tf-{plan.tensorflow}"
    shown = tool or "conda"
    prefix = _conda_prefix(tool, env) if tool is not None else _prefix(env, os_name)
    where = str(prefix) if tool is not None or not conda.is_name(env) else env
    if source.lock is not None:
        make = conda.lock_create_command(shown, where, source.lock)
        pip_specs: tuple[str, ...] = ()
    else:
        specs = conda.with_pip(plan.conda)
        make = conda.create_command(shown, where, specs, plan.channels, options.offline)
        pip_specs = plan.pip
    layout = Layout(prefix, os_name, conda=True)
    missing = "" if tool is not None else _("No conda, mamba or micromamba is installed here.")
    steps = [Step("create", _("Create the conda environment {where}").format(where=where), [make])]
    if pip_specs and tool is None and conda.is_name(env):  # where the tool puts it is unknown
        argv = conda.pip_command(shown, env, pip_specs, options.index_url)
        steps.append(Step("packages", _("Install the pip packages"), [argv]))
    elif pip_specs:
        argv = _install_argv(layout, pip_specs, None, uv, options)
        steps.append(Step("packages", _("Install the pip packages"), [argv]))
    unknown = tool is None and conda.is_name(env)  # then the doctor asks the active python
    doctor = ["tfenv", "doctor", "--interpreter", "python", "--import"] if unknown else None
    steps += _last_steps(source, layout, doctor)
    return Outcome(source, layout, steps, Path(shown).name, missing=missing)


def _conda_prefix(tool: str, env: str) -> Path:
    """The folder of environment ``env``: a path as given, a name in the tool's first
    environments folder (``TOOL info --json``)."""
    from tfenv.install import conda

    if not conda.is_name(env):
        return Path(env).absolute()
    from tfenv import procs
    from tfenv.structured import StructureError, load_json

    try:
        proc = procs.run([tool, "info", "--json"], timeout=60, neutral_cwd=True)
        data = load_json(proc.stdout)
    except (OSError, StructureError, ValueError) as exc:
        raise InstallError(
            _("Cannot ask {tool} where its environments are ({exc}).").format(tool=tool, exc=exc),
            hint=_("Give DIR as a folder path (./envs/tf) instead of a name."),
        ) from None
    dirs = data.get("envs_dirs") or data.get("envs directories") if isinstance(data, dict) else None
    if not isinstance(dirs, list) or not dirs or not isinstance(dirs[0], str):
        raise InstallError(
            _("{tool} did not say where its environments are.").format(tool=tool),
            hint=_("Give DIR as a folder path (./envs/tf) instead of a name."),
        )
    return Path(dirs[0]) / env


def _packages_step(source: Source, layout: Layout, uv: Optional[str], options: Options) -> Step:
    plan = source.plan
    if source.lock:
        title = _("Install the lockfile {lock}").format(lock=source.lock)
    elif len(plan.pip) > 1:
        more = len(plan.pip) - 1
        title = ngettext(
            "Install {first} and {count} more pin", "Install {first} and {count} more pins", more
        ).format(first=plan.pip[0], count=more)
    elif plan.pip:
        title = _("Install {what}").format(what=plan.pip[0])
    else:
        title = _("Install nothing")
    argv = _install_argv(layout, plan.pip, source.lock, uv, options)
    return Step("packages", title, [argv])


def _install_argv(
    layout: Layout,
    specs: tuple[str, ...],
    lock: Optional[Path],
    uv: Optional[str],
    options: Options,
) -> list[str]:
    from tfenv.install.packages import install_command

    return install_command(
        layout.python, specs, lock, uv=uv, index_url=options.index_url, offline=options.offline
    )


def _last_steps(
    source: Source, layout: Layout, doctor_argv: Optional[list[str]] = None
) -> list[Step]:
    """The activation scripts (what they set) and the Verify step (what it runs; doctor on
    the environment's folder, or ``doctor_argv``)."""
    from tfenv.install.activation import hook_scripts
    from tfenv.install.verify import CHECK

    plan = source.plan
    names = _words([k for k, _ in plan.env])
    scripts = ", ".join(f"activate-tfenv{s}" for s in sorted(hook_scripts(source.res)))
    if not scripts:
        activation = _("Write the activation scripts: nothing to set for this plan")
    elif names:
        activation = _("Write the activation scripts ({scripts}: {names})").format(
            scripts=scripts, names=names
        )
    else:  # the wheels' script: its paths are found when it runs
        activation = _(
            "Write the activation scripts ({scripts}: the CUDA wheels' library paths, XLA's "
            "CUDA data dir)"
        ).format(scripts=scripts)
    doctor_argv = doctor_argv or ["tfenv", "doctor", "--prefix", str(layout.prefix), "--import"]
    doctor = command(doctor_argv, layout.os_name)
    return [
        Step("activation", activation),
        Step(
            "verify",
            _("Verify: {check}, then doctor's checks (as '{doctor}' after activating)").format(
                check=_(CHECK), doctor=doctor
            ),
        ),
    ]


def remaining_steps(source: Source, conda_here: bool = True) -> tuple[str, ...]:
    """What the route leaves to do by hand: the system route's manual steps (the plan's
    ``steps`` up to installing TensorFlow, which tfenv has done; its Verify step is the
    check install runs), then activating the environment. A conda route's step that says
    where conda comes from is left out where install found a conda-family tool
    (``conda_here``)."""
    plan = source.plan
    if not plan.steps:  # only the system route leaves manual steps (conda routes: conda)
        return ()
    steps = []
    done_here = _done_by_install()
    had = _patterns(_conda_prerequisite()) if conda_here else []
    for step in plan.steps:
        if any(p.fullmatch(step) for p in done_here):
            break
        if not any(p.fullmatch(step) for p in had):
            steps.append(step)
    if not steps:  # a conda route's plan: only where conda comes from, which install found
        return ()
    if plan.env:
        names = _words([k for k, _v in plan.env])
        steps.append(
            _("Then activate the environment: its activation script sets {names}.").format(
                names=names
            )
        )
    return tuple(steps)


def _done_by_install() -> list[re.Pattern[str]]:
    """The system route's step that tfenv install does (routes/system_steps.py words it),
    as patterns of its templates in the current language (the plan was worded in it)."""
    from tfenv.routes.system_steps import INSTALL_STEPS

    return _patterns(INSTALL_STEPS)


def _conda_prerequisite() -> tuple[str, ...]:
    """The conda routes' step that says where conda comes from (routes/conda_steps.py)."""
    from tfenv.routes.conda_steps import PREREQUISITE_STEPS

    return PREREQUISITE_STEPS


def _patterns(templates: tuple[str, ...]) -> list[re.Pattern[str]]:
    """The templates (English) as patterns of their text in the current language."""
    out = []
    for template in templates:
        parts = re.split(r"\{[a-z_]+\}", _(template))
        out.append(re.compile(".*?".join(map(re.escape, parts)), re.DOTALL))
    return out


def _words(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]
