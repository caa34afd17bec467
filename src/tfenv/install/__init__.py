"""``tfenv install``: from this machine to a working, verified TensorFlow environment.

One module per job:

- :mod:`.source`: what to install: the plan for this machine (as ``resolve`` makes it), or
  a target's hashed lockfile from the project's configuration;
- :mod:`.claim`: the folder: refused when it exists (``--force`` replaces only what tfenv
  created), removed again when the install fails or is interrupted;
- :mod:`.interpreters` and :mod:`.create`: the environment, made by uv, ``python -m venv``
  with a matching interpreter, or conda/mamba/micromamba (:mod:`.conda`);
- :mod:`.packages`: the install commands (uv, pip as the fallback); :mod:`.runner` runs
  them with progress;
- :mod:`.activation`: the plan's variables, set by the environment's ``activate``;
- :mod:`.verify`: the Verify step and ``doctor`` in the new environment, and explain's
  answer when something is wrong;
- :mod:`.steps`: every step and its commands, worked out (``--dry-run`` stops there);
  :mod:`.flow` runs them in order, each timed, for the text and ``--json`` reports.

Submodules are imported where needed, so importing this package costs nothing.
"""

from __future__ import annotations

from tfenv.errors import TfenvError

__all__ = ["InstallError"]


class InstallError(TfenvError):
    """An install step failed, or the machine lacks what the route needs: exit code 1."""

    exit_code = 1
