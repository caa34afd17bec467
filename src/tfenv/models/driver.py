"""NVIDIA driver versions, compared as versions and printed as NVIDIA prints them."""

from __future__ import annotations

from typing import Union

from packaging.version import Version

__all__ = ["DriverVersion"]


class DriverVersion(Version):
    """A driver version such as ``535.104.05`` or ``552.22``.

    :class:`~packaging.version.Version` compares them correctly but prints
    ``450.80.2`` for ``450.80.02``; NVIDIA writes the fields after the branch at
    least two digits wide, and so does ``str()`` here.
    """

    def __init__(self, version: Union[str, Version]) -> None:
        super().__init__(str(version) if isinstance(version, Version) else version)

    def __str__(self) -> str:
        first, *rest = self.release
        return ".".join([str(first), *(f"{part:02d}" for part in rest)])

    def __repr__(self) -> str:
        return f"<DriverVersion('{self}')>"

    @property
    def branch(self) -> int:
        """The driver branch (R535 for 535.104.05)."""
        return self.release[0]
