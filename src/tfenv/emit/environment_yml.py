"""environment.yml for conda routes: channels, conda pins and a pip: section where needed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from tfenv.emit._header import header_lines
from tfenv.routes.conda import conda_env_name
from tfenv.textsafe import comment_block

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["render_environment"]


def render_environment(res: Resolution, name: str = "") -> str:
    plan = res.plan
    assert plan is not None
    name = name or conda_env_name(plan.tensorflow)
    deps: list[Any] = list(plan.conda)
    if plan.pip:
        deps += ["pip", {"pip": list(plan.pip)}]
    body: dict[str, Any] = {
        "name": name,
        "channels": [*plan.channels, "nodefaults"],
        "dependencies": deps,
    }
    head = comment_block(
        [
            *header_lines(res),
            "Create the environment: conda env create -f environment.yml; "
            f"update it: conda env update -n {name} -f environment.yml --prune",
        ]
    )
    return head + yaml.safe_dump(body, sort_keys=False, default_flow_style=False)
