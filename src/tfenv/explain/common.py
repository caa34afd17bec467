"""Knowledge-base questions several answers ask."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Optional

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from tfenv.i18n import _
from tfenv.models.driver import DriverVersion
from tfenv.models.platform import os_title

if TYPE_CHECKING:
    from tfenv.explain.context import Context
    from tfenv.kb import KnowledgeBase
    from tfenv.kb.tensorflow import TfBuild
    from tfenv.models.platform import DriverOs

__all__ = [
    "and_cuda_pin",
    "builds_with_cuda",
    "builds_with_cudnn",
    "driver_facts",
    "driver_os",
    "join",
    "lowest_wheel",
    "nvidia_driver",
    "pip_command",
    "series_list",
    "shell_command",
    "shell_word",
    "span",
    "version_or_none",
]


def version_or_none(text: Optional[str]) -> Optional[Version]:
    if not text:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def series_list(builds: Iterable[TfBuild]) -> str:
    return ", ".join(str(b.series) for b in builds) or _("none")


def span(versions: Sequence[Version]) -> str:
    """ "2.12-2.15" for consecutive series, else a list; "" for none."""
    if not versions:
        return ""
    items = sorted(set(versions))
    if len(items) > 3:
        return _("{first} to {last}").format(first=items[0], last=items[-1])
    return ", ".join(str(v) for v in items)


def join(items: Sequence[str], word: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {word} {items[-1]}"


def nvidia_driver(text: str) -> Optional[DriverVersion]:
    """A driver version as TensorFlow prints it (``361.93.2``, ``352.63.0``), read as NVIDIA's
    (361.93.02, 352.63): TensorFlow prints each field as a plain number."""
    parts = text.split(".")
    if not all(p.isdigit() for p in parts) or len(parts) < 2:
        return None
    if len(parts) == 3 and int(parts[2]) == 0:
        parts = parts[:2]
    return DriverVersion(".".join(parts))


def builds_with_cuda(kb: KnowledgeBase, cuda: Version, os: str) -> list[TfBuild]:
    """Series whose CUDA runtime ``cuda`` is: within a family with minor-version
    compatibility (11 and later) any minor, else the same minor."""
    family = kb.cuda.family(cuda.major)
    any_minor = family is not None and family.min_driver("linux") is not None
    out = []
    for b in kb.builds:
        cb = b.for_machine(os)
        if cb is None or cb.cuda is None or cb.cuda.major != cuda.major:
            continue
        if any_minor or len(cuda.release) == 1 or cb.cuda.minor == cuda.minor:
            out.append(b)
    return out


def builds_with_cudnn(kb: KnowledgeBase, major: int, os: str) -> list[TfBuild]:
    out = []
    for b in kb.builds:
        cb = b.for_machine(os)
        if cb is not None and cb.cudnn is not None and cb.cudnn.major == major:
            out.append(b)
    return out


def driver_os(ctx: Context) -> Optional[DriverOs]:
    m = ctx.machine
    return m.driver_os if m is not None else None


def driver_facts(ctx: Context, cuda: Version, os: DriverOs) -> list[str]:
    """The driver CUDA ``cuda`` needs on ``os``, and whether this machine's has it."""
    from tfenv.rules.driver import branch_limit

    floor, why = ctx.kb.cuda.driver_floor(cuda, os)
    if floor is None:
        return []
    label = os_title(os)
    values = {"cuda": cuda, "system": label, "floor": floor, "why": why}
    m = ctx.machine
    if m is None or m.driver_os != os or (m.driver is None and ctx.target is None):
        # (a machine only the text describes: its driver is not known)
        return [
            _("CUDA {cuda} needs a {system} NVIDIA driver >= {floor} ({why}).").format(**values)
        ]
    if m.driver is None:
        return [
            _(
                "CUDA {cuda} needs a {system} NVIDIA driver >= {floor} ({why}); this machine "
                "reports no NVIDIA driver."
            ).format(**values)
        ]
    limit = branch_limit(ctx.kb, ctx.cc, floor, m.gpu_name) if m.driver < floor else None
    if m.driver >= floor:
        template = _(
            "CUDA {cuda} needs a {system} NVIDIA driver >= {floor} ({why}); this machine has "
            "{driver} (enough)."
        )
    elif limit:
        template = _(
            "CUDA {cuda} needs a {system} NVIDIA driver >= {floor} ({why}); this machine has "
            "{driver} (too old, and {limit})."
        )
    else:
        template = _(
            "CUDA {cuda} needs a {system} NVIDIA driver >= {floor} ({why}); this machine has "
            "{driver} (too old: update the driver)."
        )
    return [template.format(driver=m.driver, limit=limit, **values)]


def wheel_versions(kb: KnowledgeBase, name: str, platform: Optional[str]) -> list[Version]:
    """Versions of an and-cuda wheel with a wheel for ``platform`` (any when None), ascending."""
    out = []
    for w in kb.index.cuda_versions(str(canonicalize_name(name))):
        if w.yanked or w.version.is_devrelease or w.version.is_prerelease or not w.platforms:
            continue
        if platform is None or platform in w.platforms:
            out.append(w.version)
    return sorted(out)


def lowest_wheel(
    kb: KnowledgeBase, name: str, floor: Version, platform: Optional[str], same_major: bool = True
) -> Optional[Version]:
    """The lowest version of ``name`` at or above ``floor`` (its major when ``same_major``)."""
    for v in wheel_versions(kb, name, platform):
        if v >= floor and (not same_major or v.major == floor.major):
            return v
    return None


def and_cuda_pin(ctx: Context, name: str) -> Optional[str]:
    """What tfenv pins for ``name`` in the and-cuda wheels of the TensorFlow at hand, on this
    machine's platform and Python (the build's versions): ``nvidia-cuda-nvcc-cu12==12.3.107``."""
    from tfenv.kb.cuda_wheels import cuda_wheels

    tf, platform = ctx.tf, ctx.platform or "linux_x86_64"
    release = ctx.kb.index.release("tensorflow", tf) if tf is not None else None
    ws = release.wheelset(platform) if release is not None else None
    if ws is None:
        return None
    m = ctx.machine
    python = str(m.python) if m is not None and m.python is not None else None
    if python is None or not ws.serves(python):
        python = next((p for p in reversed(ws.pythons) if p.count(".") == 1), None)
    if python is None:
        return None
    wheels = cuda_wheels(ctx.kb, ws, python)
    want = str(canonicalize_name(name))
    pin = next((p for p in wheels.pins if p.name == want), None) if wheels else None
    return str(pin) if pin is not None else None


def shell_command(ctx: Context, argv: Sequence[str], os: Optional[str] = None) -> str:
    """``argv`` written for the shell of the machine at hand (``os``, or the context's
    machine; POSIX when unknown)."""
    from tfenv.shells import command, shell_for

    machine = ctx.machine
    return command(argv, shell_for(os or (machine.os if machine is not None else "linux")))


def shell_word(ctx: Context, text: str) -> str:
    """One word for the shell of the machine at hand (POSIX when unknown)."""
    from tfenv.shells import shell_for, word

    machine = ctx.machine
    return word(text, shell_for(machine.os if machine is not None else "linux"))


def pip_command(ctx: Context, *specs: str, os: Optional[str] = None, module: bool = False) -> str:
    """``pip install SPEC...`` written for the shell of the machine at hand (``os``, or the
    context's machine; POSIX when unknown); ``module``: ``python -m pip install SPEC...``
    (the environment's own pip, whatever ``pip`` on PATH is). A spec from the pasted text
    that cmd.exe or PowerShell would change is written for a POSIX shell instead (never
    unescaped)."""
    from tfenv.shells import UnsafeWord, command, shell_for

    machine = ctx.machine
    target_os = os or (machine.os if machine is not None else "linux")
    argv = ["python", "-m", "pip", "install", *specs] if module else ["pip", "install", *specs]
    try:
        return command(argv, shell_for(target_os))
    except UnsafeWord:
        return command(argv, "posix")
