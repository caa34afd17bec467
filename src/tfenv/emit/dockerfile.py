"""A Dockerfile for the container route: pinned image, hashed lock, non-root user, GPU check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.resolver.packages import SMOKE_TEST
from tfenv.textsafe import comment, docker_json_array

if TYPE_CHECKING:
    from tfenv.resolver.plan import Resolution

__all__ = ["LOCK_IN_IMAGE", "USER", "render_dockerfile"]

USER = "tfenv"
LOCK_IN_IMAGE = "/tmp/tfenv-requirements.txt"  # the lock's path inside the image


def render_dockerfile(res: Resolution, lock: Optional[str] = None) -> str:
    """The Dockerfile text; ``lock`` names a hashed requirements file in the build context."""
    plan = res.plan
    assert plan is not None
    assert plan.image is not None
    lines = [comment(line) for line in header_lines(res)]
    lines += [comment(f"Host: {need}") for need in plan.host]
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
            comment(f"the project's lock, installed with hash checking ({lock})"),
            f"COPY {docker_json_array([lock, LOCK_IN_IMAGE])}",
            "RUN python -m pip install --no-cache-dir --require-hashes --no-deps "
            f"-r {LOCK_IN_IMAGE} && rm {LOCK_IN_IMAGE}",
        ]
    lines += [
        "",
        f"USER {USER}",
        "# healthy only while TensorFlow sees a GPU (run with --gpus all)",
        "HEALTHCHECK --interval=5m --timeout=2m --start-period=1m --retries=1 "
        f"CMD {docker_json_array(['python', '-c', SMOKE_TEST])}",
        f"CMD {docker_json_array(['python', '-c', SMOKE_TEST])}",
    ]
    return "\n".join(lines) + "\n"
