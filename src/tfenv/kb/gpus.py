"""GPU models and their compute capability (``data/nvidia/gpus.yaml``).

A :class:`GpuCatalog` answers "which compute capability is this card?" for the
name ``nvidia-smi`` prints or a short form a user types ("RTX 3060", "A100 80GB").
Matching ignores case, whitespace, ``-``/``_`` versus spaces, ``80 GB`` versus
``80GB``, parentheses, and the optional ``NVIDIA ``/``GeForce ``/``Tesla ``
prefixes. Exact model names win over aliases. An alias shared by models of
different compute capability must be declared ``ambiguous`` in the data file;
such an alias is never resolved silently.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from packaging.version import Version

from tfenv.errors import UsageError
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node

__all__ = ["GPUS_FILE", "GpuCatalog", "GpuModel", "load", "normalize_name"]

GPUS_FILE = "nvidia/gpus.yaml"

_PREFIXES = ("nvidia ", "geforce ", "tesla ")
_SEGMENTS = frozenset(
    {
        "datacenter",
        "geforce-desktop",
        "geforce-laptop",
        "titan",
        "workstation",
        "workstation-laptop",
        "jetson",
    }
)
_GB = re.compile(r"(\d)\s*gb\b")
_PUNCT = re.compile(r"[-_()/,]")


def normalize_name(name: str) -> str:
    """The matching key for a GPU name: see the module docstring."""
    key = _PUNCT.sub(" ", name.casefold())
    key = _GB.sub(r"\1gb", key)
    key = " ".join(key.split())
    for prefix in _PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix) :]
    return key


@dataclass(frozen=True)
class GpuModel:
    """One GPU product as ``nvidia-smi`` names it."""

    name: str
    compute_capability: Version
    architecture: str
    segment: str
    aliases: tuple[str, ...]
    provenance: Provenance
    name_confirmed: bool = True
    """False when ``name`` follows the driver naming convention but was not read from a source."""
    note: Optional[str] = None


@dataclass(frozen=True)
class AmbiguousAlias:
    """A short name shared by cards of different compute capability."""

    alias: str
    candidates: tuple[str, ...]
    note: str
    provenance: Provenance


class GpuCatalog:
    """All known GPU models, indexed by normalised name and alias."""

    def __init__(
        self, models: tuple[GpuModel, ...], ambiguous: tuple[AmbiguousAlias, ...] = ()
    ) -> None:
        self.models = models
        self.ambiguous = ambiguous
        self._by_name: dict[str, GpuModel] = {}
        self._by_alias: dict[str, list[GpuModel]] = {}
        for model in models:
            self._by_name.setdefault(normalize_name(model.name), model)
            for alias in model.aliases:
                bucket = self._by_alias.setdefault(normalize_name(alias), [])
                if model not in bucket:
                    bucket.append(model)
        self._ambiguous = {normalize_name(a.alias): a for a in ambiguous}

    def __len__(self) -> int:
        return len(self.models)

    def matches(self, name: str) -> tuple[GpuModel, ...]:
        """Every model ``name`` could mean: one exact model, or all models with that alias."""
        key = normalize_name(name)
        exact = self._by_name.get(key)
        if exact is not None:
            return (exact,)
        return tuple(self._by_alias.get(key, ()))

    def is_ambiguous(self, name: str) -> bool:
        """True when ``name`` matches models of more than one compute capability."""
        return len({m.compute_capability for m in self.matches(name)}) > 1

    def find(self, name: str) -> GpuModel | None:
        """The model ``name`` means, or None when unknown or ambiguous.

        When an alias covers several models of the same compute capability
        ("A100", "H100") the first one in the data file is returned.
        """
        found = self.matches(name)
        if not found or len({m.compute_capability for m in found}) > 1:
            return None
        return found[0]

    def lookup(self, name: str) -> GpuModel:
        """Like :meth:`find`, but raise :class:`UsageError` with a helpful message."""
        found = self.matches(name)
        if found and len({m.compute_capability for m in found}) == 1:
            return found[0]
        if found:
            listed = "; ".join(
                f"{m.name} (compute capability {m.compute_capability})" for m in found
            )
            declared = self._ambiguous.get(normalize_name(name))
            why = f" {declared.note}" if declared is not None else ""
            raise UsageError(
                f"The GPU name {name!r} is ambiguous: it can mean {listed}.{why} "
                "Pass the exact name nvidia-smi prints, or give the compute capability "
                f"with --cc (for example --cc {found[0].compute_capability})."
            )
        suggestions = self.suggest(name)
        hint = f" Did you mean {', '.join(map(repr, suggestions))}?" if suggestions else ""
        raise UsageError(
            f"Unknown GPU {name!r}: it is not in tfenv's list of {len(self.models)} NVIDIA "
            f"models.{hint} If the card is right, give its compute capability with --cc "
            "instead (nvidia-smi --query-gpu=compute_cap --format=csv prints it)."
        )

    def suggest(self, name: str, limit: int = 3) -> tuple[str, ...]:
        """Up to ``limit`` close known names or aliases, as a user would type them."""
        spelled: dict[str, str] = {}
        for model in self.models:
            spelled.setdefault(normalize_name(model.name), model.name)
        for model in self.models:
            for alias in model.aliases:
                spelled.setdefault(normalize_name(alias), alias)
        key = normalize_name(name)
        close: list[str] = []
        for cutoff in (0.6, 0.3):  # near misses first; otherwise anything vaguely similar
            close = difflib.get_close_matches(key, list(spelled), n=limit, cutoff=cutoff)
            if close:
                break
        return tuple(spelled[k] for k in close)

    def by_compute_capability(self, cc: Version | str) -> tuple[GpuModel, ...]:
        want = cc if isinstance(cc, Version) else Version(cc)
        return tuple(m for m in self.models if m.compute_capability == want)


def _model(node: Node) -> GpuModel:
    node.only(
        "name",
        "compute_capability",
        "architecture",
        "segment",
        "aliases",
        "name_confirmed",
        "note",
        "source",
        "retrieved",
    )
    name = node.get("name").text().strip()
    if not name:
        raise node.get("name").fail("a GPU needs a name")
    segment = node.get("segment").text()
    if segment not in _SEGMENTS:
        raise node.get("segment").fail(f"{segment!r} is not one of {', '.join(sorted(_SEGMENTS))}")
    aliases = () if node.opt("aliases").is_null else node.get("aliases").texts()
    confirmed = node.opt("name_confirmed").opt_boolean()
    return GpuModel(
        name=name,
        compute_capability=_cc(node.get("compute_capability")),
        architecture=node.get("architecture").text(),
        segment=segment,
        aliases=aliases,
        provenance=node.provenance(),
        name_confirmed=True if confirmed is None else confirmed,
        note=node.opt("note").opt_text(),
    )


def _cc(node: Node) -> Version:
    cc = node.version()
    if len(cc.release) != 2 or cc.pre or cc.post or cc.dev or cc.local:
        raise node.fail(f"{node.value!r} is not a compute capability (major.minor)")
    return cc


def _ambiguous(node: Node) -> AmbiguousAlias:
    node.only("alias", "candidates", "note", "source", "retrieved")
    return AmbiguousAlias(
        alias=node.get("alias").text(),
        candidates=node.get("candidates").texts(),
        note=node.opt("note").opt_text() or "",
        provenance=node.provenance(),
    )


def _validate(root: Node, catalog: GpuCatalog) -> None:
    """No two models share a name; aliases mapping to several CCs are declared."""
    _check_names(root, catalog)
    declared = _check_declared(root, catalog)
    for item, model in zip(root.get("gpus").items(), catalog.models):
        for j, alias in enumerate(model.aliases):
            found = catalog.matches(alias)
            if len({m.compute_capability for m in found}) > 1 and (
                normalize_name(alias) not in declared
            ):
                others = ", ".join(f"{m.name} ({m.compute_capability})" for m in found)
                raise Node(alias, item.file, f"{item.path}.aliases[{j}]").fail(
                    f"the alias {alias!r} names cards of different compute capability "
                    f"({others}); declare it under 'ambiguous'"
                )


def _check_names(root: Node, catalog: GpuCatalog) -> None:
    names: dict[str, int] = {}
    for i, (item, model) in enumerate(zip(root.get("gpus").items(), catalog.models)):
        key = normalize_name(model.name)
        if key in names:
            raise item.get("name").fail(
                f"{model.name!r} duplicates gpus[{names[key]}] (names are compared "
                "ignoring case, spacing and the NVIDIA/GeForce/Tesla prefixes)"
            )
        names[key] = i


def _check_declared(root: Node, catalog: GpuCatalog) -> set[str]:
    known = {normalize_name(m.name) for m in catalog.models}
    declared: set[str] = set()
    for node, amb in zip(_amb_nodes(root), catalog.ambiguous):
        for cand in amb.candidates:
            if normalize_name(cand) not in known:
                raise node.get("candidates").fail(f"{cand!r} is not a GPU name in this file")
        found = catalog.matches(amb.alias)
        if {m.name for m in found} != set(amb.candidates):
            raise node.get("candidates").fail(
                f"the alias {amb.alias!r} matches {sorted(m.name for m in found)}, "
                "not the listed candidates"
            )
        if len({m.compute_capability for m in found}) < 2:
            raise node.get("alias").fail(f"{amb.alias!r} is not ambiguous; remove it from here")
        declared.add(normalize_name(amb.alias))
    return declared


def _amb_nodes(root: Node) -> list[Node]:
    return [] if root.opt("ambiguous").is_null else list(root.get("ambiguous").items())


def parse(root: Node) -> GpuCatalog:
    """Build a catalog from the parsed file (exposed for tests on hand-made data)."""
    root.only("gpus", "ambiguous")
    models = tuple(_model(item) for item in root.get("gpus").items())
    ambiguous = tuple(_ambiguous(item) for item in _amb_nodes(root))
    catalog = GpuCatalog(models, ambiguous)
    _validate(root, catalog)
    return catalog


def load(root: Path | None = None) -> GpuCatalog:
    """Load ``nvidia/gpus.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(GPUS_FILE, root))
