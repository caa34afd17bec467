"""``tfenv matrix``: rows derived from the KB, filters, formats, and the generated docs page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.matrix import matrix_rows, render_docs_page

DOCS = Path(__file__).parent.parent / "docs" / "matrix.md"


@pytest.mark.shipped_kb
def test_docs_page_is_generated_from_the_data(shipped_kb: KnowledgeBase) -> None:
    from tfenv.chart.render import matrix_chart_text

    kb = shipped_kb
    stale = "stale: run 'tfenv matrix --docs-page --svg docs/matrix.svg > docs/matrix.md'"
    assert DOCS.read_text("utf-8") == render_docs_page(matrix_rows(kb)), (
        f"docs/matrix.md is {stale}"
    )
    chart = DOCS.with_suffix(".svg").read_text("utf-8")
    assert chart == matrix_chart_text(kb, matrix_rows(kb)), f"docs/matrix.svg is {stale}"
    assert "](matrix.svg)" in DOCS.read_text("utf-8")


def test_rows_cover_every_series(kb: KnowledgeBase) -> None:
    series = [r.series for r in matrix_rows(kb)]
    assert series[0] == "2.0"
    assert "2.21" in series


def test_row_facts(kb: KnowledgeBase) -> None:
    (row,) = matrix_rows(kb, tf="2.15")
    assert (row.latest, row.cuda, row.cudnn) == ("2.15.1", "12.2", "8.9")
    assert row.min_driver_linux == "525.60.13"
    assert row.gpu_platforms == ["linux_x86_64"]
    (row0,) = matrix_rows(kb, tf="2.0")
    assert "GPU build: tensorflow-gpu" in row0.notes


def test_cuda_filter(kb: KnowledgeBase) -> None:
    rows = matrix_rows(kb, cuda_major=11)
    assert rows
    assert all(r.cuda and r.cuda.startswith("11.") for r in rows)


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--tf", "2.10", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["series"] == "2.10"
    assert "windows_x86_64" in row["gpu_platforms"]


@pytest.mark.parametrize("args", [["--tf", "two"], ["--cuda", "x"]])
def test_bad_filters(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", *args]) == 2
    assert "Traceback" not in capsys.readouterr().err
