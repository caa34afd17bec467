"""ptxas and libdevice, which XLA needs to compile GPU kernels.

Where XLA looks, in order, depends on the release (``xla_search`` in
``tensorflow/and_cuda.yaml``, read from TensorFlow's sources and its wheels): the folder
``XLA_FLAGS=--xla_gpu_cuda_data_dir`` names, PATH (for ptxas; before 2.16 even first), the
build machine's ``/usr/local/cuda-X.Y``, ``/usr/local/cuda``, and from 2.14
``site-packages/nvidia/cuda_nvcc`` (the nvidia-cuda-nvcc wheel). The first found wins, so
an older or newer ptxas on PATH is used instead of the wheel's: that is what the finding
names.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.doctor.findings import Finding
from tfenv.i18n import N_, _
from tfenv.models.sentence import Sentence, said

if TYPE_CHECKING:
    from tfenv.kb.cuda_wheels import XlaSearch

__all__ = ["CUDA_HOME", "check_xla", "ptxas_version"]

_DATA_DIR = re.compile(r"--xla_gpu_cuda_data_dir=(?P<dir>\S+)")
_RELEASE = re.compile(r"release (?P<mm>\d+\.\d+), V(?P<full>[\d.]+)")
CUDA_HOME = Path("/usr/local/cuda")  # where XLA looks for a CUDA folder by default
_LIBDEVICE = Path("nvvm") / "libdevice" / "libdevice.10.bc"
# where XLA looks, in words (English: translated where shown, _place)
_PLACE_NAMES = {
    "xla_flags": N_("the XLA_FLAGS folder"),
    "path": "PATH",
    "build_toolkit": N_("the build's CUDA folder"),
    "cuda_home": "/usr/local/cuda",
    "pip_nvcc": N_("the nvidia-cuda-nvcc wheel"),
}


def _place(place: str) -> str:
    return _(_PLACE_NAMES[place])


def data_dir(environ: Mapping[str, str]) -> Optional[Path]:
    m = _DATA_DIR.search(environ.get("XLA_FLAGS", ""))
    return Path(m.group("dir")) if m else None


def ptxas_version(path: Path, timeout: float = 10.0) -> Optional[Version]:
    from tfenv import procs

    try:
        out = procs.run([str(path), "--version"], timeout=timeout, errors="replace").stdout
    except (OSError, subprocess.SubprocessError, procs.Stopping):
        return None
    m = _RELEASE.search(out)
    return Version(m.group("mm")) if m else None


@dataclass(frozen=True)
class Search:
    """What XLA searches on this machine for one release."""

    environ: Mapping[str, str]
    site: Sequence[Path]
    cuda_home: Path
    places: tuple[str, ...]
    build_cuda: Optional[Version] = None  # the build's CUDA (its /usr/local/cuda-X.Y)

    def folders(self, place: str, tool: str) -> list[Path]:
        """The folders of one place: where ``tool`` ("ptxas" or "libdevice") would be."""
        sub = "bin" if tool == "ptxas" else ""
        roots: list[Path] = []
        if place == "xla_flags":
            dd = data_dir(self.environ)
            roots = [dd] if dd is not None else []
        elif place == "path":
            return [Path(p) for p in self.environ.get("PATH", "").split(":") if p]
        elif place == "build_toolkit" and self.build_cuda is not None:
            mm = f"{self.build_cuda.major}.{self.build_cuda.minor}"
            roots = [self.cuda_home.parent / f"{self.cuda_home.name}-{mm}"]  # /usr/local/cuda-X.Y
        elif place == "cuda_home":
            roots = [self.cuda_home]
        elif place == "pip_nvcc":
            roots = pip_nvcc(self.site)
        return [r / sub if sub else r for r in roots]


def pip_nvcc(site: Sequence[Path]) -> list[Path]:
    return [s / "nvidia" / "cuda_nvcc" for s in site if (s / "nvidia" / "cuda_nvcc").is_dir()]


def _ptxas_candidates(search: Search) -> list[tuple[Path, str]]:
    out: list[tuple[Path, str]] = []
    for place in search.places:
        out += [(folder / "ptxas", place) for folder in search.folders(place, "ptxas")]
    return out


def check_ptxas(
    search: Search,
    driver_cuda: Optional[Version],
    floor: Optional[Version] = None,
    need: Optional[tuple[Version, Version]] = None,
) -> Finding:
    """``need``: (compute capability, the first CUDA whose ptxas compiles for it)."""
    found, place, version = _first_ptxas(search, floor)
    wheels = [p / "bin" / "ptxas" for p in pip_nvcc(search.site)]
    wheel = next((w for w in wheels if w.is_file()), None)
    if found is None:
        return _no_ptxas(search, wheel)
    if version:
        detail = said(
            "ptxas-where-version",
            _("{path} ({place}), CUDA {version}"),
            path=found,
            place=_place(place),
            version=version,
        )
    else:
        detail = said("ptxas-where", _("{path} ({place})"), path=found, place=_place(place))
    if need is not None and version is not None and version < need[1]:
        return Finding(
            "xla-ptxas",
            "problem",
            said(
                "ptxas-too-old",
                _(
                    "The ptxas XLA finds first is from CUDA {version}: too old for compute "
                    "capability {need} (CUDA {need2} or newer)"
                ),
                version=version,
                need=need[0],
                need2=need[1],
            ),
            said(
                "ptxas-search",
                _("{detail}. XLA looks in: {search}; the first found wins."),
                detail=detail,
                search=_order(search),
            ),
            _first_fix(found, place, wheel)
            if wheel is not None
            else said(
                "fix-ptxas-newer",
                _(
                    "put a ptxas of CUDA {need} or newer first (the nvidia-cuda-nvcc wheel your "
                    "TensorFlow pins), or remove this one from PATH"
                ),
                need=need[1],
            ),
        )
    if wheel is not None and found != wheel:
        mine = ptxas_version(wheel)
        if version is None or mine is None or version != mine:
            return Finding(
                "xla-ptxas",
                "warning",
                said(
                    "ptxas-not-wheel",
                    _(
                        "XLA runs the ptxas {place_names} finds first ({version}), not the "
                        "nvidia-cuda-nvcc wheel's ({mine})"
                    ),
                    place_names=_place(place),
                    version=_cuda(version),
                    mine=_cuda(mine),
                ),
                said(
                    "ptxas-search",
                    _("{detail}. XLA looks in: {search}; the first found wins."),
                    detail=detail,
                    search=_order(search),
                ),
                _first_fix(found, place, wheel),
            )
    if version is not None and driver_cuda is not None and version > driver_cuda:
        return Finding(
            "xla-ptxas",
            "warning",
            said(
                "ptxas-newer-than-driver",
                _("ptxas is from CUDA {version}, newer than the driver's CUDA {driver_cuda}"),
                version=version,
                driver_cuda=driver_cuda,
            ),
            said(
                "ptxas-newer-than-driver-detail",
                _(
                    "{detail}. XLA then links its kernels without the driver, one at a time: "
                    "compilation is slower; the kernels run normally."
                ),
                detail=detail,
            ),
            said(
                "fix-driver-or-nvcc",
                _(
                    "update the NVIDIA driver to one supporting CUDA {version}, or use an "
                    "nvidia-cuda-nvcc no newer than {driver_cuda}"
                ),
                version=version,
                driver_cuda=driver_cuda,
            ),
        )
    return Finding("xla-ptxas", "ok", said("ptxas-ok", _("ptxas found where XLA looks")), detail)


def _cuda(version: Optional[Version]) -> str:
    return f"CUDA {version}" if version is not None else _("version unknown")


def _order(search: Search) -> str:
    return _(", ").join(_place(p) for p in search.places)


def _first_fix(found: Path, place: str, wheel: Path) -> Sentence:
    if place == "path":
        return said(
            "fix-ptxas-path",
            _(
                "remove {found} from PATH, or put {wheel} first on PATH (activate-tfenv.sh from "
                "`tfenv resolve --emit DIR` does)"
            ),
            found=found.parent,
            wheel=wheel.parent,
        )
    if place == "xla_flags":
        return said(
            "fix-xla-flags",
            _("point XLA_FLAGS=--xla_gpu_cuda_data_dir at {folder}"),
            folder=wheel.parent.parent,
        )
    return said(
        "fix-wheel-first",
        _("put {wheel} first on PATH (activate-tfenv.sh from `tfenv resolve --emit DIR` does)"),
        wheel=wheel.parent,
    )


def _first_ptxas(
    search: Search, floor: Optional[Version]
) -> tuple[Optional[Path], str, Optional[Version]]:
    for path, place in _ptxas_candidates(search):
        if not path.is_file():
            continue
        version = ptxas_version(path)
        if floor is not None and version is not None and version < floor:
            continue  # XLA passes it over
        return path, place, version
    return None, "", None


def _no_ptxas(search: Search, wheel: Optional[Path]) -> Finding:
    if wheel is not None:  # installed, but this release does not look there
        nvcc = wheel.parent.parent
        return Finding(
            "xla-ptxas",
            "problem",
            said(
                "ptxas-unreachable",
                _("ptxas is installed (nvidia-cuda-nvcc) but XLA will not find it"),
            ),
            said(
                "ptxas-unreachable-detail",
                _(
                    "{wheel} is not on PATH and XLA_FLAGS does not name its folder; this TensorFlow"
                    " looks only in: {search}."
                ),
                wheel=wheel,
                search=_order(search),
            ),
            said(
                "fix-ptxas-export",
                _("source activate-tfenv.sh from `tfenv resolve --emit DIR`, or {command}"),
                command=_exports(
                    ("PATH", f"{wheel.parent}:$PATH"),
                    ("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={nvcc}"),
                ),
                parent=wheel.parent,
                nvcc=nvcc,
            ),
        )
    return Finding(
        "xla-ptxas",
        "warning",
        said("ptxas-missing", _("ptxas not found: XLA-compiled models (jit_compile) will fail")),
        said("ptxas-missing-detail", _("Looked in: {search}."), search=_order(search)),
        said(
            "fix-install-nvcc",
            _(
                "pip install the nvidia-cuda-nvcc wheel your TensorFlow pins "
                "(tensorflow[and-cuda]) and source activate-tfenv.sh"
            ),
        ),
    )


def check_libdevice(search: Search) -> Finding:
    for place in search.places:
        for root in search.folders(place, "libdevice"):
            if (root / _LIBDEVICE).is_file():
                return Finding(
                    "xla-libdevice",
                    "ok",
                    said("libdevice-ok", _("libdevice found where XLA looks")),
                    said(
                        "libdevice-where",
                        _("{path} ({place})"),
                        path=root / _LIBDEVICE,
                        place=_place(place),
                    ),
                )
    dd = data_dir(search.environ)
    if dd is not None:
        return Finding(
            "xla-libdevice",
            "problem",
            said("libdevice-flags-wrong", _("XLA_FLAGS names a CUDA folder without libdevice")),
            said(
                "libdevice-flags-wrong-detail", _("{value} does not exist."), value=dd / _LIBDEVICE
            ),
            said(
                "fix-libdevice-flags",
                _(
                    "point --xla_gpu_cuda_data_dir at a folder containing nvvm/libdevice "
                    "(site-packages/nvidia/cuda_nvcc for pip installs)"
                ),
            ),
        )
    nvcc = next((p for p in pip_nvcc(search.site) if (p / _LIBDEVICE).is_file()), None)
    if nvcc is not None:  # installed, but this release does not look there
        return Finding(
            "xla-libdevice",
            "problem",
            said(
                "libdevice-unreachable",
                _("libdevice is installed (nvidia-cuda-nvcc) but XLA will not find it"),
            ),
            said(
                "libdevice-unreachable-detail",
                _(
                    "{value} exists, but XLA_FLAGS is not set and this TensorFlow looks only in: "
                    "{search}."
                ),
                value=nvcc / _LIBDEVICE,
                search=_order(search),
            ),
            said(
                "fix-libdevice-export",
                _("source activate-tfenv.sh from `tfenv resolve --emit DIR`, or {command}"),
                command=_exports(("XLA_FLAGS", f"--xla_gpu_cuda_data_dir={nvcc}")),
                nvcc=nvcc,
            ),
        )
    return Finding(
        "xla-libdevice",
        "warning",
        said("libdevice-missing", _("libdevice not found: XLA-compiled models will fail")),
        said(
            "libdevice-missing-detail",
            _("No nvvm/libdevice/libdevice.10.bc in: {search}."),
            search=_order(search),
        ),
        said(
            "fix-install-nvcc-libdevice",
            _("install nvidia-cuda-nvcc (tensorflow[and-cuda]) and source activate-tfenv.sh"),
        ),
    )


def check_xla(
    environ: Mapping[str, str],
    site: Sequence[Path],
    driver_cuda: Optional[Version],
    cuda_home: Path = CUDA_HOME,
    *,
    xla: Optional[XlaSearch] = None,
    tf: Optional[Version] = None,
    build_cuda: Optional[Version] = None,
    need: Optional[tuple[Version, Version]] = None,
) -> list[Finding]:
    """ptxas and libdevice, searched as the release at hand searches them."""
    ptxas_places: tuple[str, ...] = ("xla_flags", "path", "cuda_home")
    libdevice_places: tuple[str, ...] = ("xla_flags", "cuda_home")
    floor = None
    if xla is not None:
        ptxas_places, libdevice_places = xla.places("ptxas", tf), xla.places("libdevice", tf)
        floor = xla.floor_for(tf)
    ptxas = Search(environ, site, cuda_home, ptxas_places, build_cuda)
    libdevice = Search(environ, site, cuda_home, libdevice_places, build_cuda)
    return [check_ptxas(ptxas, driver_cuda, floor, need), check_libdevice(libdevice)]


def _exports(*pairs: tuple[str, str]) -> str:
    """``export NAME="VALUE"; ...`` for a POSIX shell (XLA's checks are Linux's), by
    :func:`tfenv.shells.set_variable`: a folder with a space stays one value."""
    from tfenv.shells import set_variable

    return "; ".join(set_variable(name, value, "posix") for name, value in pairs)
