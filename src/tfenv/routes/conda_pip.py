"""``conda+pip``: conda-forge's cudatoolkit (and cuDNN), TensorFlow from pip.

conda-forge never built some cuDNN series (8.6, 8.7): then the nvidia-cudnn-cuXX
wheel of that series comes from pip, as the TensorFlow docs did for 2.12-2.13.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import N_, _
from tfenv.models.sentence import said
from tfenv.routes.base import (
    Choice,
    Delivery,
    Packages,
    Route,
    Where,
    library_env,
    pip_install,
    shell_of,
)
from tfenv.routes.conda import conda_create, conda_env_name, conda_match
from tfenv.routes.conda_steps import conda_guide, conda_steps

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.releases import TfOption
    from tfenv.models.plan import Plan
    from tfenv.models.target import Target
    from tfenv.routes.base import GuideStep

__all__ = ["CondaPipRoute"]


class CondaPipRoute(Route):
    name = "conda+pip"
    why = N_("conda provides cudatoolkit and cuDNN, pip provides TensorFlow")
    accelerators = frozenset({"cuda"})
    managers = ("auto", "conda")
    locker = "conda"
    emits = ("environment", "activation", "install-guide")
    pip_in_conda = True

    def guide(self, plan: Plan, target: Target) -> tuple[GuideStep, ...]:
        return conda_guide(plan, target)

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        cb = option.build.for_machine(where.target.os) if option.build else None
        cuda = cb.cuda if cb else None
        if cuda is None or conda_match(where.kb.conda.cudatoolkit.conda_forge, cuda) is None:
            return _("conda-forge has no cudatoolkit {cuda}").format(cuda=cuda or _("(unknown)"))
        py = where.target.python
        if py is not None and (option.wheels is None or not option.wheels.serves(str(py))):
            # pip installs the wheel into the environment: said here so that, with
            # --manager conda, conda-forge's own build can still serve this Python
            return _("TensorFlow {version} has no wheel for Python {python}").format(
                version=option.version, python=py
            )
        return None

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        kb, target, cuda, cudnn = where.kb, where.target, choice.cuda, choice.cudnn
        toolkit = conda_match(kb.conda.cudatoolkit.conda_forge, cuda) if cuda else None
        py = f"python={choice.python}" if choice.python else "python"
        conda = [py, f"cudatoolkit={toolkit or cuda}"]
        pip = [f"{choice.option.package}=={choice.option.version}", *choice.runtime]
        env = library_env(target, "$CONDA_PREFIX/lib")
        if cudnn is not None and cuda is not None:
            from_conda = conda_match(kb.conda.cudnn.conda_forge, cudnn)
            cb = choice.option.build.for_machine(target.os) if choice.option.build else None
            if from_conda is not None and cb is not None and cb.cudnn != cudnn:
                # a later cuDNN than the build's (rules/cudnn_arch.later_cudnn): the series,
                # so that conda picks the build of it for this CUDA major
                from_conda = cudnn
            wheel = _cudnn_wheel(kb, cuda, cudnn) if from_conda is None else None
            if wheel is not None:
                pip.insert(0, wheel)
                env = _pip_cudnn_env(target.system.is_windows)
            else:
                conda.append(f"cudnn={from_conda or cudnn}")
        shell = shell_of(where)
        packages = Packages(
            pip=tuple(pip),
            conda=tuple(conda),
            channels=("conda-forge",),
            env=env,
            commands=(
                *conda_create(conda_env_name(choice.option.version), tuple(conda), shell),
                pip_install(*pip, shell=shell),
            ),
            steps=conda_steps(kb, target),
        )
        reasons = (
            (said("conda-windows-path", _(_WINDOWS_PATH)),) if target.system.is_windows else ()
        )
        return Delivery(choice.python, cuda, cudnn, packages, reasons=reasons)


#: where conda puts the toolkit's DLLs on Windows, and why nothing is set by hand
_WINDOWS_PATH = N_(
    "On Windows conda puts cudatoolkit's and cuDNN's DLLs in %CONDA_PREFIX%\\Library\\bin, "
    "which conda activate puts on PATH (conda/conda conda/activate.py, _get_path_dirs): run "
    "Python from the activated environment (the Miniforge Prompt or Anaconda Prompt, or "
    "PowerShell after conda init powershell), with no CUDA variables to set."
)


def _cudnn_wheel(kb: KnowledgeBase, cuda: Version, cudnn: Version) -> Optional[str]:
    """The newest nvidia-cudnn-cuXX wheel of the cuDNN series, if the index has one."""
    name = kb.and_cuda.wheel("cudnn", cuda.major)
    if name is None:
        return None
    found = conda_match(tuple(w.version for w in kb.cuda_index.cuda_versions(name)), cudnn)
    return None if found is None else f"{name}=={found}"


def _pip_cudnn_env(windows: bool) -> tuple[tuple[str, str], ...]:
    if windows:
        return ()
    where = '$(python -c "import os, nvidia.cudnn; print(os.path.dirname(nvidia.cudnn.__file__))")'
    return (
        ("CUDNN_PATH", where),
        ("LD_LIBRARY_PATH", "$CONDA_PREFIX/lib:$CUDNN_PATH/lib:$LD_LIBRARY_PATH"),
    )
