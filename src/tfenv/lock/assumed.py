"""What locking assumes about a target when its configuration does not say.

One value for both halves of a lock, so that the pip closure (manylinux tags) and the
conda solve (``__glibc``) agree. Every use is written into the lockfile's header as an
assumption; giving ``glibc`` for the target removes it.
"""

from __future__ import annotations

__all__ = ["ASSUMED_GLIBC"]

# The newest TensorFlow wheels need manylinux_2_27 (2.21); 2.28 admits them and the
# manylinux_2_28 wheels most of their dependencies now ship.
ASSUMED_GLIBC = (2, 28)
