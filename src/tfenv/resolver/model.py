"""Requirements and candidates of the pseudo-packages the solver works on.

The solver's identifiers are facts about a stack, not Python distributions:

=============  ===========================================================
identifier     candidates
=============  ===========================================================
``platform``   the one target machine (OS, architecture, glibc)
``gpu``        the one target GPU, or "no NVIDIA GPU"
``driver``     the one target driver, or "unknown"
``python``     Python X.Y versions that any TensorFlow wheel supports
``accelerator`` ``cuda``, ``metal``, ``cpu``
``tensorflow`` (release, accelerator) pairs, newest first
``cuda``       CUDA versions TensorFlow builds target
``cudnn``      cuDNN series TensorFlow builds target
``route``      install routes (``pip``, ``conda``, ``conda+pip``, ...)
=============  ===========================================================

Every requirement carries the sentence that explains it, so conflicts come out
of resolvelib's causes already worded; ``explain.py`` only arranges them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

__all__ = ["Candidate", "Requirement", "allowed"]


@dataclass(frozen=True, eq=False)
class Candidate:
    identifier: str
    key: str  # unique within the identifier
    label: str  # how a user reads it: "TensorFlow 2.15.1 (CUDA build)"
    data: Any = None  # the KB records the candidate stands for
    rank: int = 0  # position in preference order (0 = most wanted)

    def __repr__(self) -> str:
        return f"<{self.identifier} {self.key}>"


@dataclass(frozen=True, eq=False)
class Requirement:
    identifier: str
    text: str  # "driver >= 525.60.13 (minor-version compatibility floor of CUDA 12)"
    test: Callable[[Candidate], bool] = field(repr=False)
    kind: str = ""  # groups alike conflicts: "driver", "python", "gpu-code", ...
    order: Optional[tuple[str, ...]] = None  # preferred order of candidate keys, if any

    def __repr__(self) -> str:
        return f"<{self.identifier}: {self.text}>"


def allowed(
    identifier: str, keys: tuple[str, ...], text: str, kind: str = "", ordered: bool = False
) -> Requirement:
    """A requirement that the candidate's key is one of ``keys``."""
    keyset = frozenset(keys)
    return Requirement(identifier, text, lambda c: c.key in keyset, kind, keys if ordered else None)
