"""Live: the recorded runtime constraints make a plan of each failure class install and run.

A fixed sample covers the classes ``tools/runtime_sweep.py`` found: protobuf 4+ (2.0 on 3.7,
2.3 on 3.8), NumPy 2 (2.8 on 3.9, 2.10 on 3.10), a Keras 2 release without a constraint
(2.14 on 3.11) and the newest release on its newest Python. Each is the newest release of its
series in the recorded index data; its GPU plan (CUDA wheels left out: this is a CPU machine)
and its CPU plan are installed with uv into a fresh venv WITH the constraints the knowledge
base records for it, TensorFlow is imported and one Keras step trained on the CPU (the tool's
child script). Needs network, the pyenv interpreters and a few minutes (uv's cache makes reruns
fast); run in CI with ``-m live``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version

from tests import runtime_tool
from tfenv.kb import KnowledgeBase

pytestmark = pytest.mark.live


rs = runtime_tool.load()
KB = KnowledgeBase()
INFOS = rs.release_infos(KB)


def _newest(series: str) -> str:
    """The newest final release of ``series`` in the recorded index data."""
    major, minor = (int(p) for p in series.split("."))
    found = [
        v.version
        for v in INFOS.values()
        if (v.version.major, v.version.minor) == (major, minor) and not v.version.is_prerelease
    ]
    return str(max(found))


def _newest_series() -> tuple[str, str]:
    """The newest release with a final version, and its newest Python."""
    info = max((v for v in INFOS.values() if not v.version.is_prerelease), key=lambda v: v.version)
    return f"{info.version.major}.{info.version.minor}", max(info.requires, key=Version)


SAMPLE = [("2.0", "3.7"), ("2.3", "3.8"), ("2.8", "3.9"), ("2.10", "3.10"), ("2.14", "3.11")]
SAMPLE.append(_newest_series())


@pytest.fixture(scope="module")
def runner() -> Any:
    available = rs.interpreters(Path.home() / ".pyenv" / "versions")
    from tfenv.index_url import configured_index_url

    work = Path(tempfile.mkdtemp(prefix="tfenv-runtime-live-"))
    return rs.Runner(rs._uv_binary(), available, work, configured_index_url()[0])


@pytest.fixture(scope="module")
def cpu_files() -> Any:
    from tfenv.index_url import configured_index_url

    return rs._IndexFiles(configured_index_url()[0])("tensorflow-cpu")


@pytest.mark.parametrize("flavour", ["gpu", "cpu"])
@pytest.mark.parametrize(("series", "python"), SAMPLE)
def test_plan_runs_with_the_recorded_constraints(
    runner: Any, cpu_files: Any, series: str, python: str, flavour: str
) -> None:
    if python not in runner.interpreters:
        pytest.skip(f"no Python {python} under ~/.pyenv/versions")
    release = _newest(series)
    version = Version(release)
    distribution = rs._distribution(KB, version, python, flavour, cpu_files)
    constraints = KB.runtime.constraints_for(version, python)
    lines = [f"{distribution}=={release}", *(c.line for c in constraints)]
    run = runner.try_plan(python, lines)
    assert run.outcome == "ran", (
        f"{' '.join(lines)} on Python {python}: {run.outcome}\n{run.output[-3000:]}"
    )


def test_the_sample_needs_the_constraints_it_proves() -> None:
    """The failure classes are in the data: protobuf for 2.0 and 2.3, NumPy for 2.8 and 2.10."""
    needs = {"2.0": "protobuf", "2.3": "protobuf", "2.8": "numpy", "2.10": "numpy"}
    for series, python in SAMPLE:
        if series in needs:
            found = KB.runtime.constraints_for(Version(_newest(series)), python)
            assert needs[series] in {c.package for c in found}, (series, python)
