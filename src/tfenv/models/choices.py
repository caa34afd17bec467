"""The closed lists tfenv checks input against, each written once, here, at the bottom of
the layers (docs/architecture.md), so that argparse, the configuration and the
knowledge-base readers can use them without importing the registries above them. The
registries check themselves against these lists when they are built (``tfenv.routes``,
``tfenv.rules``): a route or a rule that brings a new value fails at import until the
value is added here. Nothing is imported: ``tfenv <command> --help`` reads this module.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself is not imported (the type checker reads this as True)
if TYPE_CHECKING:
    from typing import Literal

__all__ = [
    "CHANGE_KINDS",
    "CUDA_LIBS",
    "MAC_GPU_VENDORS",
    "MANAGERS",
    "REMEDIES",
    "ROUTE_KINDS",
    "mac_gpu_vendor",
]

#: What --manager (and a target's ``manager`` key) accepts: ``auto``, then each route's
#: ``managers`` in registry order (``routes.MANAGERS``, derived from the routes, equals it).
MANAGERS = ("auto", "pip", "conda", "container")

#: What --cuda-libs (and ``cuda-libs`` in [tool.tfenv]) accepts: which CUDA wheels a pip plan
#: pins (tfenv.kb.cuda_wheels): the versions TensorFlow was built with, or the newest the
#: and-cuda extra allows that the GPU and driver run.
CUDA_LIBS: tuple[Literal["build", "newest"], ...] = ("build", "newest")

#: The routes platforms.yaml may name as what the TensorFlow docs recommend: every route
#: of ``routes.ROUTES`` but those used only on request (the container).
ROUTE_KINDS = frozenset({"pip", "conda", "conda+pip", "system", "metal", "cpu"})

#: The kinds of tensorflow/changes.yaml records: the rules' ``change_kind``s (``rules.RULES``)
#: and those of check-upgrade's own findings (``upgrade.warnings.OWN_CHANGE_KINDS``: keras,
#: cuda, cudnn, packaging, api), exactly (checked when upgrade.warnings is imported).
CHANGE_KINDS = frozenset(
    {"keras", "platform", "gpu-arch", "cuda", "cudnn", "glibc", "python", "packaging", "api"}
)

#: The remedies a known issue (tensorflow/known_issues.yaml) may name: each is applied by
#: some route (``Route.remedies``), whose delivery then leaves the issue out of the plan.
REMEDIES = ("pin-cuda-wheels",)


def check_registry(what: str, found: object, listed: object) -> None:
    """A registry (``what``) checks what it derives against the list here when it is
    built: a difference is a bug in tfenv, reported at import, before any input is read."""
    if found != listed:
        raise RuntimeError(
            f"{what}: the registry gives {found!r}, but tfenv.models.choices lists "
            f"{listed!r}; change the two together (docs/architecture.md, 'Adding a route')."
        )


#: The makers of a Mac's GPU other than NVIDIA, and the words of the names macOS gives their
#: GPUs (System Information's "Chipset Model": "AMD Radeon Pro 5500M", "Intel Iris Plus
#: Graphics", "Apple M2"), lower case: how --gpu NAME is read on macOS. Which of them
#: Apple's tensorflow-metal runs on is the knowledge base's (metal.yaml ``gpus``).
MAC_GPU_VENDORS: dict[str, tuple[str, ...]] = {
    "amd": ("amd", "radeon", "firepro"),
    "intel": ("intel", "iris", "uhd graphics", "hd graphics"),
    "apple": ("apple",),
}


def mac_gpu_vendor(name: str) -> str | None:
    """The maker of a Mac GPU named ``name`` (None: not one of :data:`MAC_GPU_VENDORS`)."""
    words = " ".join(name.lower().split())
    for vendor, marks in MAC_GPU_VENDORS.items():
        if any(m in words for m in marks):
            return vendor
    return None
