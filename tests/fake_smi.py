"""A fake ``nvidia-smi`` for tests that run tfenv's real probes on a machine without a GPU.

The script answers ``--query-gpu=...`` with a CSV line and anything else with the
table ``nvidia-smi`` prints (the driver 535.104.05 / CUDA 12.2 header), the two
outputs ``tfenv detect`` reads. Put the folder first on ``PATH``.
"""

from __future__ import annotations

from pathlib import Path

SMI_TABLE = """\
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
|===============================+======================+======================|
|   0  {name} On | 00000000:17:00.0 Off |                  N/A |
| 23%   39C    P8     9W / 250W |      7MiB / {memory}MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
"""
_SCRIPT = (
    '#!/bin/sh\ncase "$1" in --query-gpu*) cat "$(dirname "$0")/query.txt";; '
    '*) cat "$(dirname "$0")/table.txt";; esac\n'
)


def write_fake_smi(folder: Path, query: str, *, table_name: str, memory_mib: int) -> Path:
    """An ``nvidia-smi`` in ``folder`` whose ``--query-gpu`` answer is ``query`` (one line
    of ``index, name, uuid, memory.total, mig.mode.current, compute_cap``) and whose table
    names the GPU ``table_name``; returns ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    table = SMI_TABLE.replace("{name}", table_name).replace("{memory}", str(memory_mib))
    (folder / "table.txt").write_text(table, "utf-8", errors="surrogatepass")
    (folder / "query.txt").write_text(query + "\n", "utf-8", errors="surrogatepass")
    script = folder / "nvidia-smi"
    script.write_text(_SCRIPT)
    script.chmod(0o755)
    return folder
