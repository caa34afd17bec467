"""check-upgrade says what is true, in words that fit the move (issue #14): regressions for
each misleading finding, the short sources of the text and Markdown, and the paths of the
Markdown."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.upgrade.render import relative_paths, short_source

DATA = Path(__file__).parent / "data" / "upgrade"
SYNTHETIC = Path(__file__).parent / "kb_synthetic"
A100 = ("--os", "linux", "--gpu", "A100", "--glibc", "2.31", "--python", "3.11")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["check-upgrade", *argv])
    return code, capsys.readouterr().out


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    code, out = run(capsys, *argv, "--json")
    data = json.loads(out)
    assert isinstance(data, dict)
    return code, data


def by_ref(data: dict[str, Any], target: int = 0) -> dict[str, dict[str, Any]]:
    return {f["ref"] or f["kind"]: f for f in data["targets"][target]["findings"]}


# -- Keras: the release where tf.keras changed, not the one moved to ---------------------


@pytest.mark.parametrize(
    ("start", "end", "named"),
    [("2.15", "2.21", "TensorFlow 2.16"), ("2.15", "2.16", "TensorFlow 2.16")],
)
def test_keras_names_the_release_where_it_changed(
    capsys: pytest.CaptureFixture[str], start: str, end: str, named: str
) -> None:
    _, data = as_json(capsys, "--from", start, "--to", end, *A100, "--driver", "560.35.03")
    keras = by_ref(data)["keras-3-default"]
    assert keras["summary"].endswith(f"tf.keras is Keras 3 from {named}")


# -- a change that only helps: info going up, a warning going down -----------------------


def test_numpy_2_support_is_info_going_up_and_a_warning_going_down(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, data = as_json(capsys, "--from", "2.15", "--to", "2.21", *A100, "--driver", "560.35.03")
    up = by_ref(data)["numpy-2-support"]
    assert up["severity"] == "info"
    assert up["fix"].startswith("None needed")
    _, data = as_json(
        capsys,
        "--from",
        "2.21",
        "--to",
        "2.17",
        "--allow-downgrade",
        *A100,
        "--driver",
        "560.35.03",
    )
    down = by_ref(data)["numpy-2-support"]
    assert down["severity"] == "warning"
    assert "numpy<2" in down["fix"]
    assert "2.18 or newer" not in down["fix"]


# -- the and-cuda ranges: one finding, and info where the plan pins the wheels ----------------

RANGES = {"and-cuda-ranges", "and-cuda-ranges-newer-than-build"}
MOVES = [
    ("2.19", "2.21", (*A100, "--driver", "535.104.05")),
    ("2.15", "2.20", (*A100, "--driver", "560.35.03")),
    ("2.19", "2.21", (*A100, "--driver", "535.104.05", "--manager", "container")),
    ("2.19", "2.21", ("--os", "wsl2", "--gpu", "A100", "--driver", "552.22", "--python", "3.11")),
    ("2.21", "2.19", (*A100, "--driver", "535.104.05", "--allow-downgrade")),
]


@pytest.mark.parametrize(("start", "end", "machine"), MOVES)
def test_the_and_cuda_ranges_are_reported_once(
    capsys: pytest.CaptureFixture[str], start: str, end: str, machine: tuple[str, ...]
) -> None:
    _, data = as_json(capsys, "--from", start, "--to", end, *machine)
    refs = [f["ref"] for f in data["targets"][0]["findings"] if f["ref"]]
    assert len([r for r in refs if r in RANGES]) <= 1, refs
    assert len(refs) == len(set(refs)), refs


def test_the_and_cuda_ranges_are_info_when_the_plan_pins_the_wheels(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, data = as_json(capsys, "--from", "2.19", "--to", "2.21", *A100, "--driver", "535.104.05")
    found = by_ref(data)["and-cuda-ranges"]
    assert found["severity"] == "info"
    assert "nvidia-cudnn-cu12==9.3.0.75" in found["fix"]
    # the package list shows the plan's pins, not the extra's ranges
    changes = {p["name"]: p for p in data["targets"][0]["packages"]["changes"]}
    assert changes["nvidia-nccl-cu12"]["new"] == "==2.27.7"


def test_the_and_cuda_ranges_issue_alone_when_the_plan_does_not_pin(kb: KnowledgeBase) -> None:
    """A pip plan without the remedy: the known issue, with its action, and not the change."""
    from dataclasses import replace

    from packaging.version import Version

    from tfenv import api
    from tfenv.models.target import MachineArgs
    from tfenv.resolver import resolve
    from tfenv.upgrade.checks import Facts
    from tfenv.upgrade.current import from_spec
    from tfenv.upgrade.warnings import warnings

    target = api.build_target(kb, MachineArgs(os="linux", gpu="A100", driver="560.35.03"))
    plan = resolve(kb, target, api.build_request(kb, "2.21")).plan
    assert plan is not None
    assert "pin-cuda-wheels" in plan.remedies
    bare = replace(plan, remedies=())
    facts = Facts(kb, target, Version("2.19.1"), Version("2.21.0"), "cuda")
    state = from_spec("2.19", "--from 2.19").for_target(None, "linux-64")
    found = [f for f in warnings(facts, state, bare) if f.ref in RANGES]
    assert [f.ref for f in found] == ["and-cuda-ranges-newer-than-build"]
    assert "Pin the nvidia-* wheels" in found[0].fix


# -- fixes are actions, never "see the source" -------------------------------------------

SCENARIOS = [
    (
        "2.19",
        "2.21",
        ("--os", "linux", "--cc", "12.0", "--driver", "575.51.03", "--python", "3.12"),
    ),
    ("2.15", "2.16.1", (*A100, "--driver", "535.104.05", "--manager", "pip")),
    ("2.15", "2.16.1", ("--os", "linux", "--arch", "aarch64", "--python", "3.11", "--no-gpu")),
    ("2.17", "2.19", ("--os", "windows", "--python", "3.11", "--no-gpu")),
    ("2.14", "2.15.0", (*A100, "--driver", "535.104.05")),
]


@pytest.mark.parametrize(("start", "end", "machine"), SCENARIOS)
def test_every_fix_is_an_action(
    capsys: pytest.CaptureFixture[str], start: str, end: str, machine: tuple[str, ...]
) -> None:
    _, data = as_json(capsys, "--from", start, "--to", end, *machine)
    findings = data["targets"][0]["findings"]
    assert findings, "a scenario without findings checks no fix"
    for f in findings:
        assert f["fix"].strip(), f
        assert "see the source" not in f["fix"].lower(), f
        assert ".whl" not in f["fix"], f


def test_blackwell_xla_issue_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    machine = ("--os", "linux", "--cc", "12.0", "--driver", "575.51.03", "--python", "3.12")
    _, data = as_json(capsys, "--from", "2.19", "--to", "2.21", *machine)
    assert "jit_compile=False" in by_ref(data)["xla-blackwell-ptxas-12-5"]["fix"]


# -- issues respect their platforms ------------------------------------------------------


@pytest.mark.parametrize(
    ("machine", "shown"),
    [
        (("--os", "linux", "--no-gpu", "--python", "3.11"), False),
        (("--os", "macos", "--arch", "arm64", "--python", "3.11"), False),
        (("--os", "windows", "--no-gpu", "--python", "3.11"), True),
    ],
)
def test_the_tensorflow_intel_issue_only_where_windows_is_locked(
    capsys: pytest.CaptureFixture[str], machine: tuple[str, ...], shown: bool
) -> None:
    _, data = as_json(capsys, "--from", "2.17", "--to", "2.19", *machine)
    assert ("phantom-intel-pin-2-18-1-to-2-19" in by_ref(data)) is shown


# -- unknown build facts are a warning, not "safe" ---------------------------------------


def test_a_release_with_unknown_cuda_is_a_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "kb"
    shutil.copytree(SYNTHETIC, root)
    builds = root / "tensorflow" / "builds.yaml"
    doc = yaml.safe_load(builds.read_text("utf-8"))
    row = next(b for b in doc["builds"] if b["series"] == "2.93")
    row["linux"]["cuda"] = row["linux"]["cudnn"] = None
    builds.write_text(yaml.safe_dump(doc, sort_keys=False), "utf-8")
    monkeypatch.setenv("TFENV_DATA_DIR", str(root))
    monkeypatch.setenv("TFENV_CACHE_DIR", str(tmp_path / "cache"))
    machine = ("--os", "linux", "--cc", "8.0", "--driver", "600.1.1", "--glibc", "2.35")
    code, data = as_json(
        capsys, "--from", "2.92.0", "--to", "2.93.0rc0", "--pre", *machine, "--python", "3.12"
    )
    target = data["targets"][0]
    unknown = [f for f in target["findings"] if "not known to tfenv" in f["summary"]]
    assert unknown, target["findings"]
    assert unknown[0]["severity"] == "warning"
    assert "CUDA version" in unknown[0]["summary"]
    assert target["status"] != "safe"
    assert code == 0  # a warning: only --strict fails on it
    assert run(capsys, "--from", "2.92.0", "--to", "2.93.0rc0", "--pre", *machine,
               "--python", "3.12", "--strict")[0] == 1  # fmt: skip


# -- a driver the GPU can never run ------------------------------------------------------


def test_kepler_driver_fix_says_no_driver_supports_the_gpu(
    capsys: pytest.CaptureFixture[str],
) -> None:
    machine = ("--os", "linux", "--gpu", "K80", "--driver", "470.82.01", "--python", "3.10")
    _, data = as_json(capsys, "--from", "2.11", "--to", "2.21", *machine)
    driver = by_ref(data)["cuda-12"]
    assert driver["severity"] == "blocker"
    assert "No NVIDIA driver that runs this release supports Tesla K80" in driver["fix"]
    assert "R470" in driver["fix"]
    assert "Install an NVIDIA driver" not in driver["fix"]


def test_a_gpu_whose_branch_reaches_the_floor_is_told_to_install_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    machine = ("--os", "linux", "--gpu", "P100", "--driver", "470.82.01", "--python", "3.10")
    _, data = as_json(capsys, "--from", "2.14", "--to", "2.15", *machine)
    assert "Install an NVIDIA driver >= 525.60.13" in by_ref(data)["cuda-12"]["fix"]


def test_last_driver_branches_are_recorded_with_sources(kb: KnowledgeBase) -> None:
    from packaging.version import Version

    for cc, arch, branch in (
        ("3.7", "Kepler", 470),
        ("3.0", "Kepler", 470),
        ("5.2", "Maxwell", 580),
        ("6.1", "Pascal", 580),
        ("7.0", "Volta", 580),
    ):
        found = kb.cuda.last_branch(Version(cc))
        assert found is not None
        assert (found.architecture, found.last_branch) == (arch, branch)
        assert any("nvidia.com" in s for s in found.provenance.sources)
    assert kb.cuda.last_branch(Version("7.5")) is None  # Turing: still supported


# -- the driver-below-toolkit warning is a finding: text, Markdown, --strict ---------------


def test_driver_below_the_toolkit_is_in_text_and_strict(capsys: pytest.CaptureFixture[str]) -> None:
    # 2.17 (CUDA 12.3) -> 2.18 (CUDA 12.5): the toolkit's own minimum rises past the driver
    argv = ("--from", "2.17", "--to", "2.18", *A100, "--driver", "545.29.06")
    _, data = as_json(capsys, *argv)
    assert any("own minimum" in w for w in data["targets"][0]["new_plan"]["warnings"])
    driver = by_ref(data)["driver"]
    assert driver["severity"] == "warning"
    assert "555.42.02" in driver["fix"]
    _, out = run(capsys, *argv)
    assert "older than CUDA 12.5's own minimum (555.42.02)" in out
    assert run(capsys, *argv, "--strict")[0] == 1
    _, data = as_json(capsys, "--from", "2.20", "--to", "2.21", *A100, "--driver", "560.35.03")
    assert "driver" not in by_ref(data)


def test_driver_below_the_toolkit_on_both_sides_is_standing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # 2.20 and 2.21 both use CUDA 12.5: an R535 driver is below its minimum before and after
    argv = ("--from", "2.20", "--to", "2.21", *A100, "--driver", "535.104.05")
    _, data = as_json(capsys, *argv, "--strict")
    assert "driver" not in by_ref(data)
    standing = data["targets"][0]["standing"]
    assert [f["kind"] for f in standing] == ["driver"]
    # a patch release on the same CUDA: nothing else changes, so --strict passes
    patch = ("--from", "2.18.0", "--to", "2.18.1", *A100, "--driver", "535.104.05")
    code, data = as_json(capsys, *patch, "--strict")
    assert data["targets"][0]["findings"] == []
    assert [f["kind"] for f in data["targets"][0]["standing"]] == ["driver"]
    assert code == 0
    _, out = run(capsys, *argv)
    assert "standing conditions (the same before and after the move; not changes):" in out
    assert out.count("older than CUDA 12.5's own minimum") == 1


# -- short sources in text and Markdown, the full ones in JSON -----------------------------

SHORT = [
    (
        "pypi-files:/packages/43/fb/8be8547c128613d82a2b006004026d86ed0bd672e913029a98153af4ffab/"
        "tensorflow-2.20.0-cp313-cp313-manylinux_2_17_x86_64.manylinux2014_x86_64.whl (sha256 "
        "5fa3729b0126f75a99882b89fb7d536515721eda8014a63e259e780ba0a37372) METADATA",
        "tensorflow 2.20.0 wheel (linux x86_64) METADATA",
    ),
    (
        "tensorflow_macos-2.15.1-cp311-cp311-macosx_12_0_arm64.whl (sha256 "
        "58fca6399665f19e599c591c421672d9bc8b705409d43ececd0931d1d3bc6a7e) METADATA",
        "tensorflow-macos 2.15.1 wheel (macos arm64) METADATA",
    ),
    (
        "pypi-files:/packages/8a/45/fa31ced1db38f9424f262dfbf35747fe5378b5c808cecb373c8cb8e515d3/"
        "tensorflow-gpu-2.12.0.tar.gz setup.py",
        "tensorflow-gpu 2.12.0 sdist setup.py",
    ),
    ("pypi-simple:/tensorflow-intel/ (PEP 691 JSON)", "tensorflow-intel on the index"),
    (
        "tensorflow/docs site/en/install/source.md @ 7c3650212740204359d4ceae481abc79345541be",
        "tensorflow/docs site/en/install/source.md @ 7c36502",
    ),
    ("https://github.com/tensorflow/tensorflow/issues/63362", "tensorflow/tensorflow#63362"),
    (
        "https://github.com/tensorflow/tensorflow/releases/tag/v2.16.1",
        "tensorflow/tensorflow release v2.16.1",
    ),
    (
        "https://docs.nvidia.com/deploy/cuda-compatibility/",
        "https://docs.nvidia.com/deploy/cuda-compatibility/",
    ),
]


@pytest.mark.parametrize(("source", "short"), SHORT)
def test_short_source(source: str, short: str) -> None:
    assert short_source(source) == short


def test_every_recorded_source_is_short(kb: KnowledgeBase) -> None:
    sources = {s for c in kb.changes for s in c.provenance.sources}
    sources |= {s for i in kb.known_issues for s in i.provenance.sources}
    assert sources
    for source in sources:
        short = short_source(source)
        assert len(short) <= 120
        assert "sha256" not in short
        assert "pypi-files:" not in short


def test_text_and_markdown_show_short_sources_json_the_full_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ("--from", "2.19", "--to", "2.21", *A100, "--driver", "535.104.05")
    for flag in ((), ("--markdown",)):
        _, out = run(capsys, *argv, *flag)
        assert "[and-cuda-ranges] tensorflow 2.20.0 wheel (linux x86_64) METADATA" in out
        assert "pypi-files:" not in out
        assert "sha256" not in out
    _, out = run(capsys, *argv, "--json")
    assert "pypi-files:/packages/43/fb/" in out


# -- Markdown paths relative to the configuration's folder ---------------------------------


def test_markdown_paths_are_relative_to_the_config_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = tmp_path / "project"
    shutil.copytree(DATA / "team", project)
    shutil.copy(DATA / "locks" / "pylock.laptop.toml", project / "pylock.laptop.toml")
    _, out = run(
        capsys, "--config", str(project), "--to", "2.16", "--target", "laptop", "--markdown"
    )
    assert str(tmp_path) not in out
    assert "pylock.laptop.toml" in out
    _, out = run(capsys, "--config", str(project), "--to", "2.16", "--target", "laptop", "--json")
    assert str(project / "pylock.laptop.toml") in out  # JSON keeps the full path


def test_relative_paths_leaves_other_folders_alone() -> None:
    text = "/w/p/locks/a.toml; /w/p-other/b.toml; /w/p"
    assert relative_paths(text, "/w/p") == "locks/a.toml; /w/p-other/b.toml; /w/p"
