"""Which tensorflow-metal plug-in goes with a TensorFlow release on Apple silicon."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase

__all__ = ["MetalPlugin", "metal_plugin"]


@dataclass(frozen=True)
class MetalPlugin:
    version: Version
    pythons: tuple[Version, ...]


def metal_plugin(kb: KnowledgeBase, version: Version) -> Optional[MetalPlugin]:
    """The tensorflow-metal release to pair with TensorFlow ``version`` on Apple silicon.

    Where the docs name a release with ``route: metal`` the newest plug-in on the
    index is used; its wheel tags give the Pythons.
    """
    if "metal" not in (r.route for r in kb.platforms.routes_for(version, "macos_arm64")):
        return None
    return kb.derived("metal-plugin", lambda: _newest(kb))


def _newest(kb: KnowledgeBase) -> Optional[MetalPlugin]:
    releases = [
        r
        for r in kb.index.releases("tensorflow-metal")
        if not r.yanked and not r.version.is_prerelease and r.wheelset("macos_arm64")
    ]
    if not releases:
        return None
    newest = releases[-1]
    ws = newest.wheelset("macos_arm64")
    assert ws is not None
    pythons = tuple(Version(p) for p in ws.pythons if p.replace(".", "").isdigit())
    return MetalPlugin(newest.version, pythons)
