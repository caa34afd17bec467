"""A full package diff: the current lock against a fresh lock of the new version.

``check-upgrade --relock`` locks each configured target for the new TensorFlow
version with ``tfenv lock``'s own machinery (uv for pip routes, py-rattler for conda
routes; nothing is written) and compares every pin, transitive ones included.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.utils import canonicalize_name

from tfenv.formats.locked import parse_locked
from tfenv.i18n import _
from tfenv.upgrade.model import PackageChange

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tfenv.config import ProjectConfig
    from tfenv.kb import KnowledgeBase
    from tfenv.lock import LockOptions

__all__ = ["fresh_pins", "pin_diff"]


def fresh_pins(
    kb: KnowledgeBase, config: ProjectConfig, target: str, version: str, options: LockOptions
) -> tuple[str, dict[str, str]]:
    """(lockfile name, pins) of ``target`` locked anew for TensorFlow ``version``."""
    from tfenv.lock import lock_target

    locked = lock_target(kb, replace(config, tensorflow=f"=={version}"), target, options)
    for name, text in locked.files:
        if name.startswith(("requirements.", "conda-lock.")):
            lk = parse_locked(Path(name), text)
            pins = lk.pins if not lk.by_subdir else next(iter(lk.by_subdir.values()))
            return name, {canonicalize_name(k): v for k, v in pins.items()}
    return "", {}


def pin_diff(old: Mapping[str, str], new: Mapping[str, str]) -> tuple[PackageChange, ...]:
    """Every package added, removed or re-pinned between two full locks."""
    out = []
    for name in sorted(set(old) | set(new)):
        before, after = old.get(name), new.get(name)
        if before == after:
            continue
        if before is None:
            out.append(PackageChange(name, "added", None, after, _("in the fresh lock")))
        elif after is None:
            out.append(PackageChange(name, "removed", before, None, _("not in the fresh lock")))
        else:
            out.append(PackageChange(name, "changed", before, after, _("the fresh lock pins it")))
    return tuple(out)
