"""Apple silicon before 2.13 (#24 part 4): tensorflow has no macOS arm64 wheel there, so the
plan installs Apple's tensorflow-macos with the tensorflow-metal release paired with it
(metal.yaml), on the Pythons both wheels serve, each fact with its source."""

from __future__ import annotations

import json

import pytest

from tfenv.cli import main

MAC = ("--os", "macos", "--arch", "arm64")


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    assert main(["resolve", *MAC, *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["plan"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("tf", "release", "metal", "python"),
    [
        ("2.11", "2.11.0", "0.7.0", "3.10"),  # both wheels serve 3.8-3.10
        ("2.12", "2.12.0", "0.8.0", "3.11"),  # tensorflow-metal 0.8.0 adds 3.11
        ("2.9", "2.9.2", "0.5.0", "3.10"),
        ("2.5", "2.5.0", "0.1.2", "3.9"),  # Apple's row for 2.5 (0.1.0/0.1.1 inferred)
    ],
)
def test_plan_installs_tensorflow_macos_and_its_plug_in(
    capsys: pytest.CaptureFixture[str], tf: str, release: str, metal: str, python: str
) -> None:
    plan = _plan(capsys, "--tf", tf)
    assert plan["route"] == "metal"
    assert plan["package"] == "tensorflow-macos"
    assert plan["tensorflow"] == release
    assert plan["python"] == python
    pins = plan["packages"]["pip"]
    assert pins[:2] == [f"tensorflow-macos=={release}", f"tensorflow-metal=={metal}"]
    assert not any(p.startswith("tensorflow==") for p in pins)  # no such wheel exists here
    reasons = " ".join(plan["reasons"])
    assert "developer.apple.com/metal/tensorflow-plugin" in reasons
    assert "macOS 12.0 or later" in reasons or "macOS 11.0 or later" in reasons


def test_python_outside_the_wheels_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resolve", *MAC, "--tf", "2.11", "--python", "3.11"]) == 1
    out = capsys.readouterr().out
    assert "tensorflow-macos 2.11.0 (CPU only) needs Python 3.8-3.10" in out
    assert "Use Python 3.10 instead of 3.11" in out


def test_2_13_and_later_still_take_tensorflow(capsys: pytest.CaptureFixture[str]) -> None:
    plan = _plan(capsys, "--tf", "2.14")
    assert plan["package"] == "tensorflow"
    assert plan["packages"]["pip"][0] == "tensorflow==2.14.1"
    assert not any("tensorflow-macos" in r for r in plan["reasons"])


def test_intel_mac_is_not_offered_tensorflow_macos_metal(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["resolve", "--os", "macos", "--arch", "x86_64", "--tf", "2.11", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)["plan"]
    assert plan["route"] == "cpu"
    assert "tensorflow-metal" not in " ".join(plan["packages"]["pip"])


@pytest.mark.parametrize(("tf", "deps"), [("2.10", "2.10.0"), ("2.5", "2.5.0"), ("2.11", None)])
def test_conda_deps_named_where_the_apple_channel_has_them(
    capsys: pytest.CaptureFixture[str], tf: str, deps: str | None
) -> None:
    """apple::tensorflow-deps exists for 2.5-2.10 only (the channel's file list)."""
    reasons = " ".join(_plan(capsys, "--tf", tf)["reasons"])
    if deps is None:
        assert "tensorflow-deps" not in reasons
    else:
        assert f"conda install -c apple tensorflow-deps=={deps}" in reasons
        assert "anaconda.org/apple/tensorflow-deps" in reasons
