"""What TensorFlow needs of its dependencies to import and run today
(``tfenv/data/tensorflow/runtime.yaml``).

Old releases declare open upper bounds (``numpy>=1.20``, ``protobuf>=3.9.2``) on packages
that later broke them, so today's index gives them a NumPy 2 or a protobuf 5 they cannot
import. Each :class:`RuntimeConstraint` is one bound measured by ``tools/runtime_sweep.py``
(install the release into a fresh venv, import TensorFlow, train one Keras step; bisect the
dependency's versions): the releases and Pythons it concerns, the requirement to add, what
the release itself declares, the error seen without it, and its sources. ``results`` keeps
the sweep's per-cell outcomes for the docs table (``docs/runtime.md``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Literal, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique, unique_by_id
from tfenv.kb._files import load_node

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "FLAVOURS",
    "OUTCOMES",
    "RUNTIME_FILE",
    "RuntimeConstraint",
    "RuntimeFacts",
    "RuntimeResult",
    "load",
]

RUNTIME_FILE = "tensorflow/runtime.yaml"
#: what a runtime constraint keeps running (:attr:`RuntimeConstraint.component`)
COMPONENTS = ("tensorflow", "tensorboard")
#: the evidence sentence tools/runtime_sweep.py writes (its values, read back for wording;
#: compiled by re when first matched: only a plan with a runtime bound words it)
_EVIDENCE = (
    r"(?P<distribution>\S+) (?P<release>\S+) on Python (?P<python>\S+) broke with "
    r"(?P<package>\S+) (?P<broke_with>\S+) and ran with (?P<line>\S+) \((?P=package) "
    r"(?P<good>\S+) ran, (?P<bad>\S+) broke\)(?:; (?P<runs>\d+) runs of (?P<releases>\d+) "
    r"release\(s\) alike)?"
)
FLAVOURS = ("gpu", "cpu")
#: a cell's outcome: it trained a Keras step; it installed but failed to import or train;
#: it did not install (uv found no solution or a build failed)
OUTCOMES = ("ran", "broke", "no-install")
Flavour = Literal["gpu", "cpu"]
Outcome = Literal["ran", "broke", "no-install"]


@dataclass(frozen=True)
class RuntimeConstraint:
    """A requirement a release needs on one of its dependencies to import and run today."""

    id: str
    package: str  # normalized distribution name (numpy, protobuf)
    requirement: str  # the PEP 440 specifier to add ("<2")
    declared: Optional[str]  # what the release's Requires-Dist says of the package
    error: str  # the first line of the error seen without the constraint
    evidence: str  # which release/Python/version broke and which ran
    sources: tuple[str, ...]
    retrieved: str
    releases: SpecifierSet  # the TensorFlow versions concerned (pre-releases included)
    pythons: Optional[SpecifierSet] = None  # the Pythons concerned (None: every one)
    #: what cannot run without it: "tensorflow" (the release's import and training step,
    #: tools/runtime_sweep.py) or "tensorboard" (the TensorBoard the plan installs does not
    #: start: tools/tensorboard_check.py)
    component: str = "tensorflow"

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.sources, self.retrieved)

    @property
    def line(self) -> str:
        """The requirement line: ``numpy<2``."""
        return f"{self.package}{self.requirement}"

    def evidence_text(self) -> str:
        """:attr:`evidence` in the output's language: the sentence ``tools/runtime_sweep.py``
        writes, read back into its values and worded again (as written when it does not
        have that form)."""
        found = re.fullmatch(_EVIDENCE, self.evidence)
        if found is None:
            return self.evidence
        text = _(
            "{distribution} {release} on Python {python} broke with {package} {broke_with} and "
            "ran with {line} ({package} {good} ran, {bad} broke)"
        ).format(**{k: v for k, v in found.groupdict().items() if k not in ("runs", "releases")})
        if found["runs"] is None:
            return text
        return _("{evidence}; {runs} runs of {releases} release(s) alike").format(
            evidence=text, runs=found["runs"], releases=found["releases"]
        )

    def applies(self, version: Version, python: str) -> bool:
        """Whether a plan of TensorFlow ``version`` on Python ``python`` (X.Y) needs it."""
        if not self.releases.contains(version, prereleases=True):
            return False
        return self.pythons is None or self.pythons.contains(Version(python), prereleases=True)


@dataclass(frozen=True)
class RuntimeResult:
    """One cell of the sweep: a release's plan on one Python, without and with the constraints."""

    release: Version
    python: str
    flavour: Flavour
    distribution: str  # what the plan installs (tensorflow, tensorflow-cpu, tensorflow-gpu)
    bare: Outcome  # the plan as the release declares it
    constrained: Optional[Outcome]  # with the constraints applied (None: none applied)
    error: Optional[str]  # the first error line of the bare run, when it did not run
    versions: tuple[tuple[str, str], ...]  # key packages of the run that ran (numpy, protobuf)


@dataclass(frozen=True)
class RuntimeFacts:
    swept: str  # the date of the sweep
    command: str  # the command line that wrote the file
    constraints: tuple[RuntimeConstraint, ...]
    results: tuple[RuntimeResult, ...] = ()

    def constraints_for(self, version: Version, python: str) -> tuple[RuntimeConstraint, ...]:
        """The constraints a plan of TensorFlow ``version`` on Python ``python`` ("3.10")
        needs, sorted by package (then id)."""
        found = (c for c in self.constraints if c.applies(version, python))
        return tuple(sorted(found, key=lambda c: (c.package, c.id)))


def _python(node: Node) -> str:
    text = node.text()
    parts = text.split(".")
    if len(parts) != 2 or not all(p.isdigit() for p in parts):
        raise node.fail(_("{text!r} is not a Python version X.Y").format(text=text))
    return text


def _package(node: Node) -> str:
    from packaging.utils import canonicalize_name  # imports packaging.tags: read cold only

    name = node.label(100)
    if canonicalize_name(name) != name:
        raise node.fail(
            _("{name!r} is not a normalized package name ({canonicalize_name})").format(
                name=name, canonicalize_name=canonicalize_name(name)
            )
        )
    return name


def _constraint(node: Node) -> RuntimeConstraint:
    node.only(
        "id",
        "releases",
        "pythons",
        "package",
        "requirement",
        "declared",
        "error",
        "evidence",
        "source",
        "retrieved",
        "component",
    )
    provenance = node.provenance()
    component = node.get("component").choice(*COMPONENTS) if node.has("component") else None
    return RuntimeConstraint(
        id=node.get("id").kebab_id(),
        package=_package(node.get("package")),
        requirement=str(node.get("requirement").specifier(empty=False)),
        declared=node.opt("declared").opt_label(300),
        error=node.get("error").label(300),
        evidence=node.get("evidence").label(500),
        sources=provenance.sources,
        retrieved=provenance.retrieved,
        releases=node.get("releases").specifier(empty=False),
        pythons=node.opt("pythons").opt_specifier(empty=False),
        component=component or "tensorflow",
    )


def _result(node: Node) -> RuntimeResult:
    node.only(
        "release", "python", "flavour", "distribution", "bare", "constrained", "error", "versions"
    )
    flavour: Flavour = "gpu" if node.get("flavour").choice(*FLAVOURS) == "gpu" else "cpu"
    return RuntimeResult(
        release=node.get("release").version(strict=True),
        python=_python(node.get("python")),
        flavour=flavour,
        distribution=_package(node.get("distribution")),
        bare=_outcome(node.get("bare")),
        constrained=None if node.opt("constrained").is_null else _outcome(node.get("constrained")),
        error=node.opt("error").opt_label(300),
        versions=node.opt("versions").str_map(),
    )


def _outcome(node: Node) -> Outcome:
    value = node.choice(*OUTCOMES)
    return "ran" if value == "ran" else "broke" if value == "broke" else "no-install"


@lru_cache(maxsize=8)
def load(root: Optional[Path] = None) -> RuntimeFacts:
    """Read ``tensorflow/runtime.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(RUNTIME_FILE, root).only("swept", "command", "constraints", "results")
    results = tuple(_result(n) for n in doc.opt("results").opt_items())
    unique(
        zip(
            doc.opt("results").opt_items(),
            ((str(r.release), r.python, r.flavour) for r in results),
        ),
        "result",
    )
    return RuntimeFacts(
        swept=doc.get("swept").date(),
        command=doc.get("command").label(500),
        constraints=unique_by_id(doc.get("constraints"), _constraint),
        results=results,
    )
