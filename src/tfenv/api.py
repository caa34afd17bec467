"""tfenv's Python API, and the orchestration the CLI shares with it: from what the user
gave to a :class:`~tfenv.models.plan.Resolution` (docs/api.md).

No printing, no argv, no file writes: the CLI does those. :func:`resolve` and
:func:`detect` are re-exported from ``tfenv`` (lazily: ``import tfenv`` stays cheap).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Callable, Optional

from tfenv import specs
from tfenv.errors import UsageError
from tfenv.i18n import _
from tfenv.models.platform import UnsupportedPlatform, known_system, system
from tfenv.models.target import MachineArgs, Request, Target

if TYPE_CHECKING:
    from pathlib import Path

    from tfenv.host import HostProfile
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution

__all__ = ["build_request", "build_target", "detect", "machine_facts", "resolve"]


def resolve(
    tf: Optional[str] = None,
    *,
    os: Optional[str] = None,
    arch: Optional[str] = None,
    gpu: Optional[str] = None,
    cc: Optional[str] = None,
    driver: Optional[str] = None,
    glibc: Optional[str] = None,
    python: Optional[str] = None,
    host: Optional[Path] = None,
    gpu_index: Optional[int] = None,
    no_gpu: bool = False,
    manager: str = "auto",
    allow_cpu: bool = False,
    pre: bool = False,
    cuda_libs: str = "build",
    machine: Optional[MachineArgs] = None,
    kb: Optional[KnowledgeBase] = None,
) -> Resolution:
    """The stack for TensorFlow ``tf`` (a version or specifier, ``None``: the newest) on a
    machine: what ``tfenv resolve`` answers. The machine is this one (detected) unless
    ``os``/``arch`` (or ``host``, a file from ``tfenv detect --json``) describe another;
    the other facts override what detection or the host file says. ``machine`` gives all
    the facts at once (then the fact keywords must be left out). Bad input raises
    :class:`~tfenv.errors.UsageError`; a machine nothing fits is an answer
    (``res.ok`` is False, ``res.conflicts`` says why), not an error."""
    from tfenv.kb import KnowledgeBase
    from tfenv.resolver import resolve as solve

    facts = MachineArgs(
        host_file=host, os=os, arch=arch, gpu=gpu, cc=cc, no_gpu=no_gpu, driver=driver,
        glibc=glibc, python=python, gpu_index=gpu_index,
    )  # fmt: skip
    facts = machine_facts("resolve", machine, facts)
    kb = kb if kb is not None else KnowledgeBase.from_environment()
    request = build_request(kb, tf, manager, allow_cpu, facts.no_gpu, pre, cuda_libs)
    return solve(kb, build_target(kb, facts), request)


def machine_facts(caller: str, machine: Optional[MachineArgs], facts: MachineArgs) -> MachineArgs:
    """The machine a call describes: ``machine`` or the fact keywords (``facts``), not both;
    a compute capability with no GPU is bad input. Shared by every API call that takes
    the machine's facts."""
    if machine is not None:
        if facts != MachineArgs():
            raise TypeError(f"{caller}(): give machine= or the machine's facts, not both")
        facts = machine
    if facts.no_gpu and facts.cc is not None:
        raise UsageError(_("--cc describes a GPU; it does not go with --no-gpu."))
    return facts


def detect(timeout: Optional[float] = None) -> HostProfile:
    """This machine as ``tfenv detect`` reads it (OS, glibc, Python, GPUs, driver, CUDA)."""
    from tfenv import host

    return host.detect() if timeout is None else host.detect(timeout=timeout)


def build_request(
    kb: KnowledgeBase,
    tf: Optional[str],
    manager: str = "auto",
    allow_cpu: bool = False,
    no_gpu: bool = False,
    pre: bool = False,
    cuda_libs: str = "build",
) -> Request:
    text = tf or "latest"
    spec = specs.parse_tf_spec(text)
    from tfenv.kb.index import OLDEST_TF
    from tfenv.kb.releases import known_versions

    known = known_versions(kb)
    if spec and not any(spec.contains(v, prereleases=True) for v in known):
        stable = [v for v in known if not v.is_prerelease and v >= OLDEST_TF]
        raise UsageError(
            _("No TensorFlow release matches --tf {text}.").format(text=text),
            hint=_(
                "Known releases run from {min_stable} to {max_stable}; 'tfenv matrix' lists them."
            ).format(min_stable=min(stable), max_stable=max(stable)),
        )
    return Request(
        tf=spec,
        tf_text=text,
        manager=manager,
        allow_cpu=allow_cpu,
        no_gpu=no_gpu,
        pre=pre,
        cuda_libs=cuda_libs,
    )


def build_target(
    kb: KnowledgeBase,
    m: MachineArgs,
    detect: Optional[Callable[[], HostProfile]] = None,
    conda_here: Optional[Callable[[], bool]] = None,
) -> Target:
    """Start from a host file, or this machine, or nothing; flags win over all of it.
    On this machine (detected, not a host file), ``conda`` is among the detected facts
    when ``conda_here`` (default: a micromamba, mamba or conda on PATH or named by
    MAMBA_EXE/CONDA_EXE) finds one: a conda route's plan then leaves out where conda
    comes from (:mod:`tfenv.routes.conda_steps`)."""
    profile = _base_profile(kb, m, detect)
    facts: dict[str, Any] = {"os": "linux", "arch": "x86_64"}
    if profile is not None:
        facts.update(profile.target_facts(m.gpu_index))
    detected: set[str] = set()
    if profile is not None and m.host_file is None:
        detected = {k for k in _FACTS if facts.get(k) is not None}
        if facts.get("cc") is not None:
            detected.add("gpu")
        if (conda_here or _conda_on_path)():
            from tfenv.routes.conda_steps import CONDA_FOUND

            detected.add(CONDA_FOUND)
    changes = _flag_facts(kb, m, facts["os"])
    gpu_note = changes.pop("note", None)
    facts.update(changes)
    detected -= _fact_names(changes)
    implied = _implied_machine(kb, m, facts)
    machine_note = implied.pop("note", None)
    facts.update(implied)
    detected -= set(implied)
    host_notes = () if profile is None else _host_notes(profile, _fact_names([*changes, *implied]))
    missing = _no_gpu_given(m, facts)
    # several GPUs and none given by flag: say which one the plan is for, and why
    choice = None
    if profile is not None and m.gpu is None and m.cc is None and not m.no_gpu:
        choice = profile.gpu_choice(m.gpu_index)
    notes = tuple(n for n in (*host_notes, choice, gpu_note, machine_note, missing) if n)
    try:
        return Target.from_facts(facts, detected, notes)
    except UnsupportedPlatform as exc:
        raise UsageError(_("{problem}.").format(problem=exc)) from None


_FACTS = ("os", "arch", "glibc", "python", "driver")


def _conda_on_path() -> bool:
    import os as os_

    from tfenv.host.conda import find_tool

    return find_tool(os_.environ) is not None


def _fact_names(keys: Iterable[str]) -> set[str]:
    """Target keys as the facts a user gives: ``cc`` and ``gpu_name`` are the GPU."""
    return {"gpu" if k in ("cc", "gpu_name") else k for k in keys}


def _host_notes(profile: HostProfile, given: set[str]) -> tuple[str, ...]:
    """The host's notes that still hold: not those about a fact the flags (or a GPU that
    implies the machine) replaced, nor those about a fact edited in the host file since
    (:meth:`HostProfile.current_notes` is the rule)."""
    from tfenv.host.profile import replaced_facts

    return tuple(n.text for n in profile.current_notes(replaced_facts(given)))


def _no_gpu_given(m: MachineArgs, facts: dict[str, Any]) -> Optional[str]:
    """Say so when a machine described by flags or a host file has no GPU: the plan is a
    CPU plan because nothing named a GPU, not because the machine has none."""
    named = known_system(facts.get("os"))
    if facts.get("cc") is not None or m.no_gpu:
        return None
    if named is not None and named.is_macos:
        if facts.get("arch") != "x86_64" or facts.get("gpu_name"):
            return None
        # an Intel Mac: its GPU is not detected, and only an AMD one runs the Metal plug-in
        return _(
            "tfenv does not detect a Mac's GPU: if this Intel Mac has an AMD GPU, give --gpu "
            "NAME as System Information names it (e.g. 'AMD Radeon Pro 5500M') for Apple's "
            "tensorflow-metal plug-in."
        )
    if m.host_file is not None:
        return _(
            "The host file lists no NVIDIA GPU, so this is a CPU plan; for a GPU plan give "
            "--gpu NAME (or --cc X.Y) and --driver."
        )
    if m.describes_another_machine:
        return _(
            "No GPU was given (--os, --arch and --host turn detection off), so this is a CPU "
            "plan; for a GPU plan give --gpu NAME (or --cc X.Y) and --driver."
        )
    return None


def _base_profile(
    kb: KnowledgeBase, m: MachineArgs, detect: Optional[Callable[[], HostProfile]]
) -> Optional[HostProfile]:
    if m.host_file is not None:
        from tfenv.host import read_host_file

        return read_host_file(m.host_file)
    if m.describes_another_machine:
        return None
    if detect is None:
        from tfenv.host import detect as detect_host

        return detect_host(gpu_catalog=lambda: kb.gpus)  # this run's catalog, loaded once
    return detect()


def _flag_facts(kb: KnowledgeBase, m: MachineArgs, base_os: str) -> dict[str, Any]:
    """The target facts the flags give, parsed (they win over detection and host files).
    On macOS, --gpu may name a Mac's own GPU (AMD, Intel, Apple): it has no compute
    capability, and its maker decides whether Apple's Metal plug-in runs on it."""
    changes: dict[str, Any] = {}
    if m.os is not None:
        changes["os"] = specs.parse_os(m.os)
    if m.arch is not None:
        changes["arch"] = specs.parse_arch(m.arch)
    if m.glibc is not None:
        changes["glibc"] = specs.parse_xy("--glibc", m.glibc, "2.35")
    if m.python is not None:
        changes["python"] = specs.parse_xy("--python", m.python, "3.11")
    if m.driver is not None:
        changes["driver"] = specs.parse_driver(m.driver)
    if m.no_gpu:
        changes.update(cc=None, gpu_name=None)
    elif m.gpu is not None and m.cc is None and _mac_gpu(changes.get("os", base_os), m.gpu):
        changes.update(cc=None, gpu_name=" ".join(m.gpu.split()))
    elif m.gpu is not None:
        changes.update(_gpu_facts(kb, m.gpu, m.cc))
    elif m.cc is not None:
        changes.update(cc=specs.parse_cc(m.cc), gpu_name=None)
    return changes


def _mac_gpu(os_: str, name: str) -> bool:
    from tfenv.models.choices import mac_gpu_vendor

    named = known_system(os_)
    return named is not None and named.is_macos and mac_gpu_vendor(name) is not None


def _gpu_facts(kb: KnowledgeBase, name: str, cc_text: Optional[str]) -> dict[str, Any]:
    """--gpu, checked against --cc when both are given. A GPU tfenv does not know (or a
    name shared by cards of different compute capability) is fine with --cc."""
    if cc_text is None:
        model = kb.gpus.lookup(name)
        return {"cc": model.compute_capability, "gpu_name": model.name}
    cc = specs.parse_cc(cc_text)
    found = kb.gpus.matches(name)
    same = [g for g in found if g.compute_capability == cc]
    if same:
        return {"cc": cc, "gpu_name": same[0].name}
    if found:
        known = ", ".join(sorted({str(g.compute_capability) for g in found}))
        raise UsageError(
            _(
                "--gpu {name!r} ({name2}) has compute capability {known}, but --cc says {cc}."
            ).format(name=name, name2=found[0].name, known=known, cc=cc),
            hint=_("Give the exact name nvidia-smi prints, or only --cc."),
        )
    name = " ".join(name.split())
    note = _(
        "{name!r} is not in tfenv's GPU list; its compute capability {cc} is from --cc."
    ).format(name=name, cc=cc)
    return {"cc": cc, "gpu_name": name, "note": note}


def _implied_machine(kb: KnowledgeBase, m: MachineArgs, facts: dict[str, Any]) -> dict[str, Any]:
    """A GPU that only comes in Arm machines (Jetson, Grace superchips, GB10) makes the
    target Linux aarch64: said in the ``note`` it returns, refused against a conflicting
    --arch."""
    name = facts.get("gpu_name")
    model = kb.gpus.find(name) if name else None
    if model is None or model.arch is None or facts.get("cc") != model.compute_capability:
        return {}
    what = _("a Jetson module") if model.is_jetson else _("only made for Arm (aarch64) machines")
    given = []
    if m.arch is not None and specs.parse_arch(m.arch) not in (model.arch, "arm64"):
        given.append(f"--arch {m.arch}")
    if m.os is not None and not system(specs.parse_os(m.os)).is_linux:
        given.append(f"--os {m.os}")
    if given:
        raise UsageError(
            _("{name} is {what}, but {given} was given.").format(
                name=model.name, what=what, given=_(", ").join(given)
            ),
            hint=_(
                "Plan for it with --os linux --arch {arch}, or give the GPU this machine really"
                " has."
            ).format(arch=model.arch),
        )
    out: dict[str, Any] = {}
    if facts.get("arch") != model.arch:
        out["arch"] = model.arch
    named = known_system(facts.get("os"))
    if named is None or not named.is_linux:
        out["os"] = "linux"
    if out:
        out["note"] = _("Linux {arch} assumed: {name} is {what} (give --arch to say so).").format(
            arch=model.arch, name=model.name, what=what
        )
    return out
