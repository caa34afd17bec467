"""``tfenv lock --check``: is each lockfile still what ``tfenv lock`` would write, and if not, why.

A lockfile is stale when its content no longer matches the digest recorded in its
header (an edit: a pin, a hash, a header line), or when an input it was derived
from changed. The header records a short digest of each input (see
``header.lock_inputs``), so the answer names it: a configuration key, a target's
facts, the knowledge-base data, or the lockfile format (another tfenv version).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from tfenv.lock.header import Inputs, read_stamp

__all__ = ["Stale", "check_file", "input_changes"]

EDITED = "edited by hand: its content no longer matches the digest tfenv recorded when writing it"
NO_DIGEST = "no content digest in its header (written by an older tfenv): lock again"


@dataclass(frozen=True)
class Stale:
    """One lockfile that ``tfenv lock`` would write differently, and every reason known."""

    file: str
    target: str
    reasons: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.file} (target '{self.target}'): " + "; ".join(self.reasons)

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "target": self.target, "reasons": list(self.reasons)}


def check_file(path: Path, target: str, inputs: Inputs) -> Optional[Stale]:
    """None when ``path`` is up to date with these inputs; else what is stale about it."""
    if not path.is_file():
        return Stale(path.name, target, ("missing",))
    stamp = read_stamp(path)
    if stamp is None:
        return Stale(path.name, target, ("no tfenv header: not written by 'tfenv lock'",))
    reasons: list[str] = []
    if stamp.content is None:
        reasons.append(NO_DIGEST)
    elif stamp.edited:
        reasons.append(EDITED)
    if stamp.inputs != inputs.digest:
        reasons += input_changes(stamp.keys, inputs.keys, target) or [
            "its inputs changed (the configuration or the knowledge base)"
        ]
    return Stale(path.name, target, tuple(reasons)) if reasons else None


def input_changes(recorded: Mapping[str, str], now: Mapping[str, str], target: str) -> list[str]:
    """The inputs whose digests differ, in words; empty when nothing was recorded."""
    if not recorded:
        return []
    out: list[str] = []
    for key in sorted(set(recorded) | set(now)):
        before, after = recorded.get(key), now.get(key)
        if before != after:
            out.append(_changed(key, before, after, target))
    return out


def _changed(key: str, before: Optional[str], after: Optional[str], target: str) -> str:
    if key == "format":
        return "written in another lockfile format (another tfenv version)"
    if key == "kb":
        return "the knowledge-base data changed (another tfenv version, or edited data files)"
    if key.startswith("targets."):
        name = key[len("targets.") :]
        if before is None:
            return f"target '{name}' was added to the configuration"
        if after is None:
            return f"target '{name}' was removed from the configuration"
        if name == target:
            return f"this target's facts or settings changed ('{key}')"
        return f"target '{name}' changed ('{key}'; the team's TensorFlow version depends on it)"
    if before is None or after is None:
        return f"configuration key '{key}' is new to this tfenv version"
    return f"configuration key '{key}' changed"
