"""The curated platform and conda knowledge: files load, records are sourced, facts hold."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest
from packaging.version import Version

from tfenv.errors import KBValidationError
from tfenv.kb._fields import Provenance
from tfenv.kb.conda import CONDA_FILE, load_conda
from tfenv.kb.platforms import PLATFORMS_FILE, load_platforms
from tfenv.kb.tensorflow import load_builds

V = Version
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _check(prov: Provenance) -> None:
    assert prov.sources
    assert all(s.strip() for s in prov.sources)
    assert _DATE.match(prov.retrieved)


@pytest.mark.parametrize("relpath", [PLATFORMS_FILE, CONDA_FILE])
def test_no_registry_host_or_notes_path(relpath: str) -> None:
    text = resources.files("tfenv.data").joinpath(relpath).read_text("utf-8")
    for host in ("pypi" + ".org", "pythonhosted"):
        assert host not in text
    assert "/work/shared" not in text


def test_platforms_load_and_are_sourced() -> None:
    p = load_platforms()
    for prov in (
        p.wsl2.provenance,
        p.native_windows.provenance,
        p.macos.provenance,
        p.macos.metal.provenance,
        p.linux_aarch64.provenance,
        *(r.provenance for r in p.routes),
    ):
        _check(prov)
    ids = [r.id for r in p.routes]
    assert len(ids) == len(set(ids))


def test_platform_facts() -> None:
    p = load_platforms()
    assert p.wsl2.windows_driver_min_cuda12 == V("528.33")
    assert p.wsl2.libcuda_dir == "/usr/lib/wsl/lib"
    assert p.wsl2.wheel_platform == "linux_x86_64"
    assert p.native_windows.last_gpu_release == V("2.10")
    assert p.macos.cuda is False
    assert p.macos.last_x86_64_release == V("2.16.2")
    assert p.linux_aarch64.cuda_wheels is False


def test_native_windows_agrees_with_builds() -> None:
    p = load_platforms()
    last = max(b.series for b in load_builds().all if b.windows is not None)
    assert p.native_windows.last_gpu_release == last
    build = load_builds().for_version(last)
    assert build is not None
    assert build.windows is not None
    assert build.windows.cuda == p.native_windows.last_gpu_cuda
    assert build.windows.cudnn == p.native_windows.last_gpu_cudnn


@pytest.mark.parametrize(
    ("version", "target", "route_id"),
    [
        ("2.15.1", "linux_x86_64", "pip-and-cuda"),
        ("2.21.0", "wsl2", "pip-and-cuda"),
        ("2.13.1", "linux_x86_64", "conda-cudatoolkit-pip"),
        ("2.3.1", "linux_x86_64", "pip-system-cuda"),
        ("2.0.4", "linux_x86_64", "pip-tensorflow-gpu-system-cuda"),
        ("2.10.1", "windows_x86_64", "windows-native-conda-cudatoolkit"),
        ("2.2.0", "windows_x86_64", "windows-native-gpu"),
        ("2.11.0", "windows_x86_64", "windows-native-cpu-only"),
        ("2.16.2", "macos_arm64", "macos-metal"),
        ("2.19.0", "linux_aarch64", "linux-aarch64-cpu-only"),
    ],
)
def test_routes(version: str, target: str, route_id: str) -> None:
    assert [r.id for r in load_platforms().routes_for(version, target)] == [route_id]


def test_conda_loads_and_is_sourced() -> None:
    c = load_conda()
    for prov in (
        c.virtual_cuda.provenance,
        c.cuda_version.provenance,
        c.cudatoolkit.provenance,
        c.cudnn.provenance,
        c.tf_provenance,
        c.defaults_provenance,
        *(b.provenance for b in c.conda_forge_tensorflow),
        *(b.provenance for b in c.anaconda_defaults_tensorflow),
    ):
        _check(prov)


def test_conda_facts() -> None:
    c = load_conda()
    assert c.virtual_cuda.name == "__cuda"
    assert c.virtual_cuda.override_env == "CONDA_OVERRIDE_CUDA"
    assert c.cudatoolkit.last == V("11.8.0")
    assert V("12.7") not in c.cuda_version.versions
    assert c.tf_windows_builds is False
    b215 = c.conda_forge_build("2.15.0")
    assert b215 is not None
    assert b215.build_globs() == ("cuda118*", "cuda120*")
    assert c.conda_forge_build("2.5.0") is None  # no conda-forge CUDA build before 2.6
    d23 = c.defaults_build("2.3.0")
    assert d23 is not None
    assert (d23.cudatoolkit, d23.cudnn) == (V("10.1"), V("7.6"))
    d241 = c.defaults_build("2.4.1")
    assert d241 is not None
    assert d241.cudatoolkit == V("10.1")  # unlike upstream 2.4 (CUDA 11.0)


def test_conda_forge_tensorflow_follows_the_feedstock() -> None:
    c = load_conda()
    assert c.tf_newest == V("2.19.1")
    assert c.conda_forge_build("2.21.0") is None  # never on conda-forge
    assert c.conda_forge_build("2.20.0") is None
    b1191 = c.conda_forge_build("2.19.1")
    assert b1191 is not None
    assert b1191.cuda == (V("12.8"),)  # the CUDA 12.9 builds are called broken (#469)
    assert any(v.broken and v.cuda == V("12.9") for v in b1191.variants)
    newest = b1191.variant(V("12.8"))
    assert newest is not None
    assert (newest.builds, newest.python) == ((3,), (V("3.10"), V("3.11"), V("3.12")))
    assert "linux-aarch64" in b1191.cpu_subdirs
    b218 = c.conda_forge_build("2.18.0")
    assert b218 is not None
    cuda126 = b218.variant(V("12.6"))
    assert cuda126 is not None
    assert cuda126.python is not None
    assert V("3.9") in cuda126.python  # only the CUDA 12.8 builds dropped 3.9
    b190 = c.conda_forge_build("2.19.0")
    assert b190 is not None
    assert b190.upload == "unknown"
    assert str(b190.variants[0].cudnn) == "9.10"
    b1131 = c.conda_forge_build("2.13.1")
    assert b1131 is not None
    assert b1131.cuda == (V("11.2"), V("11.8"))
    for build in c.conda_forge_tensorflow:
        for variant in build.variants:
            assert variant.python, (build.version, variant.cuda)


def test_broken_platforms_file(tmp_path: Path) -> None:
    text = resources.files("tfenv.data").joinpath(PLATFORMS_FILE).read_text("utf-8")
    text = text.replace("targets: [linux_x86_64, wsl2]", "targets: [linux_x86_64, wsl3]", 1)
    (tmp_path / PLATFORMS_FILE).write_text(text, "utf-8")
    with pytest.raises(KBValidationError, match="wsl3") as caught:
        load_platforms(tmp_path)
    assert caught.value.file == PLATFORMS_FILE
    assert caught.value.path == "routes[0].targets[1]"


def test_broken_conda_file(tmp_path: Path) -> None:
    text = resources.files("tfenv.data").joinpath(CONDA_FILE).read_text("utf-8")
    text = text.replace('nvidia_last: "11.7.0"', 'nvidia_last: "11.7.0"\n  nvida: 1', 1)
    (tmp_path / CONDA_FILE).write_text(text, "utf-8")
    with pytest.raises(KBValidationError, match="nvida") as caught:
        load_conda(tmp_path)
    assert caught.value.path == "cudatoolkit"
