"""``container``: TensorFlow in an image that carries CUDA and cuDNN (only on request).

The host needs only the NVIDIA driver and the NVIDIA Container Toolkit. The official
``tensorflow/tensorflow:<v>-gpu`` image comes first; NVIDIA's NGC image is taken when
the host driver is below the official image's floor but a data-center GPU reaches
the NGC image through CUDA forward compatibility.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.models.driver import DriverVersion
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.releases import TfOption
    from tfenv.models.target import Target

__all__ = [
    "SMOKE_TEST",
    "ContainerImage",
    "ContainerRoute",
    "container_image",
    "container_ngc",
    "container_view",
    "docker_run",
    "is_datacenter",
]

# exits non-zero unless TensorFlow sees a GPU (the container route's health check)
SMOKE_TEST = (
    "import sys, tensorflow as tf; gpus = tf.config.list_physical_devices('GPU'); "
    "print(tf.__version__, gpus); sys.exit(0 if gpus else 1)"
)


def docker_run(image: str, command: str = "") -> str:
    """The ``docker run`` line that gives the container the host's GPUs."""
    line = f'docker run --gpus all -it --rm -v "$PWD":/workspace -w /workspace {image}'
    return f"{line} {command}" if command else line


def container_view(target: Target) -> Target:
    """The target as a container sees it: Linux (WSL2 on Windows), the host's GPU and driver;
    the image brings its own Python and glibc."""
    os_name = "wsl2" if target.os == "windows" else target.os
    return replace(target, os=os_name, python=None, glibc=None)


@dataclass(frozen=True)
class ContainerImage:
    """The image a container plan runs, and what the host needs for it."""

    image: str  # "tensorflow/tensorflow:2.15.0-gpu"
    family: str  # "official" or "ngc"
    cuda: Optional[Version]  # CUDA inside the image (None: not recorded)
    cudnn: Optional[Version]
    python: Optional[Version]
    min_driver: Optional[DriverVersion]  # the image's own driver requirement, if recorded
    source: str


def container_image(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """The image for ``opt`` on a Linux x86_64 (or WSL2) host: official first, then NGC."""
    if target.platform.key != "linux_x86_64":
        return None
    ngc = container_ngc(kb, opt, target)
    if ngc is not None:
        return ngc
    official = kb.containers.official
    if opt.package not in ("tensorflow", "tensorflow-gpu"):
        return None
    rel = official.release(opt.version)
    tag = official.gpu_tags(opt.version)[0]
    return ContainerImage(
        image=f"{official.repository}:{tag}",
        family="official",
        cuda=rel.cuda if rel else None,
        cudnn=rel.cudnn if rel else None,
        python=rel.python if rel else None,
        min_driver=None,
        source=(rel.provenance if rel else official.provenance).sources[0],
    )


def container_ngc(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """An NGC image for ``opt`` that this host runs only through forward compatibility.

    Only when the official image does not run on the host's driver: forward
    compatibility is a way out, never a preference.
    """
    if target.driver is None or target.driver_os != "linux" or not is_datacenter(kb, target):
        return None
    cuda = opt.build.linux.cuda if opt.build and opt.build.linux else None
    floor = kb.cuda.driver_floor(cuda, "linux")[0] if cuda else None
    if floor is not None and target.driver >= floor:
        return None
    for rel in kb.containers.ngc_for(opt.version):
        if not rel.driver_ok(target.driver) and rel.forward_compatible(target.driver):
            return ContainerImage(
                image=rel.image,
                family="ngc",
                cuda=rel.cuda,
                cudnn=rel.cudnn,
                python=rel.python,
                min_driver=rel.min_driver,
                source=rel.provenance.sources[0],
            )
    return None


def is_datacenter(kb: KnowledgeBase, target: Target) -> bool:
    """Whether the target GPU is a data-center model (forward compatibility needs one)."""
    if target.gpu_name is None:
        return False
    from tfenv.errors import TfenvError

    try:
        return kb.gpus.lookup(target.gpu_name).segment == "datacenter"
    except TfenvError:
        return False


class ContainerRoute(Route):
    name = "container"
    why = (
        "TensorFlow in a container image that carries CUDA and cuDNN; the host needs only "
        "the NVIDIA driver and the NVIDIA Container Toolkit"
    )
    accelerators = frozenset({"cuda"})
    managers = ("container",)
    on_request_only = True
    emits = ("dockerfile", "devcontainer")

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        if container_image(where.kb, option, where.target) is None:
            return f"no container image of TensorFlow {option.version} runs on this host"
        return None

    def waives(self, where: Where, option: TfOption) -> frozenset[str]:
        """The NGC image's forward-compatibility package runs it on an older driver."""
        if container_ngc(where.kb, option, where.target) is not None:
            return frozenset({"driver"})
        return frozenset()

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        kb, target, opt = where.kb, where.target, choice.option
        image = container_image(kb, opt, target)
        if image is None:  # problem() said so before the solver picked this route
            return Delivery(None, choice.cuda, choice.cudnn, Packages())
        cuda, cudnn = choice.cuda, choice.cudnn
        if image.cuda is not None:
            cuda, cudnn = image.cuda, image.cudnn
        packages = Packages(
            commands=(
                f"docker pull {image.image}",
                docker_run(image.image, f'python -c "{SMOKE_TEST}"'),
            )
        )
        return Delivery(
            image.python,
            cuda,
            cudnn,
            packages,
            reasons=_reasons(opt, image, choice.cuda),
            warnings=_warnings(target, image),
            image=image.image,
            python_reason=False,
        )

    def host_needs(self, where: Where, floor: Optional[Version]) -> tuple[str, ...]:
        """What the host must have: its driver, the container toolkit (per OS)."""
        target = where.target
        needs = list(where.kb.containers.host.for_os("linux" if target.os == "linux" else "wsl2"))
        if floor is not None:
            which = "Windows " if target.os != "linux" else ""
            needs.insert(0, f"{which}NVIDIA driver >= {floor}")
        return tuple(needs)


def _reasons(opt: TfOption, image: ContainerImage, cuda: Optional[Version]) -> tuple[str, ...]:
    which = "NVIDIA's NGC TensorFlow container" if image.family == "ngc" else "the official image"
    out = [f"Image {image.image}: {which} for TensorFlow {opt.version} (source: {image.source})."]
    if image.cuda is None:
        out.append(
            f"CUDA inside the image: not recorded; the host driver floor is taken from CUDA "
            f"{cuda or 'unknown'}, which TensorFlow {opt.version} is built with."
        )
    else:
        out.append(f"CUDA {image.cuda} and cuDNN {image.cudnn or 'unknown'} inside the image.")
    py = f"Python {image.python}" if image.python else "its Python (version not recorded)"
    out.append(f"Python: the image's own, {py}; the host's Python does not matter.")
    return tuple(out)


def _warnings(target: Target, image: ContainerImage) -> tuple[str, ...]:
    out = []
    if image.family == "ngc" and target.driver is not None and image.min_driver is not None:
        out.append(
            f"Driver {target.driver} is below what {image.image} requires "
            f"({image.min_driver}): it runs only through CUDA forward "
            "compatibility, which NVIDIA supports on data-center GPUs under Linux; "
            "upgrade the driver for any other GPU."
        )
    if target.os == "wsl2":
        out.append(
            "On Windows the container runs through WSL2: use Docker Desktop with the WSL2 "
            "backend (or Docker Engine with the NVIDIA Container Toolkit inside the WSL2 "
            "distribution); the Windows NVIDIA driver serves the GPU."
        )
    return tuple(out)
