"""``tfenv lock --check`` catches any edit and names the stale input; where lockfiles live
(``out``); targets with equal inputs resolved once, byte for byte as if alone; ``--json``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.lock_index import (  # the fixtures: wheels, index
    LockIndex,
    index_fixture,  # noqa: F401
    lock_project_folder,
    wheels_fixture,  # noqa: F401
)
from tfenv.cli import main
from tfenv.config import load_config
from tfenv.errors import LockError
from tfenv.kb import KnowledgeBase
from tfenv.lock import LockOptions, check_project, lock_project
from tfenv.lock.check import EDITED, NO_DIGEST
from tfenv.lock.header import CONTENT_LINE, read_stamp, stamp_content

# three Linux x86_64 GPU machines on one glibc and Python: one uv run for the three
TWINS = """
[targets.gpu-b]
os = "linux"
arch = "x86_64"
gpu = "A100"
driver = "550.54.15"
glibc = "2.31"

[targets.gpu-c]
os = "linux"
arch = "x86_64"
cc = "8.6"
driver = "535.104.05"
glibc = "2.31"
"""


_project = lock_project_folder


def _options(index: LockIndex, cache: Path, **kw: object) -> LockOptions:
    base: dict[str, object] = {
        "index_url": index.url,
        "cache_dir": cache,
        "retries": 0,
        "timeout_s": 10.0,
    }
    base.update(kw)
    return LockOptions(**base)  # type: ignore[arg-type]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _reasons(kb: KnowledgeBase, project: Path) -> dict[str, tuple[str, ...]]:
    outcome = check_project(kb, load_config(project))
    return {s.file: s.reasons for s in outcome.stale}


def test_a_hand_edited_pin_is_caught(
    index: LockIndex,
    tmp_path: Path,
    kb: KnowledgeBase,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path)
    lock_project(kb, load_config(project), _options(index, tmp_path / "cache"))
    assert check_project(kb, load_config(project)).up_to_date
    req = project / "requirements.cpu.txt"
    text = req.read_text("utf-8")
    assert "six==1.16.0" in text
    req.write_text(text.replace("six==1.16.0", "six==1.15.0"), "utf-8")  # hashes now wrong
    assert _reasons(kb, project) == {"requirements.cpu.txt": (EDITED,)}
    assert main(["lock", "--check", "--config", str(project)]) == 1
    err = capsys.readouterr().err
    assert "requirements.cpu.txt (target 'cpu'): edited by hand" in err
    assert "pylock" not in err  # the other files are fine

    req.write_text(text, "utf-8")  # undone: up to date again
    assert check_project(kb, load_config(project)).up_to_date
    # a changed hash in the pylock file, a changed header line: caught too
    pylock = project / "pylock.gpu.toml"
    original = pylock.read_text("utf-8")
    digest = original.split('sha256 = "', 1)[1][:64]
    pylock.write_text(original.replace(digest, "0" * 64, 1), "utf-8")
    assert _reasons(kb, project) == {"pylock.gpu.toml": (EDITED,)}
    pylock.write_text(original.replace("# Target: Linux", "# Target: linux"), "utf-8")
    assert _reasons(kb, project) == {"pylock.gpu.toml": (EDITED,)}
    # line endings converted by a checkout (git's autocrlf) are not an edit
    pylock.write_bytes(original.replace("\n", "\r\n").encode("utf-8"))
    assert check_project(kb, load_config(project)).up_to_date


def test_check_names_the_input_that_changed(
    index: LockIndex, tmp_path: Path, kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = _project(tmp_path)
    lock_project(kb, load_config(project), _options(index, tmp_path / "cache"))
    config = project / "tfenv.toml"
    text = config.read_text("utf-8")

    config.write_text(text.replace('["tinydep"]', '["tinydep", "six"]'), "utf-8")
    found = _reasons(kb, project)
    assert len(found) == 8
    assert set(found.values()) == {("configuration key 'dependencies' changed",)}

    config.write_text(text.replace('driver = "535.104.05"', 'driver = "550.54.15"'), "utf-8")
    found = _reasons(kb, project)
    assert found["requirements.gpu.txt"] == (
        "this target's facts or settings changed ('targets.gpu')",
    )
    assert found["pylock.cpu.toml"] == (
        "target 'gpu' changed ('targets.gpu'; the team's TensorFlow version depends on it)",
    )

    config.write_text(text + '\n[targets.new]\nos = "linux"\nno-gpu = true\n', "utf-8")
    found = _reasons(kb, project)
    assert found["requirements.cpu.txt"] == ("target 'new' was added to the configuration",)
    assert found["requirements.new.txt"] == ("missing",)

    config.write_text(text, "utf-8")
    monkeypatch.setattr("tfenv.lock.header.kb_data_version", lambda kb: "other data")
    found = _reasons(kb, project)
    assert set(found.values()) == {
        ("the knowledge-base data changed (another tfenv version, or edited data files)",)
    }


def test_a_lockfile_without_a_content_digest_is_stale(
    index: LockIndex, tmp_path: Path, kb: KnowledgeBase
) -> None:
    project = _project(tmp_path)
    lock_project(kb, load_config(project), _options(index, tmp_path / "cache", only=("cpu",)))
    req = project / "requirements.cpu.txt"
    lines = req.read_text("utf-8").splitlines(keepends=True)
    req.write_text("".join(ln for ln in lines if CONTENT_LINE not in ln), "utf-8")
    outcome = check_project(kb, load_config(project), LockOptions(only=("cpu",)))
    assert [s.reasons for s in outcome.stale] == [(NO_DIGEST,)]
    (project / "pylock.cpu.toml").write_text("# a file of someone else's\n", "utf-8")
    outcome = check_project(kb, load_config(project), LockOptions(only=("cpu",)))
    assert outcome.stale[1].reasons == ("no tfenv header: not written by 'tfenv lock'",)


def test_stamp_round_trip() -> None:
    text = "# Generated by tfenv\n# tfenv-inputs: sha256:" + "a" * 64 + "\nsix==1.16.0\n"
    stamped = stamp_content(text)
    assert stamped.splitlines()[2].startswith(f"# {CONTENT_LINE}")
    assert stamp_content(text) == stamped  # deterministic


def test_out_in_the_configuration_is_where_locks_live(
    index: LockIndex,
    tmp_path: Path,
    kb: KnowledgeBase,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path)
    config = project / "tfenv.toml"
    # without 'out', locking elsewhere leaves --check looking in the config's folder
    args = ["lock", "--config", str(project), "--index-url", index.url, "-q", "--target", "cpu"]
    args += ["--cache-dir", str(tmp_path / "cache")]
    assert main([*args, "--out", str(project / "locks")]) == 0
    assert main(["lock", "--check", "--config", str(project), "--target", "cpu"]) == 1
    assert "say where the lockfiles live with 'out'" in capsys.readouterr().err

    config.write_text('out = "locks"\n' + config.read_text("utf-8"), "utf-8")
    assert load_config(project).lock_folder == project / "locks"
    assert main(args) == 0  # written to locks/ (the configuration moved, so relock)
    assert (project / "locks" / "pylock.cpu.toml").is_file()
    assert not (project / "pylock.cpu.toml").exists()
    assert main(["lock", "--check", "--config", str(project), "--target", "cpu"]) == 0
    capsys.readouterr()

    # check-upgrade finds the current state in the lockfiles there
    monkeypatch.chdir(project)
    code = main(["check-upgrade", "--to", "2.15", "--target", "cpu", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert "pylock.cpu.toml" in json.dumps(report["from"])


def test_equal_inputs_resolve_once_with_the_bytes_of_separate_runs(
    index: LockIndex, tmp_path: Path, kb: KnowledgeBase
) -> None:
    together = _project(tmp_path, TWINS, "together")
    outcome = lock_project(kb, load_config(together), _options(index, tmp_path / "c1"))
    # gpu, gpu-b and gpu-c share a run; cpu, win and mac each have their own
    assert outcome.resolutions == 4
    alone = _project(tmp_path, TWINS, "alone")
    for name in ("gpu", "gpu-b", "gpu-c", "cpu"):
        one = lock_project(kb, load_config(alone), _options(index, tmp_path / name, only=(name,)))
        assert one.resolutions == 1
    both = _snapshot(together)
    assert {k: v for k, v in both.items() if k in _snapshot(alone)} == _snapshot(alone)
    assert both["requirements.gpu-b.txt"] != both["requirements.gpu-c.txt"]  # own headers
    body = [b"".join(ln for ln in both[f"requirements.{n}.txt"].splitlines(True) if not
                     ln.startswith(b"#")) for n in ("gpu", "gpu-b", "gpu-c")]  # fmt: skip
    assert body[0] == body[1] == body[2]


def test_json_summary_and_failures_one_per_line(
    index: LockIndex, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, TWINS)
    args = ["lock", "--config", str(project), "--index-url", index.url, "--json"]
    args += ["--cache-dir", str(tmp_path / "cache")]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is True
    assert doc["tensorflow"] == "2.15.1"
    assert doc["resolutions"] == 4
    assert [t["name"] for t in doc["targets"]] == ["gpu", "cpu", "win", "mac", "gpu-b", "gpu-c"]
    assert doc["targets"][1]["files"] == ["requirements.cpu.txt", "pylock.cpu.toml"]
    assert len(doc["written"]) == 12

    assert main(["lock", "--check", "--json", "--config", str(project)]) == 0
    assert json.loads(capsys.readouterr().out)["stale"] == []

    before = _snapshot(project)
    index.faults["/simple/numpy/"] = ["404"] * 40  # numpy: every target but the macOS one
    code = main([*args[:-2], "--cache-dir", str(tmp_path / "cold"), "--timeout", "2"])
    assert code == 1
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert doc["ok"] is False
    assert {f["target"] for f in doc["failures"]} >= {"gpu", "cpu", "win"}
    lines = captured.err.splitlines()
    assert lines[0].startswith("tfenv: error: Locking failed for")
    for name in ("gpu", "cpu", "win"):
        assert sum(ln.startswith(f"  target '{name}': ") for ln in lines) == 1
    assert _snapshot(project) == before


def test_lock_error_carries_failures() -> None:
    err = LockError("x", failures={"a": "why"})
    assert err.failures == {"a": "why"}
    assert read_stamp(Path("/nonexistent")) is None


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_read_stamp_never_opens_a_fifo(tmp_path: Path) -> None:
    """A FIFO in a lockfile's place is not a lockfile: reading it would block forever."""
    fifo = tmp_path / "pylock.gpu.toml"
    os.mkfifo(fifo)
    assert read_stamp(fifo) is None
    bad = tmp_path / "requirements.gpu.txt"
    bad.write_bytes(b"# tfenv-inputs: sha256:" + b"0" * 64 + b"\n\xff\n")
    assert read_stamp(bad) is None  # not UTF-8


def test_explain_catalogue_edits_leave_lockfiles_current(tmp_path: Path) -> None:
    """The data digest in a lockfile's inputs covers what a plan or lockfile may depend on
    (a runtime bound does), not explain's catalogue of error messages: editing it (a new
    explain entry in a tfenv upgrade) must not make every team's lockfiles stale."""
    import shutil

    import tfenv.data
    from tfenv.lock.header import kb_data_version

    root = tmp_path / "data"
    shutil.copytree(Path(tfenv.data.__file__).parent, root)
    before = kb_data_version(KnowledgeBase(root))
    with (root / "errors.yaml").open("a", encoding="utf-8") as fh:
        fh.write("\n# an edit to explain's catalogue\n")
    assert kb_data_version(KnowledgeBase(root)) == before
    with (root / "tensorflow" / "runtime.yaml").open("a", encoding="utf-8") as fh:
        fh.write("\n# an edit to the runtime bounds\n")
    assert kb_data_version(KnowledgeBase(root)) != before
