"""The pure parsers of tfenv.host.parse, on outputs recorded on real machines.

Where each recording comes from is listed in tests/data/host/README.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest
from packaging.version import Version

from tfenv.host import parse

DATA = Path(__file__).parent / "data" / "host"


def rec(name: str) -> str:
    return (DATA / name).read_text("utf-8")


# -- nvidia-smi header ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "smi", "driver", "cuda"),
    [
        ("smi-331.62-gtx680-no-cuda.txt", "331.62", "331.62", None),
        ("smi-418.39-titan-x-pascal.txt", "418.39", "418.39", "10.1"),
        ("smi-450.57-titan-xp.txt", "450.57", "450.57", "11.0"),
        ("smi-510.47.03-a100-mig.txt", "510.47.03", "510.47.03", "11.6"),
        ("smi-535.86.10-a800-multi.txt", "535.86.10", "535.86.10", "12.2"),
        ("smi-580.126.09-a100-multi.txt", "580.126.09", "580.126.09", "13.0"),
        # the newer header: "KMD Version" / "CUDA UMD Version"
        ("smi-kmd-610.43.02-b200-multi.txt", "610.43.02", "610.43.02", "13.3"),
        ("smi-kmd-610.43.03-rtx3080.txt", "610.43.03", "610.43.03", "13.3"),
        # WSL2: the tool is the Linux build, the driver is the Windows one
        ("smi-wsl2-535.103-driver-537.13.txt", "535.103", "537.13", "12.2"),
        ("smi-wsl2-545.46-cuda-err.txt", "545.46", "546.80", None),
        ("smi-windows-461.79-wddm.txt", "461.79", "461.79", "11.2"),
        ("smi-windows-517.48-wddm-multi.txt", "517.48", "517.48", "11.7"),
    ],
)
def test_smi_header(name: str, smi: str, driver: str, cuda: Optional[str]) -> None:
    header = parse.parse_smi_header(rec(name))
    assert header is not None
    assert header.smi == smi
    assert header.driver == driver
    assert header.cuda == (Version(cuda) if cuda else None)
    assert parse.smi_failure(rec(name)) is None


def test_smi_header_keeps_what_stood_for_an_unreadable_cuda_version() -> None:
    header = parse.parse_smi_header(rec("smi-wsl2-545.46-cuda-err.txt"))
    assert header is not None
    assert header.cuda_raw == "ERR!"


def test_driver_keeps_its_leading_zero() -> None:
    header = parse.parse_smi_header(rec("smi-580.126.09-a100-multi.txt"))
    assert header is not None
    assert header.driver == "580.126.09"  # Version() would say 580.126.9


# -- nvidia-smi table -------------------------------------------------------------------


def rows(name: str) -> list[tuple[int, str, Optional[int], Optional[bool]]]:
    return [(r.index, r.name, r.memory_mib, r.mig) for r in parse.parse_smi_table(rec(name))]


def test_table_single_gpu_with_mig_column() -> None:
    assert rows("smi-450.57-titan-xp.txt") == [(0, "TITAN Xp", 12196, None)]


def test_table_old_driver_without_mig_column() -> None:
    assert rows("smi-418.39-titan-x-pascal.txt") == [(0, "TITAN X (Pascal)", 12196, None)]


def test_table_multi_gpu_oldest_layout() -> None:
    assert rows("smi-331.62-gtx680-no-cuda.txt") == [
        (0, "GeForce GTX 680", 4095, None),
        (1, "GeForce GTX 680", 4095, None),
        (2, "GeForce GTX 680", 4095, None),
    ]


def test_table_mig_enabled_on_one_of_two() -> None:
    assert rows("smi-510.47.03-a100-mig.txt") == [
        (0, "NVIDIA A100-SXM...", 81920, False),
        (1, "NVIDIA A100-SXM...", 81920, True),
    ]


def test_table_mig_enabled_wide_layout() -> None:
    assert rows("smi-535.86.10-a800-mig.txt") == [(0, "NVIDIA A800-SXM4-80GB", 81920, True)]


def test_table_kmd_header_multi_gpu() -> None:
    assert rows("smi-kmd-610.43.02-b200-multi.txt") == [
        (0, "NVIDIA B200", 183359, False),
        (1, "NVIDIA B200", 183359, False),
    ]


def test_table_stops_before_the_processes_table() -> None:
    assert rows("smi-kmd-610.43.03-rtx3080.txt") == [
        (0, "NVIDIA GeForce RTX 3080 ...", 16384, None)
    ]


def test_table_windows_wddm_indented_paste() -> None:
    assert rows("smi-windows-517.48-wddm-multi.txt") == [
        (0, "NVIDIA GeForce ...", 11264, None),
        (1, "NVIDIA GeForce ...", 11264, None),
    ]
    assert rows("smi-windows-461.79-wddm.txt") == [(0, "GeForce RTX 306...", 6144, None)]


def test_table_mig_devices_table_is_not_gpus() -> None:
    assert rows("smi-mig-devices-table.txt") == []


# -- nvidia-smi failures -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "smi-error-no-driver.txt",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
        ),
        (
            "smi-error-wsl-driver-not-loaded.txt",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver",
        ),
        (
            "smi-error-version-mismatch.txt",
            "Failed to initialize NVML: Driver/library version mismatch",
        ),
        (
            "smi-error-version-mismatch-570.txt",
            "Failed to initialize NVML: Driver/library version mismatch",
        ),
    ],
)
def test_smi_failure(name: str, message: str) -> None:
    text = rec(name)
    assert parse.parse_smi_header(text) is None
    assert parse.parse_smi_table(text) == []
    assert parse.smi_failure(text) == message


def test_smi_failure_of_empty_output() -> None:
    assert parse.smi_failure("") == "it printed nothing"


# -- nvidia-smi --query-gpu ---------------------------------------------------------------


def test_query_with_header_and_mixed_gpus() -> None:
    fields = ["compute_cap", "compute_mode", "driver_version", "name", "index"]
    got = parse.parse_smi_query(rec("query-cc-mixed-570.86.15.csv"), fields)
    assert [(r["index"], r["name"], r["compute_cap"]) for r in got] == [
        ("0", "NVIDIA TITAN V", "7.0"),
        ("1", "NVIDIA RTX 5880 Ada Generation", "8.9"),
    ]


def test_query_noheader_nounits() -> None:
    fields = [
        "power.limit", "power.min_limit", "power.max_limit", "memory.total", "vbios_version",
        "driver_version", "name", "gpu_uuid", "power.draw", "temperature.gpu",
        "temperature.memory", "clocks.current.graphics", "clocks.sm", "clocks.mem",
        "utilization.gpu", "utilization.memory", "fan.speed", "pcie.link.width.current",
        "pstate",
    ]  # fmt: skip
    (row,) = parse.parse_smi_query(rec("query-noheader-nounits-440.64.csv"), fields)
    assert row["memory.total"] == "7979"
    assert row["name"] == "GeForce RTX 2080"
    assert row["gpu_uuid"] == "GPU-22b2c6ac-2d49-4863-197c-9c469071178a"
    assert row["temperature.memory"] is None  # "N/A"


def test_query_units_and_not_available_are_cleaned() -> None:
    fields = ["index", "memory.total", "compute_cap"]
    (row,) = parse.parse_smi_query("0, 40960 MiB, [N/A]\n", fields)
    assert row == {"index": "0", "memory.total": "40960", "compute_cap": None}


def test_query_invalid_field_of_old_driver() -> None:
    text = rec("query-invalid-compute-cap.txt")
    assert parse.smi_invalid_field(text) == "compute_cap"
    assert parse.parse_smi_query(text, ["index", "name", "compute_cap"]) == []
    assert parse.smi_invalid_field(rec("query-cc-mixed-570.86.15.csv")) is None


# -- kernel module -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("proc-version-384.98.txt", "384.98"),
        ("proc-version-open-525.60.11.txt", "525.60.11"),
        ("proc-version-open-565.57.01.txt", "565.57.01"),
        ("proc-version-open-555.58.txt", "555.58"),
        ("proc-version-jetson-35.3.1.txt", "35.3.1"),
    ],
)
def test_proc_driver_version(name: str, version: str) -> None:
    assert parse.parse_proc_driver_version(rec(name)) == version


def test_proc_driver_version_of_other_text() -> None:
    assert parse.parse_proc_driver_version(rec("smi-error-no-driver.txt")) is None


def test_sys_module_version() -> None:
    # the file holds only the version and a newline (format, not a recording)
    assert parse.parse_sys_module_version("535.104.05\n") == "535.104.05"
    assert parse.parse_sys_module_version("") is None
    assert parse.parse_sys_module_version("nvidia\n") is None


# -- CUDA toolkit and cuDNN -----------------------------------------------------------------


def test_nvcc() -> None:
    assert parse.parse_nvcc(rec("nvcc-10.0.txt")) == Version("10.0")
    assert parse.parse_nvcc("nvcc: command not found") is None


def test_cuda_version_json() -> None:
    # the recording is the "cuda" member of version.json; wrap it into the whole object
    text = "{\n" + rec("cuda-version-json-fragment-13.0.2.txt").rstrip().rstrip(",") + "\n}"
    assert parse.parse_cuda_version_file(text) == Version("13.0")


def test_cuda_version_txt_and_junk() -> None:
    assert parse.parse_cuda_version_file("CUDA Version 10.1.243\n") == Version("10.1")
    assert parse.parse_cuda_version_file("{not json") is None
    assert parse.parse_cuda_version_file('{"cuda": 12}') is None


def test_cudnn_header() -> None:
    assert parse.parse_cudnn_header(rec("cudnn-version-h-8.0.4.txt")) == Version("8.0.4")
    assert parse.parse_cudnn_header("#define CUDNN_MAJOR 9\n") is None


# -- the operating system -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "version"),
    [
        ("glibc 2.35", "2.35"),
        ("ldd (Debian GLIBC 2.36-9+deb12u14) 2.36\nCopyright (C) 2022", "2.36"),
    ],
)
def test_glibc(text: str, version: str) -> None:
    assert parse.parse_glibc(text) == Version(version)


def test_glibc_of_nothing() -> None:
    assert parse.parse_glibc("") is None


@pytest.mark.parametrize(
    ("release", "kind"),
    [
        ("5.10.16.3-microsoft-standard-WSL2", 2),  # microsoft/WSL#8174
        ("5.15.146.1-microsoft-standard-WSL2", 2),
        ("4.4.0-19041-Microsoft", 1),
        ("6.1.0-18-amd64", None),
    ],
)
def test_wsl_kernel(release: str, kind: Optional[int]) -> None:
    assert parse.is_wsl_kernel(release) == kind


def test_cuda_int_and_release() -> None:
    assert parse.cuda_int_to_version(12020) == Version("12.2")
    assert parse.cuda_int_to_version(11080) == Version("11.8")
    assert parse.cuda_int_to_version(0) is None
    assert parse.release_of("11.8.20220929") == Version("11.8")
    assert parse.release_of("12") == Version("12")
    assert parse.release_of("x") is None
