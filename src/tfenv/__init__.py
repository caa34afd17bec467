"""tfenv: pick, explain and lock a consistent TensorFlow GPU stack for a machine."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
