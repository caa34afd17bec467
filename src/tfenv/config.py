"""The team's configuration: ``[tool.tfenv]`` in ``pyproject.toml``, or a ``tfenv.toml``.

:func:`load_config` reads and validates it into a frozen :class:`ProjectConfig`;
every problem becomes a :class:`ConfigError` (exit code 2) whose one paragraph
names the file and the key. The format is documented in ``docs/lock.md``::

    [tool.tfenv]
    tensorflow = "2.15"                  # default "latest": newest every target runs
    python = "3.11"                      # default Python of every target
    dependencies = ["pandas>=2", "tensorflow-datasets"]
    index-url = "https://mirror.example/simple/"   # default: pip/uv configuration
    channels = ["conda-forge"]
    manager = "auto"                     # auto, pip or conda
    cuda-libs = "build"                  # CUDA wheels: build versions, or "newest" (capped)
    out = "locks"                        # where the lockfiles go (default: this file's folder)

    [tool.tfenv.targets.cluster]
    os = "linux"
    arch = "x86_64"
    gpu = "A100"                         # or cc = "8.0", or no-gpu = true
    driver = "535.104.05"
    glibc = "2.31"

    [tool.tfenv.targets.laptop]
    host = "hosts/laptop.json"           # from 'tfenv detect --json'

    [tool.tfenv.targets.k80-box]
    os = "linux"
    gpu = "Tesla K80"
    driver = "470.82.01"
    tensorflow = "2.14"                  # its own TensorFlow: the others share the newest
                                         # they all run, without it

A ``tfenv.toml`` holds the same keys at its top level (or under ``[tool.tfenv]``).
Nothing here touches the network or the knowledge base.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Union

from packaging.requirements import InvalidRequirement, Requirement

from tfenv import errors, specs
from tfenv.errors import ConfigError
from tfenv.i18n import _
from tfenv.kb._fields import Node
from tfenv.models.target import CUDA_LIBS, MANAGERS, MachineArgs

__all__ = [
    "CONFIG_FILES",
    "MANAGERS",
    "ConfigError",
    "ProjectConfig",
    "TargetSpec",
    "find_config",
    "load_config",
    "optional_config",
    "parse_config",
]

CONFIG_FILES = ("tfenv.toml", "pyproject.toml")
_TOP_KEYS = (
    "tensorflow",
    "python",
    "dependencies",
    "index-url",
    "channels",
    "manager",
    "cuda-libs",
    "allow-cpu",
    "pre",
    "out",
    "targets",
)
_TARGET_KEYS = (
    "host",
    "os",
    "arch",
    "gpu",
    "cc",
    "no-gpu",
    "gpu-index",
    "driver",
    "glibc",
    "python",
    "manager",
    "cuda-libs",
    "allow-cpu",
    "tensorflow",
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")


@dataclass(frozen=True)
class TargetSpec:
    """One named target machine: its facts, and the route preference for it."""

    name: str
    machine: MachineArgs
    manager: str = "auto"
    allow_cpu: bool = False
    cuda_libs: Optional[str] = None  # its own CUDA-library preference; None: the project's
    tensorflow: Optional[str] = None  # its own TensorFlow: locked apart from the team's version


@dataclass(frozen=True)
class ProjectConfig:
    """What the team asked for; ``path`` is the file it came from."""

    tensorflow: str
    python: Optional[str]
    dependencies: tuple[str, ...]
    index_url: Optional[str]
    channels: tuple[str, ...]
    manager: str
    targets: tuple[TargetSpec, ...]
    path: Path
    allow_cpu: bool = False
    pre: bool = False
    out: Optional[Path] = None  # where the lockfiles live; relative to the file's folder
    cuda_libs: str = "build"  # the default CUDA-library preference of every target
    prefix: str = ""  # where the keys live in the file: "tool.tfenv." in a pyproject.toml

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def lock_folder(self) -> Path:
        """Where the lockfiles live: ``out`` when given, else the configuration's folder."""
        return self.folder if self.out is None else self.folder / self.out

    def target(self, name: str) -> TargetSpec:
        for t in self.targets:
            if t.name == name:
                return t
        known = ", ".join(t.name for t in self.targets)
        raise errors.UsageError(
            _("No target named {name!r} in {path}; targets: {known}.").format(
                name=name, path=self.path, known=known
            )
        )


def find_config(path_or_dir: Union[str, Path]) -> Path:
    """The file to read: ``path_or_dir`` itself, or ``tfenv.toml`` / ``pyproject.toml`` in it."""
    return _find(path_or_dir)[0]


def _find(path_or_dir: Union[str, Path]) -> tuple[Path, Optional[dict[str, Any]]]:
    """:func:`find_config`'s file, and its parsed TOML when finding it meant reading it (a
    ``pyproject.toml`` is read to see whether it has a ``[tool.tfenv]`` table), so that
    :func:`load_config` does not read it again."""
    path = Path(path_or_dir)
    try:
        is_dir, exists = path.is_dir(), path.exists()
    except (OSError, ValueError) as exc:  # a name too long, a NUL byte
        from tfenv.fsutil import describe_oserror

        raise ConfigError(
            _("Cannot read {path}: {exc}.").format(path=path, exc=describe_oserror(exc))
        ) from None
    if not is_dir:
        if not exists:
            raise ConfigError(_("The configuration file {path} does not exist.").format(path=path))
        return path, None  # not a regular file: reading it says so
    for name in CONFIG_FILES:
        candidate = path / name
        if not candidate.is_file():
            continue
        if name == "tfenv.toml":
            return candidate, None
        try:
            data = _read_toml(candidate)
        except ConfigError:
            return candidate, None  # let load_config report the error on this file
        tool = data.get("tool")
        if isinstance(tool, dict) and "tfenv" in tool:
            return candidate, data
    raise ConfigError(
        _(
            "No tfenv configuration in {path}: neither a tfenv.toml nor a [tool.tfenv] "
            "table in pyproject.toml."
        ).format(path=path),
        hint=_("docs/lock.md shows the format with a full example."),
    )


def load_config(path_or_dir: Union[str, Path] = ".") -> ProjectConfig:
    """Read and validate the configuration found at ``path_or_dir`` (a file or a folder)."""
    return _load(*_find(path_or_dir))


def optional_config(folder: Union[str, Path]) -> Optional[ProjectConfig]:
    """The configuration in ``folder`` when it has one (an invalid one is an error), else None."""
    try:
        found = _find(folder)
    except ConfigError:
        return None
    return _load(*found)


def _load(path: Path, data: Optional[dict[str, Any]]) -> ProjectConfig:
    """Validate the configuration in ``path`` (``data``: its TOML, when already read)."""
    if data is None:
        data = _read_toml(path)
    if path.name == "pyproject.toml" or "tool" in data:
        table = data.get("tool", {}).get("tfenv") if isinstance(data.get("tool"), dict) else None
        if not isinstance(table, dict):
            raise ConfigError(
                _("{path} has no [tool.tfenv] table.").format(path=path), key="tool.tfenv"
            )
        return parse_config(table, path, prefix="tool.tfenv.")
    return parse_config(data, path, prefix="")


def parse_config(table: Mapping[str, Any], path: Path, *, prefix: str = "") -> ProjectConfig:
    """Validate an already-parsed ``[tool.tfenv]`` table; ``path`` anchors relative host files."""
    root = Node(table, str(path), prefix.rstrip("."), _invalid).known(*_TOP_KEYS)
    tensorflow = _check(root.opt("tensorflow"), specs.parse_tf_spec) or "latest"
    python = _xy(root.opt("python"), "3.11")
    manager = root.opt("manager").opt_choice(*MANAGERS) or "auto"
    targets = root.opt("targets")
    if not isinstance(targets.value, dict) or not targets.value:
        raise targets.fail(
            _(
                "must name at least one target machine, as a table such as "
                '[{prefix}targets.cluster] with os = "linux" and gpu = "A100"'
            ).format(prefix=prefix)
        )
    allow_cpu = root.opt("allow-cpu").opt_boolean() or False
    cuda_libs = root.opt("cuda-libs").opt_choice(*CUDA_LIBS) or "build"
    return ProjectConfig(
        tensorflow=tensorflow,
        python=python,
        dependencies=_dependencies(root.opt("dependencies")),
        index_url=_url(root.opt("index-url")),
        channels=_channels(root.opt("channels")),
        manager=manager,
        targets=tuple(
            _target(t, name, path.parent, python, manager, allow_cpu)
            for name, t in targets.entries()
        ),
        path=path,
        allow_cpu=allow_cpu,
        pre=root.opt("pre").opt_boolean() or False,
        out=_out(root.opt("out")),
        cuda_libs=cuda_libs,
        prefix=prefix,
    )


def _target(
    t: Node, name: str, folder: Path, python: Optional[str], manager: str, allow_cpu: bool
) -> TargetSpec:
    if not _NAME.fullmatch(name):
        raise t.fail(
            _(
                "not a usable target name: it becomes part of file names, so use at most 100 "
                "letters, digits, '_' and '-' (no dots: pylock.<name>.toml allows none)"
            )
        )
    t.known(*_TARGET_KEYS)
    host = t.opt("host").opt_label(4096)
    os_ = _check(t.opt("os"), specs.parse_os)
    if host is None and os_ is None:
        raise t.fail(
            _(
                "must give either 'host' (a file from 'tfenv detect --json') or 'os' with the "
                "other machine facts"
            )
        )
    gpu, cc = t.opt("gpu").opt_label(), _check(t.opt("cc"), specs.parse_cc)
    no_gpu = t.opt("no-gpu").opt_boolean() or False
    if (gpu is not None) + (cc is not None) + no_gpu > 1:
        raise t.fail(_("may give only one of 'gpu', 'cc' and 'no-gpu'"))
    machine = MachineArgs(
        host_file=None if host is None else folder / host,  # an absolute host stays as it is
        os=os_,
        arch=_check(t.opt("arch"), specs.parse_arch),
        gpu=gpu,
        cc=cc,
        no_gpu=no_gpu,
        driver=_check(t.opt("driver"), specs.parse_driver),
        glibc=_xy(t.opt("glibc"), "2.35"),
        python=_xy(t.opt("python"), "3.11") or python,
        gpu_index=t.opt("gpu-index").opt_integer(minimum=0, maximum=1023),
    )
    own_cpu = t.opt("allow-cpu").opt_boolean()
    return TargetSpec(
        name=name,
        machine=machine,
        manager=t.opt("manager").opt_choice(*MANAGERS) or manager,
        allow_cpu=allow_cpu if own_cpu is None else own_cpu,
        cuda_libs=t.opt("cuda-libs").opt_choice(*CUDA_LIBS),
        tensorflow=_own_tf(t.opt("tensorflow")),
    )


def _own_tf(node: Node) -> Optional[str]:
    """A target's own TensorFlow (a series, a release or a specifier, as the top-level key);
    blank is refused: it would read as 'latest' and split the target off by accident."""
    value = _check(node, specs.parse_tf_spec)
    if value is not None and not value:
        raise node.fail(_('is blank: give a series such as "2.14", a release or a specifier'))
    return value


def _dependencies(node: Node) -> tuple[str, ...]:
    for item in node.opt_items():
        dep = item.label(1000).strip()
        try:
            req = Requirement(dep)
        except InvalidRequirement as exc:
            raise item.fail(
                _("{dep!r} is not a PEP 508 requirement ({one_line})").format(
                    dep=dep, one_line=_one_line(exc)
                )
            ) from None
        if req.url is not None:
            raise item.fail(
                _(
                    "{dep!r} is a direct reference (name @ URL); tfenv locks what the package "
                    "index serves, so give a name and a version specifier (such as '{name}>=1.0')"
                ).format(dep=dep, name=req.name)
            )
    return _strings(node)


_CHANNEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


def _channels(node: Node) -> tuple[str, ...]:
    """conda channels: names (conda-forge, conda-forge/label/x) or http(s):// and file://
    URLs; not a relative path, which would depend on the folder tfenv runs in."""
    for item in node.opt_items():
        channel = item.label(1000).strip()
        if _CHANNEL_NAME.fullmatch(channel) or _channel_url(channel):
            continue
        raise item.fail(
            _(
                "{channel!r} is not a conda channel: give a name such as conda-forge, or an "
                "http://, https:// or file:/// URL"
            ).format(channel=channel)
        )
    return _strings(node)


def _channel_url(text: str) -> bool:
    from urllib.parse import urlsplit

    if any(c.isspace() for c in text):
        return False
    try:
        parts = urlsplit(text)
        if parts.scheme in ("http", "https"):
            _port = parts.port  # a port that is not a number raises ValueError
            return bool(parts.hostname)
    except ValueError:
        return False
    return parts.scheme == "file" and parts.path.startswith("/") and not parts.netloc


def _out(node: Node) -> Optional[Path]:
    text = _text(node)
    if text is None:
        return None
    if not text:
        raise node.fail(_("must name a folder (relative to this file's folder), not be empty"))
    return Path(text)


# -- reading helpers: typed reads are tfenv.kb._fields.Node's ----------------


def _invalid(file: str, key: str, problem: str) -> ConfigError:
    if key:
        message = _("{file}: '{key}': {problem}.").format(file=file, key=key, problem=problem)
    else:
        message = _("{file}: {problem}.").format(file=file, problem=problem)
    return ConfigError(message, key=key, hint=_("docs/lock.md describes every key."))


def _text(node: Node) -> Optional[str]:
    value = node.opt_string()
    return None if value is None else value.strip()


def _strings(node: Node) -> tuple[str, ...]:
    return tuple(n.label(1000).strip() for n in node.opt_items())


def _url(node: Node) -> Optional[str]:
    """An index URL: http, https or file, with a host for http(s), on one line."""
    return _check(node, lambda s: specs.parse_index_url("index-url", s))


def _check(node: Node, parse: Callable[[str], object]) -> Optional[str]:
    """The stripped string at ``node`` (None when absent), which ``parse`` must accept."""
    value = _text(node)
    if value is not None:
        try:
            parse(value)
        except errors.TfenvError as exc:
            raise node.fail(
                _("{value!r} is not valid: {why}").format(value=value, why=exc.message.rstrip("."))
            ) from None
    return value


def _xy(node: Node, example: str) -> Optional[str]:
    """A quoted X.Y version (``example``: one of the key's own, 3.11 for a Python)."""
    if isinstance(node.value, float):  # python = 3.11 written without quotes
        raise node.fail(_('must be a quoted string such as "{value}"').format(value=node.value))
    return _check(node, lambda s: specs.parse_xy("X.Y", s, example))


def _read_toml(path: Path) -> dict[str, Any]:
    from tfenv.fsutil import InputFileError, read_text
    from tfenv.structured import MAX_TOML, StructureError, load_toml

    try:
        return load_toml(read_text(path, limit=MAX_TOML, what="of a TOML file"))
    except InputFileError as exc:
        raise ConfigError(
            _("Cannot read {path}: {strerror}.").format(path=path, strerror=exc.strerror)
        ) from None
    except StructureError as exc:
        raise ConfigError(
            _("{path} is not valid TOML: {exc}.").format(path=path, exc=exc)
        ) from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())
