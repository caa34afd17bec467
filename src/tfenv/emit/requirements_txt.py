"""requirements.txt for pip routes: top-level pins, each with a comment saying why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.emit._header import header_lines
from tfenv.formats.requirements_txt import render_pins
from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["CODING", "render_requirements"]

#: the first line of a file that is not ASCII (PEP 263; pip reads it)
CODING = "# -*- coding: utf-8 -*-\n"


def render_requirements(res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    text = render_pins(header_lines(res), ((spec, _why(spec, res)) for spec in plan.pip))
    # pip before 24.2 decodes a requirements file in the locale's encoding unless a BOM or
    # a PEP 263 line says otherwise (pypa/pip#12771, fixed by #12795): UTF-8 Chinese
    # comments fail in GBK (Chinese Windows) and in ASCII (LANG=C); the line says UTF-8
    return text if text.isascii() else CODING + text


def _why(spec: str, res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    pin = next((c for c in plan.constraints if c.line == spec), None)
    if pin is not None:
        return pin.reason
    if spec.startswith("tensorflow-metal"):
        pairing = next((r for r in plan.reasons if r.code == "metal-plugin"), None)
        if pairing is None:
            return _("Apple's Metal plug-in")
        return _(
            "Apple's Metal plug-in: the plug-in paired with TensorFlow {tensorflow} ({basis}; "
            "source: {source})"
        ).format(**pairing.params)
    if "[and-cuda]" in spec:
        return _(
            "TensorFlow {version} with its CUDA {cuda} / cuDNN {cudnn} libraries as pip wheels"
        ).format(version=plan.tensorflow, cuda=plan.cuda, cudnn=plan.cudnn)
    if plan.accelerator == "cpu" and plan.package != "tensorflow":
        return _("TensorFlow {version}: {package}, its CPU-only distribution").format(
            version=plan.tensorflow, package=plan.package
        )
    if plan.cuda:
        return _("TensorFlow {version}; built for CUDA {cuda} / cuDNN {cudnn}").format(
            version=plan.tensorflow, cuda=plan.cuda, cudnn=plan.cudnn
        )
    return _("TensorFlow {version} ({accelerator})").format(
        version=plan.tensorflow, accelerator=plan.accelerator
    )
