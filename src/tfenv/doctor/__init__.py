"""``tfenv doctor``: check an installed Python environment against this machine.

- :mod:`.env` reads the target environment from disk (site-packages, dist-info,
  conda-meta) without importing anything from it;
- :mod:`.libs` finds the CUDA libraries where TensorFlow will look and loads them in a
  subprocess;
- :mod:`.checks` turns all that, the host profile and the knowledge base into findings;
- :mod:`.imports` runs the ``--import`` check in the target interpreter.
"""

from __future__ import annotations

from tfenv.doctor.checks import Finding, Status, diagnose

__all__ = ["Finding", "Status", "diagnose"]
