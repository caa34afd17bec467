"""The comment block every lockfile starts with, the hash of its inputs, and its content digest.

The inputs hash covers what a lockfile is derived from: the team configuration
(every key, every target's normalised facts, since any target can change the
team's TensorFlow version), the knowledge-base data and the target's name. It
deliberately leaves out where the index URL came from when it is not in the
configuration, and the state of the index itself: ``tfenv lock --check`` asks
"does this file still match the configuration and the knowledge base?". Next to
it, a short digest of each input (``tfenv-input-keys``) lets ``--check`` say
which one changed.

The last header line, ``tfenv-content: sha256:...``, is the digest of the whole
file without that line (line endings normalised to ``\n``), so that any edit,
a hand-edited pin or hash included, is caught: see :func:`stamp_content` and
:func:`read_stamp`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from tfenv.i18n import using

if TYPE_CHECKING:
    from tfenv.config import ProjectConfig
    from tfenv.formats.cuda_pins import CudaPins
    from tfenv.kb import KnowledgeBase
    from tfenv.models.plan import Resolution
    from tfenv.models.target import Target

__all__ = [
    "CONTENT_LINE",
    "FORMAT",
    "HASH_LINE",
    "KEYS_LINE",
    "Inputs",
    "Stamp",
    "header_lines",
    "kb_data_version",
    "lock_inputs",
    "read_stamp",
    "regenerate_command",
    "stamp_content",
]

FORMAT = 4  # bump when the lockfile layout changes: every lockfile becomes stale
# 4: environment.<target>.yml is written by the one environment-file writer (the plan's
#    environment name tf-X, the channels ending in nodefaults)
HASH_LINE = "tfenv-inputs: sha256:"
KEYS_LINE = "tfenv-input-keys:"
CONTENT_LINE = "tfenv-content: sha256:"
_HASH_RE = re.compile(r"^#\s*tfenv-inputs: sha256:([0-9a-f]{64})\s*$")
_KEYS_RE = re.compile(r"^#\s*tfenv-input-keys:((?:\s+[^\s=]+=[0-9a-f]+)+)\s*$")
_CONTENT_RE = re.compile(r"^#\s*tfenv-content: sha256:([0-9a-f]{64})\s*$")
_SHORT = 12  # hex digits of each input's digest: enough to tell that one changed
_WIDTH = 100
_DATA_SUFFIXES = (".yaml", ".yml", ".json")
# data files no plan or lockfile reads: explain's catalogue of error messages. Editing it
# must not make every team's lockfiles stale (lock --check in CI after a tfenv upgrade)
_NOT_LOCK_INPUTS = frozenset({"errors.yaml"})


def kb_data_version(kb: KnowledgeBase) -> str:
    """sha256 of every knowledge-base data file a plan or lockfile may depend on (relative
    name and bytes; not explain's catalogue), memoised."""
    return kb.memo(("lock.kb_data_version", str(kb.root)), lambda: _hash_tree(_data_root(kb)))


@dataclass(frozen=True)
class Inputs:
    """What a target's lockfiles are derived from, as the header records it: ``digest``
    (``tfenv-inputs``) and a short digest of each input (``tfenv-input-keys``), both
    from one document of the inputs."""

    digest: str
    keys: Mapping[str, str]


def lock_inputs(
    config: ProjectConfig, targets: Mapping[str, Target], name: str, kb_version: str
) -> Inputs:
    """The inputs of target ``name``'s lockfiles: the hex sha256 of all of them, and a
    short digest of each by name (``format``, ``kb``, each configuration key,
    ``targets.<name>`` for each target), so that ``--check`` can say which one changed."""
    doc = _inputs_doc(config, targets, name, kb_version)
    blob = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    parts: dict[str, Any] = {"format": doc["format"], "kb": doc["kb"]}
    for key, value in doc["config"].items():
        if key == "targets":
            parts.update({f"targets.{n}": v for n, v in value.items()})
        else:
            parts[key] = value
    keys = {k: _short(v) for k, v in sorted(parts.items())}
    return Inputs(hashlib.sha256(blob.encode("utf-8")).hexdigest(), keys)


def _short(value: object) -> str:
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:_SHORT]


def _inputs_doc(
    config: ProjectConfig, targets: Mapping[str, Target], name: str, kb_version: str
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "config": {
            "tensorflow": config.tensorflow,
            "python": config.python,
            "dependencies": list(config.dependencies),
            "index-url": config.index_url,
            "channels": list(config.channels),
            "manager": config.manager,
            "cuda-libs": config.cuda_libs,
            "allow-cpu": config.allow_cpu,
            "pre": config.pre,
            "targets": {
                spec.name: {
                    "manager": spec.manager,
                    "cuda-libs": spec.cuda_libs,
                    "allow-cpu": spec.allow_cpu,
                    "no-gpu": spec.machine.no_gpu,
                    "facts": _facts(targets[spec.name]),
                    # only when given: the digests of configurations without it stay
                    **({"tensorflow": spec.tensorflow} if spec.tensorflow is not None else {}),
                }
                for spec in config.targets
                if spec.name in targets
            },
        },
        "kb": kb_version,
        "target": name,
    }


def regenerate_command(config: ProjectConfig, os: str = "linux") -> str:
    """The command that rewrites the lockfiles, run from the configuration's folder, for
    the shell of a machine like the target (``os``); a file name that cmd.exe or PowerShell
    would change is written for a POSIX shell."""
    from tfenv.config import CONFIG_FILES
    from tfenv.shells import UnsafeWord, command, shell_for

    if config.path.name in CONFIG_FILES:  # what 'tfenv lock' finds in its folder
        return "tfenv lock"
    argv = ["tfenv", "lock", "--config", config.path.name]
    try:
        return command(argv, shell_for(os))
    except UnsafeWord:
        return command(argv, "posix")


def header_lines(
    config: ProjectConfig,
    res: Resolution,
    name: str,
    digest: str,
    notes: Iterable[str] = (),
    keys: Optional[Mapping[str, str]] = None,
    pinned: Optional[CudaPins] = None,
) -> list[str]:
    """The header's lines, in English whatever the language: lockfiles are the same for
    everyone (:func:`_header_lines`)."""
    with using("en"):
        return _header_lines(config, res, name, digest, notes, keys, pinned)


def _header_lines(
    config: ProjectConfig,
    res: Resolution,
    name: str,
    digest: str,
    notes: Iterable[str] = (),
    keys: Optional[Mapping[str, str]] = None,
    pinned: Optional[CudaPins] = None,
) -> list[str]:
    """Comment lines (without the ``#``) for the top of a lockfile; :func:`stamp_content`
    adds the content digest once the file is rendered.

    ``pinned``: the CUDA packages the resolved lock pins
    (:func:`tfenv.formats.cuda_pins.cuda_pins`). The stack line names their CUDA and
    cuDNN, not the plan's, and a line lists them, so that the header describes what the
    file installs."""
    plan = res.plan
    assert plan is not None
    described, differs = plan, []
    if pinned:
        described = replace(plan, cuda=pinned.cuda or plan.cuda, cudnn=pinned.cudnn or plan.cudnn)
        differs = [
            f"{label} {want}"
            for label, want, got in (
                ("CUDA", plan.cuda, described.cuda),
                ("cuDNN", plan.cudnn, described.cudnn),
            )
            if want and not _within(want, got)
        ]
    lines = [
        f"Generated by tfenv for target '{name}'; do not edit by hand.",
        f"Regenerate with: {regenerate_command(config, res.target.os)}",
        f"Target: {res.target.describe()}",
        f"Stack: {described.summary()}",
    ]
    if pinned:
        lines += _wrapped(pinned.line())
    if differs:
        named = " and ".join(differs)
        lines.append(f"The plan named {named}; the stack line says what this file pins.")
    return [*lines, *notes, f"{HASH_LINE}{digest}", *_keys_lines(keys or {})]


def _within(want: str, got: Optional[str]) -> bool:
    """Whether ``got`` (12.5) is what ``want`` names, at its precision (12, 12.5)."""
    parts = want.split(".")
    return got is not None and got.split(".")[: len(parts)] == parts


def _wrapped(text: str) -> list[str]:
    """``text`` over lines of at most ``_WIDTH`` characters, broken after ", "."""
    lines: list[str] = []
    line = ""
    for part in text.split(", "):
        item = part if not line else f", {part}"
        if line and len(line) + len(item) + 1 > _WIDTH - 2:  # "# " before, "," after
            lines.append(line + ",")
            line = "  " + part
        else:
            line += item
    return [*lines, line]


def _keys_lines(keys: Mapping[str, str]) -> list[str]:
    lines: list[str] = []
    line = KEYS_LINE
    for key, value in keys.items():
        item = f" {key}={value}"
        if len(line) + len(item) > _WIDTH and line != KEYS_LINE:
            lines.append(line)
            line = KEYS_LINE
        line += item
    return [*lines, line] if keys else lines


def stamp_content(text: str) -> str:
    """``text`` (a rendered lockfile, header first) with its content digest line added
    after the header's last line."""
    lines = text.splitlines(keepends=True)
    end = _header_end(lines)
    if end == 0:
        raise ValueError("a lockfile to stamp must start with its tfenv header")
    stamped = f"# {CONTENT_LINE}{_content_digest(text)}\n"
    return "".join(lines[:end]) + stamped + "".join(lines[end:])


@dataclass(frozen=True)
class Stamp:
    """What a lockfile's header records, and the digest of its content as it is now."""

    inputs: Optional[str]  # tfenv-inputs
    keys: Mapping[str, str] = field(default_factory=dict)  # tfenv-input-keys
    content: Optional[str] = None  # tfenv-content: the digest recorded when written
    actual: str = ""  # the digest of the file as it is now (without the content line)

    @property
    def edited(self) -> bool:
        return self.content is not None and self.content != self.actual


def read_stamp(path: Path) -> Optional[Stamp]:
    """The header's records, or None when the file cannot be read (not a regular file:
    a FIFO or a device in its place is never read), is not UTF-8, or has no tfenv header."""
    from tfenv.fsutil import read_text

    try:
        text = read_text(path)
    except OSError:  # fsutil's InputFileError included: not UTF-8, too large, not a file
        return None
    lines = text.splitlines(keepends=True)
    end = _header_end(lines)
    inputs, content, where = None, None, -1
    keys: dict[str, str] = {}
    for i, line in enumerate(lines[:end]):
        stripped = line.strip()
        if m := _HASH_RE.match(stripped):
            inputs = m.group(1)
        elif m := _KEYS_RE.match(stripped):
            for item in m.group(1).split():
                key, _sep, value = item.partition("=")
                keys[key] = value
        elif (m := _CONTENT_RE.match(stripped)) and content is None:
            content, where = m.group(1), i
    if inputs is None:
        return None
    rest = lines[:where] + lines[where + 1 :] if where >= 0 else lines
    return Stamp(inputs, keys, content, _content_digest("".join(rest)))


def _header_end(lines: list[str]) -> int:
    """The index of the first line after the leading block of ``#`` comment lines."""
    for i, line in enumerate(lines):
        if not line.startswith("#"):
            return i
    return len(lines)


def _content_digest(text: str) -> str:
    normal = text.replace("\r\n", "\n")
    return hashlib.sha256(normal.encode("utf-8")).hexdigest()


def _facts(t: Target) -> dict[str, Optional[str]]:
    def s(v: object) -> Optional[str]:
        return None if v is None else str(v)

    return {
        "os": t.os,
        "arch": t.arch,
        "glibc": s(t.glibc),
        "python": s(t.python),
        "cc": s(t.cc),
        "gpu": t.gpu_name,
        "driver": s(t.driver),
    }


def _data_root(kb: KnowledgeBase) -> Path:
    if kb.root is not None:
        return Path(kb.root)
    import tfenv.data

    return Path(tfenv.data.__file__).parent


def _hash_tree(root: Path) -> str:
    h = hashlib.sha256()
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in _DATA_SUFFIXES)
    for p in files:
        rel = p.relative_to(root).as_posix()
        if rel in _NOT_LOCK_INPUTS:
            continue
        h.update(rel.encode("utf-8") + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()
