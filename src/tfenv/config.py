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

    [tool.tfenv.targets.cluster]
    os = "linux"
    arch = "x86_64"
    gpu = "A100"                         # or cc = "8.0", or no-gpu = true
    driver = "535.104.05"
    glibc = "2.31"

    [tool.tfenv.targets.laptop]
    host = "hosts/laptop.json"           # from 'tfenv detect --json'

A ``tfenv.toml`` holds the same keys at its top level (or under ``[tool.tfenv]``).
Nothing here touches the network or the knowledge base.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, NoReturn, Optional, Union

from packaging.requirements import InvalidRequirement, Requirement

from tfenv import errors, specs
from tfenv.api import MachineArgs

__all__ = [
    "CONFIG_FILES",
    "MANAGERS",
    "ConfigError",
    "ProjectConfig",
    "TargetSpec",
    "find_config",
    "load_config",
    "parse_config",
]

CONFIG_FILES = ("tfenv.toml", "pyproject.toml")
MANAGERS = ("auto", "pip", "conda")
_TOP_KEYS = (
    "tensorflow",
    "python",
    "dependencies",
    "index-url",
    "channels",
    "manager",
    "allow-cpu",
    "pre",
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
    "allow-cpu",
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class ConfigError(errors.ConfigError):
    """A malformed configuration; ``key`` is the dotted key at fault (``""`` for the file)."""

    def __init__(self, message: str, *, key: str = "", hint: Optional[str] = None) -> None:
        super().__init__(message, hint=hint)
        self.key = key


@dataclass(frozen=True)
class TargetSpec:
    """One named target machine: its facts, and the route preference for it."""

    name: str
    machine: MachineArgs
    manager: str = "auto"
    allow_cpu: bool = False


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

    @property
    def folder(self) -> Path:
        return self.path.parent

    def target(self, name: str) -> TargetSpec:
        for t in self.targets:
            if t.name == name:
                return t
        known = ", ".join(t.name for t in self.targets)
        raise errors.UsageError(f"No target named {name!r} in {self.path}; targets: {known}.")


def find_config(path_or_dir: Union[str, Path]) -> Path:
    """The file to read: ``path_or_dir`` itself, or ``tfenv.toml`` / ``pyproject.toml`` in it."""
    path = Path(path_or_dir)
    if not path.is_dir():
        if not path.is_file():
            raise ConfigError(f"The configuration file {path} does not exist.")
        return path
    for name in CONFIG_FILES:
        candidate = path / name
        if candidate.is_file() and (name == "tfenv.toml" or _has_tool_table(candidate)):
            return candidate
    raise ConfigError(
        f"No tfenv configuration in {path}: neither a tfenv.toml nor a [tool.tfenv] table "
        "in pyproject.toml.",
        hint="docs/lock.md shows the format with a full example.",
    )


def load_config(path_or_dir: Union[str, Path] = ".") -> ProjectConfig:
    """Read and validate the configuration found at ``path_or_dir`` (a file or a folder)."""
    path = find_config(path_or_dir)
    data = _read_toml(path)
    if path.name == "pyproject.toml" or "tool" in data:
        table = data.get("tool", {}).get("tfenv") if isinstance(data.get("tool"), dict) else None
        if not isinstance(table, dict):
            raise ConfigError(f"{path} has no [tool.tfenv] table.", key="tool.tfenv")
        return parse_config(table, path, prefix="tool.tfenv.")
    return parse_config(data, path, prefix="")


def parse_config(table: Mapping[str, Any], path: Path, *, prefix: str = "") -> ProjectConfig:
    """Validate an already-parsed ``[tool.tfenv]`` table; ``path`` anchors relative host files."""
    ctx = _Ctx(path, prefix)
    ctx.no_unknown_keys(table, _TOP_KEYS, "")
    tensorflow = ctx.string(table, "tensorflow", "") or "latest"
    ctx.check(tensorflow, "tensorflow", specs.parse_tf_spec)
    python = ctx.xy(table, "python", "")
    manager = ctx.choice(table, "manager", "", MANAGERS) or "auto"
    targets_table = table.get("targets")
    if not isinstance(targets_table, dict) or not targets_table:
        raise ConfigError(
            f"{path}: '{prefix}targets' must name at least one target machine, as a table "
            f'such as [{prefix}targets.cluster] with os = "linux" and gpu = "A100".',
            key=f"{prefix}targets",
        )
    allow_cpu = ctx.boolean(table, "allow-cpu", "")
    targets = tuple(
        _target(ctx, name, t, python, manager, allow_cpu) for name, t in targets_table.items()
    )
    return ProjectConfig(
        tensorflow=tensorflow,
        python=python,
        dependencies=_dependencies(ctx, table),
        index_url=ctx.string(table, "index-url", ""),
        channels=ctx.strings(table, "channels", ""),
        manager=manager,
        targets=targets,
        path=path,
        allow_cpu=allow_cpu,
        pre=ctx.boolean(table, "pre", ""),
    )


def _target(
    ctx: _Ctx, name: str, t: Any, python: Optional[str], manager: str, allow_cpu: bool
) -> TargetSpec:
    where = f"targets.{name}."
    if not _NAME.match(name):
        ctx.fail(
            f"targets.{name}",
            "is not a usable target name: it becomes part of file names, so use letters, "
            "digits, '_' and '-' (no dots: pylock.<name>.toml allows none)",
        )
    if not isinstance(t, dict):
        ctx.fail(f"targets.{name}", "must be a table of machine facts")
    ctx.no_unknown_keys(t, _TARGET_KEYS, where)
    host = ctx.string(t, "host", where)
    os_ = ctx.string(t, "os", where)
    if host is None and os_ is None:
        ctx.fail(
            f"targets.{name}",
            "must give either 'host' (a file from 'tfenv detect --json') or 'os' "
            "with the other machine facts",
        )
    gpu, cc = ctx.string(t, "gpu", where), ctx.string(t, "cc", where)
    no_gpu = ctx.boolean(t, "no-gpu", where)
    if (gpu is not None) + (cc is not None) + no_gpu > 1:
        ctx.fail(f"targets.{name}", "may give only one of 'gpu', 'cc' and 'no-gpu'")
    gpu_index = t.get("gpu-index")
    if gpu_index is not None and (not isinstance(gpu_index, int) or isinstance(gpu_index, bool)):
        ctx.fail(f"{where}gpu-index", "must be a whole number")
    host_path = None
    if host is not None:
        host_path = Path(host)
        if not host_path.is_absolute():
            host_path = ctx.path.parent / host_path
    machine = MachineArgs(
        host_file=host_path,
        os=ctx.check(os_, f"{where}os", specs.parse_os),
        arch=ctx.check(ctx.string(t, "arch", where), f"{where}arch", specs.parse_arch),
        gpu=gpu,
        cc=ctx.check(cc, f"{where}cc", specs.parse_cc),
        no_gpu=no_gpu,
        driver=ctx.check(ctx.string(t, "driver", where), f"{where}driver", specs.parse_driver),
        glibc=ctx.xy(t, "glibc", where),
        python=ctx.xy(t, "python", where) or python,
        gpu_index=gpu_index,
    )
    own_manager = ctx.choice(t, "manager", where, MANAGERS)
    own_cpu = t.get("allow-cpu")
    return TargetSpec(
        name=name,
        machine=machine,
        manager=own_manager or manager,
        allow_cpu=ctx.boolean(t, "allow-cpu", where) if own_cpu is not None else allow_cpu,
    )


def _dependencies(ctx: _Ctx, table: Mapping[str, Any]) -> tuple[str, ...]:
    deps = ctx.strings(table, "dependencies", "")
    for i, dep in enumerate(deps):
        try:
            Requirement(dep)
        except InvalidRequirement as exc:
            ctx.fail(
                f"dependencies[{i}]", f"{dep!r} is not a PEP 508 requirement ({_one_line(exc)})"
            )
    return deps


class _Ctx:
    """Typed getters that raise :class:`ConfigError` naming ``prefix + key``."""

    def __init__(self, path: Path, prefix: str) -> None:
        self.path = path
        self.prefix = prefix

    def fail(self, key: str, problem: str) -> NoReturn:
        full = self.prefix + key
        raise ConfigError(
            f"{self.path}: '{full}' {problem}.",
            key=full,
            hint="docs/lock.md describes every key.",
        )

    def no_unknown_keys(self, table: Mapping[str, Any], known: tuple[str, ...], where: str) -> None:
        for key in table:
            if key not in known:
                self.fail(f"{where}{key}", f"is not a known key (known: {', '.join(known)})")

    def string(self, table: Mapping[str, Any], key: str, where: str) -> Optional[str]:
        value = table.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.fail(f"{where}{key}", f"must be a non-empty string, not {value!r}")
        return str(value).strip()

    def strings(self, table: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            self.fail(f"{where}{key}", f"must be a list of strings, not {value!r}")
        return tuple(str(v).strip() for v in value)

    def boolean(self, table: Mapping[str, Any], key: str, where: str) -> bool:
        value = table.get(key, False)
        if not isinstance(value, bool):
            self.fail(f"{where}{key}", f"must be true or false, not {value!r}")
        return bool(value)

    def choice(
        self, table: Mapping[str, Any], key: str, where: str, choices: tuple[str, ...]
    ) -> Optional[str]:
        value = self.string(table, key, where)
        if value is not None and value not in choices:
            self.fail(f"{where}{key}", f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    def xy(self, table: Mapping[str, Any], key: str, where: str) -> Optional[str]:
        value = table.get(key)
        if isinstance(value, float):  # python = 3.11 written without quotes
            self.fail(f"{where}{key}", f'must be a quoted string such as "{value}"')
        text = self.string(table, key, where)
        return self.check(text, f"{where}{key}", lambda s: specs.parse_xy("X.Y", s))

    def check(
        self, value: Optional[str], key: str, parse: Callable[[str], object]
    ) -> Optional[str]:
        if value is None:
            return None
        try:
            parse(value)
        except errors.TfenvError as exc:
            self.fail(key, f"= {value!r} is not valid: {exc.message.rstrip('.')}")
        return value


def _read_toml(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python < 3.11
        import tomli as tomllib
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {_one_line(exc)}.") from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())


def _has_tool_table(path: Path) -> bool:
    try:
        data = _read_toml(path)
    except ConfigError:
        return True  # let load_config report the error on this file
    tool = data.get("tool")
    return isinstance(tool, dict) and "tfenv" in tool
