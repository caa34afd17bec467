"""Targets the team keeps on a TensorFlow of their own: they do not move with the team.

A configured target whose own ``tensorflow`` key (``[targets.old] tensorflow = "2.10"``)
does not match the release the move goes to stays where the team put it: ``check-upgrade``
reports it as held, with the key that holds it, and does not judge it (a gate that failed
on a target pinned on purpose would fail until the pin is removed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet

from tfenv.i18n import _
from tfenv.upgrade.model import Held, TargetReport

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.kb import KnowledgeBase
    from tfenv.upgrade.assess import Move, TargetInput
    from tfenv.upgrade.current import CurrentState

__all__ = ["held_report", "holds"]


def holds(inp: TargetInput, move: Move) -> bool:
    """Whether the target's own TensorFlow (its key) keeps it from the move's release; a
    request that takes the release moves with the team."""
    from tfenv import specs

    if inp.tensorflow is None:
        return False
    return not specs.parse_tf_spec(inp.tensorflow).contains(move.version, prereleases=True)


def held_report(
    kb: KnowledgeBase,
    config: Optional[ProjectConfig],
    inp: TargetInput,
    current: CurrentState,
    move: Move,
) -> Optional[TargetReport]:
    """The report of a target held on its own TensorFlow, or None when it moves."""
    from tfenv import specs
    from tfenv.upgrade.inputs import newest

    if config is None or inp.tensorflow is None or not holds(inp, move):
        return None
    own = specs.parse_tf_spec(inp.tensorflow)
    stays = current.version or newest(kb, SpecifierSet(str(own)), move.pre)
    table = f"{config.prefix}targets.{inp.name}"
    sentence = _(
        "Held by the team: target '{target}' keeps its own TensorFlow ({key} under [{table}] "
        "in {config}), which TensorFlow {release} does not match; it stays on {stays}, is not "
        "checked and does not fail the gate. To check it for the move, change or remove that "
        "key."
    ).format(
        target=inp.name,
        key=f'tensorflow = "{inp.tensorflow}"',
        table=table,
        config=config.path,
        release=move.version,
        stays=stays,
    )
    return TargetReport(
        name=inp.name,
        machine=inp.target.describe(),
        from_version=str(stays),
        to_version=str(stays),
        resolves=None,
        held=Held(inp.tensorflow, str(config.path), table, sentence),
    )
