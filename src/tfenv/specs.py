"""Parsing what users type: TensorFlow requests, versions, numbers, OS and architecture names.

Every version and number tfenv reads from outside (flags, the configuration, host files,
lockfiles, package metadata) goes through :func:`to_version` or one of the ``parse_*``
functions built on it, so one set of rules holds everywhere: ASCII digits only (Arabic-Indic
digits match ``\\d`` but make no version), a bounded length (no integer beyond Python's
4,300-digit conversion limit can be reached), finite numbers within a range (no ``nan``,
``inf`` or ``1e309``).
"""

from __future__ import annotations

import math
import re
from typing import Optional, Union

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from tfenv.errors import UsageError
from tfenv.i18n import _
from tfenv.models.driver import DriverVersion

__all__ = [
    "CUDA_MAJOR_MAX",
    "MAX_DIGITS",
    "MAX_VERSION_TEXT",
    "cc_problem",
    "cuda_problem",
    "cudnn_problem",
    "glibc_problem",
    "parse_arch",
    "parse_cc",
    "parse_count",
    "parse_driver",
    "parse_index_url",
    "parse_os",
    "parse_seconds",
    "parse_tf_spec",
    "parse_xy",
    "python_problem",
    "refuse_huge_numbers",
    "to_version",
]

MAX_VERSION_TEXT = 64  # longer than any real version; keeps every number small
_MAX_SPEC_TEXT = 200
_XY = re.compile(r"[0-9]{1,4}\.[0-9]{1,4}")
_DRIVER = re.compile(r"[0-9]{1,4}(\.[0-9]{1,4}){0,2}")
_NUMBER = re.compile(r"[0-9]{1,12}(\.[0-9]{0,9})?|\.[0-9]{1,9}")
_HUGE_DIGITS = re.compile(r"[0-9]{19,}")
MAX_DIGITS = 4300  # CPython's default limit on turning a decimal string into an int


# re's \d and str.isdecimal: Unicode category Nd; no further than the limit is measured
_DIGIT_RUN = re.compile(r"\d{0," + str(MAX_DIGITS + 1) + "}")
_SAMPLE = 1024  # less than MAX_DIGITS: a run that long spans several sampled positions


def _too_many_digits(text: str) -> Optional[tuple[int, int]]:
    """(start, end) of the first run of more than :data:`MAX_DIGITS` digits, or None.

    Linear: a regular expression would restart inside every shorter run (quadratic),
    so only every :data:`_SAMPLE`-th position is looked at, and the run through it
    measured when it is long enough from there (the first sampled position of a run
    lies less than :data:`_SAMPLE` after its start)."""
    for pos in range(0, len(text), _SAMPLE):
        if not text[pos].isdecimal():
            continue
        run = _DIGIT_RUN.match(text, pos)
        end = pos if run is None else run.end()
        if end - pos <= MAX_DIGITS - _SAMPLE:
            continue
        back = _DIGIT_RUN.match(text[max(0, pos - _SAMPLE) : pos][::-1])
        start = pos - (0 if back is None else back.end())
        if end - start > MAX_DIGITS:
            return start, end
    return None


def refuse_huge_numbers(text: str, what: str) -> None:
    """UsageError when ``text`` holds a number of more than :data:`MAX_DIGITS` digits.

    For text read whole and searched for numbers (a pasted error message or log): no
    real one holds such a number, and Python cannot convert it, so it is bad input.
    """
    found = _too_many_digits(text)
    if found is not None:
        start = found[0]
        raise UsageError(
            _(
                "{what} holds a number of more than {max_digits:,} digits (at character "
                "{position:,}); tfenv reads numbers of at most {max_digits:,} digits (Python's "
                "limit), and no real message has a longer one."
            ).format(what=what, max_digits=MAX_DIGITS, position=start + 1)
        )


def to_version(text: object) -> Version:
    """A PEP 440 version from text; ValueError (with the reason) for anything else.

    Unlike ``Version(text)``, it accepts only ASCII, at most :data:`MAX_VERSION_TEXT`
    characters, so no part can be too large to convert.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected a version string, found {type(text).__name__}")
    stripped = text.strip()
    if not stripped or not stripped.isascii() or len(stripped) > MAX_VERSION_TEXT:
        raise ValueError(f"{_show(text)} is not a version")
    try:
        return Version(stripped)
    except (InvalidVersion, ValueError):
        raise ValueError(f"{_show(text)} is not a version") from None


def _show(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


_OS_ALIASES = {
    "linux": "linux",
    "windows": "windows",
    "win": "windows",
    "win32": "windows",
    "wsl": "wsl2",
    "wsl2": "wsl2",
    "macos": "macos",
    "mac": "macos",
    "darwin": "macos",
    "osx": "macos",
}
_ARCH_ALIASES = {
    "x86_64": "x86_64",
    "amd64": "x86_64",
    "x64": "x86_64",
    "aarch64": "aarch64",
    "arm64": "arm64",
}


def parse_tf_spec(text: str) -> SpecifierSet:
    """``latest``, ``2.15`` (that series), ``2.15.1``, or any PEP 440 specifier."""
    text = text.strip()
    if text in ("", "latest"):
        return SpecifierSet()
    try:
        if not text.isascii() or len(text) > _MAX_SPEC_TEXT or _HUGE_DIGITS.search(text):
            raise InvalidSpecifier(text)
        if re.fullmatch(r"[0-9]+\.[0-9]+", text):
            return SpecifierSet(f"=={text}.*")
        if re.fullmatch(r"[0-9]+(\.[0-9]+)*([a-z]+[0-9]*)?(\.post[0-9]+)?", text):
            return SpecifierSet(f"=={text}")
        return SpecifierSet(text)
    except (InvalidSpecifier, ValueError):
        raise UsageError(
            _("--tf {text} is not a TensorFlow version or specifier.").format(text=_show(text)),
            hint=_(
                "Use 'latest', a series such as 2.15, a release such as 2.15.1, or a PEP 440 "
                "specifier such as '>=2.12,<2.16'."
            ),
        ) from None


def parse_xy(flag: str, text: str, example: str) -> Version:
    """An ``X.Y`` version such as a Python or glibc version; ``example`` is one of the
    flag's own (3.11 for a Python, 2.35 for glibc, 8.6 for a compute capability)."""
    if not _XY.fullmatch(text.strip()):
        raise UsageError(
            _("{flag} {text} is not a version of the form X.Y (for example {example}).").format(
                flag=flag, text=_show(text), example=example
            )
        )
    return Version(text.strip())


def parse_driver(text: str, flag: str = "--driver") -> DriverVersion:
    """An NVIDIA driver version as nvidia-smi prints it: 535.104.05, 552.22."""
    v = DriverVersion(text.strip()) if _DRIVER.fullmatch(text.strip()) else None
    if v is None or not 100 <= v.major < 1000:
        raise UsageError(
            _("{flag} {text} is not an NVIDIA driver version.").format(flag=flag, text=_show(text)),
            hint=_("Give it as nvidia-smi prints it, for example 535.104.05 or 552.22."),
        )
    return v


def _plain(v: Version) -> bool:
    """No epoch, pre-, post- or dev-release and no local label: a version as tools print it."""
    return not (v.epoch or v.pre or v.post is not None or v.dev is not None or v.local)


def cc_problem(v: Version) -> Optional[str]:
    """Why ``v`` is not the compute capability of an NVIDIA GPU, or None when it can be."""
    if len(v.release) == 2 and 1 <= v.major <= 13 and v.minor <= 9 and _plain(v):
        return None
    return (
        f"{v} is not a compute capability of any NVIDIA GPU (they run from 1.0 to 12.x, "
        "written as X.Y)"
    )


CUDA_MAJOR_MAX = 20  # CUDA 13.0 came in 2025; a major past this is no CUDA anyone runs


def python_problem(v: Version) -> Optional[str]:
    """Why ``v`` is not the version of a Python interpreter (3.11, 3.11.5, 3.13.0rc1),
    or None when it can be."""
    pre_ok = len(v.release) == 3 and v.pre is not None
    if (
        len(v.release) in (2, 3)
        and v.major in (2, 3)
        and v.minor < 100
        and (_plain(v) or (pre_ok and not (v.epoch or v.local or v.post is not None)))
    ):
        return None
    return f"{v} is not a Python version (written X.Y or X.Y.Z, such as 3.11 or 3.11.5)"


def cuda_problem(v: Version) -> Optional[str]:
    """Why ``v`` is not a CUDA release (X.Y, such as 12.2), or None when it can be."""
    if len(v.release) == 2 and 1 <= v.major <= CUDA_MAJOR_MAX and v.minor < 100 and _plain(v):
        return None
    return f"{v} is not a CUDA version (written X.Y, such as 12.2)"


def glibc_problem(v: Version) -> Optional[str]:
    """Why ``v`` is not a glibc release (2.Y, such as 2.35), or None when it can be."""
    if len(v.release) == 2 and v.major == 2 and v.minor < 100 and _plain(v):
        return None
    return f"{v} is not a glibc version (written 2.Y, such as 2.35)"


def cudnn_problem(v: Version) -> Optional[str]:
    """Why ``v`` is not a cuDNN release (such as 8.9.7), or None when it can be."""
    if 1 <= len(v.release) <= 4 and 1 <= v.major <= CUDA_MAJOR_MAX and _plain(v):
        return None
    return f"{v} is not a cuDNN version (such as 8.9.7)"


def parse_cc(text: str, flag: str = "--cc") -> Version:
    """A compute capability such as 8.6; it must be one NVIDIA has shipped (1.0-13.x)."""
    v = parse_xy(flag, text, "8.6")
    if cc_problem(v) is not None:
        raise UsageError(
            _("{flag} {value} is not a compute capability of any NVIDIA GPU.").format(
                flag=flag, value=text.strip()
            ),
            hint=_(
                "Compute capabilities run from 1.0 (Tesla) to 12.x (Blackwell); 'tfenv detect' "
                "or 'nvidia-smi --query-gpu=compute_cap --format=csv' shows yours."
            ),
        )
    return v


def parse_seconds(flag: str, text: Union[str, float], maximum: float = 7 * 86400.0) -> float:
    """A positive, finite number of seconds (``--timeout``), at most ``maximum``."""
    value = _number(text)
    if value is None or not 0 < value <= maximum:
        raise UsageError(
            _(
                "{flag} {text} is not a number of seconds: give a positive number up to "
                "{maximum:g}, such as 30 or 2.5."
            ).format(flag=flag, text=_show(str(text)), maximum=maximum)
        )
    return value


def parse_count(flag: str, text: Union[str, int], minimum: int = 1, maximum: int = 1024) -> int:
    """A whole number from ``minimum`` to ``maximum`` (``--jobs``, ``--gpu-index``)."""
    value = _number(text)
    if value is None or value != int(value) or not minimum <= value <= maximum:
        raise UsageError(
            _("{flag} {text} is not a whole number from {minimum} to {maximum}.").format(
                flag=flag, text=_show(str(text)), minimum=minimum, maximum=maximum
            )
        )
    return int(value)


def parse_index_url(flag: str, text: str) -> str:
    """A package index URL: ``http(s)://host/...`` or ``file://...``, on one line."""
    from urllib.parse import urlsplit

    url = text.strip()
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https", "file") and (
            parts.scheme == "file" or bool(parts.hostname)
        )
        _port = parts.port  # a port that is not a number raises ValueError
    except ValueError:
        ok = False
    if not ok or len(url) > 2000 or any(c.isspace() or not c.isprintable() for c in url):
        raise UsageError(
            _(
                "{flag} {text} is not a package index URL: give http://, https:// or file:// "
                "followed by a host and path."
            ).format(flag=flag, text=_show(text))
        )
    return url


def _number(text: Union[str, float]) -> Optional[float]:
    """A finite number written in ASCII digits, or None (no nan, inf, exponent, '٣')."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        return float(text) if abs(text) < 10**15 else None
    if isinstance(text, float):
        return text if math.isfinite(text) else None
    stripped = text.strip()
    if not _NUMBER.fullmatch(stripped):
        return None
    return float(stripped)


def parse_os(text: str) -> str:
    found = _OS_ALIASES.get(text.strip().lower())
    if found is None:
        raise UsageError(
            _("--os {text} is not one of linux, windows, wsl2, macos.").format(text=_show(text))
        )
    return found


def parse_arch(text: str) -> str:
    found = _ARCH_ALIASES.get(text.strip().lower())
    if found is None:
        raise UsageError(
            _("--arch {text} is not one of x86_64, aarch64, arm64.").format(text=_show(text))
        )
    return found
