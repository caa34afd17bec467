"""The JSON Schemas of tfenv's input files, shipped for editors and SchemaStore.

``tfenv-config.schema.json`` describes the ``[tool.tfenv]`` table ``tfenv.config``
reads; ``tfenv-host.schema.json`` the host file ``tfenv.host.profile_file`` reads (what
``tfenv detect --json`` writes). The tests hold each schema and its reader together
(every key the reader accepts is in the schema, the examples validate and read, and
invalid examples are rejected by both). The readers check more than a schema can say:
PEP 508 dependencies, PEP 440 versions and specifiers, GPU names, a key given twice.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["HOST_SCHEMA_FILE", "SCHEMA_FILE", "config_schema", "host_schema"]

SCHEMA_FILE = "tfenv-config.schema.json"
HOST_SCHEMA_FILE = "tfenv-host.schema.json"


def config_schema() -> dict[str, Any]:
    """The configuration's schema, parsed."""
    return _load(SCHEMA_FILE)


def host_schema() -> dict[str, Any]:
    """The host file's schema, parsed."""
    return _load(HOST_SCHEMA_FILE)


def _load(name: str) -> dict[str, Any]:
    text = resources.files(__name__).joinpath(name).read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc
