"""The answer: a plan (pins, route, packages, reasons, warnings) or the conflicts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from tfenv.models.conflict import Conflict, Suggestion
from tfenv.models.target import Request, Target

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass


__all__ = ["Plan", "Resolution"]


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
    warnings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    image: Optional[str] = None  # container route: "tensorflow/tensorflow:2.15.0-gpu"
    host: tuple[str, ...] = ()  # container route: what the host still needs
    remedies: tuple[str, ...] = ()  # known-issue remedies the plan applies ("pin-cuda-wheels")

    @property
    def gpu(self) -> bool:
        return self.accelerator != "cpu"

    def summary(self) -> str:
        """One line: "TensorFlow 2.15.1, route pip, CUDA 12.2, cuDNN 8.9, NVIDIA driver >= ..."."""
        package = "" if self.package == "tensorflow" else f" ({self.package})"
        text = f"TensorFlow {self.tensorflow}{package}, route {self.route}"
        if self.cuda:
            text += f", CUDA {self.cuda}"
        if self.cudnn:
            text += f", cuDNN {self.cudnn}"
        if self.min_driver:
            text += f", NVIDIA driver >= {self.min_driver}"
        return text

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
            "reasons": list(self.reasons),
            "remedies": list(self.remedies),
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
