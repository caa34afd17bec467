"""TensorFlow releases as the solver sees them: one installable option per platform.

Joins the index facts (which wheels exist, for which Pythons, with which
metadata) with the curated build facts (which builds carry CUDA, which CUDA,
which GPU code) for one target platform.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import N_, _
from tfenv.kb.index import OLDEST_TF

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.index import Release, WheelSet
    from tfenv.kb.known_issues import KnownIssue
    from tfenv.kb.tensorflow import TfBuild

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = ["Problem", "TfOption", "build_of", "known_versions", "tf_options"]


@dataclass(frozen=True)
class Problem:
    """Why an option cannot install: its English template (``N_``) and the values, worded in
    the output's language when shown (:meth:`text`), because the options are cached on disk
    whatever the language of the run that derived them."""

    template: str
    values: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, template: str, **values: object) -> Problem:
        return cls(template, tuple((k, str(v)) for k, v in sorted(values.items())))

    def text(self) -> str:
        return _(self.template).format(**dict(self.values))


@dataclass(frozen=True)
class TfOption:
    """One TensorFlow release of one package, seen from one platform."""

    package: str
    version: Version
    yanked: bool
    build: Optional[TfBuild]
    wheels: Optional[WheelSet]  # None: no wheel for the platform
    pythons: tuple[Version, ...]  # installable Pythons (stub targets checked)
    stub_problem: Optional[Problem]  # why a stub wheel cannot be installed, if it cannot
    issues: tuple[KnownIssue, ...]
    and_cuda_problem: Optional[Problem]  # why tensorflow[and-cuda]==version cannot install here

    @property
    def broken(self) -> bool:
        return any(i.severity == "broken" for i in self.issues)


def tf_options(kb: KnowledgeBase, package: str, platform: str) -> tuple[TfOption, ...]:
    """Every release of ``package`` (2.0 and later), newest first.

    Derived once from the index and build facts and cached with the knowledge base,
    so that a resolve reads only what its platform needs.
    """
    return kb.derived(f"options-{package}-{platform}", lambda: _tf_options(kb, package, platform))


def build_of(kb: KnowledgeBase, version: Version) -> Optional[TfBuild]:
    """The build facts of one TensorFlow release: its series' row, or what its own wheel's
    headers say where the table has none (see :func:`_with_headers`)."""
    build = kb.builds.for_version(version)
    release = kb.index.release("tensorflow", version)
    return build if release is None else _with_headers(build, release)


def known_versions(kb: KnowledgeBase) -> tuple[Version, ...]:
    """Every version of tensorflow and tensorflow-gpu on the index, ascending."""

    def compute() -> tuple[Version, ...]:
        found = {r.version for p in ("tensorflow", "tensorflow-gpu") for r in kb.index.releases(p)}
        return tuple(sorted(found))

    return kb.derived("tf-versions", compute)


def _tf_options(kb: KnowledgeBase, package: str, platform: str) -> tuple[TfOption, ...]:
    options = []
    for release in reversed(kb.index.releases(package)):
        if release.version < OLDEST_TF:
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
    build = _with_headers(kb.builds.for_version(release.version), release)
    return TfOption(
        package=package,
        version=release.version,
        yanked=release.yanked,
        build=build,
        wheels=wheels,
        pythons=pythons,
        stub_problem=stub_problem,
        issues=issues,
        and_cuda_problem=_and_cuda_problem(kb, wheels, release.version, platform),
    )


def _with_headers(build: Optional[TfBuild], release: Release) -> Optional[TfBuild]:
    """The series' build facts, or, where TensorFlow's table has no row for it (its Linux
    CUDA is not established), the CUDA and cuDNN the release's own wheel ships in its
    headers (``tfenv refresh`` reads them), as major.minor."""
    headers = release.build
    if build is None or headers is None or headers.cuda is None:
        return build
    if build.linux is not None and build.linux.cuda is not None:
        return build
    from tfenv.kb.tensorflow import CudaBuild
    from tfenv.models._record import replace

    cuda = Version(f"{headers.cuda.major}.{headers.cuda.minor}")
    cudnn = headers.cudnn
    if cudnn is not None:
        cudnn = Version(f"{cudnn.major}.{cudnn.minor}")
    return replace(build, linux=CudaBuild(cuda, cudnn, headers.provenance))


def _and_cuda_problem(
    kb: KnowledgeBase, wheels: Optional[WheelSet], version: Version, platform: str
) -> Optional[Problem]:
    if wheels is None or wheels.and_cuda is None:
        return Problem.of(N_("tensorflow {version} has no and-cuda extra"), version=version)
    for line in wheels.and_cuda:
        req = kb.cuda_index.extra_line(line)  # parsed once when the index was loaded
        if req is None:
            return Problem.of(
                N_("its and-cuda requirement {line} cannot be parsed"), line=repr(line)
            )
        known = kb.cuda_index.cuda_versions(req.name)
        if not known or req.name in kb.and_cuda.optional.packages:
            continue  # not recorded, or optional (left out where it has no wheel)
        if not any(
            platform in cw.platforms
            and not cw.yanked
            and req.specifier.contains(cw.version, prereleases=True)
            for cw in known
        ):
            return Problem.of(
                N_(
                    "its and-cuda extra requires {line}, which has no {platform} wheel on the index"
                ),
                line=line,
                platform=platform,
            )
    return None


def _through_stub(
    kb: KnowledgeBase,
    release: Release,
    target: str,
    platform: str,
    pythons: tuple[Version, ...],
) -> tuple[tuple[Version, ...], Optional[Problem]]:
    """A stub wheel only installs where the package it redirects to has a wheel."""
    real = kb.index.release(target, release.version)
    real_wheels = real.wheelset(platform) if real else None
    if real_wheels is None:
        return (), Problem.of(
            N_(
                "the {platform} wheel of tensorflow {version} is a stub that requires "
                "{target}=={version}, which has no {platform} wheel on the index"
            ),
            platform=platform,
            version=release.version,
            target=target,
        )
    available = {Version(p) for p in real_wheels.pythons if _is_xy(p)}
    usable = tuple(p for p in pythons if p in available)
    if not usable:
        theirs = ", ".join(str(p) for p in sorted(available)) or "none"
        return (), Problem.of(
            N_(
                "the {platform} wheel of tensorflow {version} is a stub for "
                "{target}=={version}, whose wheels serve Python {pythons}, none of which "
                "the stub itself serves"
            ),
            platform=platform,
            version=release.version,
            target=target,
            pythons=theirs,
        )
    return usable, None


def _is_xy(tag: str) -> bool:
    return tag.count(".") == 1 and tag.replace(".", "").isdigit()
