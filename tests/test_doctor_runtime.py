"""doctor and the runtime constraints (``tensorflow/runtime.yaml``): an installed package
that violates one is a problem with the pip command that fixes it; ``--import`` prints the
failing import's log. The release, Python and package come from the data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.kb.releases import tf_options
from tfenv.kb.runtime import RuntimeConstraint


def _dist(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _case(kb: KnowledgeBase) -> tuple[RuntimeConstraint, Version, str]:
    """A recorded constraint of the form <X, a Linux release and a Python it applies to."""
    for opt in tf_options(kb, "tensorflow", "linux_x86_64"):
        for py in opt.pythons:
            for c in kb.runtime.constraints_for(opt.version, str(py)):
                if c.requirement.startswith("<") and "," not in c.requirement:
                    return c, opt.version, str(py)
    raise AssertionError("the runtime data has no <X constraint")


def _env(tmp_path: Path, tf: Version, python: str, package: str, version: str) -> Path:
    site = tmp_path / "env" / "lib" / f"python{python}" / "site-packages"
    site.mkdir(parents=True)
    _dist(site, "tensorflow-cpu", str(tf))
    _dist(site, package, version)
    return tmp_path / "env"


def _doctor(
    capsys: pytest.CaptureFixture[str], prefix: Path
) -> tuple[int, dict[str, dict[str, Any]]]:
    capsys.readouterr()
    code = main(["doctor", "--json", "--prefix", str(prefix), "--no-gpu", "--os", "linux"])
    doc = json.loads(capsys.readouterr().out)
    return code, {f["id"]: f for f in doc["findings"]}


def test_a_violated_constraint_is_a_problem_with_the_pip_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    c, tf, py = _case(kb)
    bad = c.requirement[1:]  # the bound itself: excluded by <X
    assert not SpecifierSet(c.requirement).contains(bad)
    code, found = _doctor(capsys, _env(tmp_path, tf, py, c.package, bad))
    f = found[f"runtime-{c.package}"]
    assert code == 1
    assert f["status"] == "problem"
    assert f"{c.package} {Version(bad)} is installed" in f["title"]
    assert f"TensorFlow {tf}" in f["title"]
    assert f["fix"] == f"python -m pip install '{c.line}'"  # no interpreter known: plain python
    assert c.error in f["detail"]


def test_a_satisfied_constraint_is_ok(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kb: KnowledgeBase
) -> None:
    c, tf, py = _case(kb)
    bound = Version(c.requirement[1:])
    good = f"{bound.major - 1}.0" if bound.major else "0.0.1"  # below the bound
    assert SpecifierSet(c.requirement).contains(good)
    _code, found = _doctor(capsys, _env(tmp_path, tf, py, c.package, good))
    assert found[f"runtime-{c.package}"]["status"] == "ok"


def test_import_failure_prints_its_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """doctor --import runs the Verify check; when the import fails, text mode prints its log."""
    prefix = tmp_path / "env"
    (prefix / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    (prefix / "bin").mkdir()
    fake = prefix / "bin" / "python"
    fake.write_text(
        "#!/bin/sh\n"
        "echo 'Traceback (most recent call last):' >&2\n"
        "echo 'TypeError: Unable to convert function return value to a Python type!' >&2\n"
        "exit 1\n"
    )
    fake.chmod(0o755)
    capsys.readouterr()
    code = main(["doctor", "--prefix", str(prefix), "--import", "--no-gpu", "--os", "linux"])
    out = capsys.readouterr().out
    assert code == 1
    assert "The failing import's log" in out
    assert "  | TypeError: Unable to convert function return value to a Python type!" in out


def test_a_failing_verify_computation_is_a_problem(tmp_path: Path) -> None:
    from tfenv.doctor.imports import run_import_check

    fake = tmp_path / "python"
    result = (
        'TFENV-DOCTOR-RESULT {"version": "2.10.1", "built_with_cuda": false, "gpus": [], '
        '"compute_error": "InternalError: no kernel", "details": [], "build_info": {}}'
    )
    fake.write_text(f"#!/bin/sh\necho '{result}'\n")
    fake.chmod(0o755)
    found = {f.id: f for f in run_import_check(str(fake), 30, has_gpu=False).findings}
    assert found["import"].status == "ok"
    assert found["import-compute"].status == "problem"
    assert found["import-compute"].detail == "InternalError: no kernel"
