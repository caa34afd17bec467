"""The import layers hold: every ``import tfenv...`` in the source, function-level ones
included, goes downwards.

    cli -> commands -> api/team/lock/upgrade/doctor/emit/host -> resolver -> routes/rules
        -> kb -> models

``models`` imports nothing of tfenv but itself; the solver never reaches the host, lock
or upgrade code; rules and routes never reach the solver; nothing imports the CLI.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"

# package -> packages it must never import (prefixes of module names)
FORBIDDEN = {
    "tfenv.models": ("tfenv.",),
    "tfenv.kb": ("tfenv.resolver", "tfenv.routes", "tfenv.rules", "tfenv.host", "tfenv.lock"),
    "tfenv.rules": ("tfenv.resolver", "tfenv.host", "tfenv.lock", "tfenv.upgrade", "tfenv.emit"),
    "tfenv.routes": ("tfenv.resolver", "tfenv.host", "tfenv.lock", "tfenv.upgrade", "tfenv.emit"),
    "tfenv.resolver": ("tfenv.host", "tfenv.lock", "tfenv.upgrade", "tfenv.emit", "tfenv.doctor"),
    "tfenv.emit": ("tfenv.lock", "tfenv.upgrade", "tfenv.doctor", "tfenv.host"),
    "tfenv.chart": ("tfenv.commands", "tfenv.host", "tfenv.lock", "tfenv.upgrade", "tfenv.doctor"),
    # file formats: below emit, lock and upgrade, which all use them; above nothing but the edges
    "tfenv.formats": (
        "tfenv.resolver",
        "tfenv.routes",
        "tfenv.rules",
        "tfenv.host",
        "tfenv.lock",
        "tfenv.upgrade",
        "tfenv.emit",
        "tfenv.doctor",
        "tfenv.explain",
        "tfenv.api",
        "tfenv.team",
        "tfenv.commands",
        "tfenv.kb",
    ),
    # refresh (the index and README readers, httpx) sits beside the commands, off every
    # runtime path: only commands/refresh reaches it
    "tfenv.refresh": (
        "tfenv.resolver",
        "tfenv.routes",
        "tfenv.rules",
        "tfenv.host",
        "tfenv.lock",
        "tfenv.upgrade",
        "tfenv.emit",
        "tfenv.doctor",
        "tfenv.explain",
        "tfenv.api",
    ),
    "tfenv.install": ("tfenv.commands",),  # above doctor, lock and emit, which it uses
}
REFRESH_USERS = ("tfenv.commands.refresh", "tfenv.refresh")
ALLOWED_INSIDE = {"tfenv.models": ("tfenv.models",)}


def _module_name(path: Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names]
    return [n for n in found if n == "tfenv" or n.startswith("tfenv.")]


MODULES = sorted(SRC.rglob("*.py"))


def test_the_walk_sees_the_package() -> None:
    names = {_module_name(p) for p in MODULES}
    assert {"tfenv.models.platform", "tfenv.rules", "tfenv.routes", "tfenv.resolver"} <= names


def _against_the_layers(name: str, imported: list[str]) -> list[str]:
    """The imports of module ``name`` that go upwards."""
    bad = []
    for imp in imported:
        if imp.startswith("tfenv.cli") and name != "tfenv.__main__":
            bad.append(imp)
        if (imp == "tfenv.refresh" or imp.startswith("tfenv.refresh.")) and not any(
            name == u or name.startswith(u + ".") for u in REFRESH_USERS
        ):
            bad.append(imp)
        for package, forbidden in FORBIDDEN.items():
            if name != package and not name.startswith(package + "."):
                continue
            allowed = ALLOWED_INSIDE.get(package, ())
            if any(imp.startswith(f) for f in forbidden) and not any(
                imp == a or imp.startswith(a + ".") for a in allowed
            ):
                bad.append(imp)
    return sorted(set(bad))


@pytest.mark.parametrize("path", MODULES, ids=[_module_name(p) for p in MODULES])
def test_imports_go_downwards(path: Path) -> None:
    name = _module_name(path)
    bad = _against_the_layers(name, _imports(path))
    assert not bad, f"{name} imports {bad} against the layering"


def test_the_check_would_fail(tmp_path: Path) -> None:
    """Not vacuous: the same walk and check see an upward import, a function-level one
    included, and let a downward one pass."""
    path = tmp_path / "rule.py"
    path.write_text(
        "from tfenv.kb import KnowledgeBase\n"
        "def f() -> None:\n"
        "    from tfenv.resolver import resolve\n"
        "    import tfenv.cli\n",
        "utf-8",
    )
    found = _imports(path)
    assert _against_the_layers("tfenv.rules.example", found) == [
        "tfenv.cli",
        "tfenv.resolver",
        "tfenv.resolver.resolve",
    ]
    assert _against_the_layers("tfenv.commands.example", found) == ["tfenv.cli"]
    assert _against_the_layers("tfenv.models.platform", ["tfenv.models.driver"]) == []
    assert _against_the_layers("tfenv.models.platform", ["tfenv.kb"]) == ["tfenv.kb"]
