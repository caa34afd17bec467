"""``tfenv resolve``: pick a consistent TensorFlow stack for a machine."""

from __future__ import annotations

import argparse
import sys

from tfenv.i18n import _

TYPE_CHECKING = False  # typing is not imported: `tfenv resolve --help` stays cheap
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Optional

    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution
    from tfenv.models.target import MachineArgs

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    from tfenv.models.choices import CUDA_LIBS, MANAGERS

    parser.add_argument(
        "--tf", metavar="SPEC", help=_("latest (default), 2.15, 2.15.1 or a PEP 440 specifier")
    )
    add_machine_flags(parser)
    parser.add_argument(
        "--manager",
        choices=MANAGERS,
        default="auto",
        help=_(
            "steer the install route (default: what TF's docs recommend); "
            "'container' plans a Docker image (used only when asked for)"
        ),
    )
    parser.add_argument(
        "--allow-cpu",
        action="store_true",
        help=_("accept a CPU-only plan on a machine with an NVIDIA GPU"),
    )
    parser.add_argument("--pre", action="store_true", help=_("consider pre-releases"))
    parser.add_argument(
        "--cuda-libs",
        choices=CUDA_LIBS,
        default="build",
        help=_(
            "which CUDA wheels a pip plan pins: the versions TensorFlow was built with "
            "(default) or the newest its extra allows that the GPU and driver run"
        ),
    )
    parser.add_argument("--json", action="store_true", help=_("print one JSON object"))
    parser.add_argument(
        "--emit",
        metavar="DIR",
        type=path_arg,
        help=_(
            "write requirements.txt / environment.yml / activation script "
            "(activate-tfenv.sh; on native Windows activate-tfenv.bat and .ps1), INSTALL.md "
            "with the numbered steps of the system and conda routes (container route: "
            "Dockerfile and .devcontainer/devcontainer.json), and .tfenv-emit.json, the record "
            "of what it wrote: it overwrites nothing else (see --force) and removes what it "
            "wrote for an earlier plan"
        ),
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help=_(
            "with --emit: overwrite files in DIR that tfenv did not write (or that were "
            "changed since it wrote them)"
        ),
    )
    parser.add_argument(
        "--chart",
        metavar="FILE",
        type=path_arg,
        help=_(
            "also write a chart of every TensorFlow series on this machine "
            "(SVG; HTML when FILE ends in .html)"
        ),
    )
    parser.add_argument(
        "--requirements",
        metavar="FILE",
        type=path_arg,
        help=_(
            "container route: a hashed requirements lock to install in the image "
            "(default: a requirements*.txt with --hash lines in the --emit folder)"
        ),
    )


def path_arg(text: str) -> Path:
    """A FILE or DIR flag's value (pathlib is imported only when one is given)."""
    from pathlib import Path

    return Path(text)


def add_machine_flags(parser: argparse.ArgumentParser, python: bool = True) -> None:
    """Flags that describe the target machine (shared with other commands); ``python``:
    whether --python X.Y is one of them (doctor's environment has its own Python)."""
    parser.add_argument(
        "--host", metavar="FILE", type=path_arg, help=_("host profile from 'tfenv detect --json'")
    )
    parser.add_argument("--os", help=_("linux, windows, wsl2 or macos"))
    parser.add_argument("--arch", help=_("x86_64, aarch64 or arm64"))
    gpu = parser.add_mutually_exclusive_group()
    gpu.add_argument("--gpu", metavar="NAME", help=_("GPU model, e.g. 'RTX 3060' or 'A100 80GB'"))
    gpu.add_argument("--no-gpu", action="store_true", help=_("plan for the CPU"))
    parser.add_argument(
        "--cc",
        metavar="X.Y",
        help=_("GPU compute capability, e.g. 8.6 (with --gpu: for a GPU tfenv does not know)"),
    )
    parser.add_argument(
        "--gpu-index", type=_gpu_index, metavar="N", help=_("plan for GPU N of the host")
    )
    parser.add_argument(
        "--driver", metavar="VERSION", help=_("NVIDIA driver version, e.g. 535.104.05")
    )
    parser.add_argument("--glibc", metavar="X.Y", help=_("glibc version of a Linux target"))
    if python:
        parser.add_argument("--python", metavar="X.Y", help=_("Python version the plan must use"))


def _gpu_index(text: str) -> int:
    from tfenv.specs import parse_count

    return parse_count("--gpu-index", text, minimum=0, maximum=1023)


def given_machine(args: argparse.Namespace) -> Optional[MachineArgs]:
    """The machine the flags (``add_machine_flags``) describe; None when none was given."""
    from tfenv.models.target import MachineArgs

    m = machine_args(args)
    return None if m == MachineArgs() else m


def machine_args(args: argparse.Namespace) -> MachineArgs:
    from tfenv.errors import UsageError
    from tfenv.models.target import MachineArgs

    if args.no_gpu and args.cc is not None:
        raise UsageError(_("--cc describes a GPU; it does not go with --no-gpu."))
    return MachineArgs(
        host_file=args.host,
        os=args.os,
        arch=args.arch,
        gpu=args.gpu,
        cc=args.cc,
        no_gpu=args.no_gpu,
        driver=args.driver,
        glibc=args.glibc,
        python=getattr(args, "python", None),
        gpu_index=args.gpu_index,
    )


def run(args: argparse.Namespace) -> int:
    from tfenv import api, report
    from tfenv.kb import KnowledgeBase

    if args.chart is not None:
        from tfenv.chart.files import check_path

        check_path("--chart", args.chart)
    if getattr(args, "force", False) and args.emit is None:
        from tfenv.errors import UsageError

        raise UsageError(_("--force goes with --emit DIR: it lets --emit overwrite files."))
    kb = KnowledgeBase.from_environment()
    res = api.resolve(
        args.tf,
        machine=machine_args(args),
        manager=args.manager,
        allow_cpu=args.allow_cpu,
        pre=args.pre,
        cuda_libs=args.cuda_libs,
        kb=kb,
    )
    if args.emit is not None and res.plan is not None:
        _emit(res, args)
    if args.chart is not None:
        _write_chart(kb, res, args.chart, quiet=args.json)
    if args.json:
        sys.stdout.write(report.resolution_json(res))
    else:
        from tfenv.textsafe import visible_lines

        sys.stdout.write(visible_lines(report.resolution_text(res)))
    return 0 if res.ok else 1


def _emit(res: Resolution, args: argparse.Namespace) -> None:
    """Write the plan's files (``--emit DIR``) and say on stderr what changed in DIR: what
    was left there is said even with --json (its stdout is the JSON alone)."""
    from tfenv.emit import docker_commands, write_plan_files
    from tfenv.textsafe import visible

    done = write_plan_files(
        res, args.emit, getattr(args, "requirements", None), force=getattr(args, "force", False)
    )
    lines = []
    if not args.json:
        lines.append(_("Wrote {paths}").format(paths=_paths(done.written)))
        if done.removed:
            lines.append(
                _("Removed {paths}: tfenv wrote them for an earlier plan.").format(
                    paths=_paths(done.removed)
                )
            )
        if res.plan is not None and res.plan.image is not None:
            lines += docker_commands(res, args.emit)
    if done.left:
        lines.append(
            _(
                "Left {paths}: tfenv wrote them for an earlier plan, but they were changed "
                "since (or an older tfenv, which kept no record, wrote them); remove them if "
                "this plan does not need them."
            ).format(paths=_paths(done.left))
        )
    for line in lines:
        print(visible(line), file=sys.stderr)


def _paths(paths: list[Path]) -> str:
    return ", ".join(str(p) for p in paths)


def _write_chart(kb: KnowledgeBase, res: Resolution, path: Path, quiet: bool) -> None:
    from tfenv.chart.files import chart_format, write_chart
    from tfenv.chart.render import machine_chart_text

    write_chart("--chart", path, machine_chart_text(kb, res, chart_format(path)))
    if not quiet:
        from tfenv.textsafe import visible

        print(_("Wrote {paths}").format(paths=visible(str(path))), file=sys.stderr)
