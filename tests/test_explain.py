"""The error catalog and `tfenv explain`: every entry matched by a real-world message."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.cli import main
from tfenv.errors import KBValidationError
from tfenv.explain import explain
from tfenv.host.profile import HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.kb import errors as kb_errors

DATA = Path(__file__).parent / "data" / "errors"
ENTRIES = kb_errors.load()


def _message(entry_id: str) -> str:
    lines = (DATA / f"{entry_id}.txt").read_text("utf-8").splitlines()
    assert lines[0].startswith("# origin: https://"), "each sample names where it came from"
    return "\n".join(lines[1:])


def test_catalog_has_at_least_25_entries_with_sources() -> None:
    assert len(ENTRIES) >= 25
    for e in ENTRIES:
        assert e.provenance.sources
        assert e.provenance.retrieved
        assert any("github.com" in s or "nvidia.com" in s for s in e.provenance.sources)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_each_entry_matches_its_real_world_message(
    entry: kb_errors.ErrorEntry, kb: KnowledgeBase
) -> None:
    result = explain(_message(entry.id), kb)
    assert entry.id in [m.entry.id for m in result.matches]


def test_every_sample_file_belongs_to_an_entry() -> None:
    ids = {e.id for e in ENTRIES}
    assert {p.stem for p in DATA.glob("*.txt")} == ids


def test_cudart_dll_names_cuda_11_and_releases_from_builds(kb: KnowledgeBase) -> None:
    m = explain(_message("windows-cuda-dll-missing"), kb).matches[0]
    assert m.groups["dll"] == "cudart64_110.dll"
    facts = " ".join(m.facts)
    assert "CUDA 11.0" in facts
    expected = [
        str(b.series)
        for b in kb.builds
        if b.windows is not None and b.windows.cuda is not None and b.windows.cuda.major == 11
    ]
    assert expected
    assert f"(Windows): {', '.join(expected)}." in facts


def test_libcudnn_so_8_lists_cudnn_8_releases(kb: KnowledgeBase) -> None:
    m = explain(_message("linux-cudnn-missing"), kb).matches[0]
    facts = " ".join(m.facts)
    assert "cuDNN 8.x" in facts
    assert "2.15" in facts
    assert "2.18" not in facts.split("(Linux):")[1]


def test_compute_capability_checked_against_builds(kb: KnowledgeBase) -> None:
    m = next(
        x
        for x in explain(_message("compute-capability-too-low"), kb).matches
        if x.entry.id == "compute-capability-too-low"
    )
    assert m.groups["cc"] == "3.0"
    assert "No official TensorFlow 2.x wheel can run on it." in m.facts
    sm = explain("CUDA_ERROR_NO_BINARY_FOR_GPU on a card with sm_86", kb).matches[0]
    assert sm.groups["cc"] == "8.6"
    assert any("native code" in f for f in sm.facts)


def test_host_facts_driver_and_platform_note(kb: KnowledgeBase) -> None:
    host = HostProfile(os="linux", arch="x86_64", python=Version("3.11"), driver="440.33")
    m = explain(_message("windows-cuda-dll-missing"), kb, host).matches[0]
    assert any("too old" in f for f in m.facts)
    assert m.elsewhere is not None
    assert "linux_x86_64" in m.elsewhere


def test_unknown_text(kb: KnowledgeBase) -> None:
    result = explain("everything is fine", kb)
    assert not result.known


def test_broken_pattern_is_reported_with_path(tmp_path: Path) -> None:
    (tmp_path / "errors.yaml").write_text(
        "errors:\n  - {id: x, title: t, severity: problem, patterns: ['(['], cause: c, fix: f,"
        " source: s, retrieved: '2026-11-30'}\n"
    )
    with pytest.raises(KBValidationError, match=r"errors\[0\]\.patterns\[0\]"):
        kb_errors.load(tmp_path)


def test_cli_explain_json_and_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["explain", "--no-detect", "--json", _message("linux-cudnn-missing")]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["matches"][0]["id"] == "linux-cudnn-missing"
    monkeypatch.setattr("sys.stdin", io.StringIO("nothing we know"))
    assert main(["explain", "--no-detect", "-"]) == 1
    assert "tfenv doctor" in capsys.readouterr().out
