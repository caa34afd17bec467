"""How much larger wheels are unpacked than downloaded (``install.space.UNPACKED``).

Sums the file sizes and the uncompressed sizes of their members, per wheel and in all::

    .venv/bin/python tools/wheel_unpacked_ratio.py WHEEL...

Measured 2026-12-03 on the wheels of a local mirror (tensorflow_cpu 2.21.0, numpy 1.26.4,
grpcio 1.84.0, h5py 3.14.0, ml_dtypes 0.5.4, tensorboard 2.21.0 and the CUDA 13
nvidia-cuda-cccl/crt/nvcc/runtime and nvidia-nvvm wheels, cp311 manylinux x86_64):
419 MB -> 1682 MB, 4.0 in all (tensorflow_cpu 4.65; the CUDA wheels 2.3 to 7.0).
"""

from __future__ import annotations

import sys
import zipfile
from collections.abc import Sequence
from pathlib import Path


def main(argv: Sequence[str] | None = None) -> int:
    paths = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not paths:
        print(__doc__)
        return 2
    packed = unpacked = 0
    for path in paths:
        with zipfile.ZipFile(path) as wheel:
            size = sum(info.file_size for info in wheel.infolist())
        packed += path.stat().st_size
        unpacked += size
        print(f"{path.name}: {path.stat().st_size / 1e6:.1f} MB -> {size / 1e6:.1f} MB "
              f"({size / path.stat().st_size:.2f})")  # fmt: skip
    print(f"all: {packed / 1e6:.0f} MB -> {unpacked / 1e6:.0f} MB ({unpacked / packed:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
