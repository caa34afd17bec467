"""requirements.txt for pip routes: top-level pins, each with a comment saying why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.emit._header import header_lines
from tfenv.formats.requirements_txt import render_pins

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["render_requirements"]


def render_requirements(res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    return render_pins(header_lines(res), ((spec, _why(spec, res)) for spec in plan.pip))


def _why(spec: str, res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    pin = next((c for c in plan.constraints if c.line == spec), None)
    if pin is not None:
        return pin.reason
    if spec.startswith("tensorflow-metal"):
        pairing = next((r for r in plan.reasons if r.startswith("tensorflow-metal ")), None)
        if pairing is None:
            return "Apple's Metal plug-in"
        return "Apple's Metal plug-in: " + pairing.split(": ", 1)[1].rstrip(".")
    if "[and-cuda]" in spec:
        return (
            f"TensorFlow {plan.tensorflow} with its CUDA {plan.cuda} / cuDNN {plan.cudnn} "
            "libraries as pip wheels"
        )
    if plan.accelerator == "cpu" and plan.package != "tensorflow":
        return f"TensorFlow {plan.tensorflow}: {plan.package}, its CPU-only distribution"
    if plan.cuda:
        return f"TensorFlow {plan.tensorflow}; built for CUDA {plan.cuda} / cuDNN {plan.cudnn}"
    return f"TensorFlow {plan.tensorflow} ({plan.accelerator})"
