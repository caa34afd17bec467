"""A Dockerfile for the container route: pinned image, hashed lock, non-root user, GPU check."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.routes.container import SMOKE_TEST

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["USER", "render_dockerfile"]

USER = "tfenv"


def render_dockerfile(res: Resolution, lock: Optional[str] = None) -> str:
    """The Dockerfile text; ``lock`` names a hashed requirements file in the build context."""
    plan = res.plan
    assert plan is not None
    assert plan.image is not None
    lines = [f"# {line}" for line in header_lines(res)]
    lines += [f"# Host: {need}" for need in plan.host]
    lines += [
        "# Build and check: docker build -t tfenv-app . && docker run --gpus all --rm tfenv-app",
        "",
        f"FROM {plan.image}",
        "",
        "# a non-root user to run as (the image itself runs as root)",
        f"RUN useradd --create-home --shell /bin/bash {USER}",
        "WORKDIR /workspace",
    ]
    if lock is not None:
        lines += [
            "",
            f"# the project's lock, installed with hash checking ({lock})",
            f"COPY {lock} /tmp/{lock}",
            "RUN python -m pip install --no-cache-dir --require-hashes --no-deps "
            f"-r /tmp/{lock} && rm /tmp/{lock}",
        ]
    lines += [
        "",
        f"USER {USER}",
        "# healthy only while TensorFlow sees a GPU (run with --gpus all)",
        "HEALTHCHECK --interval=5m --timeout=2m --start-period=1m --retries=1 "
        f"CMD {json.dumps(['python', '-c', SMOKE_TEST])}",
        f"CMD {json.dumps(['python', '-c', SMOKE_TEST])}",
    ]
    return "\n".join(lines) + "\n"
