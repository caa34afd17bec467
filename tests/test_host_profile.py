"""HostProfile: the JSON contract with the solver and the lock command."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Optional

import pytest
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from tfenv.errors import ConfigError, UsageError
from tfenv.host import write_host_file
from tfenv.host.profile import (
    CudnnInstall,
    GpuInfo,
    HostProfile,
    InstalledToolkit,
    read_host_file,
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
        notes=("a note.",),
        sources=(("driver", "nvidia-smi"), ("python", "given")),
    )


def test_round_trip() -> None:
    p = sample()
    d = p.to_dict()
    assert d["schema"] == 1
    assert d["driver"] == "535.104.05"
    assert d["gpus"][0]["compute_capability"] == "8.9"
    assert d["packages"] == {"nvidia-cudnn-cu12": "8.9.7.29", "tensorflow": "2.15.1"}
    assert HostProfile.from_dict(d) == p
    assert HostProfile.from_json(p.to_json()) == p
    assert HostProfile.from_dict(json.loads(json.dumps(d))).to_dict() == d


def test_minimal_profile_round_trips() -> None:
    p = HostProfile(os="macos", arch="arm64", python=Version("3.12"))
    assert HostProfile.from_dict(p.to_dict()) == p


_versions = st.builds(lambda a, b: Version(f"{a}.{b}"), st.integers(0, 20), st.integers(0, 99))
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


@given(
    os=st.sampled_from(["linux", "windows", "wsl2", "macos"]),
    arch=st.sampled_from(["x86_64", "aarch64", "arm64"]),
    python=_versions,
    glibc=st.none() | _versions,
    driver=st.none() | st.sampled_from(["535.104.05", "580.126.09", "461.79"]),
    gpus=st.lists(_gpus, max_size=4).map(tuple),
    packages=st.dictionaries(_text, _text, max_size=3).map(lambda d: tuple(sorted(d.items()))),
    notes=st.lists(_text, max_size=3).map(tuple),
)
def test_round_trip_property(
    os: str,
    arch: str,
    python: Version,
    glibc: Optional[Version],
    driver: Optional[str],
    gpus: tuple[GpuInfo, ...],
    packages: tuple[tuple[str, str], ...],
    notes: tuple[str, ...],
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
