"""The ``system`` route's manual part, step by step: the CUDA Toolkit and cuDNN installed by
hand, as the guides give it, from the facts of ``nvidia/windows_manual.yaml`` (native
Windows) and the plan's versions. A fact that is not recorded is said to be unknown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

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
    from tfenv.kb.windows_manual import TOOLKIT_ROOT

    found = kb.windows_manual.installer(cuda)
    base = found.folder if found else f"{TOOLKIT_ROOT}\\v{cuda.major}.{cuda.minor}"
    return (
        ("CUDA_PATH", base),
        (f"CUDA_PATH_V{cuda.major}_{cuda.minor}", base),
        ("PATH", f"{base}\\bin;{base}\\extras\\CUPTI\\lib64;%PATH%"),
    )


def windows_steps(
    kb: KnowledgeBase, tf: Version, cuda: Optional[Version], cudnn: Optional[Version]
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
    steps.append("Install TensorFlow with the commands under Install, in a new terminal.")
    steps.append(_verify_step(manual, tf))
    return tuple(steps)


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
        "the unzipped folder apart, e.g. C:\\tools\\cuda, and add its bin folder to PATH)."
    )


def _verify_step(manual: WindowsManual, tf: Version) -> str:
    check = command(list(manual.verify), "windows")
    dlls = manual.dlls_for(tf)
    listed = f" It loads {', '.join(dlls.cuda + dlls.cudnn)} from PATH." if dlls else ""
    return (
        f"Verify: {check} prints one PhysicalDevice of type 'GPU'; an empty list means a DLL "
        f"was not found ('tfenv doctor' names the missing ones and their folder).{listed}"
    )


def linux_steps(cuda: Optional[Version], cudnn: Optional[Version]) -> tuple[str, ...]:
    """Linux and WSL2: the toolkit and cuDNN from NVIDIA (the installer names are not
    recorded for Linux yet: the archive pages are named instead)."""
    if cuda is None:
        return ()
    steps = [
        f"Install the CUDA Toolkit {cuda} from {_ARCHIVE} (the runfile, or NVIDIA's "
        "repository packages; on WSL2 the toolkit only, never a Linux driver)."
    ]
    if cudnn is not None:
        steps.append(f"Install cuDNN {cudnn} for CUDA {cuda.major} from {_CUDNN_ARCHIVE}.")
    steps.append("Set the variables below (activate-tfenv.sh, which --emit writes, sets them).")
    return tuple(steps)
