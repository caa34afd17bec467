"""Reading the shipped data files (YAML for curated facts, JSON for generated ones)."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Any, Union

from tfenv.errors import KBValidationError
from tfenv.i18n import _
from tfenv.kb._fields import Node

if TYPE_CHECKING:
    from pathlib import Path

    DataRoot = Union[Path, None]

__all__ = ["DATA_PACKAGE", "load_node", "read_data"]

DATA_PACKAGE = "tfenv.data"

_MAX_DATA = 64 * 1024 * 1024


def read_data(relpath: str, root: DataRoot = None) -> Any:
    """Parse one data file below ``root`` (default: the shipped ``tfenv/data``).

    A folder given with ``TFENV_DATA_DIR`` is read like any user file: regular files
    only, at most 64 MiB, and every parse failure (nesting, huge numbers) one error.
    """
    from tfenv.fsutil import InputFileError, read_text
    from tfenv.structured import StructureError, load_json, load_yaml

    try:
        if root is None:
            from importlib import resources  # only on a cache miss

            text = resources.files(DATA_PACKAGE).joinpath(relpath).read_text("utf-8")
        else:
            text = read_text(root / relpath, limit=_MAX_DATA)
    except FileNotFoundError:
        raise KBValidationError(relpath, "", _("the file is missing")) from None
    except InputFileError as exc:
        if exc.errno == errno.ENOENT:
            raise KBValidationError(relpath, "", _("the file is missing")) from None
        raise KBValidationError(relpath, "", _("cannot be read ({why})").format(why=exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KBValidationError(relpath, "", _("cannot be read ({why})").format(why=exc)) from None
    try:
        if relpath.endswith(".json"):
            return load_json(text)
        return load_yaml(text)
    except StructureError as exc:
        raise KBValidationError(
            relpath, "", _("is not valid {kind} ({why})").format(kind=_kind(relpath), why=exc)
        ) from None


def load_node(relpath: str, root: DataRoot = None) -> Node:
    return Node(read_data(relpath, root), relpath)


def _kind(relpath: str) -> str:
    return "JSON" if relpath.endswith(".json") else "YAML"
