"""The runtime facts (``tensorflow/runtime.yaml``): the file loads, every constraint is sourced
and dated, lookups by release and Python, and broken data named by file and path."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.snapshot import frozen_kb
from tfenv.errors import KBValidationError
from tfenv.kb.runtime import RUNTIME_FILE, load

V = Version
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

_GOOD = """\
swept: "2026-12-03"
command: "python tools/runtime_sweep.py"
constraints:
  - id: numpy-2-abi
    releases: ">=2.7.0rc0,<2.12"
    package: numpy
    requirement: "<2"
    declared: "numpy>=1.20"
    error: "TypeError: Unable to convert function return value to a Python type!"
    evidence: "2.10.1 on Python 3.10 broke with numpy 2.2.6 and ran with numpy 1.26.4"
    source: ["experiment: tools/runtime_sweep.py 2026-12-03"]
    retrieved: "2026-12-03"
  - id: protobuf-4-descriptors
    releases: ">=2.0,<2.6"
    pythons: ">=3.7"
    package: protobuf
    requirement: "<4"
    error: "TypeError: Descriptors cannot be created directly."
    evidence: "2.3.4 on Python 3.8 broke with protobuf 4.21.0 and ran with protobuf 3.20.3"
    source:
      - "experiment: tools/runtime_sweep.py 2026-12-03"
      - "https://github.com/tensorflow/tensorflow/issues/56266"
    retrieved: "2026-12-03"
  - id: h5py-late
    releases: ">=2.0,<2.6"
    package: h5py
    requirement: "<3"
    error: "E"
    evidence: "e"
    source: s
    retrieved: "2026-12-03"
results:
  - release: "2.3.4"
    python: "3.8"
    flavour: cpu
    distribution: tensorflow-cpu
    bare: broke
    constrained: ran
    error: "TypeError: Descriptors cannot be created directly."
    versions: {numpy: "1.18.5", protobuf: "3.20.3"}
"""


def _root(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tensorflow").mkdir(exist_ok=True)
    (tmp_path / "tensorflow" / "runtime.yaml").write_text(text, "utf-8")
    return tmp_path


def test_shipped_file_loads_and_is_sourced() -> None:
    facts = frozen_kb().runtime
    assert _DATE.match(facts.swept)
    assert "tools/runtime_sweep.py" in facts.command
    assert facts.constraints
    for c in facts.constraints:
        assert c.sources
        assert _DATE.match(c.retrieved)
        assert any(s.startswith("experiment: tools/runtime_sweep.py") for s in c.sources)
        assert c.error
        assert c.evidence
        assert str(SpecifierSet(c.requirement)) == c.requirement


def test_shipped_file_names_its_tool_and_no_registry_host() -> None:
    text = resources.files("tfenv.data").joinpath(RUNTIME_FILE).read_text("utf-8")
    assert "tools/runtime_sweep.py" in text.split("\n", 3)[1]
    for host in ("pypi" + ".org", "pythonhosted"):
        assert host not in text
    assert "/work/shared" not in text


def test_constraints_for(tmp_path: Path) -> None:
    facts = load(_root(tmp_path, _GOOD))
    found = facts.constraints_for(V("2.3.4"), "3.8")
    assert [c.package for c in found] == ["h5py", "protobuf"]  # sorted by package
    proto = found[1]
    assert (proto.id, proto.requirement, proto.line) == (
        "protobuf-4-descriptors",
        "<4",
        "protobuf<4",
    )
    assert proto.declared is None
    assert proto.provenance.sources[1].endswith("/56266")
    assert [c.package for c in facts.constraints_for(V("2.3.4"), "3.6")] == ["h5py"]
    assert [c.id for c in facts.constraints_for(V("2.10.1"), "3.10")] == ["numpy-2-abi"]
    assert facts.constraints_for(V("2.12.0"), "3.11") == ()


def test_prereleases_match(tmp_path: Path) -> None:
    facts = load(_root(tmp_path, _GOOD))
    assert [c.id for c in facts.constraints_for(V("2.7.0rc0"), "3.9")] == ["numpy-2-abi"]
    assert [c.id for c in facts.constraints_for(V("2.11.0rc2"), "3.9")] == ["numpy-2-abi"]


def test_results(tmp_path: Path) -> None:
    (result,) = load(_root(tmp_path, _GOOD)).results
    assert (result.release, result.python, result.flavour) == (V("2.3.4"), "3.8", "cpu")
    assert (result.bare, result.constrained) == ("broke", "ran")
    assert result.versions == (("numpy", "1.18.5"), ("protobuf", "3.20.3"))


@pytest.mark.parametrize(
    ("old", "new", "path", "problem"),
    [
        ('requirement: "<2"', 'requirement: "<<2"', "constraints[0].requirement", "specifier"),
        ('requirement: "<2"', 'requirement: ""', "constraints[0].requirement", "every release"),
        ("package: numpy", "package: NumPy", "constraints[0].package", "normalized"),
        ('releases: ">=2.0,<2.6"', 'releases: "2.0"', "constraints[2].releases", "specifier"),
        ('pythons: ">=3.7"', 'pythons: ">=3.x"', "constraints[1].pythons", "specifier"),
        ("id: numpy-2-abi", "id: Numpy_2", "constraints[0].id", "kebab"),
        ("id: h5py-late", "id: numpy-2-abi", "constraints[2].id", "appears twice"),
        ("    source: s\n", "", "constraints[2].source", "missing"),
        (
            '    retrieved: "2026-12-03"\nresults',
            '    retrieved: "soon"\nresults',
            "constraints[2].retrieved",
            "date",
        ),
        ('    error: "E"\n', "", "constraints[2].error", "missing"),
        ('    error: "E"\n', '    error: "a\\nb"\n', "constraints[2].error", "control character"),
        ("    package: h5py\n", "    package: h5py\n    pakage: x\n", "constraints[2]", "pakage"),
        ('swept: "2026-12-03"', 'swept: "today"', "swept", "date"),
        ("    bare: broke", "    bare: crashed", "results[0].bare", "not one of"),
        ("    flavour: cpu", "    flavour: tpu", "results[0].flavour", "not one of"),
        ('    python: "3.8"', '    python: "3"', "results[0].python", "X.Y"),
    ],
)
def test_broken_file(tmp_path: Path, old: str, new: str, path: str, problem: str) -> None:
    assert old in _GOOD
    text = _GOOD[::-1].replace(old[::-1], new[::-1], 1)[::-1]  # the last occurrence
    with pytest.raises(KBValidationError) as caught:
        load(_root(tmp_path, text))
    err = caught.value
    assert err.file == RUNTIME_FILE
    assert err.path == path
    assert problem in err.problem
    assert RUNTIME_FILE in str(err)


def test_duplicate_result(tmp_path: Path) -> None:
    entry = _GOOD.split("results:\n", 1)[1]
    with pytest.raises(KBValidationError, match="duplicate result") as caught:
        load(_root(tmp_path, _GOOD + entry))
    assert caught.value.path == "results[1]"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(KBValidationError, match="missing"):
        load(tmp_path)
