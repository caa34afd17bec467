"""``tfenv detect``: read this machine and print its host profile.

``--json`` prints the profile that ``tfenv resolve --host FILE`` and ``tfenv
lock`` read; ``--output FILE`` writes it there (atomically). ``--os``, ``--arch``,
``--glibc``, ``--driver`` and ``--python`` win over what is detected.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

from tfenv.i18n import _

if TYPE_CHECKING:
    from tfenv.host.profile import GpuInfo, HostProfile

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help=_("print the profile as JSON"))
    parser.add_argument(
        "--output",
        metavar="FILE",
        help=_("write the JSON profile to FILE (for 'tfenv resolve --host FILE')"),
    )
    parser.add_argument(
        "--gpu-index",
        type=_gpu_index,
        metavar="N",
        help=_("the GPU to resolve for (default: the one with the lowest compute capability)"),
    )
    over = parser.add_argument_group(_("overrides (win over detection)"))
    over.add_argument("--os", choices=("linux", "windows", "wsl2", "macos"))
    over.add_argument("--arch", choices=("x86_64", "aarch64", "arm64"))
    over.add_argument("--glibc", metavar="VERSION", help=_("e.g. 2.35"))
    over.add_argument("--driver", metavar="VERSION", help=_("NVIDIA driver, e.g. 535.104.05"))
    over.add_argument("--python", metavar="X.Y", help=_("e.g. 3.11"))
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=5.0,
        metavar="S",
        help=_("limit per probe (default 5 s)"),
    )


def _seconds(text: str) -> float:
    from tfenv.specs import parse_seconds

    return parse_seconds("--timeout", text, maximum=600.0)


def _gpu_index(text: str) -> int:
    from tfenv.specs import parse_count

    return parse_count("--gpu-index", text, minimum=0, maximum=1023)


def run(args: argparse.Namespace) -> int:
    from tfenv.host import OVERRIDABLE, detect, write_host_file

    overrides = {k: getattr(args, k) for k in OVERRIDABLE if getattr(args, k) is not None}
    profile = detect(overrides=overrides, timeout=args.timeout)
    target = profile.lowest_cc_gpu(args.gpu_index)  # UsageError for an unknown index
    if args.output:
        write_host_file(profile, args.output)
    if args.json:
        sys.stdout.write(profile.to_json())
    elif not args.output:
        from tfenv.textsafe import visible_lines

        sys.stdout.write(visible_lines(render(profile, target)))
    else:
        print(
            _("tfenv: wrote the host profile to {path}").format(path=args.output), file=sys.stderr
        )
    return 0


def render(profile: HostProfile, target: Optional[GpuInfo] = None) -> str:
    """The human table."""
    given = {k for k, v in profile.sources if v == "given"}

    def mark(key: str, text: str) -> str:
        return _("{value} (given)").format(value=text) if key in given else text

    rows = [
        (_("OS"), mark("os", profile.os) + "  " + mark("arch", profile.arch)),
        ("glibc", mark("glibc", str(profile.glibc)) if profile.glibc else "-"),
        ("Python", mark("python", str(profile.python))),
        (_("conda env"), profile.conda_env or "-"),
        (_("NVIDIA driver"), mark("driver", profile.driver) if profile.driver else _("none")),
        (
            _("driver CUDA"),
            _("up to {cuda}").format(cuda=profile.driver_cuda) if profile.driver_cuda else "-",
        ),
        (_("CUDA toolkits"), ", ".join(f"{t.version} ({t.path})" for t in profile.cuda_toolkits)),
        ("cuDNN", ", ".join(f"{c.version} ({c.path})" for c in profile.cudnn)),
        (_("packages"), ", ".join(f"{n}=={v}" for n, v in profile.packages)),
    ]
    width = max(_columns(k) for k, _v in rows)
    lines = [k + " " * (width - _columns(k)) + f"  {v or '-'}" for k, v in rows]
    lines.append("")
    if profile.gpus:
        lines.append(_("GPUs:"))
        for g in profile.gpus:
            cc = f"cc {g.compute_capability} ({g.cc_source})" if g.compute_capability else "cc ?"
            mem = f"{g.memory_mib} MiB" if g.memory_mib is not None else "? MiB"
            flags = "  MIG" if g.mig else ""
            arrow = (
                "  " + _("<- resolves for this one") if target is not None and g is target else ""
            )
            lines.append(f"  [{g.index}] {g.name}  {cc}  {mem}{flags}{arrow}")
    else:
        lines.append(_("GPUs: none"))
    notes = profile.current_notes()  # all of them for a fresh detection
    if notes:
        lines.append("")
        lines.append(_("Notes:"))
        lines += [f"  - {n.text}" for n in notes]
    return "\n".join(lines) + "\n"


def _columns(text: str) -> int:
    """Columns on a terminal: a Chinese character takes two."""
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
