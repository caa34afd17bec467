"""GPU records generated from NVIDIA's open-kernel-module README (``tfenv refresh --gpus``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tfenv.cli import main
from tfenv.errors import IndexUnreachable, UsageError
from tfenv.kb import gpu_families, gpus
from tfenv.refresh import gpu_table, refresh_gpus

DATA = Path(__file__).parent / "data" / "gpus"
EXCERPT = DATA / "README-excerpt.md"
SHIPPED = Path(gpus.__file__).resolve().parent.parent / "data"
COMMIT = "df1c9a3de2be4b130f4fc7680f7198193d8ac6ad"
SOURCE = f"NVIDIA/open-gpu-kernel-modules README.md @ {COMMIT}"


@pytest.fixture(scope="module")
def families() -> gpu_families.GpuFamilies:
    return gpu_families.load()


@pytest.fixture(scope="module")
def table() -> gpu_table.ReadmeTable:
    return gpu_table.parse_readme(EXCERPT.read_text("utf-8"))


@pytest.fixture(scope="module")
def records(
    table: gpu_table.ReadmeTable, families: gpu_families.GpuFamilies
) -> dict[str, dict[str, Any]]:
    doc = gpu_table.generate(table, families, SOURCE, "2026-12-01")
    return {g["name"]: g for g in doc["gpus"]}


# -- parsing ----------------------------------------------------------------------------


def test_every_row_is_kept_in_file_order(table: gpu_table.ReadmeTable) -> None:
    assert len(table.rows) == 26
    assert table.driver == "595.45.04"
    first = table.rows[0]
    assert (first.name, first.device, first.subsystem) == ("Quadro RTX 6000", "1E30", None)
    second = table.rows[1]
    assert second.subsystem == ("1028", "129E")
    assert second.ids == "1E30 1028 129E"
    assert [r.line for r in table.rows] == sorted(r.line for r in table.rows)


def _readme(*rows: str, header: str = "| Product Name | PCI ID |") -> str:
    return "\n".join(["## Compatible GPUs", "", "Prose.", "", header, "| --- | --- |", *rows])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("# no table here\n", "no '## Compatible GPUs' heading"),
        ("## Compatible GPUs\n\n## Next\n| a | b |\n", "next section"),
        (_readme("| A | 1E02 |", header="| Name | ID |"), "the header"),
        (_readme("| NVIDIA X | 1E02 | extra |"), "expected 2 cells"),
        (_readme("| NVIDIA X | 1e02 |"), "not a PCI device ID"),
        (_readme("| NVIDIA X | 1E02 10DE |"), "holds 2 IDs"),
        (_readme("| NVIDIA X (rev 2) | 1E02 |"), "characters tfenv does not expect"),
        (_readme("| NVIDIA  X | 1E02 |"), "characters tfenv does not expect"),
        (_readme(), "no rows"),
    ],
)
def test_anything_unexpected_stops_the_parse(text: str, problem: str) -> None:
    with pytest.raises(UsageError, match="GPU table cannot be read") as info:
        gpu_table.parse_readme(text)
    assert problem in str(info.value)


def test_the_table_ends_at_the_first_line_that_is_not_a_row() -> None:
    text = _readme("| NVIDIA TITAN RTX | 1E02 |", "", "| NVIDIA GeForce RTX 2080 Ti | 1E04 |")
    assert [r.name for r in gpu_table.parse_readme(text).rows] == ["NVIDIA TITAN RTX"]


# -- records ----------------------------------------------------------------------------


def test_names_are_grouped_exactly_and_keep_their_rows(
    records: dict[str, dict[str, Any]],
) -> None:
    assert records["Quadro RTX 6000"]["pci_ids"] == ["1E30", "1E36"]
    assert records["Quadro RTX 8000"]["pci_ids"] == ["1E30 1028 129E", "1E30 103C 129E"]
    # case matters: the desktop card prints SUPER, the laptop part Super
    assert records["NVIDIA GeForce RTX 2070 SUPER"]["segment"] == "geforce-desktop"
    assert records["NVIDIA GeForce RTX 2070 Super"]["segment"] == "geforce-laptop"


@pytest.mark.parametrize(
    ("name", "cc", "segment", "arch"),
    [
        ("Tesla T4", "7.5", "datacenter", None),
        ("NVIDIA H800 PCIe", "9.0", "datacenter", None),
        ("NVIDIA GH200 120GB", "9.0", "datacenter", "aarch64"),
        ("NVIDIA GH200 144G HBM3e", "9.0", "datacenter", "aarch64"),
        ("NVIDIA L2", "8.9", "datacenter", None),
        ("NVIDIA GeForce RTX 2050", "8.6", "geforce-laptop", None),  # GA107 despite the name
        ("NVIDIA GeForce RTX 3050 A Laptop GPU", "8.9", "geforce-laptop", None),  # AD106/7
        ("NVIDIA RTX 4000 Ada Generation Laptop GPU", "8.9", "workstation-laptop", None),
        ("NVIDIA RTX PRO 5000 72GB Blackwell", "12.0", "workstation", None),
        ("NVIDIA RTX PRO 5000 Blackwell Embedded GPU", "12.0", "embedded", None),
        ("NVIDIA DRIVE P2021", "10.0", "embedded", None),
        ("NVIDIA GB10", "12.1", "datacenter", "aarch64"),
        ("NVIDIA GB300", "10.3", "datacenter", "aarch64"),
    ],
)
def test_the_device_id_decides_the_compute_capability(
    records: dict[str, dict[str, Any]], name: str, cc: str, segment: str, arch: str | None
) -> None:
    record = records[name]
    assert (record["compute_capability"], record["segment"], record["arch"]) == (cc, segment, arch)


def test_inferred_and_low_confidence_facts_say_so(records: dict[str, dict[str, Any]]) -> None:
    drive = records["NVIDIA DRIVE P2021"]
    assert drive["cc_basis"] == "inferred"
    assert any("low confidence" in n for n in drive["notes"])
    assert any("Arm (aarch64) machines only" in n for n in records["NVIDIA GB10"]["notes"])


def _one_row(name: str, ids: str, families: gpu_families.GpuFamilies) -> dict[str, Any]:
    table = gpu_table.parse_readme(_readme(f"| {name} | {ids} |"))
    return gpu_table.generate(table, families, SOURCE, "2026-12-01")


@pytest.mark.parametrize(
    ("name", "ids", "problem"),
    [
        ("NVIDIA Future GPU", "3480", "outside every chip range"),
        ("NVIDIA R100", "3000", "not established"),
        ("Acme Accelerator", "1E02", "no segment rule"),
    ],
)
def test_a_gpu_that_cannot_be_placed_stops_the_refresh(
    families: gpu_families.GpuFamilies, name: str, ids: str, problem: str
) -> None:
    with pytest.raises(UsageError, match="cannot place") as info:
        _one_row(name, ids, families)
    assert problem in str(info.value)
    assert "gpu-families.yaml" in str(info.value)


def test_the_source_names_repository_path_and_commit() -> None:
    assert gpu_table.readme_source("README.md", COMMIT) == SOURCE
    raw = f"https://raw.githubusercontent.com/NVIDIA/open-gpu-kernel-modules/{COMMIT}/README.md"
    assert gpu_table.readme_source(raw, None) == SOURCE
    blob = "https://github.com/NVIDIA/open-gpu-kernel-modules/blob/595.45.04/README.md"
    assert gpu_table.readme_source(blob, None).endswith("@ 595.45.04")
    with pytest.raises(UsageError, match="--gpus-commit"):
        gpu_table.readme_source("README.md", None)


def test_drift_names_each_changed_gpu(families: gpu_families.GpuFamilies) -> None:
    old = _one_row("NVIDIA TITAN RTX", "1E02", families)
    new = json.loads(json.dumps(old))
    new["gpus"][0]["segment"] = "workstation"
    new["gpus"].append({**new["gpus"][0], "name": "NVIDIA New", "compute_capability": "7.5"})
    lines = gpu_table.gpu_drift(old, new)
    assert any("NVIDIA TITAN RTX: segment: 'titan' -> 'workstation'" in ln for ln in lines)
    assert any("NVIDIA New: new (7.5)" in ln for ln in lines)
    assert any(
        ln.endswith("NVIDIA New: no longer in the README") for ln in gpu_table.gpu_drift(new, old)
    )
    assert gpu_table.gpu_drift(None, old) == [
        "nvidia/gpus-readme.json: the shipped file is missing or not a JSON object"
    ]


# -- the refresh, end to end ------------------------------------------------------------


def _data_dir(tmp_path: Path) -> Path:
    """A data folder with the shipped rules and a hand-written file without aliases."""
    (tmp_path / "nvidia").mkdir()
    shutil.copy(SHIPPED / gpu_families.FAMILIES_FILE, tmp_path / gpu_families.FAMILIES_FILE)
    hand = yaml.safe_load((SHIPPED / gpus.GPUS_FILE).read_text("utf-8"))
    names = {g["name"] for g in hand["gpus"]}
    ambiguous = [a for a in hand["ambiguous"] if set(a["candidates"]) <= names]
    doc = {"gpus": hand["gpus"], "ambiguous": ambiguous}
    (tmp_path / gpus.GPUS_FILE).write_text(yaml.safe_dump(doc), "utf-8")
    return tmp_path


def test_refresh_writes_a_file_the_catalog_loads(tmp_path: Path) -> None:
    data = _data_dir(tmp_path)
    out = refresh_gpus(str(EXCERPT), data, commit=COMMIT)
    assert out.written == [data / gpu_table.README_FILE]
    doc = json.loads((data / gpu_table.README_FILE).read_text("utf-8"))
    assert (doc["source"], doc["driver"], doc["rows"]) == (SOURCE, "595.45.04", 26)
    catalog = gpus.load(data)
    model = catalog.lookup("NVIDIA GH200 120GB")
    assert (str(model.compute_capability), model.arch, model.generated) == ("9.0", "aarch64", True)
    assert model.provenance.sources == (SOURCE, gpu_families.FAMILIES_FILE)
    assert refresh_gpus(str(EXCERPT), data, commit=COMMIT, check=True).drift == []


def test_refresh_reads_a_url_and_takes_the_commit_from_it(tmp_path: Path) -> None:
    url = f"https://raw.githubusercontent.com/NVIDIA/open-gpu-kernel-modules/{COMMIT}/README.md"
    body = EXCERPT.read_text("utf-8")

    def answer(request: httpx.Request) -> httpx.Response:
        if str(request.url) == url:
            return httpx.Response(200, text=body)
        return httpx.Response(404)

    with httpx.Client(transport=httpx.MockTransport(answer)) as client:
        out = refresh_gpus(url, _data_dir(tmp_path), check=True, client=client)
        assert out.document["source"] == SOURCE
        with pytest.raises(IndexUnreachable, match="404"):
            refresh_gpus(url.replace("README", "MISSING"), tmp_path, commit="x", client=client)


def test_refresh_command_writes_checks_and_reports_drift(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _data_dir(tmp_path)
    base = ["refresh", "--gpus", str(EXCERPT), "--data-dir", str(data)]
    assert main([*base, "--gpus-commit", COMMIT]) == 0
    assert "21 GPUs from 26 rows" in capsys.readouterr().out
    assert main([*base, "--gpus-commit", COMMIT, "--check"]) == 0
    assert main([*base, "--gpus-commit", "0" * 40, "--check"]) == 1
    assert "source" in capsys.readouterr().out
    assert main(base) == 2  # a local file needs --gpus-commit
    assert "--gpus-commit" in capsys.readouterr().err


def test_the_shipped_table_is_the_readme_at_its_commit() -> None:
    doc = json.loads((SHIPPED / gpu_table.README_FILE).read_text("utf-8"))
    assert doc["source"] == SOURCE
    assert (doc["driver"], doc["rows"], len(doc["gpus"])) == ("595.45.04", 825, 222)
    assert doc["retrieved"]


def _missing_names() -> list[tuple[str, list[str]]]:
    out = []
    for line in (DATA / "names-missing-2026-12-01.txt").read_text("utf-8").splitlines():
        if line and not line.startswith("#"):
            name, ids = line.split("\t")
            out.append((name, ids.split(",")))
    return out


def test_every_name_that_was_missing_is_known_now() -> None:
    catalog = gpus.load()
    missing = _missing_names()
    assert len(missing) == 89
    for name, ids in missing:
        model = catalog.lookup(name)
        assert model.name == name
        assert {i.split()[0] for i in model.pci_ids} == set(ids)
