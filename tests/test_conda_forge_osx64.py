"""conda-forge's CPU-only TensorFlow for macOS x86_64 (osx-64) after the last Intel-Mac
wheel: the builds its feedstock's recipe made (``conda.yaml`` ``cpu_builds``), and the
plans and ways out that name them. Versions are taken from the data."""

from __future__ import annotations

import json
from typing import Any

import pytest
from packaging.specifiers import SpecifierSet

from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.upgrade.inputs import newest

KB = KnowledgeBase.from_environment()
OSX64 = KB.conda.cpu_builds("osx-64")
INTEL_MAC = ("--os", "macos", "--arch", "x86_64")


def last_wheel() -> Any:
    """The newest release with a macOS x86_64 wheel."""
    out = None
    for release in KB.index.releases("tensorflow"):
        if release.version.is_prerelease or release.yanked:
            continue
        if release.wheelset("macos_x86_64") is not None and (out is None or release.version > out):
            out = release.version
    return out


def resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["resolve", *INTEL_MAC, *argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    data = json.loads(out)
    assert isinstance(data, dict)
    return code, data


def test_the_osx64_builds_are_recorded_with_their_sources() -> None:
    assert OSX64
    wheel = last_wheel()
    assert wheel is not None
    assert any(b.version > wheel for b, _cpu in OSX64)  # conda-forge goes on past the wheels
    for build, cpu in OSX64:
        assert "osx-64" in build.cpu_subdirs
        assert cpu.python
        assert cpu.builds
        assert cpu.provenance.sources[0].startswith("conda-forge/tensorflow-feedstock")
        assert cpu.macos is not None


def test_a_pinned_version_past_the_wheels_gets_the_conda_forge_way_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    wheel = last_wheel()
    build, cpu = next((b, c) for b, c in reversed(OSX64) if b.version > wheel)
    series = f"{build.version.major}.{build.version.minor}"
    python = str(max(cpu.python))
    code, data = resolve(capsys, "--tf", series, "--python", python)
    assert code == 1
    offers = [s for s in data["suggestions"] if s["message"] == "way-out.conda-forge-cpu"]
    assert len(offers) == 1
    fields = offers[0]["fields"]
    assert fields["tensorflow"] == str(build.version)
    assert f"'tensorflow={build.version}=cpu_*'" in fields["command"]
    assert f"'python={python}'" in fields["command"]
    assert "--override-channels" in fields["command"]


def test_no_way_out_for_a_python_conda_forge_did_not_build(
    capsys: pytest.CaptureFixture[str],
) -> None:
    built = {p for _b, c in OSX64 for p in c.python}
    python = max(built)
    newer = f"{python.major}.{python.minor + 1}"
    _code, data = resolve(capsys, "--python", newer)
    assert all(s["message"] != "way-out.conda-forge-cpu" for s in data.get("suggestions", []))


def test_a_version_conda_forge_never_built_gets_no_way_out(
    capsys: pytest.CaptureFixture[str],
) -> None:
    top = max(b.version for b, _c in OSX64)
    after = newest(KB, SpecifierSet(f">{top}"))
    _code, data = resolve(capsys, "--tf", f"{after.major}.{after.minor}")
    assert all(s["message"] != "way-out.conda-forge-cpu" for s in data.get("suggestions", []))


def test_the_wheel_plan_names_the_newer_conda_forge_build(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, data = resolve(capsys)
    assert code == 0
    plan = data["plan"]
    top = max(b.version for b, _c in OSX64)
    notes = [w for w in plan["warnings"] if "conda-forge has CPU-only builds" in w]
    assert len(notes) == 1
    assert f"TensorFlow {top} for osx-64" in notes[0]


def test_no_conda_forge_note_where_the_wheels_serve_the_newest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The must-not-appear case: Apple silicon and Linux have wheels for the newest."""
    capsys.readouterr()
    for argv in (("--os", "macos", "--arch", "arm64"), ("--os", "linux", "--no-gpu")):
        main(["resolve", *argv, "--json"])
        data = json.loads(capsys.readouterr()[0])
        plan = data.get("plan") or {}
        assert not any("conda-forge has CPU-only" in w for w in plan.get("warnings", []))
