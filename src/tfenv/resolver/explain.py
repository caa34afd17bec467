"""Turn resolvelib's causes into plain sentences. The only place that words conflicts."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Optional

from packaging.version import Version

from tfenv.kb.cuda import format_driver

if TYPE_CHECKING:
    from collections.abc import Sequence

    from resolvelib.structs import RequirementInformation

    from tfenv.resolver.factory import Factory
    from tfenv.resolver.model import Candidate, Requirement
    from tfenv.resolver.target import Request, Target

    Cause = RequirementInformation[Requirement, Candidate]

__all__ = ["conflict_sentences"]

_TOPIC = {
    "driver": "The NVIDIA driver is too old",
    "python": "No wheel for this Python",
    "gpu-code": "The GPU is not supported by the official wheels",
    "cuda-gpu-range": "The GPU is older than the CUDA toolkit supports",
    "cudnn-gpu": "The GPU is older than cuDNN supports",
    "gpu-platform": "No CUDA build of TensorFlow for this platform",
    "no-wheel": "No wheel for this platform",
    "stub": "The wheel for this platform cannot be installed",
    "glibc": "The system's glibc is too old",
    "metal": "No tensorflow-metal release for these versions",
    "route": "No install route fits",
    "manager": "The requested package manager cannot install it",
    "accelerator": "GPU support was required",
    "cuda": "CUDA version mismatch",
    "cudnn": "cuDNN version mismatch",
    "cudnn-cuda": "cuDNN does not support this CUDA",
}


def conflict_sentences(causes: Sequence[Cause], factory: Factory) -> tuple[str, ...]:
    target, request = factory.target, factory.request
    groups: dict[str, list[Cause]] = defaultdict(list)
    for cause in _complete(causes, factory):
        if cause.parent is None and cause.requirement.identifier in _FIXED:
            continue  # "the target driver" itself is no reason
        groups[cause.requirement.kind or cause.requirement.identifier].append(cause)
    out = [
        _sentence(kind, groups[kind], target, request) for kind in sorted(groups, key=_kind_order)
    ]
    if "request" in groups and not request.pre and _only_prereleases_match(factory):
        out.append(f"Only pre-releases match '{request.tf_text}': pass --pre to consider them.")
    return tuple(dict.fromkeys(out))


def _only_prereleases_match(factory: Factory) -> bool:
    from tfenv.resolver.releases import known_versions

    spec = factory.request.tf
    found = [v for v in known_versions(factory.kb) if spec.contains(v, prereleases=True)]
    return bool(found) and all(v.is_prerelease for v in found)


_FIXED = ("platform", "gpu", "driver")


def _complete(causes: Sequence[Cause], factory: Factory) -> list[Cause]:
    """resolvelib stops at the first conflict of each candidate; users want all of them.

    Every requirement a rejected candidate puts on a fact of the target (its
    platform, GPU, driver, and Python when fixed) is checked, and each one that
    fails is added to the causes.
    """
    from resolvelib.structs import RequirementInformation

    fixed = {"platform", "gpu", "driver"}
    if factory.target.python is not None:
        fixed.add("python")
    out = list(causes)
    seen = {(id(c.requirement), id(c.parent)) for c in causes}
    parents = {id(c.parent): c.parent for c in causes if c.parent is not None}
    for parent in parents.values():
        for req in factory.dependencies(parent):
            if req.identifier not in fixed or (id(req), id(parent)) in seen:
                continue
            held = [
                c
                for c in factory.candidates(req.identifier)
                if req.identifier != "python" or c.key == str(factory.target.python)
            ]
            if held and not req.test(held[0]):
                out.append(RequirementInformation(req, parent))
    return out


def _kind_order(kind: str) -> int:
    order = list(_TOPIC)
    return order.index(kind) if kind in order else len(order)


def _sentence(kind: str, causes: list[Cause], target: Target, request: Request) -> str:
    with_parent = [c for c in causes if c.parent is not None]
    if not with_parent:
        return _root_sentence(kind, causes, target, request)
    newest = max(with_parent, key=lambda c: _version(c.parent))
    topic = _TOPIC.get(kind, "Conflict")
    text = f"{topic}: {newest.parent.label} needs {newest.requirement.text}"  # type: ignore[union-attr]
    others = sorted({_version(c.parent) for c in with_parent} - {_version(newest.parent)})
    if len(others) == 1:
        text += f"; the older release {others[0]} fails the same way"
    elif others:
        text += f"; {len(others)} older releases ({others[0]} to {others[-1]}) fail the same way"
    fact = _target_fact(kind, target)
    return f"{text}, {fact}." if fact else f"{text}."


def _root_sentence(kind: str, causes: list[Cause], target: Target, request: Request) -> str:
    if kind == "request":
        return (
            f"No TensorFlow release matching '{request.tf_text}' is a candidate for "
            f"{target.platform}."
        )
    texts = "; ".join(sorted({c.requirement.text for c in causes}))
    return f"{_TOPIC.get(kind, 'Conflict')}: {texts}."


def _target_fact(kind: str, target: Target) -> Optional[str]:
    given = "detected" if _detected(kind, target) else "given"
    if kind == "driver":
        return f"but this machine's driver is {format_driver(target.driver)} ({given})"  # type: ignore[arg-type]
    if kind == "python":
        return f"but the plan must use Python {target.python} ({given})"
    if kind in ("gpu-code", "cuda-gpu-range", "cudnn-gpu"):
        name = target.gpu_name or "the GPU"
        return f"but {name} has compute capability {target.cc} ({given})"
    if kind == "glibc":
        return f"but this machine has glibc {target.glibc} ({given})"
    if kind in ("gpu-platform", "no-wheel"):
        return f"but the target is {_platform_name(target)}"
    return None


def _platform_name(target: Target) -> str:
    os_name = {"linux": "Linux", "windows": "native Windows", "wsl2": "WSL2", "macos": "macOS"}[
        target.os
    ]
    return f"{os_name} on {target.arch}"


def _detected(kind: str, target: Target) -> bool:
    field = {"gpu-code": "gpu", "cuda-gpu-range": "gpu", "cudnn-gpu": "gpu"}.get(kind, kind)
    return field in target.detected


def _version(c: Optional[Candidate]) -> Version:
    if c is None:
        return Version("0")
    data = c.data
    if isinstance(data, tuple):  # tensorflow candidates carry (option, accel, platform)
        return data[0].version  # type: ignore[no-any-return]
    if isinstance(data, Version):
        return data
    return Version("0")
