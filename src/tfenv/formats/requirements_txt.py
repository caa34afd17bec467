"""requirements.txt: written for ``--emit`` (top-level pins, each with why) and by
``tfenv lock`` (every pin with its hashes, pip's ``--require-hashes`` form), read by
check-upgrade (the exact pins)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from tfenv.errors import LockError
from tfenv.formats.locked import Locked, bad
from tfenv.i18n import _
from tfenv.textsafe import comment, comment_block, requirement_line

if TYPE_CHECKING:
    from packaging.pylock import Pylock
    from packaging.requirements import Requirement

__all__ = ["read_pins", "render_locked", "render_pins"]


def render_pins(header: Sequence[str], pins: Iterable[tuple[str, str]]) -> str:
    """The header comments, then each requirement with a comment line saying why."""
    lines = [comment_block(header)]
    for spec, why in pins:
        lines.append(requirement_line(spec) + "\n")
        lines.append(f"    {comment(why)}\n")
    return "".join(lines)


def render_locked(lock: Pylock, header: Sequence[str]) -> str:
    """``name==version ; marker`` lines with ``--hash`` options, sorted by name."""
    from tfenv.formats.pylock import hashes_of

    out = [comment_block(header)]
    for pkg in sorted(lock.packages, key=lambda p: p.name):
        if pkg.version is None:
            raise LockError(
                _("The lock has no version for {name}: cannot pin it.").format(name=pkg.name)
            )
        line = f"{pkg.name}=={pkg.version}"
        if pkg.marker is not None:
            line += f" ; {pkg.marker}"
        hashes = hashes_of(pkg)
        out.append(requirement_line(line) + " \\\n")
        cont = " \\"
        for i, h in enumerate(hashes):
            out.append(f"    --hash={h}{cont if i < len(hashes) - 1 else ''}\n")
    return "".join(out)


def read_pins(path: Path, text: str) -> Locked:
    """The exact pins (``name==version``) of a requirements file; options and ranges skipped."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    pins: dict[str, str] = {}
    for number, line in _logical_lines(text):
        if not line or line.startswith("-"):
            continue  # options: -r, -c, -e, --hash, --index-url ...
        line = re.split(r"\s+--", line, maxsplit=1)[0].strip()  # per-line --hash options
        try:
            req = Requirement(line)
        except InvalidRequirement as exc:
            raise bad(
                path,
                _("line {number} ({line!r}) is not a requirement: {why}").format(
                    number=number, line=line, why=exc
                ),
            ) from None
        version = _exact(req)
        if version is None:
            continue
        name = canonicalize_name(req.name)
        if name in pins and pins[name] != version:
            raise bad(
                path,
                _("line {number} pins {name} {version}, but an earlier line pins {earlier}").format(
                    number=number, name=name, version=version, earlier=pins[name]
                ),
            )
        pins[name] = version
    return Locked(path, "requirements", pins)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = re.sub(r"(^|\s)#.*$", "", raw).rstrip()
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        out.append((start, (pending + line).strip()))
        pending = ""
    if pending:
        out.append((start, pending.strip()))
    return out


def _exact(req: Requirement) -> Optional[str]:
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        return specs[0].version
    return None
