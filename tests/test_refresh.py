"""The refresh tool against a real HTTP server on 127.0.0.1 serving recorded index data."""

from __future__ import annotations

import datetime
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.index_server import IndexServer, serve
from tfenv.cli import main
from tfenv.errors import IndexUnreachable, KBValidationError
from tfenv.index_url import configured_index_url, pip_config_index_url, pips_default
from tfenv.kb import index as kb_index
from tfenv.refresh import RefreshOutcome, refresh

TODAY = datetime.date(2026, 11, 30)
MAIN = ("tensorflow", "tensorflow-gpu", "tensorflow-intel", "tensorflow-cpu-aws")


@pytest.fixture
def server() -> Iterator[IndexServer]:
    yield from serve(IndexServer())


def _run(server: IndexServer, out: Path, *, timeout: float = 5.0, **kw: Any) -> RefreshOutcome:
    with httpx.Client(timeout=timeout) as client:
        return refresh(client, server.url, out, today=TODAY, backoff_s=0.0, **kw)


def _files(out: Path) -> dict[str, bytes]:
    d = out / "index"
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())} if d.exists() else {}


def test_full_refresh_writes_loadable_files(server: IndexServer, tmp_path: Path) -> None:
    outcome = _run(server, tmp_path)
    names = sorted(p.name for p in outcome.written)
    assert names == sorted(f"{n}.json" for n in (*kb_index.INDEX_PACKAGES, "cuda-wheels"))
    facts = kb_index.load(tmp_path)
    versions = [str(r.version) for r in facts.releases("tensorflow")]
    assert versions == ["2.11.0", "2.14.0", "2.15.0", "2.15.0.post1", "2.21.0"]
    post1 = facts.release("tensorflow", "2.15.0.post1")
    assert post1 is not None
    assert post1.platforms == {"linux_x86_64"}
    assert post1.provenance.sources == ("simple:/tensorflow/",)
    assert post1.provenance.retrieved == "2026-11-30"
    # stubs: small wheels that redirect to another tensorflow-* package
    r215 = facts.release("tensorflow", "2.15.0")
    assert r215 is not None
    win = r215.wheelset("windows_x86_64", "3.10")
    assert win is not None
    assert win.stub_for == "tensorflow-intel"
    assert r215.wheels["macos_arm64"].stub_for == "tensorflow-macos"
    assert r215.wheels["linux_aarch64"].stub_for == "tensorflow-cpu-aws"
    assert r215.wheels["linux_x86_64"].stub_for is None
    assert r215.wheels["linux_x86_64"].and_cuda is not None
    assert "tensorrt==8.6.1.post1" in r215.wheels["linux_x86_64"].and_cuda
    r221 = facts.release("tensorflow", "2.21.0")
    assert r221 is not None
    assert str(r221.wheels["linux_x86_64"].glibc) == "2.27"
    assert r221.wheelset("linux_x86_64", "3.9") is None  # no cp39 wheel recorded
    assert facts.cuda_wheel_platforms("nvidia-nccl-cu12", "2.16.5") == frozenset({"linux_x86_64"})
    gpu = facts.release("tensorflow-gpu", "2.12.0")
    assert gpu is not None
    assert gpu.sdist
    assert not gpu.wheels


def test_output_is_deterministic(server: IndexServer, tmp_path: Path) -> None:
    _run(server, tmp_path / "a", workers=8)
    _run(server, tmp_path / "b", workers=2)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert a == b
    text = a["tensorflow.json"].decode()
    assert text.endswith("}\n")
    assert text.startswith('{\n "generated_by": "tfenv refresh",')
    for blob in a.values():
        assert b"127.0.0.1" not in blob


def test_range_read_matches_pep658(server: IndexServer, tmp_path: Path) -> None:
    _run(server, tmp_path / "pep658", packages=MAIN)
    server.advertise_metadata = False  # like a mirror that serves no .metadata files
    _run(server, tmp_path / "range", packages=MAIN)
    assert _files(tmp_path / "pep658") == _files(tmp_path / "range")
    assert not any(p.endswith(".metadata") for p in server.requests[-20:])


def test_metadata_404_falls_back_to_the_wheel(server: IndexServer, tmp_path: Path) -> None:
    _run(server, tmp_path / "ok", packages=["tensorflow"])
    wheel = "tensorflow-2.15.0-cp310-cp310-win_amd64.whl"
    server.faults[f"/files/{wheel}.metadata"] = ["404"]
    _run(server, tmp_path / "fallback", packages=["tensorflow"])
    assert f"/files/{wheel}" in server.requests
    assert _files(tmp_path / "ok") == _files(tmp_path / "fallback")


def test_metadata_missing_everywhere_is_an_error(server: IndexServer, tmp_path: Path) -> None:
    wheel = "tensorflow-2.15.0-cp310-cp310-win_amd64.whl"
    server.faults[f"/files/{wheel}.metadata"] = ["404"]
    server.faults[f"/files/{wheel}"] = ["404"]
    with pytest.raises(IndexUnreachable, match=r"win_amd64\.whl"):
        _run(server, tmp_path, packages=["tensorflow"])
    assert _files(tmp_path) == {}


def test_http_500_then_success_is_retried(server: IndexServer, tmp_path: Path) -> None:
    server.faults["/simple/tensorflow/"] = ["500", "503"]
    wheel = "tensorflow-2.21.0-cp311-cp311-manylinux_2_27_x86_64.whl"
    server.faults[f"/files/{wheel}.metadata"] = ["500"]
    outcome = _run(server, tmp_path, packages=["tensorflow"])
    assert outcome.releases == 5
    assert server.requests.count("/simple/tensorflow/") == 3


def test_persistent_500_gives_index_error_and_no_file(server: IndexServer, tmp_path: Path) -> None:
    server.faults["/simple/tensorflow-intel/"] = ["500"] * 3
    with pytest.raises(IndexUnreachable) as info:
        _run(server, tmp_path)
    msg = str(info.value)
    assert "/simple/tensorflow-intel/" in msg
    assert "HTTP status 500" in msg
    assert "after 3 attempts:" in msg
    assert _files(tmp_path) == {}  # tensorflow was read fine, but nothing is written


def test_hang_past_timeout(server: IndexServer, tmp_path: Path) -> None:
    server.hang_s = 1.5
    server.faults["/simple/tensorflow/"] = ["hang", "hang"]
    with pytest.raises(IndexUnreachable, match="no answer within the timeout"):
        _run(server, tmp_path, packages=["tensorflow"], timeout=0.3, attempts=2)
    assert _files(tmp_path) == {}


def test_truncated_body_is_retried_then_reported(server: IndexServer, tmp_path: Path) -> None:
    wheel = "tensorflow-2.14.0-cp310-cp310-win_amd64.whl"
    server.faults[f"/files/{wheel}.metadata"] = ["truncate"]
    _run(server, tmp_path / "ok", packages=["tensorflow"])  # one truncation: retried
    server.faults[f"/files/{wheel}.metadata"] = ["truncate"] * 3
    with pytest.raises(IndexUnreachable, match=r"win_amd64\.whl\.metadata"):
        _run(server, tmp_path / "bad", packages=["tensorflow"])
    assert _files(tmp_path / "bad") == {}


def test_failed_run_keeps_previous_files(server: IndexServer, tmp_path: Path) -> None:
    _run(server, tmp_path)
    before = _files(tmp_path)
    server.faults["/simple/tensorflow-metal/"] = ["500"] * 3
    with pytest.raises(IndexUnreachable):
        _run(server, tmp_path)
    assert _files(tmp_path) == before
    assert not list((tmp_path / "index").glob(".*"))  # no temp files left


def _drop_version(page: dict[str, Any]) -> None:
    page["files"] = [f for f in page["files"] if "2.15.0.post1" not in f["filename"]]


def test_check_reports_drift(server: IndexServer, tmp_path: Path, capsys: Any) -> None:
    _run(server, tmp_path)
    args = ["refresh", "--check", "--index-url", server.url, "--data-dir", str(tmp_path)]
    assert main(args) == 0
    assert "no drift" in capsys.readouterr().out
    before = _files(tmp_path)
    server.page_edits["tensorflow"] = _drop_version
    wheel = "tensorflow-2.21.0-cp310-cp310-manylinux_2_27_x86_64.whl"
    meta = (server.root / "files" / f"{wheel}.metadata").read_bytes()
    server.metadata_edits[wheel] = meta.replace(b"keras>=3.12.0", b"keras>=3.13.0")
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "tensorflow 2.15.0.post1: gone from the index" in out
    assert "tensorflow 2.21.0 linux_x86_64" in out
    assert "keras>=3.13.0" in out
    assert _files(tmp_path) == before  # --check writes nothing
    # in Chinese: the heading, the drift's prose and the summary; names and versions as they are
    assert main([*args, "--lang", "zh"]) == 1
    captured = capsys.readouterr()
    assert "与软件包索引不一致（" in captured.out
    assert "tensorflow 2.15.0.post1：已从软件包索引中消失" in captured.out
    assert "运行 'tfenv refresh' 以更新这些文件。" in captured.out
    assert "gone from the index" not in captured.out
    assert "正在读取 tensorflow" in captured.err  # the progress
    # --json: the same bytes in both languages (the drift's lines in English)
    assert main([*args, "--json"]) == 1
    english = json.loads(capsys.readouterr().out)
    assert main([*args, "--json", "--lang", "zh"]) == 1
    chinese = json.loads(capsys.readouterr().out)
    english.pop("seconds"), chinese.pop("seconds")  # the run's time
    assert chinese == english
    assert "tensorflow 2.15.0.post1: gone from the index" in english["drift"]


def test_cli_refresh_writes(server: IndexServer, tmp_path: Path, capsys: Any) -> None:
    args = ["refresh", "--index-url", server.url, "--data-dir", str(tmp_path)]
    assert main([*args, "--package", "tensorflow-metal"]) == 0
    assert sorted(_files(tmp_path)) == ["tensorflow-metal.json"]
    assert "wrote" in capsys.readouterr().out
    assert main([*args, "--package", "no-such-thing"]) == 2


def test_loader_names_file_and_path(server: IndexServer, tmp_path: Path) -> None:
    _run(server, tmp_path)
    path = tmp_path / "index" / "tensorflow.json"
    doc = json.loads(path.read_text())
    doc["releases"][2]["wheels"]["linux_x86_64"]["size"] = "big"
    path.write_text(json.dumps(doc))
    with pytest.raises(KBValidationError) as info:
        kb_index.load(tmp_path)
    assert info.value.file == "index/tensorflow.json"
    assert info.value.path == "releases[2].wheels.linux_x86_64.size"
    path.write_text("{ not json")
    with pytest.raises(KBValidationError, match=r"index/tensorflow\.json.*not valid JSON"):
        kb_index.load(tmp_path)


def test_index_url_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"PIP_INDEX_URL": "http://pip.example/simple", "UV_INDEX_URL": "http://uv.example/s"}
    assert configured_index_url("http://flag/simple", env) == ("http://flag/simple", "--index-url")
    assert configured_index_url(None, env) == ("http://uv.example/s", "UV_INDEX_URL")
    env["TFENV_INDEX_URL"] = "http://tfenv.example/simple"
    assert configured_index_url(None, env)[1] == "TFENV_INDEX_URL"
    monkeypatch.setattr(
        "tfenv.index_url.pip_config_index_url", lambda env: "http://conf.example/simple"
    )
    assert configured_index_url(None, {}) == ("http://conf.example/simple", "pip configuration")
    monkeypatch.setattr("tfenv.index_url.pip_config_index_url", lambda env: None)
    assert configured_index_url(None, {})[1] == "pip's default"
    assert (pips_default() or "").startswith("https://")


def test_pip_config_files_in_pips_order(tmp_path: Path) -> None:
    user = tmp_path / "xdg" / "pip"
    user.mkdir(parents=True)
    (user / "pip.conf").write_text(
        "[global]\nextra-index-url = file:///opt/a/simple file:///opt/b/simple\n"
        "index-url = http://user.example/simple\n"
    )
    explicit = tmp_path / "explicit.conf"
    explicit.write_text("[global]\nindex-url = http://explicit.example/simple\n")
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_CONFIG_DIRS": str(tmp_path / "none"),
        "PIP_CONFIG_FILE": str(explicit),
    }
    # PIP_CONFIG_FILE is read first, so the user file wins; extra indexes are ignored
    assert pip_config_index_url(env) == "http://user.example/simple"
    (user / "pip.conf").write_text("[global]\nextra-index-url = file:///opt/a/simple\n")
    assert pip_config_index_url(env) == "http://explicit.example/simple"
    (user / "pip.conf").write_text("[install]\nindex-url = http://install.example/simple\n")
    assert pip_config_index_url(env) == "http://install.example/simple"
    assert pip_config_index_url({**env, "PIP_CONFIG_FILE": os.devnull}) is None


def test_httpx_not_imported_by_loader() -> None:
    import subprocess

    code = "import sys, tfenv.kb.index, tfenv.cli; print('httpx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_json_summary_and_quiet(server: IndexServer, tmp_path: Path, capsys: Any) -> None:
    args = ["refresh", "--index-url", server.url, "--data-dir", str(tmp_path)]
    assert main([*args, "--package", "tensorflow-metal", "--json"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["ok"] is True
    assert doc["command"] == "refresh"
    assert doc["written"] == [str(tmp_path / "index" / "tensorflow-metal.json")]
    assert doc["releases"] > 0
    assert captured.err == ""  # --json: no progress either
    assert main([*args, "--package", "tensorflow-metal", "--check", "-q"]) == 0
    captured = capsys.readouterr()
    assert "no drift" in captured.out
    assert captured.err == ""


# -- build headers: CUDA/cuDNN from the wheel where TensorFlow's table has no row ----------------

_CUDA_CONFIG = b'#ifndef CUDA_CONFIG_H_\n#define TF_CUDA_VERSION "12.5.1"\n#endif\n'
_CUDNN_VERSION = b"#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 10\n#define CUDNN_PATCHLEVEL 0\n"


def _without_row(tmp_path: Path, series: str) -> Path:
    """A data folder whose builds.yaml has no Linux CUDA for ``series`` (as 2.22 today)."""
    import yaml

    from tfenv.kb.tensorflow import BUILDS_FILE

    shipped = Path(kb_index.__file__).parent.parent / "data" / BUILDS_FILE
    doc = yaml.safe_load(shipped.read_text("utf-8"))
    rows = [build for build in doc["builds"] if build["series"] == series]
    assert rows, f"builds.yaml has no {series} row to take away"
    for build in rows:
        assert build["linux"]["cuda"] is not None, "the row must have something to take away"
        build["linux"]["cuda"] = build["linux"]["cudnn"] = None
    target = tmp_path / BUILDS_FILE
    target.parent.mkdir(parents=True)
    target.write_text(yaml.safe_dump(doc), "utf-8")
    return tmp_path


def test_headers_give_the_build_where_the_table_has_no_row(
    server: IndexServer, tmp_path: Path
) -> None:
    from tfenv.refresh.wheel_facts import BUILD_HEADERS

    page = json.loads((server.root / "simple" / "tensorflow.json").read_text("utf-8"))
    wheels = sorted(
        f["filename"]
        for f in page["files"]
        if "-2.21.0-" in f["filename"] and f["filename"].endswith("manylinux_2_27_x86_64.whl")
    )
    server.members[wheels[0]] = dict(zip(BUILD_HEADERS, (_CUDA_CONFIG, _CUDNN_VERSION)))
    out = _without_row(tmp_path, "2.21")
    _run(server, out)
    facts = kb_index.load(out)
    r221 = facts.release("tensorflow", "2.21.0")
    assert r221 is not None
    assert r221.build is not None
    assert (str(r221.build.cuda), str(r221.build.cudnn)) == ("12.5.1", "9.10.0")
    assert r221.build.provenance.sources == (
        f"simple:/tensorflow/ {wheels[0]}: {', '.join(sorted(BUILD_HEADERS))}",
    )
    # releases whose series has a row are not read: no other wheel body was fetched
    fetched = {p for p in server.requests if p.endswith(".whl")}
    assert fetched <= {f"/files/{w}" for w in wheels}, fetched
    r215 = facts.release("tensorflow", "2.15.0")
    assert r215 is not None
    assert r215.build is None


def test_headers_missing_from_the_wheel_record_nothing(server: IndexServer, tmp_path: Path) -> None:
    out = _without_row(tmp_path, "2.21")
    _run(server, out)
    r221 = kb_index.load(out).release("tensorflow", "2.21.0")
    assert r221 is not None
    assert r221.build is None


def test_parse_build_headers() -> None:
    from tfenv.refresh.wheel_facts import BUILD_HEADERS, parse_build_headers

    both = dict(zip(BUILD_HEADERS, (_CUDA_CONFIG, _CUDNN_VERSION)))
    assert parse_build_headers(both) == {"cuda": "12.5.1", "cudnn": "9.10.0"}
    assert parse_build_headers({BUILD_HEADERS[0]: _CUDA_CONFIG}) == {"cuda": "12.5.1"}
    assert parse_build_headers({BUILD_HEADERS[1]: b"#define CUDNN_MAJOR 9\n"}) == {}
    assert parse_build_headers({}) == {}
