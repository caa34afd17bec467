"""Answers about the NVIDIA driver: too old for the CUDA runtime, and nvidia-smi's header.

The driver comes from the machine (``--driver``, ``--host`` or detected), else from the text
(an nvidia-smi header's ``Driver Version:`` or, from R610 on, ``KMD Version:``); the CUDA
the TensorFlow at hand needs from ``builds.yaml``; the floors from ``nvidia/cuda.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Optional

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tfenv.explain.common import driver_os, version_or_none
from tfenv.explain.context import Answer, Context
from tfenv.i18n import _
from tfenv.models.platform import os_title
from tfenv.rerun import line_for

if TYPE_CHECKING:
    from tfenv.models.driver import DriverVersion
    from tfenv.models.platform import DriverOs

__all__ = ["ANSWERS"]


def _build_cuda(ctx: Context) -> Optional[Version]:
    build = ctx.build()
    m = ctx.machine
    cb = build.for_machine(m.os if m is not None else "linux") if build is not None else None
    return cb.cuda if cb is not None else None


def _runs(ctx: Context, driver: DriverVersion, os: DriverOs) -> tuple[list[Version], list[Version]]:
    """TensorFlow series whose CUDA build this driver runs, and those it does not."""
    yes: list[Version] = []
    no: list[Version] = []
    for b in ctx.kb.builds:
        cb = b.cuda_build(os)
        if cb is None or cb.cuda is None:
            continue
        floor = ctx.kb.cuda.driver_floor(cb.cuda, os)[0]
        if floor is None:
            continue
        (yes if driver >= floor else no).append(b.series)
    return yes, no


def _runs_text(yes: list[Version], no: list[Version]) -> str:
    if not no:
        return _("every series ({first} to {last})").format(first=yes[0], last=yes[-1])
    if max(yes) < min(no):
        return _("{first} to {last}; not {newer} and later").format(
            first=yes[0], last=yes[-1], newer=no[0]
        )
    return ", ".join(map(str, yes))


def _branch_limit(ctx: Context) -> Optional[str]:
    """The GPU's architecture ends at a driver branch: updating past it is not possible."""
    arch = ctx.kb.cuda.last_branch(ctx.cc)
    if arch is None:
        return None
    return _(
        "This GPU (compute capability {cc}, {architecture}) is supported by drivers up to the "
        "R{branch} branch only: a newer driver is not an option."
    ).format(cc=ctx.cc, architecture=arch.architecture, branch=arch.last_branch)


def _driver_floor(groups: Mapping[str, str], ctx: Context) -> Answer:
    """CUDA driver version is insufficient: the floor of the TensorFlow at hand vs the driver."""
    os: DriverOs = driver_os(ctx) or "linux"
    label = os_title(os)
    driver, tf, cuda = ctx.driver, ctx.tf, _build_cuda(ctx)
    facts: list[str] = []
    floor = None
    if tf is not None and cuda is not None:
        floor, why = ctx.kb.cuda.driver_floor(cuda, os)
        if floor is not None:
            text = _(
                "TensorFlow {tf} is built with CUDA {cuda}, which needs a {system} NVIDIA driver "
                ">= {floor} ({why})."
            )
        else:
            text = _("TensorFlow {tf} is built with CUDA {cuda}.")
        facts.append(text.format(tf=tf, cuda=cuda, system=label, floor=floor, why=why))
    if driver is not None:
        facts += _driver_facts(ctx, driver, floor, os)
    limit = _branch_limit(ctx)
    if limit:
        facts.append(limit)
    if not facts:
        return Answer()
    if floor is not None and driver is not None and driver >= floor:
        return Answer(
            tuple(facts),
            _(
                "Find the other CUDA runtime: `tfenv doctor` shows which libcudart is loaded "
                "from where; take the newer CUDA toolkit's folder off LD_LIBRARY_PATH (or PATH), "
                "or use the CUDA wheels of the TensorFlow at hand."
            ),
        )
    return Answer(tuple(facts), _fix(ctx, floor, limit is not None))


def _driver_facts(
    ctx: Context, driver: DriverVersion, floor: Optional[DriverVersion], os: DriverOs
) -> list[str]:
    """The driver at hand: the CUDA it runs, its verdict against ``floor``, the series it runs."""
    top = ctx.kb.cuda.max_cuda_for_driver(driver)
    given = ctx.machine is not None and ctx.machine.driver is not None
    if given:
        text = _("The driver this machine has is {driver}").format(driver=driver)
    else:
        text = _("The driver the text shows is {driver}").format(driver=driver)
    if top is not None:
        text = _("{driver_is}, which runs CUDA up to {cuda}").format(driver_is=text, cuda=top)
    if floor is not None and driver < floor:
        text = _("{driver_is}: too old.").format(driver_is=text)
    elif floor is not None:
        text = _(
            "{driver_is}: new enough (this error then comes from another CUDA runtime than the "
            "build's, e.g. a newer toolkit first on the loader path)."
        ).format(driver_is=text)
    else:
        text = _("{driver_is}.").format(driver_is=text)
    facts = [text]
    yes, no = _runs(ctx, driver, os)
    if yes and no:
        facts.append(
            _("TensorFlow series whose CUDA build this driver runs: {series}.").format(
                series=_runs_text(yes, no)
            )
        )
    return facts


def _fix(ctx: Context, floor: Optional[DriverVersion], capped: bool) -> Optional[str]:
    from tfenv.models.target import Request

    m = ctx.machine
    older: Optional[str] = None
    if m is not None and m.driver is not None:
        target = m if m.cc is not None else replace(m, cc=Version("8.0"), gpu_name=None)
        res = ctx.solve(target, Request())
        if res.plan is not None and res.plan.gpu:
            tf = res.plan.tensorflow
            pinned = Request(tf=SpecifierSet(f"=={tf}"), tf_text=tf)
            values = {
                "tf": tf,
                "cuda": res.plan.cuda,
                "driver": m.driver,
                "command": line_for(target, pinned, tf),
            }
            if m.cc is not None:
                older = _(
                    "TensorFlow {tf} (CUDA {cuda}) is the newest whose GPU build runs on driver "
                    "{driver}: `{command}`"
                ).format(**values)
            else:
                older = _(
                    "TensorFlow {tf} (CUDA {cuda}) is the newest whose GPU build runs on driver "
                    "{driver} (for a GPU of compute capability 8.0; give --gpu): `{command}`"
                ).format(**values)
    update = None
    if floor is not None and not capped:
        update = _("Update the NVIDIA driver to {floor} or newer (keeps TensorFlow {tf})").format(
            floor=floor, tf=ctx.tf
        )
    if update is not None and older is not None:
        return _("{update}; or {older}.").format(update=update, older=older)
    if update is None and older is None:
        return None
    return _("{fix}.").format(fix=update or older)


def _smi_header(groups: Mapping[str, str], ctx: Context) -> Answer:
    from tfenv.models.driver import DriverVersion

    try:
        driver = DriverVersion(groups["driver"])
    except ValueError:
        return Answer()
    cuda = version_or_none(groups.get("cuda"))
    label = groups.get("label", "Driver")
    if label == "KMD":
        fact = _(
            "nvidia-smi reports driver {driver}, in the R610+ header (KMD Version / CUDA UMD "
            "Version)."
        )
    else:
        fact = _(
            "nvidia-smi reports driver {driver}, in the classic header (Driver Version / CUDA "
            "Version)."
        )
    facts = [fact.format(driver=driver)]
    if cuda is not None:
        facts.append(
            _(
                "CUDA {cuda} is the newest CUDA this driver runs, not an installed toolkit: "
                "CUDA wheels or toolkits up to {cuda} run on it."
            ).format(cuda=cuda)
        )
    elif groups.get("cuda") == "ERR!":
        facts.append(
            _(
                "CUDA Version: ERR! means nvidia-smi could not ask the driver (on WSL2: the "
                "Windows driver is not reachable)."
            )
        )
    os: DriverOs = driver_os(ctx) or "linux"
    yes, no = _runs(ctx, driver, os)
    if yes:
        where = os_title(os)
        facts.append(
            _("TensorFlow CUDA builds this driver runs ({system}): {series}.").format(
                system=where, series=_runs_text(yes, no)
            )
        )
    tf, cuda_tf = ctx.tf, _build_cuda(ctx)
    if tf is not None and cuda_tf is not None:
        floor = ctx.kb.cuda.driver_floor(cuda_tf, os)[0]
        if floor is not None:
            if driver >= floor:
                verdict = _(
                    "TensorFlow {tf} (CUDA {cuda}) needs a driver >= {floor}: this one is enough."
                )
            else:
                verdict = _(
                    "TensorFlow {tf} (CUDA {cuda}) needs a driver >= {floor}: this one is too old."
                )
            facts.append(verdict.format(tf=tf, cuda=cuda_tf, floor=floor))
    return Answer(tuple(facts))


ANSWERS = {
    "driver-floor": _driver_floor,
    "smi-header": _smi_header,
}
