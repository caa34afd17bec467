"""Files written for a plan: pure renderers, plus one function that writes them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tfenv.emit.activation import render_activation
from tfenv.emit.environment_yml import render_environment
from tfenv.emit.requirements_txt import render_requirements
from tfenv.errors import UsageError
from tfenv.fsutil import atomic_write

if TYPE_CHECKING:
    from tfenv.resolver.plan import Resolution

__all__ = ["plan_files", "write_plan_files"]


def plan_files(res: Resolution) -> dict[str, str]:
    """File name -> content for the plan's route (nothing for an unsatisfiable answer)."""
    plan = res.plan
    if plan is None:
        return {}
    files: dict[str, str] = {}
    if plan.conda:
        files["environment.yml"] = render_environment(res)
    elif plan.pip:
        files["requirements.txt"] = render_requirements(res)
    script = render_activation(res)
    if script:
        files["activate-tfenv.sh"] = script
    return files


def write_plan_files(res: Resolution, folder: Path) -> list[Path]:
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--emit {folder}: this is a file, not a folder.")
    written = []
    for name, text in sorted(plan_files(res).items()):
        path = folder / name
        try:
            atomic_write(path, text, 0o755 if name.endswith(".sh") else 0o644)
        except OSError as exc:
            raise UsageError(f"Cannot write {path}: {exc.strerror or exc}.") from None
        written.append(path)
    return written
