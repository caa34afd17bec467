"""The lock pins what the plan says (issue #14): a 2.20+ GPU target's lockfiles pin the
and-cuda extra's CUDA wheels by the CUDA-library policy (``cuda-libs``: the build versions
by default, ``newest`` capped by GPU and driver, a target's own key winning), and the
header says what is pinned. Locked by uv against a local replica of the index that holds
every recorded nvidia-* version (tests/replica_index.py), so that without tfenv's pins uv
would take the newest; the cases are tests/data/lock/cuda_libs.yaml."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.installability import InstallSet, uv_compile
from tests.lock_cases import LockCase, check_lockfiles, header_cuda, load_cases
from tests.lock_index import LockIndex, serve
from tests.replica_index import ReplicaDist, build_replica
from tfenv.config import load_config
from tfenv.formats.cuda_pins import cuda_pins
from tfenv.kb import KnowledgeBase
from tfenv.lock import LockOptions, check_project, lock_project
from tfenv.lock.header import header_lines

CASES = load_cases()


def _wanted(d: ReplicaDist) -> bool:
    """TensorFlow 2.21.0 and everything it can pull in (every nvidia-* version)."""
    if d.name == "tensorflow":
        return d.version == "2.21.0"
    return not d.name.startswith(("tensorflow-", "tensorrt"))


@pytest.fixture(scope="module")
def replica(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LockIndex]:
    folder = tmp_path_factory.mktemp("replica-2.21")
    info = build_replica(folder, wanted=_wanted)
    yield from serve(LockIndex(folder, file_info=info, cache_control="max-age=3600"))


@pytest.fixture(scope="module")
def uv_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("uv-cache")


def _options(replica: LockIndex, cache: Path) -> LockOptions:
    return LockOptions(index_url=replica.url, cache_dir=cache, retries=0, timeout_s=30.0)


def test_the_replica_alone_gives_the_newest_cuda_wheels(replica: LockIndex, uv_cache: Path) -> None:
    """What the cases guard against: the extra's ranges resolve to the newest wheels."""
    result = uv_compile(
        InstallSet(("tensorflow[and-cuda]==2.21.0",), "x86_64-manylinux_2_31", "3.11", ("raw",)),
        replica.url,
        uv_cache,
    )
    assert result.ok, result.output
    assert "nvidia-cudnn-cu12==9.28.0.42" in result.output
    assert "nvidia-cuda-runtime-cu12==12.9.79" in result.output


def test_the_cases_are_there() -> None:
    """The parametrized tests here and in test_lock_live.py run none on an empty list."""
    assert CASES
    assert any(c.live for c in CASES)
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_lock_pins_the_cuda_libs_policy(
    case: LockCase, replica: LockIndex, uv_cache: Path, tmp_path: Path, kb: KnowledgeBase
) -> None:
    (tmp_path / "tfenv.toml").write_text(case.config, "utf-8")
    config = load_config(tmp_path)
    outcome = lock_project(kb, config, _options(replica, uv_cache))
    assert outcome.team.tensorflow == "2.21.0"
    check_lockfiles(tmp_path, case)
    assert check_project(kb, config, _options(replica, uv_cache)).up_to_date


def test_changing_cuda_libs_makes_the_locks_stale(
    replica: LockIndex, uv_cache: Path, tmp_path: Path, kb: KnowledgeBase
) -> None:
    case = CASES[0]
    (tmp_path / "tfenv.toml").write_text(case.config, "utf-8")
    lock_project(kb, load_config(tmp_path), _options(replica, uv_cache))
    top = case.config.replace('python = "3.11"\n', 'python = "3.11"\ncuda-libs = "newest"\n')
    (tmp_path / "tfenv.toml").write_text(top, "utf-8")
    stale = check_project(kb, load_config(tmp_path), _options(replica, uv_cache)).stale
    assert stale
    assert all("configuration key 'cuda-libs' changed" in s.reasons for s in stale)
    own = case.config + 'cuda-libs = "newest"\n'  # the last target table gets its own key
    (tmp_path / "tfenv.toml").write_text(own, "utf-8")
    stale = check_project(kb, load_config(tmp_path), _options(replica, uv_cache)).stale
    assert stale
    assert all(any("this target's facts or settings" in r for r in s.reasons) for s in stale)


# -- the header describes the resolved lock, not only the plan ----------------------------


def test_cuda_pins_reads_pip_and_conda_packages() -> None:
    pip = cuda_pins(
        [
            ("nvidia-cudnn-cu12", "9.28.0.42"),
            ("nvidia_cuda_runtime_cu12", "12.9.79"),
            ("numpy", "2.1.0"),
        ]
    )
    assert (pip.cuda, pip.cudnn) == ("12.9", "9.28")
    assert pip.pins == (("nvidia-cuda-runtime-cu12", "12.9.79"), ("nvidia-cudnn-cu12", "9.28.0.42"))
    assert pip.line() == (
        "CUDA wheels: nvidia-cuda-runtime-cu12==12.9.79, nvidia-cudnn-cu12==9.28.0.42"
    )
    conda = cuda_pins(
        [("cuda-version", "12.0"), ("cudnn", "8.9.7.29"), ("python", "3.11.8")], conda=True
    )
    assert (conda.cuda, conda.cudnn) == ("12.0", "8.9")
    assert conda.line() == "CUDA packages: cuda-version 12.0, cudnn 8.9.7.29"
    assert cuda_pins([("cudatoolkit", "11.8.0"), ("cudnn", "8.9.7.29")], conda=True).cuda == "11.8"
    assert not cuda_pins([("numpy", "1.26.4")])


def test_header_names_what_the_lock_pins_even_when_the_plan_differs(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    from tfenv import api
    from tfenv.config import parse_config
    from tfenv.models.target import MachineArgs
    from tfenv.resolver import resolve

    config = parse_config({"targets": {"gpu": {"os": "linux", "gpu": "A100"}}}, tmp_path / "x")
    target = api.build_target(kb, MachineArgs(os="linux", gpu="A100", driver="575.51.03"))
    res = resolve(kb, target, api.build_request(kb, "2.21"))
    assert res.plan is not None
    assert (res.plan.cuda, res.plan.cudnn) == ("12.5", "9.3")
    newer = cuda_pins([("nvidia-cuda-runtime-cu12", "12.9.79"), ("nvidia-cudnn-cu12", "9.28.0.42")])
    lines = header_lines(config, res, "gpu", "0" * 64, pinned=newer)
    stack = next(line for line in lines if line.startswith("Stack: "))
    assert "CUDA 12.9, cuDNN 9.28" in stack
    assert "CUDA wheels: nvidia-cuda-runtime-cu12==12.9.79, nvidia-cudnn-cu12==9.28.0.42" in lines
    assert any("The plan named CUDA 12.5 and cuDNN 9.3" in line for line in lines)
    same = cuda_pins([("nvidia-cuda-runtime-cu12", "12.5.82"), ("nvidia-cudnn-cu12", "9.3.0.75")])
    lines = header_lines(config, res, "gpu", "0" * 64, pinned=same)
    assert not any("The plan named" in line for line in lines)
    coarse = replace(res, plan=replace(res.plan, cudnn="9"))  # a plan that names a major only
    lines = header_lines(config, coarse, "gpu", "0" * 64, pinned=same)
    assert not any("The plan named" in line for line in lines)
    plain = header_lines(config, res, "gpu", "0" * 64)  # nothing pinned: the plan's stack
    assert "CUDA 12.5, cuDNN 9.3" in next(line for line in plain if line.startswith("Stack: "))
    assert not any(line.startswith("CUDA wheels") for line in plain)


def test_header_cuda_parses_a_wrapped_list(tmp_path: Path) -> None:
    path = tmp_path / "requirements.x.txt"
    path.write_text(
        "# Stack: TensorFlow 2.21.0, route pip, CUDA 12.5, cuDNN 9.3, NVIDIA driver >= 525.60.13\n"
        "# CUDA wheels: nvidia-a-cu12==1.0,\n#   nvidia-b-cu12==2.0\n# tfenv-inputs: x\n"
    )
    listed = {"nvidia-a-cu12": "1.0", "nvidia-b-cu12": "2.0"}
    assert header_cuda(path)[1:] == ("12.5", "9.3", listed)
