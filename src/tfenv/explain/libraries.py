"""Answers about libraries: a CUDA or cuDNN DLL or .so, cuDNN versions, NVRTC, glibc."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from packaging.version import InvalidVersion, Version

from tfenv.explain.common import (
    and_cuda_pin,
    builds_with_cuda,
    builds_with_cudnn,
    driver_facts,
    driver_os,
    lowest_wheel,
    pip_command,
    series_list,
)
from tfenv.explain.context import Answer, Context
from tfenv.i18n import _
from tfenv.kb.prose import prose
from tfenv.models.platform import DriverOs, os_title, per_driver_os

if TYPE_CHECKING:
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.tensorflow import TfBuild

__all__ = ["ANSWERS", "cudnn_version", "windows_facts", "windows_gpu_end"]

_DLL = re.compile(r"(?P<name>[a-z]+)64_(?P<code>\d+)\.dll", re.IGNORECASE)
_SONAME = re.compile(r"lib(?P<name>[a-zA-Z]+)(?:_\w+)?\.so(?:\.(?P<ver>\d+(?:\.\d+)*))?")


def _cuda_from_dll_code(code: str) -> Optional[Version]:
    """``110`` -> 11.0, ``101`` -> 10.1, ``80`` -> 8.0, and a major alone where the library
    is named by it (``cublas64_10.dll``: CUDA 10.x, ``cudart64_12.dll``: 12.x)."""
    if len(code) == 3:
        return Version(f"{code[:2]}.{code[2]}")
    if len(code) == 2:
        return Version(code) if code.startswith("1") else Version(f"{code[0]}.{code[1]}")
    return None


def windows_gpu_end(kb: KnowledgeBase) -> Optional[TfBuild]:
    """The last series with a native-Windows GPU build."""
    gpu = [b for b in kb.builds if "windows_x86_64" in b.gpu_platforms]
    return max(gpu, key=lambda b: b.series) if gpu else None


def _cuda_facts(ctx: Context, file: str, cuda: Version, os: DriverOs) -> list[str]:
    major_only = len(cuda.release) == 1
    family = f"{cuda.major}.x" if cuda.major >= 11 or major_only else str(cuda)
    label = os_title(os)
    builds = builds_with_cuda(ctx.kb, cuda, os)
    if major_only:
        what = _("{file} is a CUDA {family} library (CUDA {family} names it so).")
    else:
        what = _("{file} is the CUDA {cuda} library (CUDA {family} names it so).")
    facts = [
        what.format(file=file, family=family, cuda=cuda),
        _("TensorFlow series built with CUDA {family} ({system}): {series}.").format(
            family=family, system=label, series=series_list(builds)
        ),
    ]
    dos: DriverOs = per_driver_os(os, driver_os(ctx) or "linux", "windows")
    if not major_only or cuda.major >= 11:
        facts += driver_facts(ctx, cuda, dos)
    return facts


def windows_facts(ctx: Context) -> tuple[list[str], Optional[str]]:
    """Native Windows: where GPU builds end, and what the TensorFlow at hand needs there."""
    last = windows_gpu_end(ctx.kb)
    if last is None or last.windows is None:
        return [], None
    facts = [
        _(
            "Native-Windows GPU builds end with TensorFlow {series} (CUDA {cuda}, "
            "cuDNN {cudnn}); later releases run on the CPU on native Windows."
        ).format(series=last.series, cuda=last.windows.cuda, cudnn=last.windows.cudnn)
    ]
    tf, build = ctx.tf, ctx.build()
    if tf is not None and Version(f"{tf.major}.{tf.minor}") > last.series:
        facts.append(
            _(
                "This environment has TensorFlow {tf}: on native Windows it never uses the GPU; "
                "use WSL2 with tensorflow[and-cuda] for the GPU."
            ).format(tf=tf)
        )
    elif build is not None and build.windows is not None and build.windows.cuda is not None:
        wb = build.windows
        facts.append(
            _("TensorFlow {tf} on native Windows needs CUDA {cuda} and cuDNN {cudnn}.").format(
                tf=tf, cuda=wb.cuda, cudnn=wb.cudnn
            )
        )
        return facts, _(
            "Install CUDA {cuda} and cuDNN {cudnn} (what TensorFlow {tf} is built with) "
            "and put their bin folders on PATH (or os.add_dll_directory before importing "
            "TensorFlow); or accept the CPU."
        ).format(cuda=wb.cuda, cudnn=wb.cudnn, tf=tf)
    fix = _(
        "For the GPU on native Windows use TensorFlow {series} with CUDA "
        "{cuda} and cuDNN {cudnn} (their bin folders on PATH, or "
        "os.add_dll_directory before importing TensorFlow); for newer releases use WSL2 with "
        "`{command}`."
    ).format(
        series=last.series,
        cuda=last.windows.cuda,
        cudnn=last.windows.cudnn,
        command=pip_command(ctx, "tensorflow[and-cuda]", os="wsl2"),
    )
    return facts, fix


def _dll(groups: Mapping[str, str], ctx: Context) -> Answer:
    m = _DLL.search(groups["dll"])
    if m is None:
        return Answer()
    name, code = m.group("name").lower(), m.group("code")
    facts: list[str] = []
    if name == "cudnn":
        builds = builds_with_cudnn(ctx.kb, int(code), "windows")
        facts = [
            _("{file} is cuDNN {major}.x.").format(file=groups["dll"], major=code),
            _("TensorFlow series built with cuDNN {major} ({system}): {series}.").format(
                major=code, system=os_title("windows"), series=series_list(builds)
            ),
        ]
    else:
        cuda = _cuda_from_dll_code(code)
        if cuda is not None:
            facts = _cuda_facts(ctx, groups["dll"], cuda, "windows")
    more, fix = windows_facts(ctx)
    return Answer(tuple(facts + more), fix)


def _soname(groups: Mapping[str, str], ctx: Context) -> Answer:
    m = _SONAME.search(groups["soname"])
    if m is None or not m.group("ver"):
        return Answer()
    name, ver = m.group("name"), m.group("ver")
    try:
        v = Version(ver)
    except InvalidVersion:
        return Answer()
    if name == "cudnn":
        builds = builds_with_cudnn(ctx.kb, v.major, "linux")
        facts = [
            _("{file} is cuDNN {major}.x.").format(file=groups["soname"], major=v.major),
            _("TensorFlow series built with cuDNN {major} ({system}): {series}.").format(
                major=v.major, system=os_title("linux"), series=series_list(builds)
            ),
        ]
        return Answer(tuple(facts + _wants(ctx, "cudnn", v)), _pip_fix(ctx))
    if name in ("cudart", "cublas", "cublasLt") and (v.major >= 11 or len(v.release) > 1):
        facts = _cuda_facts(ctx, groups["soname"], v, "linux") + _wants(ctx, "cuda", v)
        return Answer(tuple(facts), _pip_fix(ctx))
    return Answer()


def _wants(ctx: Context, kind: str, named: Version) -> list[str]:
    """What the TensorFlow at hand loads instead of (or as) the library the text names."""
    build, tf = ctx.build(), ctx.tf
    cb = build.linux if build is not None else None
    have = (cb.cudnn if kind == "cudnn" else cb.cuda) if cb is not None else None
    if tf is None or cb is None or have is None:
        return []
    what = "cuDNN" if kind == "cudnn" else "CUDA"
    values = {"tf": tf, "what": what, "have": have, "major": have.major, "named": named.major}
    if have.major == named.major:
        return [
            _(
                "TensorFlow {tf} is built with {what} {have}: this is the library it loads; it "
                "is not installed where the loader looks."
            ).format(**values)
        ]
    return [
        _(
            "TensorFlow {tf} is built with {what} {have} and loads {what} {major} libraries, "
            "not {what} {named}: the file named comes from another TensorFlow (an older "
            "install, another environment) or that TensorFlow is not the one imported."
        ).format(**values)
    ]


def _pip_fix(ctx: Context) -> Optional[str]:
    """The install that brings the libraries of the TensorFlow at hand (None: not known)."""
    tf = ctx.tf
    if tf is None or ctx.kb.index.release("tensorflow", tf) is None:
        return None
    return _(
        "`{command}` brings the CUDA libraries TensorFlow {tf} was built with (`tfenv resolve "
        "--tf {tf} --emit DIR` pins them and writes activate-tfenv.sh, which puts them on the "
        "loader path); `tfenv doctor` shows which library is found where."
    ).format(command=pip_command(ctx, f"tensorflow[and-cuda]=={tf}"), tf=tf)


def cudnn_version(text: str) -> Optional[Version]:
    """A cuDNN version as TensorFlow prints it: ``8.6.0`` (a sentence's full stop dropped),
    or TensorFlow 1.x's integer, major*1000 + minor*100 + patch (``5110`` = 5.1.10)."""
    text = text.rstrip(".")
    if text.isdigit():
        n = int(text)
        if len(text) == 4:
            return Version(f"{n // 1000}.{n % 1000 // 100}.{n % 100}")
        if len(text) == 5:  # cuDNN 9: major*10000 + minor*100 + patch
            return Version(f"{n // 10000}.{n % 10000 // 100}.{n % 100}")
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _cudnn_pair(groups: Mapping[str, str], ctx: Context) -> Answer:
    loaded, compiled = cudnn_version(groups["loaded"]), cudnn_version(groups["compiled"])
    if loaded is None or compiled is None:
        return Answer()
    if loaded < compiled:
        said = _(
            "cuDNN {loaded} was loaded; this TensorFlow was built with cuDNN {compiled}: the "
            "loaded one is older than the build's (it needs the same major and an equal or "
            "newer minor)."
        )
    else:
        said = _(
            "cuDNN {loaded} was loaded; this TensorFlow was built with cuDNN {compiled}: the "
            "loaded one is not the same major as the build's (it needs the same major and an "
            "equal or newer minor)."
        )
    facts = [said.format(loaded=loaded, compiled=compiled)]
    mm = Version(f"{compiled.major}.{compiled.minor}")
    builds = [
        b
        for b in ctx.kb.builds
        if b.linux is not None
        and b.linux.cudnn is not None
        and (b.linux.cudnn.major, b.linux.cudnn.minor) == (mm.major, mm.minor)
    ]
    if builds:
        facts.append(
            _("TensorFlow series built with cuDNN {major} ({system}): {series}.").format(
                major=mm, system=os_title("linux"), series=series_list(builds)
            )
        )
    cuda = builds[-1].linux.cuda if builds and builds[-1].linux is not None else None
    wheel = ctx.kb.and_cuda.wheel("cudnn", cuda.major) if cuda is not None else None
    found = None
    if wheel is not None:
        found = lowest_wheel(ctx.kb, wheel, compiled, ctx.platform or "linux_x86_64")
    if wheel is not None and found is not None:
        fix = _(
            "Install cuDNN {major}.x at {compiled} or newer (same major {major}), e.g. "
            "`{command}`, and make it the first copy on the loader path (`tfenv doctor` shows "
            "which copy is loaded from where)."
        )
        command = pip_command(ctx, f"{wheel}=={found}")
    else:
        fix = _(
            "Install cuDNN {major}.x at {compiled} or newer (same major {major}), and make it "
            "the first copy on the loader path (`tfenv doctor` shows which copy is loaded from "
            "where)."
        )
        command = ""
    return Answer(
        tuple(facts), fix.format(major=compiled.major, compiled=compiled, command=command)
    )


def _nvrtc(groups: Mapping[str, str], ctx: Context) -> Answer:
    lib, missing = groups.get("cudnn_lib", "cuDNN"), groups.get("missing", "")
    if missing.startswith("libcuda"):
        return Answer(
            (
                _(
                    "cuDNN is installed: {lib} itself printed this. What it cannot open is "
                    "{missing}, the driver library under its unversioned name; the driver "
                    "installs libcuda.so.1, and the unversioned link comes with the driver's "
                    "development files (on WSL2 both live in /usr/lib/wsl/lib)."
                ).format(lib=lib, missing=missing),
            ),
            _(
                "Make libcuda.so findable: on WSL2 add /usr/lib/wsl/lib to LD_LIBRARY_PATH; "
                "elsewhere link it next to the driver's libcuda.so.1 (ln -s libcuda.so.1 "
                "libcuda.so in that folder) or install the driver's development package. "
                "Reinstalling cuDNN does not help."
            ),
        )
    facts = [
        _("{lib} (cuDNN) is installed and loaded; it cannot open {missing}.").format(
            lib=lib, missing=missing or "libnvrtc.so"
        )
    ]
    pin = None
    build = ctx.build()
    if build is not None and build.linux is not None and build.linux.cuda is not None:
        nvrtc = ctx.kb.and_cuda.wheel("cuda-nvrtc", build.linux.cuda.major)
        pin = and_cuda_pin(ctx, nvrtc) if nvrtc is not None else None
    if pin is not None:
        fix = _(
            "Install NVRTC's development files (the toolkit's cuda-nvrtc-dev package, or the "
            "CUDA -devel container image instead of -runtime), or link libnvrtc.so to the "
            "versioned file in its folder (ln -s libnvrtc.so.12 libnvrtc.so). For pip: "
            "`{command}` (what TensorFlow {tf} pins) and the link. Reinstalling cuDNN does not "
            "help."
        ).format(command=pip_command(ctx, pin), tf=ctx.tf)
    else:
        fix = _(
            "Install NVRTC's development files (the toolkit's cuda-nvrtc-dev package, or the "
            "CUDA -devel container image instead of -runtime), or link libnvrtc.so to the "
            "versioned file in its folder (ln -s libnvrtc.so.12 libnvrtc.so). Reinstalling "
            "cuDNN does not help."
        )
    return Answer(tuple(facts), fix)


def _glibc(groups: Mapping[str, str], ctx: Context) -> Answer:
    facts = [_("The wheel needs glibc {glibc} or newer.").format(glibc=groups["glibc"])]
    m = ctx.machine
    if m is not None and m.glibc is not None:
        facts.append(_("This machine has glibc {glibc}.").format(glibc=m.glibc))
    return Answer(tuple(facts))


#: TensorFlow's own log line: ``Loaded cuDNN version 8700`` (CUDNN_VERSION of cuDNN 8 is
#: major * 1000 + minor * 100 + patch, cudnn_version.h)
_LOADED_CUDNN = re.compile(r"Loaded cuDNN version (\d{4})\b")


def _zlib(groups: Mapping[str, str], ctx: Context) -> Answer:
    """zlibwapi.dll (cuDNN 8.3-8.9 on Windows): the fact from NVIDIA's guide, the cuDNN the
    log says was loaded, and what the TensorFlow at hand was built with."""
    manual = ctx.kb.windows_manual
    dll = manual.zlib_dll
    where = manual.zlib_provenance
    facts = [
        _("{note} (source: {source}, read {retrieved})").format(
            note=prose(manual, "zlib_note"), source=where.sources[0], retrieved=where.retrieved
        )
    ]
    loaded = _LOADED_CUDNN.search(ctx.text)
    if loaded is not None:
        code = int(loaded.group(1))
        cudnn = Version(f"{code // 1000}.{code % 1000 // 100}.{code % 100}")
        if manual.needs_zlib(cudnn):
            said = _("The log says cuDNN {cudnn} was loaded, which needs {dll}.")
        else:
            said = _("The log says cuDNN {cudnn} was loaded, which does not need {dll}.")
        facts.append(said.format(cudnn=cudnn, dll=dll))
    build, tf = ctx.build(), ctx.tf
    wb = build.windows if build is not None else None
    folder = _("the folder that holds cudnn64_8.dll")
    if wb is not None and wb.cuda is not None and wb.cudnn is not None:
        installer = manual.installer(wb.cuda)
        if installer is not None:
            folder = f"{installer.folder}\\bin"
        facts.append(
            _(
                "TensorFlow {tf} was built with cuDNN {cudnn}, which does not need {dll}; a "
                "later cuDNN 8.x put in its place does."
            ).format(tf=tf, cudnn=wb.cudnn, dll=dll)
        )
    fix = _(
        "Put the 64-bit {dll} into a folder on PATH ({folder}, next to cuDNN's DLLs), and "
        "cuDNN's whole bin folder on PATH; then open a new terminal. `tfenv doctor` checks the "
        "DLLs along PATH and reads cuDNN's version from its headers."
    ).format(dll=dll, folder=folder)
    return Answer(tuple(facts), fix)


ANSWERS = {
    "zlib": _zlib,
    "dll": _dll,
    "soname": _soname,
    "cudnn-pair": _cudnn_pair,
    "nvrtc": _nvrtc,
    "glibc": _glibc,
}
