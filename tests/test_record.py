"""``tfenv.models._record.dataclass`` behaves as ``dataclasses.dataclass`` does for what
tfenv's records use, and every record on the path of ``tfenv resolve`` is defined with it."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import pytest

from tfenv.models._record import MISSING, field, fields, replace

if TYPE_CHECKING:
    from dataclasses import dataclass as record
else:
    from tfenv.models._record import dataclass as record

DECORATORS: dict[str, Callable[..., Any]] = {"stdlib": dataclasses.dataclass, "record": record}


def _classes(deco: Callable[..., Any]) -> tuple[type, type, type]:
    @deco(frozen=True)
    class Point:
        """A point."""

        x: int
        y: int = 0
        tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)
        note: Optional[str] = dataclasses.field(default=None, compare=False)

    @deco(frozen=True)
    class Labelled(Point):
        label: str = "p"

        def __post_init__(self) -> None:
            if self.x < 0:
                raise ValueError("negative")

    @deco
    class Mutable:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)

    return Point, Labelled, Mutable


@pytest.mark.parametrize("kind", DECORATORS)
def test_construction_equality_hash_and_repr(kind: str) -> None:
    Point, Labelled, Mutable = _classes(DECORATORS[kind])
    p = Point(1, 2)
    assert (p.x, p.y, p.tags, p.note) == (1, 2, (), None)
    assert Point(x=1, y=2, note="n") == p  # note is not compared
    assert hash(Point(1, 2, note="n")) == hash(p)
    assert Point(1) != p
    assert Point(1) == Point(1, 0)
    assert repr(p).endswith("Point(x=1, y=2, tags=(), note=None)")
    assert Labelled(1, label="q").label == "q"
    assert Labelled(1) != Point(1)
    with pytest.raises(ValueError, match="negative"):
        Labelled(-1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.x
    m = Mutable(1)
    m.a = 2
    assert m.b == []
    assert m.b is not Mutable(1).b
    with pytest.raises(TypeError):
        hash(m)
    assert dataclasses.replace(p, y=5) == Point(1, 5)
    assert [f.name for f in dataclasses.fields(Labelled)] == ["x", "y", "tags", "note", "label"]
    assert dataclasses.asdict(p) == {"x": 1, "y": 2, "tags": (), "note": None}


@pytest.mark.parametrize("kind", DECORATORS)
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((), {}), ((1, 2, (), None, 5), {}), ((1,), {"x": 1}), ((), {"x": 1, "z": 2})],
    ids=["missing", "too-many", "twice", "unknown"],
)
def test_wrong_arguments_are_type_errors(
    kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    Point, _, _ = _classes(DECORATORS[kind])
    with pytest.raises(TypeError):
        Point(*args, **kwargs)


def test_a_record_without_a_docstring_keeps_none() -> None:
    @record(frozen=True)
    class Bare:
        a: int

    assert Bare.__doc__ is None
    assert dataclasses.is_dataclass(Bare)
    assert Bare(1).a == 1
    Point, _, _ = _classes(record)
    assert Point.__doc__ == "A point."


_RECORD_CHECK = textwrap.dedent(
    """
    import contextlib, dataclasses, io, json, sys
    from tfenv.cli import main
    for argv in %(runs)r:
        with contextlib.redirect_stdout(io.StringIO()):
            main(argv)
    standard = []
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("tfenv"):
            continue
        for value in list(vars(module).values()):
            if (
                isinstance(value, type)
                and value.__module__ == name
                and dataclasses.is_dataclass(value)
                and not value.__init__.__code__.co_filename.endswith("_record.py")
            ):
                standard.append(f"{name}.{value.__qualname__}")
    print(json.dumps(standard))
    """
)


def test_every_record_a_resolve_defines_is_a_cheap_one(tmp_path: Path) -> None:
    """The standard dataclass costs about ten times as much to define: none of the modules
    a ``tfenv resolve`` imports (plans, and nothing fits) uses it."""
    runs = [
        ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--json"],
        ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "470.82.01", "--tf", "2.15"],
        ["resolve", "--os", "windows", "--cc", "8.6", "--driver", "552.22", "--tf", "2.10"],
        ["resolve", "--os", "macos", "--arch", "arm64", "--manager", "conda"],
    ]
    done = subprocess.run(
        [sys.executable, "-c", _RECORD_CHECK % {"runs": runs}],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


def test_the_record_check_would_see_a_standard_dataclass() -> None:
    @dataclasses.dataclass(frozen=True)
    class Standard:
        a: int

    assert not vars(Standard)["__init__"].__code__.co_filename.endswith("_record.py")
    Point, _, _ = _classes(record)
    assert vars(Point)["__init__"].__code__.co_filename.endswith("_record.py")


def test_the_dataclass_view_of_a_record_is_what_dataclasses_makes() -> None:
    """``dataclasses.fields`` (read lazily, made by dataclasses) sees a record's fields as
    it sees a standard dataclass's: names, defaults, factories, flags and metadata."""
    std, rec = _classes(dataclasses.dataclass)[1], _classes(record)[1]

    def view(cls: type) -> list[tuple[Any, ...]]:
        return [
            (f.name, f.default, f.default_factory, f.init, f.repr, f.hash, f.compare,
             dict(f.metadata))
            for f in dataclasses.fields(cls)
        ]  # fmt: skip

    assert view(rec) == view(std)
    assert dataclasses.is_dataclass(rec)
    assert not hasattr(rec, "tags")  # a default factory leaves no class attribute
    assert vars(_classes(record)[0])["y"] == 0  # a plain default stays one


def test_record_fields_replace_and_field_from_either_module() -> None:
    @record(frozen=True)
    class Mixed:
        a: int
        b: tuple[int, ...] = dataclasses.field(default_factory=tuple)  # the standard one
        c: int = field(default=2, metadata={"k": 1})
        d: int = field(init=False, default=0)

        def __post_init__(self) -> None:
            object.__setattr__(self, "d", self.a + self.c)

    m = Mixed(1)
    assert (m.a, m.b, m.c, m.d) == (1, (), 2, 3)
    assert [(f.name, f.init) for f in fields(Mixed)] == [
        ("a", True), ("b", True), ("c", True), ("d", False),
    ]  # fmt: skip
    assert fields(m)[2].metadata == {"k": 1}
    assert replace(m, a=5).d == 7  # __post_init__ runs again
    with pytest.raises(ValueError, match="init=False"):
        replace(m, d=1)
    Std = _classes(dataclasses.dataclass)[0]
    assert [f.name for f in fields(Std)] == ["x", "y", "tags", "note"]
    assert fields(Std)[0].default is MISSING
    assert replace(Std(1), y=2) == Std(1, 2)
