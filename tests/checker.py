"""An independent checker of every constraint a plan must satisfy.

It reads the knowledge base directly and shares no code with the solver, so a
bug in the solver's model cannot hide here too.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Literal, Optional

from packaging.version import Version

from tfenv.kb import KnowledgeBase
from tfenv.kb.containers import NgcRelease
from tfenv.kb.tensorflow import ComputeCaps
from tfenv.models.plan import Plan, Resolution

MANAGER_ROUTES = {
    "auto": {"pip", "conda", "conda+pip", "system", "metal", "cpu"},
    "pip": {"pip", "system", "metal", "cpu"},
    "conda": {"conda", "conda+pip"},
    "container": {"container"},
}


def check_plan(kb: KnowledgeBase, res: Resolution) -> list[str]:
    assert res.plan is not None
    if res.plan.route == "container":
        # the image is Linux (WSL2 on a Windows host) with its own Python and glibc
        t0 = res.target
        res = replace(
            res,
            target=replace(t0, os="wsl2" if t0.os == "windows" else t0.os, python=None, glibc=None),
        )
    plan, t, r = res.plan, res.target, res.request
    assert plan is not None
    problems: list[str] = []
    v = Version(plan.tensorflow)
    release = kb.index.release(plan.package, v)
    if release is None:
        return [f"{plan.package} {v} is not on the index"]
    if not r.tf.contains(v, prereleases=True):
        problems.append(f"{v} does not match the request {r.tf}")
    ws = release.wheelset(t.platform.key)
    if ws is None:
        return [*problems, f"no {t.platform} wheel for {v}"]
    problems += _check_python(kb, res, ws.serves, v)
    if t.python is not None and plan.python != str(t.python):
        problems.append(f"plan Python {plan.python} is not the target's {t.python}")
    if ws.glibc is not None and t.glibc is not None and t.glibc < ws.glibc:
        problems.append(f"glibc {t.glibc} < {ws.glibc}")
    problems += _check_request(res)
    if plan.accelerator == "cuda":
        problems += _check_cuda(kb, res, v)
    return problems


def _check_python(
    kb: KnowledgeBase, res: Resolution, serves: Callable[[str], bool], v: Version
) -> list[str]:
    """The plan's Python: one the wheels serve, conda-forge's recipe's for a conda plan, the
    image's own for an NGC plan (checked with the image)."""
    plan = res.plan
    assert plan is not None
    if plan.route == "conda":
        return _check_conda_python(kb, res, v)
    if _ngc_of(kb, plan) is None and plan.python is not None and not serves(plan.python):
        return [f"no Python {plan.python} wheel"]
    return []


def _check_request(res: Resolution) -> list[str]:
    plan, t, r = res.plan, res.target, res.request
    assert plan is not None
    problems = []
    if plan.route not in MANAGER_ROUTES[r.manager]:
        problems.append(f"route {plan.route} not allowed with --manager {r.manager}")
    gpu_required = t.cc is not None and not r.allow_cpu and not r.no_gpu
    if gpu_required and plan.accelerator != "cuda":
        problems.append("the target has an NVIDIA GPU but the plan does not use it")
    if r.no_gpu and plan.accelerator != "cpu":
        problems.append("--no-gpu but the plan uses an accelerator")
    return problems


def _check_driver(kb: KnowledgeBase, res: Resolution, cuda: Version) -> list[str]:
    t = res.target
    if t.driver is None:
        return []
    os_: Literal["linux", "windows"] = "linux" if t.os == "linux" else "windows"
    family = kb.cuda.family(cuda.major)
    toolkit = kb.cuda.toolkit(cuda)
    floors = [
        x
        for x in (
            family.min_driver(os_) if family else None,
            toolkit.min_driver(os_) if toolkit else None,
        )
        if x is not None
    ]
    if floors and t.driver < min(floors):
        return [f"driver {t.driver} below every floor {floors}"]
    return []


def _check_conda(kb: KnowledgeBase, res: Resolution, v: Version) -> list[str]:
    plan, t = res.plan, res.target
    assert plan is not None
    problems = []
    record = kb.conda.conda_forge_build(v)
    variants = {str(c) for c in record.cuda} if record else set()
    if plan.cuda not in variants:
        problems.append(f"conda CUDA {plan.cuda} is not a conda-forge variant {variants}")
    top = kb.cuda.max_cuda_for_driver(t.driver) if t.driver else None
    if top is not None and plan.cuda and Version(plan.cuda).major > top.major:
        problems.append(f"cuda-version {plan.cuda} needs __cuda >= its major; driver has {top}")
    return problems


def _check_image_stack(
    cuda: str | None, cudnn: str | None, want_cuda: Version | None, want_cudnn: Version | None
) -> list[str]:
    """An image's CUDA and cuDNN serve a build of the same major and an older or equal minor."""
    problems = []
    for name, have, want in (("CUDA", cuda, want_cuda), ("cuDNN", cudnn, want_cudnn)):
        if have is None or want is None:
            problems.append(f"{name} of the image or the build not known")
            continue
        got = Version(have)
        if got.major != want.major or got.minor < want.minor:
            problems.append(f"image {name} {have} does not serve the build's {want}")
    return problems


def _check_conda_python(kb: KnowledgeBase, res: Resolution, v: Version) -> list[str]:
    """A conda plan's Python is one conda-forge built that variant for (never the wheels')."""
    plan = res.plan
    assert plan is not None
    record = kb.conda.conda_forge_build(v)
    if record is None or plan.cuda is None:
        return [f"conda plan for {v} without a conda-forge record"]
    variant = record.variant(Version(plan.cuda))
    if variant is None:
        return [f"conda CUDA {plan.cuda} is not a usable variant of {v}"]
    if variant.python is None:
        return [] if plan.python is None else [f"Python {plan.python} is not recorded"]
    if plan.python is None or Version(plan.python) not in variant.python:
        return [f"Python {plan.python} is not one conda-forge built {v} CUDA {plan.cuda} for"]
    return []


def _later_cudnn_ok(
    kb: KnowledgeBase,
    cuda: Optional[Version],
    built: Optional[Version],
    planned: Optional[str],
    cc: Optional[Version],
) -> bool:
    """A plan may install a later cuDNN of the build's major than the build's, where the
    support matrices (cudnn.yaml) bound the build's list below the GPU's major and the later
    series' own list reaches it (a cubin for X.y runs on X.z)."""
    if cuda is None or built is None or planned is None or cc is None:
        return False
    later = Version(planned)
    if later.major != built.major or later <= built:
        return False
    have, want = kb.cudnn.series(built), kb.cudnn.series(later)
    if have is None or want is None:
        return False
    upper = kb.cudnn.native_bounds(have, cuda)[1]
    top = want.native_max(cuda)
    if upper is None or top is None:
        return False
    return cc > upper and cc.major != upper.major and (cc <= top or cc.major == top.major)


def _check_cuda(kb: KnowledgeBase, res: Resolution, v: Version) -> list[str]:
    plan, t = res.plan, res.target
    assert plan is not None
    problems = []
    build = kb.builds.for_version(v)
    if build is None or t.platform.key not in build.gpu_platforms:
        return [f"{v} has no CUDA build for {t.platform}"]
    if build.gpu_package != plan.package:
        problems.append(f"GPU package of {v} is {build.gpu_package}, not {plan.package}")
    ngc = _ngc_of(kb, plan)
    if ngc is not None:  # NVIDIA's own build of the release: the wheel's facts do not apply
        return [*problems, *_check_ngc(kb, res, ngc, v)]
    cb = build.windows if t.os == "windows" else build.linux
    assert cb is not None
    cuda, cudnn = cb.cuda, cb.cudnn
    if cuda is None and t.os != "windows":
        cuda, cudnn = _header_cuda(kb, plan.package, v)
    problems += _check_conda(kb, res, v) if plan.route == "conda" else []
    if plan.route == "container":
        problems += _check_image_stack(plan.cuda, plan.cudnn, cuda, cudnn)
    elif plan.route != "conda" and (
        str(cuda) != plan.cuda
        or (str(cudnn) != plan.cudnn and not _later_cudnn_ok(kb, cuda, cudnn, plan.cudnn, t.cc))
    ):
        problems.append(f"CUDA/cuDNN {plan.cuda}/{plan.cudnn} != build {cuda}/{cudnn}")
    if cuda is not None:
        problems += _check_driver(kb, res, cuda)
    if build.compute is not None and t.cc is not None:
        problems += _check_gpu_code(plan, build.compute, t.cc)
    return problems


def _header_cuda(
    kb: KnowledgeBase, package: str, v: Version
) -> tuple[Optional[Version], Optional[Version]]:
    """Where TensorFlow's table has no CUDA for a series (2.22 on), the CUDA and cuDNN the
    release's own Linux wheel ships in its headers (recorded by refresh), as major.minor."""
    release = kb.index.release(package, v)
    if release is None or release.build is None or release.build.cuda is None:
        return None, None
    cuda, cudnn = release.build.cuda, release.build.cudnn
    return (
        Version(f"{cuda.major}.{cuda.minor}"),
        None if cudnn is None else Version(f"{cudnn.major}.{cudnn.minor}"),
    )


def _ngc_of(kb: KnowledgeBase, plan: Plan) -> Optional[NgcRelease]:
    """The NGC release whose image the plan runs, if it runs one."""
    return next((rel for rel in kb.containers.ngc if rel.image == plan.image), None)


def _check_ngc(kb: KnowledgeBase, res: Resolution, rel: NgcRelease, v: Version) -> list[str]:
    """An NGC plan: the image carries the release, its CUDA and cuDNN are the plan's, its
    GPU range (the release notes', else its CUDA's) holds the GPU, and the driver meets the
    image's floor, or reaches it by forward compatibility on a data-center GPU under Linux."""
    plan, t = res.plan, res.target
    assert plan is not None
    problems = []
    if rel.tensorflow != v:
        problems.append(f"{rel.image} carries TensorFlow {rel.tensorflow}, not {v}")
    inside = (_text(rel.cuda), _text(rel.cudnn), _text(rel.python))
    if (plan.cuda, plan.cudnn, plan.python) != inside:
        problems.append(f"CUDA/cuDNN/Python {plan.cuda}/{plan.cudnn}/{plan.python} not {inside}")
    toolkit = kb.cuda.toolkit(rel.cuda) if rel.cuda else None
    lo = rel.cc_min or (toolkit.cc_min if toolkit else None)
    hi = rel.cc_max or (toolkit.cc_max if toolkit else None)
    if t.cc is not None and ((lo is not None and t.cc < lo) or (hi is not None and t.cc > hi)):
        problems.append(f"{rel.image} supports compute capability {lo} to {hi}, not {t.cc}")
    if t.driver is None:
        return problems
    if rel.min_driver is None:
        return problems + (_check_driver(kb, res, rel.cuda) if rel.cuda else [])
    model = kb.gpus.find(t.gpu_name) if t.gpu_name else None
    datacenter = model is not None and model.segment == "datacenter"
    forward = t.os == "linux" and datacenter and rel.forward_compatible(t.driver)
    if t.driver < rel.min_driver and not forward:
        problems.append(f"driver {t.driver} is below {rel.image}'s {rel.min_driver}")
    return problems


def _text(value: Optional[Version]) -> Optional[str]:
    return None if value is None else str(value)


def _check_gpu_code(plan: Plan, caps: ComputeCaps, cc: Version) -> list[str]:
    """The wheel's code (NGC plans never get here) runs on the GPU, as the plan says."""
    problems = []
    for name, code in (("hand-written", caps.hand_written), ("generated", caps.generated)):
        if code is None:
            continue
        sass = [s for s in code.sass if s.major == cc.major and s.minor <= cc.minor]
        specific = any(x.endswith("a") for x in code.ptx_targets)
        jit = any(p <= cc and (not specific or p == cc) for p in code.ptx)
        if not (sass or jit):
            problems.append(f"no {name} code for compute capability {cc}")
        if plan.route != "conda":  # conda-forge's build is not the wheel
            problems += _check_code_claim(plan.gpu_code, name, max(sass) if sass else None)
    return problems


def _check_code_claim(said: Optional[str], kind: str, sass: Optional[Version]) -> list[str]:
    """The plan's gpu_code says what the wheel carries: native SASS where it has SASS of the
    GPU's major (never "PTX JIT" or "not at all" for that kind), PTX JIT where it has none."""
    if said is None:
        return [f"no gpu_code, though the build's {kind} code is recorded"]
    if sass is not None:
        sm = f"sm_{sass.major}{sass.minor}"
        if "natively" not in said or sm not in said:
            return [f"the wheel has {kind} SASS {sm} for this GPU, the plan says {said!r}"]
    elif "PTX JIT" not in said:
        return [f"the wheel has no {kind} SASS for this GPU, the plan says {said!r}"]
    return []
