"""The answer: a plan (pins, route, packages, reasons, warnings) or the conflicts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from tfenv.i18n import _
from tfenv.models.conflict import Conflict, Skipped, Suggestion
from tfenv.models.sentence import Sentence
from tfenv.models.target import Request, Target

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "VERIFY_CPU",
    "VERIFY_GPU",
    "Plan",
    "Resolution",
    "RuntimePin",
    "excluded",
    "verify_command",
]

# The one command that shows an install works, as TensorFlow's install guide gives them
# (tensorflow/docs site/en/install/pip.md, "Verify the installation"): the GPU list for a
# CUDA or Metal plan (the Metal plug-in registers the Apple GPU as a GPU device), a
# computation for a CPU plan.
VERIFY_GPU = "import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))"
VERIFY_CPU = "import tensorflow as tf; print(tf.reduce_sum(tf.random.normal([1000, 1000])))"


def excluded(package: str, requirement: str) -> str:
    """What a requirement leaves out, in words: ``numpy 2 or newer`` for ``<2``."""
    specs = requirement.split(",")
    if len(specs) == 1 and specs[0].startswith("<") and not specs[0].startswith("<="):
        return _("{package} {version} or newer").format(package=package, version=specs[0][1:])
    return _("{package} outside {requirement}").format(package=package, requirement=requirement)


def verify_command(accelerator: str) -> str:
    """``python -c "..."``: the Verify step of a plan for ``accelerator`` (cuda, metal, cpu)."""
    return f'python -c "{VERIFY_CPU if accelerator == "cpu" else VERIFY_GPU}"'


@dataclass(frozen=True)
class RuntimePin:
    """A constraint the plan installs because the release needs it to import and run
    today (a record of ``data/tensorflow/runtime.yaml``): ``numpy`` ``<2``, and why."""

    id: str  # the constraint's id in the knowledge base
    package: str
    requirement: str  # a PEP 440 specifier: "<2"
    reason: str  # the sentence: what the release declares, the error seen, the sources

    @property
    def line(self) -> str:
        """The requirement line: ``numpy<2``."""
        return f"{self.package}{self.requirement}"

    def to_dict(self) -> dict[str, str]:
        return {
            "id": self.id,
            "package": self.package,
            "requirement": self.requirement,
            "line": self.line,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Plan:
    tensorflow: str
    package: str  # the distribution that carries it: tensorflow, tensorflow-gpu
    python: Optional[str]
    accelerator: str  # cuda, metal or cpu
    route: str
    cuda: Optional[str] = None
    cudnn: Optional[str] = None
    min_driver: Optional[str] = None
    gpu_code: Optional[str] = None  # "native (sm_80)" / "PTX JIT (compute_80)"
    pip: tuple[str, ...] = ()
    conda: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # variables an activation script sets
    commands: tuple[str, ...] = ()  # install commands, in order
    steps: tuple[str, ...] = ()  # manual steps before the commands (system route), in order
    warnings: tuple[Sentence, ...] = ()  # each with its code (models/sentence.py)
    reasons: tuple[Sentence, ...] = ()
    image: Optional[str] = None  # container route: "tensorflow/tensorflow:2.15.0-gpu"
    host: tuple[str, ...] = ()  # container route: what the host still needs
    remedies: tuple[str, ...] = ()  # known-issue remedies the plan applies ("pin-cuda-wheels")
    verify: str = ""  # the one command that shows the install works (the plan's last step)
    constraints: tuple[RuntimePin, ...] = ()  # in pip too: what the release needs to run
    skipped: tuple[Skipped, ...] = ()  # newer series / Python not taken, and why (resolve only)

    @property
    def gpu(self) -> bool:
        return self.accelerator != "cpu"

    def summary(self) -> str:
        """One line: "TensorFlow 2.15.1, route pip, CUDA 12.2, cuDNN 8.9, NVIDIA driver >= ...",
        in the current language (lockfiles' headers word it in English)."""
        if self.package == "tensorflow":
            parts = [_("TensorFlow {version}, route {route}")]
        else:
            parts = [_("TensorFlow {version} ({package}), route {route}")]
        if self.cuda:
            parts.append("CUDA {cuda}")
        if self.cudnn:
            parts.append("cuDNN {cudnn}")
        if self.min_driver:
            parts.append(_("NVIDIA driver >= {driver}"))
        return (
            _(", ")
            .join(parts)
            .format(
                version=self.tensorflow,
                package=self.package,
                route=self.route,
                cuda=self.cuda,
                cudnn=self.cudnn,
                driver=self.min_driver,
            )
        )

    def to_dict(self) -> dict[str, Any]:
        out = self._base_dict()
        if self.image is not None:
            out["container"] = {"image": self.image, "host": list(self.host)}
        return out

    def _base_dict(self) -> dict[str, Any]:
        return {
            "tensorflow": self.tensorflow,
            "package": self.package,
            "python": self.python,
            "cuda": self.cuda,
            "cudnn": self.cudnn,
            "gpu": self.gpu,
            "accelerator": self.accelerator,
            "gpu_code": self.gpu_code,
            "route": self.route,
            "min_driver": self.min_driver,
            "packages": {"pip": list(self.pip), "conda": list(self.conda)},
            "channels": list(self.channels),
            "env": dict(self.env),
            "commands": list(self.commands),
            "steps": list(self.steps),
            "warnings": list(self.warnings),
            "warning_codes": [w.to_dict() for w in self.warnings],
            "reasons": list(self.reasons),
            "reason_codes": [r.to_dict() for r in self.reasons],
            "remedies": list(self.remedies),
            "constraints": [c.to_dict() for c in self.constraints],
            "verify": self.verify,
            "skipped": [x.to_dict() for x in self.skipped],
        }


@dataclass(frozen=True)
class Resolution:
    target: Target
    request: Request
    plan: Optional[Plan]
    conflicts: tuple[Conflict, ...] = ()
    suggestions: tuple[Suggestion, ...] = ()

    @property
    def ok(self) -> bool:
        return self.plan is not None

    @property
    def conflict_sentences(self) -> tuple[str, ...]:
        """The conflicts in words (:mod:`tfenv.models.messages`)."""
        return tuple(c.sentence for c in self.conflicts)

    @property
    def suggestion_sentences(self) -> tuple[str, ...]:
        """The ways out in words."""
        return tuple(s.sentence for s in self.suggestions)

    def to_dict(self) -> dict[str, Any]:
        t = self.target
        return {
            "status": "ok" if self.ok else "unsatisfiable",
            "target": {
                "os": t.os,
                "arch": t.arch,
                "platform": t.platform.key,
                "python": _s(t.python),
                "glibc": _s(t.glibc),
                "gpu": t.gpu_name,
                "compute_capability": _s(t.cc),
                "driver": _s(t.driver),
                "detected": sorted(t.detected),
                "notes": list(t.notes),
            },
            "request": {
                "tensorflow": self.request.tf_text,
                "manager": self.request.manager,
                "allow_cpu": self.request.allow_cpu,
                "no_gpu": self.request.no_gpu,
                "pre": self.request.pre,
            },
            "plan": self.plan.to_dict() if self.plan else None,
            "conflicts": [c.to_dict() for c in self.conflicts],
            "suggestions": [s.to_dict() for s in self.suggestions],
        }


def _s(value: object) -> Optional[str]:
    return None if value is None else str(value)
