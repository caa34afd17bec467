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

from tfenv.i18n import N_, _
from tfenv.lock.header import Inputs, read_stamp

__all__ = ["Stale", "check_file", "input_changes"]

# reasons in English (the message ids): a Stale's reasons are worded with _() when found
EDITED = N_(
    "edited by hand: its content no longer matches the digest tfenv recorded when writing it"
)
NO_DIGEST = N_("no content digest in its header (written by an older tfenv): lock again")


@dataclass(frozen=True)
class Stale:
    """One lockfile that ``tfenv lock`` would write differently, and every reason known."""

    file: str
    target: str
    reasons: tuple[str, ...]  # in the language of the run
    missing: bool = False  # no such file (the one reason then)

    def describe(self) -> str:
        return _("{file} (target '{target}'): {reasons}").format(
            file=self.file, target=self.target, reasons=_("; ").join(self.reasons)
        )

    def to_dict(self) -> dict[str, object]:
        return {"file": self.file, "target": self.target, "reasons": list(self.reasons)}


def check_file(path: Path, target: str, inputs: Inputs) -> Optional[Stale]:
    """None when ``path`` is up to date with these inputs; else what is stale about it."""
    if not path.is_file():
        return Stale(path.name, target, (_("missing"),), missing=True)
    stamp = read_stamp(path)
    if stamp is None:
        return Stale(path.name, target, (_("no tfenv header: not written by 'tfenv lock'"),))
    reasons: list[str] = []
    if stamp.content is None:
        reasons.append(_(NO_DIGEST))
    elif stamp.edited:
        reasons.append(_(EDITED))
    if stamp.inputs != inputs.digest:
        reasons += input_changes(stamp.keys, inputs.keys, target) or [
            _("its inputs changed (the configuration or the knowledge base)")
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
        return _("written in another lockfile format (another tfenv version)")
    if key == "kb":
        return _("the knowledge-base data changed (another tfenv version, or edited data files)")
    if key.startswith("targets."):
        name = key[len("targets.") :]
        if before is None:
            said = _("target '{name}' was added to the configuration")
        elif after is None:
            said = _("target '{name}' was removed from the configuration")
        elif name == target:
            said = _("this target's facts or settings changed ('{key}')")
        else:
            said = _(
                "target '{name}' changed ('{key}'; the team's TensorFlow version depends on it)"
            )
        return said.format(name=name, key=key)
    if before is None or after is None:
        return _("configuration key '{key}' is new to this tfenv version").format(key=key)
    return _("configuration key '{key}' changed").format(key=key)
