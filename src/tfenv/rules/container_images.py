"""Which image the container route runs for a release, and why (``containers.yaml``).

In order of preference:

1. ``ngc``: NVIDIA's NGC image of the same TensorFlow release, where it is the way out:
   the official wheels have no code this GPU can load (asked of the GPU-code rule) but
   the NGC build does, or the host driver is below the build's floor and a data-center
   GPU reaches the NGC image through CUDA forward compatibility;
2. ``official``: ``tensorflow/tensorflow:<version>-gpu``, where an image of that release
   is recorded and the CUDA and cuDNN inside it match what TensorFlow was built with
   (the same major, and at least the build's minor). An image that does not match is
   never proposed;
3. ``cuda-base``: NVIDIA's CUDA base image of the build's CUDA (``nvidia/cuda:<X.Y.Z>-
   base-ubuntu22.04``, only the CUDA runtime), in which the Dockerfile installs a Python
   and ``tensorflow[and-cuda]``, whose wheels bring CUDA and cuDNN: the images that work
   for releases whose official image does not (2.15.0, 2.18 and later).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Optional

from packaging.version import Version

from tfenv import rules
from tfenv.i18n import _, language
from tfenv.kb.prose import opt_prose, status_text
from tfenv.models.platform import is_linux_driver
from tfenv.models.require_cuda import HostFacts, RequireCuda, Verdict, evaluate
from tfenv.rules.model import TfCandidate

if TYPE_CHECKING:
    from dataclasses import dataclass

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.containers import NgcRelease, OfficialRelease
    from tfenv.kb.releases import TfOption
    from tfenv.kb.tensorflow import CudaBuild
    from tfenv.models.driver import DriverVersion
    from tfenv.models.target import Target
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "ContainerImage",
    "choose",
    "container_image",
    "gpu_brands",
    "host_facts",
    "is_datacenter",
    "mismatch",
    "ngc_gpu_support",
    "ngc_image",
    "require_text",
    "verdict",
    "wheels_run_on",
]

Family = Literal["official", "cuda-base", "ngc"]


@dataclass(frozen=True)
class ContainerImage:
    """The image a container plan runs, and what the host needs for it."""

    image: str  # "tensorflow/tensorflow:2.17.0-gpu"
    family: Family
    cuda: Optional[Version]  # CUDA inside the image (None: not recorded / the wheels')
    cudnn: Optional[Version]
    python: Optional[Version]  # None: the solver's choice (cuda-base) or not recorded
    min_driver: Optional[DriverVersion]  # the image's own driver requirement, if recorded
    source: str
    status: str  # of the facts about what is inside (established, inferred, ...)
    require: Optional[RequireCuda] = None  # its NVIDIA_REQUIRE_CUDA, if known
    require_status: str = "unknown"
    why: tuple[str, ...] = ()  # why this image (and not the official one)
    pip: tuple[str, ...] = ()  # what the Dockerfile installs with pip (cuda-base)
    way_out: Optional[str] = None  # NGC: "gpu-code" or "forward-compat"


def container_image(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """The image for ``opt`` on this host (see the module docstring)."""
    key = ("container-image", opt.package, str(opt.version), target, language())
    return kb.memo(key, lambda: choose(kb, opt, target))


def require_text(image: ContainerImage) -> str:
    """ "tensorflow/tensorflow:2.17.0-gpu's NVIDIA_REQUIRE_CUDA (inferred)"."""
    return _("{image}'s NVIDIA_REQUIRE_CUDA ({status})").format(
        image=image.image, status=image.require_status
    )


def choose(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """The image for ``opt`` on a Linux x86_64 (or WSL2) host, or None."""
    if target.platform.key != "linux_x86_64":
        return None
    python = target.python  # a Python asked for: an image with another one does not fit
    return (
        _with_python(ngc_image(kb, opt, target), python)
        or _with_python(_official(kb, opt), python)
        or _cuda_base(kb, opt, python)
    )


def _with_python(
    image: Optional[ContainerImage], python: Optional[Version]
) -> Optional[ContainerImage]:
    """``image`` unless a Python was asked for and the image carries another (or one not
    recorded): an image's Python cannot be chosen; a CUDA base image installs any."""
    if image is None or python is None or image.python == python:
        return image
    return None


# -- the official images --------------------------------------------------------------


def mismatch(
    cuda: Optional[Version],
    cudnn: Optional[Version],
    build: Optional[CudaBuild],
    version: Version,
) -> Optional[str]:
    """Why an image's CUDA/cuDNN do not fit a build (None: they fit).

    TensorFlow loads the CUDA libraries of its build's major version and checks that the
    loaded cuDNN has the same major and at least the minor it was compiled with.
    """
    if build is None or build.cuda is None or build.cudnn is None:
        return _("what TensorFlow {version} is built with is not recorded").format(version=version)
    if cuda is None or cudnn is None:
        return _("the CUDA and cuDNN inside it are not recorded")
    out = []
    for name, have, need in (("CUDA", cuda, build.cuda), ("cuDNN", cudnn, build.cudnn)):
        values = {"name": name, "have": have, "need": need, "version": version}
        if have.major != need.major:
            out.append(
                _("{name} {have} where TensorFlow {version} is built with {name} {need}").format(
                    **values
                )
            )
        elif have.minor < need.minor:
            out.append(
                _("{name} {have}, older than the {name} {need} TensorFlow {version} needs").format(
                    **values
                )
            )
    if not out:
        return None
    return _(
        "it carries {differences} (TensorFlow loads the libraries of its build's CUDA major and "
        "needs a cuDNN of the same major and at least the minor it was compiled with)"
    ).format(differences=_(", and ").join(out))


def _official(kb: KnowledgeBase, opt: TfOption) -> Optional[ContainerImage]:
    if opt.package not in ("tensorflow", "tensorflow-gpu"):
        return None
    official = kb.containers.official
    rec = official.release(opt.version)
    if rec is None or rec.status == "unknown":
        return None
    build = opt.build.linux if opt.build else None
    if mismatch(rec.cuda, rec.cudnn, build, opt.version) is not None:
        return None
    return ContainerImage(
        image=official.image(opt.version),
        family="official",
        cuda=rec.cuda,
        cudnn=rec.cudnn,
        python=rec.python,
        min_driver=None,
        source=rec.provenance.sources[0],
        status=rec.status,
        require=rec.require_cuda,
        require_status=rec.require_cuda_status,
    )


def _not_official(kb: KnowledgeBase, opt: TfOption, python: Optional[Version] = None) -> str:
    """Why the official image of ``opt`` is not used (the route takes a CUDA base instead);
    ``python``: the Python asked for."""
    official = kb.containers.official
    build = opt.build.linux if opt.build else None
    rec = official.release(opt.version)
    if rec is not None:
        return _("{refusal}.").format(
            refusal=_refusal(official.image(opt.version), rec, build, opt.version, python)
        )
    text = _("No official image of TensorFlow {version} is recorded").format(version=opt.version)
    for other in kb.containers.official.series(opt.version):
        spec = next(iter(other.versions))
        if spec.operator != "==" or "*" in spec.version:
            continue
        image = official.image(Version(spec.version))
        fits = mismatch(other.cuda, other.cudnn, build, Version(spec.version))
        if other.status == "unknown":
            more = _("{image} exists, its contents are not known").format(image=image)
        elif fits is None:
            more = _(
                "{image} carries TensorFlow {version} (the container plan of TensorFlow "
                "{version} uses it)"
            ).format(image=image, version=spec.version)
        else:
            more = _("the series' image {image} is not used either: {why}").format(
                image=image, why=fits
            )
        text = _("{text}; {more}").format(text=text, more=more)
    return _("{text}.").format(text=text)


def _refusal(
    image: str,
    rec: OfficialRelease,
    build: Optional[CudaBuild],
    version: Version,
    python: Optional[Version] = None,
) -> str:
    if rec.status != "unknown" and mismatch(rec.cuda, rec.cudnn, build, version) is None:
        return _(
            "The official image {image} is not used: it carries Python {have}, and Python "
            "{python} was asked for ({status}; {sources})"
        ).format(
            image=image,
            have=rec.python or _("(not recorded)"),
            python=python,
            status=status_text(rec.status),
            sources="; ".join(rec.provenance.sources),
        )
    if rec.status == "unknown":
        return _(
            "The official image {image} is not used: what it carries is not known ({note})"
        ).format(image=image, note=opt_prose(rec, "note"))
    why = mismatch(rec.cuda, rec.cudnn, build, version)
    return _("The official image {image} does not work: {why} ({status}; {sources})").format(
        image=image,
        why=why,
        status=status_text(rec.status),
        sources="; ".join(rec.provenance.sources),
    )


# -- NVIDIA's CUDA base images, with Python and tensorflow[and-cuda] ------------------


def _cuda_base(
    kb: KnowledgeBase, opt: TfOption, python: Optional[Version] = None
) -> Optional[ContainerImage]:
    if opt.package != "tensorflow":
        return None
    build = opt.build.linux if opt.build else None
    if build is None or build.cuda is None:
        return None
    base = kb.containers.cuda_base(build.cuda)
    specs = _pip_specs(kb, opt)
    if base is None or specs is None:
        return None
    what = (
        specs[0]
        if len(specs) == 1
        else _("{spec} with its and-cuda extra's CUDA wheels").format(spec=specs[0])
    )
    instead = _(
        "Instead: {image}, NVIDIA's CUDA {cuda} base image (only the CUDA runtime; "
        "{source}), with a Python from the deadsnakes PPA (as "
        "tensorflow/build's Dockerfiles install it) and {what}, which bring CUDA "
        "{cuda} and cuDNN {cudnn}; the Dockerfile that --emit "
        "writes installs the project's hashed lock with --require-hashes when there is one."
    ).format(
        image=base.image,
        cuda=build.cuda,
        source=base.provenance.sources[0],
        what=what,
        cudnn=build.cudnn or _("of the build"),
    )
    if len(specs) > 1:
        instead = _(
            "{text} Not tensorflow[and-cuda]=={version} itself: its extra also pins TensorRT "
            "(unresolvable or without wheels for every Python), which TensorFlow loads only "
            "for its optional TF-TRT integration; the other pins are installed as listed."
        ).format(text=instead, version=opt.version)
    return ContainerImage(
        image=base.image,
        family="cuda-base",
        cuda=build.cuda,
        cudnn=build.cudnn,
        python=None,
        min_driver=None,
        source=base.provenance.sources[0],
        status=base.status,
        require=base.require_cuda,
        require_status=base.status,
        why=(_not_official(kb, opt, python), instead),
        pip=specs,
    )


def _pip_specs(kb: KnowledgeBase, opt: TfOption) -> Optional[tuple[str, ...]]:
    """What pip installs: ``tensorflow[and-cuda]==V``; where the extra pins TensorRT (2.14,
    2.15.0), ``tensorflow==V`` and the extra's other pins. None where those do not install."""
    extra = opt.wheels.and_cuda if opt.wheels else None
    if extra is None:
        return None
    names = [_name(line) for line in extra]
    if not any(n.startswith("tensorrt") for n in names):
        return None if opt.and_cuda_problem else (f"tensorflow[and-cuda]=={opt.version}",)
    kept = tuple(line for line, n in zip(extra, names) if not n.startswith("tensorrt"))
    if any(not _installable(kb, line) for line in kept):
        return None
    return (f"tensorflow=={opt.version}", *kept)


def _name(line: str) -> str:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        return Requirement(line).name.lower()
    except InvalidRequirement:
        return line


def _installable(kb: KnowledgeBase, line: str) -> bool:
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        req = Requirement(line)
    except InvalidRequirement:
        return False
    known = kb.cuda_index.cuda_versions(req.name)
    return not known or any(
        "linux_x86_64" in w.platforms and not w.yanked and req.specifier.contains(w.version, True)
        for w in known
    )


# -- NGC ----------------------------------------------------------------------------


def wheels_run_on(kb: KnowledgeBase, opt: TfOption, target: Target) -> bool:
    """Whether the official wheels of ``opt`` have code the target GPU can load.

    Asked of the GPU-code rule, so this follows whatever that rule decides.
    """
    candidate = TfCandidate("tensorflow", f"{opt.package}=={opt.version}/cuda", "", 0, opt, "cuda")
    ctx = rules.Context(kb, target)
    return not rules.failures(ctx, candidate, kinds=("gpu-code",), pinned=False)


def cudnn_runs_on(kb: KnowledgeBase, opt: TfOption, target: Target) -> bool:
    """Whether the cuDNN the official wheels of ``opt`` are built with (or a later one of
    its major) has code for the target GPU: asked of the cudnn-arch rule."""
    candidate = TfCandidate("tensorflow", f"{opt.package}=={opt.version}/cuda", "", 0, opt, "cuda")
    ctx = rules.Context(kb, target)
    return not rules.failures(ctx, candidate, kinds=("cudnn-arch",), pinned=False)


def ngc_cudnn_runs(kb: KnowledgeBase, rel: NgcRelease, cc: Version) -> bool:
    """Whether the cuDNN inside an NGC release runs on a GPU of capability ``cc``: listed
    natively, or in cuDNN's forward-compatibility mode (rules/cudnn_arch.py)."""
    from packaging.version import Version as V

    from tfenv.rules.cudnn_arch import cudnn_on_gpu

    if rel.cudnn is None or rel.cuda is None:
        return False
    series = V(f"{rel.cudnn.major}.{rel.cudnn.minor}")
    found = cudnn_on_gpu(kb, series, rel.cuda, cc)
    if found is None:
        return False
    if found.verdict in ("native", "jit"):
        return True
    fc = kb.cudnn.forward_compat  # not established natively: forward compatible anyway?
    return found.verdict == "unknown" and fc is not None and fc.covers(series, rel.cuda)


def ngc_gpu_support(kb: KnowledgeBase, rel: NgcRelease, cc: Version) -> tuple[Optional[bool], str]:
    """Whether an NGC release supports a GPU of capability ``cc``, and how that is known.

    The release notes' range where they state it; else the range of the CUDA inside
    (what that toolkit can target): inferred.
    """
    lo, hi, how = rel.cc_min, rel.cc_max, _("stated in the release notes")
    if lo is None or hi is None:
        toolkit = kb.cuda.toolkit(rel.cuda) if rel.cuda else None
        lo = lo if lo is not None else (toolkit.cc_min if toolkit else None)
        hi = hi if hi is not None else (toolkit.cc_max if toolkit else None)
        how = _(
            "inferred: the release notes' GPU range was not read; CUDA {cuda} inside "
            "targets compute capability {lo} to {hi}"
        ).format(cuda=rel.cuda, lo=lo, hi=hi)
    if lo is None or hi is None:
        return None, _("not known")
    return lo <= cc <= hi, how


def ngc_image(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """An NGC image of ``opt`` that is this host's way out, or None."""
    gpu_ok = target.cc is None or target.driver_os is None or wheels_run_on(kb, opt, target)
    if not gpu_ok and target.cc is not None:
        for rel in kb.containers.ngc_for(opt.version):
            ok, how = ngc_gpu_support(kb, rel, target.cc)
            if ok:
                why = _(
                    "TensorFlow {version}'s official wheels have no code this GPU "
                    "(compute capability {cc}) can load; NVIDIA's NGC build of it in "
                    "{image} supports it ({how})."
                ).format(version=opt.version, cc=target.cc, image=rel.image, how=how)
                return _ngc(rel, "gpu-code", why)
    return _forward_compat(kb, opt, target)


def _forward_compat(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """Only when the official image does not run on the host's driver: forward
    compatibility is a way out, never a preference."""
    if (
        target.driver is None
        or not is_linux_driver(target.driver_os)
        or not is_datacenter(kb, target)
    ):
        return None
    cuda = opt.build.linux.cuda if opt.build and opt.build.linux else None
    floor = kb.cuda.driver_floor(cuda, "linux")[0] if cuda else None
    if floor is not None and target.driver >= floor:
        return None
    for rel in kb.containers.ngc_for(opt.version):
        supported = ngc_gpu_support(kb, rel, target.cc)[0] if target.cc else None
        if supported is False:
            continue
        if not rel.driver_ok(target.driver) and rel.forward_compatible(target.driver):
            return _ngc(rel, "forward-compat", "")
    return None


def _ngc(rel: NgcRelease, way_out: str, why: str) -> ContainerImage:
    return ContainerImage(
        image=rel.image,
        family="ngc",
        cuda=rel.cuda,
        cudnn=rel.cudnn,
        python=rel.python,
        min_driver=rel.min_driver,
        source=rel.provenance.sources[0],
        status=rel.status,
        why=(why,) if why else (),
        way_out=way_out,
    )


def is_datacenter(kb: KnowledgeBase, target: Target) -> bool:
    """Whether the target GPU is a data-center model (forward compatibility needs one)."""
    return _segment(kb, target) == "datacenter"


def _segment(kb: KnowledgeBase, target: Target) -> Optional[str]:
    if target.gpu_name is None:
        return None
    found = kb.gpus.find(target.gpu_name)
    return found.segment if found is not None else None


# -- NVIDIA_REQUIRE_CUDA against the host ---------------------------------------------


def gpu_brands(kb: KnowledgeBase, target: Target) -> Optional[frozenset[str]]:
    """The brand names nvidia-container-cli may report for the target GPU (None: unknown)."""
    segment = _segment(kb, target)
    return kb.containers.gpu_brands.for_segment(segment) if segment else None


def host_facts(kb: KnowledgeBase, target: Target, driver: Optional[Version]) -> HostFacts:
    """What nvidia-container-cli reads on this host, from the target's facts."""
    return HostFacts(
        driver=driver,
        cuda=kb.cuda.max_cuda_for_driver(driver) if driver is not None else None,
        brands=gpu_brands(kb, target),
        arch=target.cc,
    )


def verdict(
    kb: KnowledgeBase, clause: RequireCuda, target: Target, driver: Optional[Version]
) -> Verdict:
    """Whether nvidia-container-cli starts an image with ``clause`` on this host."""
    return evaluate(clause, host_facts(kb, target, driver))
