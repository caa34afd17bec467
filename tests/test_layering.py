"""The import layers hold: an allow-list read from the ``layers`` block of
docs/architecture.md. Every ``import tfenv...`` in the source, function-level ones
included, goes from a unit (a top-level module or package of tfenv) to a unit on a lower
line of that block; units on the same line never import each other, so there is no cycle
between packages. A unit the block does not place fails too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src" / "tfenv"
DOC = ROOT / "docs" / "architecture.md"
ROOT_UNIT = "__init__"  # tfenv itself: the facade that re-exports the API
VERSION_UNIT = "__version__"  # ``from tfenv import __version__``: a constant


def read_layers(text: str) -> tuple[tuple[str, ...], ...]:
    """The ``layers`` block: one line per layer, top first, units separated by spaces."""
    found = re.search(r"^```layers\n(.*?)^```", text, re.M | re.S)
    assert found, "docs/architecture.md has no ```layers block"
    return tuple(tuple(line.split()) for line in found.group(1).splitlines() if line.split())


LAYERS = read_layers(DOC.read_text("utf-8"))
RANK = {unit: i for i, layer in enumerate(LAYERS) for unit in layer}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def unit_of(module: str) -> str:
    """``tfenv.lock.pip`` -> ``lock``; ``tfenv`` and its attributes -> the root unit."""
    parts = module.split(".")
    if len(parts) == 1:
        return ROOT_UNIT
    if parts[1] == "__version__":
        return VERSION_UNIT
    return parts[1]


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "tfenv":  # from tfenv import routes: the module imported
                found += [f"tfenv.{a.name}" for a in node.names]
            else:
                found.append(node.module)
    return [n for n in found if n == "tfenv" or n.startswith("tfenv.")]


def against_the_layers(name: str, imported: list[str], rank: dict[str, int] = RANK) -> list[str]:
    """The imports of module ``name`` that do not go to a lower layer."""
    here = unit_of(name)
    bad = []
    for imp in imported:
        there = unit_of(imp)
        if there == here:
            continue
        if there not in rank or here not in rank or rank[there] <= rank[here]:
            bad.append(imp)
    return sorted(set(bad))


MODULES = sorted(SRC.rglob("*.py"))


def test_the_walk_sees_the_package() -> None:
    names = {_module_name(p) for p in MODULES}
    assert {"tfenv.models.platform", "tfenv.rules", "tfenv.routes", "tfenv.resolver"} <= names


def test_every_unit_is_placed_once() -> None:
    units = {unit_of(_module_name(p)) for p in MODULES} | {VERSION_UNIT}
    placed = [u for layer in LAYERS for u in layer]
    assert len(placed) == len(set(placed)), "a unit is on two lines of the layers block"
    assert units == set(placed)


@pytest.mark.parametrize("path", MODULES, ids=[_module_name(p) for p in MODULES])
def test_imports_go_downwards(path: Path) -> None:
    name = _module_name(path)
    bad = against_the_layers(name, _imports(path))
    assert not bad, f"{name} imports {bad} against the layers in docs/architecture.md"


# and install's disk-space check, which reads file sizes from the index's project pages
REFRESH_USERS = ("tfenv.commands.refresh", "tfenv.refresh", "tfenv.install.space")


def test_only_the_refresh_command_reaches_refresh() -> None:
    """refresh (the index and README readers, httpx) is off every runtime path but
    install's disk-space check (a function-level import, after the plan is made)."""
    users = {
        _module_name(p)
        for p in MODULES
        if any(i == "tfenv.refresh" or i.startswith("tfenv.refresh.") for i in _imports(p))
    }
    assert users
    assert all(any(u == r or u.startswith(r + ".") for r in REFRESH_USERS) for u in users)


def test_the_chain_of_the_solver() -> None:
    """The order the architecture is built on: the solver over rules and routes over the
    knowledge base over the models; the CLI on top."""
    order = ["cli", "commands", "resolver", "routes", "rules", "kb", "models"]
    assert [RANK[u] for u in order] == sorted(RANK[u] for u in order)
    assert len({RANK[u] for u in order}) == len(order)


def test_the_check_would_fail(tmp_path: Path) -> None:
    """Not vacuous: an upward import (function-level too), an import inside the same
    layer and the review's examples fail; a downward one passes."""
    path = tmp_path / "rule.py"
    path.write_text(
        "from tfenv.kb import KnowledgeBase\n"
        "def f() -> None:\n"
        "    from tfenv.resolver import resolve\n"
        "    import tfenv.cli\n",
        "utf-8",
    )
    found = _imports(path)
    assert against_the_layers("tfenv.rules.example", found) == ["tfenv.cli", "tfenv.resolver"]
    assert against_the_layers("tfenv.commands.example", found) == ["tfenv.cli"]
    assert against_the_layers("tfenv.models.platform", ["tfenv.models.driver"]) == []
    assert against_the_layers("tfenv.models.platform", ["tfenv.kb"]) == ["tfenv.kb"]
    assert against_the_layers("tfenv.kb.changes", ["tfenv.api", "tfenv.upgrade"]) != []
    assert against_the_layers("tfenv.host.parse", ["tfenv.lock.pip"]) == ["tfenv.lock.pip"]
    assert against_the_layers("tfenv.rules.image_driver", ["tfenv.routes.container"]) != []
    same = {"a": 0, "b": 0, "c": 1}
    assert against_the_layers("tfenv.a", ["tfenv.b"], same) == ["tfenv.b"]
    assert against_the_layers("tfenv.a", ["tfenv.c"], same) == []
    assert against_the_layers("tfenv.a", ["tfenv.new"], same) == ["tfenv.new"]
    assert read_layers("x\n```layers\na b\n\nc\n```\n") == (("a", "b"), ("c",))
