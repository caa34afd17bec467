"""What tfenv prints in each language: the golden cases in English and Chinese, --json and
lockfiles byte for byte the same whatever the language."""

from __future__ import annotations

import contextlib
import difflib
import io
import json
from pathlib import Path

import pytest

from tests.golden_i18n import CASES, OUT, render, run
from tests.lock_index import (  # the fixtures: wheels, index
    LockIndex,
    index_fixture,  # noqa: F401
    lock_project_folder,
    wheels_fixture,  # noqa: F401
)
from tfenv.cli import main
from tfenv.i18n import language

# --- golden output ------------------------------------------------------------------


@pytest.mark.slow
def test_golden_output_in_both_languages() -> None:
    want = OUT.read_text("utf-8")
    got = render()
    assert want.count("\n=== ") >= 2 * len(CASES) - 1, "the golden file lost its cases"
    diff = "".join(
        difflib.unified_diff(want.splitlines(True), got.splitlines(True), "golden", "now", n=1)
    )
    assert got == want, f"tests/golden/i18n.txt differs (python -m tests.golden_i18n):\n{diff}"


def test_chinese_output_has_chinese_headings() -> None:
    code, out, err = run(["--lang", "zh", *CASES["windows-gtx1060-tf2.3"]])
    assert code == 0, err
    for heading in ("目标机器：", "方案：", "步骤：", "安装：", "验证：", "理由："):
        assert heading in out
    assert "Target:" not in out
    assert language() == "en"


def test_english_output_is_what_it_was() -> None:
    """--lang en prints exactly what tfenv printed before it spoke Chinese (the existing
    golden files hold that; here: the headings)."""
    code, out, _err = run(["--lang", "en", *CASES["linux-old-driver-tf2.15"]])
    assert code == 1
    assert out.startswith("Target: Linux, x86_64, Python 3.11, NVIDIA GeForce RTX 3060")
    assert "\nNothing fits.\n" in out
    assert "\nWays out:\n" in out


# --- --json ---------------------------------------------------------------------------

JSON_CASES = [
    [*CASES["windows-gtx1060-tf2.3"], "--json"],
    [*CASES["wsl2-rtx3070ti-laptop"], "--json"],
    [*CASES["linux-old-driver-tf2.15"], "--json"],
    ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--json"],
    ["resolve", "--os", "windows", "--cc", "8.6", "--driver", "552.22", "--tf", "2.15", "--json"],
    ["matrix", "--json"],
    ["detect", "--json"],
    ["resolve", "--json", "--host", "/nonexistent/host.json"],  # an error: English too
    ["explain", "--json", "DLL load failed while importing _pywrap_tensorflow_internal"],
    [
        "check-upgrade",
        "--json",
        "--os",
        "linux",
        "--gpu",
        "RTX 3060",
        "--driver",
        "535.104.05",
        "--from",
        "2.15",
        "--to",
        "2.16",
    ],
]


@pytest.mark.parametrize("argv", JSON_CASES, ids=lambda a: " ".join(a[:5]))
def test_json_is_byte_identical_in_every_language(argv: list[str]) -> None:
    """--json is machine output: the same bytes whatever the language (its sentences in
    English, each beside a code: docs/json.md), errors included."""
    en_code, en_out, en_err = run(["--lang", "en", *argv])
    zh_code, zh_out, zh_err = run(["--lang", "zh", *argv])
    assert (zh_code, zh_out, zh_err) == (en_code, en_out, en_err)
    if argv[0] == "resolve" and en_out:
        doc = json.loads(en_out)
        for conflict in doc.get("conflicts", []):
            assert conflict["message"]
            assert conflict["kind"]
        for way_out in doc.get("suggestions", []):
            assert way_out["message"]
            assert "fields" in way_out


def test_chinese_json_keeps_the_codes() -> None:
    _code, out, _err = run(["--lang", "zh", *CASES["linux-old-driver-tf2.15"], "--json"])
    doc = json.loads(out)
    assert doc["suggestions"][0]["message"] == "way-out.other-tf"
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in out)  # no Chinese character


# --- lockfiles --------------------------------------------------------------------------


def _lock(project: Path, index: LockIndex, cache: Path, lang: str) -> dict[str, bytes]:
    argv = ["--lang", lang, "lock", "--config", str(project), "--index-url", index.url]
    argv += ["--cache-dir", str(cache), "--quiet"]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    assert code == 0, err.getvalue()
    return {p.name: p.read_bytes() for p in sorted(project.iterdir()) if p.name != "tfenv.toml"}


@pytest.mark.slow
def test_lockfiles_are_byte_identical_in_every_language(index: LockIndex, tmp_path: Path) -> None:
    english = lock_project_folder(tmp_path, name="en")
    chinese = lock_project_folder(tmp_path, name="zh")
    en = _lock(english, index, tmp_path / "cache", "en")
    zh = _lock(chinese, index, tmp_path / "cache", "zh")
    assert en
    assert en == zh
    # and a lockfile written in English is current for a Chinese --check
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["--lang", "zh", "lock", "--check", "--config", str(english)]) == 0


def test_conda_on_windows_reason_speaks_chinese() -> None:
    argv = ["resolve", "--os", "windows", "--gpu", "GTX 1060", "--driver", "472.12", "--tf", "2.10"]
    code, out, err = run(["--lang", "zh", *argv])
    assert code == 0, err
    assert "%CONDA_PREFIX%\\Library\\bin" in out
    assert "On Windows conda puts" not in out
