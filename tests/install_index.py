"""A package index on 127.0.0.1 for the install tests: a fake TensorFlow small enough to
install in a second, that answers the Verify step's import check like a CPU build.

The fake ``tensorflow`` (and ``tensorflow-cpu``) 2.15.1 wheels, and a 2.10.1 for Python
3.10, hold a module with the calls the check makes (``tf.test.is_built_with_cuda``,
``tf.config.list_physical_devices``, ``tf.sysconfig.get_build_info``, a computation); with
``FAKE_TF_FAIL`` set in the environment the import fails the way a NumPy 1.x build fails
under NumPy 2, so the verify path that asks explain can be tested; ``FAKE_TF_SLEEP`` makes
the import take that many seconds, ``FAKE_TF_TEARDOWN`` the interpreter's exit. The seed
``uv venv --seed`` installs (pip: this interpreter's own bundled wheel) is served too.
Served by :class:`tests.lock_index.LockIndex` (faults, wrong hashes, hangs).
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.lock_index import LockIndex, make_wheel, serve

__all__ = ["FAKE_TF", "PY", "build_install_wheels", "install_index_fixture"]

PY = f"{sys.version_info[0]}.{sys.version_info[1]}"  # the interpreter uv finds: tfenv's own
_TAG = f"cp{PY.replace('.', '')}"

FAKE_TF = b"""
import os
__version__ = "2.15.1"
if os.environ.get("FAKE_TF_SLEEP"):
    import time
    time.sleep(float(os.environ["FAKE_TF_SLEEP"]))
if os.environ.get("FAKE_TF_TEARDOWN"):
    import atexit, time
    atexit.register(time.sleep, float(os.environ["FAKE_TF_TEARDOWN"]))
if os.environ.get("FAKE_TF_FAIL"):
    import sys
    print("A module that was compiled using NumPy 1.x cannot be run in", file=sys.stderr)
    print("NumPy 2.0.2 as it may crash.", file=sys.stderr)
    raise ImportError("numpy.core._multiarray_umath failed to import")
class _Test:
    @staticmethod
    def is_built_with_cuda():
        return False
class _Experimental:
    @staticmethod
    def get_device_details(device):
        return {}
class _Config:
    experimental = _Experimental()
    @staticmethod
    def list_physical_devices(kind):
        return []
class _Sysconfig:
    @staticmethod
    def get_build_info():
        return {"is_cuda_build": False}
class _Random:
    @staticmethod
    def normal(shape):
        return [[1.0] * shape[1]] * shape[0]
    uniform = normal
def reduce_sum(x):
    return float(sum(sum(row) for row in x))
class device:
    def __init__(self, name):
        pass
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
test = _Test()
config = _Config()
sysconfig = _Sysconfig()
random = _Random()
"""


def build_install_wheels(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    tag = f"{_TAG}-{_TAG}-manylinux_2_17_x86_64"
    requires = ("absl-py>=1.0.0", "numpy<2")
    for name in ("tensorflow", "tensorflow-cpu"):
        module = FAKE_TF.replace(b"@VERSION@", b"2.15.1")
        make_wheel(folder, name, "2.15.1", tag, requires, module=module, import_name="tensorflow")
    # 2.10.1 for Python 3.10: a system-route plan (CUDA and cuDNN installed by hand)
    module = FAKE_TF.replace(b"@VERSION@", b"2.10.1")
    tag = "cp310-cp310-manylinux_2_17_x86_64"
    make_wheel(
        folder, "tensorflow", "2.10.1", tag, requires, module=module, import_name="tensorflow"
    )
    make_wheel(folder, "absl-py", "2.1.0", "py3-none-any", ("six>=1.10",))
    make_wheel(folder, "six", "1.16.0", "py2.py3-none-any", ())
    make_wheel(folder, "numpy", "1.26.4", "py3-none-any", ())
    _seed_wheels(folder)
    return folder


def _seed_wheels(folder: Path) -> None:
    """What ``uv venv --seed`` installs, served without network: the real pip (and
    setuptools) wheels bundled with this interpreter's ensurepip, and a small ``wheel``
    (seeded below Python 3.12)."""
    import ensurepip

    bundled = sorted((Path(ensurepip.__file__).parent / "_bundled").glob("*.whl"))
    assert any(p.name.startswith("pip-") for p in bundled), f"no pip wheel bundled: {bundled}"
    for wheel in bundled:
        shutil.copy(wheel, folder)
    if not any(p.name.startswith("setuptools-") for p in bundled):
        make_wheel(folder, "setuptools", "69.0.0", "py3-none-any", ())
    make_wheel(folder, "wheel", "0.43.0", "py3-none-any", ())


@pytest.fixture(name="install_wheels", scope="module")
def install_wheels_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_install_wheels(tmp_path_factory.mktemp("install-wheels"))


@pytest.fixture(name="install_index")
def install_index_fixture(install_wheels: Path) -> Iterator[LockIndex]:
    yield from serve(LockIndex(install_wheels))
