"""``system``: TensorFlow from pip, the CUDA toolkit and cuDNN installed by hand."""

from __future__ import annotations

from typing import Optional

from packaging.version import Version

from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install

__all__ = ["SystemRoute"]


class SystemRoute(Route):
    name = "system"
    why = "TensorFlow from pip, CUDA and cuDNN installed system-wide by hand"
    accelerators = frozenset({"cuda"})
    managers = ("auto", "pip")
    emits = ("requirements", "activation")

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        pin = f"{choice.option.package}=={choice.option.version}"
        packages = Packages(
            pip=(pin,),
            env=_env(where.target.os, choice.cuda),
            commands=(_step(choice.cuda, choice.cudnn), pip_install(pin)),
        )
        return Delivery(choice.python, choice.cuda, choice.cudnn, packages)


def _env(os: str, cuda: Optional[Version]) -> tuple[tuple[str, str], ...]:
    if cuda is None:
        return ()
    if os == "windows":
        base = f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{cuda}"
        return (("CUDA_PATH", base), ("PATH", f"{base}\\bin;%PATH%"))
    base = f"/usr/local/cuda-{cuda}"
    return (
        ("CUDA_HOME", base),
        ("LD_LIBRARY_PATH", f"{base}/lib64:$LD_LIBRARY_PATH"),
        ("PATH", f"{base}/bin:$PATH"),
        ("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={base}"),
    )


def _step(cuda: Optional[Version], cudnn: Optional[Version]) -> str:
    if cuda is None:
        return "# no CUDA needed"
    step = f"# install the CUDA Toolkit {cuda}"
    if cudnn is not None:
        step += f" and cuDNN {cudnn} for CUDA {cuda.major}"
    return step + " from NVIDIA, then set the variables below"
