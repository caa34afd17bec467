"""``cpu``: TensorFlow from pip, running on the CPU.

Where a release has a CPU-only distribution (``tensorflow-cpu``) with a real wheel for the
platform and Python that is smaller than the ``tensorflow`` wheel (whose Linux wheel
carries the CUDA kernels), the plan installs that one and says why, with the two sizes
the index data records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.models.sentence import Sentence, coded, said
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of

if TYPE_CHECKING:
    from tfenv.kb.releases import TfOption

__all__ = ["CPU_PACKAGE", "CpuRoute", "cpu_distribution"]

CPU_PACKAGE = "tensorflow-cpu"


class CpuRoute(Route):
    name = "cpu"
    why = N_("TensorFlow from pip, running on the CPU")
    accelerators = frozenset({"cpu"})
    managers = ("auto", "pip")
    emits = ("requirements",)

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        opt = choice.option
        found = cpu_distribution(where, opt, str(choice.python) if choice.python else None)
        package = opt.package if found is None else found[0]
        pip = (f"{package}=={opt.version}", *choice.runtime)
        packages = Packages(pip=pip, commands=(pip_install(*pip, shell=shell_of(where)),))
        return Delivery(
            choice.python,
            None,
            None,
            packages,
            reasons=() if found is None else (found[1],),
            warnings=_unused_gpu(where) + _conda_forge_newer(where, opt),
            package=package,
        )


def cpu_distribution(
    where: Where, opt: TfOption, python: Optional[str]
) -> Optional[tuple[str, Sentence]]:
    """(distribution, reason) where the CPU-only distribution of ``opt`` serves the target's
    platform and ``python`` with a real (not stub) wheel smaller than tensorflow's; None
    where tensorflow itself is the CPU plan's package."""
    if opt.package != "tensorflow" or opt.wheels is None:
        return None
    index, platform = where.kb.index, where.target.platform.key
    release = index.release(CPU_PACKAGE, opt.version)
    ws = release.wheelset(platform) if release is not None else None
    if release is None or release.yanked or ws is None or ws.is_stub:
        return None
    if python is not None and not ws.serves(python):
        return None
    glibc = where.target.glibc
    if glibc is not None and ws.glibc is not None and glibc < ws.glibc:
        return None  # its wheels need a newer glibc than tensorflow's serve
    ours, theirs = ws.size, opt.wheels.size
    if ours and theirs and ours >= theirs:
        return None  # no smaller: tensorflow's wheel carries no GPU code here
    src = release.provenance
    if ours and theirs:
        return CPU_PACKAGE, said(
            "cpu-package",
            _(
                "{package} {version}: TensorFlow {version}'s CPU-only distribution, the same "
                "TensorFlow without GPU support: its largest {platform} wheel is {ours}, "
                "tensorflow's {theirs}, which carries the CUDA build ({more} more to download "
                "and install) (index data: {source}, retrieved {retrieved})."
            ),
            package=CPU_PACKAGE,
            version=opt.version,
            platform=platform,
            ours=_mb(ours),
            theirs=_mb(theirs),
            more=_mb(theirs - ours),
            source=src.sources[0],
            retrieved=src.retrieved,
        )
    return CPU_PACKAGE, said(
        "cpu-package",
        _(
            "{package} {version}: TensorFlow {version}'s CPU-only distribution, the same "
            "TensorFlow without GPU support (index data: {source}, retrieved {retrieved})."
        ),
        package=CPU_PACKAGE,
        version=opt.version,
        source=src.sources[0],
        retrieved=src.retrieved,
    )


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.0f} MB"


def _unused_gpu(where: Where) -> tuple[Sentence, ...]:
    """On Linux aarch64 the index's TensorFlow has no CUDA: say so, and, on a Jetson,
    where GPU TensorFlow comes from instead."""
    t = where.target
    if t.cc is None or t.platform.key != "linux_aarch64":
        return ()
    from tfenv.kb.jetson import is_jetson

    gpu = t.gpu_name or _("the GPU of compute capability {cc}").format(cc=t.cc)
    out = [
        said(
            "gpu-unused",
            _(
                "{gpu} is not used: the TensorFlow wheels on the package index have no CUDA on "
                "Linux aarch64."
            ),
            gpu=gpu,
        )
    ]
    if is_jetson(where.kb, t.gpu_name, t.cc):
        out += [coded("jetson", w) for w in where.kb.jetson.ways_out(t.cc, t.driver, t.gpu_name)]
    return tuple(out)


def _conda_forge_newer(where: Where, opt: TfOption) -> tuple[Sentence, ...]:
    """Where the wheels stop before conda-forge's CPU builds do (osx-64 after 2.16.2)."""
    from tfenv.routes.conda import conda_forge_cpu

    offer = conda_forge_cpu(where.kb, where.target, newer_than=opt.version)
    if offer is None:
        return ()
    if offer.macos is not None:
        template = _(
            "Newer than this plan: conda-forge has CPU-only builds of TensorFlow {tensorflow} "
            "for {subdir} (Python {pythons}, macOS {macos} or later, builds {builds}; a release "
            "state of its recipe, the upload not verified here; {source}): {command}, then "
            "{activate}."
        )
    else:
        template = _(
            "Newer than this plan: conda-forge has CPU-only builds of TensorFlow {tensorflow} "
            "for {subdir} (Python {pythons}, builds {builds}; a release state of its recipe, "
            "the upload not verified here; {source}): {command}, then {activate}."
        )
    return (
        said(
            "conda-forge-newer",
            template,
            tensorflow=offer.version,
            subdir=where.target.platform.conda_subdir,
            pythons=offer.pythons,
            macos=offer.macos,
            builds=offer.builds,
            source=offer.source,
            command=offer.command,
            activate=offer.activate,
        ),
    )
