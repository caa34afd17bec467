"""``tfenv check-upgrade``: what moving to another TensorFlow version means per machine.

- :mod:`.current` reads the current state (a lockfile, an installed environment,
  the project configuration or a plain version);
- :mod:`.assess` resolves the old and the new version for each target and
  classifies every change (:mod:`.checks` for blockers, :mod:`.changes` for the
  knowledge-base records that source them);
- :mod:`.diff` compares a lock's pins with the new plan;
- :mod:`.render` prints the result as text, Markdown or JSON.
"""

from __future__ import annotations

from tfenv.upgrade.model import PackageChange, TargetReport, UpgradeFinding, UpgradeReport

__all__ = ["PackageChange", "TargetReport", "UpgradeFinding", "UpgradeReport"]
