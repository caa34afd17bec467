"""``conda``: a conda-forge TensorFlow CUDA build, pinned by build string and cuda-version.

Everything about the build comes from the conda facts (``data/conda.yaml``: the
feedstock's recipe per version): which versions conda-forge has, their CUDA variants and
cuDNN pins, and the Pythons the CUDA builds were made for. Where a fact is not recorded
the plan says it is unknown; the Pythons of TensorFlow's own wheels are never used here.
The commands create a named environment instead of installing into the active one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import N_, _
from tfenv.kb.prose import opt_prose
from tfenv.models.sentence import Sentence, said
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where
from tfenv.routes.conda_steps import conda_guide, conda_steps
from tfenv.shells import Shell, command, shell_for

if TYPE_CHECKING:
    from dataclasses import dataclass

    from packaging.specifiers import SpecifierSet

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.conda import CondaCpuBuild, CondaTfBuild, CondaTfVariant
    from tfenv.kb.cudnn import CudnnSeries
    from tfenv.kb.releases import TfOption
    from tfenv.models.plan import Plan
    from tfenv.models.target import Target
    from tfenv.routes.base import GuideStep

if not TYPE_CHECKING:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "CondaCpuOffer",
    "CondaRoute",
    "conda_create",
    "conda_env_name",
    "conda_forge_build",
    "conda_forge_cpu",
    "conda_match",
    "conda_variant",
]


def conda_forge_build(
    kb: KnowledgeBase, version: Version, target: Target
) -> Optional[CondaTfBuild]:
    """The conda-forge TensorFlow CUDA builds of ``version`` for the target (linux-64 only)."""
    if target.platform.conda_subdir != "linux-64":
        return None
    return kb.conda.conda_forge_build(version)


@dataclass(frozen=True)
class CondaCpuOffer:
    """conda-forge's CPU-only TensorFlow for a platform the wheels no longer serve."""

    version: Version
    python: Version
    pythons: str  # "3.10-3.12"
    builds: str  # "0, 1, 2"
    macos: Optional[Version]
    source: str
    command: str  # conda create ...
    activate: str


def conda_forge_cpu(
    kb: KnowledgeBase,
    target: Target,
    wanted: Optional[SpecifierSet] = None,
    newer_than: Optional[Version] = None,
) -> Optional[CondaCpuOffer]:
    """The newest recorded conda-forge CPU-only build for the target's conda subdir that
    ``wanted`` allows, newer than ``newer_than`` and built for the target's Python (if
    fixed); None where conda-forge has none (only osx-64 is recorded: its builds after
    the last Intel-Mac wheel)."""
    found: Optional[tuple[CondaTfBuild, CondaCpuBuild]] = None
    for build, cpu in kb.conda.cpu_builds(target.platform.conda_subdir):
        if wanted is not None and not wanted.contains(build.version, prereleases=True):
            continue
        if newer_than is not None and build.version <= newer_than:
            continue
        if target.python is not None and target.python not in cpu.python:
            continue
        if found is None or (build.version, max(cpu.builds)) >= (
            found[0].version,
            max(found[1].builds),
        ):
            found = (build, cpu)
    if found is None:
        return None
    build, cpu = found
    python = target.python or max(cpu.python)
    name = conda_env_name(build.version)
    specs = (f"python={python}", f"tensorflow={build.version}=cpu_*")
    create, activate = conda_create(name, specs, shell_for(target.os))
    return CondaCpuOffer(
        build.version,
        python,
        _span(cpu.python),
        ", ".join(map(str, cpu.builds)),
        cpu.macos,
        cpu.provenance.sources[0],
        create,
        activate,
    )


def conda_variant(kb: KnowledgeBase, version: Version, target: Target) -> Optional[CondaTfVariant]:
    """The conda-forge CUDA variant to pin: the newest, not called broken, whose major the
    driver supports (conda-forge's ``cuda-version X.Y`` needs ``__cuda >= X``); with the
    driver unknown, the newest variant (and the plan says the driver is unknown)."""
    build = conda_forge_build(kb, version, target)
    if build is None or not build.cuda:
        return None
    top = kb.cuda.max_cuda_for_driver(target.driver) if target.driver else None
    usable = [v for v in build.cuda if top is None or v.major <= top.major]
    return build.variant(max(usable)) if usable else None


def conda_match(available: tuple[Version, ...], want: Version) -> Optional[Version]:
    """The newest conda package version in ``want``'s major.minor series."""
    same = [v for v in available if (v.major, v.minor) == (want.major, want.minor)]
    return max(same) if same else None


def conda_env_name(version: object) -> str:
    """The environment a conda plan creates: ``tf-2.19.1``."""
    return f"tf-{version}"


def conda_create(name: str, specs: tuple[str, ...], shell: Shell = "posix") -> tuple[str, str]:
    """Create the named environment from conda-forge only, then activate it (each word
    written for the target's shell)."""
    create = ["conda", "create", "-n", name, "-c", "conda-forge", "--override-channels"]
    return (command([*create, *specs], shell), command(["conda", "activate", name], shell))


def _span(versions: tuple[Version, ...]) -> str:
    lo, hi = min(versions), max(versions)
    return str(lo) if lo == hi else f"{lo}-{hi}"


class CondaRoute(Route):
    name = "conda"
    why = N_("a conda-forge TensorFlow CUDA build, pinned by build string and cuda-version")
    accelerators = frozenset({"cuda"})
    managers = ("auto", "conda")
    locker = "conda"
    emits = ("environment", "activation", "install-guide")

    def guide(self, plan: Plan, target: Target) -> tuple[GuideStep, ...]:
        return conda_guide(plan, target)

    def waives(self, where: Where, option: TfOption) -> frozenset[str]:
        """conda-forge's TensorFlow is its own build, not the wheel: which Pythons it serves
        comes from the recipe (:meth:`problem` checks it), glibc from conda's ``__glibc``."""
        return frozenset({"python", "glibc"})

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        kb, target, v = where.kb, where.target, option.version
        if target.platform.conda_subdir != "linux-64":
            return _("conda-forge builds TensorFlow with CUDA for linux-64 only")
        build = conda_forge_build(kb, v, target)
        if build is None:
            newest = kb.conda.tf_newest
            if v > newest:
                return _("conda-forge has no TensorFlow {version} (its newest is {newest})").format(
                    version=v, newest=newest
                )
            return _("conda-forge has no TensorFlow {version} CUDA build").format(version=v)
        variant = conda_variant(kb, v, target)
        if variant is None:
            cudas = ", ".join(str(c) for c in build.cuda) or _("none usable")
            return _(
                "conda-forge's TensorFlow {version} CUDA builds ({cudas}) need a newer driver "
                "than this machine's"
            ).format(version=v, cudas=cudas)
        py = target.python
        if py is not None and variant.python is not None and py not in variant.python:
            return _(
                "conda-forge built TensorFlow {version} with CUDA {cuda} for Python "
                "{pythons}, not {python}"
            ).format(version=v, cuda=variant.cuda, pythons=_span(variant.python), python=py)
        return None

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        kb, target, opt = where.kb, where.target, choice.option
        build = conda_forge_build(kb, opt.version, target)
        variant = conda_variant(kb, opt.version, target)
        if build is None or variant is None:  # problem() said so before the solver picked it
            return Delivery(None, None, None, Packages(), python_reason=False)
        python, python_why = _python(target, choice.python, variant, opt.version)
        specs = [f"python={python}" if python else "python"]
        specs += [
            f"tensorflow={opt.version}={variant.build_glob}",
            f"cuda-version={variant.cuda.major}.{variant.cuda.minor}",
        ]
        # what the release needs of its dependencies to run: the same TensorFlow sources,
        # so the same bounds, as match specs ("numpy<2" is one for conda and rattler too)
        specs += choice.runtime
        warnings = list(_warnings(build, variant))
        from tfenv.rules.cudnn_arch import later_cudnn

        cudnn = variant.cudnn
        cb = opt.build.for_machine(target.os) if opt.build else None
        later = later_cudnn(kb, cb.cudnn if cb else None, variant.cuda, target.cc)
        if later is not None and later.newer is not None:
            # the recipe's run-export admits any cuDNN of the major: ask for one that has
            # code for this GPU (the plan says why: cudnn-later)
            specs.append(f"cudnn>={later.newer}")
            cudnn = later.newer
        cap = _cudnn_cap(kb, variant, target.cc)
        if cap is not None:
            specs.append(f"cudnn<{cap.version}")
            warnings.append(
                said(
                    "conda-cudnn-cap",
                    _(
                        "cudnn<{cap} is pinned: cuDNN {cap} and later have no code "
                        "for compute capability {cc} (below {lowest})."
                    ),
                    cap=cap.version,
                    cc=target.cc,
                    lowest=cap.min_cc[variant.cuda.major],
                )
            )
        name = conda_env_name(opt.version)
        reasons = (
            said(
                "conda-build",
                _(
                    "conda-forge's TensorFlow {version} CUDA {cuda} build "
                    "(cuDNN {cudnn} pinned by the recipe; builds "
                    "{builds}): the newest variant this driver supports "
                    "(source: {source})."
                ),
                version=opt.version,
                cuda=variant.cuda,
                cudnn=variant.cudnn or _("unknown"),
                builds=", ".join(map(str, variant.builds)),
                source=build.provenance.sources[0],
            ),
            python_why,
            said(
                "conda-env",
                _(
                    "A new conda environment '{name}' with conda-forge only; the active "
                    "environment is left alone."
                ),
                name=name,
            ),
        )
        conda = tuple(specs)
        packages = Packages(
            conda=conda,
            channels=("conda-forge",),
            commands=conda_create(name, conda, shell_for(target.os)),
            steps=conda_steps(kb, target),
        )
        return Delivery(
            python,
            variant.cuda,
            cudnn,
            packages,
            reasons,
            tuple(warnings),
            says_build=False,
            python_reason=False,
        )


def _python(
    target: Target, chosen: Optional[Version], variant: CondaTfVariant, version: Version
) -> tuple[Optional[Version], Sentence]:
    """The Python of a conda plan, from the conda facts only, and why."""
    if variant.python is None:
        return None, said(
            "conda-python",
            _(
                "Python: which Pythons conda-forge built TensorFlow {version} with CUDA {cuda} "
                "for is not recorded (unknown); conda picks one."
            ),
            version=version,
            cuda=variant.cuda,
        )
    span = _span(variant.python)
    if target.python is not None:
        if "python" in target.detected:
            template = _(
                "Python {python}: detected; conda-forge built TensorFlow {version} with CUDA "
                "{cuda} for Python {pythons}."
            )
        else:
            template = _(
                "Python {python}: given; conda-forge built TensorFlow {version} with CUDA "
                "{cuda} for Python {pythons}."
            )
        text = said(
            "conda-python",
            template,
            python=target.python,
            version=version,
            cuda=variant.cuda,
            pythons=span,
        )
        return target.python, text
    python = chosen if chosen in variant.python else max(variant.python)
    return python, said(
        "conda-python",
        _(
            "Python {python}: the newest Python conda-forge built TensorFlow {version} with CUDA "
            "{cuda} for ({pythons})."
        ),
        python=python,
        version=version,
        cuda=variant.cuda,
        pythons=span,
    )


def _cudnn_cap(
    kb: KnowledgeBase, variant: CondaTfVariant, cc: Optional[Version]
) -> Optional[CudnnSeries]:
    """The first cuDNN series of the recipe's major whose build for the variant's CUDA has
    no code for a GPU of compute capability ``cc`` (``nvidia/cudnn.yaml``), where an earlier
    series of that major runs on it: conda-forge's cudnn run-export (``>=X.Y,<X+1``) would
    otherwise take the newest. None where no such series is established."""
    pin = variant.cudnn
    if cc is None or pin is None:
        return None
    runs = False
    for series in kb.cudnn.all_series:
        lowest = series.min_cc.get(variant.cuda.major)
        if series.version.major != pin.major or lowest is None:
            continue
        if cc >= lowest:
            runs = True
        elif runs:
            return series
    return None


def _warnings(build: CondaTfBuild, variant: CondaTfVariant) -> tuple[Sentence, ...]:
    out = []
    if build.upload == "unknown":
        out.append(
            said(
                "conda-unpublished",
                _(
                    "Whether conda-forge published TensorFlow {version} is not established "
                    "(its recipe had these builds); 'conda search -c conda-forge "
                    "tensorflow={version}' shows it."
                ),
                version=build.version,
            )
        )
    broken = [v for v in build.variants if v.broken]
    for v in broken:
        out.append(
            said(
                "conda-broken",
                _("conda-forge's CUDA {cuda} builds of {version} are not used: {why}."),
                cuda=v.cuda,
                version=build.version,
                why=opt_prose(v, "broken"),
            )
        )
    return tuple(out)
