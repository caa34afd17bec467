"""``container``: TensorFlow in an image that carries CUDA and cuDNN (only on request).

The host needs only the NVIDIA driver and the NVIDIA Container Toolkit. Which image a
release gets is decided in :mod:`tfenv.rules.container_images`: the official
``tensorflow/tensorflow:<v>-gpu`` image where its CUDA/cuDNN match the release, else
NVIDIA's CUDA base image with Python and ``tensorflow[and-cuda]`` installed by the
Dockerfile, and NVIDIA's NGC image where it is the host's way out. Whether the host can
start the image is decided by its ``NVIDIA_REQUIRE_CUDA`` (the ``image-driver`` rule);
the plan quotes the term that decides.

A container plan with ``pip`` packages runs on a bare CUDA base image: the Dockerfile
installs its Python (the plan's) and those packages (or the hashed lock).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tfenv.i18n import N_, _
from tfenv.kb.prose import status_text
from tfenv.models.sentence import Sentence, coded, said
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where

# The image choice (tfenv.rules.container_images) is imported where it is used: this
# route is asked only with --manager container, and every resolve imports this module.
if TYPE_CHECKING:
    from dataclasses import replace

    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.containers import NgcRelease
    from tfenv.kb.releases import TfOption
    from tfenv.models.require_cuda import Verdict
    from tfenv.models.target import Request, Target
    from tfenv.rules.container_images import ContainerImage
else:  # without importing dataclasses (see tfenv.models._record)
    from tfenv.models._record import replace

__all__ = [
    "SMOKE_TEST",
    "ContainerRoute",
    "container_ngc",
    "container_view",
    "docker_run",
    "newer_cuda_image",
    "ngc_cudnn_way_outs",
    "ngc_gpu_way_outs",
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
    the image brings its own glibc, and its own Python unless one was asked for (``--python``
    or a host file's: the image must then carry it, or install it). The Python detected on
    this machine does not matter to an image."""
    os_name = "wsl2" if target.system.is_windows else target.os
    python = None if "python" in target.detected else target.python
    return replace(target, os=os_name, python=python, glibc=None)


def _image(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    from tfenv.rules.container_images import container_image

    return container_image(kb, opt, target)


def _require_text(image: ContainerImage) -> str:
    from tfenv.rules.container_images import require_text

    return require_text(image)


def container_ngc(kb: KnowledgeBase, opt: TfOption, target: Target) -> Optional[ContainerImage]:
    """NVIDIA's NGC image of ``opt`` where it is this host's way out (GPU code the
    official wheels lack, or CUDA forward compatibility on a data-center GPU)."""
    from tfenv.rules.container_images import ngc_image

    if target.platform.key != "linux_x86_64":
        return None
    return ngc_image(kb, opt, target)


def ngc_gpu_way_outs(
    kb: KnowledgeBase, target: Target, wanted: SpecifierSet
) -> tuple[tuple[NgcRelease, str], ...]:
    """NGC releases (and how their GPU support is known) that run TensorFlow on this GPU
    where the official wheels cannot, when some release in ``wanted`` lacks code for it too."""
    from tfenv.kb.releases import tf_options
    from tfenv.rules.container_images import ngc_gpu_support, wheels_run_on

    if target.cc is None or target.platform.key != "linux_x86_64":
        return ()
    options = tf_options(kb, "tensorflow", target.platform.key)
    requested = [o for o in options if wanted.contains(o.version) and o.build is not None]
    if all(wheels_run_on(kb, o, target) for o in requested):
        return ()
    out = []
    for rel in kb.containers.ngc:
        opt = next((o for o in options if o.version == rel.tensorflow), None)
        image = container_ngc(kb, opt, target) if opt is not None else None
        if image is not None and image.way_out == "gpu-code":
            out.append((rel, ngc_gpu_support(kb, rel, target.cc)[1]))
    return tuple(out)


def ngc_cudnn_way_outs(
    kb: KnowledgeBase, target: Target, wanted: SpecifierSet
) -> tuple[tuple[NgcRelease, str], ...]:
    """NGC releases whose cuDNN runs on this GPU and whose CUDA targets it (with how that
    is known), where the cuDNN of every release in ``wanted`` has no code for it (the
    cudnn-arch rule: no pip or conda route can install one that has)."""
    from tfenv.kb.releases import tf_options
    from tfenv.rules.container_images import cudnn_runs_on, ngc_cudnn_runs, ngc_gpu_support

    if target.cc is None or target.platform.key != "linux_x86_64":
        return ()
    options = tf_options(kb, "tensorflow", target.platform.key)
    requested = [o for o in options if wanted.contains(o.version) and o.build is not None]
    if not requested or any(cudnn_runs_on(kb, o, target) for o in requested):
        return ()
    out = []
    for rel in kb.containers.ngc:
        if rel.tensorflow is None or not ngc_cudnn_runs(kb, rel, target.cc):
            continue
        ok, how = ngc_gpu_support(kb, rel, target.cc)
        if ok:  # its CUDA does not predate the GPU
            out.append((rel, how))
    return tuple(out)


def _later_cudnn_problem(where: Where, image: ContainerImage) -> Optional[str]:
    """An image carries its own cuDNN: where it has no code for the GPU and only a later
    cuDNN of its major has (rules/cudnn_arch.later_cudnn), the image is no plan (its cuDNN
    cannot be chosen; a route that installs cuDNN itself can take the later one)."""
    from packaging.version import Version

    from tfenv.rules.cudnn_arch import later_cudnn

    t = where.target
    if image.cudnn is None or image.cuda is None or not t.has_nvidia_gpu:
        return None
    series = Version(f"{image.cudnn.major}.{image.cudnn.minor}")
    later = later_cudnn(where.kb, series, image.cuda, t.cc)
    if later is None:
        return None
    return _(
        "{image} carries cuDNN {cudnn}, which has no code for compute capability {cc}; "
        "cuDNN {newer} has, and an image's cuDNN cannot be chosen"
    ).format(image=image.image, cudnn=series, cc=t.cc, newer=later.newer)


class ContainerRoute(Route):
    name = "container"
    why = N_(
        "TensorFlow in a container image that carries CUDA and cuDNN; the host needs only "
        "the NVIDIA driver and the NVIDIA Container Toolkit"
    )
    accelerators = frozenset({"cuda"})
    managers = ("container",)
    remedies = frozenset({"pin-cuda-wheels"})  # a CUDA base image's pinned wheels (_pinned)
    on_request_only = True
    emits = ("dockerfile", "devcontainer")
    in_image = True

    def view(self, target: Target) -> Target:
        return container_view(target)

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        image = _image(where.kb, option, where.target)
        if image is None:
            return _("no container image of TensorFlow {version} runs on this host").format(
                version=option.version
            )
        return _later_cudnn_problem(where, image)

    def waives(self, where: Where, option: TfOption) -> frozenset[str]:
        """What an NGC image makes moot: the driver the wheels' PTX needs to JIT (its own
        build is not the wheel), and either the wheels' GPU code (its build has code for the
        GPU) or the driver floor (its forward-compatibility package)."""
        image = _image(where.kb, option, where.target)
        if image is None or image.family != "ngc":
            return frozenset()
        return frozenset({"jit-driver", "gpu-code" if image.way_out == "gpu-code" else "driver"})

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        kb, target, opt = where.kb, where.target, choice.option
        image = _image(kb, opt, target)
        if image is None:  # problem() said so before the solver picked this route
            return Delivery(None, choice.cuda, choice.cudnn, Packages())
        python = image.python if image.family != "cuda-base" else choice.python
        cuda, cudnn = (image.cuda, image.cudnn) if image.cuda else (choice.cuda, choice.cudnn)
        clause_reasons, clause_warnings = _clause(kb, image, target)
        pip, pin_reasons, remedies = _pinned(where, choice, image, python)
        return Delivery(
            python,
            cuda,
            cudnn,
            _packages(image, python, pip),
            reasons=(
                *(
                    coded("image", r, image=image.image)
                    for r in _reasons(kb, opt, image, python, target.python is not None)
                ),
                *pin_reasons,
                *(coded("image-runs", r, image=image.image) for r in clause_reasons),
            ),
            warnings=(
                *(
                    coded("image-warning", w, image=image.image)
                    for w in _warnings(kb, target, image)
                ),
                *(coded("image-runs", w, image=image.image) for w in clause_warnings),
                *_pip_issues(opt, image, remedies),
            ),
            image=image.image,
            says_build=image.family != "ngc",
            python_reason=False,
            remedies=remedies,
            verify=_verify(image),
        )

    def host_needs(self, where: Where, floor: Optional[Version]) -> tuple[str, ...]:
        """What the host must have: its driver, the container toolkit (per OS)."""
        target = where.target
        needs = list(where.kb.containers.host.for_system(target.system))
        if floor is not None:
            need = (
                _("NVIDIA driver >= {floor}")
                if target.system.is_linux
                else _("Windows NVIDIA driver >= {floor}")
            )
            needs.insert(0, need.format(floor=floor))
        return tuple(needs)


def _verify(image: ContainerImage) -> str:
    """The plan's Verify step: the image (or the one the Dockerfile builds) sees the GPU."""
    smoke = f'python -c "{SMOKE_TEST}"'
    return docker_run(image.image if image.family != "cuda-base" else "tfenv-app", smoke)


def _packages(image: ContainerImage, python: Optional[Version], pip: tuple[str, ...]) -> Packages:
    from tfenv.routes.base import pip_install

    if image.family != "cuda-base":
        return Packages(commands=(f"docker pull {image.image}",))
    return Packages(
        pip=pip,
        commands=(
            f"docker pull {image.image}",
            f"docker build -t tfenv-app .  # the Dockerfile --emit writes: Python {python}, "
            f"then {pip_install(*pip)} (or the hashed lock)",
        ),
    )


def _reasons(
    kb: KnowledgeBase,
    opt: TfOption,
    image: ContainerImage,
    python: Optional[Version],
    asked: bool = False,
) -> tuple[str, ...]:
    """Why this image; ``asked``: the Python was asked for (the view kept it)."""
    if image.family == "cuda-base" and asked:
        return (
            *image.why,
            _("Python {python}: installed in the image, the Python asked for.").format(
                python=python
            ),
        )
    if image.family == "cuda-base":
        return (
            *image.why,
            _(
                "Python {python}: installed in the image; the newest Python "
                "TensorFlow {version} has wheels for (the host's Python does not matter)."
            ).format(python=python or _("unknown"), version=opt.version),
        )
    which = (
        _("NVIDIA's NGC TensorFlow container") if image.family == "ngc" else _("the official image")
    )
    out = [
        _("Image {image}: {which} for TensorFlow {version} ({status}; source: {source}).").format(
            image=image.image,
            which=which,
            version=opt.version,
            status=status_text(image.status),
            source=image.source,
        ),
        *image.why,
    ]
    if image.cuda is None:
        out.append(
            _("CUDA inside the image: not recorded ({status}).").format(
                status=status_text(image.status)
            )
        )
    else:
        out.append(
            _("CUDA {cuda} and cuDNN {cudnn} inside the image.").format(
                cuda=image.cuda, cudnn=image.cudnn or _("unknown")
            )
        )
    py = f"Python {image.python}" if image.python else _("its Python (version not recorded)")
    if asked:
        out.append(_("Python: the image's own, {python}, the Python asked for.").format(python=py))
    else:
        out.append(
            _("Python: the image's own, {python}; the host's Python does not matter.").format(
                python=py
            )
        )
    if image.family == "ngc":
        out += _ngc_notes(kb, image)
    return tuple(out)


def _ngc_notes(kb: KnowledgeBase, image: ContainerImage) -> list[str]:
    last = kb.containers.ngc_last
    if last.release is None:
        return []
    values = {
        "release": last.release,
        "status": status_text(last.status),
        "source": last.provenance.sources[0],
    }
    if last.notice:
        return [
            _(
                'NGC {release} is the last NVIDIA TensorFlow container ("{notice}") ({status}; '
                "{source}): no newer NGC TensorFlow will follow."
            ).format(notice=last.notice.strip(), **values)
        ]
    return [
        _(
            "NGC {release} is the last NVIDIA TensorFlow container ({status}; "
            "{source}): no newer NGC TensorFlow will follow."
        ).format(**values)
    ]


def _pinned(
    where: Where, choice: Choice, image: ContainerImage, python: Optional[Version]
) -> tuple[tuple[str, ...], tuple[Sentence, ...], frozenset[str]]:
    """(pip specs, reasons, remedies) of a CUDA base image: where the and-cuda extra gives
    ranges, the CUDA wheels the plan names are pinned on the install line, as the pip
    route pins them (see :mod:`tfenv.routes.pip`)."""
    from tfenv.routes.pip import pin_reasons, wheels_for

    if image.family != "cuda-base":
        return image.pip, (), frozenset()  # the image's own TensorFlow and packages
    extra = f"tensorflow[and-cuda]=={choice.option.version}"
    unpinned = (*image.pip, *choice.runtime)
    if image.pip != (extra,):
        return unpinned, (), frozenset()
    found = wheels_for(where, choice.option, python)
    if found is None or found.problem or not found.ranged or found.dropped:
        return unpinned, (), frozenset()
    pins = tuple(str(p) for p in found.pins)
    reasons = pin_reasons(choice.option, replace(choice, python=python), found)
    return (extra, *pins, *choice.runtime), reasons, ContainerRoute.remedies


def _pip_issues(
    opt: TfOption, image: ContainerImage, remedies: frozenset[str]
) -> tuple[Sentence, ...]:
    """On a CUDA base image TensorFlow is installed with pip: the pip route's traps apply,
    except the and-cuda extra's when the image installs its pins without the extra, and
    those a remedy the plan applies takes care of."""
    if image.family != "cuda-base":
        return ()
    without_extra = not any("[and-cuda]" in p for p in image.pip)
    return tuple(
        said(
            "known-issue",
            _("{issue} ({source})"),
            issue=i.text_for(),
            source=i.provenance.sources[0],
            id=i.id,
        )
        for i in opt.issues
        if i.concerns("pip")
        and not i.concerns("container")
        and not (without_extra and i.id.startswith("and-cuda"))
        and (i.remedy is None or i.remedy not in remedies)
    )


def _warnings(kb: KnowledgeBase, target: Target, image: ContainerImage) -> tuple[str, ...]:
    out = []
    if image.way_out == "forward-compat" and target.driver is not None and image.min_driver:
        out.append(
            _(
                "Driver {driver} is below what {image} requires "
                "({floor}): it runs only through CUDA forward "
                "compatibility, which NVIDIA supports on data-center GPUs under Linux; "
                "upgrade the driver for any other GPU."
            ).format(driver=target.driver, image=image.image, floor=image.min_driver)
        )
    if image.family == "ngc" and image.min_driver is None:
        out.append(
            _(
                "The driver {image} requires is not known from NVIDIA's release notes "
                "({status}): check them before relying on an older driver."
            ).format(image=image.image, status=status_text(image.status))
        )
    if target.system.is_wsl2:
        out.append(
            _(
                "On Windows the container runs through WSL2: use Docker Desktop with the WSL2 "
                "backend (or Docker Engine with the NVIDIA Container Toolkit inside the WSL2 "
                "distribution); the Windows NVIDIA driver serves the GPU."
            )
        )
    return tuple(out)


def _clause(
    kb: KnowledgeBase, image: ContainerImage, target: Target
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(reasons, warnings) about whether nvidia-container-cli starts the image here."""
    from tfenv.rules.container_images import verdict

    if image.require is None:
        return (
            _(
                "{image}'s NVIDIA_REQUIRE_CUDA: not recorded ({status}); "
                "the host driver floor comes from the CUDA inside."
            ).format(image=image.image, status=image.require_status),
        ), ()
    found = verdict(kb, image.require, target, target.driver)
    if found.admits is True:
        return (_admits(kb, image, target, found),), ()
    return (), (_undecided(image, target, found),)


def _admits(kb: KnowledgeBase, image: ContainerImage, target: Target, found: Verdict) -> str:
    cuda = kb.cuda.max_cuda_for_driver(target.driver) if target.driver else None
    term = f"`{found.term}`" if found.term else _("an empty clause")
    values = {"clause": _require_text(image), "driver": target.driver, "term": term}
    if cuda:
        text = _(
            "nvidia-container-cli starts it: {clause} admits driver {driver}, which reports "
            "CUDA {cuda}, through {term}"
        ).format(cuda=cuda, **values)
    else:
        text = _(
            "nvidia-container-cli starts it: {clause} admits driver {driver}, through {term}"
        ).format(**values)
    if found.term is not None and found.term.branch is not None:
        floor = image.require.cuda_floor if image.require else None
        if floor:
            text = _("{text} (below cuda>={floor}): a listed driver branch").format(
                text=text, floor=floor
            )
        else:
            text = _("{text}: a listed driver branch").format(text=text)
        if found.admitted:
            text = _("{text}, for every brand {gpu} may report ({brands})").format(
                text=text, gpu=target.gpu_name or _("the GPU"), brands=", ".join(found.admitted)
            )
    return _("{text}.").format(text=text)


def _undecided(image: ContainerImage, target: Target, found: Verdict) -> str:
    values = {
        "image": image.image,
        "clause": f"{_require_text(image)}: {found.clause.describe()}",
    }
    if target.driver is None:
        return _(
            "Whether nvidia-container-cli starts {image} is not known: the driver is not known; "
            "{clause}."
        ).format(**values)
    if found.admits is False:
        return _("nvidia-container-cli refuses to start {image}: {refusal}; {clause}.").format(
            refusal=found.refusal, **values
        )
    if found.admitted or found.refused:
        return _(
            "Whether nvidia-container-cli starts {image} is not known (it depends on the GPU's "
            "brand): it admits driver {driver} if the GPU reports brand {admitted}, not if it "
            "reports {refused}; {clause}."
        ).format(
            driver=target.driver,
            admitted=_(" or ").join(found.admitted) or _("(none)"),
            refused=_(" or ").join(found.refused) or _("(none)"),
            **values,
        )
    if target.gpu_name:
        return _(
            "Whether nvidia-container-cli starts {image} is not known (it depends on the GPU's "
            "brand): {clause}."
        ).format(**values)
    return _(
        "Whether nvidia-container-cli starts {image} is not known (it depends on the GPU's "
        "brand): the GPU's brand is not known (name the GPU with --gpu); {clause}."
    ).format(**values)


def newer_cuda_image(kb: KnowledgeBase, target: Target, request: Request) -> Optional[str]:
    """For a plan whose CUDA predates the GPU: the newest NGC image whose CUDA targets it, with
    its TensorFlow and CUDA and what is (not) known of its GPU code, as an alternative (and
    the ``tfenv resolve`` line that plans it: ``request`` under --manager container)."""
    from packaging.specifiers import SpecifierSet

    from tfenv.models._record import replace
    from tfenv.rerun import line_for
    from tfenv.rules.container_images import ngc_gpu_support

    if target.cc is None or (target.platform.key != "linux_x86_64" and not target.system.is_wsl2):
        return None
    for rel in kb.containers.ngc:
        ok, how = ngc_gpu_support(kb, rel, target.cc)
        if not ok or rel.cuda is None:
            continue
        tf = f"TensorFlow {rel.tensorflow}" if rel.tensorflow else _("a TensorFlow not recorded")
        asked = replace(request, manager="container")
        if rel.tensorflow:
            pinned = str(rel.tensorflow)
            asked = replace(asked, tf=SpecifierSet(f"=={pinned}"), tf_text=pinned)
        return _(
            "Alternative: NVIDIA's NGC image {image} ({tf}, CUDA {cuda}, facts "
            "{status}) has a CUDA that targets compute capability {cc} ({how}); "
            "whether its TensorFlow carries native kernels for this GPU is not established "
            "(`{command}`; {source})."
        ).format(
            image=rel.image,
            tf=tf,
            cuda=rel.cuda,
            status=status_text(rel.status),
            cc=target.cc,
            how=how,
            command=line_for(target, asked),
            source=rel.provenance.sources[0].split(" ", 1)[0],
        )
    return None
