"""Routes and systems are asked, not named: no code outside ``routes/`` compares a route's
name (or a --manager value), none outside ``models/`` compares a system's name, and the
closed lists a lower layer validates input with are the ones the registries make."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tfenv import routes, rules
from tfenv.kb.changes import CHANGE_KINDS
from tfenv.kb.cuda_wheels import POLICIES
from tfenv.kb.known_issues import REMEDIES
from tfenv.kb.platforms import ROUTE_KINDS
from tfenv.models import choices
from tfenv.models.platform import SYSTEMS
from tfenv.models.target import MANAGERS
from tfenv.routes.base import Route

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"
_NAMES = "|".join(re.escape(r.name) for r in routes.ROUTES)
_ROUTE_NAME = re.compile(
    rf"""(\.route|\.name|\bname|\.manager|\bmanager)\s*(==|!=)\s*["']({_NAMES})["']"""
    rf"""|["']({_NAMES})["']\s*(==|!=)\s*\S*(route|manager)"""
)
_SYSTEM_NAMES = "|".join(s.name for s in SYSTEMS)
# a system compared as a string anywhere: a target's or a platform's (`target.os ==
# "wsl2"`), a variable holding one (`os_kind == "windows"`, `layout.os_name != "windows"`,
# `for os in ("linux", "windows")`), a driver or build system (`driver_os != "linux"`;
# models.platform.per_driver_os picks Linux's or Windows' of a pair), or a system's name
# on the left of a comparison
_OS_VAR = r"(os|os_name|os_kind|system_name|driver_os|build_os)"
_OS_NAME = re.compile(
    r"""\.os\s*(==|!=|in|not in)\s*[("']"""
    rf"""|\b{_OS_VAR}\s*(==|!=|in|not in)\s*[("']"""
    r"""|["'](linux|windows|wsl2|macos)["']\s*(==|!=)"""
)


def _sources(outside: str) -> list[Path]:
    return [p for p in sorted(SRC.rglob("*.py")) if outside not in p.relative_to(SRC).parts]


def _hits(pattern: re.Pattern[str], outside: str) -> list[str]:
    out = []
    for path in _sources(outside):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if pattern.search(line.split("#", 1)[0]):
                out.append(f"{path.relative_to(SRC)}:{no}: {line.strip()}")
    return out


def test_no_route_name_compared_outside_routes() -> None:
    assert _hits(_ROUTE_NAME, "routes") == []


def test_no_system_name_compared_outside_models() -> None:
    assert _hits(_OS_NAME, "models") == []


def test_the_guards_can_fail() -> None:
    assert _ROUTE_NAME.search('if plan.route == "conda+pip":')
    assert _ROUTE_NAME.search('if request.manager != "container":')
    assert _OS_NAME.search('if target.os == "wsl2":')
    assert _OS_NAME.search('if m.os in ("wsl2", "windows"):')
    assert not _OS_NAME.search("if target.system.is_wsl2:")
    # the driver and build systems of kb/, install's layouts, host detection
    assert _OS_NAME.search('return self.linux if os == "linux" else self.windows')
    assert _OS_NAME.search('if self.os_name != "windows":')
    assert _OS_NAME.search('elif os_kind in ("linux", "wsl2"):')
    assert _OS_NAME.search('if target.driver_os != "linux":')
    assert _OS_NAME.search('for os in ("linux", "windows")]')
    assert _OS_NAME.search('if "windows" == os:')
    assert not _OS_NAME.search("return per_driver_os(os, self.linux, self.windows)")
    assert not _OS_NAME.search("if system(os_kind).runs_linux:")


_SYSTEM_LITERALS = frozenset(s.name for s in SYSTEMS)


def _names_a_system(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value in _SYSTEM_LITERALS


def _system_comparisons(source: str) -> list[int]:
    """Lines comparing a value with a system's name, however the value is written
    (`facts.get("os") == "macos"`, `parse_os(m.os) != "linux"`, `x in ("linux", "wsl2")`):
    the regular expression above sees only named variables. A substring test (`"linux" in
    tag`) and the shell kind (`shell == "windows"`, shells.Shell) are not systems."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            if isinstance(op, (ast.In, ast.NotIn)):
                hit = isinstance(right, (ast.Tuple, ast.List, ast.Set)) and any(
                    _names_a_system(e) for e in right.elts
                )
            else:
                shell = any(isinstance(x, ast.Name) and x.id == "shell" for x in (left, right))
                hit = not shell and (_names_a_system(left) or _names_a_system(right))
            if hit:
                out.append(node.lineno)
            left = right
    return out


def test_no_system_name_compared_outside_models_whatever_the_expression() -> None:
    hits = [
        f"{path.relative_to(SRC)}:{line}"
        for path in _sources("models")
        for line in _system_comparisons(path.read_text(encoding="utf-8"))
    ]
    assert hits == []


def test_the_expression_guard_can_fail() -> None:
    assert _system_comparisons('if facts.get("os") == "macos": pass')
    assert _system_comparisons('ok = specs.parse_os(m.os) != "linux"')
    assert _system_comparisons('ok = kind(x) in ("linux", "wsl2")')
    assert _system_comparisons('ok = "windows" == name')
    assert not _system_comparisons('ok = "linux" in tag')
    assert not _system_comparisons('ok = shell == "windows"')
    assert not _system_comparisons("ok = target.system.is_linux")


def test_the_system_guard_covers_kb_install_and_host() -> None:
    # the modules that compared system names before the models' predicates: each is scanned
    scanned = {p.relative_to(SRC).as_posix() for p in _sources("models")}
    for module in (
        "kb/tensorflow.py",
        "kb/cuda.py",
        "install/create.py",
        "install/steps.py",
        "install/interpreters.py",
        "install/verify.py",
        "host/gpu.py",
        "host/cuda.py",
        "explain/driver.py",
        "matrix.py",
    ):
        assert module in scanned


def test_managers_are_the_routes() -> None:
    assert MANAGERS == routes.MANAGERS


def test_platform_route_kinds_are_the_routes_the_docs_recommend() -> None:
    assert {r.name for r in routes.ROUTES if not r.on_request_only} == ROUTE_KINDS


def test_change_kinds_are_those_of_the_rules_and_of_check_upgrade() -> None:
    from tfenv.upgrade.warnings import OWN_CHANGE_KINDS

    rule_kinds = {r.change_kind for r in rules.RULES if r.change_kind}
    assert rule_kinds | OWN_CHANGE_KINDS == CHANGE_KINDS


def test_remedies_are_what_routes_apply() -> None:
    # each remedy a known issue may name is applied by some route (Route.remedies)
    assert {m for r in routes.ROUTES for m in r.remedies} == set(REMEDIES)


def test_the_closed_lists_are_written_once() -> None:
    # the lower layers' names are models.choices' lists, not copies
    assert MANAGERS is choices.MANAGERS
    assert ROUTE_KINDS is choices.ROUTE_KINDS
    assert CHANGE_KINDS is choices.CHANGE_KINDS
    assert REMEDIES is choices.REMEDIES
    assert POLICIES is choices.CUDA_LIBS


def test_a_registry_that_brings_a_new_value_fails() -> None:
    choices.check_registry("managers", ("auto", "pip"), ("auto", "pip"))
    with pytest.raises(RuntimeError, match=r"models\.choices"):
        choices.check_registry("managers", ("auto", "pip", "uvx"), ("auto", "pip"))


_ROUTE_CLASS = re.compile(r"isinstance\([^)]*\b[A-Z]\w*Route\b")


def test_no_route_class_is_asked_for_outside_routes() -> None:
    # a route's kind is asked of its declarations (route.in_image, route.locker, ...)
    assert _hits(_ROUTE_CLASS, "routes") == []
    assert _ROUTE_CLASS.search("if isinstance(route, ContainerRoute) and got.image:")


_EMIT_KINDS = frozenset(
    re.findall(r'^\s+"([a-z-]+)": \(', (SRC / "emit" / "__init__.py").read_text("utf-8"), re.M)
)


@pytest.mark.parametrize("route", routes.ROUTES, ids=lambda r: r.name)
def test_a_route_declares_emit_kinds(route: Route) -> None:
    assert route.emits, route
    assert set(route.emits) <= _EMIT_KINDS, route


def test_the_default_emits_nothing() -> None:
    assert Route.emits == ()
    assert "requirements" in _EMIT_KINDS


def test_only_image_routes_change_the_view() -> None:
    assert routes.MANAGERS[0] == "auto"
    assert [m for m in routes.MANAGERS if routes.in_image(m)] == ["container"]
