"""Adding a route touches routes/ (a module and its place in ``routes.ROUTES``) and nothing
else of the code: the walk-through in docs/architecture.md, built here. The example route
is listed in place of the CPU route; the solver picks it, the plan carries what it delivers
and emit writes the files it declares."""

from __future__ import annotations

from typing import ClassVar

import pytest

import tfenv
from tfenv import routes
from tfenv.emit import plan_files
from tfenv.models.sentence import coded
from tfenv.routes.base import Choice, Delivery, Packages, Route, Where, pip_install, shell_of


class ExampleRoute(Route):
    name: ClassVar[str] = "example"
    why: ClassVar[str] = "TensorFlow from pip on the CPU, the way an example route would"
    accelerators: ClassVar[frozenset[str]] = frozenset({"cpu"})
    managers: ClassVar[tuple[str, ...]] = ("auto", "pip")
    emits: ClassVar[tuple[str, ...]] = ("requirements",)

    def deliver(self, where: Where, choice: Choice) -> Delivery:
        pin = f"{choice.option.package}=={choice.option.version}"
        commands = (pip_install(pin, shell=shell_of(where)),)
        packages = Packages(pip=(pin,), commands=commands)
        return Delivery(
            choice.python, None, None, packages, reasons=(coded("route", "the example route"),)
        )


@pytest.fixture
def example(monkeypatch: pytest.MonkeyPatch) -> Route:
    route = ExampleRoute()
    listed = tuple(route if r.name == "cpu" else r for r in routes.ROUTES)
    monkeypatch.setattr(routes, "ROUTES", listed)
    monkeypatch.setattr(routes, "_BY_NAME", {r.name: r for r in listed})
    return route


def test_the_solver_plan_and_emit_use_a_new_route(example: Route) -> None:
    res = tfenv.resolve("2.15", os="linux", arch="x86_64", no_gpu=True, python="3.11")
    assert res.plan is not None
    assert res.plan.route == "example"
    assert res.plan.accelerator == "cpu"
    assert res.plan.pip == ("tensorflow==2.15.1",)
    assert "the example route" in res.plan.reasons
    files = plan_files(res)
    assert list(files) == ["requirements.txt"]
    assert "tensorflow==2.15.1" in files["requirements.txt"]


def test_without_it_the_cpu_route_answers() -> None:
    res = tfenv.resolve("2.15", os="linux", arch="x86_64", no_gpu=True, python="3.11")
    assert res.plan is not None
    assert res.plan.route == "cpu"
