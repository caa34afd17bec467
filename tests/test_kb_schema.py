"""The generic record reader (kb/_schema.py): keys from the fields, errors at file + path,
sources and dates enforced, and every knowledge-base record class described by it."""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
from typing import TYPE_CHECKING, Any, Optional

import pytest
from packaging.version import Version

import tfenv.kb
from tfenv.errors import KBValidationError
from tfenv.kb._fields import Node, Provenance
from tfenv.kb._schema import SOURCE_KEYS, fact, given, read_record, record_keys, sourced
from tfenv.kb.changes import Change

if TYPE_CHECKING:
    from dataclasses import dataclass
else:  # a knowledge-base record is one of tfenv.models._record (fact() makes its fields)
    from tfenv.models._record import dataclass


@dataclass(frozen=True)
class _Thing:
    name: str = fact(Node.label)
    since: Version = fact(Node.version, key="from")
    provenance: Provenance = sourced()
    extra: int = given()
    tags: tuple[str, ...] = fact(Node.texts, missing=())
    note: Optional[str] = fact(Node.opt_text, default=None)


_GOOD = {"name": "a", "from": "2.1", "source": "somewhere", "retrieved": "2025-01-02"}


def _read(doc: dict[str, Any]) -> _Thing:
    return read_record(_Thing, Node(doc, "things.yaml", "things[3]"), extra=7)


def test_a_record_is_read_from_its_fields() -> None:
    thing = _read({**_GOOD, "note": "n", "tags": ["x", "y"]})
    assert thing == _Thing(
        "a", Version("2.1"), Provenance(("somewhere",), "2025-01-02"), 7, ("x", "y"), "n"
    )
    assert _read(_GOOD).note is None
    assert _read(_GOOD).tags == ()
    assert record_keys(_Thing) == ("name", "from", *SOURCE_KEYS, "tags", "note")


@pytest.mark.parametrize(
    ("change", "where", "problem"),
    [
        ({"colour": "red"}, "things[3]", "unknown key 'colour'"),
        ({"name": None}, "things[3].name", "expected a non-empty string"),
        ({"from": "two"}, "things[3].from", "two"),
        ({"note": 3.5, "tags": None}, "things[3].tags", "expected a list"),
        ({"retrieved": "yesterday"}, "things[3].retrieved", "is not a date"),
        ({"source": ""}, "things[3].source", "a fact needs a non-empty source"),
    ],
)
def test_errors_name_the_file_and_the_path(
    change: dict[str, Any], where: str, problem: str
) -> None:
    with pytest.raises(KBValidationError) as info:
        _read({**_GOOD, **change})
    text = str(info.value)
    assert "things.yaml" in text, text
    assert f"at {where}:" in text, text
    assert problem in text, text


@pytest.mark.parametrize("key", ["name", "from", "source", "retrieved"])
def test_a_required_key_is_required(key: str) -> None:
    doc = dict(_GOOD)
    del doc[key]
    with pytest.raises(
        KBValidationError, match=rf"things\[3\]\.{key}: this required key is missing"
    ):
        _read(doc)


def test_a_field_without_a_reader_is_a_programming_error() -> None:
    @dataclasses.dataclass(frozen=True)
    class Bare:
        name: str

    with pytest.raises(TypeError, match=r"Bare\.name has no reader"):
        read_record(Bare, Node({"name": "x"}, "f.yaml"))


def _record_classes() -> list[type]:
    found = []
    for info in pkgutil.iter_modules(tfenv.kb.__path__, "tfenv.kb."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and value.__module__ == module.__name__
                and dataclasses.is_dataclass(value)
                and any("tfenv.kb" in f.metadata for f in dataclasses.fields(value))
            ):
                found.append(value)
    return found


RECORDS = _record_classes()


def test_the_knowledge_base_records_are_described_by_their_fields() -> None:
    """Each record class of kb/ declares how every field is read (the walk finds them)."""
    names = {cls.__name__ for cls in RECORDS}
    assert {"Change", "KnownIssue", "ErrorEntry", "TfBuild", "WheelSet", "NgcRelease"} <= names
    for cls in RECORDS:
        assert record_keys(cls) is not None  # builds the schema: a field without a reader fails


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_a_record_with_provenance_enforces_its_source(cls: type) -> None:
    """A record whose provenance is its own has source and retrieved among its keys; one
    whose provenance is its file's (or its caller's) takes it from the caller."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for name, f in fields.items():
        if f.type in ("Provenance", Provenance) or name.endswith("provenance"):
            kind = f.metadata.get("tfenv.kb", (None,))[0]
            assert kind in ("<provenance>", "<given>"), (cls.__name__, name)
            if kind == "<provenance>":
                assert set(SOURCE_KEYS) <= set(record_keys(cls))


def test_a_shipped_record_read_generically_keeps_its_error_path() -> None:
    node = Node(
        {"id": "x-y", "since": "2.1", "kind": "nope", "summary": "s", "action": "a"},
        "tensorflow/changes.yaml",
        "changes[4]",
    )
    with pytest.raises(KBValidationError, match=r"changes\.yaml: at changes\[4\]\.kind: 'nope'"):
        read_record(Change, node)
