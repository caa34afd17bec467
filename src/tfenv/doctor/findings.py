"""The result type of every doctor check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional

from tfenv.i18n import N_

__all__ = ["ACTIVATE_FIX", "Finding", "Status"]

Status = Literal["ok", "warning", "problem"]

# the English template: translate it where it is used, _(ACTIVATE_FIX).format(dir=...)
ACTIVATE_FIX = N_(
    "source the activation script `tfenv resolve --emit` writes (. ./activate-tfenv.sh), "
    "or export LD_LIBRARY_PATH to include {dir}"
)


@dataclass(frozen=True)
class Finding:
    id: str  # stable kebab-case name of the check, with a suffix per library/GPU
    status: Status
    title: str
    detail: str = ""
    fix: Optional[str] = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
        }
