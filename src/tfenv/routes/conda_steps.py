"""The conda routes' steps: where conda comes from (Miniforge, from the facts of
``conda.yaml``'s ``installer``) and the numbered guide ``--emit`` writes as INSTALL.md.

The prerequisite is part of the plan (text, ``--json``, INSTALL.md) unless the plan is for
this machine and a conda-family tool was found on it (``"conda"`` in the target's
detected facts, set by :func:`tfenv.api.build_target`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.i18n import N_, _
from tfenv.routes.base import GuideStep
from tfenv.routes.powershell import execution_policy_step
from tfenv.shells import command, shell_for

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.conda import CondaInstaller
    from tfenv.models.plan import Plan
    from tfenv.models.target import Target

__all__ = ["CONDA_FOUND", "PREREQUISITE_STEPS", "conda_guide", "conda_steps"]

#: the detected fact that says a conda-family tool (micromamba, mamba, conda) is on this host
CONDA_FOUND = "conda"

_WINDOWS = N_(
    "conda: if none is installed, install {name}, conda-forge's installer ({page}): "
    "download {file} from {url} and run it (Windows {windows} or later; an install folder "
    "without spaces or special characters). An installed Anaconda or Miniconda does as "
    "well: the commands below take packages from conda-forge only. Run them in the "
    "{prompt} from the Start menu (the {anaconda_prompt} for Anaconda or Miniconda), "
    "where conda works; for PowerShell run {init} there once, then open a new PowerShell."
)
_LINUX = N_(
    "conda: if none is installed, install {name}, conda-forge's installer ({page}): "
    "download {file} from {url} and run {run}; it offers to initialize conda for your "
    "shell (open a new shell afterwards). An installed Anaconda or Miniconda does as "
    "well: the commands below take packages from conda-forge only."
)
_WSL2 = N_(
    "conda: if none is installed in this WSL2 distribution, install {name}, "
    "conda-forge's installer ({page}): in the Linux shell of WSL2, not in PowerShell "
    "(WSL2 takes the Linux installer), download {file} from {url} and run {run}; it offers to "
    "initialize conda for your shell (open a new shell afterwards). An installed "
    "Anaconda or Miniconda does as well: the commands below take packages from "
    "conda-forge only."
)
_UNRECORDED = N_(
    "conda: if none is installed, install {name}, conda-forge's installer, with its "
    "installer for {subdir} from {page} (which file is not recorded here). An installed "
    "Anaconda or Miniconda does as well: the commands below take packages from "
    "conda-forge only."
)
#: the templates of the prerequisite (English): ``tfenv install`` found conda to run, so
#: it leaves them out of what is still to do by hand (install/steps.py)
PREREQUISITE_STEPS = (_WINDOWS, _LINUX, _WSL2, _UNRECORDED)


def conda_steps(kb: KnowledgeBase, target: Target) -> tuple[str, ...]:
    """The manual steps of a plan that runs conda: where conda comes from, unless this is
    the machine the plan is for and conda was found on it; on native Windows, then what
    lets PowerShell run conda's profile and activate-tfenv.ps1 (the execution policy)."""
    steps: tuple[str, ...] = ()
    if CONDA_FOUND not in target.detected:
        steps += (_prerequisite(kb.conda.installer, target),)
    if target.system.is_windows:
        steps += (execution_policy_step(kb.conda.execution_policy),)
    return steps


def _prerequisite(found: CondaInstaller, target: Target) -> str:
    subdir = target.platform.conda_subdir
    file = found.file(subdir)
    if file is None:
        return _(_UNRECORDED).format(name=found.name, subdir=subdir, page=found.page)
    if target.system.is_windows:
        return _(_WINDOWS).format(
            name=found.name,
            page=found.page,
            file=file,
            url=found.url(file),
            windows=found.windows_min,
            prompt=found.windows_prompt,
            anaconda_prompt=found.anaconda_prompt,
            init=command(list(found.powershell_init), "windows"),
        )
    template = _WSL2 if target.system.is_wsl2 else _LINUX
    return _(template).format(
        name=found.name,
        page=found.page,
        file=file,
        url=found.url(file),
        run=command(["bash", file], "posix"),
    )


def conda_guide(plan: Plan, target: Target) -> tuple[GuideStep, ...]:
    """INSTALL.md's steps for a conda route's plan: its manual steps (where conda comes
    from), then its commands one by one (the conda routes write ``conda create``, ``conda
    activate`` and, for conda+pip, the pip install, in that order), the variables where
    the plan sets some, and the Verify step."""
    windows = target.system.is_windows
    steps = [GuideStep(s) for s in plan.steps]
    create, activate, *rest = plan.commands
    steps.append(GuideStep(_("Create the environment (packages from conda-forge only):"), create))
    steps.append(
        GuideStep(
            _("Activate it; do so again in every new prompt before using it:")
            if windows
            else _("Activate it; do so again in every new shell before using it:"),
            activate,
        )
    )
    steps += [GuideStep(_("Install TensorFlow into it with pip:"), c) for c in rest]
    if plan.env and windows:
        steps.append(
            GuideStep(
                _(
                    "Set the variables under Environment after conda activate: "
                    "activate-tfenv.bat (cmd.exe) and activate-tfenv.ps1 (PowerShell), which "
                    "--emit writes next to this file, set them for the session."
                )
            )
        )
    elif plan.env:
        steps.append(
            GuideStep(
                _(
                    "Set the variables under Environment after conda activate, in every new "
                    "shell: activate-tfenv.sh, which --emit writes next to this file, sets "
                    "them:"
                ),
                command(["source", "./activate-tfenv.sh"], shell_for(target.os)),
            )
        )
    if plan.verify:
        steps.append(
            GuideStep(
                _("Verify: this lists a PhysicalDevice with device_type='GPU':")
                if plan.gpu
                else _("Verify: this runs a computation on the CPU:"),
                plan.verify,
            )
        )
    return tuple(steps)
