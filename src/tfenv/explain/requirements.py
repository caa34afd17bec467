"""A requirement as pip or uv prints it in an error, and the names explain gives platforms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

from tfenv.explain.common import version_or_none
from tfenv.i18n import _
from tfenv.kb.index import TF_DISTRIBUTIONS

__all__ = ["PLATFORM_TITLES", "TF_NAMES", "Req", "listed_versions", "parse_req", "platform_title"]

TF_NAMES = TF_DISTRIBUTIONS
PLATFORM_TITLES = {
    "linux_x86_64": "Linux x86_64",
    "linux_aarch64": "Linux aarch64",
    "windows_x86_64": "Windows x86_64",
    "macos_x86_64": "macOS x86_64 (Intel)",
    "macos_arm64": "macOS arm64 (Apple silicon)",
}


@dataclass(frozen=True)
class Req:
    name: str
    spec: SpecifierSet
    text: str  # as the message wrote it (without markers)
    extra: bool  # an and-cuda extra's line


def parse_req(text: str) -> Optional[Req]:
    text = text.strip()
    while text.endswith(")") and " (from " in text:  # "(from tensorflow[and-cuda])"
        text = text[: text.rindex(" (from ")].rstrip()
    extra = "extra ==" in text
    bare = text.split(";", 1)[0].strip()
    try:
        req = Requirement(bare)
    except InvalidRequirement:
        return None
    return Req(str(canonicalize_name(req.name)), req.specifier, bare, extra)


def listed_versions(text: Optional[str]) -> Optional[list[Version]]:
    """pip's ``from versions:`` list (None: "none" or not shown)."""
    if not text or text.strip() == "none":
        return None
    out = []
    for part in text.split(","):
        v = version_or_none(part.strip())
        if v is not None:
            out.append(v)
    return out


def platform_title(platform: Optional[str]) -> str:
    return PLATFORM_TITLES.get(platform or "", platform or _("any platform"))
