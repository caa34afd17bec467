"""detect(): probes replaced by recordings, so every path runs on any machine."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Callable, Optional, Union

import pytest
from packaging.version import Version

from tfenv.errors import DetectionError, UsageError
from tfenv.host import HostProfile, detect
from tfenv.host.probes import CommandOutput, NvmlGpu, NvmlReading, Probes

DATA = Path(__file__).parent / "data" / "host"
SMI = "/usr/bin/nvidia-smi"
QUERY = "--query-gpu=index,name,uuid,memory.total,mig.mode.current,compute_cap"
QUERY_NO_CC = "--query-gpu=index,name,uuid,memory.total,mig.mode.current"


def rec(name: str) -> str:
    return (DATA / name).read_text("utf-8")


class FakeProbes(Probes):
    def __init__(
        self,
        *,
        plat: str = "linux",
        machine: str = "x86_64",
        release: str = "6.1.0-18-amd64",
        files: Optional[Mapping[str, str]] = None,
        commands: Optional[Mapping[tuple[str, ...], CommandOutput]] = None,
        on_path: Optional[Mapping[str, str]] = None,
        env: Optional[Mapping[str, str]] = None,
        dists: Optional[list[tuple[str, str]]] = None,
        nvml: Union[NvmlReading, str, None] = None,
    ) -> None:
        super().__init__(timeout=1.0, env=dict(env or {}))
        self._plat, self._machine, self._release = plat, machine, release
        self.files = dict(files or {})
        self.commands = dict(commands or {})
        self.on_path = dict(on_path or {})
        self._dists = dists or []
        self._nvml = nvml
        self.ran: list[list[str]] = []

    def platform(self) -> str:
        return self._plat

    def machine(self) -> str:
        return self._machine

    def kernel_release(self) -> str:
        return self._release

    def libc(self) -> Optional[str]:
        return "glibc 2.35" if self._plat == "linux" else None

    def python(self) -> str:
        return "3.10"

    def read(self, path: str, limit: int = 1 << 20) -> Optional[str]:
        return self.files.get(path)

    def exists(self, path: str) -> bool:
        return path in self.files or any(p.startswith(path.rstrip("/") + "/") for p in self.files)

    def glob(self, pattern: str) -> list[str]:
        import fnmatch

        folders = {p.rsplit("/", 1)[0] for p in self.files} | {
            p.rsplit("/", 2)[0] for p in self.files
        }
        return sorted(f for f in folders if fnmatch.fnmatch(f, pattern))

    def realpath(self, path: str) -> str:
        return path

    def which(self, name: str) -> Optional[str]:
        return self.on_path.get(name)

    def run(self, argv: list[str]) -> CommandOutput:
        self.ran.append(argv)
        for key in sorted(self.commands, key=len, reverse=True):  # longest prefix wins
            if tuple(argv[: len(key)]) == key:
                return self.commands[key]
        return CommandOutput(None, problem="it cannot be run (No such file or directory)")

    def distributions(self, wanted: Callable[[str], bool]) -> list[tuple[str, str]]:
        return self._dists

    def nvml(self) -> Union[NvmlReading, str, None]:
        return self._nvml


def texts(p: HostProfile) -> list[str]:
    return [n.text for n in p.notes]


def about(p: HostProfile, fragment: str) -> tuple[Optional[str], Optional[str]]:
    """The fact the one note containing ``fragment`` is about, and its value then."""
    (note,) = [n for n in p.notes if fragment in n.text]
    return note.about, note.value


def ok(text: str) -> CommandOutput:
    return CommandOutput(0, text, "")


def smi_probes(table: str, query: Optional[str], **kw: object) -> FakeProbes:
    commands = {(SMI,): ok(rec(table)), (SMI, QUERY): CommandOutput(2)}
    if query is not None:
        commands[(SMI, QUERY)] = ok(query)
    return FakeProbes(on_path={"nvidia-smi": SMI}, commands=commands, **kw)  # type: ignore[arg-type]


# -- no GPU ------------------------------------------------------------------------------


def test_no_nvidia_at_all() -> None:
    p = detect(probes=FakeProbes())
    assert (p.os, p.arch, p.glibc, p.python) == (
        "linux",
        "x86_64",
        Version("2.35"),
        Version("3.10"),
    )
    assert p.gpus == ()
    assert p.driver is None
    assert p.driver_cuda is None
    assert any(n.startswith("No NVIDIA driver found") for n in texts(p))
    assert about(p, "No NVIDIA driver found") == ("driver", None)


def test_failing_nvidia_smi_is_reported_plainly() -> None:
    probes = FakeProbes(
        on_path={"nvidia-smi": SMI},
        commands={(SMI,): CommandOutput(9, rec("smi-error-no-driver.txt"), "")},
        files={"/proc/driver/nvidia/version": rec("proc-version-open-565.57.01.txt")},
    )
    p = detect(probes=probes)
    assert p.driver is None
    assert p.gpus == ()
    assert p.notes[0].text == (
        "No usable NVIDIA driver: nvidia-smi failed: NVIDIA-SMI has failed because it "
        "couldn't communicate with the NVIDIA driver."
    )
    assert "565.57.01" in p.notes[1].text
    assert [(n.about, n.value) for n in p.notes] == [("driver", None), ("driver", None)]


def test_version_mismatch() -> None:
    probes = FakeProbes(
        on_path={"nvidia-smi": SMI},
        commands={(SMI,): CommandOutput(18, rec("smi-error-version-mismatch.txt"), "")},
    )
    p = detect(probes=probes)
    assert p.driver is None
    assert "Driver/library version mismatch" in p.notes[0].text


def test_nvidia_smi_that_hangs() -> None:
    probes = FakeProbes(
        on_path={"nvidia-smi": SMI},
        commands={(SMI,): CommandOutput(None, problem="it did not answer within 1 s")},
    )
    p = detect(probes=probes)
    assert (
        p.notes[0].text
        == "No usable NVIDIA driver: nvidia-smi failed: it did not answer within 1 s."
    )


def test_kernel_module_without_nvidia_smi() -> None:
    probes = FakeProbes(files={"/proc/driver/nvidia/version": rec("proc-version-384.98.txt")})
    p = detect(probes=probes)
    assert p.driver == "384.98"
    assert p.source_of("driver") == "/proc/driver/nvidia/version"
    assert p.gpus == ()
    assert "nvidia-smi was not found" in p.notes[0].text
    assert about(p, "nvidia-smi was not found") == ("driver", "384.98")


def test_sys_module_version_when_proc_is_missing() -> None:
    probes = FakeProbes(files={"/sys/module/nvidia/version": "550.54.14\n"})
    p = detect(probes=probes)
    assert p.driver == "550.54.14"
    assert p.source_of("driver") == "/sys/module/nvidia/version"


# -- nvidia-smi ----------------------------------------------------------------------------


def test_smi_with_compute_cap() -> None:
    query = (
        "0, NVIDIA A100-SXM4-40GB, GPU-aaa, 40960, Disabled, 8.0\n"
        "1, NVIDIA A100-SXM4-40GB, GPU-bbb, 40960, Disabled, 8.0\n"
    )
    p = detect(probes=smi_probes("smi-580.126.09-a100-multi.txt", query))
    assert p.driver == "580.126.09"
    assert p.driver_cuda == Version("13.0")
    assert [(g.index, g.name, str(g.compute_capability), g.cc_source) for g in p.gpus] == [
        (0, "NVIDIA A100-SXM4-40GB", "8.0", "nvidia-smi"),
        (1, "NVIDIA A100-SXM4-40GB", "8.0", "nvidia-smi"),
    ]
    assert p.gpus[0].uuid == "GPU-aaa"
    assert p.source_of("driver_cuda") == "nvidia-smi"


def test_kmd_header() -> None:
    p = detect(probes=smi_probes("smi-kmd-610.43.02-b200-multi.txt", None))
    assert p.driver == "610.43.02"
    assert p.driver_cuda == Version("13.3")
    assert [g.memory_mib for g in p.gpus] == [183359, 183359]


def test_jetson_orin_is_known_by_the_name_nvidia_smi_prints() -> None:
    # JetPack 6: no Bus-Id, memory "Not Supported"; the query is not answered here
    p = detect(probes=smi_probes("smi-540.4.0-jetson-orin.txt", None, machine="aarch64"))
    assert (p.arch, p.driver, p.driver_cuda) == ("aarch64", "540.4.0", Version("12.6"))
    (gpu,) = p.gpus
    assert (gpu.name, gpu.compute_capability, gpu.cc_source) == (
        "Orin (nvgpu)",
        Version("8.7"),
        "kb",
    )


def test_old_driver_without_compute_cap_uses_the_kb() -> None:
    probes = smi_probes("smi-450.57-titan-xp.txt", None)
    probes.commands[(SMI, QUERY)] = CommandOutput(2, rec("query-invalid-compute-cap.txt"), "")
    probes.commands[(SMI, QUERY_NO_CC)] = ok("0, TITAN Xp, GPU-x, 12196, [N/A]\n")
    p = detect(probes=probes)
    (gpu,) = p.gpus
    assert gpu.name == "TITAN Xp"
    assert gpu.compute_capability == Version("6.1")
    assert gpu.cc_source == "kb"
    assert [a[1:2] for a in probes.ran] == [[], [QUERY], [QUERY_NO_CC]]


class _Model:
    compute_capability = Version("3.0")


class _Catalog:
    def find(self, name: str) -> Optional[_Model]:
        return _Model() if name == "GeForce GTX 680" else None


def test_kb_lookup_from_the_table_when_the_query_fails() -> None:
    probes = smi_probes("smi-331.62-gtx680-no-cuda.txt", None)
    p = detect(probes=probes, gpu_catalog=_Catalog)
    assert [(g.index, g.compute_capability, g.cc_source) for g in p.gpus] == [
        (i, Version("3.0"), "kb") for i in range(3)
    ]
    assert p.driver_cuda is None
    assert any("does not show which CUDA version" in n for n in texts(p))
    assert any("--query-gpu failed" in n for n in texts(p))
    assert about(p, "does not show which CUDA") == ("driver_cuda", None)
    gpus = "0: GeForce GTX 680 (3.0); 1: GeForce GTX 680 (3.0); 2: GeForce GTX 680 (3.0)"
    assert about(p, "--query-gpu failed") == ("gpus", gpus)


def test_unknown_gpu_name_leaves_cc_unknown() -> None:
    probes = smi_probes("smi-510.47.03-a100-mig.txt", None)
    p = detect(probes=probes, gpu_catalog=_Catalog)
    assert [g.compute_capability for g in p.gpus] == [None, None]
    assert [g.mig for g in p.gpus] == [False, True]
    unknown = [n for n in texts(p) if "is unknown" in n]
    assert unknown == [
        "The compute capability of 'NVIDIA A100-SXM...' is unknown: nvidia-smi does not "
        "report it and nvidia-smi cut the name short."
    ]
    assert any("--query-gpu failed (exit status 2)" in n for n in texts(p))
    assert about(p, "is unknown")[0] == "gpus"


def test_broken_kb_is_a_note() -> None:
    def broken() -> _Catalog:
        raise ImportError("no kb")

    p = detect(probes=smi_probes("smi-450.57-titan-xp.txt", None), gpu_catalog=broken)
    assert p.gpus[0].compute_capability is None
    assert any("cannot be read (no kb)" in n for n in texts(p))
    assert about(p, "cannot be read (no kb)") == ("gpus", "0: TITAN Xp (?)")


def test_mixed_gpus_resolve_for_the_lowest() -> None:
    query = (
        "0, NVIDIA RTX 5880 Ada Generation, GPU-a, 49140, [N/A], 8.9\n"
        "1, NVIDIA TITAN V, GPU-b, 12288, [N/A], 7.0\n"
    )
    p = detect(probes=smi_probes("smi-535.86.10-a800-multi.txt", query))
    low = p.lowest_cc_gpu()
    assert low is not None
    assert (low.index, low.name) == (1, "NVIDIA TITAN V")


# -- WSL2 and Windows ------------------------------------------------------------------------


def test_wsl2() -> None:
    wsl_smi = "/usr/lib/wsl/lib/nvidia-smi"
    probes = FakeProbes(
        release="5.10.16.3-microsoft-standard-WSL2",
        files={wsl_smi: "", "/usr/lib/wsl/lib/libcuda.so.1": ""},
        commands={(wsl_smi,): ok(rec("smi-wsl2-535.103-driver-537.13.txt"))},
    )
    p = detect(probes=probes, gpu_catalog=_Catalog)
    assert p.os == "wsl2"
    assert p.driver == "537.13"
    assert p.driver_cuda == Version("12.2")
    assert p.gpus[0].name == "NVIDIA GeForce GTX 1650 ..."
    assert any("Windows host's driver" in n for n in texts(p))
    assert not any("libcuda.so.1 is missing" in n for n in texts(p))
    assert about(p, "Windows host's driver") == ("driver", "537.13")


def test_wsl2_with_unreadable_cuda_version_and_no_libcuda() -> None:
    probes = FakeProbes(
        release="5.15.146.1-microsoft-standard-WSL2",
        on_path={"nvidia-smi": SMI},
        commands={(SMI,): ok(rec("smi-wsl2-545.46-cuda-err.txt"))},
    )
    p = detect(probes=probes, gpu_catalog=_Catalog)
    assert p.driver == "546.80"
    assert p.driver_cuda is None
    assert any("'ERR!'" in n for n in texts(p))
    assert any("libcuda.so.1 is missing" in n for n in texts(p))
    assert about(p, "'ERR!'") == ("driver_cuda", None)
    assert about(p, "libcuda.so.1 is missing") == ("os", "wsl2")


def test_wsl1_note() -> None:
    p = detect(probes=FakeProbes(release="4.4.0-19041-Microsoft"))
    assert p.os == "linux"
    assert any("WSL 1" in n for n in texts(p))
    assert about(p, "WSL 1") == ("os", "linux")


def test_windows() -> None:
    smi = r"C:\Windows\System32\nvidia-smi.exe"
    probes = FakeProbes(
        plat="win32",
        machine="AMD64",
        files={smi: ""},
        commands={(smi,): ok(rec("smi-windows-517.48-wddm-multi.txt"))},
    )
    p = detect(probes=probes, gpu_catalog=_Catalog)
    assert (p.os, p.arch, p.glibc) == ("windows", "x86_64", None)
    assert p.driver == "517.48"
    assert len(p.gpus) == 2


def test_macos() -> None:
    p = detect(probes=FakeProbes(plat="darwin", machine="arm64"))
    assert (p.os, p.arch, p.driver, p.gpus) == ("macos", "arm64", None, ())


def test_unknown_platform_and_arch() -> None:
    with pytest.raises(DetectionError, match="freebsd"):
        detect(probes=FakeProbes(plat="freebsd14"))
    with pytest.raises(DetectionError, match="ppc64le"):
        detect(probes=FakeProbes(machine="ppc64le"))
    p = detect(probes=FakeProbes(machine="ppc64le"), overrides={"arch": "x86_64"})
    assert p.arch == "x86_64"


# -- NVML -------------------------------------------------------------------------------------


def test_nvml_first() -> None:
    reading = NvmlReading(
        driver="535.104.05",
        cuda=12020,
        gpus=(NvmlGpu(0, "NVIDIA A100-SXM4-80GB", (8, 0), 85899345920, True, "GPU-z"),),
    )
    probes = smi_probes("smi-580.126.09-a100-multi.txt", None, nvml=reading)
    p = detect(probes=probes)
    assert p.driver == "535.104.05"
    assert p.driver_cuda == Version("12.2")
    (gpu,) = p.gpus
    assert (gpu.compute_capability, gpu.cc_source, gpu.memory_mib, gpu.mig) == (
        Version("8.0"),
        "nvml",
        81920,
        True,
    )
    assert probes.ran == []  # nvidia-smi not needed


def test_nvml_failure_is_mentioned_when_nothing_else_works() -> None:
    p = detect(probes=FakeProbes(nvml="NVML failed: Driver Not Loaded"))
    assert "NVML failed: Driver Not Loaded" in p.notes[0].text
    assert p.notes[0].about == "driver"


# -- overrides ----------------------------------------------------------------------------------


def test_overrides_win_and_are_recorded() -> None:
    probes = smi_probes("smi-580.126.09-a100-multi.txt", None)
    p = detect(
        probes=probes,
        overrides={"os": "wsl2", "glibc": "2.31", "python": "3.9", "driver": "470.82.01"},
        gpu_catalog=_Catalog,
    )
    assert (p.os, str(p.glibc), str(p.python), p.driver) == ("wsl2", "2.31", "3.9", "470.82.01")
    assert p.driver_cuda is None  # it belonged to the detected driver
    for key in ("os", "glibc", "python", "driver"):
        assert p.source_of(key) == "given"
    assert any("given as 470.82.01" in n for n in texts(p))
    assert about(p, "given as 470.82.01") == ("driver", "470.82.01")
    assert p.current_notes() == p.notes  # what detect prints is all current


def test_notes_about_a_given_fact_are_left_out() -> None:
    # nvidia-smi fails on this machine; the driver given on the command line replaces
    # what detection found (none), so "No usable NVIDIA driver" no longer applies
    failing: dict[tuple[str, ...], CommandOutput] = {
        (SMI,): CommandOutput(9, rec("smi-error-no-driver.txt"), "")
    }
    probes = FakeProbes(on_path={"nvidia-smi": SMI}, commands=failing)
    assert any("No usable NVIDIA driver" in n for n in texts(detect(probes=probes)))
    p = detect(probes=probes, overrides={"driver": "535.104.05"})
    assert p.driver == "535.104.05"
    assert p.notes == ()
    wsl1 = FakeProbes(release="4.4.0-19041-Microsoft")
    assert any("WSL 1" in n for n in texts(detect(probes=wsl1, overrides={"python": "3.11"})))
    assert not any("WSL 1" in n for n in texts(detect(probes=wsl1, overrides={"os": "linux"})))


def test_same_driver_given_keeps_its_cuda() -> None:
    probes = smi_probes("smi-580.126.09-a100-multi.txt", None)
    p = detect(probes=probes, overrides={"driver": "580.126.09"}, gpu_catalog=_Catalog)
    assert p.driver_cuda == Version("13.0")


@pytest.mark.parametrize(
    ("key", "value"),
    [("os", "solaris"), ("arch", "x86"), ("python", "3"), ("glibc", "new"), ("cuda", "12")],
)
def test_bad_overrides(key: str, value: str) -> None:
    with pytest.raises(UsageError):
        detect(probes=FakeProbes(), overrides={key: value})


# -- toolkits, cuDNN, packages, conda ---------------------------------------------------


def test_toolkits_and_cudnn() -> None:
    version_json = "{\n" + rec("cuda-version-json-fragment-13.0.2.txt").rstrip().rstrip(",") + "\n}"
    files = {
        "/usr/local/cuda-13.0/version.json": version_json,
        "/usr/local/cuda-13.0/bin/nvcc": "",
        "/usr/local/cuda-13.0/include/cuda_runtime.h": "",
        "/usr/local/cuda-13.0/include/cudnn_version.h": rec("cudnn-version-h-8.0.4.txt"),
        "/opt/cuda/bin/nvcc": "",
        "/opt/cuda/include/cuda_runtime.h": "",
        "/usr/local/bin/nvcc": "",  # a wrapper script is not a toolkit
    }
    probes = FakeProbes(
        files=files,
        on_path={"nvcc": "/usr/local/bin/nvcc"},
        commands={("/opt/cuda/bin/nvcc", "--version"): ok(rec("nvcc-10.0.txt"))},
    )
    p = detect(probes=probes)
    assert [(str(t.version), t.path, t.source) for t in p.cuda_toolkits] == [
        ("13.0", "/usr/local/cuda-13.0", "version.json"),
        ("10.0", "/opt/cuda", "nvcc"),
    ]
    assert [(str(c.version), c.path) for c in p.cudnn] == [
        ("8.0.4", "/usr/local/cuda-13.0/include/cudnn_version.h")
    ]


def test_cuda_path_on_windows() -> None:
    root = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v11.2"
    probes = FakeProbes(
        plat="win32",
        machine="AMD64",
        env={"CUDA_PATH": root},
        files={root + "\\version.txt": "CUDA Version 11.2.67\n"},
    )
    p = detect(probes=probes)
    assert [(str(t.version), t.path) for t in p.cuda_toolkits] == [("11.2", root)]


def test_packages_and_conda() -> None:
    probes = FakeProbes(
        env={"CONDA_DEFAULT_ENV": "tf215", "CONDA_PREFIX": "/opt/conda/envs/tf215"},
        dists=[
            ("tensorflow", "2.15.1"),
            ("tensorflow_io_gcs_filesystem", "0.37.1"),
            ("nvidia-cudnn-cu12", "8.9.7.29"),
            ("Keras", "2.15.0"),
            ("tf_keras", "2.15.1"),
            ("numpy", "1.26.4"),
            ("tensorflow", "2.14.0"),  # shadowed: later on sys.path
        ],
    )
    p = detect(probes=probes)
    assert dict(p.packages) == {
        "keras": "2.15.0",
        "nvidia-cudnn-cu12": "8.9.7.29",
        "tensorflow": "2.15.1",
        "tensorflow-io-gcs-filesystem": "0.37.1",
        "tf-keras": "2.15.1",
    }
    assert p.conda_env == "tf215"


def test_packages_explain_answers_from_are_read() -> None:
    """TensorBoard, setuptools and protobuf: explain answers their messages from them."""
    probes = FakeProbes(
        dists=[("tensorboard", "2.20.0"), ("setuptools", "84.2.1"), ("protobuf", "4.25.8")]
    )
    assert dict(detect(probes=probes).packages) == {
        "protobuf": "4.25.8",
        "setuptools": "84.2.1",
        "tensorboard": "2.20.0",
    }
