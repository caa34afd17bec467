"""One conda solve with py-rattler: the target's subdir and virtual packages, the channels,
and errors that say what the solver said in one paragraph (with a hint where one fits).

py-rattler needs Python 3.10 or newer; :func:`import_rattler` reports its absence as
:class:`~tfenv.errors.CondaLockUnavailableError`.
"""

from __future__ import annotations

import asyncio
import gc
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Optional

from tfenv.errors import (
    CondaChannelError,
    CondaLockError,
    CondaLockUnavailableError,
    CondaUnsatisfiableError,
)
from tfenv.i18n import _
from tfenv.lock.conda_virtual import describe_virtual

if TYPE_CHECKING:
    from tfenv.lock.conda import CondaLockSpec
    from tfenv.lock.conda_virtual import VirtualPackageSpec

__all__ = ["SolveContext", "import_rattler", "solve"]


@dataclass(frozen=True)
class SolveContext:
    target: str
    subdir: str
    channels: tuple[str, ...]
    specs: tuple[str, ...]
    virtual: tuple[VirtualPackageSpec, ...]

    def where(self) -> str:
        vp = describe_virtual(self.virtual)
        return _(
            "for {target} (conda subdir {subdir}, virtual packages {virtual}) "
            "from channels {channels}"
        ).format(
            target=self.target, subdir=self.subdir, virtual=vp, channels=", ".join(self.channels)
        )


def import_rattler() -> Any:
    from tfenv.lock import LOCK_EXTRA_HINT

    try:
        import rattler
    except ImportError as exc:
        raise CondaLockUnavailableError(
            _(
                "Locking conda environments needs py-rattler, which could not be imported ({exc})."
            ).format(exc=exc),
            hint=_("It needs Python 3.10 or newer. {lock_extra_hint}").format(
                lock_extra_hint=_(LOCK_EXTRA_HINT)
            ),
        ) from exc
    return rattler


def solve(rattler: Any, ctx: SolveContext, spec: CondaLockSpec) -> list[Any]:
    from rattler import exceptions as rx

    try:
        matchspecs = [rattler.MatchSpec(s, strict=False) for s in ctx.specs]
        virtual = [
            rattler.GenericVirtualPackage(
                rattler.PackageName(v.name),
                rattler.Version(v.version),
                rattler.BuildString(v.build) if v.build else rattler.BuildString("0"),
            )
            for v in ctx.virtual
        ]
    except (rx.InvalidMatchSpecError, rx.InvalidPackageNameError, rx.InvalidVersionError) as exc:
        raise CondaLockError(
            _("A conda spec to lock {value} is not valid: {exc}.").format(
                value=ctx.where(), exc=exc
            )
        ) from exc
    config = rattler.SourceConfig(
        cache_action="force-cache-only" if spec.offline else "cache-or-fetch"
    )
    gateway = rattler.Gateway(cache_dir=spec.cache_dir, default_config=config, show_progress=False)
    # The errors are raised after the rattler objects are gone, from None: a traceback that
    # keeps the gateway alive until interpreter shutdown makes py-rattler abort the process.
    failure: Optional[CondaLockError] = None
    result: list[Any] = []
    try:
        result = asyncio.run(
            rattler.solve(
                list(ctx.channels),
                matchspecs,
                gateway=gateway,
                platforms=[ctx.subdir, "noarch"],
                virtual_packages=virtual,
                channel_relations="disabled",
            )
        )
    except rx.SolverError as exc:
        failure = _unsatisfiable(ctx, str(exc))
    except (
        rx.GatewayError,
        rx.FetchRepoDataError,
        rx.InvalidChannelError,
        rx.CacheDirError,
        rx.IoError,
    ) as exc:
        if spec.offline:
            unread = _(
                "The conda channels could not be read to lock {value} (offline: only cached "
                "repodata may be used): {exc}."
            )
        else:
            unread = _("The conda channels could not be read to lock {value}: {exc}.")
        failure = CondaChannelError(unread.format(value=ctx.where(), exc=_one_paragraph(str(exc))))
    finally:
        del gateway, matchspecs, virtual
        # py-rattler objects caught in reference cycles (the solver error's frames) are
        # otherwise freed at interpreter shutdown, where py-rattler crashes (SIGSEGV about
        # one run in six after a failed solve with a fresh cache; none in 210 with this)
        gc.collect()
    if failure is not None:
        raise failure
    return result


def _unsatisfiable(ctx: SolveContext, explanation: str) -> CondaUnsatisfiableError:
    text = _one_paragraph(explanation)
    message = _("No conda environment satisfies {specs} {where}. The solver says: {text}.").format(
        specs=" ".join(ctx.specs), where=ctx.where(), text=text
    )
    return CondaUnsatisfiableError(
        message, solver_message=explanation, hint=_hint(ctx, explanation)
    )


def _hint(ctx: SolveContext, explanation: str) -> Optional[str]:
    byname = {v.name: v for v in ctx.virtual}
    if "__cuda" in explanation:
        cuda = byname.get("__cuda")
        if cuda is None:
            return _(
                "The CUDA builds need __cuda, the CUDA version of an NVIDIA driver, and the "
                "target has none known: give the target's driver, or lock a CPU plan."
            )
        return _(
            "__cuda {version} is the newest CUDA the target's driver supports ({source}); the "
            "locked CUDA packages need a newer one: update the driver, or lock a plan with an "
            "older CUDA variant."
        ).format(version=cuda.version, source=cuda.source)
    if "__glibc" in explanation:
        glibc = byname.get("__glibc")
        if glibc is None:
            have = _("none")
        elif glibc.assumed:
            have = _("{version} (assumed)").format(version=glibc.version)
        else:
            have = glibc.version
        return _(
            "The target's glibc is {have}, older than the packages require: lock for a newer "
            "OS release, or a plan whose packages support this glibc."
        ).format(have=have)
    if "No candidates were found" in explanation or "for which no candidates" in explanation:
        return _(
            "A package or build the plan asks for is not in the channels for {subdir} or "
            "noarch: check the channels and the pins."
        ).format(subdir=ctx.subdir)
    return None


_TREE = re.compile(r"[\u2500-\u257f]+")


def _one_paragraph(text: str) -> str:
    """The solver's tree explanation as one line: tree drawing removed, lines joined."""
    lines = (" ".join(_TREE.sub(" ", line).split()) for line in text.splitlines())
    joined = "; ".join(line for line in lines if line)
    return joined.replace(":;", ":").rstrip(" ;.")
