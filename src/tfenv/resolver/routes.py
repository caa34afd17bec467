"""Install routes: which ones can deliver a TensorFlow option, in recommended order,
and the conda / Metal pieces each route needs (all looked up in the knowledge base)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.conda import CondaTfBuild
    from tfenv.resolver.factory import Factory
    from tfenv.resolver.releases import TfOption
    from tfenv.resolver.target import Target

__all__ = [
    "CONDA_ROUTES",
    "MANAGERS",
    "ROUTES",
    "ContainerImage",
    "MetalPlugin",
    "and_cuda_problem",
    "conda_forge_build",
    "conda_match",
    "conda_variant",
    "container_image",
    "container_ngc",
    "for_manager",
    "metal_plugin",
    "options",
    "recommended",
]

ROUTES = ("pip", "conda", "conda+pip", "system", "metal", "cpu", "container")

_BY_MANAGER = {
    "auto": ROUTES[:-1],  # a container is used only when asked for
    "pip": ("pip", "system", "metal", "cpu"),
    "conda": ("conda", "conda+pip"),
    "container": ("container",),
}
MANAGERS = tuple(_BY_MANAGER)  # the values of --manager and of a target's `manager`
CONDA_ROUTES = ("conda", "conda+pip")  # routes whose environment conda builds


@dataclass(frozen=True)
class MetalPlugin:
    version: Version
    pythons: tuple[Version, ...]


def for_manager(manager: str) -> tuple[str, ...]:
    return _BY_MANAGER[manager]


def recommended(kb: KnowledgeBase, version: Version, target: Target) -> tuple[str, ...]:
    """Routes the TensorFlow docs recommend for this release and target, best first."""
    key = "wsl2" if target.os == "wsl2" else target.platform
    return recommended_for_platform(kb, version, key)


def metal_plugin(kb: KnowledgeBase, version: Version) -> Optional[MetalPlugin]:
    """The tensorflow-metal release to pair with TensorFlow ``version`` on Apple silicon.

    Where the docs name a release with ``route: metal`` the newest plug-in on the
    index is used; its wheel tags give the Pythons.
    """
    if "metal" not in recommended_for_platform(kb, version, "macos_arm64"):
        return None
    return kb.derived("metal-plugin", lambda: _newest_metal(kb))


def _newest_metal(kb: KnowledgeBase) -> Optional[MetalPlugin]:
    releases = [
        r
        for r in kb.index.releases("tensorflow-metal")
        if not r.yanked and not r.version.is_prerelease and r.wheelset("macos_arm64")
    ]
    if not releases:
        return None
    newest = releases[-1]
    ws = newest.wheelset("macos_arm64")
    assert ws is not None
    pythons = tuple(Version(p) for p in ws.pythons if p.replace(".", "").isdigit())
    return MetalPlugin(newest.version, pythons)


def recommended_for_platform(kb: KnowledgeBase, version: Version, key: str) -> tuple[str, ...]:
    return tuple(r.route for r in kb.platforms.routes_for(version, key))


def conda_forge_build(
    kb: KnowledgeBase, version: Version, target: Target
) -> Optional[CondaTfBuild]:
    """The conda-forge TensorFlow CUDA build record for ``version`` on linux-64, if any."""
    if target.conda_subdir != "linux-64":
        return None
    return kb.conda.conda_forge_build(version)


def conda_variant(kb: KnowledgeBase, version: Version, target: Target) -> Optional[Version]:
    """The conda-forge CUDA variant to pin: the newest whose major the driver supports.

    conda-forge's ``cuda-version X.Y`` needs ``__cuda >= X`` (the driver's CUDA);
    with the driver unknown, the newest variant is taken (and the plan says so).
    """
    build = conda_forge_build(kb, version, target)
    if build is None or not build.cuda:
        return None
    top = kb.cuda.max_cuda_for_driver(target.driver) if target.driver else None
    usable = [v for v in build.cuda if top is None or v.major <= top.major]
    return max(usable) if usable else None


def conda_match(available: tuple[Version, ...], want: Version) -> Optional[Version]:
    """The newest conda package version in ``want``'s major.minor series."""
    same = [v for v in available if (v.major, v.minor) == (want.major, want.minor)]
    return max(same) if same else None


def options(f: Factory, opt: TfOption, accel: str) -> tuple[str, ...]:
    """Routes that can install ``opt`` with ``accel`` on the target, best first."""
    if accel == "metal":
        return ("metal",)
    if accel == "cpu":
        return ("cpu",)
    kb, target = f.kb, f.target
    if f.request.manager == "container":
        return ("container",) if container_image(kb, opt, target) is not None else ()
    possible = {"system"}
    if target.os != "windows" and and_cuda_problem(kb, opt, target.platform) is None:
        possible.add("pip")
    if conda_variant(kb, opt.version, target) is not None:
        possible.add("conda")
    cuda = _cuda_of(f, opt)
    if cuda is not None and conda_match(kb.conda.cudatoolkit.conda_forge, cuda) is not None:
        possible.add("conda+pip")
    order = recommended(kb, opt.version, target)
    ranked = [r for r in order if r in possible]
    ranked += sorted(possible - set(ranked), key=ROUTES.index)
    return tuple(ranked)


@dataclass(frozen=True)
class ContainerImage:
    """The image a container plan runs, and what the host needs for it."""

    image: str  # "tensorflow/tensorflow:2.15.0-gpu"
    family: str  # "official" or "ngc"
    cuda: Optional[Version]  # CUDA inside the image (None: not recorded)
    cudnn: Optional[Version]
    python: Optional[Version]
    min_driver: Optional[Version]  # the image's own driver requirement, where recorded
    source: str


def container_image(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """The image for ``opt`` on a Linux x86_64 (or WSL2) host: official first, then NGC.

    An NGC image is taken instead when the host driver is below the official image's
    floor but a data-center GPU reaches the NGC image through forward compatibility.
    """
    if target.platform != "linux_x86_64":
        return None
    ngc = container_ngc(kb, opt, target)
    if ngc is not None:
        return ngc
    official = kb.containers.official
    if opt.package != "tensorflow" and opt.package != "tensorflow-gpu":
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


def and_cuda_problem(kb: KnowledgeBase, opt: TfOption, platform: str) -> Optional[str]:
    """Why ``tensorflow[and-cuda]==v`` cannot be installed on ``platform``, or None."""
    return opt.and_cuda_problem


def _cuda_of(f: Factory, opt: TfOption) -> Optional[Version]:
    if opt.build is None:
        return None
    cb = opt.build.for_machine(f.target.os)
    return None if cb is None else cb.cuda
