"""The curated TensorFlow knowledge base: files load, records are sourced, facts hold."""

from __future__ import annotations

import re
import shutil
from importlib import resources
from pathlib import Path

import pytest
from packaging.version import Version

from tests.snapshot import frozen_kb
from tfenv.errors import KBValidationError
from tfenv.kb._fields import Provenance
from tfenv.kb.changes import CHANGES_FILE, load_changes
from tfenv.kb.known_issues import KNOWN_ISSUES_FILE, load_known_issues
from tfenv.kb.tensorflow import BUILDS_FILE, TfBuild, TfBuilds, load_builds, series_of
from tfenv.models.platform import PLATFORM_KEYS

V = Version
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HOSTS = ("pypi" + ".org", "pythonhosted")


@pytest.fixture(scope="module")
def builds() -> TfBuilds:
    return load_builds()


def _series(builds: TfBuilds, text: str) -> TfBuild:
    build = builds.for_version(text)
    assert build is not None, text
    return build


def _check(prov: Provenance) -> None:
    assert prov.sources
    assert all(s.strip() for s in prov.sources)
    assert _DATE.match(prov.retrieved)


# -- every shipped file ---------------------------------------------------------------


@pytest.mark.parametrize("relpath", [BUILDS_FILE, KNOWN_ISSUES_FILE, CHANGES_FILE])
def test_shipped_file_names_no_registry_host(relpath: str) -> None:
    text = resources.files("tfenv.data").joinpath(relpath).read_text("utf-8")
    for host in _HOSTS:
        assert host not in text
    assert "/work/shared" not in text


def test_every_build_record_is_sourced(builds: TfBuilds) -> None:
    for build in builds.all:
        _check(build.provenance)
        for sub in (build.linux, build.windows):
            if sub is not None:
                _check(sub.provenance)
        if build.compute is not None:
            _check(build.compute.provenance)


def test_every_issue_and_change_is_sourced() -> None:
    for issue in load_known_issues():
        _check(issue.provenance)
    for change in load_changes():
        _check(change.provenance)


def test_ids_are_unique() -> None:
    issues = [i.id for i in load_known_issues()]
    changes = [c.id for c in load_changes()]
    assert len(issues) == len(set(issues))
    assert len(changes) == len(set(changes))


# -- builds invariants ----------------------------------------------------------------


def test_series_contiguous_2_0_to_2_21(builds: TfBuilds) -> None:
    series = [b.series for b in builds.all]
    assert len(series) == len(set(series))
    stable = [s for s in series if s <= V("2.21")]
    assert stable == [V(f"2.{m}") for m in range(22)]
    assert V("2.22") in series


def test_gpu_platforms(builds: TfBuilds) -> None:
    for build in builds.all:
        assert build.gpu_platforms <= set(PLATFORM_KEYS)
        assert "linux_x86_64" in build.gpu_platforms
        assert not any("aarch64" in p or "macos" in p for p in build.gpu_platforms)
        windows_gpu = "windows_x86_64" in build.gpu_platforms
        assert windows_gpu == (build.series <= V("2.10")), build.series
        assert (build.windows is not None) == windows_gpu, build.series


def test_gpu_package(builds: TfBuilds) -> None:
    assert _series(builds, "2.0").gpu_package == "tensorflow-gpu"
    assert all(b.gpu_package == "tensorflow" for b in builds.all if b.series >= V("2.1"))


def test_cuda_and_cudnn_majors(builds: TfBuilds) -> None:
    for build in builds.all:
        linux = build.cuda_build("linux")
        assert linux is not None
        if build.series > V("2.21"):
            continue  # the pre-release records no CUDA version
        assert linux.cuda is not None
        assert linux.cudnn is not None
        assert (linux.cuda.major >= 12) == (build.series >= V("2.15")), build.series
        assert (linux.cudnn.major >= 9) == (build.series >= V("2.18")), build.series


def test_keras_major(builds: TfBuilds) -> None:
    for build in builds.all:
        assert build.keras_major == (3 if build.series >= V("2.16") else 2), build.series


def test_lowest_sass_and_ptx(builds: TfBuilds) -> None:
    for build in builds.all:
        caps = build.compute
        assert caps is not None
        assert caps.hand_written.sass
        assert caps.hand_written.ptx
        if build.series <= V("2.14"):
            expected = V("3.5")
        elif build.series <= V("2.16"):
            expected = V("5.0")
        else:
            expected = V("6.0")
        assert caps.lowest_sass == expected, build.series
        assert (V("9.0") in caps.hand_written.ptx) == (build.series >= V("2.16")), build.series
        # the MLIR kernel generator arrived in 2.4; its PTX is sm_90a-only from 2.16 to 2.20
        assert (caps.generated is not None) == (build.series >= V("2.4")), build.series
        if caps.generated is not None:
            specific = caps.generated.arch_specific_ptx
            assert specific == (V("2.16") <= build.series <= V("2.20")), build.series


def test_key_facts(builds: TfBuilds) -> None:
    b215 = _series(builds, "2.15")
    assert b215.linux is not None
    assert (b215.linux.cuda, b215.linux.cudnn) == (V("12.2"), V("8.9"))  # not the 11.8 claim
    b25 = _series(builds, "2.5")
    assert b25.linux is not None
    assert b25.windows is not None
    assert (b25.linux.cuda, b25.linux.cudnn) == (V("11.2"), V("8.1"))
    assert (b25.windows.cuda, b25.windows.cudnn) == (V("11.2"), V("8.1"))
    assert _series(builds, "2.10").cuda_build("windows") is not None
    assert _series(builds, "2.11").cuda_build("windows") is None
    c215 = b215.compute
    assert c215 is not None
    # CORRECTIONS.md (1): native hand-written kernels for Ampere; the MLIR-generated ones only PTX
    assert c215.hand_written.sass == (V("5.0"), V("6.0"), V("7.0"), V("7.5"), V("8.0"))
    assert c215.hand_written.ptx == (V("8.0"),)
    assert c215.hand_written.ptx_isa == V("8.1")
    assert c215.generated is not None
    assert c215.generated.sass == (V("5.0"), V("6.0"), V("7.0"), V("7.5"))
    assert c215.generated.ptx == (V("8.0"),)


@pytest.mark.parametrize(
    ("version", "series"),
    [
        ("2.15.0.post1", "2.15"),
        ("2.16.0rc0", "2.16"),
        ("2.22.0rc0", "2.22"),
        ("2.0.4", "2.0"),
        ("2.21.0", "2.21"),
    ],
)
def test_for_version(builds: TfBuilds, version: str, series: str) -> None:
    build = builds.for_version(Version(version))
    assert build is not None
    assert build.series == V(series)
    assert series_of(version) == V(series)


def test_for_version_unknown(builds: TfBuilds) -> None:
    assert builds.for_version("1.15.5") is None
    assert builds.for_version("3.0.0") is None


def test_cuda_build_rejects_other_os(builds: TfBuilds) -> None:
    with pytest.raises(ValueError, match="unknown OS"):
        _series(builds, "2.15").cuda_build("macos")  # type: ignore[arg-type]


# -- known issues ---------------------------------------------------------------------


def test_known_issues_fields() -> None:
    issues = load_known_issues()
    assert len(issues) >= 8
    for issue in issues:
        assert issue.severity in ("broken", "warning")
        assert issue.platforms <= set(PLATFORM_KEYS)
        assert str(issue.applies)
        assert issue.summary.strip()
        # a real action, not "see the source" (check-upgrade's fix)
        assert issue.action.strip().endswith(".")
        assert "see the source" not in issue.action.lower()


def test_changes_link_only_known_issues() -> None:
    ids = {i.id for i in load_known_issues()}
    linked = [c for c in load_changes() if c.issue is not None]
    assert linked
    assert all(c.issue in ids for c in linked)
    gains = {c.id for c in load_changes() if c.effect == "gain"}
    assert {"numpy-2-support", "and-cuda-extra"} <= gains


def _hits(version: str, platform: str | None, package: str = "tensorflow") -> set[str]:
    return {i.id for i in load_known_issues() if i.matches(version, platform, package)}


def test_known_issue_2_15_0_and_cuda() -> None:
    assert "and-cuda-2-15-0-tensorrt-unresolvable" in _hits("2.15.0", "linux_x86_64")
    assert "and-cuda-2-15-0-tensorrt-unresolvable" not in _hits("2.15.1", "linux_x86_64")
    assert "and-cuda-2-15-0-tensorrt-unresolvable" not in _hits("2.15.0.post1", "linux_x86_64")
    assert "and-cuda-2-15-0-tensorrt-unresolvable" not in _hits("2.15.0", "macos_arm64")
    # a metadata trap of universal lockers: listed where the missing packages would install
    assert "phantom-platform-pins-2-15-0-post1" in _hits("2.15.0.post1", "windows_x86_64")
    assert "phantom-platform-pins-2-15-0-post1" not in _hits("2.15.0.post1", "linux_x86_64")
    assert not any(
        i.severity == "broken" for i in load_known_issues() if i.matches("2.15.1", "linux_x86_64")
    )
    issue = next(i for i in load_known_issues() if i.id == "and-cuda-2-15-0-tensorrt-unresolvable")
    assert issue.prefer == V("2.15.1")


def test_known_issue_ranges() -> None:
    assert "pip-cuda-libs-not-found" in _hits("2.16.1", None)
    assert "pip-cuda-libs-not-found" not in _hits("2.16.2", None)
    for v in ("2.18.1", "2.19.0", "2.19.1"):
        assert "phantom-intel-pin-2-18-1-to-2-19" in _hits(v, "windows_x86_64")
    for v in ("2.18.0", "2.20.0", "2.20.0rc0"):
        assert "phantom-intel-pin-2-18-1-to-2-19" not in _hits(v, "windows_x86_64")
    for platform in ("linux_x86_64", "linux_aarch64", "macos_arm64", "macos_x86_64"):
        assert "phantom-intel-pin-2-18-1-to-2-19" not in _hits("2.19.0", platform)
    assert "and-cuda-ranges-newer-than-build" in _hits("2.22.0rc0", "linux_x86_64")
    assert "and-cuda-aarch64-cpu-only" in _hits("2.21.0", "linux_aarch64")
    assert "and-cuda-aarch64-cpu-only" not in _hits("2.21.0", "linux_x86_64")


def test_known_issue_other_packages() -> None:
    assert "tensorflow-gpu-removed-sdist" in _hits("2.12.0", None, "tensorflow-gpu")
    assert "tensorflow-gpu-removed-sdist" not in _hits("2.11.0", None, "tensorflow-gpu")
    assert "tensorflow-gpu-removed-sdist" not in _hits("2.12.0", None)
    assert "tensorflow-macos-2-15-1-self-stub" in _hits("2.15.1", "macos_arm64", "tensorflow-macos")


# -- changes --------------------------------------------------------------------------


def test_changes() -> None:
    changes = {c.id: c for c in load_changes()}
    assert len(changes) >= 20
    expected = {
        "keras-3-default": "2.16",
        "native-windows-gpu-ended": "2.11",
        "macos-x86-ended": "2.17",
        "kepler-dropped": "2.15",
        "maxwell-dropped": "2.17",
        "cuda-12": "2.15",
        "cudnn-9": "2.18",
        "glibc-2-27": "2.21",
        "tensorrt-removed": "2.18",
        "tensorboard-dependency-removed": "2.21",
        "gcs-filesystem-optional": "2.20",
    }
    for change_id, since in expected.items():
        assert changes[change_id].since == V(since), change_id
    assert "TF_USE_LEGACY_KERAS=1" in changes["keras-3-default"].action
    for change in changes.values():
        assert change.summary.strip()
        assert change.action.strip()


def test_changes_agree_with_builds(builds: TfBuilds) -> None:
    changes = {c.id: c for c in load_changes()}
    last_windows_gpu = max(b.series for b in builds.all if b.windows is not None)
    assert changes["native-windows-gpu-ended"].since > last_windows_gpu
    first_keras3 = min(b.series for b in builds.all if b.keras_major == 3)
    assert changes["keras-3-default"].since == first_keras3


# -- broken files ---------------------------------------------------------------------

_GOOD = """\
builds:
  - series: "2.15"
    gpu_package: tensorflow
    gpu_platforms: [linux_x86_64]
    linux: {cuda: "12.2", cudnn: "8.9", source: s, retrieved: "2026-11-30"}
    windows: null
    compute: null
    keras_major: 2
    source: s
    retrieved: "2026-11-30"
"""


def _root(tmp_path: Path, text: str) -> Path:
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "builds.yaml").write_text(text, "utf-8")
    return tmp_path


def test_temp_root_loads(tmp_path: Path) -> None:
    builds = load_builds(_root(tmp_path, _GOOD))
    assert [b.series for b in builds.all] == [V("2.15")]
    assert builds.all[0].compute is None
    assert builds.all[0].notes == ()


@pytest.mark.parametrize(
    ("old", "new", "path", "problem"),
    [
        ("    source: s\n", "", "builds[0].source", "missing"),
        ('cuda: "12.2"', 'cuda: "twelve"', "builds[0].linux.cuda", "not a version"),
        ("    keras_major: 2\n", "    keras_major: 2\n    kears: 3\n", "builds[0]", "kears"),
        ('series: "2.15"', 'series: "2.15.1"', "builds[0].series", "minor series"),
        ("[linux_x86_64]", "[linux_arm]", "builds[0].gpu_platforms[0]", "unknown platform"),
        ('retrieved: "2026-11-30"\n', 'retrieved: "last week"\n', "builds[0].retrieved", "date"),
    ],
)
def test_broken_builds_file(tmp_path: Path, old: str, new: str, path: str, problem: str) -> None:
    assert old in _GOOD
    text = _GOOD[::-1].replace(old[::-1], new[::-1], 1)[::-1]  # replace the last occurrence
    with pytest.raises(KBValidationError) as caught:
        load_builds(_root(tmp_path, text))
    err = caught.value
    assert err.file == BUILDS_FILE
    assert err.path == path
    assert problem in err.problem
    assert BUILDS_FILE in str(err)


def test_duplicate_series(tmp_path: Path) -> None:
    entry = _GOOD.split("builds:\n", 1)[1]
    with pytest.raises(KBValidationError, match="appears twice") as caught:
        load_builds(_root(tmp_path, _GOOD + entry))
    assert caught.value.path == "builds[1].series"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(KBValidationError, match="missing"):
        load_builds(tmp_path)


def test_broken_known_issue(tmp_path: Path) -> None:
    shutil.copytree(resources.files("tfenv.data") / "tensorflow", tmp_path / "tensorflow")  # type: ignore[arg-type]
    path = tmp_path / "tensorflow" / "known_issues.yaml"
    text = path.read_text("utf-8").replace('applies: "==2.15.0"', 'applies: "=>2.15.0"', 1)
    path.write_text(text, "utf-8")
    with pytest.raises(KBValidationError, match="not a version specifier") as caught:
        load_known_issues(tmp_path)
    assert caught.value.path == "issues[0].applies"
    assert caught.value.file == KNOWN_ISSUES_FILE


def test_broken_change(tmp_path: Path) -> None:
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "changes.yaml").write_text(
        "changes:\n  - {id: x, since: '2.1', kind: weather, summary: s, action: a,"
        " source: s, retrieved: '2026-11-30'}\n",
        "utf-8",
    )
    with pytest.raises(KBValidationError, match="weather") as caught:
        load_changes(tmp_path)
    assert caught.value.path == "changes[0].kind"


def test_doctor_names_an_existing_known_issue() -> None:
    from tfenv.doctor.checks import PIP_LIBS_NOT_FOUND

    assert any(i.id == PIP_LIBS_NOT_FOUND for i in frozen_kb().known_issues)


def test_known_issue_text_names_the_gpu_at_hand() -> None:
    (xla,) = [i for i in load_known_issues() if i.id == "xla-blackwell-ptxas-12-5"]
    assert "compute capability 10.0" in xla.text_for(Version("10.0"))
    assert "for compute capability 12.0" not in xla.text_for(Version("10.0"))
    assert "for compute capability 12.0" in xla.text_for(Version("12.0"))
    assert "GPUs of compute capability >=10.0" in xla.text_for(None)
    assert "{" not in xla.text_for(None)


def test_known_issue_summary_placeholders_are_checked(tmp_path: Path) -> None:
    (tmp_path / "tensorflow").mkdir()
    (tmp_path / "tensorflow" / "known_issues.yaml").write_text(
        "issues:\n  - id: x\n    applies: '>=2.0'\n    platforms: []\n    severity: warning\n"
        "    summary: 'fails on {cc}'\n    prefer: null\n    action: a\n"
        "    source: [https://example.org/x]\n    retrieved: '2026-12-03'\n",
        "utf-8",
    )
    with pytest.raises(KBValidationError, match="placeholder"):
        load_known_issues(tmp_path)
