"""Native Windows as its users have it (#22): every command tfenv prints or writes for a
Windows target reads the same in cmd.exe and PowerShell; the system route is the steps
themselves; --emit writes .bat/.ps1; doctor finds the DLLs along PATH in recorded trees."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Optional

import pytest
import yaml
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.winshell import both
from tfenv.doctor import env as target_env
from tfenv.doctor.checks import Inputs, diagnose
from tfenv.doctor.findings import Finding
from tfenv.emit import plan_files
from tfenv.emit._header import regenerate_command
from tfenv.emit.activation_windows import batch_comment
from tfenv.host.profile import GpuInfo, HostProfile
from tfenv.kb import KnowledgeBase
from tfenv.models.driver import DriverVersion
from tfenv.models.platform import system
from tfenv.models.target import Request, Target
from tfenv.resolver import resolve
from tfenv.shells import command

DATA = Path(__file__).parent / "data"
TREES: dict[str, Any] = yaml.safe_load((DATA / "windows_trees.yaml").read_text("utf-8"))

GTX_1060 = ("NVIDIA GeForce GTX 1060", "6.1")
RTX_3070_TI_LAPTOP = ("NVIDIA GeForce RTX 3070 Ti Laptop GPU", "8.6")

# (TensorFlow, Python, manager): every native-Windows GPU series, both routes, and the
# CPU-only releases after 2.10
CASES = [
    ("2.0", "3.7", "auto"),
    ("2.1", "3.7", "auto"),
    ("2.3", "3.8", "auto"),
    ("2.3", "3.8", "pip"),
    ("2.4", "3.8", "auto"),
    ("2.5", "3.9", "pip"),
    ("2.9", "3.10", "auto"),
    ("2.10", "3.10", "auto"),
    ("2.10", "3.10", "pip"),
    ("2.12", "3.11", "auto"),
    ("2.16", "3.12", "auto"),
]


def _resolve(
    kb: KnowledgeBase,
    tf: str,
    python: str,
    manager: str = "auto",
    gpu: tuple[str, str] = RTX_3070_TI_LAPTOP,
    driver: str = "516.94",
    gpu_name: Optional[str] = None,
) -> Any:
    target = Target(
        "windows",
        "x86_64",
        python=Version(python),
        cc=Version(gpu[1]),
        gpu_name=gpu_name or gpu[0],
        driver=DriverVersion(driver),
    )
    request = Request(tf=SpecifierSet(f"=={tf}.*"), tf_text=tf, manager=manager, allow_cpu=True)
    return resolve(kb, target, request)


def printed_commands(res: Any) -> list[str]:
    """The lines a Windows plan prints to run: its Install commands and the regenerate line."""
    assert res.plan is not None, res.conflicts
    return [*res.plan.commands, regenerate_command(res)]


@pytest.mark.parametrize(("tf", "python", "manager"), CASES)
def test_every_windows_command_reads_the_same_in_cmd_and_powershell(
    kb: KnowledgeBase, tf: str, python: str, manager: str
) -> None:
    res = _resolve(kb, tf, python, manager)
    lines = printed_commands(res)
    for line in lines:
        argv = both(line)  # raises where cmd.exe and PowerShell would read it differently
        assert argv[0] in ("python", "conda", "tfenv"), line
        assert "'" not in line, line
    for line in _guide_lines(kb, res):  # INSTALL.md's: the commands again, and Verify's
        assert both(line)[0] in ("python", "conda"), line
    for step in res.plan.steps:
        if "Verify: " in step:
            check = step.split("Verify: ", 1)[1].split(" lists ", 1)[0]
            assert both(check)[:2] == ["python", "-c"]


def _guide_lines(kb: KnowledgeBase, res: Any) -> list[str]:
    """The commands INSTALL.md's numbered steps give (indented code blocks), and the one
    a conda plan's prerequisite names (conda init powershell)."""
    guide = plan_files(res).get("INSTALL.md", "")
    lines = re.findall(r"^   ```bat\n   ([^\n]+)\n   ```$", guide, re.MULTILINE)
    if res.plan.steps and "conda" in res.plan.route:
        lines.append(command(list(kb.conda.installer.powershell_init), "windows"))
    return lines


def test_the_suggestions_read_the_same_in_both_shells(kb: KnowledgeBase) -> None:
    res = _resolve(kb, "2.10", "3.12")  # no 2.10 wheel for Python 3.12: a way out names 3.10
    assert res.plan is None
    lines = [dict(s.fields)["command"] for s in res.suggestions if "command" in dict(s.fields)]
    said = " ".join(res.suggestion_sentences)
    assert all(line in said for line in lines)
    assert lines
    for line in lines:
        assert both(line)[:2] == ["tfenv", "resolve"]


def test_2_3_on_a_gtx_1060_reads_as_a_guide(kb: KnowledgeBase) -> None:
    res = _resolve(kb, "2.3", "3.8", "pip", gpu=GTX_1060, driver="452.06")
    plan = res.plan
    assert plan is not None
    assert plan.route == "system"
    text = "\n".join(plan.steps)
    for fact in (
        "cuda_10.1.243_426.00_win10.exe",
        "untick 'Driver components'",
        "cudnn-10.1-windows10-x64-v7.6.5.32.zip",
        "cuda\\lib\\x64\\*.lib into C:\\Program Files\\NVIDIA GPU Computing Toolkit"
        "\\CUDA\\v10.1\\lib\\x64",
        "CUDA\\v10.1\\extras\\CUPTI\\lib64",
        "https://aka.ms/vc14/vc_redist.x64.exe",
        "msvcp140_1.dll",
        "cudart64_101.dll",
        "cudnn64_7.dll",
    ):
        assert fact in text, fact
    assert "zlibwapi" not in text  # cuDNN 7.6 does not need it
    assert dict(plan.env)["CUDA_PATH_V10_1"].endswith("CUDA\\v10.1")
    # with the bounds 2.3.4 needs to run today (data/tensorflow/runtime.yaml: protobuf<4)
    runtime = "".join(f' "{c.line}"' for c in plan.constraints)
    assert plan.commands == (f'python -m pip install "tensorflow==2.3.4"{runtime}',)


def test_2_10_on_a_rtx_3070_ti_laptop(kb: KnowledgeBase) -> None:
    res = _resolve(kb, "2.10", "3.10", "pip")
    plan = res.plan
    assert plan is not None
    assert plan.route == "system"
    text = "\n".join(plan.steps)
    for fact in ("cuda_11.2.2_461.33_win10.exe", "cudnn-11.2-windows-x64-v8.1.0.77.zip",
                 "cusolver64_11.dll", "cudart64_110.dll"):  # fmt: skip
        assert fact in text, fact
    # the Python environment, Windows' way (python.org's venv docs): Scripts\, never bin/
    install = next(s for s in plan.steps if s.startswith("Install TensorFlow"))
    create = install.split("for example ", 1)[1].split(" run by", 1)[0]
    assert both(create) == ["python", "-m", "venv", "tf-2.10.1"]
    assert "an environment of Python 3.10 (64-bit)" in install
    assert "tf-2.10.1\\Scripts\\activate.bat in cmd.exe" in install
    assert "tf-2.10.1\\Scripts\\Activate.ps1 in PowerShell" in install
    assert "its interpreter is tf-2.10.1\\Scripts\\python.exe" in install
    assert "bin/" not in text
    conda = _resolve(kb, "2.10", "3.10")
    assert conda.plan is not None
    assert conda.plan.route == "conda+pip"
    assert conda.plan.commands[0].endswith('"python=3.10" "cudatoolkit=11.2.2" "cudnn=8.1.0.77"')


@pytest.mark.parametrize(("tf", "python", "manager"), CASES)
def test_windows_answers_carry_no_posix_paths(
    kb: KnowledgeBase, tf: str, python: str, manager: str
) -> None:
    """What a Windows plan says (text and JSON) names Windows folders only."""
    from tfenv.report import resolution_text

    res = _resolve(kb, tf, python, manager)
    text = resolution_text(res) + json.dumps(res.to_dict())
    for posix in ("~/.nv", "$CONDA_PREFIX", "LD_LIBRARY_PATH", "bin/python", "export ", "/usr/"):
        assert posix not in text, posix


def test_conda_route_names_library_bin_on_windows_only(kb: KnowledgeBase) -> None:
    from tfenv.report import resolution_text

    windows = resolution_text(_resolve(kb, "2.10", "3.10"))
    assert "%CONDA_PREFIX%\\Library\\bin, which conda activate puts on PATH" in windows
    linux = Target(
        "linux", "x86_64", glibc=Version("2.35"), python=Version("3.10"), cc=Version("8.6"),
        gpu_name="NVIDIA GeForce RTX 3060", driver=DriverVersion("535.104.05"),
    )  # fmt: skip
    res = resolve(kb, linux, Request(tf=SpecifierSet("==2.10.*"), tf_text="2.10", manager="conda"))
    assert res.plan is not None
    text = resolution_text(res)
    assert "$CONDA_PREFIX/lib" in text
    for windows_only in ("%CONDA_PREFIX%", "Library\\bin", "%APPDATA%", "Scripts\\python"):
        assert windows_only not in text, windows_only


def test_text_output_names_both_shells(kb: KnowledgeBase) -> None:
    from tfenv.report import resolution_text

    text = resolution_text(_resolve(kb, "2.10", "3.10", "pip"))
    assert "Steps:\n  1. NVIDIA driver" in text
    assert 'Environment (cmd.exe):\n  set "CUDA_PATH=C:\\Program Files' in text
    assert "Environment (PowerShell):\n  $env:CUDA_PATH = 'C:\\Program Files" in text
    assert "+ $env:PATH" in text
    assert "%APPDATA%\\NVIDIA\\ComputeCache" in text  # 8.6 on 2.10: PTX JIT for some kernels
    assert "~/.nv" not in text


def test_json_has_the_steps(kb: KnowledgeBase) -> None:
    doc = _resolve(kb, "2.10", "3.10", "pip").to_dict()
    assert doc["plan"]["steps"][1].startswith("CUDA Toolkit 11.2.2")
    json.dumps(doc)


# -- --emit -----------------------------------------------------------------------------

HOSTILE = 'RTX %PATH% & calc ^ " ! `whoami` $env:X\r\ndel C:\\x'


def test_emit_writes_bat_and_ps1_not_sh(kb: KnowledgeBase) -> None:
    files = plan_files(_resolve(kb, "2.10", "3.10", "pip", gpu_name=HOSTILE))
    assert set(files) == {
        "activate-tfenv.bat",
        "activate-tfenv.ps1",
        "requirements.txt",
        "INSTALL.md",
    }
    guide = files["INSTALL.md"]
    assert "\n1. NVIDIA driver" in guide
    assert "\n8. Verify: python -c" in guide  # 7: PowerShell's execution policy
    assert "```powershell\n$env:CUDA_PATH = " in guide
    assert "\ndel C:" not in guide
    bat = files["activate-tfenv.bat"]
    for line in bat.split("\r\n")[:-1]:
        assert line == "@echo off" or line.startswith(("REM ", 'set "')), line
        if line.startswith("REM "):
            assert "%" not in line.replace("%%", ""), line
    assert 'set "PATH=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin;' in bat
    ps1 = files["activate-tfenv.ps1"]
    for line in ps1.split("\r\n")[:-1]:
        assert line.startswith(("# ", "$env:")), line
    assert "del C:" not in ps1.replace("\\r\\ndel C:", "")  # the line break stays escaped


def test_batch_comment_escapes() -> None:
    assert batch_comment("a %PATH% & b") == "REM a %%PATH%% ^& b"
    assert "\n" not in batch_comment("x\r\ny")


_WINE = shutil.which("wine64") or shutil.which("wine") or shutil.which("/usr/lib/wine/wine64")


@pytest.mark.skipif(_WINE is None, reason="Wine is not installed (apt-get install wine64)")
def test_the_bat_runs_in_wines_cmd(kb: KnowledgeBase, tmp_path: Path) -> None:
    """The emitted .bat, hostile header and all, sets the variables and runs nothing else."""
    assert _WINE is not None
    files = plan_files(_resolve(kb, "2.10", "3.10", "pip", gpu_name=HOSTILE))
    (tmp_path / "activate-tfenv.bat").write_text(files["activate-tfenv.bat"], newline="")
    (tmp_path / "run.bat").write_text(
        "@echo off\r\ncall activate-tfenv.bat\r\necho [%CUDA_PATH_V11_2%]\r\n", newline=""
    )
    env = {"WINEDEBUG": "-all", "WINEPREFIX": str(tmp_path / "prefix"), "HOME": str(tmp_path)}
    env["PATH"] = "/usr/bin:/bin"
    out = subprocess.run(
        [_WINE, "cmd", "/c", "run.bat"], cwd=tmp_path, capture_output=True, timeout=300, env=env
    )
    lines = out.stdout.decode("ascii", "replace").replace("\r\n", "\n").splitlines()
    assert lines == ["[C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2]"]


# -- doctor on recorded Windows trees ------------------------------------------------------


def _lay(tmp: Path, *trees: str) -> str:
    """The trees as folders of empty files; their PATH (Windows' separator), in order."""
    dirs = []
    for name in trees:
        folder = tmp / "C" / TREES[name]["folder"]
        folder.mkdir(parents=True, exist_ok=True)
        for file in TREES[name]["files"]:
            (folder / file).write_bytes(b"MZ")
        for header, text in TREES[name].get("headers", {}).items():
            (folder.parent / "include").mkdir(exist_ok=True)
            (folder.parent / "include" / header).write_text(text)
        dirs.append(str(folder))
    return ";".join(dirs)


def _doctor(
    tmp: Path, kb: KnowledgeBase, path: str, tf: str = "2.10.1", conda: bool = False
) -> dict[str, Finding]:
    site = tmp / "env" / "Lib" / "site-packages"
    if conda:
        (tmp / "env" / "conda-meta").mkdir(parents=True)
    info = site / f"tensorflow-{tf}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: tensorflow\nVersion: {tf}\n")
    host = HostProfile(
        os="windows",
        arch="x86_64",
        python=Version("3.10"),
        driver="516.94",
        gpus=(GpuInfo(0, RTX_3070_TI_LAPTOP[0], Version("8.6")),),
    )
    inp = Inputs(
        env=target_env.from_prefix(tmp / "env"),
        host=host,
        kb=kb,
        environ={"PATH": path},
        system_dirs=(),
        ld_conf=tmp / "no-ld-conf",
        load_libraries=False,
        cuda_home=tmp / "no-cuda",
    )
    return {f.id: f for f in diagnose(inp)}


def test_doctor_windows_all_found(tmp_path: Path, kb: KnowledgeBase) -> None:
    found = _doctor(tmp_path, kb, _lay(tmp_path, "cuda_11_2_bin", "cudnn_8_1_bin", "system32"))
    assert found["windows-dlls"].status == "ok", found["windows-dlls"]
    assert "windows-dll-order" not in found
    assert "lib-cudart" not in found  # the Linux-style check is replaced on Windows


def test_doctor_finds_a_missing_cudnn64_8(tmp_path: Path, kb: KnowledgeBase) -> None:
    found = _doctor(tmp_path, kb, _lay(tmp_path, "cuda_11_2_bin", "system32"))
    dlls = found["windows-dlls"]
    assert dlls.status == "problem"
    assert dlls.title == "Not on PATH: cudnn64_8.dll"
    assert dlls.fix is not None
    assert "CUDA\\v11.2\\bin" in dlls.fix
    # the basis cites the installed release's own wheel, not the 11 wheels the set covers
    assert "/tensorflow-2.10.1-cp39-" in dlls.detail
    assert "/tensorflow-2.9.3-" not in dlls.detail


def test_doctor_warns_about_an_early_cuda_11_0_bin(tmp_path: Path, kb: KnowledgeBase) -> None:
    path = _lay(tmp_path, "cuda_11_0_bin", "cuda_11_2_bin", "cudnn_8_1_bin", "system32")
    found = _doctor(tmp_path, kb, path)
    order = found["windows-dll-order"]
    assert order.status == "warning"
    assert "CUDA 11.0's bin folder comes before CUDA 11.2's" in order.title
    assert "v11.0" in order.detail
    assert order.fix is not None
    assert "v11.0" in order.fix


def test_doctor_2_3_without_cuda_10_1_and_the_redistributable(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    found = _doctor(tmp_path, kb, _lay(tmp_path, "cuda_11_2_bin"), tf="2.3.4")
    dlls = found["windows-dlls"]
    assert dlls.status == "problem"
    for name in ("cudart64_101.dll", "cublas64_10.dll", "cudnn64_7.dll", "msvcp140_1.dll"):
        assert name in dlls.title
    assert dlls.fix is not None
    assert "vc_redist.x64.exe" in dlls.fix
    assert "CUDA 11.2's bin folder comes before CUDA 10.1's" in found["windows-dll-order"].title


def test_doctor_cudnn_8_4_without_zlibwapi(tmp_path: Path, kb: KnowledgeBase) -> None:
    """A later cuDNN 8.x in place of 8.1 (TensorFlow 2.10 runs it) needs zlibwapi.dll."""
    path = _lay(tmp_path, "cuda_11_2_bin", "cudnn_8_4_apart", "system32")
    found = _doctor(tmp_path, kb, path)
    assert found["windows-dlls"].status == "ok"
    version = found["windows-cudnn-version"]
    assert version.status == "ok"
    assert version.title.startswith("cuDNN 8.4.1 (from ")
    assert version.title.endswith("cudnn_version.h)")
    zlib = found["windows-zlib"]
    assert zlib.status == "problem"
    assert zlib.title == "zlibwapi.dll is not on PATH, and cuDNN 8.4.1 needs it"
    assert "cuDNN-Installation-Guide.pdf" in zlib.detail
    assert zlib.fix is not None
    assert "cudnn-windows-x86_64-8.4.1.50_cuda11.6-archive" in zlib.fix
    # the DLL on PATH: the same check passes
    with_zlib = tmp_path / "with-zlib"
    path = _lay(with_zlib, "cuda_11_2_bin", "cudnn_8_4_apart", "zlib_dll", "system32")
    assert _doctor(with_zlib, kb, path)["windows-zlib"].status == "ok"


def test_doctor_says_nothing_of_zlib_for_cudnn_8_1(tmp_path: Path, kb: KnowledgeBase) -> None:
    """cuDNN 8.1 (what 2.10 was built with) never needs it: no zlib finding, no version claim
    where no header is there to read."""
    found = _doctor(tmp_path, kb, _lay(tmp_path, "cuda_11_2_bin", "cudnn_8_1_bin", "system32"))
    assert "windows-zlib" not in found
    version = found["windows-cudnn-version"]
    assert version.status == "ok"
    assert "not known" in version.title


def test_doctor_cudnn_older_than_the_build(tmp_path: Path, kb: KnowledgeBase) -> None:
    path = _lay(tmp_path, "cuda_11_2_bin", "cudnn_8_0_apart", "system32")
    version = _doctor(tmp_path, kb, path)["windows-cudnn-version"]
    assert version.status == "problem"
    assert version.title == (
        "cuDNN 8.0.2 is older than the cuDNN 8.1 TensorFlow 2.10.1 was built with"
    )
    assert "forward-compatibility.html" in version.detail
    assert version.fix == "install cuDNN 8.1 (or a later 8.x) for this CUDA"


def test_doctor_names_the_other_version_of_a_dll(tmp_path: Path, kb: KnowledgeBase) -> None:
    """TensorFlow 2.10 on a machine with only CUDA 10.1 and cuDNN 7: the names say so."""
    found = _doctor(tmp_path, kb, _lay(tmp_path, "cuda_10_1_bin", "system32"))
    cudart = found["windows-dll-version-cudart"]
    assert cudart.status == "problem"
    assert cudart.title == "cudart64_110.dll (CUDA 11.x) is not on PATH; another version of it is"
    assert "cudart64_101.dll (CUDA 10.1) in " in cudart.detail
    assert cudart.fix is not None
    assert '(tfenv resolve --tf "2.10" lists the steps for this machine)' in cudart.fix
    cudnn = found["windows-dll-version-cudnn"]
    assert "cudnn64_7.dll (cuDNN 7)" in cudnn.detail
    assert cudnn.title.startswith("cudnn64_8.dll (cuDNN 8) ")
    # cufft64_10.dll is the same name in CUDA 10.1 and 11.2: found, so no version finding
    assert "windows-dll-version-cufft" not in found


def test_doctor_no_version_finding_when_all_found(tmp_path: Path, kb: KnowledgeBase) -> None:
    found = _doctor(
        tmp_path, kb, _lay(tmp_path, "cuda_11_2_bin", "cuda_10_1_bin", "cudnn_8_1_bin", "system32")
    )
    assert not [k for k in found if k.startswith("windows-dll-version")]
    assert "windows-dll-order" not in found  # 10.1 comes after 11.2


def test_dll_version_names() -> None:
    from tfenv.doctor.windows_dlls import dll_version

    assert dll_version("cudart64_101.dll") == "CUDA 10.1"
    assert dll_version("cudart64_100.dll") == "CUDA 10.0"
    assert dll_version("cudart64_110.dll") == "CUDA 11.x"
    assert dll_version("cudart64_12.dll") == "CUDA 12"
    assert dll_version("cupti64_112.dll") == "CUDA 11.2"
    assert dll_version("cudnn64_7.dll") == "cuDNN 7"
    assert dll_version("cublas64_11.dll") == "cublas major 11"
    assert dll_version("msvcp140_1.dll") is None
    assert dll_version("nvcuda.dll") is None


def test_doctor_early_bin_names_what_it_shadows(tmp_path: Path, kb: KnowledgeBase) -> None:
    path = _lay(tmp_path, "cuda_11_0_bin", "cuda_11_2_bin", "cudnn_8_1_bin", "system32")
    order = _doctor(tmp_path, kb, path)["windows-dll-order"]
    assert "TensorFlow takes cublas64_11.dll, cublasLt64_11.dll, cudart64_110.dll" in order.detail
    assert "cusolver64_11.dll" not in order.detail  # CUDA 11.0 has cusolver64_10 only


def test_doctor_conda_env_not_activated(tmp_path: Path, kb: KnowledgeBase) -> None:
    """A conda environment holds cudatoolkit's DLLs in Library\\bin: activate it."""
    lib = tmp_path / "env" / "Library" / "bin"
    lib.mkdir(parents=True)
    for name in TREES["cuda_11_2_bin"]["files"] + ["cudnn64_8.dll"]:
        (lib / name).write_bytes(b"MZ")
    found = _doctor(tmp_path, kb, _lay(tmp_path, "system32"), conda=True)
    dlls = found["windows-dlls"]
    assert dlls.status == "problem"
    assert dlls.fix is not None
    assert dlls.fix.startswith("activate the conda environment")
    assert "%CONDA_PREFIX%\\Library\\bin" in dlls.fix
    assert "CUDA Toolkit" not in dlls.fix  # nothing to install
    # a venv with the same PATH is told to install the toolkit
    venv = tmp_path / "venv"
    found = _doctor(venv, kb, _lay(venv, "system32"))
    assert found["windows-dlls"].fix is not None
    assert "conda" not in found["windows-dlls"].fix


def _windows_venv(root: Path, version: str = "3.10.11") -> Path:
    """A Windows venv as it is laid out: pyvenv.cfg, Scripts\\python.exe, Lib\\site-packages
    (NumPy 2 under TensorFlow 2.10.1)."""
    (root / "Scripts").mkdir(parents=True)
    (root / "Scripts" / "python.exe").write_bytes(b"MZ")
    (root / "pyvenv.cfg").write_text(
        f"home = C:\\Python310\ninclude-system-site-packages = false\nversion = {version}\n"
    )
    site = root / "Lib" / "site-packages"
    for name, version_ in (("tensorflow", "2.10.1"), ("numpy", "2.0.2"), ("pip", "24.0")):
        info = site / f"{name}-{version_}.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version_}\n"
        )
    return root


def test_doctor_windows_venv_fix_in_both_shells(tmp_path: Path, kb: KnowledgeBase) -> None:
    """The Python version of a Windows venv comes from pyvenv.cfg (Lib\\site-packages names
    none), so the runtime check runs; its fix names Scripts\\python.exe, in the one form
    cmd.exe and PowerShell read alike."""
    from tfenv.doctor.runtime import check_runtime

    env = target_env.from_prefix(_windows_venv(tmp_path / "venv"))
    assert env.python == "3.10"
    assert env.interpreter is not None
    assert env.interpreter.endswith("python.exe")
    found = {f.id: f for f in check_runtime(kb, env, Version("2.10.1"), "windows")}
    numpy = found["runtime-numpy"]
    assert numpy.status == "problem"
    assert numpy.fix == f'{env.interpreter} -m pip install "numpy<2"'
    assert both(numpy.fix)[1:] == ["-m", "pip", "install", "numpy<2"]
    assert "'" not in numpy.fix
    # on Linux the same environment's fix is POSIX-quoted
    linux = {f.id: f for f in check_runtime(kb, env, Version("2.10.1"), "linux")}
    assert linux["runtime-numpy"].fix == f"{env.interpreter} -m pip install 'numpy<2'"


def test_doctor_windows_fix_without_a_bare_interpreter(tmp_path: Path, kb: KnowledgeBase) -> None:
    """A path with a space cannot start a command for both shells (PowerShell reads a quoted
    first word as a string): the fix says python, in the activated environment."""
    from tfenv.doctor.runtime import check_runtime

    env = target_env.from_prefix(_windows_venv(tmp_path / "my envs" / "tf"))
    fix = {f.id: f for f in check_runtime(kb, env, Version("2.10.1"), "windows")}[
        "runtime-numpy"
    ].fix
    assert fix == 'python -m pip install "numpy<2" (in the activated environment)'
    assert "my envs" not in fix


def test_conda_meta_gives_the_python(tmp_path: Path) -> None:
    root = tmp_path / "conda-env"
    (root / "Lib" / "site-packages").mkdir(parents=True)
    (root / "conda-meta").mkdir()
    (root / "conda-meta" / "python-3.10.13-h4de0772_0_cpython.json").write_text("{}")
    (root / "conda-meta" / "python_abi-3.10-4_cp310.json").write_text("{}")
    env = target_env.from_prefix(root)
    assert env.python == "3.10"
    assert env.is_conda


def test_windows_manual_facts_have_sources(kb: KnowledgeBase) -> None:
    manual = kb.windows_manual
    windows = [b for b in kb.builds if b.windows is not None]
    assert len(windows) == 11  # 2.0 to 2.10
    for build in windows:
        assert build.windows is not None
        assert manual.installer(build.windows.cuda) is not None, build.series
        assert manual.archive(build.windows.cuda, build.windows.cudnn) is not None, build.series
        assert manual.dlls_for(Version(f"{build.series}.0")) is not None, build.series
    provenances = [r.provenance for r in manual.cuda] + [r.provenance for r in manual.cudnn]
    for provenance in provenances + [r.provenance for r in manual.dlls]:
        assert provenance.sources
        assert provenance.retrieved
    assert manual.jit_cache(system("windows")) == "%APPDATA%\\NVIDIA\\ComputeCache"
    assert manual.jit_cache(system("wsl2")) == manual.jit_cache(system("linux"))
    assert manual.needs_zlib(Version("8.3"))
    assert not manual.needs_zlib(Version("8.1"))


def test_explain_gives_the_windows_install_for_both_shells(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tfenv.cli import main

    message = (
        "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.12.0 "
        "(from versions: 2.10.0, 2.10.1)"
    )
    assert main(["explain", "--os", "windows", "--python", "3.10", message]) == 0
    out = capsys.readouterr().out
    assert '`pip install "tensorflow-gpu==2.10.1"`' in out
    both('pip install "tensorflow-gpu==2.10.1"')


def test_linux_and_wsl2_system_steps(kb: KnowledgeBase) -> None:
    for os in ("linux", "wsl2"):
        target = Target(
            os,
            "x86_64",
            glibc=Version("2.35"),
            python=Version("3.8"),
            cc=Version("7.5"),  # Turing: the newest GPU cuDNN 7.6 (TF 2.3's) has code for
            gpu_name="NVIDIA GeForce RTX 2070",
            driver=DriverVersion("535.104.05"),
        )
        res = resolve(kb, target, Request(tf=SpecifierSet("==2.3.*"), tf_text="2.3", manager="pip"))
        assert res.plan is not None
        assert res.plan.route == "system"
        text = "\n".join(res.plan.steps)
        assert "cuda_10.1.243_418.87.00_linux.run" in text
        assert "sudo sh cuda_10.1.243_418.87.00_linux.run --silent --toolkit" in text
        assert "cuda-toolkit-10-1" in text
        assert "libcudnn7" in text
        assert ("install nothing driver-related inside WSL2" in text) == (os == "wsl2")


def test_explain_cudnn_126_with_cudnn_8_1_does_not_blame_zlib(kb: KnowledgeBase) -> None:
    from tfenv.explain import explain

    text = (
        "I tensorflow/stream_executor/cuda/cuda_dnn.cc:384] Loaded cuDNN version 8100\n"
        "Could not load library cudnn_ops_infer64_8.dll. Error code 126\n"
    )
    target = Target("windows", "x86_64", python=Version("3.10"))
    first = explain(text, kb, target=target, tf=Version("2.10.1")).errors[0]
    assert first.entry.id == "windows-cudnn-sublibrary-126"
    facts = " ".join(first.facts)
    assert "cuDNN 8.1.0 was loaded, which does not need zlibwapi.dll" in facts
    assert "which needs zlibwapi.dll" not in facts


def test_explain_zlib_entries_are_windows_only(kb: KnowledgeBase) -> None:
    from tfenv.explain import explain

    text = "Could not locate zlibwapi.dll. Please make sure it is in your library path!"
    linux = Target("linux", "x86_64", glibc=Version("2.35"), python=Version("3.10"))
    ids = [m.entry.id for m in explain(text, kb, target=linux).matches]
    windows = [m.entry.id for m in explain(text, kb).matches]
    assert windows == ["windows-zlibwapi-missing"]
    assert ids == [] or all(m.elsewhere for m in explain(text, kb, target=linux).matches)


def test_the_codes_windows_layout_is_the_recorded_fact(kb: KnowledgeBase) -> None:
    """The toolkit folder, PATH entries and cuDNN folder the steps and scripts use are the
    ones TensorFlow's Windows guide gives (windows_manual.yaml, layout)."""
    from tfenv.kb.windows_manual import TOOLKIT_ROOT
    from tfenv.routes.system_steps import windows_env, windows_steps

    manual = kb.windows_manual
    assert manual.toolkit_root == TOOLKIT_ROOT
    assert manual.layout_provenance.sources
    base = f"{TOOLKIT_ROOT}\\v11.2"
    path = dict(windows_env(kb, Version("11.2")))["PATH"]
    assert path == ";".join([*(f"{base}\\{entry}" for entry in manual.path_entries), "%PATH%"])
    steps = "\n".join(windows_steps(kb, Version("2.10.1"), Version("11.2"), Version("8.1")))
    assert f"e.g. {manual.cudnn_apart}, and add its bin folder" in steps


@pytest.mark.skipif(_WINE is None, reason="Wine is not installed (apt-get install wine64)")
def test_every_plan_command_passes_wines_cmd_unchanged(kb: KnowledgeBase, tmp_path: Path) -> None:
    """The install commands, Verify checks and regenerate lines of every Windows case, and
    the venv line of the steps, echoed by Wine's cmd.exe from a batch file: nothing is
    expanded, redirected or split off (what cmd.exe would run is what tfenv printed)."""
    assert _WINE is not None
    lines: list[str] = []
    for tf, python, manager in CASES:
        res = _resolve(kb, tf, python, manager)
        assert res.plan is not None
        lines += [*res.plan.commands, regenerate_command(res), res.plan.verify or ""]
        lines += _guide_lines(kb, res)
        for step in res.plan.steps:
            if "for example " in step:
                lines.append(step.split("for example ", 1)[1].split(" run by", 1)[0])
    lines = sorted({line for line in lines if line})
    bat = tmp_path / "t.bat"
    bat.write_bytes(("@echo off\r\n" + "".join(f"echo {x}\r\n" for x in lines)).encode("ascii"))
    env = {"WINEDEBUG": "-all", "WINEPREFIX": str(tmp_path / "prefix"), "HOME": str(tmp_path)}
    env["PATH"] = "/usr/bin:/bin"
    out = subprocess.run(
        [_WINE, "cmd", "/c", "Z:" + str(bat).replace("/", "\\")],
        capture_output=True,
        timeout=300,
        env=env,
        cwd=tmp_path,
    )
    got = out.stdout.decode("ascii", "replace").replace("\r\n", "\n").splitlines()
    assert got == lines
    assert any('"numpy<2"' in line for line in lines)  # a redirection if it were bare
