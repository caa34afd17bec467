"""Host files as ``tfenv detect --json`` writes them, for tests that hand tfenv a machine.

The document comes from :meth:`HostProfile.to_dict` itself, so a field the profile gains
or renames reaches every test's host file at once.
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from tfenv.host.profile import HostProfile


def host_document(**changes: Any) -> dict[str, Any]:
    """A Linux x86_64 machine with Python 3.11 and glibc 2.35, no driver and no GPU (schema
    1, every field present), with ``changes`` over its top-level fields."""
    profile = HostProfile(os="linux", arch="x86_64", python=Version("3.11"), glibc=Version("2.35"))
    doc = profile.to_dict()
    doc.update(changes)
    return doc
