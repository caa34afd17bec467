"""environment.yml: the one writer of conda environment files (``--emit`` for a conda
plan, ``environment.<target>.yml`` next to a conda lock) and its reader (check-upgrade).

One behaviour for both: the environment is named as the plan names it (``tf-2.19.1``,
:func:`tfenv.routes.conda.conda_env_name`, the name the plan's ``conda create`` command
uses); the channels end with ``nodefaults``, so that conda never adds its default channels
to the ones tfenv chose; list items are indented under their key, as conda writes them;
``pip`` is added before a ``pip:`` section unless the specs have it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tfenv.formats.locked import Locked, bad, usable, xy, yaml_of
from tfenv.i18n import _
from tfenv.textsafe import comment_block

__all__ = ["NO_DEFAULTS", "conda_spec_name", "read_pins", "render_environment"]

NO_DEFAULTS = "nodefaults"


def render_environment(
    *,
    name: str,
    channels: Sequence[str],
    conda_specs: Sequence[str],
    pip_specs: Sequence[str] = (),
    header: Sequence[str] = (),
) -> str:
    """The ``header`` as comment lines, then ``name``, ``channels`` (+ ``nodefaults``) and
    ``dependencies``: the conda specs as given (build-string and ``cuda-version`` pins
    included), then a ``pip:`` section when there are pip specs."""
    import yaml

    class _IndentedDumper(yaml.SafeDumper):
        """Indents list items under their key (``  - python=3.11``), as conda does."""

        def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
            super().increase_indent(flow, False)

    deps: list[Any] = list(conda_specs)
    if pip_specs:
        if not any(conda_spec_name(s) == "pip" for s in conda_specs):
            deps.append("pip")
        deps.append({"pip": list(pip_specs)})
    listed = [c for c in channels if c != NO_DEFAULTS]
    doc = {"name": name, "channels": [*listed, NO_DEFAULTS], "dependencies": deps}
    body = yaml.dump(
        doc, Dumper=_IndentedDumper, sort_keys=False, default_flow_style=False, width=1000
    )
    return comment_block(header) + body


def conda_spec_name(spec: str) -> str:
    """The package name of a conda match spec (``pip``, ``python=3.11``, ``cudnn >=8``)."""
    return re.split(r"[\s=<>!~\[]", spec.strip(), maxsplit=1)[0]


_CONDA_SPEC = re.compile(r"^([A-Za-z0-9_.\-]+)\s*(?:==?|\s)\s*([0-9][^=\s]*)")


def read_pins(path: Path, text: str) -> Locked:
    """The pins of an environment file: its conda specs with a version, and its pip section."""
    from tfenv.formats import requirements_txt

    data = yaml_of(path, text)
    deps = data.get("dependencies") if isinstance(data, dict) else None
    if not isinstance(deps, list):
        raise bad(path, _("it has no 'dependencies' list (is it a conda environment file?)"))
    pins: dict[str, str] = {}
    for dep in deps:
        if isinstance(dep, dict):
            pip = dep.get("pip", [])
            if isinstance(pip, list):
                sub = requirements_txt.read_pins(path, "\n".join(str(x) for x in pip))
                pins.update(sub.pins)
            continue
        found = _CONDA_SPEC.match(str(dep).split("::")[-1].strip())
        if found and not (usable(found.group(1)) and usable(found.group(2))):
            raise bad(
                path,
                _("the dependency {dep!r} is not printable text").format(dep=str(dep)[:60]),
            )
        if found:
            pins.setdefault(found.group(1).lower(), found.group(2).removesuffix(".*"))
    python = pins.get("python")
    return Locked(path, "environment", pins, xy(python) if python else None)
