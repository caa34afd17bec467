"""Reading the shipped data files (YAML for curated facts, JSON for generated ones)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Union

from tfenv.errors import KBValidationError
from tfenv.kb._fields import Node

__all__ = ["DATA_PACKAGE", "load_node", "read_data"]

DATA_PACKAGE = "tfenv.data"

DataRoot = Union[Path, None]


def read_data(relpath: str, root: DataRoot = None) -> Any:
    """Parse one data file below ``root`` (default: the shipped ``tfenv/data``)."""
    try:
        if root is None:
            from importlib import resources  # only on a cache miss

            text = resources.files(DATA_PACKAGE).joinpath(relpath).read_text("utf-8")
        else:
            text = (root / relpath).read_text("utf-8")
    except FileNotFoundError:
        raise KBValidationError(relpath, "", "the file is missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise KBValidationError(relpath, "", f"cannot be read ({exc})") from None
    import yaml  # imported here: with a warm cache, no command needs it

    # the C loader is several times faster; PyYAML wheels ship it
    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        if relpath.endswith(".json"):
            return json.loads(text)
        return yaml.load(text, Loader=loader)
    except (yaml.YAMLError, json.JSONDecodeError) as exc:
        detail = str(exc).replace("\n", " ")
        raise KBValidationError(relpath, "", f"is not valid {_kind(relpath)} ({detail})") from None


def load_node(relpath: str, root: DataRoot = None) -> Node:
    return Node(read_data(relpath, root), relpath)


def _kind(relpath: str) -> str:
    return "JSON" if relpath.endswith(".json") else "YAML"
