"""tools/runtime_sweep.py: its pure parts (error lines, bounds, bisection, wheel tags, the
facts written from the cells) and the generated docs page against the shipped data."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, Optional

import pytest
from packaging.version import Version

from tests import runtime_tool
from tfenv.kb.runtime import load

V = Version


rs = runtime_tool.load()

_PROTOBUF_LOG = """\
Traceback (most recent call last):
  File "child.py", line 3, in <module>
    _message.Message._CheckCalledFromGeneratedFile()
TypeError: Descriptors cannot be created directly.
If this call came from a _pb2.py file, your generated code is out of date.
 1. Downgrade the protobuf package to 3.20.x or lower.

More information: https://developers.google.com/protocol-buffers/docs/news/2022-05-06
"""

_NUMPY_LOG = """\
A module that was compiled using NumPy 1.x cannot be run in
NumPy 2.2.6 as it may crash.
AttributeError: _ARRAY_API not found
Traceback (most recent call last):
  File "child.py", line 3, in <module>
TypeError: Unable to convert function return value to a Python type! The signature was
\t() -> handle
"""


def test_first_error_line() -> None:
    assert (
        rs.first_error_line(_PROTOBUF_LOG) == "TypeError: Descriptors cannot be created directly."
    )
    assert rs.first_error_line(_NUMPY_LOG) == (
        "TypeError: Unable to convert function return value to a Python type! The signature was"
    )
    assert rs.first_error_line("killed\n") == "killed"
    assert rs.first_error_line("") == "(no output)"
    assert len(rs.first_error_line("ValueError: " + "x" * 500)) == 200


@pytest.mark.parametrize(
    ("good", "bad", "bound"),
    [
        ("1.26.4", "2.0.0", "<2"),
        ("3.20.3", "4.21.0", "<4"),
        ("4.21.0", "4.22.0", "<4.22"),
        ("1.23.5", "1.24.0", "<1.24"),
        ("1.24.3", "1.24.4", "<1.24.4"),
        ("2.0.2", "2.1.0rc1", "<2.1.0rc1"),
    ],
)
def test_simplest_bound(good: str, bad: str, bound: str) -> None:
    assert rs.simplest_bound(V(good), V(bad)) == bound


def test_simplest_bound_needs_order() -> None:
    with pytest.raises(ValueError, match="not older"):
        rs.simplest_bound(V("2.0"), V("1.0"))


def test_bisect_first_bad() -> None:
    versions = [V(f"1.{i}") for i in range(20)]
    probed: list[Version] = []

    def probe(v: Version) -> Optional[bool]:
        probed.append(v)
        return v < V("1.13")

    assert rs.bisect_first_bad(versions, probe) == (V("1.12"), V("1.13"))
    assert len(probed) <= 5
    assert V("1.0") not in probed  # the ends are known


def test_bisect_skips_what_cannot_install() -> None:
    versions = [V(f"1.{i}") for i in range(10)]

    def probe(v: Version) -> Optional[bool]:
        return None if v in (V("1.4"), V("1.5")) else v < V("1.5")

    assert rs.bisect_first_bad(versions, probe) == (V("1.3"), V("1.6"))


@pytest.mark.parametrize(
    ("filename", "python", "serves"),
    [
        ("numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "3.10", True),
        ("numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", "3.11", False),
        ("numpy-1.26.4-cp310-cp310-macosx_11_0_arm64.whl", "3.10", False),
        ("numpy-1.26.4-cp310-cp310-manylinux_2_17_aarch64.whl", "3.10", False),
        ("protobuf-3.20.3-py2.py3-none-any.whl", "3.6", True),
        ("protobuf-4.25.3-cp37-abi3-manylinux2014_x86_64.whl", "3.12", True),
        ("protobuf-4.25.3-cp37-abi3-manylinux2014_x86_64.whl", "3.6", False),
        ("not-a-wheel.tar.gz", "3.10", False),
    ],
)
def test_wheel_serves(filename: str, python: str, serves: bool) -> None:
    assert rs.wheel_serves(filename, python) is serves


def test_versions_with_wheels() -> None:
    files = [
        "numpy-2.0.0-cp310-cp310-manylinux_2_17_x86_64.whl",
        "numpy-1.26.4-cp310-cp310-manylinux_2_17_x86_64.whl",
        "numpy-2.1.0rc1-cp310-cp310-manylinux_2_17_x86_64.whl",
        "numpy-1.25.0-cp311-cp311-manylinux_2_17_x86_64.whl",
        "numpy-1.25.0.tar.gz",
    ]
    assert rs.versions_with_wheels(files, "3.10") == (V("1.26.4"), V("2.0.0"))


def test_pick_pythons() -> None:
    served = ["3.7", "3.8", "3.9", "3.10"]
    available = ["3.6", "3.8", "3.9", "3.10", "3.13"]
    assert rs.pick_pythons(served, available, every=False) == ("3.8", "3.10")
    assert rs.pick_pythons(served, available, every=True) == ("3.8", "3.9", "3.10")
    assert rs.pick_pythons(["3.9"], available, every=False) == ("3.9",)


def test_declared_for() -> None:
    requires = [
        "numpy<2.0.0,>=1.23.5; python_version <= '3.11'",
        "numpy<2.0.0,>=1.26.0; python_version >= '3.12'",
        "protobuf>=3.9.2",
    ]
    assert rs.declared_for(requires, "numpy", "3.10") == "numpy<2.0.0,>=1.23.5"
    assert rs.declared_for(requires, "numpy", "3.12") == "numpy<2.0.0,>=1.26.0"
    assert rs.declared_for(requires, "protobuf", "3.12") == "protobuf>=3.9.2"
    assert rs.declared_for(requires, "keras", "3.12") is None


def _cell(release: str, python: str, bare: str, *findings: object, numpy: str = "2.2.6") -> Any:
    return rs.Cell(
        release,
        python,
        "cpu",
        "tensorflow-cpu",
        bare,
        None if bare == "ran" else "TypeError: Unable to convert function return value",
        {"numpy": numpy},
        list(findings),
        "ran" if findings else None,
        {"numpy": "1.26.4"} if findings else {},
        None,
        "2026-12-03",
        1.0,
    )


def _numpy() -> Any:
    return rs.Finding("numpy", "<2", "1.26.4", "2.0.0", "TypeError: Unable to convert")


def _infos(*versions: str) -> dict[str, object]:
    return {
        v: rs.ReleaseInfo(V(v), {"3.7": ("numpy>=1.20",), "3.10": ("numpy>=1.20",)}, None)
        for v in versions
    }


def test_constraints_group_consecutive_releases() -> None:
    cells = [
        _cell("2.9.3", "3.10", "broke", _numpy()),
        _cell("2.10.0", "3.10", "broke", _numpy()),
        _cell("2.10.1", "3.10", "broke", _numpy()),
        _cell("2.11.0", "3.10", "ran", numpy="1.21.6"),  # breaks the run
        _cell("2.11.1", "3.10", "broke", _numpy()),
        _cell("2.10.1", "3.7", "ran", numpy="1.21.6"),  # satisfies the bound: no Python limit
    ]
    infos = _infos("2.9.3", "2.10.0", "2.10.1", "2.11.0", "2.11.1")
    records = rs.constraints_from(cells, infos)
    assert [(r["id"], r["releases"]) for r in records] == [
        ("numpy-lt-2-tf-2-9-3-to-2-10-1", ">=2.9.3,<=2.10.1"),
        ("numpy-lt-2-tf-2-11-1", "==2.11.1"),
    ]
    first = records[0]
    assert "pythons" not in first
    assert first["declared"] == "numpy>=1.20"
    assert first["evidence"].startswith(
        "tensorflow-cpu 2.10.1 on Python 3.10 broke with numpy 2.2.6"
    )
    assert "3 runs of 3 release(s)" in first["evidence"]
    assert first["source"][0] == "experiment: tools/runtime_sweep.py 2026-12-03"
    assert "https://github.com/tensorflow/tensorflow/issues/91042" in first["source"]


def test_pythons_only_where_the_experiment_showed_the_need() -> None:
    cells = [
        _cell("2.10.1", "3.10", "broke", _numpy()),
        _cell("2.10.1", "3.7", "ran", numpy="2.0.2"),  # ran with a NumPy the bound excludes
    ]
    (record,) = rs.constraints_from(cells, _infos("2.10.1"))
    assert record["pythons"] == ">=3.10"


def test_render_yaml_loads_and_is_stable(tmp_path: Path) -> None:
    cells = [_cell("2.10.1", "3.10", "broke", _numpy()), _cell("2.12.0", "3.11", "ran")]
    infos = _infos("2.10.1", "2.12.0")
    text = rs.render_yaml(cells, infos, "python tools/runtime_sweep.py")
    assert text == rs.render_yaml(list(reversed(cells)), infos, "python tools/runtime_sweep.py")
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "runtime.yaml").write_text(text, "utf-8")
    facts = load(tmp_path)
    (constraint,) = facts.constraints_for(V("2.10.1"), "3.10")
    assert constraint.line == "numpy<2"
    assert [(str(r.release), r.bare, r.constrained) for r in facts.results] == [
        ("2.10.1", "broke", "ran"),
        ("2.12.0", "ran", None),
    ]
    doc = rs.render_doc(facts)
    assert "1/2 runs trained a Keras step as the releases declare" in doc
    assert "2/2 with the recorded constraints applied" in doc


def test_state_round_trip(tmp_path: Path) -> None:
    cell = _cell("2.10.1", "3.10", "broke", _numpy())
    rs.save_state(tmp_path / "s.json", {cell.key: cell})
    assert rs.load_state(tmp_path / "s.json") == {cell.key: cell}


@pytest.mark.shipped_kb
def test_doc_matches_the_data(shipped_kb: Any) -> None:
    doc = (Path(__file__).parent.parent / "docs" / "runtime.md").read_text("utf-8")
    assert doc == rs.render_doc(shipped_kb.runtime), (
        "docs/runtime.md is stale: python tools/runtime_sweep.py --write-only"
    )


@pytest.mark.shipped_kb
def test_data_is_derived_from_the_recorded_cells(shipped_kb: Any) -> None:
    """runtime.yaml is what the tool writes from the cells kept in the repository."""
    state = rs.load_state(rs.STATE_FILE)
    assert state, f"{rs.STATE_FILE} holds the sweep's cells"
    infos = rs.release_infos(shipped_kb)
    cells = [c for c in state.values() if c.release in infos]
    shipped = rs.DATA_FILE.read_text("utf-8")
    assert shipped == rs.render_yaml(cells, infos, "python " + rs.TOOL), (
        "runtime.yaml is stale or edited by hand: python tools/runtime_sweep.py --write-only"
    )


def test_keep_disk_empties_only_the_sweeps_own_cache(tmp_path: Path) -> None:
    import argparse

    cache = tmp_path / "uv-cache"
    (cache / "wheels").mkdir(parents=True)
    roomy = argparse.Namespace(uv_cache=cache, min_free_gb=0.0)
    rs._keep_disk(roomy)
    assert (cache / "wheels").is_dir()
    short = argparse.Namespace(uv_cache=cache, min_free_gb=1e9)  # never that much free
    rs._keep_disk(short)
    assert not cache.exists()
    rs._keep_disk(argparse.Namespace(uv_cache=None, min_free_gb=1e9))  # uv's own: left


def test_error_lines_leave_out_the_throwaway_environment() -> None:
    line = (
        "ImportError: cannot import name 'dtensor' from 'tensorflow.compat.v2.experimental' "
        "(/tmp/w/sweep-ab12/venv/lib/python3.9/site-packages/tensorflow/_api/__init__.py)"
    )
    said = rs.first_error_line("Traceback (most recent call last):\n" + line + "\n")
    assert said == (
        "ImportError: cannot import name 'dtensor' from 'tensorflow.compat.v2.experimental' "
        "(<site-packages>/tensorflow/_api/__init__.py)"
    )


def test_a_tighter_known_bound_is_still_tried() -> None:
    """2.6.0: keras<2.9 cures one error and shows the next (keras 2.8 breaks too), so the
    known keras<2.7 must still be tried; a looser known bound is not."""
    looser = rs.Finding("keras", "<2.9", "2.8.0", "2.9.0", "ImportError: dtensor")
    tighter = rs.Finding("keras", "<2.7", "2.6.0", "2.7.0", "AlreadyExistsError: metric")
    assert not rs._bounded_as([looser], tighter)
    assert rs._bounded_as([tighter], looser)
    assert not rs._bounded_as([], tighter)
    other = rs.Finding("protobuf", "<4", "3.20.3", "4.21.1", "TypeError: Descriptors")
    assert not rs._bounded_as([other], tighter)


class _TwoCulprits:
    """A fake runner for a release that runs only with NumPy 1.x *and* an old ml-dtypes
    (2.14.0rc0 on Python 3.9: ``ml-dtypes>=0.2.0``, no single pin-back cures it)."""

    VERSIONS: ClassVar[dict[str, list[str]]] = {
        "numpy": ["1.25.2", "1.26.4", "2.0.2"],
        "ml-dtypes": ["0.2.0", "0.3.1", "0.5.1"],
    }
    DAY: ClassVar[dict[str, str]] = {"numpy": "1.25.2", "ml-dtypes": "0.2.0"}

    def __init__(self) -> None:
        self.runs: list[list[str]] = []

    def try_plan(self, python: str, lines: list[str], exclude_newer: Optional[str] = None) -> Any:
        from packaging.requirements import Requirement

        self.runs.append(list(lines))
        chosen: dict[str, str] = {}
        for package, versions in self.VERSIONS.items():
            specs = [Requirement(ln).specifier for ln in lines[1:] if ln.startswith(package)]
            fits = [v for v in versions if all(s.contains(v) for s in specs)]
            if exclude_newer:
                fits = [v for v in fits if V(v) <= V(self.DAY[package])]
            chosen[package] = max(fits, key=V)
        ok = V(chosen["numpy"]) < V("2") and V(chosen["ml-dtypes"]) < V("0.3")
        return rs.Run("ran" if ok else "broke", "" if ok else _NUMPY_LOG, chosen)


def test_culprits_that_need_each_other_are_found() -> None:
    runner = _TwoCulprits()
    files = {
        p: [
            type("F", (), {"filename": f"{p.replace('-', '_')}-{v}-py3-none-any.whl"})() for v in vs
        ]
        for p, vs in _TwoCulprits.VERSIONS.items()
    }
    sweep = rs.Sweep(runner, lambda p: files[p], lambda line: None)
    plan = rs.Plan("2.14.0rc0", "3.9", "gpu", "tensorflow", "2023-08-17")
    cell = sweep.cell(plan)
    assert cell.bare == "broke"
    assert cell.constrained == "ran", cell.note
    assert {(f.package, f.requirement) for f in cell.findings} == {
        ("numpy", "<2"),
        ("ml-dtypes", "<0.3"),
    }


def _tb_cell(release: str, python: str, tensorboard: str, setuptools: str) -> Any:
    versions = {"tensorboard": tensorboard, "setuptools": setuptools}
    return rs.Cell(release, python, "cpu", "tensorflow-cpu", "ran", None, versions)


def test_tensorboard_bound_is_written_where_the_plans_tensorboard_does_not_start() -> None:
    """setuptools<82 (the bound tools/tensorboard_check.py measured) for the releases whose
    cells installed a TensorBoard before the fixed one beside setuptools 82 or newer; a
    Python that kept an older setuptools, a fixed TensorBoard and a gap split the records."""
    from tfenv.kb.tensorboard import load as load_tensorboard

    bound = load_tensorboard()
    cells = [
        _tb_cell("2.15.0", "3.8", "2.15.2", "75.3.4"),  # an older setuptools: starts
        _tb_cell("2.15.0", "3.11", "2.15.2", "84.2.1"),
        _tb_cell("2.15.1", "3.8", "2.15.2", "75.3.4"),
        _tb_cell("2.15.1", "3.11", "2.15.2", "84.2.1"),
        _tb_cell("2.16.1", "3.12", str(bound.fixed), "84.2.1"),  # a fixed TensorBoard
        _tb_cell("2.17.0", "3.12", "2.17.1", "84.2.1"),
    ]
    records = rs.tensorboard_constraints(cells, bound)
    assert [(r["releases"], r.get("pythons")) for r in records] == [
        (">=2.15.0,<=2.15.1", str(bound.pythons)),
        ("==2.17.0", None),
    ]
    assert records[0]["package"] == "setuptools"
    assert records[0]["requirement"] == bound.requirement
    assert records[0]["source"][0].startswith("experiment: tools/tensorboard_check.py")
    assert "2 runs of 2 release(s) alike" in records[0]["evidence"]
