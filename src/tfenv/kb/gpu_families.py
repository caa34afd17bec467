"""How NVIDIA's GPU product table becomes GPU records (``data/nvidia/gpu-families.yaml``).

The PCI device ID decides the chip, and the chip decides the compute capability
(:class:`ChipRange`); the driver's self-hosted ranges and a few named products
say which GPUs only come in Arm machines (:class:`ArmGpus`); ordered name rules
give tfenv's market segment (:class:`SegmentRule`). ``tfenv refresh --gpus``
reads this file; resolving never does.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import choice, fact, given, read_record, records, sourced, text_list

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "FAMILIES_FILE",
    "SEGMENTS",
    "ArmGpus",
    "ChipRange",
    "GpuFamilies",
    "SegmentRule",
    "device_id",
    "load",
    "parse",
]

FAMILIES_FILE = "nvidia/gpu-families.yaml"

#: tfenv's market segments; only ``datacenter`` and ``jetson`` change a plan.
SEGMENTS = frozenset(
    {
        "datacenter",
        "embedded",
        "geforce-desktop",
        "geforce-laptop",
        "jetson",
        "titan",
        "workstation",
        "workstation-laptop",
    }
)
_HEX4 = re.compile(r"^[0-9A-F]{4}$")


def device_id(text: str) -> int:
    """``'1E02'`` -> 0x1E02 (four upper-case hex digits, as NVIDIA and pci.ids write them)."""
    if not _HEX4.match(text):
        raise ValueError(
            _("{text!r} is not a PCI device ID (four upper-case hex digits)").format(text=text)
        )
    return int(text, 16)


@dataclass(frozen=True)
class ChipRange:
    """One chip's block of PCI device IDs and its compute capability (None: unknown)."""

    low: int = given()  # from device_ids: [first, last]
    high: int = given()
    chip: str = fact()
    architecture: str = fact()
    compute_capability: Optional[Version] = fact(Node.opt_version)
    cc_basis: str = fact(choice("listed", "inferred", "unknown"))
    anchors: tuple[str, ...] = fact(text_list, missing=())
    note: Optional[str] = fact(Node.opt_text, missing=None)
    provenance: Provenance = sourced()

    def holds(self, dev: int) -> bool:
        return self.low <= dev <= self.high


@dataclass(frozen=True)
class ArmGpus:
    """GPUs that only come in Arm (aarch64) machines: a device-ID range or product names."""

    low: Optional[int] = given()  # from device_ids: [first, last], or null
    high: Optional[int] = given()
    names: tuple[str, ...] = fact(text_list, missing=())
    what: str = fact()
    provenance: Provenance = sourced()

    def holds(self, name: str, dev: int) -> bool:
        if name in self.names:
            return True
        return self.low is not None and self.high is not None and self.low <= dev <= self.high


def _pattern(node: Node) -> re.Pattern[str]:
    try:
        return re.compile(node.text())
    except re.error as exc:
        raise node.fail(_("is not a regular expression ({exc})").format(exc=exc)) from None


@dataclass(frozen=True)
class SegmentRule:
    pattern: re.Pattern[str] = fact(_pattern)
    segment: str = fact(choice(*sorted(SEGMENTS)))
    note: Optional[str] = fact(Node.opt_text, missing=None)


@dataclass(frozen=True)
class GpuFamilies:
    chips: tuple[ChipRange, ...]
    aarch64: tuple[ArmGpus, ...]
    segments: tuple[SegmentRule, ...]
    segments_provenance: Provenance

    def chip_of(self, dev: int) -> Optional[ChipRange]:
        """The chip whose block holds device ID ``dev`` (None: outside every block)."""
        return next((c for c in self.chips if c.holds(dev)), None)

    def arm_reason(self, name: str, devs: tuple[int, ...]) -> Optional[ArmGpus]:
        """Why a GPU only comes in Arm machines (None: a card for any host)."""
        return next((a for a in self.aarch64 if any(a.holds(name, d) for d in devs)), None)

    def segment(self, name: str) -> Optional[SegmentRule]:
        """The first segment rule that matches ``name`` (None: no rule does)."""
        return next((r for r in self.segments if r.pattern.search(name)), None)


def _range(node: Node) -> tuple[int, int]:
    ids = node.texts()
    if len(ids) != 2:
        raise node.fail(_("expected [first, last] device IDs"))
    try:
        low, high = device_id(ids[0]), device_id(ids[1])
    except ValueError as exc:
        raise node.fail(str(exc)) from None
    if low > high:
        raise node.fail(_("{ids} is above {ids2}").format(ids=ids[0], ids2=ids[1]))
    return low, high


def _chip(node: Node) -> ChipRange:
    low, high = _range(node.get("device_ids"))
    chip = read_record(ChipRange, node, keys=("device_ids",), low=low, high=high)
    if (chip.compute_capability is None) != (chip.cc_basis == "unknown"):
        raise node.get("cc_basis").fail(_("is 'unknown' exactly when compute_capability is null"))
    return chip


def _arm(node: Node) -> ArmGpus:
    low = high = None
    if not node.opt("device_ids").is_null:
        low, high = _range(node.get("device_ids"))
    arm = read_record(ArmGpus, node, keys=("device_ids",), low=low, high=high)
    if low is None and not arm.names:
        raise node.fail(_("give device_ids or names"))
    return arm


def parse(root: Node) -> GpuFamilies:
    """Build the families from the parsed file (exposed for tests on hand-made data)."""
    root.only("chips", "aarch64", "segments")
    chips = tuple(sorted((_chip(n) for n in root.get("chips").items()), key=lambda c: c.low))
    for a, b in zip(chips, chips[1:]):
        if a.high >= b.low:
            raise root.get("chips").fail(
                _("the ranges of {chip} and {chip2} overlap").format(chip=a.chip, chip2=b.chip)
            )
    seg = root.get("segments").only("rules", "source", "retrieved")
    return GpuFamilies(
        chips=chips,
        aarch64=tuple(_arm(n) for n in root.get("aarch64").items()),
        segments=records(SegmentRule)(seg.get("rules")),
        segments_provenance=seg.provenance(),
    )


def load(root: Optional[Path] = None) -> GpuFamilies:
    """Load ``nvidia/gpu-families.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(FAMILIES_FILE, root))
