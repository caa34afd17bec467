"""Reading a host file: the JSON that ``tfenv detect --json`` writes, validated field by
field (bounded, printable text; versions and drivers checked as the flags are), every
problem one :class:`~tfenv.errors.ConfigError` that names the field."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable, Optional, Union

from packaging.version import Version

from tfenv.errors import ConfigError, UsageError
from tfenv.host.profile import (
    ARCHES,
    CC_SOURCES,
    GPU_NAME_MAX,
    NOTE_FACTS,
    NOTE_MAX,
    OS_KINDS,
    PATH_MAX,
    PROFILE_KEYS,
    SCHEMA,
    CudnnInstall,
    GpuInfo,
    HostNote,
    HostProfile,
    InstalledToolkit,
)
from tfenv.i18n import _
from tfenv.kb._fields import Node
from tfenv.specs import (
    cc_problem,
    cuda_problem,
    cudnn_problem,
    glibc_problem,
    parse_driver,
    python_problem,
)
from tfenv.textsafe import is_printable

__all__ = ["profile_from_dict", "profile_from_json", "read_profile"]

_FILE_MAX = 4 * 1024 * 1024  # a host profile is a few KiB


def profile_from_dict(data: Any, origin: str) -> HostProfile:
    """Read a profile written by :meth:`HostProfile.to_dict`; ConfigError names any bad
    field."""
    root = Node(data, origin, errors=_invalid).only(*PROFILE_KEYS)
    schema = root.opt("schema")
    if type(schema.value) is not int or schema.value != SCHEMA:  # not true, not 1.0
        raise schema.fail(
            _("must be the whole number {schema}, found {value!r}").format(
                schema=SCHEMA, value=schema.value
            )
        )
    return HostProfile(
        os=root.get("os").choice(*OS_KINDS),
        arch=root.get("arch").choice(*ARCHES),
        glibc=_checked(root.opt("glibc"), glibc_problem),
        python=_required(root.get("python"), python_problem),
        conda_env=root.opt("conda_env").opt_label(PATH_MAX),
        driver=_driver(root.opt("driver")),
        driver_cuda=_checked(root.opt("driver_cuda"), cuda_problem),
        gpus=tuple(_gpu(g) for g in root.opt("gpus").opt_items()),
        cuda_toolkits=tuple(_toolkit(t) for t in root.opt("cuda_toolkits").opt_items()),
        cudnn=tuple(_cudnn(c) for c in root.opt("cudnn").opt_items()),
        packages=_packages(root.opt("packages")),
        notes=tuple(_note(n) for n in root.opt("notes").opt_items()),
        sources=_label_map(root.opt("sources")),
    )


def profile_from_json(text: str, origin: str) -> HostProfile:
    from tfenv.structured import StructureError, load_json

    try:
        data = load_json(text, unique_keys=True)
    except StructureError as exc:
        raise ConfigError(
            _("{origin} is not valid JSON ({exc}).").format(origin=_cap(_(origin)), exc=exc),
            hint=_("Write it with 'tfenv detect --json --output FILE'."),
        ) from None
    return profile_from_dict(data, origin)


def read_profile(path: Union[str, Path]) -> HostProfile:
    """Read a host profile written by ``tfenv detect --json``."""
    from tfenv.fsutil import InputFileError, read_text

    p = Path(path)
    try:
        text = read_text(p, limit=_FILE_MAX)
    except InputFileError as exc:
        raise ConfigError(
            _("The host file {p} cannot be read ({strerror}).").format(p=p, strerror=exc.strerror)
        ) from None
    return profile_from_json(text, _("the host file {path}").format(path=p))


# -- reading helpers --------------------------------------------------------


def _invalid(origin: str, path: str, problem: str) -> ConfigError:
    if path:
        message = _("{origin} is not a valid host profile: field '{path}': {problem}.")
    else:
        message = _("{origin} is not a valid host profile: {problem}.")
    return ConfigError(
        message.format(origin=_cap(_(origin)), path=path, problem=problem),
        hint=_("Regenerate it with 'tfenv detect --json --output FILE', or fix that field."),
    )


def _gpu(g: Node) -> GpuInfo:
    g.only("index", "name", "compute_capability", "cc_source", "memory_mib", "mig", "uuid")
    return GpuInfo(
        index=g.get("index").integer(minimum=0, maximum=1023),
        name=g.get("name").label(GPU_NAME_MAX),
        compute_capability=_cc(g.opt("compute_capability")),
        cc_source=g.opt("cc_source").opt_choice(*CC_SOURCES),
        memory_mib=g.opt("memory_mib").opt_integer(minimum=0, maximum=2**40),
        mig=g.opt("mig").opt_boolean() or False,
        uuid=g.opt("uuid").opt_label(),
    )


def _cc(node: Node) -> Optional[Version]:
    return _checked(node, cc_problem)


def _checked(node: Node, problem: Callable[[Version], Optional[str]]) -> Optional[Version]:
    """The version at ``node`` (None when null), which ``problem`` must find none with."""
    return None if node.is_null else _required(node, problem)


def _required(node: Node, problem: Callable[[Version], Optional[str]]) -> Version:
    """The version at ``node`` (a string), which ``problem`` must find none with."""
    version = node.version(strict=True)
    why = problem(version)
    if why:
        raise node.fail(why)
    return version


_DISTRIBUTION = re.compile(r"^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$", re.IGNORECASE)


def _packages(node: Node) -> tuple[tuple[str, str], ...]:
    """Installed distributions: PEP 508 names mapped to PEP 440 versions, as sorted pairs."""
    pairs = node.str_map()
    for key, child in node.entries() if pairs else ():
        if len(key) > 200 or not _DISTRIBUTION.match(key):
            raise child.fail(
                _("{key!r} is not the name of a Python distribution").format(key=key[:40])
            )
        child.version(strict=True)
    return pairs


def _driver(node: Node) -> Optional[str]:
    """The driver as written (535.104.05 keeps its zero), checked like --driver."""
    text = node.opt_string()
    if text is None:
        return None
    try:
        parse_driver(text, flag="the driver")
    except UsageError as exc:
        raise node.fail(exc.message.rstrip(".")) from None
    return text


def _note(node: Node) -> HostNote:
    """A note: an object, or a plain string (files written before notes had a fact,
    read as general notes)."""
    if isinstance(node.value, str):
        return HostNote(node.label(NOTE_MAX))
    node.only("about", "value", "text")
    about = node.opt("about").opt_choice(*NOTE_FACTS)
    value = node.opt("value")
    if about is None and not value.is_null:
        raise value.fail(_("a note about no fact (about: null) has no value"))
    return HostNote(node.get("text").label(NOTE_MAX), about, value.opt_label(NOTE_MAX))


def _label_map(node: Node) -> tuple[tuple[str, str], ...]:
    """A mapping of printable names to printable values, as sorted pairs."""
    pairs = node.str_map()
    for key, child in node.entries() if pairs else ():
        if not key or len(key) > 200 or not is_printable(key):
            raise child.fail(_("the key is not a printable name of at most 200 characters"))
        child.label(NOTE_MAX)
    return pairs


def _toolkit(t: Node) -> InstalledToolkit:
    t.only("version", "path", "source")
    return InstalledToolkit(
        version=_required(t.get("version"), cuda_problem),
        path=t.get("path").label(PATH_MAX),
        source=t.get("source").label(),
    )


def _cudnn(c: Node) -> CudnnInstall:
    c.only("version", "path")
    return CudnnInstall(
        version=_required(c.get("version"), cudnn_problem), path=c.get("path").label(PATH_MAX)
    )


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]
