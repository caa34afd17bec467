"""Values that the rest of tfenv passes around: platforms, targets, requests, plans,
conflicts and ways out (worded in one place: :mod:`tfenv.models.messages`).

Nothing here imports any other part of tfenv, loads data or does I/O. The names below are
imported from their modules when first used, so that importing one module of the package
(``tfenv.models.choices`` for ``tfenv <command> --help``) does not import them all.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs start-up time
if TYPE_CHECKING:
    from typing import Any

    from tfenv.models.conflict import Conflict, Suggestion, TargetFact
    from tfenv.models.driver import DriverVersion
    from tfenv.models.plan import Plan, Resolution
    from tfenv.models.platform import PLATFORMS, SYSTEMS, Platform, System, UnsupportedPlatform
    from tfenv.models.target import MachineArgs, Request, Target

__all__ = [
    "PLATFORMS",
    "SYSTEMS",
    "Conflict",
    "DriverVersion",
    "MachineArgs",
    "Plan",
    "Platform",
    "Request",
    "Resolution",
    "Suggestion",
    "System",
    "Target",
    "TargetFact",
    "UnsupportedPlatform",
]

_MODULE = {
    "Conflict": "conflict",
    "Suggestion": "conflict",
    "TargetFact": "conflict",
    "DriverVersion": "driver",
    "Plan": "plan",
    "Resolution": "plan",
    "PLATFORMS": "platform",
    "SYSTEMS": "platform",
    "Platform": "platform",
    "System": "platform",
    "UnsupportedPlatform": "platform",
    "MachineArgs": "target",
    "Request": "target",
    "Target": "target",
}


def __getattr__(name: str) -> Any:
    if name in _MODULE:
        from importlib import import_module

        return getattr(import_module(f"tfenv.models.{_MODULE[name]}"), name)
    raise AttributeError(f"module 'tfenv.models' has no attribute {name!r}")
