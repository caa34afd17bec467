"""tfenv: pick, explain and lock a consistent TensorFlow GPU stack for a machine.

The Python API (docs/api.md): :func:`resolve` and :func:`detect`, imported from
:mod:`tfenv.api` when first used, so that ``import tfenv`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tfenv.api import detect, resolve

__all__ = ["__version__", "detect", "resolve"]

__version__ = "0.1.0"

_API = frozenset({"detect", "resolve"})


def __getattr__(name: str) -> Any:
    if name in _API:
        from tfenv import api

        return getattr(api, name)
    raise AttributeError(f"module 'tfenv' has no attribute {name!r}")
