"""A Dockerfile for the container route: pinned image, hashed lock, non-root user, GPU check.

Two shapes. An image that carries TensorFlow (the official image, NGC): ``FROM`` it and
install the project's lock. A bare CUDA base image (a plan with ``pip`` packages, where no
official image fits): ``FROM`` it, install the plan's Python from the deadsnakes PPA into a
virtual environment (as tensorflow/build's runtime Dockerfiles install Python on Ubuntu
22.04: ``setup.sources.sh``, ``setup.python.sh``), then the lock, which then pins TensorFlow
and its CUDA wheels, or, without a lock, the plan's pip packages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.i18n import _
from tfenv.i18n.width import wrap
from tfenv.routes.container import SMOKE_TEST
from tfenv.shells import command
from tfenv.textsafe import comment, docker_json_array

if TYPE_CHECKING:
    from tfenv.models.plan import Plan, Resolution

__all__ = ["LOCK_IN_IMAGE", "USER", "VENV", "render_dockerfile"]

USER = "tfenv"
VENV = "/opt/venv"
LOCK_IN_IMAGE = "/tmp/tfenv-requirements.txt"  # the lock's path inside the image


def render_dockerfile(res: Resolution, lock: Optional[str] = None) -> str:
    """The Dockerfile text; ``lock`` names a hashed requirements file in the build context."""
    plan = res.plan
    assert plan is not None
    assert plan.image is not None
    lines = [comment(line) for line in header_lines(res)]
    lines += [comment(_("Host: {need}").format(need=need)) for need in plan.host]
    lines += [
        comment(
            _("Build and check: {command}").format(
                command="docker build -t tfenv-app . && docker run --gpus all --rm tfenv-app"
            )
        ),
        "",
        f"FROM {plan.image}",
    ]
    if plan.pip:
        lines += _python(plan)
    lines += [
        "",
        comment(_("a non-root user to run as (the image itself runs as root)")),
        f"RUN useradd --create-home --shell /bin/bash {USER}",
        "WORKDIR /workspace",
    ]
    lines += _install(plan, lock)
    lines += [
        "",
        f"USER {USER}",
        comment(_("healthy only while TensorFlow sees a GPU (run with --gpus all)")),
        "HEALTHCHECK --interval=5m --timeout=2m --start-period=1m --retries=1 "
        f"CMD {docker_json_array(['python', '-c', SMOKE_TEST])}",
        f"CMD {docker_json_array(['python', '-c', SMOKE_TEST])}",
    ]
    return "\n".join(lines) + "\n"


def _python(plan: Plan) -> list[str]:
    """Python X.Y on the Ubuntu of a CUDA base image, in a virtual environment on PATH."""
    py = f"python{plan.python}"
    return [
        "",
        *(comment(line) for line in wrap(_python_why(plan), 75)),
        "ENV DEBIAN_FRONTEND=noninteractive",
        "RUN apt-get update \\",
        " && apt-get install -y --no-install-recommends software-properties-common \\",
        " && add-apt-repository -y ppa:deadsnakes/ppa \\",
        " && apt-get update \\",
        f" && apt-get install -y --no-install-recommends {py} {py}-venv \\",
        " && rm -rf /var/lib/apt/lists/* \\",
        f" && {py} -m venv {VENV}",
        f"ENV PATH={VENV}/bin:$PATH",
    ]


def _python_why(plan: Plan) -> str:
    return _(
        "Python {version} from the deadsnakes PPA (as tensorflow/build's Dockerfiles install "
        "Python), in a virtual environment that comes first on PATH"
    ).format(version=plan.python)


def _not_hashed() -> str:
    return _(
        "TensorFlow and its CUDA wheels, NOT hash-checked: lock them for a container target "
        "('tfenv lock') and pass the lock with --requirements for a --require-hashes install"
    )


def _install(plan: Plan, lock: Optional[str]) -> list[str]:
    if lock is not None:
        if plan.pip:
            what = _(
                "the project's lock (TensorFlow and its CUDA wheels included, {lock}), "
                "installed with hash checking"
            )
        else:
            what = _("the project's lock ({lock}), installed with hash checking")
        return [
            "",
            comment(what.format(lock=lock)),
            f"COPY {docker_json_array([lock, LOCK_IN_IMAGE])}",
            "RUN python -m pip install --no-cache-dir --require-hashes --no-deps "
            f"-r {LOCK_IN_IMAGE} && rm {LOCK_IN_IMAGE}",
        ]
    if not plan.pip:
        return []
    return [
        "",
        *(comment(line) for line in wrap(_not_hashed(), 86)),
        # the image's shell is POSIX: each spec written by the one command renderer
        "RUN " + command(["python", "-m", "pip", "install", "--no-cache-dir", *plan.pip], "posix"),
    ]
