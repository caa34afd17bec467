"""The NVIDIA driver must run the CUDA a release is built with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Rule
from tfenv.rules.cuda_build import cuda_build_for
from tfenv.rules.facts import driver_fact
from tfenv.rules.model import Candidate, Requirement, on_driver

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.kb import KnowledgeBase
    from tfenv.models.driver import DriverVersion

__all__ = ["DRIVER", "branch_limit", "driver_fix"]


def branch_limit(
    kb: KnowledgeBase, cc: Optional[Version], floor: DriverVersion, gpu_name: Optional[str] = None
) -> Optional[str]:
    """ "no NVIDIA driver >= X supports NAME (R470 was the last driver branch for Kepler
    GPUs)" when the GPU's architecture ends before ``floor``'s branch; None when a driver
    >= ``floor`` can be installed for it (or its architecture is not known)."""
    last = kb.cuda.last_branch(cc)
    if last is None or floor.branch <= last.last_branch:
        return None
    name = gpu_name or _("a GPU of compute capability {cc}").format(cc=cc)
    return _(
        "no NVIDIA driver >= {floor} supports {name} (R{branch} was the last driver branch "
        "for {architecture} GPUs)"
    ).format(floor=floor, name=name, branch=last.last_branch, architecture=last.architecture)


def driver_fix(ctx: Context, floor: DriverVersion) -> str:
    """What makes a driver >= ``floor`` hold here: installing one, unless no such driver
    supports this machine's GPU (its architecture's last driver branch is older)."""
    cc = ctx.target.cc
    last = ctx.kb.cuda.last_branch(cc) if ctx.target.has_nvidia_gpu else None
    if last is None or floor.branch <= last.last_branch:
        return _("Install an NVIDIA driver >= {floor}").format(floor=floor)
    name = ctx.target.gpu_name or _("a GPU of compute capability {cc}").format(cc=cc)
    return _(
        "No NVIDIA driver that runs this release supports {name}: R{branch} was "
        "the last driver branch for {architecture} GPUs, and this release needs "
        "{floor} or newer; use a newer GPU"
    ).format(name=name, branch=last.last_branch, architecture=last.architecture, floor=floor)


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    cb = cuda_build_for(ctx, c)
    if cb is None or cb.cuda is None:
        return ()
    floor, rule = ctx.kb.cuda.driver_floor(cb.cuda, ctx.target.driver_os or "linux")
    if floor is None:
        return ()
    return (
        on_driver(
            _("an NVIDIA driver >= {floor} ({rule})").format(floor=floor, rule=rule),
            lambda d: d is None or d >= floor,
            "driver",
            fix=driver_fix(ctx, floor),
        ),
    )


DRIVER = Rule(
    "driver",
    N_("The NVIDIA driver is too old"),
    "tensorflow",
    _needs,
    driver_fact,
    "driver",
    change_kind="cuda",
    check_hint=N_("'nvidia-smi' shows the driver"),
)
