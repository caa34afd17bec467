"""The JSON Schema of the ``[tool.tfenv]`` table, shipped for editors and SchemaStore.

``tfenv-config.schema.json`` describes the table ``tfenv.config`` reads; the tests
hold the two together (every key the reader accepts is in the schema, the documented
example validates, and invalid examples are rejected by both). The reader checks more
than a schema can say: PEP 508 dependencies, PEP 440 specifiers, GPU names.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

__all__ = ["SCHEMA_FILE", "config_schema"]

SCHEMA_FILE = "tfenv-config.schema.json"


def config_schema() -> dict[str, Any]:
    """The schema, parsed."""
    text = resources.files(__name__).joinpath(SCHEMA_FILE).read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc
