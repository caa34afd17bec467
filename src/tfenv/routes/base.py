"""What an install route is: the interface every route module implements.

A route says which accelerators it delivers, which ``--manager`` values select it,
whether it can install a release on a machine (and if not, why), what it installs
(the versions it really brings, its packages and commands, its reasons and
warnings), how ``tfenv lock`` locks it and which files ``--emit`` writes for it.
Everything else (the solver, the plan, emit, lock) asks the route instead of
branching on its name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar, Literal, Optional

from packaging.version import Version

from tfenv.shells import Shell, command, shell_for

if TYPE_CHECKING:
    from dataclasses import dataclass

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.releases import TfOption
    from tfenv.models.plan import Plan
    from tfenv.models.sentence import Sentence
    from tfenv.models.target import Target
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass

__all__ = [
    "Choice",
    "Delivery",
    "GuideStep",
    "Packages",
    "Route",
    "Where",
    "library_env",
    "pip_install",
    "shell_of",
]

Locker = Literal["pip", "conda"]


@dataclass(frozen=True)
class Where:
    """The knowledge base and the machine a route installs on."""

    kb: KnowledgeBase
    target: Target
    cuda_libs: str = "build"  # the CUDA-library preference (kb/cuda_wheels.py)


@dataclass(frozen=True)
class Choice:
    """What the solver picked: a release for an accelerator, a Python, CUDA and cuDNN."""

    option: TfOption
    accel: str
    python: Optional[Version]
    cuda: Optional[Version]
    cudnn: Optional[Version]
    # what the release needs of its dependencies to import and run today, as requirement
    # lines ("numpy<2"; kb.runtime): every route that installs TensorFlow with pip adds them
    runtime: tuple[str, ...] = ()


@dataclass(frozen=True)
class Packages:
    """What a route puts in an environment."""

    pip: tuple[str, ...] = ()
    conda: tuple[str, ...] = ()
    channels: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()  # variables an activation script sets
    commands: tuple[str, ...] = ()  # install commands, in order
    steps: tuple[str, ...] = ()  # what to do by hand before the commands (system route)


@dataclass(frozen=True)
class GuideStep:
    """One numbered step of INSTALL.md: what to do, and the command that does it
    (:meth:`Route.guide`)."""

    text: str
    command: Optional[str] = None


@dataclass(frozen=True)
class Delivery:
    """What a route really installs for a choice, and what it says about it."""

    python: Optional[Version]
    cuda: Optional[Version]
    cudnn: Optional[Version]
    packages: Packages
    reasons: tuple[Sentence, ...] = ()  # coded: models/sentence.py
    warnings: tuple[Sentence, ...] = ()
    image: Optional[str] = None  # container routes: the image
    host: tuple[str, ...] = ()  # container routes: what the host still needs
    says_build: bool = True  # whether the plan repeats the build's CUDA/cuDNN reasons
    python_reason: bool = True  # whether the plan explains the Python choice
    remedies: frozenset[str] = frozenset()  # known-issue remedies this delivery applies
    verify: Optional[str] = None  # the Verify step where the route's differs (a container)
    package: Optional[str] = None  # the distribution installed, where not the option's


class Route(ABC):
    """One way to install TensorFlow. Subclasses set the class attributes, implement
    :meth:`deliver` and, where the route can fail, :meth:`problem`."""

    name: ClassVar[str]
    why: ClassVar[str]  # one sentence: what this route does
    accelerators: ClassVar[frozenset[str]]  # which of cuda, metal, cpu it delivers
    managers: ClassVar[tuple[str, ...]]  # the --manager values that select it
    on_request_only: ClassVar[bool] = False  # used only when its manager is asked for
    locker: ClassVar[Locker] = "pip"  # how `tfenv lock` locks it
    emits: ClassVar[tuple[str, ...]] = ()  # the emit kinds --emit writes (tfenv.emit)
    pip_in_conda: ClassVar[bool] = False  # its pip packages install inside a conda env
    in_image: ClassVar[bool] = False  # it runs in a container image (see :meth:`view`)
    # the known-issue remedies its deliveries may apply (models.choices.REMEDIES): an issue
    # with one of them is left out of a plan whose delivery applies it
    remedies: ClassVar[frozenset[str]] = frozenset()

    def view(self, target: Target) -> Target:
        """The machine as this route's environment sees it (a container: its own Linux,
        Python and glibc; the host's GPU and driver)."""
        return target

    def host_needs(self, where: Where, floor: Optional[Version]) -> tuple[str, ...]:
        """What the host must have besides the environment (an image route: its driver,
        the container toolkit); nothing for a route that installs on the host itself."""
        return ()

    def problem(self, where: Where, option: TfOption, accel: str) -> Optional[str]:
        """Why this route cannot install ``option`` here (None: it can)."""
        return None

    def waives(self, where: Where, option: TfOption) -> frozenset[str]:
        """Rule kinds that do not apply when this route installs ``option``."""
        return frozenset()

    @abstractmethod
    def deliver(self, where: Where, choice: Choice) -> Delivery:
        """What this route installs for ``choice``."""

    def guide(self, plan: Plan, target: Target) -> Optional[tuple[GuideStep, ...]]:
        """INSTALL.md's numbered steps, each with its command, where the route writes them
        (None: the guide lists the plan's manual steps, then the Install commands)."""
        return None

    def lockfiles(self, target_name: str) -> tuple[str, ...]:
        """The files `tfenv lock` writes for a target on this route."""
        if self.locker == "conda":
            return (f"conda-lock.{target_name}.yml", f"environment.{target_name}.yml")
        return (f"requirements.{target_name}.txt", f"pylock.{target_name}.toml")

    def __repr__(self) -> str:
        return f"<route {self.name}>"


def pip_install(*specs: str, shell: Shell = "posix") -> str:
    """``python -m pip install 'a' 'b'`` (``"a" "b"`` on native Windows): each spec
    quoted for the target's shell (:mod:`tfenv.shells`)."""
    return command(["python", "-m", "pip", "install", *specs], shell)


def shell_of(where: Where) -> Shell:
    """The shell the target runs commands in."""
    return shell_for(where.target.os)


def library_env(target: Target, *dirs: str) -> tuple[tuple[str, str], ...]:
    """``LD_LIBRARY_PATH`` with ``dirs`` first (nothing on native Windows)."""
    if target.system.is_windows:
        return ()
    return (("LD_LIBRARY_PATH", ":".join([*dirs, "$LD_LIBRARY_PATH"])),)
