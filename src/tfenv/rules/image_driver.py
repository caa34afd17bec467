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

from tfenv.i18n import N_, _
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

    text = _(
        "a driver that {image} admits ({clause}); otherwise "
        'nvidia-container-cli refuses to start it: "{refusal}"'
    ).format(image=require_text(image), clause=clause.describe(), refusal=clause.refusal)
    return (on_driver(text, admits, "image-driver", fix=_fix(ctx, clause)),)


def _fix(ctx: Context, clause: RequireCuda) -> str:
    floor = clause.cuda_floor
    if floor is None:
        return _("Install a driver the image's NVIDIA_REQUIRE_CUDA lists")
    branches = [
        b.branch
        for b in ctx.kb.cuda.driver_branches
        if b.max_cuda is not None and b.max_cuda >= floor
    ]
    if not branches:
        return _("Install a driver that reports CUDA >= {cuda}").format(cuda=floor)
    branch = min(branches)
    return _(
        "Install an NVIDIA driver of branch {branch} or later (it reports CUDA >= {cuda})"
    ).format(branch=branch, cuda=floor)


def _fact(target: Target) -> Optional[str]:
    if target.driver is None:
        return None
    if target.gpu_name:
        return _("this machine's driver is {driver} ({gpu})").format(
            driver=target.driver, gpu=target.gpu_name
        )
    return _("this machine's driver is {driver}").format(driver=target.driver)


IMAGE_DRIVER = Rule(
    "image-driver",
    N_("The container image refuses this driver"),
    "tensorflow",
    _needs,
    _fact,
    "driver",
    reads="none",
    check_hint=N_("'nvidia-smi' shows the driver and the CUDA version it reports"),
)
