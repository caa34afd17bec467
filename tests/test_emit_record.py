"""``resolve --emit DIR`` never destroys what it did not write: it refuses a file in the
way that it did not write (or that was changed since) unless ``--force``, removes the
files it wrote for an earlier plan, and keeps a deterministic record of what it wrote."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tfenv.cli import main
from tfenv.emit.record import RECORD

WINDOWS = ("--os", "windows", "--cc", "8.6", "--driver", "552.22", "--python", "3.10")
#: native Windows, TF 2.10 by pip (the system route): requirements.txt, the .bat and .ps1
WINDOWS_PIP = (*WINDOWS, "--tf", "2.10", "--manager", "pip")
WINDOWS_PIP_FILES = {"INSTALL.md", "activate-tfenv.bat", "activate-tfenv.ps1", "requirements.txt"}
#: the same machine by conda: environment.yml and INSTALL.md
WINDOWS_CONDA = (*WINDOWS, "--tf", "2.10", "--manager", "conda")
WINDOWS_CONDA_FILES = {"INSTALL.md", "environment.yml"}
LINUX_PIP = ("--os", "linux", "--no-gpu", "--python", "3.11", "--tf", "2.15")
PROJECT_REQUIREMENTS = "flask==3.0.0\nrequests>=2\n"


def resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tfenv resolve ARGV``: (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(["resolve", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_projects_own_requirements_txt_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "requirements.txt").write_text(PROJECT_REQUIREMENTS)
    code, out, err = resolve(capsys, *LINUX_PIP, "--emit", str(tmp_path))
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err  # one paragraph
    assert "requirements.txt" in err
    assert "--force" in err
    assert tree(tmp_path) == {"requirements.txt": PROJECT_REQUIREMENTS.encode()}  # nothing else


def test_force_overwrites_a_file_tfenv_did_not_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "requirements.txt").write_text(PROJECT_REQUIREMENTS)
    code, _, err = resolve(capsys, *LINUX_PIP, "--emit", str(tmp_path), "--force")
    assert code == 0, err
    assert "tensorflow-cpu==2.15.1" in (tmp_path / "requirements.txt").read_text()
    # from now on it is tfenv's: the next run rewrites it without --force
    code, _, err = resolve(capsys, *LINUX_PIP, "--emit", str(tmp_path))
    assert code == 0, err


def test_force_without_emit_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = resolve(capsys, *LINUX_PIP, "--force")
    assert code == 2
    assert out == ""
    assert "--emit" in err
    assert "Traceback" not in err


def test_a_file_changed_since_tfenv_wrote_it_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert resolve(capsys, *LINUX_PIP, "--emit", str(tmp_path))[0] == 0
    edited = (tmp_path / "requirements.txt").read_text() + "flask==3.0.0\n"
    (tmp_path / "requirements.txt").write_text(edited)
    before = tree(tmp_path)
    code, _, err = resolve(capsys, *LINUX_PIP, "--tf", "2.14", "--emit", str(tmp_path))
    assert code == 2
    assert "requirements.txt" in err
    assert tree(tmp_path) == before


def test_a_route_change_removes_the_earlier_routes_files(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "train.py").write_text("print('mine')\n")  # the project's own file
    code, _, err = resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path))
    assert code == 0, err
    assert set(tree(tmp_path)) == WINDOWS_PIP_FILES | {RECORD, "train.py"}
    code, _, err = resolve(capsys, *WINDOWS_CONDA, "--emit", str(tmp_path))
    assert code == 0, err
    assert set(tree(tmp_path)) == WINDOWS_CONDA_FILES | {RECORD, "train.py"}
    assert "Removed " in err
    for name in ("activate-tfenv.bat", "activate-tfenv.ps1", "requirements.txt"):
        assert name in err.split("Removed ", 1)[1]
    record = json.loads((tmp_path / RECORD).read_text())
    assert set(record["files"]) == WINDOWS_CONDA_FILES


def test_an_earlier_file_changed_since_is_left_and_reported(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path))[0] == 0
    bat = tmp_path / "activate-tfenv.bat"
    bat.write_bytes(bat.read_bytes() + b"set MINE=1\r\n")
    code, _, err = resolve(capsys, *WINDOWS_CONDA, "--json", "--emit", str(tmp_path))
    assert code == 0, err
    assert bat.exists()  # the user's change survives
    assert not (tmp_path / "activate-tfenv.ps1").exists()  # unchanged: removed
    assert "Left " in err
    assert "activate-tfenv.bat" in err
    record = json.loads((tmp_path / RECORD).read_text())
    assert "activate-tfenv.bat" not in record["files"]  # no longer tfenv's
    # the next run leaves it alone and says nothing more about it
    code, _, err = resolve(capsys, *WINDOWS_CONDA, "--emit", str(tmp_path))
    assert code == 0, err
    assert bat.exists()
    assert "activate-tfenv.bat" not in err


def test_the_record_lists_every_file_with_its_sha256(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path))[0] == 0
    files = tree(tmp_path)
    record_text = files.pop(RECORD).decode()
    record = json.loads(record_text)
    assert record["files"] == {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    assert list(record["files"]) == sorted(record["files"])
    assert record_text == json.dumps(record, indent=2, sort_keys=True) + "\n"


def test_the_same_plan_writes_byte_identical_files_and_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path / "a"))[0] == 0
    assert resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path / "b"))[0] == 0
    first = tree(tmp_path / "a")
    assert first == tree(tmp_path / "b")
    assert resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path / "a"))[0] == 0  # again
    assert tree(tmp_path / "a") == first


def test_an_older_tfenvs_files_are_rewritten_but_not_removed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """An older tfenv wrote no record: its files (tfenv's header) are rewritten, and left
    (and named) when the new plan has no such file, since nothing says they are unchanged."""
    assert resolve(capsys, *WINDOWS_PIP, "--emit", str(tmp_path))[0] == 0
    (tmp_path / RECORD).unlink()  # as an older tfenv left it
    code, _, err = resolve(capsys, *WINDOWS_PIP, "--tf", "2.9", "--emit", str(tmp_path))
    assert code == 0, err  # rewritten: they carry tfenv's header
    assert "tensorflow==2.9" in (tmp_path / "requirements.txt").read_text()
    (tmp_path / RECORD).unlink()
    code, _, err = resolve(capsys, *WINDOWS_CONDA, "--emit", str(tmp_path))
    assert code == 0, err
    assert (tmp_path / "requirements.txt").exists()
    assert "Left " in err
    assert "requirements.txt" in err


def test_a_record_tfenv_cannot_read_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / RECORD).write_text("my notes\n")
    code, _, err = resolve(capsys, *LINUX_PIP, "--emit", str(tmp_path))
    assert code == 2
    assert RECORD in err
    assert (tmp_path / RECORD).read_text() == "my notes\n"
    assert resolve(capsys, *LINUX_PIP, "--emit", str(tmp_path), "--force")[0] == 0


def test_the_folders_own_lock_stays_with_the_container_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A lock copied in by --requirements is tfenv's; a later run that finds it in the
    folder (no --requirements) uses it in place, so it is neither removed nor forgotten."""
    lock = tmp_path / "elsewhere" / "requirements.lock.txt"
    lock.parent.mkdir()
    pins = ("tensorflow==2.17.1", "numpy==1.26.4")
    lock.write_text("".join(f"{p} \\\n    --hash=sha256:{'0' * 64}\n" for p in pins))
    out = tmp_path / "out"
    container = ("--os", "linux", "--gpu", "RTX 3060", "--driver", "550.54.14", "--tf", "2.17")
    argv = (*container, "--manager", "container", "--emit", str(out))
    assert resolve(capsys, *argv, "--requirements", str(lock))[0] == 0
    code, _, err = resolve(capsys, *argv)
    assert code == 0, err
    assert (out / "requirements.lock.txt").read_text() == lock.read_text()
    assert "requirements.lock.txt" in json.loads((out / RECORD).read_text())["files"]


def test_a_failed_write_puts_the_removed_files_back(tmp_path: Path) -> None:
    """A write stopped after the earlier plan's files were set aside restores them: the
    folder holds the old files or the new ones, never a mix."""
    assert main(["resolve", *WINDOWS_PIP, "--emit", str(tmp_path)]) == 0
    before = tree(tmp_path)
    script = (
        "import sys\n"
        "from tfenv import fsutil\n"
        "from tfenv.cli import main\n"
        "steps = []\n"
        "def hook(step):\n"
        "    steps.append(step)\n"
        "    if steps.count('backup') == int(sys.argv[1]):\n"
        "        raise OSError(28, 'No space left on device')\n"
        "fsutil.STEP_HOOK = hook\n"
        "sys.exit(main(sys.argv[2:]))\n"
    )
    # 3 backups for INSTALL.md, environment.yml and the record, then 3 set-asides
    for at in (4, 5, 6):
        argv = [sys.executable, "-c", script, str(at), "resolve", *WINDOWS_CONDA]
        done = subprocess.run(
            [*argv, "--emit", str(tmp_path)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 2, done.stderr
        assert "Nothing was written" in done.stderr
        assert tree(tmp_path) == before, at
