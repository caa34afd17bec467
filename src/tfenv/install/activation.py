"""The plan's variables, set whenever the environment is activated.

The scripts are the ones ``tfenv resolve --emit DIR`` writes for the plan (``activate-tfenv.sh``:
the CUDA library paths, XLA's CUDA data dir where the release needs it), put where the
environment's own activation runs them:

- a venv: ``bin/activate-tfenv.sh``, sourced by a line added at the end of ``bin/activate``
  (bash, zsh, sh); ``bin/activate-tfenv.fish`` and ``.csh`` (:mod:`tfenv.emit.activation_shells`:
  they run the POSIX script in ``sh`` through ``bin/tfenv-vars.sh`` and set what it
  exports), sourced from ``activate.fish`` / ``activate.csh``; on Windows
  ``Scripts\\activate-tfenv.bat`` / ``.ps1``, called from ``activate.bat`` / ``Activate.ps1``;
- a conda environment: ``etc/conda/activate.d/tfenv.sh`` (``.fish``, ``.csh``, ``.bat``,
  ``.ps1``), which conda, mamba and micromamba run on activation in the shell of that
  suffix (the helper is ``etc/conda/tfenv-vars.sh``, outside ``activate.d``).

``deactivate`` does not undo them (they are meant for this environment only).
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
_COMMENT = {".sh": "# ", ".bat": "REM ", ".ps1": "# ", ".fish": "# ", ".csh": "# "}
_OWN = {  # our script's suffix -> the venv's own activation script that runs it
    ".sh": "activate",
    ".bat": "activate.bat",
    ".ps1": "Activate.ps1",
    ".fish": "activate.fish",
    ".csh": "activate.csh",
}
_HOOK_LINES = {  # the venv's own script -> the line that runs ours
    "activate": (
        '[ -f "$VIRTUAL_ENV/bin/activate-tfenv.sh" ] && . "$VIRTUAL_ENV/bin/activate-tfenv.sh"'
    ),
    "activate.bat": 'call "%VIRTUAL_ENV%\\Scripts\\activate-tfenv.bat"',
    "Activate.ps1": '. "$env:VIRTUAL_ENV\\Scripts\\activate-tfenv.ps1"',
    "activate.fish": (
        'test -f "$VIRTUAL_ENV/bin/activate-tfenv.fish"; '
        'and source "$VIRTUAL_ENV/bin/activate-tfenv.fish"'
    ),
    "activate.csh": (
        'if ( -f "$VIRTUAL_ENV/bin/activate-tfenv.csh" ) '
        'source "$VIRTUAL_ENV/bin/activate-tfenv.csh"'
    ),
}
_BRIDGE = "tfenv-vars.sh"


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
    for suffix, text in sorted(_scripts(layout, res).items()):
        path = _script_path(layout, suffix)
        atomic_write(path, text, 0o755 if suffix == ".sh" else 0o644)
        written.append(path)
        if not layout.conda and suffix in _OWN:
            written += _hook(layout, suffix)
    return written


def _scripts(layout: Layout, res: Resolution) -> dict[str, str]:
    """The plan's scripts, and where there is a POSIX one the fish and csh ones that
    run it (with their helper, under the key ``_BRIDGE``)."""
    from tfenv.emit.activation_shells import bridge_script, exported_names, render_csh, render_fish

    scripts = hook_scripts(res)
    posix = scripts.get(".sh")
    if posix is None:
        return scripts
    names = exported_names(posix)
    sh, bridge = str(_script_path(layout, ".sh")), str(_script_path(layout, _BRIDGE))
    scripts[".fish"] = render_fish(res, sh, bridge, names)
    csh = render_csh(res, sh, bridge, names)
    if csh is not None:
        scripts[".csh"] = csh
    scripts[_BRIDGE] = bridge_script()
    return scripts


def _script_path(layout: Layout, suffix: str) -> Path:
    """Where a script goes (``suffix``: its suffix, or the helper's name); absolute, as
    the fish and csh scripts name them."""
    if layout.conda:
        conda = layout.folder.absolute() / "etc" / "conda"
        return conda / suffix if suffix == _BRIDGE else conda / "activate.d" / f"tfenv{suffix}"
    folder = Path(layout.scripts).absolute()
    return folder / suffix if suffix == _BRIDGE else folder / f"activate-tfenv{suffix}"


def _hook(layout: Layout, suffix: str) -> list[Path]:
    own = Path(layout.scripts).absolute() / _OWN[suffix]
    try:
        text = own.read_text("utf-8")
    except OSError:
        return []  # this environment has no such script
    if _MARK in text:
        return []
    newline = "\r\n" if suffix in (".bat", ".ps1") else "\n"
    end = "" if text.endswith("\n") else newline
    line = _HOOK_LINES[own.name]
    with own.open("a", encoding="utf-8", newline="") as fh:
        fh.write(f"{end}{_COMMENT[suffix]}{_MARK}{newline}{line}{newline}")
    return [own]
