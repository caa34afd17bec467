"""`tfenv explain` on 97 messages and logs users pasted in public threads.

Each file under tests/data/errors/real/ starts with ``# origin: <URL> (how it was taken)``.
For each, the case says which entry must answer first, what else must (or must not) be
found, the machine the answer is for (as ``--os``/``--python``/``--driver`` would give it,
where the thread says it), and what the answer must say: facts and fixes that come from
the knowledge base, the rules and the solver, with real version numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tfenv.explain import Explanation, explain
from tfenv.kb import KnowledgeBase
from tfenv.models.driver import DriverVersion
from tfenv.models.target import Target

REAL = Path(__file__).parent / "data" / "errors" / "real"


@dataclass(frozen=True)
class Case:
    first: Optional[str]  # the first error's entry (or the first notice when nothing is wrong)
    says: tuple[str, ...] = ()  # in the first error's facts or fix
    also: tuple[str, ...] = ()  # other entries found
    absent: tuple[str, ...] = ()  # entries that must not be answered (misdiagnoses)
    machine: dict[str, Any] = field(default_factory=dict)  # Target facts, as flags give them
    tf: Optional[str] = None


LINUX_3090 = {"os": "linux", "arch": "x86_64", "cc": "8.6", "gpu_name": "NVIDIA GeForce RTX 3090"}
CASES: dict[str, Case] = {
    # -- pip and uv -------------------------------------------------------------------
    "pip-uv/aarch64-cpu-aws-2111": Case(
        "pip-no-matching-distribution",
        (
            "2.11.1 has Linux aarch64 wheels for Python 3.7 only",
            "TensorFlow 2.11.0 of the same series",
        ),
    ),
    "pip-uv/io-gcs-win32-py39": Case(
        "pip-no-matching-distribution", ("pip install 'tensorflow-io-gcs-filesystem==0.31.0'",)
    ),
    "pip-uv/jetson-aarch64-not-supported-wheel": Case(
        "pip-no-matching-distribution",
        ("no tensorflow release has a wheel for Python 3.6 on Linux aarch64",),
        also=("pip-unsupported-wheel",),
        machine={"os": "linux", "arch": "aarch64", "python": "3.6"},
    ),
    "pip-uv/macos-and-cuda-nvcc": Case(
        "pip-no-matching-distribution",
        ("pip lists only placeholder versions", "without the [and-cuda] extra", "2.15.0"),
    ),
    "pip-uv/macos-x86-217": Case(
        "pip-no-matching-distribution",
        (
            "Python 3.11 and macOS x86_64",
            "the last tensorflow with macOS x86_64 (Intel) wheels is 2.16.2",
            "--tf 2.16.2",
        ),
    ),
    "pip-uv/not-supported-wheel-32bit-linux": Case(
        "pip-unsupported-wheel", ("is for CPython 2.7 on Linux x86_64", "32-bit")
    ),
    "pip-uv/not-supported-wheel-macos-arm-rosetta": Case(
        "pip-unsupported-wheel", ("macOS arm64", "an x86_64 Python under Rosetta")
    ),
    "pip-uv/not-supported-wheel-py27-cp35": Case(
        "pip-unsupported-wheel",
        ("CPython 3.5 on Windows x86_64", "this Python is 2.7"),
        machine={"os": "windows", "arch": "x86_64", "python": "2.7"},
    ),
    "pip-uv/py311-extra-index-tf214": Case(
        "pip-no-matching-distribution",
        (
            "exactly those for Python 3.8",
            "the last tensorflow release with Python 3.8 wheels is 2.13.1",
        ),
    ),
    "pip-uv/py312-pinned-too-old": Case(
        "pip-no-matching-distribution",
        (
            "Python 3.12 first gets a tensorflow wheel in 2.16.1",
            "Use Python 3.11: TensorFlow 2.13.0 resolves",
        ),
    ),
    "pip-uv/py313-windows-none": Case(
        "pip-no-matching-distribution",
        ("Python 3.13 wheels from 2.20.0 on",),
        machine={"os": "windows", "arch": "x86_64", "python": "3.13"},
    ),
    "pip-uv/py313-windows-pip-notice": Case(
        "pip-no-matching-distribution",
        ("Python 3.13 wheels from 2.20.0 on",),
        machine={"os": "windows", "arch": "x86_64", "python": "3.13"},
    ),
    "pip-uv/py37-32bit-pipdebug": Case("python-32bit", ("64-bit",)),
    "pip-uv/py37-32bit-rc": Case(
        "pip-no-matching-distribution",
        ("32-bit",),
        machine={"os": "windows", "arch": "x86_64", "python": "3.7"},
    ),
    "pip-uv/tensorflow-gpu-removed": Case(
        "tensorflow-gpu-removed",
        ("since 2.1", "2.10.1 (Windows x86_64)", "tensorflow[and-cuda]=="),
        machine={**LINUX_3090, "driver": "535.104.05", "python": "3.11"},
    ),
    "pip-uv/tensorrt-libs-861-direct": Case(
        "pip-no-matching-distribution", ("Leave TensorRT out", "TensorFlow 2.15.0.post1 or later")
    ),
    "pip-uv/tensorrt-libs-861": Case(
        "pip-no-matching-distribution",
        ("tensorflow 2.15.0 pins tensorrt-libs==8.6.1", "--tf 2.15.0 --emit DIR"),
    ),
    "pip-uv/uv-macos-arm64-tf29": Case(
        "uv-no-matching-wheel",
        ("the first tensorflow with macOS arm64 (Apple silicon) wheels is 2.13.0",),
    ),
    "pip-uv/uv-py311-tf2101": Case(
        "uv-no-matching-wheel", ("Python 3.11 first gets a tensorflow wheel in 2.12.0",)
    ),
    "pip-uv/uv-py313-tensorpotential": Case(
        "uv-no-matching-wheel",
        ("Python 3.13 first gets a tensorflow wheel in 2.20.0", "Use Python 3.12"),
    ),
    "pip-uv/uv-run-py313-tf219": Case(
        "uv-no-matching-wheel",
        ("Python 3.13 first gets a tensorflow wheel in 2.20.0", "Use Python 3.12"),
    ),
    "pip-uv/uv-tensorflow-cpu-intel": Case(
        "uv-universal-resolution", ("your own platform is not the problem", "environments")
    ),
    "pip-uv/uv-windows-nccl": Case(
        "uv-no-matching-wheel", ("cannot install on Windows x86_64", "use WSL2")
    ),
    "pip-uv/windows-and-cuda-nccl": Case(
        "pip-no-matching-distribution",
        (
            "nvidia-nccl-cu12==2.19.3 has wheels for Linux x86_64 only",
            "without the [and-cuda] extra",
        ),
    ),
    "pip-uv/windows-tensorflow-gpu-211": Case(
        "pip-no-matching-distribution",
        ("Python 3.10 and Windows x86_64", 'pip install "tensorflow-gpu==2.10.1"', "CUDA 11.2"),
    ),
    # -- conda and mamba --------------------------------------------------------------
    "conda/classic-unsat-cuda-driver-110": Case("conda-cuda-report", ("do not update the driver",)),
    "conda/classic-unsat-python38-cuda80": Case(
        "conda-python-conflict", ("no tensorflow for Windows",), also=("conda-cuda-report",)
    ),
    "conda/cudatoolkit-121-docker": Case(
        "conda-cudatoolkit-12", ("cudatoolkit stops at 11.8.0", "cuda-version=12.1", "=cuda12")
    ),
    "conda/cudatoolkit-121-win": Case(
        "conda-cudatoolkit-12", ("cudatoolkit stops at 11.8.0", "no tensorflow for Windows")
    ),
    "conda/cudatoolkit-123-tf-win": Case(
        "conda-cudatoolkit-12", ("no tensorflow for Windows", "TensorFlow 2.10")
    ),
    "conda/libmamba-cuda-missing-on-system": Case(
        "conda-cuda-missing",
        ("CUDA build of tensorflow 2.10.0", "CONDA_OVERRIDE_CUDA=11.2", "not too old"),
    ),
    "conda/libmamba-docker-build-cuda": Case(
        "conda-cuda-missing", ("CONDA_OVERRIDE_CUDA=10.2", "'tensorflow=2.7.0=cpu*'")
    ),
    "conda/mamba-no-tf-win64": Case("conda-no-tensorflow", ("no tensorflow for Windows",)),
    "conda/mamba-nothing-provides-cuda-tf27": Case(
        "conda-cuda-missing",
        ("driver 535.104.05 supports CUDA 12.2", "CONDA_OVERRIDE_CUDA=12.2"),
        machine={**LINUX_3090, "driver": "535.104.05"},
    ),
    # -- containers -------------------------------------------------------------------
    "container/could-not-select-driver-erro": Case(
        "container-no-gpu-runtime", ("nvidia-ctk runtime configure",)
    ),
    "container/could-not-select-driver-nvidia": Case(
        "container-no-gpu-runtime", ("NVIDIA Container Toolkit",)
    ),
    "container/could-not-select-driver-windows": Case(
        "container-no-gpu-runtime", ("NVIDIA Container Toolkit",)
    ),
    "container/load-libnvidia-ml-wsl": Case(
        "container-no-host-driver", ("libnvidia-ml.so.1", "21H2")
    ),
    "container/unsatisfied-brand-tesla-tf": Case(
        "container-brand-requirement", ("cuda>=10.0 or a driver of branch 384",)
    ),
    "container/unsatisfied-cuda102-build": Case(
        "container-cuda-requirement", ("driver >= 440.33",)
    ),
    "container/unsatisfied-cuda110-runc370": Case(
        "container-cuda-requirement", ("driver >= 450.51.05", "NVIDIA_DISABLE_REQUIRE=1")
    ),
    "container/unsatisfied-cuda126": Case(
        "container-cuda-requirement",
        ("reports CUDA 12.4: too old", "560.28.03", "tensorflow/tensorflow:2.20.0-gpu"),
        machine={**LINUX_3090, "driver": "550.144.03"},
    ),
    "container/unsatisfied-cuda128-compose": Case(
        "container-cuda-requirement",
        ("driver 550.144.03 reports CUDA 12.4: too old", "570.26"),
        machine={**LINUX_3090, "driver": "550.144.03"},
    ),
    "container/unsatisfied-cuda128-legacy": Case("container-cuda-requirement", ("570.26",)),
    # -- cuDNN and NVRTC --------------------------------------------------------------
    "cudnn-nvrtc/cudnn-5005-compat-version": Case(
        "cudnn-version-mismatch", ("cuDNN 5.0.5 was loaded", "built with cuDNN 5.1.10")
    ),
    "cudnn-nvrtc/cudnn-750-vs-765-title": Case(
        "cudnn-version-mismatch", ("at 7.6.5 or newer", "2.1, 2.2, 2.3")
    ),
    "cudnn-nvrtc/cudnn-805-vs-810-colab": Case(
        "cudnn-version-mismatch", ("at 8.1.0 or newer", "pip install 'nvidia-cudnn-cu11==8.5.0.96'")
    ),
    "cudnn-nvrtc/cudnn-850-vs-860-tf212": Case(
        "cudnn-version-mismatch",
        ("nvidia-cudnn-cu11==8.6.0.163", "2.12, 2.13"),
        absent=("dnn-library-not-found",),
    ),
    "cudnn-nvrtc/cudnn-ops-infer-missing": Case("linux-cudnn-missing", ("cuDNN 8.x",)),
    "cudnn-nvrtc/dnn-not-found-colab-graph": Case("dnn-library-not-found"),
    "cudnn-nvrtc/dnn-not-found-conv-ops-tf28": Case("dnn-library-not-found"),
    "cudnn-nvrtc/dnn-not-found-session-2-root": Case("dnn-library-not-found"),
    "cudnn-nvrtc/libcuda-so-cnn-infer-aborted": Case(
        "cudnn-needs-libcuda",
        ("/usr/lib/wsl/lib", "Reinstalling cuDNN does not help"),
        absent=("linux-cudnn-missing",),
    ),
    "cudnn-nvrtc/nvrtc-cnn-infer-a1111": Case(
        "cudnn-needs-nvrtc",
        ("libnvrtc.so", "Reinstalling cuDNN does not help"),
        absent=("linux-cudnn-missing",),
    ),
    "cudnn-nvrtc/nvrtc-cnn-infer-cuda-runtime-image": Case(
        "cudnn-needs-nvrtc", ("-devel container image",), absent=("linux-cudnn-missing",)
    ),
    "cudnn-nvrtc/nvrtc-cnn-infer-docker-139": Case(
        "cudnn-needs-nvrtc",
        ("pip install 'nvidia-cuda-nvrtc-cu12==12.2.140'",),
        absent=("linux-cudnn-missing",),
        tf="2.15.1",
    ),
    # -- whole logs -------------------------------------------------------------------
    "logs/import-nonuma-kernel-tf217-noise": Case(
        "plugin-factory-registered-twice", also=("numa-node-notice", "tensorrt-not-found")
    ),
    "logs/train-rtx3090-tf215-noise": Case(
        "xla-cannot-spawn-ptxas",
        ("pip install 'nvidia-cuda-nvcc-cu12==12.2.140'",),
        also=("numa-node-notice", "plugin-factory-registered-twice"),
        tf="2.15.1",
    ),
    "logs/windows-train-tf22-missing-dlls-pip-conflicts": Case(
        "windows-cuda-dll-missing",
        ("Install CUDA 10.1 and cuDNN 7.6",),
        also=("pip-dependency-conflict",),
    ),
    # -- platform ---------------------------------------------------------------------
    "platform/kernel-dso-mismatch-2016": Case(
        "kernel-module-mismatch",
        ("kernel module is 352.63", "361.93.02", "the kernel module is older"),
    ),
    "platform/kernel-dso-mismatch-2018": Case(
        "kernel-module-mismatch", ("384.130", "375.66"), absent=("cuinit-no-device",)
    ),
    "platform/kernel-dso-mismatch-nvml-compat": Case(
        "kernel-module-mismatch", ("460.91.03", "470.57.02", "Reboot")
    ),
    "platform/metal-flat-namespace-allocateoutput": Case(
        "metal-plugin-symbol-not-found", ("TensorFlow is older than the plug-in expects",)
    ),
    "platform/metal-flat-namespace-tf211": Case(
        "metal-plugin-symbol-not-found", ("pairs with tensorflow-metal 0.7.0",), tf="2.11.0"
    ),
    "platform/metal-library-not-loaded-tf220": Case(
        "metal-plugin-library-not-loaded",
        ("no tensorflow-metal release is paired with TensorFlow 2.20.0",),
        tf="2.20.0",
    ),
    "platform/metal-registered-platform-xla": Case("metal-xla-platform", ("tensorflow-metal",)),
    "platform/metal-symbol-assignupdatevariable-intel": Case(
        "metal-plugin-symbol-not-found", ("_TF_AssignUpdateVariable",)
    ),
    "platform/metal-symbol-tsl-logmessage-tf218": Case(
        "metal-plugin-symbol-not-found", ("the plug-in is older than this TensorFlow",)
    ),
    "platform/numa-arm64-jetson": Case("numa-node-notice"),
    "platform/numa-docker-tf26": Case("numa-node-notice"),
    "platform/numa-negative-see-more-tf213": Case("numa-node-notice"),
    "platform/nvml-mismatch-lib-version": Case("kernel-module-mismatch", ("Reboot",)),
    "platform/nvml-mismatch-tensorpack": Case("kernel-module-mismatch", ("Reboot",)),
    "platform/onednn-notice-absl-ray": Case("onednn-notice", ("TF_ENABLE_ONEDNN_OPTS=0",)),
    "platform/onednn-notice-port153": Case("onednn-notice"),
    "platform/onednn-notice-util169": Case("onednn-notice"),
    "platform/windows-dll-load-failed-py37-old": Case(
        "windows-dll-load-failed", ("Native-Windows GPU builds end with TensorFlow 2.10",)
    ),
    "platform/windows-dll-load-failed-py38": Case("windows-dll-load-failed", ("Visual C++",)),
    "platform/windows-cudnn-126-loaded-8700-tf210": Case(
        "windows-cudnn-sublibrary-126",
        (
            "The log says cuDNN 8.7.0 was loaded, which needs zlibwapi.dll.",
            "TensorFlow 2.10 was built with cuDNN 8.1, which does not need zlibwapi.dll",
            "CUDA\\v11.2\\bin",
        ),
        absent=("windows-cuda-dll-missing",),
        tf="2.10",
        machine={"os": "windows", "arch": "x86_64", "python": "3.10"},
    ),
    "platform/windows-native-tf21-cpu-only": Case(
        "tensorflow-sees-no-gpu",
        ("Install CUDA 10.1 and cuDNN 7.6",),
        tf="2.1.0",
        machine={"os": "windows", "arch": "x86_64", "python": "3.7"},
    ),
    "platform/windows-native-tf212-no-gpu": Case(
        "tensorflow-sees-no-gpu", ("TensorFlow 2.12.0: on native Windows it never uses the GPU",)
    ),
    "platform/wsl2-numa-no-kernel-support": Case("numa-node-notice"),
    # -- PTX and ptxas ----------------------------------------------------------------
    "ptx/cant-find-ptxas-fallback-driver": Case(
        "ptxas-fallback-to-driver", ("site-packages/nvidia/cuda_nvcc",)
    ),
    "ptx/driver-older-than-ptx-compiler-tf218": Case(
        "driver-older-than-ptxas",
        ("555.42.02", "pip install 'nvidia-cuda-nvcc-cu12==12.4.131'", "the kernels run normally"),
    ),
    "ptx/invalid-ptx-rtx50-tf220": Case(
        "invalid-ptx",
        ("sm_90a", "Updating the driver does not help", "TensorFlow 2.21.0"),
        machine={
            "os": "linux",
            "arch": "x86_64",
            "cc": "12.0",
            "gpu_name": "NVIDIA GeForce RTX 5090",
            "driver": "575.64.03",
        },
        tf="2.20.0",
    ),
    "ptx/no-kernel-binaries-cc90-h100": Case(
        "no-kernel-binaries-for-gpu", ("Compute capability 9.0",)
    ),
    "ptx/no-ptx-compilation-provider-sm120": Case(
        "no-ptx-compiler", ("CUDA 12.8 or newer", "nvidia-cuda-nvcc-cu12>=12.8.61")
    ),
    "ptx/ptx-unsupported-version-85-84": Case(
        "ptx-isa-too-new",
        ("came with CUDA 12.5", "555.42.02", "nvidia-cuda-nvcc-cu12>=12.5.40"),
        absent=("unsupported-ptx-version",),
    ),
    "ptx/ptxas-91-older-than-9288": Case(
        "ptxas-older-than-xla-needs", ("CUDA 11.2", "nvidia-cuda-nvcc-cu11>=11.7.99"), tf="2.5.0"
    ),
    "ptx/ptxas-no-cc90-fallback": Case("ptxas-too-old-for-gpu", ("first came with CUDA 11.8",)),
    "ptx/ptxas-sm121a-triton": Case("ptxas-too-old-for-gpu", ("first came with CUDA 12.9",)),
    "ptx/ptxas-sm80-fatal-xla": Case("ptxas-too-old-for-gpu", ("first came with CUDA 11.0",)),
    "ptx/ptxas-sm86-redzone": Case(
        "ptxas-too-old-for-gpu", ("first came with CUDA 11.1", "/usr/local/cuda-11.0/bin/ptxas")
    ),
    "ptx/ptxas-sm86-serving": Case("ptxas-too-old-for-gpu", ("first came with CUDA 11.1",)),
    "ptx/ptxas-sm86-tf24": Case("ptxas-too-old-for-gpu", ("first came with CUDA 11.1",)),
    "ptx/ptxas-sm89-old-stack": Case(
        "ptxas-too-old-for-gpu", ("first came with CUDA 11.8", "nvidia-cuda-nvcc-cu11>=11.8.89")
    ),
    "ptx/ptxas-sm90a-h100": Case("ptxas-too-old-for-gpu", ("first came with CUDA 12.0",)),
    "ptx/unsupported-ptx-runtime-wrappers-t4": Case(
        "unsupported-ptx-version",
        ("PTX ISA 8.3", "545.23.06", "too old"),
        machine={
            "os": "linux",
            "arch": "x86_64",
            "cc": "7.5",
            "gpu_name": "Tesla T4",
            "driver": "535.104.05",
        },
        tf="2.18.0",
    ),
    # -- 2025-2026 additions (#24): machine facts from the text, new message classes ------
    "ptx/llvm-ptx85-sm120-tf222-nightly": Case(
        "xla-ptx-version-too-old-for-target",
        (
            "PTX ISA 8.5, which came with CUDA 12.5",
            "sm_120 (compute capability 12.0)",
            "needs PTX ISA 8.7 (CUDA 12.8 and later)",
            "Keep XLA off",
        ),
        absent=("ptxas-too-old-for-gpu", "driver-insufficient", "unsupported-ptx-version"),
    ),
    "ptx/invalid-ptx-then-handle-rtx5xxx-2025": Case(
        "invalid-ptx",
        ("architecture-specific target sm_90a", "Updating the driver does not help"),
        absent=("cuda-invalid-handle",),  # follows from INVALID_PTX: answered once
    ),
    "ptx/invalid-handle-jit-cc120-nightly-2025": Case(
        "no-kernel-binaries-for-gpu",
        ("Compute capability 12.0",),
        also=("cuda-invalid-handle",),
        absent=("invalid-ptx",),
    ),
    "platform/smi-header-wsl-rtx-pro-blackwell-573": Case(
        "nvidia-smi-header",
        ("driver 573.76", "classic header", "CUDA 12.8 is the newest CUDA this driver runs"),
        absent=("driver-insufficient",),
    ),
    "platform/smi-header-kmd-610-b200-2026": Case(
        "nvidia-smi-header",
        ("driver 610.43.02", "R610+ header", "CUDA 13.3 is the newest CUDA this driver runs"),
    ),
    "platform/driver-insufficient-smi-535-2025": Case(
        "driver-insufficient",
        ("The driver the text shows is 535.183.01", "runs CUDA up to 12.2"),
        also=("nvidia-smi-header",),
    ),
    "pip-uv/and-cuda-backtracked-conflict-2025": Case(
        "pip-resolution-impossible",
        ("tfenv resolves TensorFlow 2.21.0", "'nvidia-cudnn-cu12==9.3.0.75'"),
        absent=("pip-backtracking",),
        machine={
            "os": "linux",
            "arch": "x86_64",
            "python": "3.11",
            "cc": "8.6",
            "driver": "535.104.05",
        },
    ),
    "pip-uv/tensorrt-libs-861-backtracking-only": Case(
        "pip-backtracking",
        ("tfenv resolves TensorFlow 2.15.0", "'tensorflow==2.15.0' 'nvidia-cublas-cu12==12.2.5.6'"),
        absent=("pip-no-matching-distribution",),
        machine={**LINUX_3090, "driver": "535.104.05", "python": "3.11"},
    ),
}


def _files() -> list[str]:
    return sorted(str(p.relative_to(REAL).with_suffix("")) for p in REAL.glob("*/*.txt"))


def test_every_real_message_has_a_case_and_an_origin() -> None:
    assert len(_files()) >= 60
    assert set(_files()) == set(CASES)
    for name in _files():
        first = (REAL / f"{name}.txt").read_text("utf-8").splitlines()[0]
        assert re.match(r"# origin: https://\S+ \(.+\)$", first), name


def _target(facts: dict[str, Any]) -> Optional[Target]:
    if not facts:
        return None
    values = dict(facts)
    for key in ("python", "cc"):
        if key in values:
            values[key] = Version(values[key])
    if "driver" in values:
        values["driver"] = DriverVersion(values["driver"])
    return Target(**values)


def run_case(name: str, kb: KnowledgeBase) -> Explanation:
    case = CASES[name]
    text = "\n".join((REAL / f"{name}.txt").read_text("utf-8").splitlines()[1:])
    tf = Version(case.tf) if case.tf else None
    return explain(text, kb, target=_target(case.machine), tf=tf)


@pytest.mark.parametrize("name", _files())
def test_real_message(name: str, kb: KnowledgeBase) -> None:
    case = CASES[name]
    result = run_case(name, kb)
    first = (result.errors or result.noise)[0]
    assert first.entry.id == case.first, [m.entry.id for m in result.matches]
    ids = {m.entry.id for m in result.matches}
    assert set(case.also) <= ids
    assert not set(case.absent) & ids
    answer = " ".join((*first.facts, first.fix_text))
    for text in case.says:
        assert text in answer, (text, answer)


def _answers(kb: KnowledgeBase) -> list[str]:
    out = []
    for name in _files():
        for m in run_case(name, kb).matches:
            out += [*m.facts, m.fix_text, m.entry.cause]
    return out


def test_answers_carry_no_placeholders_stray_periods_or_invalid_pins(kb: KnowledgeBase) -> None:
    for text in _answers(kb):
        assert not re.search(r"<[a-z][\w ]*>", text), text  # <version>, <driver CUDA>
        assert not re.search(r"\d\.[:,]|\d\.\. |\.\.$", text), text  # "8.6.0.:" "8.6.0. or"
        for spec in re.findall(r"pip install '([^']+)'", text):
            req = Requirement(spec)  # raises on an invalid specifier such as <=12.2.*
            assert str(req.specifier) == "" or all(s.version for s in req.specifier)
