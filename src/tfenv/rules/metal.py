"""Apple's GPU needs a tensorflow-metal plug-in paired with the release."""

from __future__ import annotations

from tfenv.i18n import N_, _
from tfenv.rules.base import Context, Rule
from tfenv.rules.model import Candidate, Requirement, TfCandidate, unmet

__all__ = ["METAL"]


def _needs(ctx: Context, c: Candidate) -> tuple[Requirement, ...]:
    if not isinstance(c, TfCandidate) or c.accel != "metal":
        return ()
    from tfenv.kb.metal import metal_plugin  # only for Mac targets

    if metal_plugin(ctx.kb, c.option.version, ctx.target.platform.key) is not None:
        return ()
    text = _("a tensorflow-metal release for TensorFlow {release}").format(release=c.option.version)
    return (unmet(text, "metal"),)


METAL = Rule(
    "metal",
    N_("No tensorflow-metal release for these versions"),
    "tensorflow",
    _needs,
    reads="index",
    change_kind="platform",
)
