"""The host driver must be one the container image's ``NVIDIA_REQUIRE_CUDA`` admits.

Only for ``--manager container``: the NVIDIA Container Toolkit refuses to start an image
whose clause the host does not satisfy (``unsatisfied condition: cuda>=12.3, please
update your driver ...``), even where CUDA's own minor-version compatibility would run
TensorFlow on that driver. The image is the one the container route chooses for the
release (:func:`tfenv.rules.container_images.container_image`); a clause that is not recorded,
or whose outcome depends on a fact that is not known (the driver, the GPU's brand),
places no requirement here and is reported in the plan instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.rules.base import Context, Rule
from tfenv.rules.model import Candidate, Requirement, TfCandidate, on_driver

if TYPE_CHECKING:
    from tfenv.models.driver import DriverVersion
    from tfenv.models.require_cuda import RequireCuda
    from tfenv.models.target import Target

__all__ = ["IMAGE_DRIVER"]


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not ctx.in_image:
        return ()
    if not isinstance(c, TfCandidate) or c.accel != "cuda":
        return ()
    # the image choice is asked only for a container request: imported when first needed
    from tfenv.rules.container_images import container_image, require_text, verdict

    image = container_image(ctx.kb, c.option, ctx.target)
    if image is None or image.require is None:
        return ()
    clause, kb, target = image.require, ctx.kb, ctx.target

    def admits(driver: Optional[DriverVersion]) -> bool:
        return driver is None or verdict(kb, clause, target, driver).admits is not False

    text = (
        f"a driver that {require_text(image)} admits ({clause.describe()}); otherwise "
        f'nvidia-container-cli refuses to start it: "{clause.refusal}"'
    )
    return (on_driver(text, admits, "image-driver", fix=_fix(ctx, clause)),)


def _fix(ctx: Context, clause: RequireCuda) -> str:
    floor = clause.cuda_floor
    if floor is None:
        return "Install a driver the image's NVIDIA_REQUIRE_CUDA lists"
    branches = [
        b.branch
        for b in ctx.kb.cuda.driver_branches
        if b.max_cuda is not None and b.max_cuda >= floor
    ]
    if not branches:
        return f"Install a driver that reports CUDA >= {floor}"
    branch = min(branches)
    return f"Install an NVIDIA driver of branch {branch} or later (it reports CUDA >= {floor})"


def _fact(target: Target) -> Optional[str]:
    if target.driver is None:
        return None
    gpu = f" ({target.gpu_name})" if target.gpu_name else ""
    return f"this machine's driver is {target.driver}{gpu}"


IMAGE_DRIVER = Rule(
    "image-driver",
    "The container image refuses this driver",
    "tensorflow",
    _needs,
    _fact,
    "driver",
    reads="none",
    check_hint="'nvidia-smi' shows the driver and the CUDA version it reports",
)
