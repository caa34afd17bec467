"""An activation script that lets TensorFlow find CUDA libraries, ptxas and libdevice."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.i18n import _
from tfenv.i18n.width import wrap
from tfenv.textsafe import comment_block, shell_export

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["render_activation", "render_wheel_activation"]

# The wheels' folders, found through the environment's Python. A shell without ``python``
# on PATH (or one whose ``python`` fails) sets nothing and goes on: sourced under ``set -e``
# the script must not end the shell (``|| _tfenv_site=`` keeps a failing python from it).
_PIP_WHEELS = """\
_tfenv_py='import sysconfig; print(sysconfig.get_paths()["purelib"])'
_tfenv_site=$(python -c "$_tfenv_py" 2>/dev/null) || _tfenv_site=
if [ -n "$_tfenv_site" ]; then
    for _tfenv_lib in "$_tfenv_site"/nvidia/*/lib; do
        if [ -d "$_tfenv_lib" ]; then
            LD_LIBRARY_PATH="$_tfenv_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        fi
    done
    export LD_LIBRARY_PATH
    if [ -x "$_tfenv_site/nvidia/cuda_nvcc/bin/ptxas" ]; then
        export PATH="$_tfenv_site/nvidia/cuda_nvcc/bin:$PATH"
        export XLA_FLAGS="--xla_gpu_cuda_data_dir=$_tfenv_site/nvidia/cuda_nvcc"
    fi
fi
unset _tfenv_py _tfenv_site _tfenv_lib
"""


def render_activation(res: Resolution) -> Optional[str]:
    """A script that exports the plan's variables (None where there is nothing to set)."""
    plan = res.plan
    if plan is None or not plan.env or not _applies(res):
        return None
    return _head(res) + "".join(shell_export(k, v) + "\n" for k, v in plan.env)


def render_wheel_activation(res: Resolution) -> Optional[str]:
    """A script that points the loader and XLA at the nvidia-* wheels' libraries and tools."""
    if not _applies(res):
        return None
    what = _(
        "Puts the CUDA libraries of the nvidia-* wheels on the loader path and points XLA at "
        "their ptxas and libdevice (TensorFlow 2.16.1 did not find them on its own)."
    )
    return _head(res) + comment_block(wrap(what, 86)) + _PIP_WHEELS


def _applies(res: Resolution) -> bool:
    plan = res.plan
    return plan is not None and plan.accelerator == "cuda" and not res.target.system.is_windows


def _head(res: Resolution) -> str:
    return comment_block(
        [
            *header_lines(res),
            _("Source this file after activating the environment: {command}").format(
                command=". ./activate-tfenv.sh"
            ),
        ]
    )
