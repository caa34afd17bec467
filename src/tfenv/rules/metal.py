"""Apple's GPU needs a tensorflow-metal plug-in paired with the release."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.rules.base import Context, Rule
from tfenv.rules.model import Candidate, Requirement, TfCandidate, on_machine

if TYPE_CHECKING:
    from tfenv.models.target import Target

__all__ = ["METAL"]


def _never(_: Target) -> bool:
    return False


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.accel != "metal":
        return ()
    from tfenv.kb.metal import metal_plugin  # only for Apple silicon targets

    if metal_plugin(ctx.kb, c.option.version) is not None:
        return ()
    text = f"a tensorflow-metal release for TensorFlow {c.option.version}"
    return (on_machine(text, _never, "metal"),)


METAL = Rule(
    "metal",
    "No tensorflow-metal release for these versions",
    "tensorflow",
    _needs,
    reads="index",
    change_kind="platform",
)
