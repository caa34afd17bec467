"""Answers for containers that do not start: NVIDIA_REQUIRE_CUDA, the container toolkit."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Optional

from tfenv.explain.common import join, version_or_none
from tfenv.explain.context import Answer, Context
from tfenv.i18n import _
from tfenv.models.require_cuda import RequireCudaError, evaluate, parse

if TYPE_CHECKING:
    from tfenv.models.require_cuda import HostFacts

__all__ = ["ANSWERS"]

_REQUIRE = re.compile(r"--require=(?P<clause>[^\]\n]{1,4000}?) --pid=")


def _host(ctx: Context) -> Optional[HostFacts]:
    from tfenv.rules.container_images import host_facts

    m = ctx.machine
    if m is None or m.driver is None:
        return None
    return host_facts(ctx.kb, m, m.driver)


def _starting_images(ctx: Context, host: HostFacts) -> list[str]:
    """The newest official TensorFlow GPU images and CUDA base images this host starts."""
    from tfenv.kb.releases import known_versions

    official = ctx.kb.containers.official
    versions = [v for v in known_versions(ctx.kb) if not v.is_prerelease]
    out: list[str] = []
    for rec in reversed(official.releases):
        if rec.require_cuda is None or evaluate(rec.require_cuda, host).admits is not True:
            continue
        inside = [v for v in versions if rec.covers(v)]
        if inside:
            out.append(f"{official.image(max(inside))} (CUDA {rec.cuda})")
        if len(out) == 2:
            break
    bases = [
        b.image
        for b in ctx.kb.containers.cuda_bases
        if b.require_cuda is not None and evaluate(b.require_cuda, host).admits is True
    ]
    if bases:
        out.append(bases[-1])
    return out


def _require(groups: Mapping[str, str], ctx: Context) -> Answer:
    """``unsatisfied condition: cuda>=X``: the host driver reports an older CUDA than the image."""
    need = version_or_none(groups.get("req_cuda"))
    if need is None:
        return Answer()
    kb = ctx.kb
    tk = kb.cuda.toolkit(need)
    floor = tk.min_driver("linux") if tk is not None else None
    branch = next(
        (
            b.branch
            for b in kb.cuda.driver_branches
            if b.max_cuda is not None and b.max_cuda >= need
        ),
        None,
    )
    if floor is not None and branch:
        text = _(
            "The image's NVIDIA_REQUIRE_CUDA asks for cuda>={need}: the host driver must report "
            "CUDA {need} or newer, which a driver >= {floor} (branch {branch}) does. The "
            "container toolkit checks this before the container starts; the image's CUDA "
            "libraries do not matter to it."
        )
    elif floor is not None:
        text = _(
            "The image's NVIDIA_REQUIRE_CUDA asks for cuda>={need}: the host driver must report "
            "CUDA {need} or newer, which a driver >= {floor} does. The container toolkit checks "
            "this before the container starts; the image's CUDA libraries do not matter to it."
        )
    else:
        text = _(
            "The image's NVIDIA_REQUIRE_CUDA asks for cuda>={need}: the host driver must report "
            "CUDA {need} or newer. The container toolkit checks this before the container "
            "starts; the image's CUDA libraries do not matter to it."
        )
    facts = [text.format(need=need, floor=floor, branch=branch)]
    host = _host(ctx)
    if floor:
        fix = [_("Update the host's NVIDIA driver to {floor} or newer").format(floor=floor)]
    else:
        fix = [_("Update the driver")]
    if host is not None and host.cuda is not None:
        if host.cuda < need:
            said = _("This machine's driver {driver} reports CUDA {cuda}: too old.")
        else:
            said = _(
                "This machine's driver {driver} reports CUDA {cuda}: new enough (the image may "
                "name more terms)."
            )
        facts.append(said.format(driver=host.driver, cuda=host.cuda))
        images = _starting_images(ctx, host)
        if images:
            fix.append(
                _("or use an image this driver starts: {images}").format(
                    images=join(images, _("or"))
                )
            )
    family = kb.cuda.family(need.major)
    fam_floor = family.min_driver("linux") if family is not None else None
    if fam_floor is not None:
        fix.append(
            _(
                "NVIDIA_DISABLE_REQUIRE=1 skips the check, which is safe only while the image's "
                "CUDA {major}.x runs on the driver by minor-version compatibility (a driver "
                ">= {floor}, and no PTX compiled at run time)"
            ).format(major=need.major, floor=fam_floor)
        )
    return Answer(tuple(facts), _("{fixes}.").format(fixes=_("; ").join(fix)))


def _brand(groups: Mapping[str, str], ctx: Context) -> Answer:
    """``unsatisfied condition: brand = tesla``: an OR'ed clause read wrongly by an old toolkit."""
    m = _REQUIRE.search(ctx.text)
    facts = []
    if m is not None:
        try:
            clause = parse(m.group("clause").strip())
        except RequireCudaError:
            clause = None
        if clause is not None:
            facts.append(
                _("The image requires {clause}: any one of these admits the host.").format(
                    clause=clause.describe()
                )
            )
            host = _host(ctx)
            if host is not None and evaluate(clause, host).admits is True:
                facts.append(
                    _(
                        "This machine (driver {driver}, CUDA {cuda}) satisfies it, so the "
                        "container toolkit evaluated it wrongly."
                    ).format(driver=host.driver, cuda=host.cuda)
                )
    facts.append(
        _(
            "Early nvidia-docker / libnvidia-container releases stopped at the first brand term "
            "instead of trying the others (reports on GeForce cards)."
        )
    )
    return Answer(tuple(facts))


def _runtime(groups: Mapping[str, str], ctx: Context) -> Answer:
    """Docker has no GPU runtime, or the runtime cannot reach the host's driver."""
    needs = ctx.kb.containers.host
    m = ctx.machine
    facts = [
        _("A GPU container needs on the host: {needs}.").format(
            needs=_("; ").join(needs.for_system(m.system if m is not None else None))
        )
    ]
    if "libnvidia-ml" in ctx.text:
        facts.append(
            _(
                "The toolkit could not load the driver's NVML library (libnvidia-ml.so.1) on the "
                "host: no NVIDIA driver there, or (Docker Desktop on WSL2) a Windows build or "
                "driver without GPU support for WSL2."
            )
        )
        wsl2 = ctx.kb.platforms.wsl2
        fix = _(
            "Make `nvidia-smi` work on the host first (on WSL2: a current Windows NVIDIA driver "
            "and {release} (build {build}) or later; no Linux driver inside WSL2)."
        ).format(release=wsl2.min_windows_release, build=wsl2.min_windows_build)
    else:
        fix = _(
            "Install the NVIDIA Container Toolkit, register it with Docker (sudo nvidia-ctk "
            "runtime configure --runtime=docker) and restart Docker; on Docker Desktop, use the "
            "WSL2 backend."
        )
    return Answer(tuple(facts), fix)


ANSWERS = {
    "container-require": _require,
    "container-brand": _brand,
    "container-runtime": _runtime,
}
