"""Orchestration: from what the user gave to a :class:`Resolution`.

No printing, no argv, no file writes: the CLI does those.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from packaging.version import Version

from tfenv import specs
from tfenv.errors import UsageError
from tfenv.resolver.target import Request, Target

if TYPE_CHECKING:
    from tfenv.host import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.resolver.plan import Resolution

__all__ = ["MachineArgs", "build_request", "build_target", "resolve"]


@dataclass(frozen=True)
class MachineArgs:
    """Facts about the target machine as the user gave them (all optional)."""

    host_file: Optional[Path] = None
    os: Optional[str] = None
    arch: Optional[str] = None
    gpu: Optional[str] = None
    cc: Optional[str] = None
    no_gpu: bool = False
    driver: Optional[str] = None
    glibc: Optional[str] = None
    python: Optional[str] = None
    gpu_index: Optional[int] = None

    @property
    def describes_another_machine(self) -> bool:
        return self.os is not None or self.arch is not None


def build_request(
    kb: KnowledgeBase,
    tf: Optional[str],
    manager: str = "auto",
    allow_cpu: bool = False,
    no_gpu: bool = False,
    pre: bool = False,
) -> Request:
    text = tf or "latest"
    spec = specs.parse_tf_spec(text)
    from tfenv.resolver.releases import known_versions

    known = known_versions(kb)
    if spec and not any(spec.contains(v, prereleases=True) for v in known):
        stable = [v for v in known if not v.is_prerelease and v >= Version("2.0")]
        raise UsageError(
            f"No TensorFlow release matches --tf {text}.",
            hint=f"Known releases run from {min(stable)} to {max(stable)}; "
            "'tfenv matrix' lists them.",
        )
    return Request(
        tf=spec, tf_text=text, manager=manager, allow_cpu=allow_cpu, no_gpu=no_gpu, pre=pre
    )


def build_target(
    kb: KnowledgeBase, m: MachineArgs, detect: Optional[Callable[[], HostProfile]] = None
) -> Target:
    """Start from a host file, or this machine, or nothing; flags win over all of it."""
    profile = _base_profile(m, detect)
    detected: set[str] = set()
    os_ = arch = None
    glibc = python = driver = cc = None
    gpu_name = None
    if profile is not None:
        os_, arch, glibc, python = profile.os, profile.arch, profile.glibc, profile.python
        driver = profile.driver_version
        gpu = profile.lowest_cc_gpu(m.gpu_index)
        if gpu is not None:
            cc, gpu_name = gpu.compute_capability, gpu.name
        origin = "host file" if m.host_file else "detected"
        if origin == "detected":
            detected = {
                k
                for k, v in (
                    ("os", os_),
                    ("arch", arch),
                    ("glibc", glibc),
                    ("python", python),
                    ("driver", driver),
                    ("gpu", cc),
                )
                if v is not None
            }
    return _apply_flags(
        kb,
        m,
        Target(
            notes=profile.notes if profile is not None else (),
            os=os_ or "linux",
            arch=arch or "x86_64",
            glibc=glibc,
            python=Version(f"{python.major}.{python.minor}") if python else None,
            cc=cc,
            gpu_name=gpu_name,
            driver=driver,
            detected=frozenset(detected),
        ),
    )


def _base_profile(
    m: MachineArgs, detect: Optional[Callable[[], HostProfile]]
) -> Optional[HostProfile]:
    if m.host_file is not None:
        from tfenv.host import read_host_file

        return read_host_file(m.host_file)
    if m.describes_another_machine:
        return None
    if detect is None:
        from tfenv.host import detect as detect_host

        return detect_host()
    return detect()


def _apply_flags(kb: KnowledgeBase, m: MachineArgs, t: Target) -> Target:
    changes: dict[str, object] = {}
    given = set(t.detected)
    if m.os is not None:
        changes["os"] = specs.parse_os(m.os)
    if m.arch is not None:
        changes["arch"] = specs.parse_arch(m.arch)
    if m.glibc is not None:
        changes["glibc"] = specs.parse_xy("--glibc", m.glibc)
    if m.python is not None:
        changes["python"] = specs.parse_xy("--python", m.python)
    if m.driver is not None:
        changes["driver"] = specs.parse_driver(m.driver)
    if m.no_gpu:
        changes.update(cc=None, gpu_name=None)
    elif m.gpu is not None:
        model = kb.gpus.lookup(m.gpu)
        changes.update(cc=model.compute_capability, gpu_name=model.name)
    elif m.cc is not None:
        changes.update(cc=specs.parse_cc(m.cc), gpu_name=None)
    given -= {"gpu" if k in ("cc", "gpu_name") else k for k in changes}
    return replace(t, **changes, detected=frozenset(given))  # type: ignore[arg-type]


def resolve(kb: KnowledgeBase, target: Target, request: Request) -> Resolution:
    from tfenv.resolver import resolve as solve

    return solve(kb, target, request)
