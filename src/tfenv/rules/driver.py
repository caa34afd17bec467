"""The NVIDIA driver must run the CUDA a release is built with."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.rules.base import Context, Rule
from tfenv.rules.cuda_build import cuda_build_for
from tfenv.rules.model import Candidate, Requirement, TfCandidate, on_driver

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.kb import KnowledgeBase
    from tfenv.models.driver import DriverVersion
    from tfenv.models.platform import DriverOs
    from tfenv.models.target import Target

__all__ = ["DRIVER", "driver_floor"]


def driver_floor(
    kb: KnowledgeBase, cuda: Version, os: DriverOs
) -> tuple[Optional[DriverVersion], str]:
    """The lowest driver of ``os`` that runs a build made with CUDA ``cuda``, and why."""
    return kb.cuda.driver_floor(cuda, os)


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.accel != "cuda":
        return ()
    cb = cuda_build_for(ctx, c.option)
    if cb is None or cb.cuda is None:
        return ()
    floor, rule = driver_floor(ctx.kb, cb.cuda, ctx.target.driver_os or "linux")
    if floor is None:
        return ()
    return (
        on_driver(
            f"an NVIDIA driver >= {floor} ({rule})",
            lambda d: d is None or d >= floor,
            "driver",
            fix=f"Install an NVIDIA driver >= {floor}",
        ),
    )


def _fact(target: Target) -> Optional[str]:
    return f"this machine's driver is {target.driver}" if target.driver else None


DRIVER = Rule(
    "driver",
    "The NVIDIA driver is too old",
    "tensorflow",
    _needs,
    _fact,
    "driver",
    change_kind="cuda",
    check_hint="'nvidia-smi' shows the driver",
)
