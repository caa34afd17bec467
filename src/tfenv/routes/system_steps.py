"""The ``system`` route's manual part, step by step: the CUDA Toolkit and cuDNN installed by
hand, as the guides give it, from the facts of ``nvidia/windows_manual.yaml`` (native
Windows) and the plan's versions. A fact that is not recorded is said to be unknown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.i18n import N_, _
from tfenv.kb.prose import prose
from tfenv.models.plan import verify_command
from tfenv.models.platform import system
from tfenv.routes.powershell import execution_policy_step
from tfenv.shells import command

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.windows_manual import CudaInstaller, WindowsManual

__all__ = ["INSTALL_STEPS", "linux_steps", "windows_env", "windows_steps"]

# the step that installs TensorFlow itself (the templates, English; tfenv install does it and
# what follows, so it finds it among a plan's steps in any language: install/steps.py)
_INSTALL = N_("Install TensorFlow with the commands under Install.")
_INSTALL_WINDOWS = N_(
    "Install TensorFlow with the commands under Install, in a new terminal (so that PATH "
    "holds the folders above) and in an environment of {which} (64-bit): for example "
    "{create} run by that Python (python --version shows which one PATH gives), "
    "then activate it with {cmd} in cmd.exe or "
    "{powershell} in PowerShell; its interpreter is {interpreter}."
)
INSTALL_STEPS = (_INSTALL, _INSTALL_WINDOWS)

_ARCHIVE = N_("NVIDIA's CUDA Toolkit archive (https://developer.nvidia.com/cuda-toolkit-archive)")
_CUDNN_ARCHIVE = N_("NVIDIA's cuDNN archive (https://developer.nvidia.com/rdp/cudnn-archive)")


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
    folder = (
        found.folder
        if found
        else _("the toolkit's folder (v{series})").format(series=f"{cuda.major}.{cuda.minor}")
    )
    if cudnn is not None:
        steps.append(_cudnn_step(manual, cuda, cudnn, folder))
    steps.append(
        _(
            "PATH: put {folder}\\bin and {folder}\\extras\\CUPTI\\lib64 (and cuDNN's bin folder "
            "if you kept it apart) on PATH, before any other CUDA version's bin folder: the "
            "installer adds the bin folder to the system PATH; activate-tfenv.bat (cmd.exe) and "
            "activate-tfenv.ps1 (PowerShell), which --emit writes, set all of them for one "
            "session. Open a new terminal afterwards."
        ).format(folder=folder)
    )
    if manual.needs_redist(tf):
        steps.append(
            _(
                "Install the {redist} from {url}: TensorFlow {tf} needs {dlls} on PATH "
                "(its import fails with 'Could not find the DLL(s)' or 'DLL load failed' "
                "otherwise)."
            ).format(
                redist=manual.redist_name,
                url=manual.redist_url,
                tf=tf,
                dlls=", ".join(manual.runtime_dlls(tf)),
            )
        )
    if manual.needs_zlib(cudnn):
        steps.append(
            _("Put {dll} on PATH (next to cuDNN's DLLs): {note}").format(
                dll=manual.zlib_dll, note=prose(manual, "zlib_note")
            )
        )
    steps.append(execution_policy_step(kb.conda.execution_policy))  # for Activate.ps1
    steps.append(_install_step(manual, tf, python))
    steps.append(_verify_step(manual, tf))
    return tuple(steps)


def _install_step(manual: WindowsManual, tf: Version, python: Optional[Version]) -> str:
    """In a new terminal (so that PATH holds the folders above), in a venv of the plan's
    Python: its interpreter is Scripts\\python.exe, activated per shell."""
    venv = manual.venv(python, f"tf-{tf}")
    which = f"Python {python.major}.{python.minor}" if python else _("the plan's Python")
    return _(_INSTALL_WINDOWS).format(
        which=which,
        create=venv["create"],
        cmd=venv["cmd"],
        powershell=venv["powershell"],
        interpreter=venv["interpreter"],
    )


def _driver_step(found: Optional[CudaInstaller]) -> str:
    if found and found.bundled_driver:
        return _(
            "NVIDIA driver: keep the installed one if it meets the floor above; otherwise install "
            "the newest driver for your GPU from NVIDIA's driver page, with 'Custom (Advanced)' > "
            "'Perform a clean installation' when replacing an old one, and restart (the toolkit "
            "installer bundles driver {driver}, usually older than the one your GPU needs)."
        ).format(driver=found.bundled_driver)
    return _(
        "NVIDIA driver: keep the installed one if it meets the floor above; otherwise install "
        "the newest driver for your GPU from NVIDIA's driver page, with 'Custom (Advanced)' > "
        "'Perform a clean installation' when replacing an old one, and restart."
    )


def _cuda_step(found: Optional[CudaInstaller], cuda: Version) -> str:
    if found is None:
        return _(
            "CUDA Toolkit {cuda}: the installer is not recorded here (unknown); take the "
            "Windows local installer of {cuda} from {archive}, choose 'Custom (Advanced)' "
            "and untick the driver components."
        ).format(cuda=cuda, archive=_(_ARCHIVE))
    return _(
        "CUDA Toolkit {version}: download {installer} from {url} "
        "(archive page {page}); run it, choose 'Custom (Advanced)' and untick "
        "'Driver components' (and GeForce Experience, PhysX), so that the driver of step 1 "
        "stays. It installs to {folder} and sets CUDA_PATH and {variable}."
    ).format(
        version=found.version,
        installer=found.installer,
        url=found.url,
        page=found.archive_page,
        folder=found.folder,
        variable=found.path_variable,
    )


def _cudnn_step(manual: WindowsManual, cuda: Version, cudnn: Version, folder: str) -> str:
    found = manual.archive(cuda, cudnn)
    copy = _(
        "Unzip it and copy cuda\\bin\\*.dll into {folder}\\bin, cuda\\include\\*.h "
        "into {folder}\\include and cuda\\lib\\x64\\*.lib into {folder}\\lib\\x64 (or keep "
        "the unzipped folder apart, e.g. {apart}, and add its bin folder to PATH)."
    ).format(folder=folder, apart=manual.cudnn_apart)
    if found is None:
        return _(
            "cuDNN {cudnn} for CUDA {cuda}: the archive is not recorded here (unknown); take "
            "the Windows zip from {archive}. {copy}"
        ).format(
            cudnn=cudnn, cuda=f"{cuda.major}.{cuda.minor}", archive=_(_CUDNN_ARCHIVE), copy=copy
        )
    if found.sha256:
        return _(
            "cuDNN {version} for CUDA {cuda}: download {archive} from {url} (an NVIDIA "
            "developer login is needed, sha256 {sha256}). {copy}"
        ).format(
            version=found.version,
            cuda=found.cuda,
            archive=found.archive,
            url=found.url,
            sha256=found.sha256,
            copy=copy,
        )
    return _(
        "cuDNN {version} for CUDA {cuda}: download {archive} from {url} (an NVIDIA "
        "developer login is needed). {copy}"
    ).format(
        version=found.version, cuda=found.cuda, archive=found.archive, url=found.url, copy=copy
    )


def _verify_step(manual: WindowsManual, tf: Version) -> str:
    check = verify_command("cuda")  # the plan's Verify command, the same in every shell
    dlls = manual.dlls_for(tf)
    text = _(
        "Verify: {check} lists a PhysicalDevice with device_type='GPU'; only the CPU means "
        "a DLL was not found ('tfenv doctor' names the missing ones and their folder)."
    ).format(check=check)
    if not dlls:
        return text
    loads = _("It loads {dlls} from PATH.").format(dlls=", ".join(dlls.cuda + dlls.cudnn))
    return _("{sentence} {more}").format(sentence=text, more=loads)


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
        _(
            "NVIDIA driver: on WSL2 the Windows driver serves Linux too: install nothing driver-"
            "related inside WSL2 (no runfile driver, no cuda-drivers package)."
        )
        if wsl
        else _(
            "NVIDIA driver: keep the installed one if it meets the floor above; otherwise "
            "install a newer one from your distribution or NVIDIA first."
        )
    )
    options = " ".join(manual.runfile_options)
    if found is None:
        toolkit = _(
            "CUDA Toolkit {cuda}: the runfile is not recorded here (unknown); take it from "
            "{archive} and run it with {options} (toolkit only), or install NVIDIA's "
            "repository package {package}."
        ).format(cuda=cuda, archive=_(_ARCHIVE), options=options, package=package)
    else:
        page = (
            _("archive page {page}; it bundles driver {driver}, which --toolkit leaves out").format(
                page=found.archive_page, driver=found.bundled_driver
            )
            if found.bundled_driver
            else _("archive page {page}").format(page=found.archive_page)
        )
        run = command(["sudo", "sh", found.installer, *manual.runfile_options], "posix")
        template = (
            _(
                "CUDA Toolkit {version}: download {installer} from {url} ({page}) and run "
                "{run} (toolkit only, into {folder}); or install NVIDIA's repository package "
                "{package} (never the cuda or cuda-drivers meta-package on WSL2)."
            )
            if wsl
            else _(
                "CUDA Toolkit {version}: download {installer} from {url} ({page}) and run "
                "{run} (toolkit only, into {folder}); or install NVIDIA's repository package "
                "{package} (never the cuda or cuda-drivers meta-package)."
            )
        )
        toolkit = template.format(
            version=found.version,
            installer=found.installer,
            url=found.url,
            page=page,
            run=run,
            folder=folder,
            package=package,
        )
    steps = [driver, toolkit]
    if cudnn is not None:
        steps.append(
            _(
                "cuDNN {cudnn} for CUDA {major}: NVIDIA's repository package "
                "libcudnn{cudnn_major} pinned to a {cudnn} version built for CUDA "
                "{series} (TensorFlow's own Dockerfile pins e.g. "
                "{example}), or the tar archive from {archive}: its "
                "include/cudnn*.h into {folder}/include and its libcudnn* files into "
                "{folder}/lib64."
            ).format(
                cudnn=cudnn,
                major=cuda.major,
                cudnn_major=cudnn.major,
                series=f"{cuda.major}.{cuda.minor}",
                example=manual.cudnn_example,
                archive=_(_CUDNN_ARCHIVE),
                folder=folder,
            )
        )
    steps.append(
        _(
            "Set the variables below ({folder}/lib64 on LD_LIBRARY_PATH, {folder}/bin on PATH): "
            "activate-tfenv.sh, which --emit writes, sets them; source it in each new shell."
        ).format(folder=folder)
    )
    steps.append(_(_INSTALL))
    steps.append(
        _("Verify: {check} lists a PhysicalDevice with device_type='GPU'.").format(
            check=verify_command("cuda")
        )
    )
    return tuple(steps)
