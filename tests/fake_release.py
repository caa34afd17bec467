"""A copy of tfenv's source with one more TensorFlow release in its shipped data, added the
way ``tfenv refresh`` adds one (its index file rewritten with ``refresh.dumps``).

The new release is the final of the newest pre-release on the index (or, when the newest
release is a final, the next minor), uploaded a day after it: what the index shows the day a
release lands. ``tests/test_fake_release.py`` runs tests against the copy.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

from packaging.version import Version

import tfenv
from tfenv.refresh import dumps

__all__ = ["add_release", "source_copy"]


def source_copy(dest: Path) -> Path:
    """A copy of the ``tfenv`` package below ``dest`` (``dest`` goes on PYTHONPATH)."""
    package = Path(tfenv.__file__).parent
    shutil.copytree(package, dest / "tfenv", ignore=shutil.ignore_patterns("__pycache__"))
    return dest / "tfenv"


def add_release(data: Path) -> str:
    """Add the next final release to ``data/index/tensorflow.json``; returns its version."""
    path = data / "index" / "tensorflow.json"
    doc: dict[str, Any] = json.loads(path.read_text("utf-8"))
    releases: list[dict[str, Any]] = doc["releases"]
    newest = max(releases, key=lambda r: Version(r["version"]))
    v = Version(newest["version"])
    new = copy.deepcopy(newest)
    version = v.base_version if v.is_prerelease else f"{v.major}.{v.minor + 1}.0"
    new.update(version=version, prerelease=False, yanked=False, yanked_reason=None)
    new["uploaded"] = "2099-01-01"
    releases.append(new)
    releases.sort(key=lambda r: Version(r["version"]))
    path.write_text(dumps(doc), "utf-8")
    return version
