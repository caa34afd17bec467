"""``cpu``: TensorFlow from pip, running on the CPU."""

from __future__ import annotations

from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of

__all__ = ["CpuRoute"]


class CpuRoute(Route):
    name = "cpu"
    why = "TensorFlow from pip, running on the CPU"
    accelerators = frozenset({"cpu"})
    managers = ("auto", "pip")
    emits = ("requirements",)

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        pin = f"{choice.option.package}=={choice.option.version}"
        packages = Packages(pip=(pin,), commands=(pip_install(pin, shell=shell_of(where)),))
        return Delivery(choice.python, None, None, packages, warnings=_unused_gpu(where))


def _unused_gpu(where: Where) -> tuple[str, ...]:
    """On Linux aarch64 the index's TensorFlow has no CUDA: say so, and, on a Jetson,
    where GPU TensorFlow comes from instead."""
    t = where.target
    if t.cc is None or t.platform.key != "linux_aarch64":
        return ()
    from tfenv.kb.jetson import is_jetson

    gpu = t.gpu_name or f"the GPU of compute capability {t.cc}"
    out = [
        f"{gpu} is not used: the TensorFlow wheels on the package index have no CUDA on "
        "Linux aarch64."
    ]
    if is_jetson(where.kb, t.gpu_name, t.cc):
        out += where.kb.jetson.ways_out(t.cc, t.driver, t.gpu_name)
    return tuple(out)
