"""`tfenv doctor` on fake environments built on disk, with real shared objects."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from tfenv.cli import main
from tfenv.doctor import env as target_env
from tfenv.doctor.checks import Inputs, diagnose, installed_tensorflow
from tfenv.doctor.findings import Finding
from tfenv.host.profile import GpuInfo, HostProfile
from tfenv.kb import KnowledgeBase

CUDART_C = "int cudaRuntimeGetVersion(int *v) { *v = 12030; return 0; }\n"
CUDNN_C = "unsigned long cudnnGetVersion(void) { return 8907; }\n"


def _gcc() -> str:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("no C compiler (gcc) to build the test shared objects")
    return gcc


def _so(path: Path, source: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    src = path.with_suffix(".c")
    src.write_text(source)
    subprocess.run([_gcc(), "-shared", "-fPIC", "-o", str(path), str(src)], check=True)
    src.unlink()


def _dist(site: Path, name: str, version: str) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")


def _venv(tmp: Path, tf: str = "2.15.1") -> Path:
    site = tmp / "env" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    _dist(site, "tensorflow", tf)
    return tmp / "env"


def _host(gpu: bool = True) -> HostProfile:
    gpus = (GpuInfo(0, "NVIDIA GeForce RTX 3080", Version("8.6")),) if gpu else ()
    return HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        driver="535.104.05" if gpu else None,
        driver_cuda=Version("12.2") if gpu else None,
        gpus=gpus,
    )


def _run(
    prefix: Path, kb: KnowledgeBase, environ: dict[str, str], **kw: object
) -> dict[str, Finding]:
    inp = Inputs(
        env=target_env.from_prefix(prefix),
        host=kw.pop("host", _host()),  # type: ignore[arg-type]
        kb=kb,
        environ=environ,
        system_dirs=(),
        ld_conf=prefix / "no-ld-conf",
        cuda_home=prefix / "no-cuda",  # this machine's /usr/local/cuda must not count
    )
    return {f.id: f for f in diagnose(inp)}


def test_env_reads_dist_info_and_conda_meta(tmp_path: Path) -> None:
    prefix = _venv(tmp_path)
    (prefix / "conda-meta").mkdir()
    (prefix / "conda-meta" / "cudnn-8.9.2-h.json").write_text(
        json.dumps({"name": "cudnn", "version": "8.9.2", "build": "cuda12_0"})
    )
    env = target_env.from_prefix(prefix)
    assert env.python == "3.11"
    assert env.is_conda
    assert env.dist("TensorFlow") is not None
    assert env.conda_package("cudnn") is not None
    tf = installed_tensorflow(env)
    assert tf is not None
    assert tf.version == Version("2.15.1")


def test_no_tensorflow_is_a_problem(tmp_path: Path, kb: KnowledgeBase) -> None:
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    found = _run(tmp_path / "env", kb, {}, host=_host(gpu=False))
    assert found["tensorflow"].status == "problem"
    assert found["gpu"].status == "ok"


def test_every_cpu_package_is_found_as_tensorflow(tmp_path: Path, kb: KnowledgeBase) -> None:
    """tensorflow-cpu-aws (Linux aarch64's wheels up to 2.16) is TensorFlow too, not "not
    installed"; on a GPU machine it is named as the CPU build it is."""
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    _dist(site, "tensorflow-cpu-aws", "2.15.1")
    tf = installed_tensorflow(target_env.from_prefix(tmp_path / "env"))
    assert tf is not None
    assert (tf.package, tf.version) == ("tensorflow-cpu-aws", Version("2.15.1"))
    found = _run(tmp_path / "env", kb, {})
    assert found["tensorflow"].status == "warning"
    assert "tensorflow-cpu-aws 2.15.1 (pip) is not a CUDA build" in found["tensorflow"].title


def test_pip_libraries_found_loaded_and_versioned(tmp_path: Path, kb: KnowledgeBase) -> None:
    prefix = _venv(tmp_path)
    site = prefix / "lib" / "python3.11" / "site-packages"
    _so(site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12", CUDART_C)
    _so(site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8", CUDNN_C)
    _dist(site, "nvidia-cuda-runtime-cu12", "12.2.140")
    found = _run(prefix, kb, {})
    assert found["lib-cudart"].status == "ok", found["lib-cudart"]
    assert "version 12.3" in found["lib-cudart"].detail
    assert "version 8.9.7" in found["lib-cudnn"].detail
    assert found["lib-cublas"].status == "problem"  # not installed at all
    assert found["pin-nvidia-cuda-runtime-cu12"].status == "ok"
    assert found["pin-nvidia-cudnn-cu12"].status == "problem"
    assert "pip install 'nvidia-cudnn-cu12" in (found["pin-nvidia-cudnn-cu12"].fix or "")
    assert found["driver"].status == "ok"
    assert found["compute-gpu0"].status in ("ok", "warning")  # per the 2.15 fatbinary scan


def test_broken_library_reports_the_load_error(tmp_path: Path, kb: KnowledgeBase) -> None:
    _gcc()
    prefix = _venv(tmp_path)
    lib = prefix / "lib" / "python3.11" / "site-packages" / "nvidia" / "cuda_runtime" / "lib"
    lib.mkdir(parents=True)
    (lib / "libcudart.so.12").write_bytes(b"not an ELF file")
    found = _run(prefix, kb, {})
    assert found["lib-cudart"].status == "problem"
    assert "cannot be loaded" in found["lib-cudart"].title


def test_2_16_1_pip_libraries_need_the_activation_script(tmp_path: Path, kb: KnowledgeBase) -> None:
    prefix = _venv(tmp_path, "2.16.1")
    site = prefix / "lib" / "python3.11" / "site-packages"
    _so(site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12", CUDART_C)
    found = _run(prefix, kb, {})
    assert found["lib-cudart"].status == "problem"
    assert "activate-tfenv.sh" in (found["lib-cudart"].fix or "")
    lib_dir = str(site / "nvidia" / "cuda_runtime" / "lib")
    assert _run(prefix, kb, {"LD_LIBRARY_PATH": lib_dir})["lib-cudart"].status == "ok"


def test_wrong_cuda_major_is_named(tmp_path: Path, kb: KnowledgeBase) -> None:
    prefix = _venv(tmp_path)
    _so(prefix / "lib" / "libcudart.so.11.0", CUDART_C)
    (prefix / "conda-meta").mkdir()
    found = _run(prefix, kb, {})
    assert found["lib-cudart"].status == "problem"
    assert "libcudart.so.11.0" in found["lib-cudart"].detail


def test_old_driver_old_gpu_and_hidden_devices(tmp_path: Path, kb: KnowledgeBase) -> None:
    prefix = _venv(tmp_path)
    host = HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        driver="470.82.01",
        gpus=(GpuInfo(0, "Tesla K80", Version("3.7")),),
    )
    found = _run(prefix, kb, {"CUDA_VISIBLE_DEVICES": "-1"}, host=host)
    assert found["driver"].status == "problem"
    assert found["compute-gpu0"].status == "problem"
    assert found["env-cuda-visible-devices"].status == "warning"


def test_machine_without_a_wheel_platform_is_named(tmp_path: Path, kb: KnowledgeBase) -> None:
    # a host file or a probe can report a machine no TensorFlow wheel serves (windows/aarch64)
    host = HostProfile(
        os="windows",
        arch="aarch64",
        python=Version("3.11"),
        driver="552.22",
        gpus=(GpuInfo(0, "NVIDIA GeForce RTX 3080", Version("8.6")),),
    )
    found = _run(_venv(tmp_path), kb, {}, host=host)
    title = found["tensorflow"].title
    assert found["tensorflow"].status == "warning"
    assert "not a CUDA build on Windows/aarch64" in title
    assert "None" not in title


def test_pip_libdevice_without_xla_flags(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Before 2.14 XLA looks for libdevice only where XLA_FLAGS says (and /usr/local/cuda);
    from 2.14 it also looks in site-packages/nvidia/cuda_nvcc (and_cuda.yaml xla_search)."""
    prefix = _venv(tmp_path, "2.13.1")
    nvcc = prefix / "lib" / "python3.11" / "site-packages" / "nvidia" / "cuda_nvcc"
    (nvcc / "nvvm" / "libdevice").mkdir(parents=True)
    (nvcc / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
    found = _run(prefix, kb, {})
    assert found["xla-libdevice"].status == "problem"
    assert "xla_gpu_cuda_data_dir" in (found["xla-libdevice"].fix or "")
    ok = _run(prefix, kb, {"XLA_FLAGS": f"--xla_gpu_cuda_data_dir={nvcc}"})
    assert ok["xla-libdevice"].status == "ok"
    newer = _venv(tmp_path / "new", "2.15.1")
    nvcc = newer / "lib" / "python3.11" / "site-packages" / "nvidia" / "cuda_nvcc"
    (nvcc / "nvvm" / "libdevice").mkdir(parents=True)
    (nvcc / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
    libdevice = _run(newer, kb, {})["xla-libdevice"]
    assert libdevice.status == "ok"
    assert "nvidia-cuda-nvcc wheel" in libdevice.detail


def test_cli_on_this_machine_without_tensorflow(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--json", "--import", "--timeout", "60"]) == 1
    doc = json.loads(capsys.readouterr().out)
    ids = {f["id"]: f for f in doc["findings"]}
    assert ids["tensorflow"]["status"] == "problem"
    assert "not installed" in ids["import"]["title"]


def test_cli_bad_prefix(tmp_path: Path) -> None:
    assert main(["doctor", "--prefix", str(tmp_path / "missing")]) == 2


# -- pins: what tfenv pins, the extra's range, the machine's caps -------------------------


def _host_gpu(cc: str, name: str, driver: str = "570.124.06") -> HostProfile:
    return HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        driver=driver,
        driver_cuda=Version("12.8"),
        gpus=(GpuInfo(0, name, Version(cc)),),
    )


def test_pins_follow_what_tfenv_pins_and_the_machine_caps(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    """2.20's extra gives ranges: the build version is ok, a newer one in the range is ok
    where the GPU runs it, and a cuDNN the GPU cannot run (9.11+ on a V100) is a problem."""
    prefix = _venv(tmp_path, "2.20.0")
    site = prefix / "lib" / "python3.11" / "site-packages"
    _dist(site, "nvidia-cuda-runtime-cu12", "12.5.82")  # the build's version
    _dist(site, "nvidia-cublas-cu12", "12.6.4.1")  # newer, in the range
    _dist(site, "nvidia-cudnn-cu12", "9.28.0.42")  # newer than a V100 runs
    _dist(site, "nvidia-nccl-cu12", "2.20.5")  # below the range
    found = _run(prefix, kb, {}, host=_host_gpu("7.0", "Tesla V100-SXM2-16GB"))
    assert found["pin-nvidia-cuda-runtime-cu12"].status == "ok"
    assert "built with" in found["pin-nvidia-cuda-runtime-cu12"].detail
    assert found["pin-nvidia-cublas-cu12"].status == "ok"
    assert "tfenv pins nvidia-cublas-cu12==12.5.3.2" in found["pin-nvidia-cublas-cu12"].detail
    cudnn = found["pin-nvidia-cudnn-cu12"]
    assert cudnn.status == "problem"
    assert "compute capability 7.0" in cudnn.detail
    assert (cudnn.fix or "").startswith("python -m pip install 'nvidia-cudnn-cu12==9.10.")
    assert found["pin-nvidia-nccl-cu12"].status == "problem"
    assert "does not match" in found["pin-nvidia-nccl-cu12"].title
    assert found["pin-nvidia-curand-cu12"].status == "problem"  # missing
    assert (
        found["pin-nvidia-curand-cu12"].fix
        == "python -m pip install 'nvidia-curand-cu12==10.3.6.82'"
    )
    # an RTX 4090 runs the newest cuDNN of the range
    ada = _run(prefix, kb, {}, host=_host_gpu("8.9", "NVIDIA GeForce RTX 4090"))
    assert ada["pin-nvidia-cudnn-cu12"].status == "ok"


# -- fixes that name the real cause --------------------------------------------------------


def test_a_broken_library_on_ld_library_path_is_fixed_by_removing_that_folder(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    prefix = _venv(tmp_path)
    site = prefix / "lib" / "python3.11" / "site-packages"
    good = site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12"
    _so(good, CUDART_C)
    _dist(site, "nvidia-cuda-runtime-cu12", "12.2.140")
    stale = tmp_path / "old-cuda" / "lib64"
    stale.mkdir(parents=True)
    (stale / "libcudart.so.12").write_bytes(b"not an ELF file")
    lib = _run(prefix, kb, {"LD_LIBRARY_PATH": str(stale)})["lib-cudart"]
    assert lib.status == "problem"
    assert (lib.fix or "").startswith(f"remove {stale} from LD_LIBRARY_PATH")
    assert f"TensorFlow then loads {good}" in (lib.fix or "")
    assert "pip install" not in (lib.fix or "")
    # the copy in the wheel itself broken: reinstall that wheel, by name and version
    stale_free = _venv(tmp_path / "b")
    site = stale_free / "lib" / "python3.11" / "site-packages"
    (site / "nvidia" / "cuda_runtime" / "lib").mkdir(parents=True)
    (site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12").write_bytes(b"broken")
    _dist(site, "nvidia-cuda-runtime-cu12", "12.2.140")
    lib = _run(stale_free, kb, {})["lib-cudart"]
    assert "--force-reinstall --no-deps 'nvidia-cuda-runtime-cu12==12.2.140'" in (lib.fix or "")


def _ptxas(path: Path, release: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "#!/bin/sh\necho 'ptxas: NVIDIA (R) Ptx optimizing assembler'\n"
        f"echo 'Cuda compilation tools, release {release}, V{release}.99'\n"
    )
    path.chmod(0o755)


def test_a_ptxas_first_on_path_is_named_instead_of_the_wheels(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    """TensorFlow 2.15 finds the nvidia-cuda-nvcc wheel's ptxas on its own (2.14+), but a
    ptxas on PATH comes first: the finding names PATH, not the wheel."""
    prefix = _venv(tmp_path)
    site = prefix / "lib" / "python3.11" / "site-packages"
    _ptxas(site / "nvidia" / "cuda_nvcc" / "bin" / "ptxas", "12.2")
    _dist(site, "nvidia-cuda-nvcc-cu12", "12.2.140")
    alone = _run(prefix, kb, {"PATH": "/nonexistent"})["xla-ptxas"]
    assert alone.status == "ok"
    assert "nvidia-cuda-nvcc wheel" in alone.detail
    newer = tmp_path / "cuda-12.4" / "bin"
    _ptxas(newer / "ptxas", "12.4")
    first = _run(prefix, kb, {"PATH": str(newer)})["xla-ptxas"]
    assert first.status == "warning"
    assert "PATH" in first.title
    assert "(CUDA 12.4), not the nvidia-cuda-nvcc wheel's (CUDA 12.2)" in first.title
    assert (first.fix or "").startswith(f"remove {newer} from PATH")
    older = tmp_path / "cuda-11.0" / "bin"
    _ptxas(older / "ptxas", "11.0")
    old = _run(prefix, kb, {"PATH": str(older)})["xla-ptxas"]  # an RTX 3080: sm_86
    assert old.status == "problem"
    assert "too old for compute capability 8.6 (CUDA 11.1 or newer)" in old.title


def test_driver_versions_print_as_nvidia_writes_them(tmp_path: Path, kb: KnowledgeBase) -> None:
    found = _run(_venv(tmp_path), kb, {})
    text = " ".join(f"{f.title} {f.detail}" for f in found.values())
    assert "535.104.05" in text
    assert not re.search(r"535\.104\.5\b", text)


# -- a CPU CI runner, and an environment built there for a GPU machine --------------------


def test_import_on_a_machine_without_a_gpu_is_healthy(tmp_path: Path) -> None:
    """Every Linux wheel is a CUDA build; on a machine without a GPU it sees none: ok."""
    from tfenv.doctor.imports import run_import_check

    fake = tmp_path / "python"
    result = (
        'TFENV-DOCTOR-RESULT {"version": "2.15.1", "built_with_cuda": true, "gpus": [], '
        '"details": [], "build_info": {"cuda_version": "12.2"}}'
    )
    fake.write_text(f"#!/bin/sh\necho '{result}'\n")
    fake.chmod(0o755)
    cpu = {f.id: f for f in run_import_check(str(fake), 30, has_gpu=False).findings}
    assert cpu["import-gpu"].status == "ok"
    assert "as expected on a machine without an NVIDIA GPU" in cpu["import-gpu"].title
    gpu = {f.id: f for f in run_import_check(str(fake), 30, has_gpu=True).findings}
    assert gpu["import-gpu"].status == "problem"


def _fake_gpu_env(tmp_path: Path) -> Path:
    """A TensorFlow 2.15.1 environment with two of its CUDA wheels (real shared objects)."""
    prefix = _venv(tmp_path)
    site = prefix / "lib" / "python3.11" / "site-packages"
    _so(site / "nvidia" / "cuda_runtime" / "lib" / "libcudart.so.12", CUDART_C)
    _dist(site, "nvidia-cuda-runtime-cu12", "12.2.140")
    _so(site / "nvidia" / "cudnn" / "lib" / "libcudnn.so.8", CUDNN_C)
    _dist(site, "nvidia-cudnn-cu12", "8.9.4.25")
    return prefix


def _doctor_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["doctor", "--json", *argv])
    doc = json.loads(capsys.readouterr().out)
    return code, {f["id"]: f for f in doc["findings"]}


@pytest.mark.skipif(
    Path("/proc/driver/nvidia/version").exists(), reason="needs a machine without a GPU"
)
def test_a_gpu_environment_built_without_a_gpu(
    tmp_path: Path, gpu_host_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """On this machine (no GPU) the environment is healthy; checked for the GPU machine it is
    for (--host, or --gpu/--driver), the pin and library checks run."""
    prefix = _fake_gpu_env(tmp_path)
    code, found = _doctor_json(["--prefix", str(prefix)], capsys)
    assert code == 0
    assert found["gpu"]["status"] == "ok"
    assert "--host FILE" in found["gpu"]["detail"]
    assert not any(k.startswith(("pin-", "lib-")) for k in found)
    code, found = _doctor_json(
        ["--prefix", str(prefix), "--host", str(gpu_host_file), "--load-libraries"],
        capsys,
    )
    assert code == 1  # two of the twelve pinned wheels are installed
    assert "NVIDIA GeForce RTX 3090" in found["machine"]["title"]
    assert found["pin-nvidia-cuda-runtime-cu12"]["status"] == "ok"
    assert found["pin-nvidia-cudnn-cu12"]["status"] == "ok"
    assert found["pin-nvidia-cublas-cu12"]["status"] == "problem"
    assert found["lib-cudart"]["status"] == "ok"
    assert "loads" in found["lib-cudart"]["title"]
    assert found["driver"]["status"] == "ok"
    assert "535.104.05" in found["driver"]["title"]
    # the same with flags instead of a host file
    code, found = _doctor_json(
        ["--prefix", str(prefix), "--gpu", "RTX 3090", "--driver", "535.104.05"], capsys
    )
    assert found["pin-nvidia-cuda-runtime-cu12"]["status"] == "ok"
    assert found["compute-gpu0"]["status"] in ("ok", "warning")


def test_doctor_interpreter_flag_and_its_old_name(capsys: pytest.CaptureFixture[str]) -> None:
    import sys

    assert main(["doctor", "--json", "--interpreter", sys.executable]) in (0, 1)
    capsys.readouterr()
    assert main(["doctor", "--python", "3.11"]) == 2
    assert "path of a Python interpreter, not a version" in capsys.readouterr().err


def test_doctor_interpreter_relative_path_is_taken_from_the_current_folder(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import sys

    (tmp_path / "venv" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, tmp_path / "venv" / "bin" / "python")
    monkeypatch.chdir(tmp_path)
    assert main(["doctor", "--json", "--interpreter", os.path.join("venv", "bin", "python")]) in (
        0,
        1,
    )
    assert json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("flag", ["--interpreter", "--python"])
def test_doctor_interpreter_errors_name_the_flag_given(
    flag: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["doctor", flag, str(tmp_path / "no-such-python")]) == 2
    err = capsys.readouterr().err
    assert f"{flag} '" in err
    assert "cannot run it as a Python interpreter" in err
    other = "--python" if flag == "--interpreter" else "--interpreter"
    assert other not in err.split("\n")[0]


def test_partly_jit_gpu_line_reads_as_one_sentence(kb: KnowledgeBase) -> None:
    """A GPU that runs some kinds of a release's kernels natively and others by PTX JIT:
    the ok line names each kind once ("runs TensorFlow X: the ... kernels natively and
    ..."), never "X's kernels the ... kernels"."""
    from tfenv.doctor.checks import _compute_finding
    from tfenv.rules.gpu_code import gpu_code

    cases = [
        (build, cc)
        for build in kb.builds
        if build.compute is not None
        for cc in (Version(f"{m}.{n}") for m in range(3, 13) for n in range(10))
        if gpu_code(cc, build.compute).verdict == "partly-jit"
    ]
    assert cases, "the frozen KB has a release and a GPU that is partly JIT"
    build, cc = cases[0]
    finding = _compute_finding(GpuInfo(0, "Some GPU", cc), build, "~/.nv/ComputeCache")
    assert finding.title.startswith(f"Some GPU (compute capability {cc}) runs TensorFlow ")
    assert "kernels the" not in finding.title
    assert " kernels natively (sm_" in finding.title


def test_a_relative_prefix_gives_an_interpreter_that_runs_from_a_neutral_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--import runs the prefix's Python in a neutral folder: `--prefix env` (relative)
    must not give "Cannot run env/bin/python3: No such file or directory"."""
    prefix = _venv(tmp_path)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "python3").symlink_to(shutil.which("python3") or "/usr/bin/python3")
    monkeypatch.chdir(tmp_path)
    exe = target_env.from_prefix(Path("env")).interpreter
    assert exe == str(tmp_path / "env" / "bin" / "python3")  # absolute, the link not resolved
    ran = subprocess.run([exe, "-c", "print(1)"], cwd="/", capture_output=True, text=True)
    assert ran.stdout == "1\n"


def test_a_cpu_package_on_a_gpu_machine_is_told_to_make_room_for_the_cuda_build(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    """`pip install tensorflow` over tensorflow-cpu leaves both (and, from 2.14, no CUDA
    libraries without the and-cuda extra): the fix names the package to remove and the
    plan to install instead."""
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    _dist(site, "tensorflow-cpu", "2.16.2")
    found = _run(tmp_path / "env", kb, {})
    tf = found["tensorflow"]
    assert tf.status == "warning"
    assert (tf.fix or "").startswith("uninstall tensorflow-cpu, then install the CUDA build")
    assert found["environment"].title == "Python 3.11 environment"
