"""The install routes, one module each, and the registry everything else asks.

==============  ===========================================================
route           what it installs
==============  ===========================================================
``pip``         ``tensorflow[and-cuda]``: TensorFlow and CUDA/cuDNN wheels
``conda``       a conda-forge TensorFlow CUDA build
``conda+pip``   conda-forge cudatoolkit (and cuDNN), TensorFlow from pip
``system``      TensorFlow from pip, CUDA and cuDNN installed by hand
``metal``       TensorFlow and Apple's tensorflow-metal plug-in
``cpu``         TensorFlow on the CPU
``container``   an image that carries CUDA and cuDNN (only with --manager container)
==============  ===========================================================

Adding a route is a new module with a :class:`~tfenv.routes.base.Route` subclass,
listed in :data:`ROUTES`; ``tests/test_routes_platforms.py`` checks that the solver, the
plan's reasons, emit and lock handle every route listed here (and needs a row for it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.models import choices
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where
from tfenv.routes.conda import CondaRoute
from tfenv.routes.conda_pip import CondaPipRoute
from tfenv.routes.container import ContainerRoute
from tfenv.routes.cpu import CpuRoute
from tfenv.routes.metal import MetalRoute
from tfenv.routes.pip import PipRoute
from tfenv.routes.system import SystemRoute

if TYPE_CHECKING:
    from packaging.version import Version

    from tfenv.kb import KnowledgeBase
    from tfenv.kb.releases import TfOption
    from tfenv.models.target import Target

__all__ = [
    "MANAGERS",
    "ROUTES",
    "Choice",
    "Delivery",
    "Packages",
    "Route",
    "Where",
    "for_manager",
    "in_image",
    "options",
    "recommended",
    "route",
    "view",
    "waived",
]

#: Every route, in the order used when the TensorFlow docs recommend none.
ROUTES: tuple[Route, ...] = (
    PipRoute(),
    CondaRoute(),
    CondaPipRoute(),
    SystemRoute(),
    MetalRoute(),
    CpuRoute(),
    ContainerRoute(),
)
_BY_NAME = {r.name: r for r in ROUTES}
#: The --manager values, derived from the routes ("auto" first, then in registry order).
MANAGERS: tuple[str, ...] = tuple(dict.fromkeys(m for r in ROUTES for m in r.managers))
# the closed lists below the registry (argparse, the configuration and platforms.yaml's and
# known_issues.yaml's readers check input with them) are what the routes declare
choices.check_registry("routes.MANAGERS", MANAGERS, choices.MANAGERS)
choices.check_registry(
    "the routes the TensorFlow docs may recommend",
    frozenset(r.name for r in ROUTES if not r.on_request_only),
    choices.ROUTE_KINDS,
)
choices.check_registry(
    "the remedies routes apply",
    frozenset(m for r in ROUTES for m in r.remedies),
    frozenset(choices.REMEDIES),
)


def route(name: str) -> Route:
    """The route called ``name`` (KeyError for a name no route has)."""
    return _BY_NAME[name]


def for_manager(manager: str) -> tuple[Route, ...]:
    """The routes a ``--manager`` value selects."""
    return tuple(r for r in ROUTES if manager in r.managers)


def _exclusive(manager: str) -> tuple[Route, ...]:
    return tuple(r for r in for_manager(manager) if r.on_request_only)


def in_image(manager: str) -> bool:
    """Whether ``manager`` asks for routes that run in a container image."""
    return any(r.in_image for r in _exclusive(manager))


def view(manager: str, target: Target) -> Target:
    """The machine as the routes ``manager`` asks for see it (a container: its own Linux,
    Python and glibc; the host's GPU and driver)."""
    for r in _exclusive(manager):
        return r.view(target)
    return target


def recommended(kb: KnowledgeBase, version: Version, target: Target) -> tuple[str, ...]:
    """Routes the TensorFlow docs recommend for this release and target, best first."""
    key = "wsl2" if target.system.is_wsl2 else target.platform.key
    return tuple(r.route for r in kb.platforms.routes_for(version, key))


def options(where: Where, option: TfOption, accel: str, manager: str) -> tuple[Route, ...]:
    """Routes that can install ``option`` built for ``accel`` on the target, best first:
    those the TensorFlow docs recommend in their order, then the rest in registry order."""
    exclusive = _exclusive(manager)
    pool = (
        list(exclusive)
        if exclusive and accel == "cuda"
        else [r for r in ROUTES if not r.on_request_only]
    )
    possible = [
        r for r in pool if accel in r.accelerators and r.problem(where, option, accel) is None
    ]
    order = recommended(where.kb, option.version, where.target)
    return tuple(sorted(possible, key=lambda r: (_rank(order, r.name), ROUTES.index(r))))


def _rank(order: tuple[str, ...], name: str) -> int:
    return order.index(name) if name in order else len(order)


def waived(
    where: Where, option: TfOption, usable: tuple[Route, ...], manager: str
) -> frozenset[str]:
    """Rule kinds that every route ``manager`` can use for ``option`` makes moot (``usable``:
    :func:`options`): conda-forge's own build does not need the wheels' Python or glibc; an
    NGC image brings its own build (no PTX of the wheels to JIT) and its own GPU code, or
    the driver floor through forward compatibility."""
    kinds = [r.waives(where, option) for r in usable if manager in r.managers]
    return frozenset.intersection(*kinds) if kinds else frozenset()
