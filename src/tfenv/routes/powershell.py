"""The step that lets PowerShell run the ``.ps1`` scripts a native Windows plan uses
(venv's ``Activate.ps1``, ``activate-tfenv.ps1``, the profile ``conda init powershell``
writes): on a Windows 10 or 11 client the execution policy is Restricted unless someone
set another, and PowerShell then runs no script at all. From the facts of ``conda.yaml``'s
``execution_policy`` (Microsoft's about_Execution_Policies)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfenv.i18n import _
from tfenv.shells import command

if TYPE_CHECKING:
    from tfenv.kb.conda import ExecutionPolicy

__all__ = ["execution_policy_step"]


def execution_policy_step(policy: ExecutionPolicy) -> str:
    """The step, for a plan whose PowerShell users run a ``.ps1`` script."""
    return _(
        "PowerShell only (cmd.exe needs nothing): Windows 10 and 11 run no .ps1 script "
        "unless allowed (their default execution policy is {default}), so Activate.ps1, "
        "activate-tfenv.ps1 and the profile of conda init powershell are refused. Allow "
        "local scripts once for your user with {current_user} (it stays), or for this "
        "PowerShell window only with {process} (Microsoft's about_Execution_Policies: "
        "{page})."
    ).format(
        default=policy.client_default,
        current_user=command(list(policy.current_user), "windows"),
        process=command(list(policy.process), "windows"),
        page=policy.page,
    )
