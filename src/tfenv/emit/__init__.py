"""Files written for a plan: pure renderers, plus one function that writes them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

from tfenv.emit.activation import render_activation
from tfenv.emit.devcontainer import render_devcontainer
from tfenv.emit.dockerfile import render_dockerfile
from tfenv.emit.environment_yml import render_environment
from tfenv.emit.requirements_txt import render_requirements
from tfenv.errors import UsageError
from tfenv.fsutil import InputFileError, atomic_write, describe_oserror, read_text

if TYPE_CHECKING:
    from tfenv.resolver.plan import Resolution

__all__ = ["docker_commands", "find_lock", "plan_files", "write_plan_files"]

_LOCK_MAX = 16 * 1024 * 1024  # the largest requirements lock read


def plan_files(res: Resolution, lock: Optional[str] = None) -> dict[str, str]:
    """File name -> content for the plan's route (nothing for an unsatisfiable answer).

    ``lock`` (container route) names a hashed requirements file in the same folder.
    """
    plan = res.plan
    if plan is None:
        return {}
    if plan.image is not None:
        return {
            "Dockerfile": render_dockerfile(res, lock),
            ".devcontainer/devcontainer.json": render_devcontainer(res),
        }
    files: dict[str, str] = {}
    if plan.conda:
        files["environment.yml"] = render_environment(res)
    elif plan.pip:
        files["requirements.txt"] = render_requirements(res)
    script = render_activation(res)
    if script:
        files["activate-tfenv.sh"] = script
    return files


def find_lock(folder: Path) -> Optional[Path]:
    """A ``requirements*.txt`` in ``folder`` that pins with ``--hash`` (first by name), if any."""
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("requirements*.txt")):
        try:
            if "--hash" in read_text(path, limit=_LOCK_MAX):
                return path
        except OSError:
            continue
    return None


def docker_commands(res: Resolution, folder: Path) -> list[str]:
    """How to build and run what the container route wrote to ``folder``."""
    from tfenv.resolver.packages import docker_run

    plan = res.plan
    if plan is None or plan.image is None:
        return []
    return [
        f"Build: docker build -t tfenv-app {folder}",
        f"Run:   {docker_run('tfenv-app')}",
    ]


def write_plan_files(
    res: Resolution, folder: Path, requirements: Optional[Path] = None
) -> list[Path]:
    try:
        exists, is_dir = folder.exists(), folder.is_dir()
    except (OSError, ValueError) as exc:
        raise UsageError(f"--emit {folder}: {describe_oserror(exc)}.") from None
    if exists and not is_dir:
        raise UsageError(f"--emit {folder}: this is a file, not a folder.")
    written = []
    lock: Optional[str] = None
    if res.plan is not None and res.plan.image is not None:
        lock, copied = _lock_in(folder, requirements)
        written += copied
    for name, text in sorted(plan_files(res, lock).items()):
        path = folder / name
        try:
            atomic_write(path, text, 0o755 if name.endswith(".sh") else 0o644)
        except OSError as exc:
            raise UsageError(f"Cannot write {path}: {describe_oserror(exc)}.") from None
        written.append(path)
    return written


def _lock_in(folder: Path, requirements: Optional[Path]) -> tuple[Optional[str], list[Path]]:
    """The lock's name inside the build context, copying ``requirements`` there if needed."""
    if requirements is None:
        found = find_lock(folder)
        return (found.name if found else None), []
    try:
        text = read_text(requirements, limit=_LOCK_MAX)
    except InputFileError as exc:
        raise UsageError(f"--requirements {requirements}: cannot be read ({exc}).") from None
    if "--hash" not in text:
        raise UsageError(
            f"--requirements {requirements}: no --hash lines; the image installs the lock "
            "with --require-hashes (lock it with hashes, e.g. 'uv pip compile --generate-hashes')."
        )
    target = folder / requirements.name
    try:
        if target.resolve() == requirements.resolve():
            return requirements.name, []
        atomic_write(target, text)
    except OSError as exc:
        raise UsageError(f"Cannot write {target}: {describe_oserror(exc)}.") from None
    return requirements.name, [target]
