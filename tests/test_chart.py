"""The charts (``tfenv matrix --svg/--html``, ``tfenv resolve --chart``): valid SVG with
every series and GPU generation labelled, every cell agreeing with the solver, the same
bytes every time, hostile text escaped, and the files written whole or not at all."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.host_doc import host_document
from tfenv import matrix, rules
from tfenv.chart.cells import PLATFORMS, Generation, generations, gpu_cell
from tfenv.chart.palette import MACHINE, MATRIX, OKABE_ITO
from tfenv.chart.render import machine_chart_text, matrix_chart_text
from tfenv.cli import main
from tfenv.host.profile import CC_SOURCES, GpuInfo
from tfenv.kb import KnowledgeBase
from tfenv.models.driver import DriverVersion
from tfenv.models.plan import Resolution
from tfenv.models.target import Request, Target
from tfenv.resolver import resolve, solve_once

NS = "{http://www.w3.org/2000/svg}"


@dataclass(frozen=True)
class SvgCell:
    row: str
    series: str
    verdict: str
    fill: str
    title: str
    text: str


def _cells(svg: str) -> list[SvgCell]:
    root = ET.fromstring(svg)
    out = []
    for g in root.iter(f"{NS}g"):
        if "data-verdict" not in g.attrib or "data-row" not in g.attrib:
            continue
        rect = g.find(f"{NS}rect")
        title = g.find(f"{NS}title")
        text = g.find(f"{NS}text")
        assert rect is not None
        assert title is not None
        assert text is not None
        out.append(
            SvgCell(
                g.attrib["data-row"],
                g.attrib["data-series"],
                g.attrib["data-verdict"],
                rect.attrib["fill"],
                title.text or "",
                text.text or "",
            )
        )
    return out


def _texts(svg: str) -> list[str]:
    return [t.text or "" for t in ET.fromstring(svg).iter(f"{NS}text")]


@pytest.fixture(scope="module")
def chart_svg() -> str:
    kb = KnowledgeBase.from_environment()
    return matrix_chart_text(kb, matrix.matrix_rows(kb))


@pytest.fixture(scope="module")
def svg_cells(chart_svg: str) -> list[SvgCell]:
    return _cells(chart_svg)


# -- structure ---------------------------------------------------------------------


def test_the_svg_parses_and_labels_every_series_generation_and_platform(
    kb: KnowledgeBase, chart_svg: str
) -> None:
    root = ET.fromstring(chart_svg)
    assert root.tag == f"{NS}svg"
    assert root.find(f"{NS}title") is not None
    assert root.find(f"{NS}desc") is not None
    texts = _texts(chart_svg)
    series = [r.series for r in matrix.matrix_rows(kb)]
    assert series[0] == "2.0"
    assert len(series) >= 22
    for s in series:
        assert s in texts, f"series {s} has no label"
    gens = generations(kb)
    assert {g.architecture for g in gens} >= {"Kepler", "Maxwell", "Pascal", "Volta", "Turing"}
    assert {g.architecture for g in gens} >= {"Ampere", "Ada Lovelace", "Hopper", "Blackwell"}
    for g in gens:
        assert g.label in texts, f"GPU generation {g.label} has no label"
    for label, *_ in PLATFORMS:
        assert label in texts
    for name in ("Python", "CUDA", "cuDNN", "driver Linux", "driver Windows/WSL2"):
        assert name in texts
    for swatch in MATRIX.values():
        assert swatch.legend in texts, f"the legend lacks {swatch.legend!r}"


def test_every_row_has_one_cell_per_series(kb: KnowledgeBase, svg_cells: list[SvgCell]) -> None:
    series = [r.series for r in matrix.matrix_rows(kb)]
    rows: dict[str, list[str]] = {}
    for c in svg_cells:
        rows.setdefault(c.row, []).append(c.series)
    assert len(rows) == 5 + len(generations(kb)) + len(PLATFORMS)
    for name, found in rows.items():
        assert found == series, name


def test_colours_are_okabe_ito_and_match_the_verdict(svg_cells: list[SvgCell]) -> None:
    allowed = set(OKABE_ITO.values()) | {MATRIX["no-wheel"].fill, MATRIX["unknown"].fill}
    for swatch in (*MATRIX.values(), *MACHINE.values()):
        assert swatch.fill in allowed | {"#F2F2F2"}
    for c in svg_cells:
        if c.verdict == "fact":
            continue
        assert c.fill == MATRIX[c.verdict].fill, c
        assert c.text == MATRIX[c.verdict].mark, c


def test_every_cell_says_its_fact_and_source(svg_cells: list[SvgCell]) -> None:
    for c in svg_cells:
        assert c.title, c
        if c.verdict in ("native", "partly-jit", "jit", "cannot-load", "gpu-build"):
            assert "source:" in c.title, c


def test_fact_cells_are_the_matrix_cells(kb: KnowledgeBase, svg_cells: list[SvgCell]) -> None:
    rows = {r.series: r for r in matrix.matrix_rows(kb)}
    for c in svg_cells:
        if c.verdict == "fact":
            value = rows[c.series].cells()[matrix.COLUMNS.index(c.row)]
            assert c.text == value, c


# -- every cell agrees with the solver ---------------------------------------------------


def _request(version: str, manager: str = "auto", allow_cpu: bool = False) -> Request:
    return Request(
        tf=SpecifierSet(f"=={version}"), tf_text=version, manager=manager, allow_cpu=allow_cpu
    )


def _solver_gpu_verdict(res: Resolution) -> str:
    """The verdict the solver's answer gives, read from its plan or its conflicts only."""
    if res.plan is None:
        gpu_topics = [r.topic for r in rules.RULES if r.fact_key == "gpu"]
        assert any(c.sentence.startswith(t) for c in res.conflicts for t in gpu_topics), (
            res.conflicts
        )
        return "cannot-load"
    said = res.plan.gpu_code or ""
    if said.startswith("natively"):
        return "native"
    if said.startswith("by PTX JIT"):
        return "jit"
    assert "natively" in said, said
    assert "PTX JIT" in said, said
    return "partly-jit"


def test_every_gpu_cell_is_what_the_solver_says(
    kb: KnowledgeBase, svg_cells: list[SvgCell]
) -> None:
    """The property over the whole chart: for every GPU generation and series, the colour
    is the verdict ``tfenv resolve --manager pip`` gives for that GPU and release."""
    latest = {r.series: r.latest for r in matrix.matrix_rows(kb)}
    gens = {g.label: g for g in generations(kb)}
    checked = 0
    for c in svg_cells:
        if c.row not in gens:
            continue
        version = latest[c.series]
        assert version is not None
        target = Target("linux", "x86_64", cc=gens[c.row].cc)
        res = solve_once(kb, target, _request(version, "pip"))
        assert c.verdict == _solver_gpu_verdict(res), (c, res.plan, res.conflicts)
        checked += 1
    assert checked == len(gens) * len(latest)


def _solver_platform_verdict(kb: KnowledgeBase, os: str, arch: str, version: str) -> str:
    # an NVIDIA GPU every release has native code for (sm_70), on platforms with CUDA drivers
    cc = Version("7.5") if os != "macos" else None
    res = solve_once(kb, Target(os, arch, cc=cc), _request(version, allow_cpu=True))
    if res.plan is None and (os, arch) == ("macos", "arm64"):
        # before 2.13 the series comes as Apple's tensorflow-macos, whose newest release of
        # the series need not be tensorflow's (2.12.0 vs 2.12.1): the series is asked for
        v = Version(version)
        res = solve_once(kb, Target(os, arch), _request(f"{v.major}.{v.minor}.*", allow_cpu=True))
    if res.plan is None:
        return "no-wheel"
    return "cpu-only" if res.plan.accelerator == "cpu" else "gpu-build"


def test_every_platform_cell_is_what_the_solver_says(
    kb: KnowledgeBase, svg_cells: list[SvgCell]
) -> None:
    latest = {r.series: r.latest for r in matrix.matrix_rows(kb)}
    where = {label: (os, arch) for label, os, arch, _ in PLATFORMS}
    checked = 0
    for c in svg_cells:
        if c.row not in where:
            continue
        version = latest[c.series]
        assert version is not None
        said = _solver_platform_verdict(kb, *where[c.row], version)
        assert c.verdict == said, c
        checked += 1
    assert checked == len(PLATFORMS) * len(latest)


_KB = KnowledgeBase.from_environment()
_ROWS = {r.series: r for r in matrix.matrix_rows(_KB)}
_BUILDS = {str(b.series): b for b in _KB.builds.all}


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    series=st.sampled_from(sorted(_ROWS)),
    major=st.integers(min_value=2, max_value=13),
    minor=st.integers(min_value=0, max_value=9),
)
def test_any_gpu_cell_is_what_the_solver_says(series: str, major: int, minor: int) -> None:
    """The same property for compute capabilities no GPU in the list has (yet): the cell
    the chart would draw is the solver's verdict."""
    row = _ROWS[series]
    assert row.latest is not None
    gen = Generation(
        "Future", Version(f"{major}.{minor}"), ("a GPU",), _KB.builds.all[0].provenance
    )
    cell = gpu_cell(_KB, row, _BUILDS[series], gen)
    res = solve_once(_KB, Target("linux", "x86_64", cc=gen.cc), _request(row.latest, "pip"))
    assert cell.verdict == _solver_gpu_verdict(res), (cell, res.conflicts)


def test_known_cells(svg_cells: list[SvgCell]) -> None:
    """Facts the chart must show (checked by hand against the text table and the docs)."""
    at = {(c.row, c.series): c.verdict for c in svg_cells}
    assert at[("Windows (native)", "2.10")] == "gpu-build"
    assert at[("Windows (native)", "2.11")] == "cpu-only"
    assert at[("Blackwell 12.0", "2.20")] == "cannot-load"  # sm_90a-only PTX
    assert at[("Blackwell 12.0", "2.21")] == "jit"
    assert at[("Ampere 8.6", "2.15")] == "partly-jit"
    assert at[("Ampere 8.6", "2.16")] == "native"
    assert at[("Kepler 3.5", "2.15")] == "cannot-load"
    # Apple silicon before 2.13 came as tensorflow-macos, which the solver does not plan
    assert at[("Apple silicon (Metal)", "2.12")] == "gpu-build"  # tensorflow-macos + plug-in
    assert at[("Apple silicon (Metal)", "2.4")] == "no-wheel"
    assert at[("Apple silicon (Metal)", "2.13")] == "gpu-build"


# -- bytes ---------------------------------------------------------------------------


def test_the_same_bytes_every_time(kb: KnowledgeBase, chart_svg: str) -> None:
    again = matrix_chart_text(KnowledgeBase.from_environment(), matrix.matrix_rows(kb))
    assert again == chart_svg
    page = matrix_chart_text(kb, matrix.matrix_rows(kb), "html")
    assert page == matrix_chart_text(kb, matrix.matrix_rows(kb), "html")
    assert page.startswith("<!DOCTYPE html>")
    assert "<svg" in page
    for outside in ("<script", "<link", "<img", "src=", "href=", "url(", "@import"):
        assert outside not in page, outside  # self-contained: nothing loaded from elsewhere


# -- the chart of one machine -----------------------------------------------------------


def _machine(kb: KnowledgeBase, target: Target, request: Optional[Request] = None) -> str:
    res = resolve(kb, target, request or Request())
    return machine_chart_text(kb, res)


def _strips(svg: str) -> dict[str, tuple[str, bool, str]]:
    out = {}
    for g in ET.fromstring(svg).iter(f"{NS}g"):
        if "data-chosen" in g.attrib:
            rect = g.find(f"{NS}rect")
            assert rect is not None
            assert rect.attrib["fill"] == MACHINE[g.attrib["data-verdict"]].fill
            chosen = g.attrib["data-chosen"] == "yes"
            out[g.attrib["data-series"]] = (g.attrib["data-verdict"], chosen, rect.attrib["fill"])
    return out


def test_machine_rtx_5090_on_driver_575(kb: KnowledgeBase) -> None:
    target = Target(
        "linux",
        "x86_64",
        cc=Version("12.0"),
        gpu_name="NVIDIA GeForce RTX 5090",
        driver=DriverVersion("575.51.02"),
    )
    strips = _strips(_machine(kb, target))
    assert len(strips) == len(matrix.matrix_rows(kb))
    assert [s for s, v in strips.items() if v[1]] == ["2.21"]
    for series in ("2.16", "2.17", "2.18", "2.19", "2.20"):
        assert strips[series][0] == "gpu", series
    assert strips["2.21"][0] in ("fits", "warnings")


def test_machine_gtx_1060_on_windows(kb: KnowledgeBase) -> None:
    target = Target("windows", "x86_64", cc=Version("6.1"), gpu_name="NVIDIA GeForce GTX 1060")
    strips = _strips(_machine(kb, target))
    assert strips["2.10"][1]
    assert strips["2.10"][0] in ("fits", "warnings")
    assert all(strips[s][0] == "os" for s in ("2.11", "2.15", "2.20"))


def test_machine_why_not_driver_and_python(kb: KnowledgeBase) -> None:
    old = Target("linux", "x86_64", cc=Version("8.6"), driver=DriverVersion("470.82.01"))
    strips = _strips(_machine(kb, old))
    assert strips["2.15"][0] == "driver"
    assert strips["2.14"][0] in ("fits", "warnings")
    py = Target(
        "linux",
        "x86_64",
        cc=Version("8.6"),
        driver=DriverVersion("550.54.14"),
        python=Version("3.13"),
    )
    strips = _strips(_machine(kb, py))
    assert strips["2.15"][0] == "python"
    assert strips["2.20"][0] in ("fits", "warnings")


def test_machine_m2_mac(kb: KnowledgeBase) -> None:
    strips = _strips(_machine(kb, Target("macos", "arm64")))
    chosen = [s for s, v in strips.items() if v[1]]
    assert len(chosen) == 1
    assert strips["2.13"][0] == "fits"
    assert strips["2.12"][0] == "fits"  # tensorflow-macos with its paired plug-in


def test_the_chosen_strip_is_the_plan_resolve_chose(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--tf 2.3.0: the chart marks 2.3.0, the plan resolve printed, not the series' newest."""
    chart = tmp_path / "chart.svg"
    argv = ["resolve", "--os", "windows", "--gpu", "GTX 1060", "--driver", "456.71"]
    argv += ["--python", "3.8", "--tf", "2.3.0", "--chart", str(chart)]
    assert main(argv) == 0
    assert "Plan: TensorFlow 2.3.0," in capsys.readouterr().out
    chosen = [
        g for g in ET.fromstring(chart.read_text("utf-8")).iter(f"{NS}g")
        if g.attrib.get("data-chosen") == "yes"
    ]  # fmt: skip
    assert [g.attrib["data-series"] for g in chosen] == ["2.3"]
    text = " ".join(t.text or "" for t in chosen[0].iter(f"{NS}text"))
    assert "TensorFlow 2.3.0," in text
    assert "2.3.4" not in ET.tostring(chosen[0], encoding="unicode")


# -- the commands --------------------------------------------------------------------------


def test_matrix_svg_and_html_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg, page = tmp_path / "chart.svg", tmp_path / "chart.html"
    assert main(["matrix"]) == 0
    table = capsys.readouterr().out
    assert main(["matrix", "--svg", str(svg), "--html", str(page)]) == 0
    out = capsys.readouterr()
    assert out.out == table  # "also write": the table is printed as without --svg
    assert "2.15" in table
    assert str(svg) in out.err
    assert str(page) in out.err
    ET.fromstring(svg.read_text("utf-8"))
    assert page.read_text("utf-8").startswith("<!DOCTYPE html>")
    assert main(["matrix", "--tf", "2.15", "--json", "--svg", str(svg)]) == 0
    assert json.loads(capsys.readouterr().out)[0]["series"] == "2.15"
    assert [c.series for c in _cells(svg.read_text("utf-8"))][:1] == ["2.15"]


@pytest.mark.parametrize(
    "where", ["missing/chart.svg", ".", "same"], ids=["no-folder", "a-folder", "same-file"]
)
def test_bad_chart_paths_exit_2(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    args = ["--svg", "c.svg", "--html", "c.svg"] if where == "same" else ["--svg", where]
    assert main(["matrix", *args]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.count("\n") <= 3
    assert list(tmp_path.iterdir()) == []


def test_resolve_chart_keeps_the_old_file_when_it_cannot_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    chart = folder / "chart.svg"
    chart.write_text("old", "utf-8")
    folder.chmod(0o500)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("running as a user who can write to a read-only folder")
        code = main(["resolve", "--os", "linux", "--cc", "8.6", "--chart", str(chart)])
    finally:
        folder.chmod(0o700)
    assert code == 2
    assert chart.read_text("utf-8") == "old"
    assert "Traceback" not in capsys.readouterr().err


def test_resolve_chart_to_a_fifo_nobody_reads_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "chart.svg"
    os.mkfifo(fifo)
    assert main(["resolve", "--os", "linux", "--cc", "8.6", "--chart", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert "--chart" in err
    assert "Traceback" not in err


def test_resolve_chart_html(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "m.html"
    argv = ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05"]
    assert main([*argv, "--chart", str(page), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["status"] == "ok"
    assert out.err == ""
    text = page.read_text("utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert "NVIDIA GeForce RTX 3060" in text


HOSTILE = 'RTX <script>alert("x")</script> & ]]> \x1b[31m\x07 \u202e'


def test_hostile_gpu_name_is_escaped(tmp_path: Path) -> None:
    for name in ("m.svg", "m.html"):
        chart = tmp_path / name
        code = main(
            ["resolve", "--os", "linux", "--gpu", HOSTILE, "--cc", "8.6", "--chart", str(chart)]
        )
        assert code == 0
        text = chart.read_text("utf-8")
        assert "<script" not in text
        assert "\x1b" not in text
        assert "\x07" not in text
        if name.endswith(".svg"):
            found = " ".join(t for t in _texts(text))
            assert "alert(" in found  # the name is there, as text
            assert "\\x1b[31m\\x07 \\u202e" in found  # controls shown as on a terminal
            for g in ET.fromstring(text).iter():
                assert g.tag.startswith(NS), g.tag  # no element but the chart's own


def test_hostile_host_file_is_escaped(tmp_path: Path) -> None:
    """Markup in a host file's GPU name (printable: the reader refuses control characters)
    lands in the chart as text."""
    name = 'RTX <script>alert("x")</script> & ]]> <!-- \ufffe'
    gpu = GpuInfo(0, name, Version("8.6"), CC_SOURCES[0]).to_dict()
    host = tmp_path / "host.json"
    host.write_text(json.dumps(host_document(gpus=[gpu], driver="550.54.14")), "utf-8")
    for chart in (tmp_path / "m.svg", tmp_path / "m.html"):
        assert main(["resolve", "--host", str(host), "--chart", str(chart)]) == 0
        text = chart.read_text("utf-8")
        assert "<script" not in text
        assert "<!--" not in text
        if chart.suffix == ".svg":
            root = ET.fromstring(text)
            assert all(e.tag.startswith(NS) for e in root.iter())
            shown = name.replace("\ufffe", "\ufffd")
            assert any(shown in (t.text or "") for t in root.iter(f"{NS}text"))
