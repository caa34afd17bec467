"""Native-Windows manual installs (``data/nvidia/windows_manual.yaml``): the CUDA installer and
cuDNN archive per series, the DLLs each TensorFlow release loads, the Visual C++
redistributable, zlibwapi.dll, the JIT cache folder and the final check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.i18n import _
from tfenv.kb._fields import Node, Provenance, unique
from tfenv.kb._files import load_node
from tfenv.kb._schema import (
    TRANSLATED_LANGUAGES,
    Translated,
    Translations,
    read_translations,
)

if TYPE_CHECKING:
    from dataclasses import dataclass, field
    from pathlib import Path

    from tfenv.models.platform import System
else:  # the same records, cheaper to define (see tfenv.models._record)
    from tfenv.models._record import dataclass, field

__all__ = [
    "WINDOWS_MANUAL_FILE",
    "CudaInstaller",
    "CudnnArchive",
    "DllSet",
    "WindowsManual",
    "load",
    "parse_installer",
]

WINDOWS_MANUAL_FILE = "nvidia/windows_manual.yaml"
TOOLKIT_ROOT = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA"
#: the prose fields of WindowsManual (translated beside the English: kb.prose)
_PROSE = ("zlib_note", "cudnn_compat_note")


@dataclass(frozen=True)
class CudaInstaller:
    series: Version
    version: str
    installer: str
    url: str
    bundled_driver: Optional[str]
    archive_page: str
    provenance: Provenance

    @property
    def folder(self) -> str:
        """Where the installer puts the toolkit: ``C:\\Program Files\\...\\CUDA\\v11.2``."""
        return f"{TOOLKIT_ROOT}\\v{self.series}"

    @property
    def path_variable(self) -> str:
        """The variable the installer sets: ``CUDA_PATH_V11_2``."""
        return f"CUDA_PATH_V{self.series.major}_{self.series.minor}"


@dataclass(frozen=True)
class CudnnArchive:
    series: Version
    cuda: Version
    version: str
    archive: str
    url: str
    sha256: Optional[str]
    provenance: Provenance


@dataclass(frozen=True)
class DllSet:
    """What one range of TensorFlow releases loads on Windows, by file name."""

    tensorflow: SpecifierSet
    cuda: tuple[str, ...]
    cudnn: tuple[str, ...]
    cupti: Optional[str]
    msvcp: tuple[str, ...]
    status: str
    provenance: Provenance

    @property
    def required(self) -> tuple[str, ...]:
        """Every DLL the import and the first GPU op need (CUPTI is the profiler's alone)."""
        return (*self.cuda, *self.cudnn, *self.msvcp)


@dataclass(frozen=True)
class WindowsManual:
    cuda: tuple[CudaInstaller, ...]
    cudnn: tuple[CudnnArchive, ...]
    dlls: tuple[DllSet, ...]
    redist_name: str
    redist_url: str
    redist_provides: tuple[str, ...]
    redist_from: Version
    redist_provenance: Provenance
    zlib_dll: str
    zlib_cudnn: SpecifierSet
    zlib_note: str
    zlib_provenance: Provenance
    cudnn_compat_note: str
    cudnn_compat_provenance: Provenance
    toolkit_root: str
    path_entries: tuple[str, ...]
    cudnn_apart: str
    layout_provenance: Provenance
    venv_create: tuple[str, ...]
    venv_interpreter: str
    venv_activate_cmd: str
    venv_activate_powershell: str
    venv_provenance: Provenance
    jit_cache_windows: str
    jit_cache_linux: str
    # the notes' Chinese (each section's ``zh: {note: ...}``), read with kb.prose.prose
    translations: Translations = field(
        default_factory=lambda: Translations(_PROSE), compare=False, repr=False
    )

    def installer(self, cuda: Optional[Version]) -> Optional[CudaInstaller]:
        """The installer of ``cuda``'s series (None: not recorded)."""
        if cuda is None:
            return None
        return next((c for c in self.cuda if _same_series(c.series, cuda)), None)

    def archive(self, cuda: Optional[Version], cudnn: Optional[Version]) -> Optional[CudnnArchive]:
        """The cuDNN archive of ``cudnn``'s series built for ``cuda``'s series."""
        if cuda is None or cudnn is None:
            return None
        for a in self.cudnn:
            if _same_series(a.series, cudnn) and _same_series(a.cuda, cuda):
                return a
        return None

    def dlls_for(self, tf: Version) -> Optional[DllSet]:
        """The DLLs TensorFlow ``tf`` loads on native Windows (None: no GPU build there)."""
        return next((d for d in self.dlls if d.tensorflow.contains(tf, prereleases=True)), None)

    def needs_redist(self, tf: Version) -> bool:
        return Version(tf.base_version) >= self.redist_from

    def runtime_dlls(self, tf: Version) -> tuple[str, ...]:
        """The Visual C++ runtime DLLs ``tf`` needs: its DLL record's (read from the wheel),
        else what the redistributable provides."""
        found = self.dlls_for(tf)
        return found.msvcp if found is not None and found.msvcp else self.redist_provides

    def needs_zlib(self, cudnn: Optional[Version]) -> bool:
        return cudnn is not None and self.zlib_cudnn.contains(cudnn, prereleases=True)

    def venv(self, python: Optional[Version], name: str) -> dict[str, str]:
        """The venv lines for Python ``python`` in folder ``name``: create (the command, as
        cmd.exe and PowerShell both read it), interpreter, cmd (activation in cmd.exe),
        powershell (in PowerShell)."""
        from tfenv.shells import command

        values = {"python": f"{python.major}.{python.minor}" if python else "3", "name": name}
        return {
            "create": command([w.format(**values) for w in self.venv_create], "windows"),
            "interpreter": self.venv_interpreter.format(**values),
            "cmd": self.venv_activate_cmd.format(**values),
            "powershell": self.venv_activate_powershell.format(**values),
        }

    def jit_cache(self, system: System) -> str:
        """The driver's JIT cache folder on ``system`` (native Windows' or any other's)."""
        return self.jit_cache_windows if system.is_windows else self.jit_cache_linux


def _same_series(a: Version, b: Version) -> bool:
    return (a.major, a.minor) == (b.major, b.minor)


def parse_installer(node: Node) -> CudaInstaller:
    """One installer record (shared with ``linux_manual.yaml``'s runfiles)."""
    node.only(
        "series", "version", "installer", "url", "bundled_driver", "archive_page", "source",
        "retrieved",
    )  # fmt: skip
    return CudaInstaller(
        series=node.get("series").version(),
        version=node.get("version").text(),
        installer=node.get("installer").label(),
        url=node.get("url").label(400),
        bundled_driver=node.get("bundled_driver").opt_text(),
        archive_page=node.get("archive_page").label(400),
        provenance=node.provenance(),
    )


def _cudnn(node: Node) -> CudnnArchive:
    node.only("series", "cuda", "version", "archive", "url", "sha256", "source", "retrieved")
    return CudnnArchive(
        series=node.get("series").version(),
        cuda=node.get("cuda").version(),
        version=node.get("version").text(),
        archive=node.get("archive").label(),
        url=node.get("url").label(400),
        sha256=node.get("sha256").opt_text(),
        provenance=node.provenance(),
    )


def _dlls(node: Node) -> DllSet:
    node.only("tensorflow", "cuda", "cudnn", "cupti", "msvcp", "status", "source", "retrieved")
    return DllSet(
        tensorflow=node.get("tensorflow").specifier(empty=False),
        cuda=node.get("cuda").texts(),
        cudnn=node.get("cudnn").texts(),
        cupti=node.get("cupti").opt_text(),
        msvcp=node.get("msvcp").texts(),
        status=node.get("status").choice("established", "inferred"),
        provenance=node.provenance(),
    )


def _template(node: Node) -> None:
    """A venv line names only {python} and {name}."""
    try:
        node.text().format(python="3.10", name="env")
    except (KeyError, IndexError, ValueError) as exc:
        raise node.fail(
            _("a template may name only {{python}} and {{name}} ({exc!r})").format(exc=exc)
        ) from None


def parse(root: Node) -> WindowsManual:
    root.only(
        "cuda",
        "cudnn",
        "dlls",
        "redist",
        "zlib",
        "cudnn_minor_compat",
        "layout",
        "venv",
        "jit_cache",
    )
    cuda = tuple(parse_installer(n) for n in root.get("cuda").items())
    unique(zip(root.get("cuda").items(), (c.series for c in cuda)), "CUDA series")
    redist = root.get("redist").only(
        "name", "provides", "url", "needed_from", "source", "retrieved"
    )
    zlib = root.get("zlib").only("dll", "cudnn", "note", "source", "retrieved", "zh")
    compat = root.get("cudnn_minor_compat").only("note", "source", "retrieved", "zh")
    layout = root.get("layout").only(
        "toolkit_root", "path_entries", "cudnn_apart", "source", "retrieved"
    )
    venv = root.get("venv").only(
        "create", "interpreter", "activate_cmd", "activate_powershell", "source", "retrieved"
    )
    for word in venv.get("create").items():
        _template(word)
    for key in ("interpreter", "activate_cmd", "activate_powershell"):
        _template(venv.get(key))
    jit = root.get("jit_cache").only("windows", "linux", "source", "retrieved")
    jit.provenance()
    return WindowsManual(
        cuda=cuda,
        cudnn=tuple(_cudnn(n) for n in root.get("cudnn").items()),
        dlls=tuple(_dlls(n) for n in root.get("dlls").items()),
        redist_name=redist.get("name").text(),
        redist_url=redist.get("url").label(400),
        redist_provides=redist.get("provides").texts(),
        redist_from=redist.get("needed_from").version(),
        redist_provenance=redist.provenance(),
        zlib_dll=zlib.get("dll").text(),
        zlib_cudnn=zlib.get("cudnn").specifier(empty=False),
        zlib_note=zlib.get("note").text(),
        zlib_provenance=zlib.provenance(),
        cudnn_compat_note=compat.get("note").text(),
        cudnn_compat_provenance=compat.provenance(),
        toolkit_root=layout.get("toolkit_root").text(),
        path_entries=layout.get("path_entries").texts(),
        cudnn_apart=layout.get("cudnn_apart").text(),
        layout_provenance=layout.provenance(),
        venv_create=venv.get("create").texts(),
        venv_interpreter=venv.get("interpreter").text(),
        venv_activate_cmd=venv.get("activate_cmd").text(),
        venv_activate_powershell=venv.get("activate_powershell").text(),
        venv_provenance=venv.provenance(),
        jit_cache_windows=jit.get("windows").text(),
        jit_cache_linux=jit.get("linux").text(),
        translations=_notes_translated(zlib, compat),
    )


def _notes_translated(zlib: Node, compat: Node) -> Translations:
    """The translations of the two notes, read from their sections' ``zh:``."""
    texts: dict[str, dict[str, Translated]] = {language: {} for language in TRANSLATED_LANGUAGES}
    for name, section in zip(_PROSE, (zlib, compat)):
        found = read_translations(section, ("note",))
        for language in TRANSLATED_LANGUAGES:
            text = found.get(language, "note")
            if text is not None:
                texts[language][name] = text
    return Translations(_PROSE, {k: v for k, v in texts.items() if v})


def load(root: Optional[Path] = None) -> WindowsManual:
    """Load ``nvidia/windows_manual.yaml`` from ``root`` (default: the shipped data)."""
    return parse(load_node(WINDOWS_MANUAL_FILE, root))
