"""The Verify step, in the new environment as its ``activate`` leaves it, then ``doctor``.

The check is doctor's import check (:func:`tfenv.doctor.imports.run_import_check`): import
TensorFlow, ``tf.config.list_physical_devices('GPU')``, a computation on the CPU (the checks of
the plan's Verify step) and a matmul on ``/GPU:0`` when there is a GPU, run by the
environment's interpreter with the variables its ``activate`` sets (the activation is really
run, so the scripts are checked too). Beside it (in this process, while the child
imports: one TensorFlow import in all), doctor's checks of the environment against this
machine (CUDA libraries found where TensorFlow looks, the driver, the pins); on a machine
without a GPU, a GPU plan is checked for the GPU machine it is for, as ``doctor --gpu NAME
--driver X`` does, so a CUDA or cuDNN that is not there (the system route's) is found. Anything
wrong is answered by ``explain`` from the import's log; on a machine without an NVIDIA GPU a
CUDA build that sees no GPU is the right answer, and the report says why there is none
(detection's note).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tfenv.doctor.findings import Finding
from tfenv.i18n import N_, _
from tfenv.models.sentence import said

if TYPE_CHECKING:
    from tfenv.host.profile import HostProfile
    from tfenv.install.create import Layout
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Plan, Resolution

__all__ = ["CHECK", "Verdict", "activated_environ", "verify"]

#: what the Verify step runs, in words (one place, so that a plan's own check can replace it);
#: the English, translated where it is shown: _(CHECK)
CHECK = N_(
    "import tensorflow, tf.config.list_physical_devices('GPU'), a computation on the CPU "
    "(the plan's Verify checks), and a matmul on /GPU:0 when there is a GPU"
)


@dataclass(frozen=True)
class Verdict:
    findings: tuple[Finding, ...]  # the import check's, then doctor's
    answers: tuple[str, ...] = ()  # explain's answers, when something is wrong
    notes: tuple[str, ...] = ()  # why there is no GPU here, when there is none
    log: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def problems(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.status == "problem")

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "check": _(CHECK),
            "findings": [f.to_dict() for f in self.findings],
            "explain": list(self.answers),
            "notes": list(self.notes),
        }


def verify(
    layout: Layout,
    res: Resolution,
    here: HostProfile,
    kb: KnowledgeBase,
    environ: Mapping[str, str],
    timeout: float,
) -> Verdict:
    from tfenv.doctor import env as target_env
    from tfenv.doctor.checks import Inputs, diagnose, profile_of
    from tfenv.doctor.imports import run_import_check

    plan, target = res.plan, res.target
    assert plan is not None
    try:
        activated = activated_environ(layout, environ)
    except OSError as exc:
        f = Finding(
            "activate",
            "problem",
            said("activate-failed", _("Activating the environment failed: {exc}"), exc=exc),
        )
        return Verdict((f,))
    env = target_env.from_prefix(layout.folder)
    given = plan.gpu and not here.has_gpu and target.cc is not None
    inputs = Inputs(
        env=env,
        # no GPU here: doctor checks for the GPU machine the plan is for (the CUDA and cuDNN
        # libraries must be found all the same), as `doctor --gpu NAME --driver X` does
        host=profile_of(kb, target, env.python) if given else here,
        kb=kb,
        environ=activated,
        load_libraries=True,
        given=given,
    )
    # doctor's checks (in this process) run while the child imports TensorFlow: they need
    # nothing from it, and the wait is the child's
    with ThreadPoolExecutor(max_workers=1) as pool:
        checks = pool.submit(diagnose, inputs)
        result = run_import_check(str(layout.python), timeout, here.has_gpu, env=activated)
        findings = [*result.findings, *checks.result()]
    notes: tuple[str, ...] = ()
    if plan.gpu and not here.has_gpu:
        notes = tuple(n.text for n in here.notes) or (_("No NVIDIA GPU was detected here."),)
    verdict = Verdict(tuple(findings), notes=notes, log=result.log)
    if verdict.ok:
        return verdict
    return Verdict(verdict.findings, _answers(verdict, plan, here, kb), notes, result.log)


def _answers(verdict: Verdict, plan: Plan, here: HostProfile, kb: KnowledgeBase) -> tuple[str, ...]:
    from packaging.version import Version

    from tfenv.explain import explain

    text = "\n".join([verdict.log, *(f"{f.title}. {f.detail}" for f in verdict.problems)])
    found = explain(text, kb, host=here, tf=Version(plan.tensorflow))
    # the error that ended the import is the last one in its log: it comes first
    last_first = sorted(found.errors, key=lambda m: -m.line)
    return tuple(f"{m.entry.title}: {m.fix_text}" for m in last_first)


def activated_environ(layout: Layout, environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a shell has after activating the environment: its own activation
    script (a venv's ``activate``, a conda environment's ``activate.d`` scripts) is run and
    the result read back. Raises OSError when the activation fails."""
    from tfenv import procs

    base = dict(environ)
    base.pop("VIRTUAL_ENV", None)
    if layout.windows:
        return _windows_activated(layout, base)
    if layout.conda:
        base["CONDA_PREFIX"] = str(layout.prefix)
        base["PATH"] = os.pathsep.join([str(layout.scripts), base.get("PATH", "")])
        hooks = sorted((layout.folder / "etc" / "conda" / "activate.d").glob("*.sh"))
    else:
        hooks = [Path(layout.scripts) / "activate"]
    shell = shutil.which("bash", path=base.get("PATH")) or "/bin/sh"
    script = 'for f in "$@"; do . "$f" >/dev/null 2>&1 || exit 97; done; env -0'
    try:
        proc = procs.run(
            [shell, "-c", script, "tfenv-activate", *map(str, hooks)],
            timeout=60,
            env=base,
            errors="replace",
        )
    except subprocess.SubprocessError as exc:
        raise OSError(_("{shell} did not finish: {exc}").format(shell=shell, exc=exc)) from None
    if proc.returncode != 0:
        raise OSError(
            _("sourcing {str} failed (exit {returncode})").format(
                str=", ".join(map(str, hooks)), returncode=proc.returncode
            )
        )
    return _parse_env(proc.stdout, "\0")


def _windows_activated(layout: Layout, base: dict[str, str]) -> dict[str, str]:
    from tfenv import procs

    if layout.conda:
        base["CONDA_PREFIX"] = str(layout.prefix)
        dirs = [layout.prefix, layout.prefix / "Library" / "bin", layout.prefix / "Scripts"]
        base["PATH"] = os.pathsep.join([*map(str, dirs), base.get("PATH", "")])
        hooks = sorted((layout.folder / "etc" / "conda" / "activate.d").glob("*.bat"))
    else:
        hooks = [Path(layout.scripts) / "activate.bat"]
    calls = " && ".join(f'call "{h}" >nul' for h in hooks)
    line = f"{calls} && set" if calls else "set"
    proc = procs.run(["cmd", "/d", "/s", "/c", line], timeout=60, env=base, errors="replace")
    if proc.returncode != 0:
        raise OSError(
            _("running {line} failed (exit {returncode})").format(
                line=line, returncode=proc.returncode
            )
        )
    return _parse_env(proc.stdout, "\n")


def _parse_env(text: str, sep: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(sep):
        name, eq, value = item.rstrip("\r").partition("=")
        if eq and name:
            out[name] = value
    return out
