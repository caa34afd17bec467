"""Which tensorflow-metal plug-in goes with a TensorFlow release on Apple silicon.

The pairing is Apple's table (``data/metal.yaml``), corrected where the plug-ins'
own libraries contradict it; the plug-in's Pythons are its wheels' tags on the
index. :func:`metal_plugin` answers for one release; :func:`newest_paired` says
which TensorFlow is the newest with a known pairing (the default Metal plan);
:func:`no_metal_reason` says why a release or Python gets no Metal plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._files import load_node
from tfenv.kb._schema import Translations, choice, fact, read_record, sourced, translated

if TYPE_CHECKING:
    from pathlib import Path

    from tfenv.kb import KnowledgeBase

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = [
    "METAL_FILE",
    "CondaDeps",
    "MetalFacts",
    "MetalGpus",
    "MetalPair",
    "MetalPlugin",
    "load",
    "metal_plugin",
    "newest_paired",
    "no_metal_reason",
    "own_distributions",
    "runs_on_gpu",
]

METAL_FILE = "metal.yaml"
PLATFORM = "macos_arm64"  # Apple silicon: every Mac of it has the Apple GPU
INTEL_PLATFORM = "macos_x86_64"  # Intel Macs: the plug-in runs on their AMD GPUs only


@dataclass(frozen=True)
class MetalPair:
    """One plug-in release and the TensorFlow releases it is paired with."""

    metal: Version = fact(Node.version)
    tensorflow: SpecifierSet = fact(Node.specifier)
    tensorflow_text: str = fact(key="tensorflow")  # as written: ">=2.18,<2.20"
    # what provides TensorFlow there
    package: str = fact(choice("tensorflow", "tensorflow-macos"))
    status: str = fact(choice("established", "inferred"))  # Apple's table, or inferred
    # releases whose libraries export what it imports
    loads_with: Optional[SpecifierSet] = fact(Node.opt_specifier)
    basis: str = fact()
    provenance: Provenance = sourced()
    # the prose in other languages (zh:), read with tfenv.kb.prose.prose
    translations: Translations = translated("basis")

    def describe(self) -> str:
        """ "tensorflow-metal 1.2.0 for TensorFlow >=2.18,<2.20 (inferred)"."""
        status = _("established") if self.status == "established" else _("inferred")
        return _("tensorflow-metal {metal} for TensorFlow {tensorflow} ({status})").format(
            metal=self.metal, tensorflow=self.tensorflow_text, status=status
        )


@dataclass(frozen=True)
class CondaDeps:
    """Apple's conda metapackage of TensorFlow's dependencies (``apple::tensorflow-deps``),
    installed before ``tensorflow-macos`` in a conda environment: its versions (each for
    the TensorFlow series of the same X.Y) and the channel's subdir."""

    channel: str
    package: str
    subdir: str
    versions: tuple[Version, ...]
    provenance: Provenance

    def for_series(self, version: Version) -> Optional[Version]:
        """The newest version of the package for the series of ``version`` (None: none)."""
        found = [v for v in self.versions if (v.major, v.minor) == (version.major, version.minor)]
        return max(found) if found else None


@dataclass(frozen=True)
class MetalGpus:
    """The GPU makers Apple's requirements name for the plug-in (``apple``, ``amd``)."""

    vendors: frozenset[str]
    requirement: str  # as Apple words it
    provenance: Provenance


@dataclass(frozen=True)
class MetalFacts:
    pairs: tuple[MetalPair, ...]
    table: tuple[str, ...]  # Apple's table rows, verbatim
    table_provenance: Provenance
    conda_deps: Optional[CondaDeps] = None
    gpus: Optional[MetalGpus] = None

    def paired(self, version: Version, package: str = "tensorflow") -> Optional[MetalPair]:
        """The plug-in paired with TensorFlow ``version``: Apple's own pairing before an
        inferred one, then the newest plug-in."""
        found = [
            p for p in self.pairs if p.package == package and p.tensorflow.contains(version, True)
        ]
        if not found:
            return None
        return max(found, key=lambda p: (p.status == "established", p.metal))


@dataclass(frozen=True)
class MetalPlugin:
    """The plug-in to install with a release, and the Pythons its wheels serve."""

    version: Version
    pythons: tuple[Version, ...]
    pair: MetalPair


def parse(root: Node) -> MetalFacts:
    root.only("table", "gpus", "pairs", "conda_deps")
    table = root.get("table").only("header", "rows", "source", "retrieved")
    deps = root.opt("conda_deps")
    conda_deps = None
    if deps.value is not None:
        deps.only("channel", "package", "subdir", "versions", "source", "retrieved")
        conda_deps = CondaDeps(
            channel=deps.get("channel").text(),
            package=deps.get("package").text(),
            subdir=deps.get("subdir").text(),
            versions=tuple(Version(t) for t in deps.get("versions").texts()),
            provenance=deps.provenance(),
        )
    gpus = None
    node = root.opt("gpus")
    if node.value is not None:
        node.only("vendors", "requirement", "source", "retrieved")
        gpus = MetalGpus(
            vendors=frozenset(node.get("vendors").texts()),
            requirement=node.get("requirement").text(),
            provenance=node.provenance(),
        )
    return MetalFacts(
        pairs=tuple(read_record(MetalPair, n) for n in root.get("pairs").items()),
        table=(table.get("header").text(), *table.get("rows").texts()),
        table_provenance=table.provenance(),
        conda_deps=conda_deps,
        gpus=gpus,
    )


def load(root: Optional[Path] = None) -> MetalFacts:
    """Load ``metal.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(METAL_FILE, root))


def own_distributions(kb: KnowledgeBase) -> tuple[str, ...]:
    """The distributions other than ``tensorflow`` that the pairings name (Apple's
    ``tensorflow-macos``): where tensorflow has no macOS arm64 wheel, they provide it."""
    return tuple(sorted({p.package for p in kb.metal.pairs} - {"tensorflow"}))


def runs_on_gpu(kb: KnowledgeBase, platform: str, vendor: Optional[str]) -> bool:
    """Whether a Mac of ``platform`` whose GPU is of ``vendor`` (``tfenv.models.choices
    .MAC_GPU_VENDORS``; None: not known) runs the plug-in: every Apple silicon Mac (its
    GPU is Apple's); an Intel Mac whose GPU's maker Apple's requirements name (AMD)."""
    if platform == PLATFORM:
        return True
    gpus = kb.metal.gpus
    return platform == INTEL_PLATFORM and gpus is not None and vendor in gpus.vendors


def metal_plugin(
    kb: KnowledgeBase, version: Version, platform: str = PLATFORM
) -> Optional[MetalPlugin]:
    """The tensorflow-metal release to pair with TensorFlow ``version`` on ``platform``
    (None: the docs name no Metal route for it there, no plug-in is paired with it, or the
    paired plug-in has no wheel for the platform)."""
    return kb.memo(("metal-plugin", version, platform), lambda: _plugin(kb, version, platform))


def _plugin(kb: KnowledgeBase, version: Version, platform: str) -> Optional[MetalPlugin]:
    if "metal" not in (r.route for r in kb.platforms.routes_for(version, platform)):
        return None
    pair = kb.metal.paired(version)
    for package in own_distributions(kb) if pair is None else ():
        pair = pair or kb.metal.paired(version, package)
    if pair is None:
        return None
    release = kb.index.release("tensorflow-metal", pair.metal)
    wheels = release.wheelset(platform) if release else None
    if wheels is None and platform != PLATFORM:
        return None  # no plug-in wheel for an Intel Mac (from 1.0.1)
    tags = wheels.pythons if wheels else ()
    pythons = tuple(Version(p) for p in tags if p.replace(".", "").isdigit())
    return MetalPlugin(pair.metal, pythons, pair)


def newest_paired(
    kb: KnowledgeBase, platform: str = PLATFORM
) -> Optional[tuple[Version, MetalPlugin]]:
    """The newest final TensorFlow release on the index with a paired plug-in on
    ``platform``; a release known to be broken there only when no other is paired (as the
    solver does)."""

    def compute() -> Optional[tuple[Version, MetalPlugin]]:
        broken: Optional[tuple[Version, MetalPlugin]] = None
        for release in reversed(kb.index.releases("tensorflow")):
            v = release.version
            if release.yanked or v.is_prerelease:
                continue
            if platform == PLATFORM and release.wheelset(PLATFORM) is None:
                continue  # (before 2.13 Apple's own build: the release's own wheels decide)
            plugin = metal_plugin(kb, v, platform)
            if plugin is None:
                continue
            if not _broken(kb, v, platform):
                return v, plugin
            broken = broken or (v, plugin)
        return broken

    return kb.memo(("metal-newest-paired", platform), compute)


def _broken(kb: KnowledgeBase, version: Version, platform: str = PLATFORM) -> bool:
    return any(i.severity == "broken" and i.matches(version, platform) for i in kb.known_issues)


def _resolve_line(tf: Version, python: Optional[Version]) -> str:
    from tfenv.shells import command

    return command(
        ["tfenv", "resolve", "--tf", str(tf), *(["--python", str(python)] if python else [])],
        "posix",
    )


def no_metal_reason(
    kb: KnowledgeBase,
    version: Version,
    python: Optional[Version],
    platform: str = PLATFORM,
    resolve_line: Callable[[Version, Optional[Version]], str] = _resolve_line,
) -> Optional[str]:
    """Why TensorFlow ``version`` with ``python`` gets no Metal plug-in on ``platform``
    (None: it does). ``resolve_line(tf, python)`` writes the ``tfenv resolve`` line that
    plans the newest pairing (``python``: another Python it needs, else None)."""
    apple = platform == PLATFORM
    plugin = metal_plugin(kb, version, platform)
    if plugin is not None:
        if python is None or python in plugin.pythons:
            return None
        tags = ", ".join(str(p) for p in plugin.pythons) or _("none")
        return (
            _(
                "tensorflow-metal {plugin} has no wheel for Python {python} "
                "(only {pythons}): for the Apple GPU, use one of those Pythons"
            )
            if apple
            else _(
                "tensorflow-metal {plugin} has no macOS x86_64 wheel for Python {python} "
                "(only {pythons}): for the AMD GPU, use one of those Pythons"
            )
        ).format(plugin=plugin.version, python=python, pythons=tags)
    newest = newest_paired(kb, platform)
    if newest is None:
        return _("no tensorflow-metal release is paired with TensorFlow {version}").format(
            version=version
        )
    tf, best = newest
    values = {"version": version, "pairing": best.pair.describe(), "plugin": best.version}
    other_python = python is not None and python not in best.pythons and best.pythons
    hint = resolve_line(tf, max(best.pythons) if other_python else None)
    if not apple:
        text = _(
            "no tensorflow-metal release with a macOS x86_64 wheel is paired with TensorFlow "
            "{version}; the newest such pairing is {pairing}"
        ).format(**values)
        return _("{text}. For the AMD GPU: {hint}").format(text=text, hint=hint)
    if python is not None and python not in best.pythons and best.pythons:
        text = _(
            "tensorflow-metal has no wheel for Python {python}; no tensorflow-metal release is "
            "paired with TensorFlow {version}; the newest pairing is {pairing}"
        ).format(python=python, **values)
    else:
        text = _(
            "no tensorflow-metal release is paired with TensorFlow {version}; the newest pairing "
            "is {pairing}"
        ).format(**values)
    if best.pair.loads_with is not None and not best.pair.loads_with.contains(version, True):
        text = _(
            "{text}, and tensorflow-metal {plugin} does not load into {version} (import "
            "fails with 'Symbol not found' or 'Library not loaded' in libmetal_plugin.dylib)"
        ).format(text=text, **values)
    return _("{text}. For the Apple GPU: {hint}").format(text=text, hint=hint)
