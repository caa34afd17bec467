"""The vocabulary rules and the solver share: candidates and requirements on a stack.

The solver's identifiers are facts about a stack, not Python distributions:

=============== ===========================================================
identifier      candidates
=============== ===========================================================
``platform``    the one target machine (OS, architecture, glibc)
``gpu``         the one target GPU (its compute capability), or none
``driver``      the one target driver, or "not known"
``python``      Python X.Y versions that any TensorFlow wheel supports
``accelerator`` ``cuda``, ``metal``, ``cpu``
``tensorflow``  (release, accelerator) pairs, newest first
``cuda``        CUDA versions TensorFlow builds target
``cudnn``       cuDNN series TensorFlow builds target
``route``       install routes (``pip``, ``conda``, ``conda+pip``, ...)
=============== ===========================================================

Every requirement carries the sentence that explains it and a test that is a pure
function of the candidate, so conflicts come out of resolvelib's causes already
worded, and the same requirement can be checked against a machine outside the
solver (:func:`fact_candidates`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import Version

from tfenv.i18n import _

if TYPE_CHECKING:
    from dataclasses import dataclass, field

    from tfenv.kb.releases import TfOption
    from tfenv.models.driver import DriverVersion
    from tfenv.models.target import Target
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass, field

__all__ = [
    "Candidate",
    "DriverCandidate",
    "GpuCandidate",
    "MachineCandidate",
    "Requirement",
    "TfCandidate",
    "VersionCandidate",
    "allowed",
    "fact_candidates",
    "on_driver",
    "on_gpu",
    "on_machine",
    "on_version",
    "unmet",
]


@dataclass(frozen=True, eq=False)
class Candidate:
    identifier: str
    key: str  # unique within the identifier
    label: str  # how a user reads it: "TensorFlow 2.15.1 (CUDA build)"
    rank: int  # position in preference order (0 = most wanted)

    def __repr__(self) -> str:
        return f"<{self.identifier} {self.key}>"


@dataclass(frozen=True, eq=False)
class MachineCandidate(Candidate):
    """``platform``: the target machine itself."""

    target: Target


@dataclass(frozen=True, eq=False)
class GpuCandidate(Candidate):
    """``gpu``: the target GPU's compute capability (None: no NVIDIA GPU)."""

    cc: Optional[Version]


@dataclass(frozen=True, eq=False)
class DriverCandidate(Candidate):
    """``driver``: the target's NVIDIA driver (None: not known)."""

    driver: Optional[DriverVersion]


@dataclass(frozen=True, eq=False)
class VersionCandidate(Candidate):
    """``python``, ``cuda``, ``cudnn``: one version."""

    version: Version


@dataclass(frozen=True, eq=False)
class TfCandidate(Candidate):
    """``tensorflow``: one release of one package, built for one accelerator."""

    option: TfOption
    accel: str  # "cuda", "metal" or "cpu"


@dataclass(frozen=True, eq=False)
class Requirement:
    identifier: str
    text: str  # "an NVIDIA driver >= 525.60.13 (the CUDA 12.x minor-version ...)"
    test: Callable[[Candidate], bool] = field(repr=False)
    kind: str = ""  # the rule it comes from: "driver", "python", "gpu-code", ...
    order: Optional[tuple[str, ...]] = None  # preferred order of candidate keys, if any
    fix: str = ""  # what makes it hold: "Install an NVIDIA driver >= 525.60.13"
    keys: Optional[tuple[str, ...]] = None  # for a requirement of listed keys: those keys

    def __repr__(self) -> str:
        return f"<{self.identifier}: {self.text}>"


def allowed(
    identifier: str,
    keys: tuple[str, ...],
    text: str,
    kind: str = "",
    ordered: bool = False,
    fix: str = "",
) -> Requirement:
    """A requirement that the candidate's key is one of ``keys``."""
    keyset = frozenset(keys)
    order = keys if ordered else None
    return Requirement(identifier, text, lambda c: c.key in keyset, kind, order, fix, keys)


def on_machine(text: str, test: Callable[[Target], bool], kind: str, fix: str = "") -> Requirement:
    """A requirement on the target machine (its OS, architecture, glibc)."""

    def check(c: Candidate) -> bool:
        return isinstance(c, MachineCandidate) and test(c.target)

    return Requirement("platform", text, check, kind, fix=fix)


def unmet(text: str, kind: str, fix: str = "") -> Requirement:
    """A requirement on the platform that no machine meets: the release has nothing to
    install here (no wheel, no CUDA build, no plug-in), whatever the machine's facts."""
    return on_machine(text, lambda _: False, kind, fix)


def on_gpu(
    text: str, test: Callable[[Optional[Version]], bool], kind: str, fix: str = ""
) -> Requirement:
    """A requirement on the target GPU's compute capability."""

    def check(c: Candidate) -> bool:
        return isinstance(c, GpuCandidate) and test(c.cc)

    return Requirement("gpu", text, check, kind, fix=fix)


def on_driver(
    text: str, test: Callable[[Optional[DriverVersion]], bool], kind: str, fix: str = ""
) -> Requirement:
    """A requirement on the target's NVIDIA driver."""

    def check(c: Candidate) -> bool:
        return isinstance(c, DriverCandidate) and test(c.driver)

    return Requirement("driver", text, check, kind, fix=fix)


def on_version(
    identifier: str, text: str, test: Callable[[Version], bool], kind: str, fix: str = ""
) -> Requirement:
    """A requirement on a ``python``, ``cuda`` or ``cudnn`` version."""

    def check(c: Candidate) -> bool:
        return isinstance(c, VersionCandidate) and test(c.version)

    return Requirement(identifier, text, check, kind, fix=fix)


def fact_candidates(target: Target) -> dict[str, Candidate]:
    """The target's facts as candidates: what the solver pins first, and what rules are
    checked against outside it. ``python`` is there only when the target fixes it."""
    gpu = _("{gpu} (compute capability {cc})").format(gpu=target.gpu_name or "GPU", cc=target.cc)
    facts: dict[str, Candidate] = {
        "platform": MachineCandidate("platform", "target", target.describe(), 0, target),
        "gpu": GpuCandidate(
            "gpu", "target", gpu if target.cc else _("no NVIDIA GPU"), 0, target.cc
        ),
        "driver": DriverCandidate(
            "driver",
            "target",
            _("driver {driver}").format(driver=target.driver)
            if target.driver
            else _("driver (not known)"),
            0,
            target.driver,
        ),
    }
    if target.python is not None:
        py = target.python
        facts["python"] = VersionCandidate("python", str(py), f"Python {py}", 0, py)
    return facts
