"""Human-readable text of a :class:`Resolution` (a pure renderer: returns a string)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfenv.models.plan import Plan, Resolution

__all__ = ["resolution_json", "resolution_text"]


def resolution_json(res: Resolution) -> str:
    return json.dumps(res.to_dict(), indent=2, sort_keys=False) + "\n"


def resolution_text(res: Resolution) -> str:
    lines = [f"Target: {res.target.describe()}"]
    if res.target.detected:
        lines.append(
            f"  detected: {', '.join(sorted(res.target.detected))}; "
            "everything else was given or left open"
        )
    lines += [f"  note: {n}" for n in res.target.notes]
    if res.plan is None:
        lines += ["", "Nothing fits.", ""]
        lines += [f"  - {c}" for c in res.conflicts]
        lines += ["", "Ways out:"]
        lines += [f"  - {s}" for s in res.suggestions]
        return "\n".join(lines) + "\n"
    return "\n".join([*lines, "", *_plan_lines(res.plan)]) + "\n"


def _plan_lines(p: Plan) -> list[str]:
    pins = [f"TensorFlow {p.tensorflow}"]
    if p.python:
        pins.append(f"Python {p.python}")
    if p.cuda:
        pins.append(f"CUDA {p.cuda}")
    if p.cudnn:
        pins.append(f"cuDNN {p.cudnn}")
    out = [f"Plan: {', '.join(pins)}  [route: {p.route}]"]
    if p.min_driver:
        out.append(f"  needs NVIDIA driver >= {p.min_driver}")
    out += ["", "Install:"] + [f"  {c}" for c in p.commands]
    if p.env:
        out += ["", "Environment:"] + [f"  {k}={v}" for k, v in p.env]
    out += ["", "Why:"] + [f"  - {r}" for r in p.reasons]
    if p.warnings:
        out += ["", "Warnings:"] + [f"  ! {w}" for w in p.warnings]
    return out
