"""A Target is built from a mapping of facts in one place, ``Target.from_facts``, with one
check that names the key; flags, host files (and so the configuration's targets and the
team lock) and explain's hints all go through it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.models.driver import DriverVersion
from tfenv.models.platform import UnsupportedPlatform
from tfenv.models.target import Target, TargetFactError

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"


def test_from_facts_builds_the_target() -> None:
    t = Target.from_facts(
        {"os": "linux", "arch": "x86_64", "cc": Version("8.6"), "driver": DriverVersion("535.1")},
        detected=["os"],
        notes=["a note"],
    )
    assert t == Target(
        "linux",
        "x86_64",
        cc=Version("8.6"),
        driver=DriverVersion("535.1"),
        detected=frozenset({"os"}),
        notes=("a note",),
    )


@pytest.mark.parametrize(
    ("facts", "key"),
    [
        ({"os": "linux", "arch": "x86_64", "kernel": "6.1"}, "kernel"),  # no such fact
        ({"os": "linux", "arch": "x86_64", "python": "3.11"}, "python"),  # not parsed
        ({"os": "linux", "arch": "x86_64", "driver": 535}, "driver"),
        ({"os": "linux", "arch": "x86_64", "detected": frozenset()}, "detected"),  # not a fact
        ({"arch": "x86_64"}, "os"),  # required
        ({"os": "linux", "arch": None}, "arch"),
    ],
)
def test_a_bad_fact_is_named(facts: dict[str, object], key: str) -> None:
    with pytest.raises(TargetFactError) as info:
        Target.from_facts(facts)
    assert info.value.key == key
    assert repr(key) in str(info.value)


def test_a_machine_without_wheels_is_unsupported() -> None:
    with pytest.raises(UnsupportedPlatform):
        Target.from_facts({"os": "windows", "arch": "aarch64"})


def test_no_target_is_built_from_a_mapping_elsewhere() -> None:
    spread = re.compile(r"\bTarget\(\s*\*\*")
    hits = [
        f"{p.relative_to(SRC)}:{no}"
        for p in sorted(SRC.rglob("*.py"))
        for no, line in enumerate(p.read_text("utf-8").splitlines(), 1)
        if spread.search(line)
    ]
    assert hits == []
    assert spread.search("return Target(**changes)")
