"""``system``: TensorFlow from pip, the CUDA toolkit and cuDNN installed by hand (the steps
come from :mod:`tfenv.routes.system_steps`)."""

from __future__ import annotations

from typing import Optional

from packaging.version import Version

from tfenv.i18n import N_
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of
from tfenv.routes.system_steps import linux_steps, windows_env, windows_steps

__all__ = ["SystemRoute"]


class SystemRoute(Route):
    name = "system"
    why = N_("TensorFlow from pip, CUDA and cuDNN installed system-wide by hand")
    accelerators = frozenset({"cuda"})
    managers = ("auto", "pip")
    emits = ("requirements", "activation", "install-guide")

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        pip = (f"{choice.option.package}=={choice.option.version}", *choice.runtime)
        if where.target.system.is_windows:
            env = windows_env(where.kb, choice.cuda)
            steps = windows_steps(
                where.kb, choice.option.version, choice.cuda, choice.cudnn, choice.python
            )
        else:
            env = _env(choice.cuda)
            steps = linux_steps(where.kb, where.target.os, choice.cuda, choice.cudnn)
        packages = Packages(
            pip=pip,
            env=env,
            commands=(pip_install(*pip, shell=shell_of(where)),),
            steps=steps,
        )
        return Delivery(choice.python, choice.cuda, choice.cudnn, packages)


def _env(cuda: Optional[Version]) -> tuple[tuple[str, str], ...]:
    if cuda is None:
        return ()
    base = f"/usr/local/cuda-{cuda}"
    return (
        ("CUDA_HOME", base),
        ("LD_LIBRARY_PATH", f"{base}/lib64:$LD_LIBRARY_PATH"),
        ("PATH", f"{base}/bin:$PATH"),
        ("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={base}"),
    )
