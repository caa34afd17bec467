"""HostProfile: the JSON contract with the solver and the lock command."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from tfenv.errors import ConfigError, UsageError
from tfenv.host import write_host_file
from tfenv.host.profile import (
    NOTE_FACTS,
    CudnnInstall,
    GpuInfo,
    HostNote,
    HostProfile,
    InstalledToolkit,
    read_host_file,
    replaced_facts,
)

GPUS = (  # the GPUs as a note about them holds them (HostProfile.fact_text)
    "0: NVIDIA RTX 5880 Ada Generation (8.9); 1: NVIDIA TITAN V (7.0); "
    "2: NVIDIA A100-SXM4-80GB (8.0)"
)


def sample() -> HostProfile:
    return HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        glibc=Version("2.35"),
        conda_env="tf",
        driver="535.104.05",
        driver_cuda=Version("12.2"),
        gpus=(
            GpuInfo(0, "NVIDIA RTX 5880 Ada Generation", Version("8.9"), "nvidia-smi", 49140),
            GpuInfo(1, "NVIDIA TITAN V", Version("7.0"), "kb", 12288, False, "GPU-1"),
            GpuInfo(2, "NVIDIA A100-SXM4-80GB", Version("8.0"), "nvml", 81920, True, "GPU-2"),
        ),
        cuda_toolkits=(InstalledToolkit(Version("12.2"), "/usr/local/cuda-12.2", "version.json"),),
        cudnn=(CudnnInstall(Version("8.9.7"), "/usr/include/cudnn_version.h"),),
        packages=(("nvidia-cudnn-cu12", "8.9.7.29"), ("tensorflow", "2.15.1")),
        notes=(
            HostNote("a note."),
            HostNote("nvidia-smi --query-gpu failed; GPU names may be cut.", "gpus", GPUS),
            HostNote("WSL 1 has no GPU access; only WSL2 can run CUDA.", "os", "linux"),
        ),
        sources=(("driver", "nvidia-smi"), ("python", "given")),
    )


def test_round_trip() -> None:
    p = sample()
    d = p.to_dict()
    assert d["schema"] == 1
    assert d["driver"] == "535.104.05"
    assert d["gpus"][0]["compute_capability"] == "8.9"
    assert d["packages"] == {"nvidia-cudnn-cu12": "8.9.7.29", "tensorflow": "2.15.1"}
    assert d["notes"][0] == {"about": None, "value": None, "text": "a note."}
    assert d["notes"][1] == {
        "about": "gpus",
        "value": GPUS,
        "text": "nvidia-smi --query-gpu failed; GPU names may be cut.",
    }
    assert HostProfile.from_dict(d) == p
    assert HostProfile.from_json(p.to_json()) == p
    assert HostProfile.from_dict(json.loads(json.dumps(d))).to_dict() == d


def test_minimal_profile_round_trips() -> None:
    p = HostProfile(os="macos", arch="arm64", python=Version("3.12"))
    assert HostProfile.from_dict(p.to_dict()) == p


_pythons = st.builds(lambda a, b: Version(f"{a}.{b}"), st.integers(2, 3), st.integers(0, 99))
_glibcs = st.builds(lambda b: Version(f"2.{b}"), st.integers(0, 99))
_names = st.builds(
    lambda base, n: f"{base}{n}",
    st.sampled_from(["tensorflow", "nvidia-cudnn-cu12", "tf_keras", "Pkg.Name", "a"]),
    st.integers(0, 99),
)
_package_versions = st.lists(st.integers(0, 999), min_size=1, max_size=4).map(
    lambda release: ".".join(map(str, release))
)
_ccs = st.builds(lambda a, b: Version(f"{a}.{b}"), st.integers(1, 13), st.integers(0, 9))
_text = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FF, blacklist_categories=("Zs", "Cc")),
    min_size=1,
    max_size=12,
)
_gpus = st.builds(
    GpuInfo,
    index=st.integers(0, 15),
    name=_text,
    compute_capability=st.none() | _ccs,
    cc_source=st.sampled_from([None, "nvml", "nvidia-smi", "kb"]),
    memory_mib=st.none() | st.integers(0, 1 << 20),
    mig=st.booleans(),
    uuid=st.none() | _text,
)

_notes = st.builds(
    HostNote,
    text=_text,
    about=st.none() | st.sampled_from(NOTE_FACTS),
    value=st.none() | _text,
).map(lambda n: n if n.about else HostNote(n.text))


@given(
    os=st.sampled_from(["linux", "windows", "wsl2", "macos"]),
    arch=st.sampled_from(["x86_64", "aarch64", "arm64"]),
    python=_pythons,
    glibc=st.none() | _glibcs,
    driver=st.none() | st.sampled_from(["535.104.05", "580.126.09", "461.79"]),
    gpus=st.lists(_gpus, max_size=4).map(tuple),
    packages=st.dictionaries(_names, _package_versions, max_size=3).map(
        lambda d: tuple(sorted(d.items()))
    ),
    notes=st.lists(_notes, max_size=3).map(tuple),
)
def test_round_trip_property(
    os: str,
    arch: str,
    python: Version,
    glibc: Optional[Version],
    driver: Optional[str],
    gpus: tuple[GpuInfo, ...],
    packages: tuple[tuple[str, str], ...],
    notes: tuple[HostNote, ...],
) -> None:
    p = HostProfile(
        os=os, arch=arch, python=python, glibc=glibc, driver=driver, gpus=gpus,
        packages=packages, notes=notes,
    )  # fmt: skip
    assert HostProfile.from_json(p.to_json()) == p


# -- broken input ------------------------------------------------------------------------


def broken(change: Any) -> dict[str, Any]:
    d = copy.deepcopy(sample().to_dict())
    change(d)
    return d


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(schema=2), "schema"),
        (lambda d: d.pop("schema"), "schema"),
        (lambda d: d.update(os="linux2"), "os"),
        (lambda d: d.update(arch="ppc64le"), "arch"),
        (lambda d: d.update(python=3.11), "python"),
        (lambda d: d.update(python="three"), "python"),
        (lambda d: d.update(glibc="2.x"), "glibc"),
        (lambda d: d.update(driver="latest"), "driver"),
        (lambda d: d.update(gpus={}), "gpus"),
        (lambda d: d["gpus"][1].update(compute_capability="eight"), "gpus[1].compute_capability"),
        (lambda d: d["gpus"][0].update(index=True), "gpus[0].index"),
        (lambda d: d["gpus"][0].update(memory_mib="40GB"), "gpus[0].memory_mib"),
        (lambda d: d["gpus"][0].update(mig="yes"), "gpus[0].mig"),
        (lambda d: d["gpus"][0].update(cc_source="guess"), "gpus[0].cc_source"),
        (lambda d: d["gpus"][0].update(colour="green"), "gpus[0]"),
        (lambda d: d["gpus"][0].pop("name"), "gpus[0].name"),
        (lambda d: d["cuda_toolkits"][0].pop("path"), "cuda_toolkits[0].path"),
        (lambda d: d["cudnn"][0].update(version=None), "cudnn[0].version"),
        (lambda d: d["packages"].update(tensorflow=2), "packages.tensorflow"),
        (lambda d: d.update(notes="x"), "notes"),
        (lambda d: d.update(notes=["a\nb"]), "notes[0]"),
        (lambda d: d["notes"][1].update(about="gpu"), "notes[1].about"),
        (lambda d: d["notes"][1].update(about=["gpus"]), "notes[1].about"),
        (lambda d: d["notes"][1].pop("text"), "notes[1].text"),
        (lambda d: d["notes"][1].update(text="x" * 2001), "notes[1].text"),
        (lambda d: d["notes"][1].update(value="a\x1b[2Jb"), "notes[1].value"),
        (lambda d: d["notes"][0].update(value="535.104.05"), "notes[0].value"),
        (lambda d: d["notes"][0].update(fact="driver"), "notes[0]"),
        (lambda d: d["notes"].append(7), "notes[3]"),
        (lambda d: d.update(sources=[]), "sources"),
        (lambda d: d.update(extra=1), "unknown key"),
    ],
)
def test_broken_profile_names_the_field(change: Any, field: str) -> None:
    with pytest.raises(ConfigError) as info:
        HostProfile.from_dict(broken(change))
    message = str(info.value)
    assert field in message
    assert "\n" not in message


def test_not_an_object() -> None:
    with pytest.raises(ConfigError, match="not a valid host profile: expected a mapping"):
        HostProfile.from_dict([1, 2])


def test_broken_host_file(tmp_path: Path) -> None:
    bad = tmp_path / "host.json"
    bad.write_text('{"schema": 1, "os": "linux",', "utf-8")
    with pytest.raises(ConfigError, match=r"host\.json is not valid JSON"):
        read_host_file(bad)
    with pytest.raises(ConfigError, match="cannot be read"):
        read_host_file(tmp_path / "missing.json")


def test_write_and_read_host_file(tmp_path: Path) -> None:
    target = tmp_path / "host.json"
    write_host_file(sample(), target)
    assert read_host_file(target) == sample()
    assert [p.name for p in tmp_path.iterdir()] == ["host.json"]  # no temp file left


def test_write_host_file_into_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="Cannot write"):
        write_host_file(sample(), tmp_path / "nope" / "host.json")


# -- the GPU to resolve for ------------------------------------------------------------------


def test_lowest_cc_gpu() -> None:
    p = sample()
    low = p.lowest_cc_gpu(None)
    assert low is not None
    assert low.name == "NVIDIA TITAN V"
    chosen = p.lowest_cc_gpu(2)
    assert chosen is not None
    assert chosen.index == 2


def test_lowest_cc_gpu_unknown_index() -> None:
    with pytest.raises(UsageError, match=r"no GPU with index 7 .*0, 1, 2"):
        sample().lowest_cc_gpu(7)


def test_lowest_cc_gpu_without_gpus_or_capabilities() -> None:
    assert HostProfile(os="linux", arch="x86_64", python=Version("3.11")).lowest_cc_gpu() is None
    unknown = HostProfile(
        os="linux", arch="x86_64", python=Version("3.11"), gpus=(GpuInfo(3, "X"), GpuInfo(4, "Y"))
    )
    first = unknown.lowest_cc_gpu()
    assert first is not None
    assert first.index == 3


def test_helpers() -> None:
    p = sample()
    assert p.driver_version == Version("535.104.5")
    assert p.has_gpu
    assert p.source_of("python") == "given"
    assert p.package_version("tensorflow") == "2.15.1"


# -- notes: which fact, and its value then -----------------------------------------------


def test_fact_text() -> None:
    p = sample()
    assert p.fact_text("driver") == "535.104.05"
    assert p.fact_text("driver_cuda") == "12.2"
    assert p.fact_text("gpus") == GPUS
    assert p.fact_text("cuda_toolkits") == "12.2 (/usr/local/cuda-12.2)"
    assert p.fact_text("cudnn") == "8.9.7 (/usr/include/cudnn_version.h)"
    assert p.fact_text("packages") == "nvidia-cudnn-cu12==8.9.7.29, tensorflow==2.15.1"
    bare = HostProfile(os="linux", arch="x86_64", python=Version("3.11"))
    assert [bare.fact_text(f) for f in ("driver", "gpus", "packages", "conda_env")] == [None] * 4
    unknown_cc = replace(bare, gpus=(GpuInfo(0, "Orin (nvgpu)"),))
    assert unknown_cc.fact_text("gpus") == "0: Orin (nvgpu) (?)"


def test_a_fact_longer_than_a_note_is_written_as_its_digest() -> None:
    deep = "/opt/" + "x" * 4000
    p = HostProfile(
        os="linux", arch="x86_64", python=Version("3.11"),
        cuda_toolkits=(InstalledToolkit(Version("12.2"), deep, "version.json"),),
    )  # fmt: skip
    text = p.fact_text("cuda_toolkits")
    assert text is not None
    assert text.startswith("sha256:")
    assert len(text) == 7 + 64
    noted = replace(p, notes=p.noted([HostNote("A toolkit has no version.", "cuda_toolkits")]))
    again = HostProfile.from_json(noted.to_json())
    assert again.current_notes() == noted.notes
    other = replace(again, cuda_toolkits=(InstalledToolkit(Version("12.3"), deep, "nvcc"),))
    assert other.current_notes() == ()


def test_noted_writes_each_note_against_the_profile() -> None:
    p = sample()
    notes = p.noted([HostNote("general"), HostNote("d", "driver"), HostNote("g", "glibc")])
    assert [(n.about, n.value) for n in notes] == [
        (None, None),
        ("driver", "535.104.05"),
        ("glibc", "2.35"),
    ]


def test_current_notes_follow_edits_and_replaced_facts() -> None:
    no_driver = HostNote("No NVIDIA driver found: nvidia-smi is not on PATH.", "driver", None)
    cuda = HostNote("nvidia-smi does not show which CUDA version the driver supports.",
                    "driver_cuda", None)  # fmt: skip
    general = HostNote("A general note.")
    p = HostProfile(
        os="linux", arch="x86_64", python=Version("3.11"), notes=(no_driver, cuda, general)
    )
    assert p.current_notes() == (no_driver, cuda, general)
    # the driver typed into the file by hand: the note spoke of no driver
    assert replace(p, driver="535.104.05").current_notes() == (cuda, general)
    # --driver replaces the driver and the CUDA version it supports
    assert p.current_notes(replaced_facts({"driver"})) == (general,)
    assert p.current_notes(replaced_facts({"python", "glibc"})) == p.notes
    assert p.current_notes({"driver_cuda"}) == (no_driver, general)


def test_replaced_facts() -> None:
    assert replaced_facts({"driver"}) == {"driver", "driver_cuda"}
    assert replaced_facts({"gpu", "os"}) == {"gpus", "os"}
    assert replaced_facts({"note", "gpu_index"}) == frozenset()
    assert set(replaced_facts(["os", "arch", "glibc", "python", "driver", "gpu"])) <= set(
        NOTE_FACTS
    )


def test_plain_string_notes_of_older_files_are_general_notes() -> None:
    d = sample().to_dict()
    d["notes"] = ["No usable NVIDIA driver: nvidia-smi failed: it did not answer within 1 s."]
    p = HostProfile.from_dict(d)
    assert p.notes == (HostNote(d["notes"][0]),)
    assert p.current_notes(replaced_facts({"driver", "gpu"})) == p.notes
    assert p.to_dict()["notes"] == [{"about": None, "value": None, "text": d["notes"][0]}]
