"""The result type of every doctor check: its title, detail and fix are sentences with a
code (:class:`~tfenv.models.sentence.Sentence`, codes in
:data:`~tfenv.models.doctor_codes.DOCTOR_CODES`), worded by ``said(code, _(template),
**params)`` where the finding is made; a pre-worded string is refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Optional, Union

from tfenv.i18n import N_
from tfenv.models.sentence import Sentence

__all__ = ["ACTIVATE_FIX", "Finding", "Status"]

Status = Literal["ok", "warning", "problem"]

#: translated where it is used (tfenv.i18n._)
ACTIVATE_FIX = N_(
    "source the activation script `tfenv resolve --emit DIR` writes (. ./activate-tfenv.sh), "
    "or export LD_LIBRARY_PATH to include {dir}"
)


@dataclass(frozen=True)
class Finding:
    id: str  # stable kebab-case name of the check, with a suffix per library/GPU
    status: Status
    title: Sentence
    detail: Union[Sentence, Literal[""]] = ""
    fix: Optional[Sentence] = None

    def __post_init__(self) -> None:
        # a sentence a script can read by its code: never a string worded elsewhere
        for name, value, absent in (
            ("title", self.title, ()),
            ("detail", self.detail, ("",)),
            ("fix", self.fix, (None,)),
        ):
            if not isinstance(value, Sentence) and value not in absent:
                raise TypeError(
                    f"doctor finding {self.id!r}: its {name} {value!r} is not a coded "
                    "sentence (tfenv.models.sentence.said)"
                )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "status": self.status,
            "title": self.title,
            "detail": self.detail,
            "fix": self.fix,
            "title_code": self.title.to_dict(),
            "detail_code": _code(self.detail),
            "fix_code": _code(self.fix),
        }


def _code(value: Optional[str]) -> Optional[dict[str, Any]]:
    return value.to_dict() if isinstance(value, Sentence) else None
