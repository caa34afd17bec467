"""Files written for a plan: pure renderers, plus one function that writes them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from tfenv.emit.activation import render_activation, render_wheel_activation
from tfenv.emit.activation_windows import render_bat, render_ps1
from tfenv.emit.devcontainer import render_devcontainer
from tfenv.emit.dockerfile import render_dockerfile
from tfenv.emit.environment_yml import render_environment
from tfenv.emit.install_md import render_install_md
from tfenv.emit.record import RECORD, changes
from tfenv.emit.requirements_txt import render_requirements
from tfenv.errors import UsageError
from tfenv.fsutil import InputFileError, describe_oserror, read_text, replace_all
from tfenv.i18n import _
from tfenv.routes import route

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["Emitted", "docker_commands", "find_lock", "plan_files", "write_plan_files"]

_LOCK_MAX = 16 * 1024 * 1024  # the largest requirements lock read


def plan_files(res: Resolution, lock: Optional[str] = None) -> dict[str, str]:
    """File name -> content for the plan's route (nothing for an unsatisfiable answer).

    ``lock`` (container route) names a hashed requirements file in the same folder.
    """
    plan = res.plan
    if plan is None:
        return {}
    renderers: dict[str, tuple[str, Callable[[], Optional[str]]]] = {
        "requirements": ("requirements.txt", lambda: render_requirements(res)),
        "environment": ("environment.yml", lambda: render_environment(res)),
        "activation": ("activate-tfenv.sh", lambda: render_activation(res)),
        "activation-wheels": ("activate-tfenv.sh", lambda: render_wheel_activation(res)),
        "dockerfile": ("Dockerfile", lambda: render_dockerfile(res, lock)),
        "devcontainer": (".devcontainer/devcontainer.json", lambda: render_devcontainer(res)),
        "activation-bat": ("activate-tfenv.bat", lambda: render_bat(res)),
        "activation-ps1": ("activate-tfenv.ps1", lambda: render_ps1(res)),
        "install-guide": ("INSTALL.md", lambda: render_install_md(res)),
    }
    files: dict[str, str] = {}
    for kind in _kinds(route(plan.route).emits, res.target.system.is_windows):
        name, render = renderers[kind]
        text = render()
        if text:
            files[name] = text
    return files


def _kinds(emits: tuple[str, ...], windows: bool) -> tuple[str, ...]:
    """What to write for a target: on native Windows, the activation scripts for cmd.exe
    and PowerShell instead of the POSIX one."""
    if not windows:
        return emits
    out: list[str] = []
    for kind in emits:
        out += ["activation-bat", "activation-ps1"] if kind == "activation" else [kind]
    return tuple(out)


def find_lock(folder: Path) -> Optional[Path]:
    """A ``requirements*.txt`` in ``folder`` that pins with ``--hash`` (first by name), if any."""
    found = _hashed_lock(folder)
    return found[0] if found else None


def _hashed_lock(folder: Path) -> Optional[tuple[Path, str]]:
    """:func:`find_lock`'s file and its text (read once: the pins check reads the text)."""
    if not folder.is_dir():
        return None
    for path in sorted(folder.glob("requirements*.txt")):
        try:
            text = read_text(path, limit=_LOCK_MAX)
        except OSError:
            continue
        if "--hash" in text:
            return path, text
    return None


def docker_commands(res: Resolution, folder: Path) -> list[str]:
    """How to build and run what the container route wrote to ``folder``."""
    from tfenv.routes.container import docker_run

    plan = res.plan
    if plan is None or plan.image is None:
        return []
    return [
        _("Build: {command}").format(command=f"docker build -t tfenv-app {folder}"),
        _("Run:   {command}").format(command=docker_run("tfenv-app")),
    ]


@dataclass(frozen=True)
class Emitted:
    """What ``--emit`` did to the folder: the files it wrote (the record last), the files
    of an earlier plan it removed, and those it left (changed since, or an older tfenv's)."""

    written: list[Path]
    removed: list[Path]
    left: list[Path]


def write_plan_files(
    res: Resolution, folder: Path, requirements: Optional[Path] = None, force: bool = False
) -> Emitted:
    """Write the plan's files into ``folder`` with their record (:mod:`tfenv.emit.record`):
    a file in the way that tfenv did not write is refused (UsageError) unless ``force``;
    the files tfenv wrote for an earlier plan that this one does not have are removed."""
    try:
        exists, is_dir = folder.exists(), folder.is_dir()
    except (OSError, ValueError) as exc:
        raise UsageError(
            _("--emit {folder}: {why}.").format(folder=folder, why=describe_oserror(exc))
        ) from None
    if exists and not is_dir:
        raise UsageError(_("--emit {folder}: this is a file, not a folder.").format(folder=folder))
    files: dict[str, bytes] = {}
    used: list[str] = []
    lock: Optional[str] = None
    if res.plan is not None and "dockerfile" in route(res.plan.route).emits:
        lock, text, copied = _lock_in(folder, requirements)
        if lock is not None and res.plan.pip:
            _check_pins_tensorflow(lock, text, res.plan.package)
        if lock is not None and copied:
            files[lock] = text.encode("utf-8")
        elif lock is not None:
            used.append(lock)  # the folder's own lock: the Dockerfile copies it
    for name, text in plan_files(res, lock).items():
        files[name] = text.encode("utf-8")
    change = changes(folder, files, used, force)
    if change.refused:
        raise UsageError(_refusal(folder, change.refused))
    written = _write_whole(folder, {**files, RECORD: change.record}, change.remove)
    removed = [folder / name for name in change.remove]
    _remove_empty_folders(folder, change.remove)
    return Emitted(written, removed, [folder / name for name in change.left])


def _refusal(folder: Path, names: tuple[str, ...]) -> str:
    from tfenv.textsafe import visible

    return _(
        "--emit {folder}: tfenv did not write {files} there (or it was changed since tfenv "
        "wrote it), and will not overwrite what it did not write. Move it away, emit into "
        "another folder, or add --force to overwrite it."
    ).format(folder=visible(str(folder)), files=", ".join(visible(n) for n in names))


def _write_whole(folder: Path, files: dict[str, bytes], remove: tuple[str, ...]) -> list[Path]:
    """Write the emitted tree and remove the earlier plan's files whole or not at all
    (``fsutil.replace_all``: a full disk leaves neither a file nor a folder of it),
    scripts executable, in name order, the record last."""
    names = [*sorted(n for n in files if n != RECORD), RECORD]
    try:
        return replace_all(
            folder,
            [(name, files[name]) for name in names],
            modes={name: 0o755 for name in names if name.endswith(".sh")},
            remove=remove,
        )
    except OSError as exc:
        raise UsageError(
            _("Cannot write the files in {folder}: {why}. Nothing was written.").format(
                folder=folder, why=describe_oserror(exc)
            )
        ) from None


def _remove_empty_folders(folder: Path, removed: tuple[str, ...]) -> None:
    """Remove the folders (``.devcontainer``) that the removed files leave empty."""
    for name in removed:
        parent = (folder / name).parent
        while parent != folder and folder in parent.parents:
            try:
                parent.rmdir()
            except OSError:
                break
            parent = parent.parent


def _check_pins_tensorflow(lock: str, text: str, package: str) -> None:
    """A plan that installs TensorFlow in the image needs a lock that pins it (the image
    installs the lock with --no-deps and --require-hashes, and nothing else)."""
    import re

    from tfenv.textsafe import visible

    if not re.search(rf"^{re.escape(package)}==", text, re.MULTILINE | re.IGNORECASE):
        raise UsageError(
            _(
                "{lock}: this plan installs {package} in the image, but the lock does not pin "
                "it; lock the container target with 'tfenv lock' (its lock pins {package} and "
                "its CUDA wheels), or remove the lock to install without hash checking."
            ).format(lock=visible(lock), package=package)
        )


def _lock_in(folder: Path, requirements: Optional[Path]) -> tuple[Optional[str], str, list[Path]]:
    """The lock's name inside the build context and its text, copying ``requirements``
    there if needed."""
    if requirements is None:
        found = _hashed_lock(folder)
        return (found[0].name, found[1], []) if found else (None, "", [])
    try:
        text = read_text(requirements, limit=_LOCK_MAX)
    except InputFileError as exc:
        raise UsageError(
            _("--requirements {requirements}: cannot be read ({why}).").format(
                requirements=requirements, why=exc
            )
        ) from None
    if "--hash" not in text:
        raise UsageError(
            _(
                "--requirements {requirements}: no --hash lines; the image installs the lock "
                "with --require-hashes (lock it with hashes, e.g. "
                "'uv pip compile --generate-hashes')."
            ).format(requirements=requirements)
        )
    target = folder / requirements.name
    try:
        if target.resolve() == requirements.resolve():
            return requirements.name, text, []
    except (OSError, RuntimeError) as exc:
        raise UsageError(
            _("Cannot write {target}: {why}.").format(target=target, why=describe_oserror(exc))
        ) from None
    return requirements.name, text, [target]  # written with the plan's files
