"""``.devcontainer/devcontainer.json`` for the container route: the Dockerfile, and the GPU."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tfenv.emit.dockerfile import USER
from tfenv.routes.container import SMOKE_TEST

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["render_devcontainer"]


def render_devcontainer(res: Resolution) -> str:
    plan = res.plan
    assert plan is not None
    assert plan.image is not None
    stack = f"TensorFlow {plan.tensorflow}"
    if plan.cuda:
        stack += f", CUDA {plan.cuda}"
    body: dict[str, Any] = {
        "name": f"tfenv: {stack}",
        "build": {"dockerfile": "../Dockerfile", "context": ".."},
        "runArgs": ["--gpus", "all"],
        "hostRequirements": {"gpu": True},
        "remoteUser": USER,
        "postCreateCommand": ["python", "-c", SMOKE_TEST],
    }
    return json.dumps(body, indent=2) + "\n"
