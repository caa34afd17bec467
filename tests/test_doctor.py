"""`tfenv doctor` on fake environments built on disk, with real shared objects."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

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
    assert "not a CUDA build on windows/aarch64" in title
    assert "None" not in title


def test_pip_libdevice_without_xla_flags(tmp_path: Path, kb: KnowledgeBase) -> None:
    prefix = _venv(tmp_path)
    nvcc = prefix / "lib" / "python3.11" / "site-packages" / "nvidia" / "cuda_nvcc"
    (nvcc / "nvvm" / "libdevice").mkdir(parents=True)
    (nvcc / "nvvm" / "libdevice" / "libdevice.10.bc").write_bytes(b"")
    found = _run(prefix, kb, {})
    assert found["xla-libdevice"].status == "problem"
    assert "xla_gpu_cuda_data_dir" in (found["xla-libdevice"].fix or "")
    ok = _run(prefix, kb, {"XLA_FLAGS": f"--xla_gpu_cuda_data_dir={nvcc}"})
    assert ok["xla-libdevice"].status == "ok"


def test_cli_on_this_machine_without_tensorflow(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--json", "--import", "--timeout", "60"]) == 1
    doc = json.loads(capsys.readouterr().out)
    ids = {f["id"]: f for f in doc["findings"]}
    assert ids["tensorflow"]["status"] == "problem"
    assert "not installed" in ids["import"]["title"]


def test_cli_bad_prefix(tmp_path: Path) -> None:
    assert main(["doctor", "--prefix", str(tmp_path / "missing")]) == 2
