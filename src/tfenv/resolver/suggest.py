"""The nearest ways out of an unsatisfiable request, found by solving relaxed variants."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv import routes
from tfenv.i18n import _
from tfenv.models.conflict import Suggestion
from tfenv.models.target import Request, Target

if TYPE_CHECKING:
    from dataclasses import replace

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.containers import NgcRelease
    from tfenv.models.plan import Plan
else:  # without importing dataclasses (see tfenv.models._record)
    from tfenv.models._record import replace

__all__ = ["suggestions"]


def suggestions(kb: KnowledgeBase, target: Target, request: Request) -> tuple[Suggestion, ...]:
    """The ways out of ``request`` on ``target``, which has no plan (the caller solved it)."""
    from tfenv.resolver import solve_once

    # each relaxed question is solved once: the ways out ask some twice (the NGC image of
    # the pinned release under --manager container is the question that failed)
    plans: dict[tuple[Target, Request], Optional[Plan]] = {(target, request): None}

    def plan_of(t: Target, r: Request) -> Optional[Plan]:
        if (t, r) not in plans:
            plans[t, r] = solve_once(kb, t, r).plan
        return plans[t, r]

    out: list[Suggestion] = []
    for rule in _RULES:
        text = rule(kb, plan_of, target, request)
        if text:
            out.append(text)
    out += _arm_gpu(kb, target, request)
    image = _image_driver(kb, plan_of, target, request)
    if image:
        out.append(image)
    ngc = _ngc_gpu(kb, plan_of, target, request) or _ngc_cudnn(kb, plan_of, target, request)
    if ngc:
        out.append(ngc)
    if not out:
        out.append(Suggestion.of("way-out.matrix", platform=target.platform.title))
    # the ways out that keep the GPU come first, each group in the order found
    return tuple(sorted(out, key=lambda s: not s.keeps_gpu))


Solve = Callable[[Target, Request], "Optional[Plan]"]


def _other_tf(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    if not r.tf:
        return None
    plan = solve(t, replace(r, tf=SpecifierSet(), tf_text="latest"))
    if plan is None:
        return None
    return Suggestion.of(
        "way-out.other-tf",
        tensorflow=plan.tensorflow,
        command=_tfenv(t, t, replace(r, tf_text=plan.tensorflow)),
    )


def _pre(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    """Only a pre-release fits: say so, and give --pre (pip and tfenv skip them otherwise)."""
    if r.pre:
        return None
    plan = solve(t, replace(r, pre=True))
    if plan is None or not Version(plan.tensorflow).is_prerelease:
        return None
    wanted = replace(r, pre=True) if not r.tf else replace(r, tf_text=plan.tensorflow)
    return Suggestion.of(
        "way-out.pre", tensorflow=plan.tensorflow, command=_tfenv(t, t, wanted, plan)
    )


def _newer_driver(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    if t.driver is None or not t.has_nvidia_gpu or r.no_gpu or routes.in_image(r.manager):
        return None  # a container image may admit only some drivers: see _image_driver
    plan = solve(replace(t, driver=None), r)
    if plan is None or plan.min_driver is None:
        return None
    from tfenv.models.driver import DriverVersion
    from tfenv.rules.driver import branch_limit

    if branch_limit(kb, t.cc, DriverVersion(plan.min_driver)):
        return None  # no such driver supports this GPU: advice that cannot be followed
    return Suggestion.of(
        "way-out.newer-driver",
        min_driver=plan.min_driver,
        driver=t.driver,
        tensorflow=plan.tensorflow,
        cuda=plan.cuda,
    )


def _wsl2(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    if not t.system.is_windows or not t.has_nvidia_gpu:
        return None
    wsl2 = replace(t, os="wsl2")
    plan = solve(wsl2, r)
    if plan is None:
        return None
    return Suggestion.of(
        "way-out.wsl2",
        tensorflow=plan.tensorflow,
        min_driver=plan.min_driver,
        command=_tfenv(t, wsl2, r, plan),
    )


def _python(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    if t.python is None:
        return None
    plan = solve(replace(t, python=None), r)
    if plan is None or plan.python is None:
        return None
    return Suggestion.of(
        "way-out.python",
        python=plan.python,
        current=t.python,
        tensorflow=plan.tensorflow,
        command=_tfenv(t, replace(t, python=Version(plan.python)), r, plan),
    )


def _cpu(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    if r.allow_cpu or r.no_gpu or not t.has_nvidia_gpu:
        return None
    cpu = replace(r, allow_cpu=True)
    plan = solve(t, cpu)
    if plan is None or plan.gpu:
        return None
    return Suggestion.of("way-out.cpu", tensorflow=plan.tensorflow, command=_tfenv(t, t, cpu, plan))


def _manager(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    """Another --manager: auto after a narrower one; conda when only conda-forge's own build
    fits (it serves Pythons that TensorFlow's wheels do not, e.g. 3.10 for 2.7)."""
    other = replace(r, manager="conda" if r.manager == "auto" else "auto")
    plan = solve(t, other)
    if plan is None:
        return None
    return Suggestion.of(
        "way-out.manager",
        manager=other.manager,
        route=plan.route,
        tensorflow=plan.tensorflow,
        python=plan.python,
        command=_tfenv(t, t, other, plan),
    )


def _image_driver(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    """The lowest newer driver branch with which the container plan works: the image's
    NVIDIA_REQUIRE_CUDA admits some branches and not others, so each is tried."""
    from tfenv.models.driver import DriverVersion

    if not routes.in_image(r.manager) or t.driver is None or not t.has_nvidia_gpu or r.no_gpu:
        return None
    if solve(replace(t, driver=None), r) is None:
        return None  # the driver is not what stands in the way
    last = kb.cuda.last_branch(t.cc)  # a GPU architecture's drivers end at a branch
    for branch in sorted({b.branch for b in kb.cuda.driver_branches if b.branch > t.driver.branch}):
        if last is not None and branch > last.last_branch:
            break
        plan = solve(replace(t, driver=DriverVersion(f"{branch}.999.99")), r)
        if plan is None:
            continue
        floor = DriverVersion(plan.min_driver) if plan.min_driver else None
        fields = {"branch": branch, "driver": t.driver, "tensorflow": plan.tensorflow}
        fields["image"] = plan.image
        if floor is not None and floor.branch == branch:
            return Suggestion.of("way-out.image-driver+floor", floor=floor, **fields)
        return Suggestion.of("way-out.image-driver", **fields)
    return None


def _ngc_gpu(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    """An NGC image whose own TensorFlow build has code for a GPU the wheels lack."""
    from tfenv.routes.container import container_view, ngc_gpu_way_outs

    if not t.has_nvidia_gpu or r.no_gpu:
        return None
    view = container_view(t)
    for rel, how in ngc_gpu_way_outs(kb, view, r.tf):
        wanted = f"=={rel.tensorflow}"
        there = _ngc_python(t, rel)
        plan = solve(
            there, replace(r, tf=SpecifierSet(wanted), tf_text=wanted, manager="container")
        )
        if plan is None or plan.image != rel.image:
            continue
        last = kb.containers.ngc_last_release == rel.release
        return Suggestion.of(
            "way-out.ngc-gpu+last" if last else "way-out.ngc-gpu",
            image=rel.image,
            tensorflow=rel.tensorflow,
            status=rel.status,
            how=how,
            command=_tfenv(t, there, replace(r, tf_text=str(rel.tensorflow), manager="container")),
        )
    return None


def _ngc_cudnn(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    """An NGC image whose cuDNN (and CUDA) support a GPU that the cuDNN of every requested
    release lacks code for, where no pip or conda route can install a cuDNN that has."""
    from tfenv.routes.container import container_view, ngc_cudnn_way_outs

    if not t.has_nvidia_gpu or r.no_gpu or routes.in_image(r.manager):
        return None
    for rel, how in ngc_cudnn_way_outs(kb, container_view(t), r.tf):
        wanted = f"=={rel.tensorflow}"
        there = _ngc_python(t, rel)
        plan = solve(
            there, replace(r, tf=SpecifierSet(wanted), tf_text=wanted, manager="container")
        )
        if plan is None or plan.image != rel.image:
            continue  # the command would not give this image
        return Suggestion.of(
            "way-out.ngc-cudnn",
            image=rel.image,
            tensorflow=rel.tensorflow,
            cudnn=rel.cudnn,
            cuda=rel.cuda,
            status=rel.status,
            how=how,
            command=_tfenv(t, there, replace(r, tf_text=str(rel.tensorflow), manager="container")),
        )
    return None


def _ngc_python(t: Target, rel: NgcRelease) -> Target:
    """The machine with the NGC image's Python where another was asked for (the container
    route takes an image only with the Python asked for, and an image's Python cannot be
    chosen): the way out's command then says ``--python``."""
    from tfenv.routes.container import container_view

    asked = container_view(t).python
    if asked is None or rel.python is None or asked == rel.python:
        return t
    return replace(t, python=rel.python)


def _conda_cpu(kb: KnowledgeBase, solve: Solve, t: Target, r: Request) -> Optional[Suggestion]:
    """conda-forge's CPU-only builds where the wheels stop (osx-64 after 2.16.2)."""
    from tfenv.routes.conda import conda_forge_cpu

    offer = conda_forge_cpu(kb, t, r.tf if r.tf else None)
    if offer is None:
        return None
    return Suggestion.of(
        "way-out.conda-forge-cpu",
        tensorflow=offer.version,
        subdir=t.platform.conda_subdir,
        pythons=offer.pythons,
        macos=offer.macos or "",
        builds=offer.builds,
        source=offer.source,
        command=offer.command,
        activate=offer.activate,
    )


def _arm_gpu(kb: KnowledgeBase, t: Target, r: Request) -> list[Suggestion]:
    """No wheel on the index carries CUDA for Linux aarch64: a Jetson gets NVIDIA's JetPack
    builds, an Arm server NVIDIA's NGC images (which do not run on a Jetson)."""
    if t.platform.key != "linux_aarch64" or t.cc is None or r.no_gpu:
        return []
    from tfenv.kb.jetson import is_jetson

    if is_jetson(kb, t.gpu_name, t.cc):
        return [
            Suggestion.of("way-out.said", text=text)
            for text in kb.jetson.ways_out(t.cc, t.driver, t.gpu_name)
        ]
    arm = _arm_container(kb, t.cc)
    return [arm] if arm else []


def _arm_container(kb: KnowledgeBase, cc: Version) -> Optional[Suggestion]:
    """NGC publishes arm64 (SBSA) TensorFlow images for Arm servers: the newest recorded one
    whose CUDA knows the GPU (never one whose CUDA predates it)."""
    from tfenv.rules.container_images import ngc_gpu_support

    found: tuple[NgcRelease, ...] = kb.containers.ngc_for_arch("aarch64")
    if not found:
        return None
    fits = [rel for rel in found if ngc_gpu_support(kb, rel, cc)[0]]
    if not fits:
        rel = found[0]
        first = kb.cuda.first_for(cc)
        return Suggestion.of(
            "way-out.arm-container-none",
            cc=cc,
            image=rel.image,
            cuda=rel.cuda or _("not known"),
            since=_(" (the first CUDA for it is {cuda})").format(cuda=first) if first else "",
            last=kb.containers.ngc_last_release or _("not known"),
            source=rel.provenance.sources[0],
        )
    rel = fits[0]
    return Suggestion.of(
        "way-out.arm-container",
        image=rel.image,
        cuda=rel.cuda or "",
        min_driver=rel.min_driver or "",
        source=rel.provenance.sources[0],
    )


_RULES: tuple[Callable[[KnowledgeBase, Solve, Target, Request], Optional[Suggestion]], ...] = (
    _pre,
    _other_tf,
    _newer_driver,
    _wsl2,
    _python,
    _manager,
    _cpu,
    _conda_cpu,
)


def _tfenv(asked: Target, t: Target, r: Request, plan: Optional[Plan] = None) -> str:
    """The ``tfenv resolve`` line that gives the way out: every fact of the machine ``t``
    (``asked`` with the one change proposed) and what ``r`` asks, for the shell of the
    machine asked about (:func:`tfenv.rerun.resolve_line`)."""
    from tfenv.rerun import resolve_line
    from tfenv.shells import shell_for

    tensorflow = plan.tensorflow if plan is not None else None
    return resolve_line(t, r, shell_for(asked.os), tensorflow=tensorflow)
