"""The conda half of ``tfenv lock``: solving for a target's virtual packages with py-rattler
against a local ``file://`` channel built at test time, and conda-lock's file format.

The channel is made from the repodata records in ``tests/data/conda_channel`` (see its
README for where their shapes come from): each record becomes a tiny valid ``.tar.bz2``
package, and its md5/sha256/size are those of the file built, so lock files carry real
hashes of real files.
"""

from __future__ import annotations

import bz2
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from tests.snapshot import frozen_kb
from tfenv.errors import TfenvError
from tfenv.formats.conda_lock import read_lockfile
from tfenv.kb import KnowledgeBase
from tfenv.lock.conda import (
    CondaChannelError,
    CondaLockError,
    CondaLockResult,
    CondaLockSpec,
    CondaLockUnavailableError,
    CondaUnsatisfiableError,
    LockedPipPackage,
    lock_conda,
    solve_specs,
)
from tfenv.lock.conda_virtual import DEFAULT_GLIBC, target_virtual_packages
from tfenv.models.driver import DriverVersion
from tfenv.models.plan import Plan
from tfenv.models.target import Target

pytest.importorskip("rattler")
pytest.importorskip("conda_lock")

RECORDS = Path(__file__).parent / "data" / "conda_channel"
SUBDIRS = ("linux-64", "noarch")

LINUX: dict[str, Any] = {"os": "linux", "arch": "x86_64", "glibc": Version("2.31")}
GPU: dict[str, Any] = {"cc": Version("8.6"), "gpu_name": "NVIDIA GeForce RTX 3090"}

CUDA_PLAN = Plan(
    tensorflow="2.15.0",
    package="tensorflow",
    python="3.11",
    accelerator="cuda",
    route="conda",
    cuda="12.0",
    cudnn="8.9",
    conda=("python=3.11", "tensorflow=2.15.0=cuda120*", "cuda-version=12.0"),
    channels=("conda-forge",),
)
CPU_PLAN = Plan(
    tensorflow="2.15.0",
    package="tensorflow",
    python="3.11",
    accelerator="cpu",
    route="conda",
    conda=("python=3.11", "tensorflow=2.15.0"),
    channels=("conda-forge",),
)
CONDA_PIP_PLAN = Plan(
    tensorflow="2.14.0",
    package="tensorflow",
    python="3.11",
    accelerator="cuda",
    route="conda+pip",
    cuda="11.8",
    cudnn="8.9",
    pip=("tensorflow==2.14.0",),
    conda=("python=3.11", "cudatoolkit=11.8.0", "cudnn=8.9.7.29"),
    channels=("conda-forge",),
)


def _tar_bz2(index: dict[str, object]) -> bytes:
    """A minimal valid conda package: info/index.json in a reproducible .tar.bz2."""
    payload = json.dumps(index, indent=2, sort_keys=True).encode()
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        info = tarfile.TarInfo("info/index.json")
        info.size, info.mtime, info.mode = len(payload), 0, 0o644
        tar.addfile(info, io.BytesIO(payload))
    return bz2.compress(raw.getvalue(), 9)


def build_channel(root: Path) -> Path:
    """Write the recorded records as a channel under ``root``, with built package files."""
    for subdir in SUBDIRS:
        doc = json.loads((RECORDS / subdir / "repodata.json").read_text())
        folder = root / subdir
        folder.mkdir(parents=True)
        for file_name, record in doc["packages"].items():
            data = _tar_bz2(record)
            (folder / file_name).write_bytes(data)
            record["md5"] = hashlib.md5(data).hexdigest()
            record["sha256"] = hashlib.sha256(data).hexdigest()
            record["size"] = len(data)
        (folder / "repodata.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
    return root


@pytest.fixture(scope="module")
def channel(tmp_path_factory: pytest.TempPathFactory) -> str:
    return build_channel(tmp_path_factory.mktemp("channel")).as_uri()


@pytest.fixture
def spec(channel: str, tmp_path: Path) -> CondaLockSpec:
    return CondaLockSpec(channels=(channel,), cache_dir=tmp_path / "cache")


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return frozen_kb()


def _target(**kw: Any) -> Target:
    return Target(**{**LINUX, **kw})


def _lock(plan: Plan, target: Target, spec: CondaLockSpec, kb: KnowledgeBase) -> CondaLockResult:
    return lock_conda(target, plan, spec, kb=kb)


def _builds(result: CondaLockResult) -> dict[str, str]:
    return {p.name: f"{p.version}={p.build}" for p in result.packages}


def test_cuda_target_solves_with_the_build_string_pin(
    spec: CondaLockSpec, kb: KnowledgeBase
) -> None:
    target = _target(driver=Version("535.104.05"), **GPU)
    result = _lock(CUDA_PLAN, target, spec, kb)
    builds = _builds(result)
    assert builds["tensorflow"] == "2.15.0=cuda120py311h5cbd639_2"
    assert builds["tensorflow-base"].startswith("2.15.0=cuda120")
    # the plan's cuda-version=12.0 pin holds although 12.6 is in the channel
    assert builds["cuda-version"] == "12.0=hffde075_2"
    assert builds["cudnn"] == "8.9.7.29=h092f7fd_3"
    assert "cudatoolkit" not in builds
    assert result.python == "3.11.8"
    assert result.python_minor == "3.11"
    assert result.subdir == "linux-64"
    assert {str(v) for v in result.virtual_packages} == {
        "__archspec=1=x86_64",
        "__cuda=12.2",
        "__glibc=2.31",
        "__linux=5.10",
        "__unix=0",
    }
    # every record is a built file with its real hashes
    for pkg in result.packages:
        path = Path(pkg.url.removeprefix("file://"))
        assert pkg.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
        assert pkg.md5 == hashlib.md5(path.read_bytes()).hexdigest()
        assert pkg.subdir in SUBDIRS
    assert [p.name for p in result.packages] == sorted(p.name for p in result.packages)


def test_the_older_cuda_variant_pin_is_respected(spec: CondaLockSpec, kb: KnowledgeBase) -> None:
    plan = replace(
        CUDA_PLAN,
        cuda="11.8",
        conda=("python=3.11", "tensorflow=2.15.0=cuda118*", "cuda-version=11.8"),
    )
    target = _target(driver=Version("535.104.05"), **GPU)
    builds = _builds(_lock(plan, target, spec, kb))
    # build 1 is chosen over the CUDA 12.0 build 2 because the plan pins the variant
    assert builds["tensorflow"] == "2.15.0=cuda118py311h2e3b9e7_1"
    assert builds["cuda-version"] == "11.8=h70ddcb2_3"
    assert builds["cudatoolkit"] == "11.8.0=h4ba93d1_13"
    assert builds["cudnn"] == "8.9.7.29=hcdd5f01_2"


def test_driver_too_old_for_cuda_12_is_a_clear_error(
    spec: CondaLockSpec, kb: KnowledgeBase
) -> None:
    target = _target(driver=Version("470.82.01"), **GPU)
    with pytest.raises(CondaUnsatisfiableError) as info:
        _lock(CUDA_PLAN, target, spec, kb)
    err = info.value
    assert err.exit_code == 1
    assert isinstance(err, TfenvError)
    assert "RTX 3090" in err.message  # the target is named
    assert "__cuda=11.4" in err.message
    assert "__cuda >=12" in err.message  # the solver's own explanation
    assert "\n" not in err.message
    assert err.hint is not None
    assert "driver 470.82.01 supports CUDA 11.4" in err.hint
    assert "__cuda" in err.solver_message


def test_glibc_too_old_is_a_clear_error(spec: CondaLockSpec, kb: KnowledgeBase) -> None:
    target = _target(glibc=Version("2.12"), driver=Version("535.104.05"), **GPU)
    with pytest.raises(CondaUnsatisfiableError) as info:
        _lock(CUDA_PLAN, target, spec, kb)
    assert "__glibc=2.12" in info.value.message
    assert "__glibc >=2.17" in info.value.message
    assert info.value.hint is not None
    assert "glibc is 2.12" in info.value.hint


def test_cpu_only_target_gets_the_cpu_build(spec: CondaLockSpec, kb: KnowledgeBase) -> None:
    result = _lock(CPU_PLAN, _target(), spec, kb)
    builds = _builds(result)
    assert builds["tensorflow"] == "2.15.0=cpu_py311hd3d7757_2"
    assert builds["tensorflow-base"] == "2.15.0=cpu_py311h6aa969b_2"
    assert not {"cuda-version", "cudnn", "cudatoolkit"} & set(builds)
    assert "__cuda" not in {v.name for v in result.virtual_packages}
    assert any("no NVIDIA GPU" in n for n in result.notes)


def test_gpu_target_without_a_pin_prefers_the_cuda_build(
    spec: CondaLockSpec, kb: KnowledgeBase
) -> None:
    # the CPU builds carry track_features, so with __cuda present the CUDA build wins
    target = _target(driver=Version("535.104.05"), **GPU)
    assert _builds(_lock(CPU_PLAN, target, spec, kb))["tensorflow"].startswith("2.15.0=cuda120")


def test_cuda_pin_without_a_known_driver_says_so(spec: CondaLockSpec, kb: KnowledgeBase) -> None:
    with pytest.raises(CondaUnsatisfiableError) as info:
        _lock(CUDA_PLAN, _target(**GPU), spec, kb)
    assert info.value.hint is not None
    assert "none known" in info.value.hint


def test_missing_package_is_unsatisfiable(spec: CondaLockSpec, kb: KnowledgeBase) -> None:
    with pytest.raises(CondaUnsatisfiableError) as info:
        _lock(CPU_PLAN, _target(), replace(spec, extra_specs=("no-such-package",)), kb)
    assert "no-such-package" in info.value.message


def test_unreadable_channel(tmp_path: Path, kb: KnowledgeBase) -> None:
    spec = CondaLockSpec(channels=((tmp_path / "nowhere").as_uri(),), cache_dir=tmp_path)
    with pytest.raises(CondaChannelError) as info:
        _lock(CPU_PLAN, _target(), spec, kb)
    assert info.value.exit_code == 1
    assert "nowhere" in info.value.message


def test_offline_with_an_empty_cache(tmp_path: Path, kb: KnowledgeBase) -> None:
    spec = CondaLockSpec(
        channels=("https://conda.anaconda.org/conda-forge",),
        cache_dir=tmp_path / "empty",
        offline=True,
    )
    with pytest.raises(CondaChannelError) as info:
        _lock(CPU_PLAN, _target(), spec, kb)
    assert "offline" in info.value.message


def test_conda_pip_route(
    spec: CondaLockSpec, kb: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfenv.formats import conda_lock as conda_lockfile

    rendered: list[int] = []
    real = conda_lockfile.render_lockfile

    def counted(**kw: Any) -> str:
        rendered.append(len(kw["pip"]))
        return real(**kw)

    monkeypatch.setattr(conda_lockfile, "render_lockfile", counted)
    target = _target(driver=Version("535.104.05"), **GPU)
    result = _lock(CONDA_PIP_PLAN, target, spec, kb)
    builds = _builds(result)
    assert builds["cudatoolkit"] == "11.8.0=h4ba93d1_13"
    assert builds["cudnn"] == "8.9.7.29=hcdd5f01_2"  # the CUDA 11 build, as cudatoolkit needs
    assert "pip" in builds
    assert "tensorflow" not in builds
    assert result.python == "3.11.8"
    assert result.pip_specs == ("tensorflow==2.14.0",)
    assert "  - pip\n  - pip:\n      - tensorflow==2.14.0\n" in result.env_text
    # the pip half can add its locked wheels to the same conda-lock file
    wheel = LockedPipPackage(
        name="tensorflow",
        version="2.14.0",
        url="http://127.0.0.1:8/packages/tensorflow-2.14.0-cp311-cp311-manylinux_2_17_x86_64.whl",
        sha256="0" * 64,
        dependencies=(("numpy", ">=1.23.5"),),
    )
    both = result.with_pip([wheel])
    assert "manager: pip" in both.lock_text
    assert both.lock_text is both.lock_text
    assert rendered == [1]  # once, with the pip half: never first without it
    lock, _ = both.write(tmp_path)
    parsed = read_lockfile(lock)
    assert {p.manager for p in parsed.package} == {"conda", "pip"}


def test_environment_file(spec: CondaLockSpec, kb: KnowledgeBase) -> None:
    import yaml

    result = _lock(CUDA_PLAN, _target(driver=Version("535.104.05"), **GPU), spec, kb)
    doc = yaml.safe_load(result.env_text)
    assert doc == {
        "name": "tf-2.15.0",  # the plan's name, as --emit writes it
        "channels": [spec.channels[0], "nodefaults"],
        "dependencies": ["python=3.11", "tensorflow=2.15.0=cuda120*", "cuda-version=12.0"],
    }
    assert result.env_text.startswith("# Generated by tfenv for Linux, x86_64")
    assert result.env_file_name == "environment.linux-64.yml"


def test_lock_file_is_conda_lock_format(
    spec: CondaLockSpec, kb: KnowledgeBase, tmp_path: Path
) -> None:
    result = _lock(CUDA_PLAN, _target(driver=Version("535.104.05"), **GPU), spec, kb)
    lock, env = result.write(tmp_path / "out")
    assert lock.name == "conda-lock.linux-64.yml"
    assert env.name == "environment.linux-64.yml"
    parsed = read_lockfile(lock)
    assert parsed.metadata.platforms == ["linux-64"]
    assert parsed.metadata.sources == ["environment.linux-64.yml"]
    assert parsed.metadata.content_hash == {"linux-64": result.content_hash}
    assert parsed.metadata.time_metadata is None
    tf = next(p for p in parsed.package if p.name == "tensorflow")
    assert tf.build == "cuda120py311h5cbd639_2"
    assert tf.dependencies["__cuda"] == ""
    assert tf.dependencies["tensorflow-base"] == "2.15.0"
    cudnn = next(p for p in parsed.package if p.name == "cudnn")
    assert (
        cudnn.dependencies["cuda-version"] == ">=12.0,<13,>=12.0,<13.0a0"
    )  # merged as conda-lock does
    assert tf.hash.md5 == result.package("tensorflow").md5  # type: ignore[union-attr]


def test_same_input_same_bytes(channel: str, tmp_path: Path, kb: KnowledgeBase) -> None:
    target = _target(driver=Version("535.104.05"), **GPU)
    first = lock_conda(target, CUDA_PLAN, CondaLockSpec((channel,), tmp_path / "a"), kb=kb)
    second = lock_conda(target, CUDA_PLAN, CondaLockSpec((channel,), tmp_path / "b"), kb=kb)
    assert first.lock_text == second.lock_text
    assert first.env_text == second.env_text
    a = first.write(tmp_path / "one")
    b = second.write(tmp_path / "two")
    assert [p.read_bytes() for p in a] == [p.read_bytes() for p in b]


def test_conda_lock_cli_renders_the_file(
    spec: CondaLockSpec, kb: KnowledgeBase, tmp_path: Path
) -> None:
    cli = Path(sys.executable).parent / "conda-lock"
    if not cli.exists():
        pytest.skip("the conda-lock command is not installed next to this Python")
    result = _lock(CUDA_PLAN, _target(driver=Version("535.104.05"), **GPU), spec, kb)
    lock, _ = result.write(tmp_path)
    proc = subprocess.run(
        [str(cli), "render", "-k", "explicit", "--platform", "linux-64", lock.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rendered = (tmp_path / "conda-linux-64.lock").read_text()
    assert "@EXPLICIT" in rendered
    tf = result.package("tensorflow")
    assert tf is not None
    assert f"{tf.url}#{tf.md5}" in rendered


def test_virtual_packages_of_targets(kb: KnowledgeBase) -> None:
    vps, notes = target_virtual_packages(Target(os="linux", arch="aarch64"), kb)
    by = {v.name: v for v in vps}
    assert str(by["__archspec"]) == "__archspec=1=aarch64"
    assert by["__glibc"].version == DEFAULT_GLIBC
    assert by["__glibc"].assumed
    assert any("glibc is not known" in n for n in notes)
    win, _ = target_virtual_packages(
        Target(os="windows", arch="x86_64", driver=DriverVersion("551.61"), **GPU),
        kb,
    )
    assert [str(v) for v in win] == ["__archspec=1=x86_64", "__cuda=12.4", "__win=0"]
    mac, _ = target_virtual_packages(Target(os="macos", arch="arm64"), kb)
    assert [v.name for v in mac] == ["__archspec", "__osx", "__unix"]
    assert str(mac[0]) == "__archspec=1=arm64"
    old, old_notes = target_virtual_packages(_target(driver=Version("300.1"), **GPU), kb)
    assert "__cuda" not in {v.name for v in old}
    assert any("older than every driver branch" in n for n in old_notes)


def test_routes_without_conda_packages(spec: CondaLockSpec) -> None:
    pip_plan = replace(CPU_PLAN, route="pip", conda=(), pip=("tensorflow==2.15.0",))
    with pytest.raises(CondaLockError, match="no conda packages"):
        solve_specs(pip_plan, spec)
    assert solve_specs(CONDA_PIP_PLAN, spec)[-1] == "pip"


def test_missing_rattler_is_a_tfenv_error(
    monkeypatch: pytest.MonkeyPatch, spec: CondaLockSpec
) -> None:
    monkeypatch.setitem(sys.modules, "rattler", None)
    with pytest.raises(CondaLockUnavailableError) as info:
        lock_conda(_target(), CPU_PLAN, spec)
    assert "3.10" in str(info.value)
    assert "tfenv[lock]" in str(info.value)
    assert info.value.exit_code == 1


def test_a_failed_solve_does_not_abort_the_interpreter(channel: str, tmp_path: Path) -> None:
    # py-rattler aborts at shutdown if a failed solve's objects outlive the interpreter
    script = (
        "from packaging.version import Version\n"
        "from tfenv.lock.conda import CondaLockSpec, CondaUnsatisfiableError, lock_conda\n"
        "from tfenv.models.plan import Plan\n"
        "from tfenv.models.target import Target\n"
        "plan = Plan('2.15.0', 'tensorflow', '3.11', 'cuda', 'conda', cuda='12.0',\n"
        "            conda=('python=3.11', 'tensorflow=2.15.0=cuda120*'))\n"
        "target = Target('linux', 'x86_64', glibc=Version('2.31'), cc=Version('8.6'))\n"
        f"spec = CondaLockSpec(({channel!r},), {str(tmp_path)!r})\n"
        "try:\n"
        "    lock_conda(target, plan, spec)\n"
        "except CondaUnsatisfiableError as exc:\n"
        "    error = exc\n"
        "print('unsatisfiable')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "unsatisfiable"
