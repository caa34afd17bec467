"""Whether TensorBoard starts with today's setuptools (``tfenv/data/tensorflow/tensorboard.yaml``).

setuptools 82 removed ``pkg_resources``; TensorBoard releases before 2.21 import it when they
start (``tensorboard --version`` included) and declare ``setuptools>=41`` with no upper bound,
so a fresh install on Python 3.9 or later takes a setuptools they cannot start with.
``tools/tensorboard_check.py`` measures it (each TensorBoard release a TensorFlow plan installs,
in a fresh venv, with the newest setuptools, the newest below the bound and the first one at
it) and writes the file; :func:`load` reads it for ``doctor`` and ``explain``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.kb._fields import Provenance
from tfenv.kb._files import load_node

if TYPE_CHECKING:
    from dataclasses import dataclass
    from pathlib import Path
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = ["TENSORBOARD_FILE", "PkgResourcesBound", "load"]

TENSORBOARD_FILE = "tensorflow/tensorboard.yaml"


@dataclass(frozen=True)
class PkgResourcesBound:
    """The setuptools bound TensorBoard releases before :attr:`fixed` need to start."""

    package: str  # setuptools
    requirement: str  # "<82"
    last_good: Version  # the newest setuptools they started with
    first_bad: Version  # the first one they did not start with
    broken: SpecifierSet  # the TensorBoard releases measured to break
    fixed: Version  # the first TensorBoard release that starts with first_bad
    pythons: Optional[SpecifierSet]  # where first_bad installs (None: every Python measured)
    error: str
    checked: str  # the date of the experiment
    sources: tuple[str, ...]
    retrieved: str

    @property
    def provenance(self) -> Provenance:
        return Provenance(self.sources, self.retrieved)

    @property
    def line(self) -> str:
        """The requirement line: ``setuptools<82``."""
        return f"{self.package}{self.requirement}"

    def breaks(self, tensorboard: Version, setuptools: Optional[Version]) -> bool:
        """Whether ``tensorboard`` cannot start beside ``setuptools`` (None: not installed,
        so there is no ``pkg_resources`` either)."""
        if tensorboard >= self.fixed:
            return False
        return setuptools is None or not SpecifierSet(self.requirement).contains(
            setuptools, prereleases=True
        )


@lru_cache(maxsize=8)
def load(root: Optional[Path] = None) -> PkgResourcesBound:
    """Read ``tensorflow/tensorboard.yaml`` below ``root`` (default: the shipped data)."""
    doc = load_node(TENSORBOARD_FILE, root).only("checked", "command", "pkg_resources", "results")
    node = doc.get("pkg_resources").only(
        "package",
        "requirement",
        "last_good",
        "first_bad",
        "broken",
        "fixed",
        "pythons",
        "error",
        "source",
        "retrieved",
    )
    provenance = node.provenance()
    return PkgResourcesBound(
        package=node.get("package").label(100),
        requirement=str(node.get("requirement").specifier(empty=False)),
        last_good=node.get("last_good").version(),
        first_bad=node.get("first_bad").version(),
        broken=node.get("broken").specifier(empty=False),
        fixed=node.get("fixed").version(),
        pythons=node.opt("pythons").opt_specifier(empty=False),
        error=node.get("error").label(300),
        checked=doc.get("checked").date(),
        sources=provenance.sources,
        retrieved=provenance.retrieved,
    )
