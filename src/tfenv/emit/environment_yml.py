"""environment.yml for conda routes: the plan's channels, conda pins and pip section,
written by the one environment-file writer (:mod:`tfenv.formats.environment_yml`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.emit._header import header_lines
from tfenv.formats.environment_yml import render_environment as write_environment
from tfenv.i18n import _
from tfenv.routes.conda import conda_env_name

if TYPE_CHECKING:
    from tfenv.models.plan import Resolution

__all__ = ["render_environment"]


def render_environment(res: Resolution, name: str = "") -> str:
    plan = res.plan
    assert plan is not None
    name = name or conda_env_name(plan.tensorflow)
    return write_environment(
        name=name,
        channels=plan.channels,
        conda_specs=plan.conda,
        pip_specs=plan.pip,
        header=(
            *header_lines(res),
            _("Create the environment: {create}; update it: {update}").format(
                create="conda env create -f environment.yml",
                update=f"conda env update -n {name} -f environment.yml --prune",
            ),
        ),
    )
