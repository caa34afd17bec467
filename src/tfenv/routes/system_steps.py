"""The ``system`` route's manual part, step by step: the CUDA Toolkit and cuDNN installed by
hand, as the guides give it, from the facts of ``nvidia/windows_manual.yaml`` (native
Windows) and the plan's versions. A fact that is not recorded is said to be unknown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.models.platform import system
from tfenv.shells import command

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.windows_manual import CudaInstaller, WindowsManual

__all__ = ["linux_steps", "windows_env", "windows_steps"]

_ARCHIVE = "NVIDIA's CUDA Toolkit archive (https://developer.nvidia.com/cuda-toolkit-archive)"
_CUDNN_ARCHIVE = "NVIDIA's cuDNN archive (https://developer.nvidia.com/rdp/cudnn-archive)"


def windows_env(kb: KnowledgeBase, cuda: Optional[Version]) -> tuple[tuple[str, str], ...]:
    """The variables a Windows session needs: CUDA_PATH, CUDA_PATH_VX_Y, and PATH with the
    toolkit's bin and CUPTI folders first (``%PATH%`` is the rest)."""
    if cuda is None:
        return ()
    manual = kb.windows_manual
    found = manual.installer(cuda)
    base = found.folder if found else f"{manual.toolkit_root}\\v{cuda.major}.{cuda.minor}"
    entries = ";".join(f"{base}\\{entry}" for entry in manual.path_entries)
    return (
        ("CUDA_PATH", base),
        (f"CUDA_PATH_V{cuda.major}_{cuda.minor}", base),
        ("PATH", f"{entries};%PATH%"),
    )


def windows_steps(
    kb: KnowledgeBase,
    tf: Version,
    cuda: Optional[Version],
    cudnn: Optional[Version],
    python: Optional[Version] = None,
) -> tuple[str, ...]:
    """Numbered-list items (without numbers) for native Windows."""
    if cuda is None:
        return ()
    manual = kb.windows_manual
    found = manual.installer(cuda)
    steps = [_driver_step(found), _cuda_step(found, cuda)]
    folder = found.folder if found else f"the toolkit's folder (v{cuda.major}.{cuda.minor})"
    if cudnn is not None:
        steps.append(_cudnn_step(manual, cuda, cudnn, folder))
    steps.append(
        f"PATH: put {folder}\\bin and {folder}\\extras\\CUPTI\\lib64 (and cuDNN's bin folder "
        "if you kept it apart) on PATH, before any other CUDA version's bin folder: the "
        "installer adds the bin folder to the system PATH; activate-tfenv.bat (cmd.exe) and "
        "activate-tfenv.ps1 (PowerShell), which --emit writes, set all of them for one "
        "session. Open a new terminal afterwards."
    )
    if manual.needs_redist(tf):
        steps.append(
            f"Install the {manual.redist_name} from {manual.redist_url}: TensorFlow "
            f">= {manual.redist_from} needs {' and '.join(manual.redist_provides)} on PATH "
            "(its import fails with 'Could not find the DLL(s)' otherwise)."
        )
    if manual.needs_zlib(cudnn):
        steps.append(f"Put {manual.zlib_dll} on PATH (next to cuDNN's DLLs): {manual.zlib_note}")
    steps.append(_install_step(manual, tf, python))
    steps.append(_verify_step(manual, tf))
    return tuple(steps)


def _install_step(manual: WindowsManual, tf: Version, python: Optional[Version]) -> str:
    """In a new terminal (so that PATH holds the folders above), in a venv of the plan's
    Python: its interpreter is Scripts\\python.exe, activated per shell."""
    venv = manual.venv(python, f"tf-{tf}")
    which = f"Python {python.major}.{python.minor}" if python else "the plan's Python"
    return (
        "Install TensorFlow with the commands under Install, in a new terminal (so that PATH "
        f"holds the folders above) and in an environment of {which} (64-bit): for example "
        f"{venv['create']} run by that Python (python --version shows which one PATH gives), "
        f"then activate it with {venv['cmd']} in cmd.exe or "
        f"{venv['powershell']} in PowerShell; its interpreter is {venv['interpreter']}."
    )


def _driver_step(found: Optional[CudaInstaller]) -> str:
    bundled = (
        f" (the toolkit installer bundles driver {found.bundled_driver}, usually older than "
        "the one your GPU needs)"
        if found and found.bundled_driver
        else ""
    )
    return (
        "NVIDIA driver: keep the installed one if it meets the floor above; otherwise install "
        "the newest driver for your GPU from NVIDIA's driver page, with 'Custom (Advanced)' > "
        f"'Perform a clean installation' when replacing an old one, and restart{bundled}."
    )


def _cuda_step(found: Optional[CudaInstaller], cuda: Version) -> str:
    if found is None:
        return (
            f"CUDA Toolkit {cuda}: the installer is not recorded here (unknown); take the "
            f"Windows local installer of {cuda} from {_ARCHIVE}, choose 'Custom (Advanced)' "
            "and untick the driver components."
        )
    return (
        f"CUDA Toolkit {found.version}: download {found.installer} from {found.url} "
        f"(archive page {found.archive_page}); run it, choose 'Custom (Advanced)' and untick "
        "'Driver components' (and GeForce Experience, PhysX), so that the driver of step 1 "
        f"stays. It installs to {found.folder} and sets CUDA_PATH and {found.path_variable}."
    )


def _cudnn_step(manual: WindowsManual, cuda: Version, cudnn: Version, folder: str) -> str:
    found = manual.archive(cuda, cudnn)
    if found is None:
        what = (
            f"cuDNN {cudnn} for CUDA {cuda.major}.{cuda.minor}: the archive is not recorded "
            f"here (unknown); take the Windows zip from {_CUDNN_ARCHIVE}"
        )
    else:
        sha = f", sha256 {found.sha256}" if found.sha256 else ""
        what = (
            f"cuDNN {found.version} for CUDA {found.cuda}: download {found.archive} from "
            f"{found.url} (an NVIDIA developer login is needed{sha})"
        )
    return (
        f"{what}. Unzip it and copy cuda\\bin\\*.dll into {folder}\\bin, cuda\\include\\*.h "
        f"into {folder}\\include and cuda\\lib\\x64\\*.lib into {folder}\\lib\\x64 (or keep "
        f"the unzipped folder apart, e.g. {manual.cudnn_apart}, and add its bin folder to PATH)."
    )


def _verify_step(manual: WindowsManual, tf: Version) -> str:
    check = command(list(manual.verify), "windows")
    dlls = manual.dlls_for(tf)
    listed = f" It loads {', '.join(dlls.cuda + dlls.cudnn)} from PATH." if dlls else ""
    return (
        f"Verify: {check} lists a PhysicalDevice with device_type='GPU'; only the CPU means "
        f"a DLL was not found ('tfenv doctor' names the missing ones and their folder).{listed}"
    )


def linux_steps(
    kb: KnowledgeBase, os: str, cuda: Optional[Version], cudnn: Optional[Version]
) -> tuple[str, ...]:
    """Linux and WSL2: the toolkit (runfile or NVIDIA's repository package), cuDNN, the
    variables and the check."""
    if cuda is None:
        return ()
    manual = kb.linux_manual
    found = manual.runfile(cuda)
    folder = f"/usr/local/cuda-{cuda.major}.{cuda.minor}"
    package = manual.toolkit_package(cuda)
    wsl = system(os).is_wsl2
    driver = (
        "NVIDIA driver: on WSL2 the Windows driver serves Linux too: install nothing driver-"
        "related inside WSL2 (no runfile driver, no cuda-drivers package)."
        if wsl
        else "NVIDIA driver: keep the installed one if it meets the floor above; otherwise "
        "install a newer one from your distribution or NVIDIA first."
    )
    options = " ".join(manual.runfile_options)
    if found is None:
        toolkit = (
            f"CUDA Toolkit {cuda}: the runfile is not recorded here (unknown); take it from "
            f"{_ARCHIVE} and run it with {options} (toolkit only), or install NVIDIA's "
            f"repository package {package}."
        )
    else:
        bundled = (
            f"; it bundles driver {found.bundled_driver}, which --toolkit leaves out"
            if found.bundled_driver
            else ""
        )
        toolkit = (
            f"CUDA Toolkit {found.version}: download {found.installer} from {found.url} "
            f"(archive page {found.archive_page}{bundled}) and run "
            f"{command(['sudo', 'sh', found.installer, *manual.runfile_options], 'posix')} "
            f"(toolkit only, into {folder}); or install NVIDIA's repository package {package} "
            f"(never the cuda or cuda-drivers meta-package{' on WSL2' if wsl else ''})."
        )
    steps = [driver, toolkit]
    if cudnn is not None:
        steps.append(
            f"cuDNN {cudnn} for CUDA {cuda.major}: NVIDIA's repository package "
            f"libcudnn{cudnn.major} pinned to a {cudnn} version built for CUDA "
            f"{cuda.major}.{cuda.minor} (TensorFlow's own Dockerfile pins e.g. "
            f"{manual.cudnn_example}), or the tar archive from {_CUDNN_ARCHIVE}: its "
            f"include/cudnn*.h into {folder}/include and its libcudnn* files into {folder}/lib64."
        )
    steps.append(
        f"Set the variables below ({folder}/lib64 on LD_LIBRARY_PATH, {folder}/bin on PATH): "
        "activate-tfenv.sh, which --emit writes, sets them; source it in each new shell."
    )
    steps.append("Install TensorFlow with the commands under Install.")
    check = command(list(kb.windows_manual.verify), "posix")
    steps.append(f"Verify: {check} lists a PhysicalDevice with device_type='GPU'.")
    return tuple(steps)
