"""``conda``: a conda-forge TensorFlow CUDA build, pinned by build string and cuda-version."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.routes.base import Choice, Delivery, Packages, Route, Where

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.conda import CondaTfBuild
    from tfenv.kb.releases import TfOption
    from tfenv.models.target import Target

__all__ = ["CondaRoute", "conda_forge_build", "conda_install", "conda_match", "conda_variant"]


def conda_forge_build(
    kb: KnowledgeBase, version: Version, target: Target
) -> Optional[CondaTfBuild]:
    """The conda-forge TensorFlow CUDA build record for ``version`` on linux-64, if any."""
    if target.platform.conda_subdir != "linux-64":
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


def conda_install(specs: tuple[str, ...]) -> str:
    return f"conda install -c conda-forge {' '.join(repr(c) for c in specs)}"


class CondaRoute(Route):
    name = "conda"
    why = "a conda-forge TensorFlow CUDA build, pinned by build string and cuda-version"
    accelerators = frozenset({"cuda"})
    managers = ("auto", "conda")
    locker = "conda"
    emits = ("environment", "activation")

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        if conda_variant(where.kb, option.version, where.target) is None:
            return (
                f"conda-forge has no TensorFlow {option.version} CUDA build that this "
                "machine's driver runs"
            )
        return None

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        # conda-forge builds its own CUDA variants; the plan pins one the driver supports
        opt = choice.option
        variant = conda_variant(where.kb, opt.version, where.target)
        py = f"python={choice.python}" if choice.python else "python"
        specs = [py]
        reasons: tuple[str, ...] = ()
        if variant is not None:
            # pin the CUDA variant explicitly: never leave GPU vs CPU to solver preference
            specs += [
                f"tensorflow={opt.version}=cuda{variant.major}{variant.minor}*",
                f"cuda-version={variant.major}.{variant.minor}",
            ]
            reasons = (
                f"conda-forge's TensorFlow {opt.version} CUDA {variant} variant: the newest "
                "variant this driver supports; conda-forge picks the matching cuDNN.",
            )
        else:
            specs.append(f"tensorflow={opt.version}")
        conda = tuple(specs)
        packages = Packages(
            conda=conda, channels=("conda-forge",), commands=(conda_install(conda),)
        )
        return Delivery(choice.python, variant, None, packages, reasons, says_build=False)
