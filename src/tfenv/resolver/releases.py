"""TensorFlow releases as the solver sees them: one installable option per platform.

Joins the index facts (which wheels exist, for which Pythons, with which
metadata) with the curated build facts (which builds carry CUDA, which CUDA,
which GPU code) for one target platform.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.index import Release, WheelSet
    from tfenv.kb.tensorflow import KnownIssue, TfBuild

__all__ = ["TfOption", "tf_options"]


@dataclass(frozen=True)
class TfOption:
    """One TensorFlow release of one package, seen from one platform."""

    package: str
    release: Release
    build: Optional[TfBuild]
    wheels: Optional[WheelSet]  # None: no wheel for the platform
    pythons: tuple[Version, ...]  # installable Pythons (stub targets checked)
    stub_problem: Optional[str]  # why a stub wheel cannot be installed, if it cannot
    issues: tuple[KnownIssue, ...]

    @property
    def version(self) -> Version:
        return self.release.version

    @property
    def broken(self) -> bool:
        return any(i.severity == "broken" for i in self.issues)


def tf_options(kb: KnowledgeBase, package: str, platform: str) -> tuple[TfOption, ...]:
    """Every release of ``package`` (2.0 and later), newest first."""
    return kb.memo(("tf_options", package, platform), lambda: _tf_options(kb, package, platform))


def _tf_options(kb: KnowledgeBase, package: str, platform: str) -> tuple[TfOption, ...]:
    options = []
    for release in reversed(kb.index.releases(package)):
        if release.version < Version("2.0.0"):
            continue
        options.append(_option(kb, package, release, platform))
    return tuple(options)


def _option(kb: KnowledgeBase, package: str, release: Release, platform: str) -> TfOption:
    wheels = release.wheelset(platform)
    pythons: tuple[Version, ...] = ()
    stub_problem = None
    if wheels is not None:
        pythons = tuple(sorted({Version(p) for p in wheels.pythons if _is_xy(p)}, reverse=True))
        if wheels.stub_for:
            pythons, stub_problem = _through_stub(kb, release, wheels.stub_for, platform, pythons)
    issues = tuple(i for i in kb.known_issues if i.matches(release.version, platform, package))
    build = kb.builds.for_version(release.version)
    return TfOption(package, release, build, wheels, pythons, stub_problem, issues)


def _through_stub(
    kb: KnowledgeBase,
    release: Release,
    target: str,
    platform: str,
    pythons: tuple[Version, ...],
) -> tuple[tuple[Version, ...], Optional[str]]:
    """A stub wheel only installs where the package it redirects to has a wheel."""
    real = kb.index.release(target, release.version)
    real_wheels = real.wheelset(platform) if real else None
    if real_wheels is None:
        return (), (
            f"the {platform} wheel of tensorflow {release.version} is a stub that requires "
            f"{target}=={release.version}, which has no {platform} wheel on the index"
        )
    available = {Version(p) for p in real_wheels.pythons if _is_xy(p)}
    return tuple(p for p in pythons if p in available), None


def _is_xy(tag: str) -> bool:
    return tag.count(".") == 1 and tag.replace(".", "").isdigit()
