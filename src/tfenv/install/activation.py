"""The plan's variables, set whenever the environment is activated.

The scripts are the ones ``tfenv resolve --emit`` writes for the plan (``activate-tfenv.sh``:
the CUDA library paths, XLA's CUDA data dir where the release needs it), put where the
environment's own activation runs them:

- a venv: ``bin/activate-tfenv.sh``, sourced by a line added at the end of ``bin/activate``
  (bash, zsh, sh); on Windows ``Scripts\\activate-tfenv.bat`` / ``.ps1``, called from
  ``activate.bat`` / ``Activate.ps1``;
- a conda environment: ``etc/conda/activate.d/tfenv.sh`` (``.bat``, ``.ps1``), which conda,
  mamba and micromamba run on activation.

``deactivate`` does not undo them (they are meant for this environment only). fish and
csh are not covered.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tfenv.fsutil import atomic_write

if TYPE_CHECKING:
    from tfenv.install.create import Layout
    from tfenv.models.plan import Resolution

__all__ = ["hook_scripts", "write_hooks"]

_MARK = "added by tfenv install"
_COMMENT = {".sh": "# ", ".bat": "REM ", ".ps1": "# "}
_HOOK_LINES = {  # the venv's own script -> the line that runs ours
    "activate": (
        '[ -f "$VIRTUAL_ENV/bin/activate-tfenv.sh" ] && . "$VIRTUAL_ENV/bin/activate-tfenv.sh"'
    ),
    "activate.bat": 'call "%VIRTUAL_ENV%\\Scripts\\activate-tfenv.bat"',
    "Activate.ps1": '. "$env:VIRTUAL_ENV\\Scripts\\activate-tfenv.ps1"',
}


def hook_scripts(res: Resolution) -> dict[str, str]:
    """Suffix (``.sh``, ``.bat``, ``.ps1``) -> script text, for the plan's route."""
    from tfenv.emit import plan_files

    return {
        name[len("activate-tfenv") :]: text
        for name, text in plan_files(res).items()
        if name.startswith("activate-tfenv.")
    }


def write_hooks(layout: Layout, res: Resolution) -> list[Path]:
    """Write the scripts into the environment and hook them into its activation."""
    written = []
    for suffix, text in sorted(hook_scripts(res).items()):
        if layout.conda:
            path = layout.prefix / "etc" / "conda" / "activate.d" / f"tfenv{suffix}"
        else:
            path = layout.scripts / f"activate-tfenv{suffix}"
        atomic_write(path, text, 0o755 if suffix == ".sh" else 0o644)
        written.append(path)
        if not layout.conda:
            written += _hook(layout, suffix)
    return written


def _hook(layout: Layout, suffix: str) -> list[Path]:
    names = {".sh": "activate", ".bat": "activate.bat", ".ps1": "Activate.ps1"}
    own = layout.scripts / names[suffix]
    try:
        text = own.read_text("utf-8")
    except OSError:
        return []  # this environment has no such script
    if _MARK in text:
        return []
    newline = "\r\n" if suffix != ".sh" else "\n"
    end = "" if text.endswith("\n") else newline
    line = _HOOK_LINES[own.name]
    with own.open("a", encoding="utf-8", newline="") as fh:
        fh.write(f"{end}{_COMMENT[suffix]}{_MARK}{newline}{line}{newline}")
    return [own]
