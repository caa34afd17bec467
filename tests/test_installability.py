"""Every ok plan installs (issue #11), offline: each distinct install set of the data-driven
cases' plans is compiled by uv, for the plan's platform and Python, against a local index
that replicates the real one from tfenv's own recorded index data (tests/replica_index.py).
The live counterpart is test_installability_live.py."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from tests.installability import InstallSet, compile_all, failures, install_sets, uv_compile
from tests.lock_index import LockIndex, serve
from tests.replica_index import (
    build_replica,
    candidate_versions,
    pick_version,
    platform_tag,
    python_tag,
    replica_dists,
)
from tfenv.kb import KnowledgeBase

LINUX = "x86_64-manylinux_2_28"


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LockIndex]:
    folder = tmp_path_factory.mktemp("replica")
    info = build_replica(folder)
    # the replica does not change while it runs: uv need not revalidate its pages
    yield from serve(LockIndex(folder, file_info=info, cache_control="max-age=3600"))


@pytest.fixture(scope="module")
def installs(kb: KnowledgeBase) -> list[InstallSet]:
    return install_sets(kb)


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uv-cache")


def _compile(replica: LockIndex, cache: Path, pip: tuple[str, ...], platform: str, py: str) -> str:
    """uv's message for an install set that must fail ('' if it resolved)."""
    result = uv_compile(InstallSet(pip, platform, py, ("negative",)), replica.url, cache)
    return "" if result.ok else result.output


# -- every ok plan -------------------------------------------------------------------------


def test_every_ok_plan_installs_from_the_replica(
    installs: list[InstallSet], replica: LockIndex, cache: Path
) -> None:
    assert len(installs) >= 25, [i.name for i in installs]  # the cases hold that many
    assert {i.platform for i in installs} >= {
        LINUX,
        "x86_64-manylinux_2_17",
        "aarch64-manylinux_2_28",
        "x86_64-pc-windows-msvc",
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
    }
    results = compile_all(installs, replica.url, cache)
    assert failures(results) == ""
    for r in results:  # uv resolved the plan's own distributions, not something else
        for spec in r.install.pip:
            if "==" not in spec:  # a runtime constraint: what uv took satisfies it
                _assert_satisfied(Requirement(spec), r.output, r.install.name)
                continue
            pin = spec.replace("[and-cuda]", "")
            assert pin in r.output, (r.install.name, pin, r.output)


def test_the_cases_plans_carry_runtime_constraints(
    installs: list[InstallSet], kb: KnowledgeBase
) -> None:
    """The compile above includes the runtime constraints: some cases' plans carry each
    package the data constrains (the cases cover 2.0, 2.3 and 2.10 on their Pythons)."""
    lines = {c.line for c in kb.runtime.constraints}
    carried = {spec for i in installs for spec in i.pip if spec in lines}
    assert {Requirement(s).name for s in carried} == {c.package for c in kb.runtime.constraints}


def _assert_satisfied(req: Requirement, output: str, name: str) -> None:
    found = [
        line.split("==", 1)[1].split()[0]
        for line in output.splitlines()
        if line.lower().startswith(f"{req.name}==")
    ]
    assert found, (name, str(req), output)
    assert req.specifier.contains(found[0], prereleases=True), (name, str(req), found)


def test_install_sets_are_distinct_and_name_their_cases(installs: list[InstallSet]) -> None:
    keys = [(i.pip, i.platform, i.python) for i in installs]
    assert len(keys) == len(set(keys))
    by_case = {c: i for i in installs for c in i.cases}
    assert by_case["linux-ampere-2.15-series-prefers-2.15.1"].pip == (
        "tensorflow[and-cuda]==2.15.1",
    )
    # the container route installs in a Linux image, whatever the host
    assert by_case["container-windows-runs-in-wsl2"].platform == LINUX
    assert by_case["linux-glibc-2.17-stops-at-2.20"].platform == "x86_64-manylinux_2_17"
    assert "official-2.17.0-matches" not in by_case  # an official image: nothing to pip install
    assert "conda-known-build-python-from-the-recipe" not in by_case  # conda only


# -- the check is not vacuous: plans that do not install fail ----------------------------


def test_tensorrt_without_a_cp311_wheel_fails(replica: LockIndex, cache: Path) -> None:
    # tensorflow 2.14.1's and-cuda extra pins tensorrt==8.5.3.1: wheels for cp36-cp310 only
    msg = _compile(replica, cache, ("tensorflow[and-cuda]==2.14.1",), LINUX, "3.11")
    assert "tensorrt" in msg, msg
    assert _compile(replica, cache, ("tensorflow[and-cuda]==2.14.1",), LINUX, "3.10") == ""
    assert _compile(replica, cache, ("tensorflow==2.14.1",), LINUX, "3.11") == ""


def test_cuda_wheels_missing_on_aarch64_fail(replica: LockIndex, cache: Path) -> None:
    # 2.16.2's and-cuda extra pins nvidia-*-cu12 versions with x86_64 wheels only
    aarch64 = "aarch64-manylinux_2_28"
    msg = _compile(replica, cache, ("tensorflow[and-cuda]==2.16.2",), aarch64, "3.11")
    assert "nvidia-" in msg, msg
    assert _compile(replica, cache, ("tensorflow==2.16.2",), aarch64, "3.11") == ""


def test_sdist_only_and_missing_python_and_glibc_fail(replica: LockIndex, cache: Path) -> None:
    # tensorflow-gpu 2.12.0 is an sdist only (one that refuses to build)
    assert "tensorflow-gpu" in _compile(replica, cache, ("tensorflow-gpu==2.12.0",), LINUX, "3.10")
    # no cp312 wheel of 2.15.1; no wheel of 2.21.0 for glibc 2.17 (its floor is 2.27)
    assert _compile(replica, cache, ("tensorflow==2.15.1",), LINUX, "3.12") != ""
    assert _compile(replica, cache, ("tensorflow==2.21.0",), "x86_64-manylinux_2_17", "3.12")
    # tensorflow-metal 1.1.0 has no cp312 wheel; 1.2.0 has
    mac = "aarch64-apple-darwin"
    pair = ("tensorflow==2.16.2", "tensorflow-metal==1.1.0")
    assert "tensorflow-metal" in _compile(replica, cache, pair, mac, "3.12")
    assert _compile(replica, cache, (pair[0], "tensorflow-metal==1.2.0"), mac, "3.12") == ""


# -- the replica ---------------------------------------------------------------------------


def test_replica_wheel_metadata_follows_the_recorded_facts(replica: LockIndex) -> None:
    name = "tensorflow-2.15.1-cp311-cp311-manylinux_2_17_x86_64.whl"
    with zipfile.ZipFile(replica.folder / name) as zf:
        meta = zf.read("tensorflow-2.15.1.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.9" in meta
    assert "Provides-Extra: and-cuda" in meta
    assert 'Requires-Dist: nvidia-cudnn-cu12==8.9.4.25; extra == "and-cuda"' in meta
    assert "Requires-Dist: numpy<2.0.0,>=1.23.5" in meta
    assert 'tensorflow-intel==2.15.1; platform_system == "Windows"' in meta
    files = {p.name for p in replica.folder.iterdir()}
    assert "tensorflow-2.15.1-cp311-cp311-win_amd64.whl" in files  # the stub
    assert "tensorflow_intel-2.15.1-cp311-cp311-win_amd64.whl" in files
    assert "tensorflow-2.15.1-cp311-cp311-macosx_12_0_arm64.whl" in files
    assert "tensorflow-2.21.0-cp313-cp313-manylinux_2_27_aarch64.whl" in files
    assert "tensorflow_gpu-2.12.0.tar.gz" in files
    assert not any(f.startswith("tensorflow_gpu-2.12.0-") for f in files)
    assert "tensorrt-8.5.3.1-cp310-cp310-manylinux_2_17_x86_64.whl" in files
    assert not any(f.startswith("tensorrt-8.5.3.1-cp311") for f in files)
    assert "nvidia_cudnn_cu12-8.9.7.29-py3-none-manylinux_2_17_x86_64.whl" in files
    assert not any(f.startswith("nvidia_cudnn_cu12-8.9.7.29-") and "aarch64" in f for f in files)


def test_replica_covers_every_other_dependency_specifier() -> None:
    dists = replica_dists()
    numpy = sorted(Version(d.version) for d in dists if d.name == "numpy")
    for spec in ("<1.19.0,>=1.16.0", "<2.0.0,>=1.23.5", "<2.1.0,>=1.26.0", ">=1.26.0"):
        assert any(v in SpecifierSet(spec) for v in numpy), (spec, numpy)
    assert all(d.tag == "py3-none-any" and d.requires == () for d in dists if d.name == "keras")


# -- helpers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "pool", "want"),
    [
        ("<2.0.0,>=1.23.5", [], "1.24.0"),
        ("==0.2.2", [], "0.2.2"),
        ("~=1.15.0", [], "1.15.1"),
        ("~=0.10", [], "0.11"),
        ("<3.20,>=3.9.2", [], "3.19.0"),
        ("!=0.5.0,!=0.5.1,!=0.5.2,>=0.2.1", ["0.5.0"], "1.0.0"),
        ("==2.5.*", [], "2.5"),
        ("", [], "2.0"),
        ("", ["1.26.4"], "2.0.0"),
        ("<2", [], "1"),
        (">=3.12.0.dev", [], "4.0.0"),
        ("==2.6.0.dev2021062501", [], "2.6.0.dev2021062501"),
        ("<5.0.0dev,>=3.20.3", [], "4.0.0"),
    ],
)
def test_pick_version(spec: str, pool: list[str], want: str) -> None:
    got = pick_version(SpecifierSet(spec), [Version(v) for v in pool])
    assert got == Version(want)
    assert SpecifierSet(spec).contains(got, prereleases=True)


def test_pick_version_fails_loudly() -> None:
    with pytest.raises(ValueError, match="no version satisfies"):
        pick_version(SpecifierSet(">1.0,<1.0.1,!=1.0.0"))
    with pytest.raises(ValueError, match="no version satisfies"):
        pick_version(SpecifierSet("<0"))


def test_candidate_versions_bump_each_component() -> None:
    got = {str(v) for v in candidate_versions([Version("1.23.5")])}
    assert got == {"1.23.5", "1.23.6", "1.23.4", "1.24.0", "1.22.0", "2.0.0", "0.0.0"}


@pytest.mark.parametrize(
    ("entry", "tag"),
    [("3.10", "cp310-cp310"), ("3.7", "cp37-cp37m"), ("2.7", "cp27-cp27mu"),
     ("3.6+", "cp36-abi3"), ("3", "py3-none")],
)  # fmt: skip
def test_python_tag(entry: str, tag: str) -> None:
    assert python_tag(entry) == tag


def test_platform_tag() -> None:
    assert platform_tag("linux_x86_64", "2.17", None) == "manylinux_2_17_x86_64"
    assert platform_tag("linux_aarch64", None, None) == "manylinux_2_17_aarch64"
    assert platform_tag("macos_arm64", None, "12.0") == "macosx_12_0_arm64"
    assert platform_tag("macos_x86_64", None, "10.15") == "macosx_10_15_x86_64"
    assert platform_tag("macos_arm64", None, None) == "macosx_11_0_arm64"
    assert platform_tag("windows_x86_64", None, None) == "win_amd64"
