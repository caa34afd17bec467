"""A host file's notes next to facts the user edited or replaced with a flag.

The host files are written by ``tfenv detect`` in a subprocess, with a fake
``nvidia-smi`` that prints a recording (tests/data/host); ``tfenv resolve --host``
then reads them in this process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.test_host_cli import fake_smi, tfenv
from tfenv.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake nvidia-smi is sh")

NO_DRIVER = (
    "No usable NVIDIA driver: nvidia-smi failed: NVIDIA-SMI has failed because it "
    "couldn't communicate with the NVIDIA driver."
)
NO_CUDA = "nvidia-smi does not show which CUDA version the driver supports."
NAMES_CUT = "nvidia-smi --query-gpu failed (exit status 2); GPU names may be cut."


def detected(folder: Path, recording: str, status: int = 0) -> Path:
    """The host file ``tfenv detect --output`` writes where nvidia-smi prints ``recording``."""
    host = folder / "host.json"
    done = tfenv("--output", str(host), path=fake_smi(folder / "bin", recording, status))
    assert done.returncode == 0, done.stderr
    return host


@pytest.fixture(scope="module")
def no_driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A machine whose nvidia-smi cannot talk to the driver: driver null, and a note."""
    return detected(tmp_path_factory.mktemp("no-driver"), "smi-error-no-driver.txt", 9)


@pytest.fixture(scope="module")
def gtx680(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Driver 331.62, three GTX 680: no CUDA version in the header, no --query-gpu."""
    return detected(tmp_path_factory.mktemp("gtx680"), "smi-331.62-gtx680-no-cuda.txt")


def resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["resolve", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def printed_notes(capsys: pytest.CaptureFixture[str], host: Path, *flags: str) -> list[str]:
    """The target's notes, from the text output; the --json output must say the same."""
    code, out, err = resolve(capsys, "--host", str(host), *flags)
    assert code in (0, 1), err
    text = [line[len("  note: ") :] for line in out.splitlines() if line.startswith("  note: ")]
    code, out, err = resolve(capsys, "--host", str(host), "--json", *flags)
    assert code in (0, 1), err
    assert json.loads(out)["target"]["notes"] == text
    return text


def edited(host: Path, folder: Path, **changes: Any) -> Path:
    data = json.loads(host.read_text("utf-8"))
    data.update(changes)
    out = folder / "edited.json"
    out.write_text(json.dumps(data), "utf-8")
    return out


def test_the_host_file_says_what_each_note_is_about(no_driver: Path, gtx680: Path) -> None:
    data = json.loads(no_driver.read_text("utf-8"))
    assert data["driver"] is None
    assert data["notes"][0] == {"about": "driver", "value": None, "text": NO_DRIVER}
    notes = {n["text"]: (n["about"], n["value"]) for n in json.loads(gtx680.read_text())["notes"]}
    assert notes[NO_CUDA] == ("driver_cuda", None)
    three = "; ".join(f"{i}: GeForce GTX 680 (3.0)" for i in range(3))
    assert notes[NAMES_CUT] == ("gpus", three)


def test_a_no_driver_note_is_printed(capsys: pytest.CaptureFixture[str], no_driver: Path) -> None:
    assert NO_DRIVER in printed_notes(capsys, no_driver)


def test_not_next_to_a_driver_given_by_flag(
    capsys: pytest.CaptureFixture[str], no_driver: Path
) -> None:
    notes = printed_notes(capsys, no_driver, "--driver", "535.104.05")
    assert not any("NVIDIA driver" in n and "nvidia-smi" in n for n in notes), notes


def test_not_next_to_a_driver_edited_into_the_file(
    capsys: pytest.CaptureFixture[str], no_driver: Path, tmp_path: Path
) -> None:
    host = edited(no_driver, tmp_path, driver="535.104.05")
    assert NO_DRIVER in host.read_text("utf-8")  # the note is still in the file
    notes = printed_notes(capsys, host)
    assert not any("nvidia-smi" in n for n in notes), notes
    _code, out, _err = resolve(capsys, "--host", str(host))
    assert "driver 535.104.05" in out.splitlines()[0], out


def test_gpu_and_driver_notes_go_with_their_flags(
    capsys: pytest.CaptureFixture[str], gtx680: Path
) -> None:
    notes = printed_notes(capsys, gtx680)
    assert NO_CUDA in notes
    assert NAMES_CUT in notes
    # --gpu replaces the GPUs: the note about their names goes, the driver's stays
    notes = printed_notes(capsys, gtx680, "--gpu", "RTX 3060")
    assert NO_CUDA in notes
    assert NAMES_CUT not in notes
    notes = printed_notes(capsys, gtx680, "--cc", "8.6")
    assert NAMES_CUT not in notes
    # --driver replaces the driver and the CUDA version it supports
    notes = printed_notes(capsys, gtx680, "--driver", "535.104.05")
    assert NO_CUDA not in notes
    assert NAMES_CUT in notes
    # --python and --glibc replace facts no note is about
    assert printed_notes(capsys, gtx680, "--python", "3.8", "--glibc", "2.31")[:2] == [
        NO_CUDA,
        NAMES_CUT,
    ]


def test_a_hand_edited_gpu_drops_the_gpu_note(
    capsys: pytest.CaptureFixture[str], gtx680: Path, tmp_path: Path
) -> None:
    data = json.loads(gtx680.read_text("utf-8"))
    gpus = data["gpus"][:1]
    gpus[0]["name"] = "NVIDIA GeForce GTX 680"
    notes = printed_notes(capsys, edited(gtx680, tmp_path, gpus=gpus))
    assert NO_CUDA in notes
    assert NAMES_CUT not in notes


def test_old_host_files_with_plain_string_notes(
    capsys: pytest.CaptureFixture[str], no_driver: Path, tmp_path: Path
) -> None:
    data = json.loads(no_driver.read_text("utf-8"))
    host = edited(no_driver, tmp_path, notes=[n["text"] for n in data["notes"]])
    assert printed_notes(capsys, host)[0] == NO_DRIVER
    # a general note: nothing tells which fact it was about, so nothing drops it
    assert printed_notes(capsys, host, "--driver", "535.104.05")[0] == NO_DRIVER


@pytest.mark.parametrize(
    ("note", "field"),
    [
        ({"about": "nvidia", "value": None, "text": "x"}, "notes[0].about"),
        ({"about": None, "value": "535.104.05", "text": "x"}, "notes[0].value"),
        ({"about": "driver", "value": None}, "notes[0].text"),
        ({"about": "driver", "value": None, "text": "x", "when": 1}, "notes[0]"),
    ],
)
def test_a_bad_note_is_a_one_paragraph_error(
    capsys: pytest.CaptureFixture[str], no_driver: Path, tmp_path: Path, note: Any, field: str
) -> None:
    host = edited(no_driver, tmp_path, notes=[note])
    code, out, err = resolve(capsys, "--host", str(host))
    assert code == 2, (out, err)
    assert out == ""
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert f"is not a valid host profile: field '{field}'" in err, err


def test_detect_leaves_out_notes_about_a_given_driver(tmp_path: Path) -> None:
    bin_dir = fake_smi(tmp_path / "bin", "smi-error-no-driver.txt", table_status=9)
    plain = tfenv(path=bin_dir)
    assert NO_DRIVER in plain.stdout
    given = tfenv("--driver", "535.104.05", path=bin_dir)
    assert given.returncode == 0, given.stderr
    assert "NVIDIA driver  535.104.05 (given)" in given.stdout
    assert "nvidia-smi failed" not in given.stdout
    as_json = tfenv("--json", "--driver", "535.104.05", path=bin_dir)
    assert json.loads(as_json.stdout)["notes"] == []
