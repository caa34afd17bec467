"""One error hierarchy, in one module: every class a user's error is reported through lives
in ``tfenv/errors.py``, and the solver's round limit is worded once."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from tfenv import errors
from tfenv.cli import main

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"

#: the names of the hierarchy's classes (TfenvError and every subclass in errors.py)
HIERARCHY = {
    name
    for name, value in vars(errors).items()
    if inspect.isclass(value) and issubclass(value, errors.TfenvError)
}


def _base_names(node: ast.ClassDef) -> set[str]:
    names = set()
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.add(base.id)
        elif isinstance(base, ast.Attribute):
            names.add(base.attr)
    return names


def test_error_classes_live_only_in_errors_py() -> None:
    assert {"TfenvError", "LockError", "CondaLockError", "SolverGaveUp"} <= HIERARCHY
    elsewhere = []
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "errors.py" and path.parent == SRC:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ClassDef) and (
                _base_names(node) & HIERARCHY or node.name in HIERARCHY
            ):
                elsewhere.append(f"{path.relative_to(SRC)}: class {node.name}")
    assert elsewhere == [], "define error classes in tfenv/errors.py"


def test_every_error_class_is_exported() -> None:
    assert set(errors.__all__) >= HIERARCHY


def test_the_round_limit_is_worded_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A solve that runs out of rounds says the same wherever it is caught: through the
    resolver (SolverGaveUp) and as the CLI's last resort."""
    import resolvelib

    from tfenv import resolver

    def too_deep(*_args: object, **_kwargs: object) -> None:
        raise resolvelib.ResolutionTooDeep(resolver.MAX_ROUNDS)

    monkeypatch.setattr(resolvelib.Resolver, "resolve", too_deep)
    code = main(["resolve", "--os", "linux", "--no-gpu", "--python", "3.11"])
    err = capsys.readouterr().err
    assert code == 1
    want = errors.SolverGaveUp(resolver.MAX_ROUNDS).paragraph
    assert err == f"tfenv: error: {want}\n"
    assert "gave up after 2000 rounds" in want
    source = "\n".join(p.read_text("utf-8") for p in sorted(SRC.rglob("*.py")))
    assert source.count("gave up after") == 1
