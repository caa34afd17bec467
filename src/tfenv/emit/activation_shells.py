"""fish and csh/tcsh versions of ``activate-tfenv.sh``, for ``tfenv install``.

The POSIX script stays the one place the plan's variables are composed (``$VAR``
references, ``$(python ...)``, loops over the ``nvidia-*`` wheels). The fish and csh
scripts run it in ``sh`` through a small helper, ``tfenv-vars.sh`` (:func:`bridge_script`), which
sources it and prints, for the shell asking, the commands that set the variables it
exported (each value quoted for that shell; a variable it leaves unset stays unset). So
every shell gets the same values as bash, from one definition.

The scripts name the files by their absolute paths in the environment (its activation
scripts name its folder the same way: an environment is not moved).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Optional

from tfenv.emit._header import header_lines
from tfenv.i18n import _
from tfenv.i18n.width import wrap
from tfenv.textsafe import comment_block, visible

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["bridge_script", "exported_names", "render_csh", "render_fish"]

_EXPORT = re.compile(r"^[ \t]*export[ \t]+([A-Za-z_][A-Za-z0-9_]*)", re.MULTILINE)

# sh tfenv-vars.sh SCRIPT fish|csh NAME...: fish prints one 'set -gx' line per variable
# (a *PATH variable as fish's list), csh one line of 'setenv NAME value;' commands for eval;
# values in single quotes ('\'' in csh; \' and \\ in fish).
_BRIDGE_BODY = """\
_tfenv_script=$1
_tfenv_shell=$2
shift 2
. "$_tfenv_script" >/dev/null || exit 1
for _tfenv_name do
    eval "_tfenv_set=\\${$_tfenv_name+x} _tfenv_value=\\${$_tfenv_name-}"
    [ -n "$_tfenv_set" ] || continue
    if [ "$_tfenv_shell" = fish ]; then
        _tfenv_value=$(printf '%s' "$_tfenv_value" | sed -e "s/[\\\\']/\\\\\\\\&/g")
        case $_tfenv_name in
        *PATH) printf "set -gx %s (string split : -- '%s')\\n" "$_tfenv_name" "$_tfenv_value" ;;
        *) printf "set -gx %s '%s'\\n" "$_tfenv_name" "$_tfenv_value" ;;
        esac
    else
        _tfenv_value=$(printf '%s' "$_tfenv_value" | sed -e "s/'/'\\\\\\\\''/g")
        printf "setenv %s '%s'; " "$_tfenv_name" "$_tfenv_value"
    fi
done
"""


def bridge_script() -> str:
    """``tfenv-vars.sh``: its comment in the current language, then the commands."""
    what = _(
        "Prints the commands that set, in fish or csh, the variables an activate-tfenv.sh "
        "sets; written by tfenv install, run by activate-tfenv.fish / activate-tfenv.csh:"
    )
    usage = "  sh tfenv-vars.sh SCRIPT fish|csh NAME..."
    return comment_block([*wrap(what, 86), usage]) + _BRIDGE_BODY


def exported_names(sh_script: str) -> tuple[str, ...]:
    """The variables ``activate-tfenv.sh`` exports, in order, each once."""
    return tuple(dict.fromkeys(_EXPORT.findall(sh_script)))


def render_fish(res: Resolution, script: str, bridge: str, names: tuple[str, ...]) -> str:
    """``activate-tfenv.fish``: ``script`` is ``activate-tfenv.sh``'s absolute path in the
    environment, ``bridge`` the helper's (:func:`bridge_script`); ``names``: what the
    script exports."""
    head = comment_block([*header_lines(res), _("Sourced by the environment's fish activation.")])
    words = " ".join(_fish_word(w) for w in (bridge, script, "fish", *names))
    return f"{head}sh {words} | source\n"


def render_csh(res: Resolution, script: str, bridge: str, names: tuple[str, ...]) -> Optional[str]:
    """``activate-tfenv.csh`` (as :func:`render_fish`); None when a path holds a character
    that csh cannot take inside the command substitution this needs (a quote, ``!``,
    ``$``, a backslash, a control character)."""
    if _CSH_UNSAFE.search(script + bridge):
        return None
    head = comment_block([*header_lines(res), _("Sourced by the environment's csh activation.")])
    words = " ".join(f"'{w}'" for w in (bridge, script, "csh", *names))
    return f'{head}eval "`sh {words}`"\n'


_CSH_UNSAFE = re.compile(r"['\"`!$\\\x00-\x1f\x7f]")


def _fish_word(text: str) -> str:
    """One fish word: single-quoted, where only ``\\`` and ``\'`` are escapes."""
    return "'" + visible(text).replace("\\", "\\\\").replace("'", "\\'") + "'"
