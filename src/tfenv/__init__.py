"""tfenv: pick, explain and lock a consistent TensorFlow GPU stack for a machine.

The Python API (docs/api.md): :func:`resolve`, :func:`detect`, :func:`lock`,
:func:`check_lock` and :func:`check_upgrade`, imported when first used, so that
``import tfenv`` stays cheap. ``tfenv.lock`` is the :mod:`tfenv.lock` package, which is
callable: ``tfenv.lock(...)`` is :func:`tfenv.lock.api.lock` (a function could not keep
the name: importing any module of the package sets ``tfenv.lock`` to the package).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported: `import tfenv` stays cheap
if TYPE_CHECKING:
    from typing import Any

    from tfenv.api import detect, resolve
    from tfenv.lock.api import check_lock, lock
    from tfenv.upgrade.api import check_upgrade

__all__ = ["__version__", "check_lock", "check_upgrade", "detect", "lock", "resolve"]

__version__ = "0.1.0"

# name -> the module that defines it
_API = {
    "check_lock": "tfenv.lock.api",
    "check_upgrade": "tfenv.upgrade.api",
    "detect": "tfenv.api",
    "resolve": "tfenv.api",
}


def __getattr__(name: str) -> Any:
    from importlib import import_module

    if name == "lock":
        return import_module("tfenv.lock")  # callable (tfenv/lock/__init__.py)
    if name in _API:
        return getattr(import_module(_API[name]), name)
    raise AttributeError(f"module 'tfenv' has no attribute {name!r}")
