"""`tfenv doctor --import`'s summary of a failed import: the line that says what went wrong,
read from a real child interpreter's log (a venv whose ``tensorflow`` fails as TensorFlow
2.10 does under NumPy 2)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tfenv.cli import main

_FAILING_TF = """\
import sys
sys.stderr.write("A module that was compiled using NumPy 1.x cannot be run in\\n")
sys.stderr.write("NumPy 2.0.2 as it may crash.\\n")
raise TypeError(
    "Unable to convert function return value to a Python type! The signature was\\n\\t() -> handle"
)
"""


def _venv_with_tensorflow(root: Path, init: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    site = next(root.glob("lib/python3*/site-packages"))
    (site / "tensorflow").mkdir()
    (site / "tensorflow" / "__init__.py").write_text(init)
    return root / "bin" / "python"


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX venv layout")
def test_a_failed_imports_summary_is_its_exception_line_not_a_raw_tab(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    python = _venv_with_tensorflow(tmp_path / "env", _FAILING_TF)
    assert main(["doctor", "--interpreter", str(python), "--import", "--no-gpu"]) == 1
    out = capsys.readouterr().out
    head = out.split("The failing import's log")[0]
    assert "\\t" not in head
    assert (
        "          TypeError: Unable to convert function return value to a Python type! "
        "The signature was\n" in head
    )


def test_error_line_takes_the_last_exception_line_else_the_last_text() -> None:
    from tfenv.doctor.imports import error_line

    log = "Traceback (most recent call last):\n  File 'x'\nValueError: bad\n\t() -> handle\n"
    assert error_line(log) == "ValueError: bad"
    assert error_line("killed\n\n") == "killed"
    assert error_line("  \n") == "(no output)"
