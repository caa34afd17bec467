"""Values that the rest of tfenv passes around: platforms, targets, requests, plans,
conflicts and ways out (worded in one place: :mod:`tfenv.models.messages`).

Nothing here imports any other part of tfenv, loads data or does I/O.
"""

from __future__ import annotations

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
