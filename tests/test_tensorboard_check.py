"""tools/tensorboard_check.py: its pure parts (the releases the sweep's plans installed, the
error line, the setuptools boundary, the data file it writes) and the shipped data file
against its recorded results."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

import pytest
from packaging.version import Version

from tfenv.kb.tensorboard import load

TOOLS = Path(__file__).parent.parent / "tools"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "tensorboard_check", TOOLS / "tensorboard_check.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["tensorboard_check"] = module
    spec.loader.exec_module(module)
    return module


tc = _tool()

_TRACE = """\
Traceback (most recent call last):
  File "/tmp/venv/bin/tensorboard", line 5, in <module>
    from tensorboard.main import run_main
  File "/tmp/venv/lib/python3.12/site-packages/tensorboard/default.py", line 30, in <module>
    import pkg_resources
ModuleNotFoundError: No module named 'pkg_resources'
"""


def _cell(python: str, tb: str, key: str = "bare_versions", **more: str) -> dict[str, Any]:
    return {"python": python, key: {"tensorboard": tb, "numpy": "1.26.4", **more}}


def _r(tb: str, req: str, setuptools: Optional[str], outcome: str) -> Any:
    error = "ModuleNotFoundError: No module named 'pkg_resources'" if outcome == "broke" else None
    return tc.Result(tb, "3.12", req, setuptools, outcome, outcome == "ok", outcome == "ok", error)


def test_targets_take_each_tensorboard_on_the_newest_python_with_the_plans_pins() -> None:
    cells = {
        "a": _cell("3.9", "2.20.0", protobuf="5.29.1"),
        "b": _cell("3.13", "2.20.0", protobuf="6.33.0", six="1.17.0"),
        "c": _cell("3.7", "2.0.2"),
        "d": {"python": "3.8", "bare_versions": {"numpy": "1.24.4"}},  # no tensorboard
    }
    found = tc.targets(cells)
    assert [(t.tensorboard, t.python) for t in found] == [("2.0.2", "3.7"), ("2.20.0", "3.13")]
    assert found[1].requirements("<82") == [
        "tensorboard==2.20.0",
        "numpy==1.26.4",
        "protobuf==6.33.0",
        "six==1.17.0",
        "setuptools<82",
    ]
    assert found[1].requirements("") == found[1].requirements("<82")[:-1]


def test_constrained_run_of_a_cell_wins_over_its_bare_run() -> None:
    cells = {"a": {**_cell("3.10", "2.9.0"), **_cell("3.10", "2.9.0", "constrained_versions")}}
    cells["a"]["constrained_versions"]["protobuf"] = "3.20.3"
    cells["a"]["bare_versions"]["protobuf"] = "6.33.0"
    (target,) = tc.targets(cells)
    assert ("protobuf", "3.20.3") in target.pins


def test_last_error_line_is_the_exception_not_the_last_line() -> None:
    assert tc.last_error_line(_TRACE) == "ModuleNotFoundError: No module named 'pkg_resources'"
    assert tc.last_error_line(_TRACE + "\nsome note after it\n") == (
        "ModuleNotFoundError: No module named 'pkg_resources'"
    )
    assert tc.last_error_line("just text") == "just text"
    assert tc.last_error_line("") is None


def test_boundary_is_the_newest_good_and_oldest_bad_setuptools_of_the_broken_releases() -> None:
    results = [
        _r("2.2.2", "", "75.3.4", "ok"),  # never broke: says nothing of the edge
        _r("2.20.0", "", "84.2.1", "broke"),
        _r("2.20.0", "<82", "81.0.0", "ok"),
        _r("2.20.0", "==82.0.0", "82.0.0", "broke"),
        _r("2.21.0", "==82.0.0", "82.0.0", "ok"),
        _r("2.0.2", "==82.0.0", None, "no-install"),
    ]
    assert tc.boundary(results) == ("81.0.0", "82.0.0")
    assert tc.broken_releases(results) == ["2.20.0"]
    assert tc.fixed_release(results, "82.0.0") == "2.21.0"


def test_no_boundary_when_nothing_broke_or_a_good_version_is_newer_than_a_bad_one() -> None:
    assert tc.boundary([_r("2.21.0", "", "84.2.1", "ok")]) is None
    overlapping = [_r("2.20.0", "", "84.2.1", "ok"), _r("2.20.0", "==82.0.0", "82.0.0", "broke")]
    assert tc.boundary(overlapping) is None


def test_merged_keeps_the_releases_not_checked_again() -> None:
    before = [_r("2.20.0", "", "84.2.1", "broke"), _r("2.8.0", "<82", "81.0.0", "broke")]
    now = [_r("2.8.0", "<82", "81.0.0", "ok"), _r("2.8.0", "", "84.2.1", "broke")]
    out = tc.merged(before, now)
    assert [(r.tensorboard, r.requested, r.outcome) for r in out] == [
        ("2.8.0", "", "broke"),
        ("2.8.0", "<82", "ok"),
        ("2.20.0", "", "broke"),
    ]


def test_written_data_file_reads_back_with_the_bound(tmp_path: Path) -> None:
    results = [
        _r("2.20.0", "", "84.2.1", "broke"),
        _r("2.20.0", "<82", "81.0.0", "ok"),
        _r("2.20.0", "==82.0.0", "82.0.0", "broke"),
        _r("2.21.0", "==82.0.0", "82.0.0", "ok"),
    ]
    (tmp_path / "tensorflow").mkdir()
    text = tc.render_yaml(results, "2026-12-08", "python tools/tensorboard_check.py")
    (tmp_path / "tensorflow" / "tensorboard.yaml").write_text(text)
    bound = load(tmp_path)
    assert bound.line == "setuptools<82"
    assert (bound.last_good, bound.first_bad, bound.fixed) == (
        Version("81.0.0"),
        Version("82.0.0"),
        Version("2.21.0"),
    )
    assert bound.breaks(Version("2.20.0"), Version("84.2.1"))
    assert bound.breaks(Version("2.20.0"), None)
    assert not bound.breaks(Version("2.20.0"), Version("81.0.0"))
    assert not bound.breaks(Version("2.21.0"), Version("84.2.1"))


def test_render_refuses_results_without_a_boundary() -> None:
    with pytest.raises(SystemExit):
        tc.render_yaml([_r("2.21.0", "", "84.2.1", "ok")], "2026-12-08", "cmd")


def test_shipped_data_file_is_the_one_the_recorded_results_write() -> None:
    checked, results = tc.load_results(tc.OUT)
    assert tc.DATA.read_text() == tc.render_yaml(
        results, checked, "python tools/tensorboard_check.py"
    )
    bound = load()
    assert bound.line == "setuptools<82"
    assert bound.fixed == Version("2.21.0")


def test_a_break_for_another_reason_is_no_evidence_of_the_bound() -> None:
    other = tc.Result("2.7.0", "3.10", "<82", "81.0.0", "broke", False, False, "ImportError: x")
    results = [other, _r("2.20.0", "", "84.2.1", "broke"), _r("2.20.0", "<82", "81.0.0", "ok")]
    assert tc.boundary(results) == ("81.0.0", "84.2.1")
    assert tc.broken_releases([other]) == []
