"""GPU records generated from NVIDIA's open-kernel-module README (``tfenv refresh --gpus``).

The README of NVIDIA/open-gpu-kernel-modules ends with the table "Compatible GPUs":
every Turing-and-newer product as ``nvidia-smi`` names it, with its PCI device ID
(and, on some rows, the subsystem vendor and device IDs). :func:`parse_readme` reads
that table strictly (a row it does not understand is an error, never cleaned up);
:func:`generate` groups the rows by exact name and gives each name its chip,
architecture and compute capability (from the device IDs, through
``nvidia/gpu-families.yaml``), its segment and whether it only comes in Arm
machines. The result is ``nvidia/gpus-readme.json``, loaded by :mod:`tfenv.kb.gpus`.
Pure functions: reading the README from a file or URL is the refresh command's job.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Optional

from tfenv.errors import UsageError
from tfenv.i18n import _
from tfenv.kb.gpu_families import FAMILIES_FILE, ChipRange, GpuFamilies, device_id
from tfenv.kb.gpus import README_FILE

__all__ = [
    "GENERATED_BY",
    "README_FILE",
    "ReadmeRow",
    "ReadmeTable",
    "generate",
    "gpu_drift",
    "parse_readme",
    "readme_source",
]

GENERATED_BY = "tfenv refresh --gpus"
REPOSITORY = "NVIDIA/open-gpu-kernel-modules"
_HEADING = "## compatible gpus"
_NAME = re.compile(r"^[A-Za-z0-9-]+(?: [A-Za-z0-9-]+)*$")
_SEPARATOR = re.compile(r"^:?-{3,}:?$")
_DRIVER = re.compile(r"open GPU kernel modules,\s+version (\d+\.\d+(?:\.\d+)?)\.")
_GITHUB_REF = re.compile(
    r"^https://(?:raw\.githubusercontent\.com/NVIDIA/open-gpu-kernel-modules/"
    r"|github\.com/NVIDIA/open-gpu-kernel-modules/(?:raw|blob)/)([\w.-]+)/README\.md$"
)


@dataclass(frozen=True)
class ReadmeRow:
    """One table row: the name, the device ID and, where given, the subsystem IDs."""

    line: int
    name: str
    device: str  # "1E30"
    subsystem: Optional[tuple[str, str]] = None  # (vendor, device): ("1028", "129E")

    @property
    def ids(self) -> str:
        """``"1E30 1028 129E"`` or ``"1E30"``, as the README writes it."""
        return " ".join((self.device, *self.subsystem)) if self.subsystem else self.device


@dataclass(frozen=True)
class ReadmeTable:
    rows: tuple[ReadmeRow, ...]
    driver: Optional[str]  # the driver release the README is for ("595.45.04")


def readme_source(location: str, commit: Optional[str]) -> str:
    """The provenance of a README: its repository, path and commit (or tag).

    The commit comes from ``commit`` or, for a GitHub raw/blob URL, from the URL;
    a local file without ``commit`` cannot be cited, so that is an error.
    """
    ref = commit
    if ref is None:
        m = _GITHUB_REF.match(location)
        ref = m.group(1) if m else None
    if not ref:
        raise UsageError(
            _(
                "Which commit of {repository} is {location!r}? The generated GPU data must "
                "record its source."
            ).format(repository=REPOSITORY, location=location),
            hint=_("Pass --gpus-commit SHA (the commit or release tag the README was read at)."),
        )
    return f"{REPOSITORY} README.md @ {ref}"


def parse_readme(text: str) -> ReadmeTable:
    """The rows of the "Compatible GPUs" table, in file order; UsageError on anything odd."""
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.strip().lower() == _HEADING), None)
    if start is None:
        raise _bad(None, _("there is no '## Compatible GPUs' heading"))
    i = start + 1
    while i < len(lines) and not lines[i].lstrip().startswith("|"):
        if lines[i].startswith("## "):
            raise _bad(i + 1, _("the next section starts before the table"))
        i += 1
    if i + 2 > len(lines):
        raise _bad(None, _("the table has no header and separator rows"))
    _check_header(i + 1, _cells(lines[i]), _cells(lines[i + 1]))
    rows = []
    for n in range(i + 2, len(lines)):
        if not lines[n].lstrip().startswith("|"):
            break
        rows.append(_row(n + 1, _cells(lines[n])))
    if not rows:
        raise _bad(None, _("the table has no rows"))
    driver = _DRIVER.search(text)
    return ReadmeTable(tuple(rows), driver.group(1) if driver else None)


def _bad(line: Optional[int], problem: str) -> UsageError:
    if line is None:
        message = _("The README's GPU table cannot be read: {problem}.")
    else:
        message = _("The README's GPU table cannot be read (line {line}): {problem}.")
    return UsageError(
        message.format(line=line, problem=problem),
        hint=_(
            "Is it README.md of NVIDIA/open-gpu-kernel-modules? If its format changed, "
            "tfenv's parser (tfenv/refresh/gpu_table.py) must change with it."
        ),
    )


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") else body
    return [c.strip() for c in body.split("|")]


def _check_header(line: int, header: list[str], separator: list[str]) -> None:
    if [c.lower() for c in header] != ["product name", "pci id"]:
        raise _bad(
            line, _("the header is {header}, not ['Product Name', 'PCI ID']").format(header=header)
        )
    if len(separator) != 2 or not all(_SEPARATOR.match(c) for c in separator):
        raise _bad(line + 1, _("the second row is not the '---' separator"))


def _row(line: int, cells: list[str]) -> ReadmeRow:
    if len(cells) != 2:
        raise _bad(line, _("expected 2 cells, found {count}").format(count=len(cells)))
    name, ids = cells
    if not _NAME.match(name):
        raise _bad(
            line,
            _("the product name {name!r} has characters tfenv does not expect").format(name=name),
        )
    parts = ids.split(" ")
    try:
        for p in parts:
            device_id(p)
    except ValueError as exc:
        raise _bad(line, str(exc)) from None
    if len(parts) == 1:
        return ReadmeRow(line, name, parts[0])
    if len(parts) == 3:
        return ReadmeRow(line, name, parts[0], (parts[1], parts[2]))
    raise _bad(
        line,
        _("the PCI ID cell {ids!r} holds {count} IDs, not 1 or 3").format(
            ids=ids, count=len(parts)
        ),
    )


# -- records -----------------------------------------------------------------------


def generate(
    table: ReadmeTable, families: GpuFamilies, source: str, retrieved: str
) -> dict[str, Any]:
    """The ``gpus-readme.json`` document: one record per distinct name, in README order."""
    by_name: dict[str, list[ReadmeRow]] = {}
    for row in table.rows:
        by_name.setdefault(row.name, []).append(row)
    return {
        "generated_by": GENERATED_BY,
        "source": source,
        "driver": table.driver,
        "rules": FAMILIES_FILE,
        "retrieved": retrieved,
        "rows": len(table.rows),
        "gpus": [_record(name, rows, families) for name, rows in by_name.items()],
    }


def _record(name: str, rows: Sequence[ReadmeRow], families: GpuFamilies) -> dict[str, Any]:
    devs = tuple(dict.fromkeys(device_id(r.device) for r in rows))
    chips: dict[str, ChipRange] = {}
    for row in rows:
        chip = families.chip_of(device_id(row.device))
        if chip is None:
            raise _review(
                name,
                _("its device ID {device} is outside every chip range").format(device=row.device),
            )
        chips.setdefault(chip.chip, chip)
    ccs = {c.compute_capability for c in chips.values()}
    if None in ccs:
        raise _review(name, _("its chip's compute capability is not established (null)"))
    if len(ccs) != 1:
        raise _review(
            name, _("its chips {chips} differ in compute capability").format(chips=sorted(chips))
        )
    rule = families.segment(name)
    if rule is None:
        raise _review(name, _("no segment rule matches its name"))
    arm = families.arm_reason(name, devs)
    notes = [n for n in (rule.note, *(c.note for c in chips.values())) if n]
    if arm is not None:
        notes.append(f"Arm (aarch64) machines only: {arm.what}")
    if len(chips) > 1:
        notes.append(f"one name on several chips ({', '.join(chips)}), same compute capability")
    archs = sorted({c.architecture for c in chips.values()})
    return {
        "name": name,
        "pci_ids": [r.ids for r in rows],
        "chips": list(chips),
        "architecture": " / ".join(archs),
        "compute_capability": str(next(iter(ccs))),
        "cc_basis": "listed" if all(c.cc_basis == "listed" for c in chips.values()) else "inferred",
        "segment": rule.segment,
        "arch": "aarch64" if arm is not None else None,
        "notes": notes,
    }


def _review(name: str, problem: str) -> UsageError:
    return UsageError(
        _("The README names a GPU tfenv cannot place: {name!r}: {problem}.").format(
            name=name, problem=problem
        ),
        hint=_(
            "Decide its chip, compute capability or segment in {file} (with a source), then "
            "refresh again; nothing was written."
        ).format(file=FAMILIES_FILE),
    )


def gpu_drift(old: Any, new: Mapping[str, Any]) -> list[str]:
    """One line per difference between the shipped document and a fresh one."""
    if not isinstance(old, Mapping):
        return [
            _("{file}: the shipped file is missing or not a JSON object").format(file=README_FILE)
        ]
    lines = [
        f"{README_FILE}: {key}: {old.get(key)!r} -> {new.get(key)!r}"
        for key in ("source", "driver", "rows")
        if old.get(key) != new.get(key)
    ]
    before = {g["name"]: g for g in old.get("gpus", []) if isinstance(g, Mapping)}
    after = {g["name"]: g for g in new["gpus"]}
    for name in sorted(set(before) | set(after)):
        if name not in after:
            lines.append(
                _("{file}: {name}: no longer in the README").format(file=README_FILE, name=name)
            )
        elif name not in before:
            lines.append(
                _("{file}: {name}: new ({cc})").format(
                    file=README_FILE, name=name, cc=after[name]["compute_capability"]
                )
            )
        else:
            for key in sorted(set(before[name]) | set(after[name])):
                if before[name].get(key) != after[name].get(key):
                    was, now = before[name].get(key), after[name].get(key)
                    lines.append(f"{README_FILE}: {name}: {key}: {was!r} -> {now!r}")
    return lines
