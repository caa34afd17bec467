"""Values that the rest of tfenv passes around: platforms, targets, requests, plans.

Nothing here imports any other part of tfenv, loads data or does I/O.
"""

from __future__ import annotations

from tfenv.models.driver import DriverVersion
from tfenv.models.plan import Plan, Resolution
from tfenv.models.platform import PLATFORMS, SYSTEMS, Platform, System, UnsupportedPlatform
from tfenv.models.target import MachineArgs, Request, Target

__all__ = [
    "PLATFORMS",
    "SYSTEMS",
    "DriverVersion",
    "MachineArgs",
    "Plan",
    "Platform",
    "Request",
    "Resolution",
    "System",
    "Target",
    "UnsupportedPlatform",
]
