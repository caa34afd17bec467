"""The error catalog and `tfenv explain`: every entry matched by a real-world message."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.cli import main
from tfenv.errors import KBValidationError
from tfenv.explain import explain
from tfenv.host.profile import HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.kb import errors as kb_errors
from tfenv.models.target import Target

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
    assert "Compute capability 8.6 (sm_86)." in sm.facts
    assert any("native code" in f for f in sm.facts)


def test_host_facts_driver_and_platform_note(kb: KnowledgeBase) -> None:
    host = HostProfile(os="linux", arch="x86_64", python=Version("3.11"), driver="440.33")
    m = explain("Could not load dynamic library 'libcudart.so.11.0'", kb, host).matches[0]
    assert any("this machine has 440.33 (too old" in f for f in m.facts)
    mac = HostProfile(os="macos", arch="arm64", python=Version("3.11"))
    m = explain(_message("linux-cuda-library-missing"), kb, mac).matches[0]
    assert m.elsewhere is not None
    assert "macos_arm64" in m.elsewhere


def test_a_windows_dll_gets_the_windows_driver_floor_even_on_linux(kb: KnowledgeBase) -> None:
    """cudart64_110.dll is a Windows message: the Windows floor, never Linux's, and the
    Linux host's own driver says nothing about that Windows machine."""
    host = HostProfile(os="linux", arch="x86_64", python=Version("3.11"), driver="440.33")
    result = explain(_message("windows-cuda-dll-missing"), kb, host)
    m = result.matches[0]
    floor, _ = kb.cuda.driver_floor("11.0", "windows")
    assert f"CUDA 11.0 needs a Windows NVIDIA driver >= {floor}" in " ".join(m.facts)
    assert not any("440.33" in f for f in m.facts)
    assert "is another one" in result.machine


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


# -- whole logs, end to end --------------------------------------------------------------

REAL = DATA / "real"


def _log(name: str) -> str:
    return "\n".join((REAL / f"{name}.txt").read_text("utf-8").splitlines()[1:]) + "\n"


def test_cli_reads_a_whole_log_from_a_file_and_answers_each_error_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "train.log"
    log.write_text(_log("logs/windows-train-tf22-missing-dlls-pip-conflicts"))
    assert main(["explain", "--no-detect", "--json", "--file", str(log)]) == 0
    doc = json.loads(capsys.readouterr().out)
    # every known error, in the order it first appears; duplicates dropped, noise last
    assert doc["errors"][:5] == ["windows-cuda-dll-missing"] * 4 + ["pip-dependency-conflict"]
    assert doc["errors"].count("pip-dependency-conflict") == 5
    assert doc["noise"] == ["cpu-features-notice"]
    dlls = [m for m in doc["matches"] if m["id"] == "windows-cuda-dll-missing"]
    assert [m["named"]["dll"] for m in dlls] == [
        "cudart64_101.dll",
        "cublas64_10.dll",
        "cusparse64_10.dll",
        "cudnn64_7.dll",
    ]
    assert dlls[0]["count"] == 2  # cudart64_101.dll is named on two lines: one error
    assert dlls[0]["follows"] == ["cannot-dlopen-gpu-libraries"]  # "Cannot dlopen": a consequence
    lines = [m["line_number"] for m in doc["matches"] if m["severity"] != "harmless"]
    assert lines == sorted(lines)
    # the log names TensorFlow 2.2 (pip's conflict lines): its Windows CUDA and cuDNN
    assert "Install CUDA 10.1 and cuDNN 7.6" in dlls[0]["fix"]
    assert "Windows" in doc["machine"]


def test_cli_log_from_stdin_text_output_sums_up_the_noise(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(_log("logs/train-rtx3090-tf215-noise")))
    assert main(["explain", "--no-detect", "--tf", "2.15", "-"]) == 0
    out = capsys.readouterr().out
    assert "1 error(s)" in out
    assert "XLA could not start a CUDA tool" in out
    assert "nvidia-cuda-nvcc-cu12==12.2.140" in out  # what TensorFlow 2.15.1 pins
    assert "Harmless notices (nothing to fix):" in out
    assert "No NUMA node for the GPU (notice) x" in out
    assert out.count("cause:") == 1  # only the error is answered in full


def test_cli_a_log_of_notices_only_says_nothing_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "import.log"
    log.write_text(_log("logs/import-nonuma-kernel-tf217-noise"))
    assert main(["explain", "--no-detect", "--file", str(log)]) == 0
    out = capsys.readouterr().out
    assert "nothing wrong, only notices" in out


def test_cli_answers_for_the_machine_the_flags_describe(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow "
        "(from versions: none)"
    )
    argv = ["explain", "--no-detect", "--json", "--os", "windows", "--python", "3.13", text]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    facts = " ".join(doc["matches"][0]["facts"])
    assert "Python 3.13 wheels from 2.20.0 on" in facts
    assert doc["machine"].startswith("Windows, x86_64, Python 3.13")


def test_cli_reads_no_machine_when_the_flags_describe_another(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """--os (like --arch and --host) describes another machine: this one is not probed
    (nvidia-smi and the rest take seconds) only to be set aside."""

    def no_detection(**_: object) -> HostProfile:
        raise AssertionError("this machine was probed")

    monkeypatch.setattr("tfenv.host.detect", no_detection)
    text = "Could not find a version that satisfies the requirement tensorflow (from versions: "
    assert main(["explain", "--json", "--os", "windows", "--python", "3.13", text + "none)"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["machine"].startswith("Windows, x86_64, Python 3.13")


def test_cli_file_errors(tmp_path: Path) -> None:
    assert main(["explain", "--file", str(tmp_path / "missing.log")]) == 2
    assert main(["explain", "--file", str(tmp_path)]) == 2
    (tmp_path / "x.log").write_text("x")
    assert main(["explain", "--file", str(tmp_path / "x.log"), "also text"]) == 2


def test_catalog_texts_carry_no_placeholders_and_every_answer_is_known() -> None:
    for e in ENTRIES:
        for text in (e.cause, e.fix, e.title):
            assert not re.search(r"<[a-z][\w ]*>", text), (e.id, text)
        assert e.answer is None or e.answer in kb_errors.ANSWERS
        for pattern in e.patterns:  # the pre-check has something to look for
            assert len(kb_errors.required_literal(pattern.pattern)) >= 8, (e.id, pattern.pattern)


def test_every_answer_name_has_a_function() -> None:
    from tfenv.explain import answer_for

    for name in kb_errors.ANSWERS:
        assert callable(answer_for(name))


def test_conda_override_example_is_conda_forges_newest_cuda_build(kb: KnowledgeBase) -> None:
    """Without a build string or a driver, the CONDA_OVERRIDE_CUDA example is the CUDA of
    conda-forge's newest tensorflow CUDA build (conda.yaml), not a version typed into code."""
    build = kb.conda.conda_forge_build(kb.conda.tf_newest)
    assert build is not None
    assert build.cuda
    m = explain("__cuda, which is missing on the system", kb).matches[0]
    assert m.entry.id == "conda-cuda-missing"
    assert f"{kb.conda.virtual_cuda.override_env}={build.cuda[-1]} conda" in m.fix_text


def test_ptx_invalid_names_each_arch_specific_target_and_its_one_capability(
    kb: KnowledgeBase,
) -> None:
    """The sm_XXa targets and the compute capability that alone can JIT them come from the
    builds' ptx_targets; the release's own line is said once."""
    target = Target(os="linux", arch="x86_64", cc=Version("12.0"))
    m = explain("CUDA_ERROR_INVALID_PTX", kb, target=target, tf=Version("2.20.0")).matches[0]
    targets = sorted(
        {t for b in kb.builds if b.compute for _, k in b.compute.kinds for t in k.ptx_targets
         if t.endswith("a")}
    )  # fmt: skip
    assert targets
    facts = " ".join(m.facts)
    assert f"architecture-specific target {', '.join(targets)}, which no GPU but" in facts
    assert sum("TensorFlow 2.20.0" in f for f in m.facts) == 1


def test_self_checks_could_not_find_dll_is_the_missing_dll(kb: KnowledgeBase) -> None:
    """TensorFlow 1.x and 2.0 check for the CUDA runtime DLL before the import
    (self_check.py; tensorflow/tensorflow#31808): the same answer as the loader's message."""
    text = (
        "ImportError: Could not find 'cudart64_100.dll'. TensorFlow requires that this DLL be "
        "installed in a directory that is named in your %PATH% environment variable. Download "
        "and install CUDA 10.0 from this URL: https://developer.nvidia.com/cuda-90-download-archive"
    )
    m = explain(text, kb).matches[0]
    assert (m.entry.id, m.groups["dll"]) == ("windows-cuda-dll-missing", "cudart64_100.dll")
    assert "CUDA 10.0" in " ".join(m.facts)


def test_dll_load_failed_keeps_the_runtime_fix_not_a_cuda_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A failed import of _pywrap_tensorflow_internal (here from a Chinese Windows) is the
    Visual C++ runtime, a 64-bit Python of a served version or AVX: not CUDA, which
    TensorFlow from 2.1 loads only when it looks for a GPU (the facts about CUDA stay)."""
    text = (
        "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: "
        "找不到指定的模块。"
    )
    argv = ["explain", "--no-detect", "--json", "--os", "windows", "--python", "3.10"]
    assert main([*argv, "--tf", "2.10.1", text]) == 0
    match = json.loads(capsys.readouterr().out)["matches"][0]
    assert match["id"] == "windows-dll-load-failed"
    assert "Visual C++ Redistributable" in match["fix"]
    assert "Install CUDA" not in match["fix"]
    assert "TensorFlow 2.10.1 on native Windows needs CUDA 11.2" in " ".join(match["facts"])


def test_windows_answers_speak_chinese(capsys: pytest.CaptureFixture[str]) -> None:
    text = "ImportError: DLL load failed while importing _pywrap_tensorflow_internal"
    argv = ["explain", "--lang", "zh", "--no-detect", "--os", "windows", "--python", "3.13"]
    assert main([*argv, "--tf", "2.10.1", text]) == 0
    out = capsys.readouterr().out
    assert "has Windows wheels for Python" not in out
    assert "TensorFlow 2.10.1" in out


def test_cli_line_of_a_match_across_a_line_break_is_one_line_without_an_escape(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = (
        "A module that was compiled using NumPy 1.x cannot be run in\n"
        "NumPy 2.0.2 as it may crash. To support both 1.x and 2.x\n"
    )
    assert main(["explain", "--no-detect", text]) == 0
    shown = [line for line in capsys.readouterr().out.splitlines() if "line:" in line]
    assert shown == [
        "  line:  A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.2 as "
        "it may crash. To support both 1.x and 2.x"
    ]
