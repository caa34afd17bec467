"""`tfenv explain` answers with the facts of the case at hand (#24 part 3).

Each case: a message, the machine and TensorFlow as the flags give them (or nothing: the
text's own facts), the entry that must answer first, what its facts and fix must say, and
what they must NOT say (the finding that must not appear for this case).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

import pytest
from packaging.version import Version

from tfenv.explain import explain
from tfenv.explain.hints import read_hints
from tfenv.kb import KnowledgeBase
from tfenv.models.driver import DriverVersion
from tfenv.models.target import Target

INSUFFICIENT = "CUDA driver version is insufficient for CUDA runtime version"
LLVM = (
    "LLVM ERROR: PTX version 8.5 does not support target 'sm_120' (or 'sm_120a'). Minimum "
    "required PTX version is 8.7"
)
BACKTRACK = (
    "INFO: pip is still looking at multiple versions of tensorflow[and-cuda] to determine "
    "which version is compatible with other requirements. This could take a while."
)
NONE = (
    "ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: "
    "none)\nERROR: No matching distribution found for tensorflow"
)
KMD = "| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |"
CLASSIC = (
    "| NVIDIA-SMI 535.183.01             Driver Version: 535.183.01   CUDA Version: 12.2     |"
)
LINUX = {"os": "linux", "arch": "x86_64"}


@dataclass(frozen=True)
class Case:
    text: str
    first: str
    says: tuple[str, ...] = ()
    never: tuple[str, ...] = ()  # must not be in the first answer's facts and fix
    machine: dict[str, Any] = field(default_factory=dict)
    tf: Optional[str] = None


METAL = (
    "NotFoundError: dlopen(/opt/env/lib/python3.10/site-packages/tensorflow-plugins/"
    "libmetal_plugin.dylib, 0x0006): Symbol not found: __ZN3tsl8internal10LogMessageC1EPKcii"
)
CASES: dict[str, Case] = {
    # an OS floor: tensorflow-metal's wheels need macOS 12 (their tag), against the text's macOS
    "metal-on-macos-11-is-too-old": Case(
        f"ProductVersion:\t\t11.6\n{METAL}",
        "metal-plugin-symbol-not-found",
        ("needs macOS 12.0 or later", "the text shows macOS 11.6: too old"),
        ("new enough",),
        {"os": "macos", "arch": "arm64"},
    ),
    "metal-on-macos-14-is-fine": Case(
        f"macOS 14.5 (23F79)\n{METAL}",
        "metal-plugin-symbol-not-found",
        ("needs macOS 12.0 or later", "macOS 14.5: new enough"),
        ("too old: update macOS",),
        {"os": "macos", "arch": "arm64"},
    ),
    # the example: the floor 2.15.1 needs vs the driver it has
    "insufficient-2151-on-470": Case(
        INSUFFICIENT,
        "driver-insufficient",
        (
            "TensorFlow 2.15.1 is built with CUDA 12.2",
            ">= 525.60.13",
            "470.82.01",
            "too old",
            "Update the NVIDIA driver to 525.60.13",
            "TensorFlow 2.14.1 (CUDA 11.8)",
        ),
        ("new enough",),
        {**LINUX, "driver": "470.82.01"},
        "2.15.1",
    ),
    # the driver is new enough for the build: the cause is elsewhere, no driver update
    "insufficient-2141-on-470-is-not-the-driver": Case(
        INSUFFICIENT,
        "driver-insufficient",
        ("TensorFlow 2.14.1 is built with CUDA 11.8", "new enough", "tfenv doctor"),
        ("too old", "Update the NVIDIA driver", "the newest whose GPU build"),
        {**LINUX, "driver": "470.82.01", "cc": "8.6"},
        "2.14.1",
    ),
    # a Kepler GPU cannot leave R470: never told to update the driver
    "insufficient-k80-branch-limit": Case(
        INSUFFICIENT,
        "driver-insufficient",
        ("up to the R470 branch only", "TensorFlow 2.14.1"),
        ("Update the NVIDIA driver",),
        {**LINUX, "driver": "470.82.01", "cc": "3.7", "gpu_name": "Tesla K80"},
        "2.15.1",
    ),
    # the driver from the pasted nvidia-smi line, TensorFlow from --tf
    "insufficient-driver-from-text": Case(
        f"{INSUFFICIENT}\n{CLASSIC}",
        "driver-insufficient",
        (
            "The driver the text shows is 535.183.01",
            "runs CUDA up to 12.2",
            "TensorFlow 2.21.0 is built with CUDA 12.5",
            "new enough",
        ),
        ("too old",),
        tf="2.21.0",
    ),
    "insufficient-kmd-driver-from-text": Case(
        f"{INSUFFICIENT}\n{KMD}",
        "driver-insufficient",
        ("The driver the text shows is 610.43.02", "runs CUDA up to 13.3"),
        ("too old",),
    ),
    # XLA on Blackwell: the case's GPU and TensorFlow
    "llvm-ptx-sm120-tf221": Case(
        LLVM,
        "xla-ptx-version-too-old-for-target",
        (
            "PTX ISA 8.5, which came with CUDA 12.5",
            "needs PTX ISA 8.7 (CUDA 12.8",
            "TensorFlow 2.21.0 is built with CUDA 12.5",
            "own kernels run on this GPU by PTX JIT",
            "Keep XLA off",
        ),
        ("Update the NVIDIA driver", "compute capability 10.0"),
        {**LINUX, "cc": "12.0", "driver": "580.65.06"},
        "2.21.0",
    ),
    "llvm-ptx87-required-sm120-openxla-form": Case(
        "LLVM ERROR: ptx87 is required for target sm_120",
        "xla-ptx-version-too-old-for-target",
        ("needs PTX ISA 8.7 (CUDA 12.8", "sm_120 (compute capability 12.0)"),
    ),
    # backtracking: the pinned plan for the machine at hand
    "backtracking-pinned-plan": Case(
        BACKTRACK,
        "pip-backtracking",
        ("python -m pip install 'tensorflow[and-cuda]==2.21.0'", "'nvidia-cudnn-cu12==9.3.0.75'"),
        ("tensorrt",),
        {**LINUX, "python": "3.12", "cc": "8.6", "driver": "535.104.05"},
    ),
    "backtracking-old-driver-pins-2141": Case(
        BACKTRACK,
        "pip-backtracking",
        ("TensorFlow 2.14.1", "'nvidia-cudnn-cu11=="),
        ("2.21.0",),
        {**LINUX, "python": "3.11", "cc": "8.6", "driver": "470.82.01"},
    ),
    # another package backtracking: no TensorFlow plan offered
    "backtracking-other-package-no-plan": Case(
        "INFO: pip is looking at multiple versions of pyyaml to determine which version is "
        "compatible with other requirements. This could take a while.",
        "pip-backtracking",
        (),
        ("python -m pip install", "tensorflow"),
        {**LINUX, "python": "3.12"},
    ),
    # a pre-release has a wheel: say so and give --pre; never "no release has a wheel"
    "no-distribution-windows-py314-prerelease": Case(
        NONE,
        "pip-no-matching-distribution",
        ("no final tensorflow release has a wheel for Python 3.14", "2.22.0rc0", "--pre"),
        ("no tensorflow release has a wheel",),
        {"os": "windows", "arch": "x86_64", "python": "3.14"},
    ),
    "no-distribution-aarch64-py36-no-prerelease": Case(
        NONE,
        "pip-no-matching-distribution",
        ("no tensorflow release has a wheel for Python 3.6 on Linux aarch64",),
        ("--pre", "pre-release"),
        {"os": "linux", "arch": "aarch64", "python": "3.6"},
    ),
    # a soname names its CUDA release and what the installed TensorFlow loads instead
    "soname-cuda11-under-tf2151": Case(
        "Could not load dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot "
        "open shared object file: No such file or directory",
        "linux-cuda-library-missing",
        ("CUDA 11.0 library", "TensorFlow 2.15.1 is built with CUDA 12.2 and loads CUDA 12"),
        ("this is the library it loads",),
        LINUX,
        "2.15.1",
    ),
    "soname-cuda12-under-tf2151-is-its-own": Case(
        "Could not load dynamic library 'libcudart.so.12'; dlerror: libcudart.so.12: cannot "
        "open shared object file: No such file or directory",
        "linux-cuda-library-missing",
        ("this is the library it loads",),
        ("another TensorFlow",),
        LINUX,
        "2.15.1",
    ),
    "soname-cudnn8-under-tf221": Case(
        "Could not load library libcudnn_ops_infer.so.8. Error: libcudnn_ops_infer.so.8: cannot "
        "open shared object file",
        "linux-cudnn-missing",
        ("cuDNN 8.x", "TensorFlow 2.21.0 is built with cuDNN 9.3 and loads cuDNN 9"),
        (),
        LINUX,
        "2.21.0",
    ),
}


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


@pytest.mark.parametrize("name", sorted(CASES))
def test_answer_uses_the_case(name: str, kb: KnowledgeBase) -> None:
    case = CASES[name]
    tf = Version(case.tf) if case.tf else None
    result = explain(case.text, kb, target=_target(case.machine), tf=tf)
    first = (result.errors or result.noise)[0]
    assert first.entry.id == case.first, [m.entry.id for m in result.matches]
    answer = " ".join((*first.facts, first.fix_text))
    for text in case.says:
        assert text in answer, (text, answer)
    for text in case.never:
        assert text not in answer, (text, answer)


@pytest.mark.parametrize(
    ("text", "driver", "cuda"),
    [(KMD, "610.43.02", "13.3"), (CLASSIC, "535.183.01", "12.2")],
)
def test_both_nvidia_smi_headers_give_the_driver(text: str, driver: str, cuda: str) -> None:
    hints = read_hints(text)
    assert hints.driver == driver
    assert hints.driver_cuda == Version(cuda)


def test_the_smi_header_is_not_a_problem(kb: KnowledgeBase) -> None:
    for text in (KMD, CLASSIC):
        result = explain(text, kb)
        assert not result.has_problem
        assert [m.entry.id for m in result.matches] == ["nvidia-smi-header"]


def test_the_text_driver_does_not_replace_a_given_one(kb: KnowledgeBase) -> None:
    target = Target("linux", "x86_64", driver=DriverVersion("470.82.01"))
    result = explain(f"{INSUFFICIENT}\n{KMD}", kb, target=target, tf=Version("2.15.1"))
    answer = " ".join(result.errors[0].facts)
    assert "this machine has is 470.82.01" in answer
    assert "610.43.02" not in answer


def test_invalid_handle_after_invalid_ptx_is_answered_once(kb: KnowledgeBase) -> None:
    text = (
        "'cuModuleLoadData(&module, data)' failed with 'CUDA_ERROR_INVALID_PTX'\n"
        "'cuModuleGetFunction(&function, module, kernel_name)' failed with "
        "'CUDA_ERROR_INVALID_HANDLE'"
    )
    result = explain(text, kb)
    assert [m.entry.id for m in result.matches] == ["invalid-ptx"]
    assert result.matches[0].follows == ("cuda-invalid-handle",)
    alone = explain("failed with 'CUDA_ERROR_INVALID_HANDLE'", kb)
    assert [m.entry.id for m in alone.matches] == ["cuda-invalid-handle"]
