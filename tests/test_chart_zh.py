"""The charts and the text table's notes in the interface language: labels, legend, titles
and hover text in Chinese under --lang zh, from the same words as the text table; English
as before (docs/matrix.svg's drift test), data attributes the same in both."""

from __future__ import annotations

import contextlib
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tfenv import matrix
from tfenv.chart.cells import PLATFORMS
from tfenv.chart.palette import MACHINE, MATRIX
from tfenv.chart.render import matrix_chart_text
from tfenv.cli import main
from tfenv.i18n import _, using
from tfenv.kb import KnowledgeBase

NS = "{http://www.w3.org/2000/svg}"
_HAN = re.compile("[\u4e00-\u9fff]")


def _texts(svg: str, tag: str) -> list[str]:
    return [e.text or "" for e in ET.fromstring(svg).iter(f"{NS}{tag}")]


def _data_rows(svg: str) -> list[str]:
    return [
        g.attrib["data-row"] for g in ET.fromstring(svg).iter(f"{NS}g") if "data-row" in g.attrib
    ]


@pytest.fixture(scope="module")
def charts(kb: KnowledgeBase) -> dict[str, str]:
    rows = matrix.matrix_rows(kb)
    out = {}
    for lang in ("en", "zh"):
        with using(lang):
            out[lang] = matrix_chart_text(kb, rows)
    return out


def test_the_chart_speaks_chinese(charts: dict[str, str]) -> None:
    zh = charts["zh"]
    texts = _texts(zh, "text")
    assert "TensorFlow 兼容性图表（由 tfenv 根据其知识库生成）" in texts
    assert "图例" in texts
    assert "各平台的 GPU 构建" in texts
    with using("zh"):
        for swatch in MATRIX.values():
            assert _(swatch.legend) in texts
            assert _(swatch.legend) != swatch.legend
        for label, *_rest in PLATFORMS:
            assert _(label) in texts
        # the fact rows' labels are the text table's headings, in the same words
        for name in ("Python", "CUDA", "cuDNN", "driver Linux", "driver Windows/WSL2"):
            assert matrix.heading(name) in texts
    assert "驱动 Linux" in texts


def test_no_english_sentence_left_in_the_chinese_chart(charts: dict[str, str]) -> None:
    english = _texts(charts["en"], "text") + _texts(charts["en"], "title")
    chinese = set(_texts(charts["zh"], "text") + _texts(charts["zh"], "title"))
    # every English label or hover text with words in it reads differently in Chinese
    worded = [t for t in english if re.search(r"[a-z]{3,} [a-z]{2,} [a-z]{2,}", t)]
    assert len(worded) > 100
    left = [t for t in worded if t in chinese]
    assert left == []
    titles = [t for t in _texts(charts["zh"], "title") if " " in t]
    assert all(_HAN.search(t) for t in titles), [t for t in titles if not _HAN.search(t)][:3]


def test_the_charts_data_attributes_are_the_same_in_every_language(
    charts: dict[str, str],
) -> None:
    assert _data_rows(charts["zh"]) == _data_rows(charts["en"])
    assert "Windows (native)" in _data_rows(charts["zh"])


def test_the_html_page_says_its_language(kb: KnowledgeBase) -> None:
    rows = matrix.matrix_rows(kb, tf="2.15")
    with using("zh"):
        page = matrix_chart_text(kb, rows, "html")
    assert '<html lang="zh-Hans">' in page
    assert "<title>TensorFlow 兼容性图表" in page
    assert '<html lang="en">' in matrix_chart_text(kb, rows, "html")


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_the_machine_chart_speaks_chinese(tmp_path: Path) -> None:
    chart = tmp_path / "machine.svg"
    code, _out, err = _run(
        ["resolve", "--lang", "zh", "--os", "windows", "--gpu", "GTX 1060", "--driver", "452.06",
         "--tf", "2.3", "--chart", str(chart)]
    )  # fmt: skip
    assert code == 0
    assert f"已写入 {chart}" in err
    texts = _texts(chart.read_text("utf-8"), "text")
    assert "哪些 TensorFlow 适合这台机器（由 tfenv 生成）" in texts
    assert any(t.startswith("选中的方案，合适：TensorFlow 2.3.4") for t in texts)
    assert any(t.startswith("不合适的原因：") for t in texts)  # TF 2.11+: no GPU on Windows
    with using("zh"):
        assert all(_(s.legend) in texts for s in MACHINE.values())


def test_the_text_tables_notes_follow_the_language_and_json_stays_english() -> None:
    _code, zh, _err = _run(["matrix", "--lang", "zh"])
    assert "预发布版本" in zh or "GPU 构建：tensorflow-gpu" in zh
    assert "GPU 构建：tensorflow-gpu" in zh
    assert "GPU build:" not in zh
    _code, en, _err = _run(["matrix"])
    assert "GPU build: tensorflow-gpu" in en
    _code, zh_json, _err = _run(["matrix", "--json", "--lang", "zh"])
    _code, en_json, _err = _run(["matrix", "--json"])
    assert zh_json == en_json
    assert any("GPU build: tensorflow-gpu" in r["notes"] for r in json.loads(en_json))


def test_a_note_keeps_its_template_through_a_copy() -> None:
    import copy
    import pickle

    note = matrix.Note("GPU build: {package}", package="tensorflow-gpu")
    assert note == "GPU build: tensorflow-gpu"
    for kept in (copy.deepcopy(note), pickle.loads(pickle.dumps(note))):
        assert isinstance(kept, matrix.Note)
        with using("zh"):
            assert kept.local() == "GPU 构建：tensorflow-gpu"
