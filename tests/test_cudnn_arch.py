"""cuDNN on GPUs newer than it supports: the highest compute capability each cuDNN series'
build lists (``cudnn.yaml`` ``max_cc``, NVIDIA's support matrices), and the verdict the
resolver takes from it: native, by PTX JIT (hardware forward compatibility, cuDNN 9.0+ on
CUDA 12+), cannot run (earlier cuDNN; a later series of the major that lists the GPU is
the way out), or unknown. Releases, series and capabilities are taken from the data."""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest
from packaging.version import Version

from tfenv.cli import main
from tfenv.errors import KBValidationError
from tfenv.kb import KnowledgeBase
from tfenv.kb import cudnn as cudnn_kb
from tfenv.kb._fields import Node
from tfenv.rules.cudnn_arch import cudnn_on_gpu

KB = KnowledgeBase.from_environment()
FC = KB.cudnn.forward_compat
LINUX = ("--os", "linux", "--glibc", "2.35")


def cuda_builds() -> list[tuple[Version, Version, Version]]:
    """(release, CUDA, cuDNN) of every final release with a Linux CUDA build."""
    out = []
    for release in KB.index.releases("tensorflow"):
        build = KB.builds.for_version(release.version)
        if release.version.is_prerelease or build is None:
            continue
        cb = build.for_machine("linux")
        if cb is not None and cb.cuda is not None and cb.cudnn is not None:
            out.append((release.version, cb.cuda, cb.cudnn))
    return sorted(out)


def next_major(cc: Version) -> Version:
    return Version(f"{cc.major + 1}.0")


def resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["resolve", *LINUX, *argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    data = json.loads(out)
    assert isinstance(data, dict)
    return code, data


def cudnn_lines(data: dict[str, Any]) -> list[str]:
    plan = data.get("plan") or {}
    return [w for w in plan.get("warnings", []) if "cuDNN" in w]


# -- the facts -------------------------------------------------------------------------


def test_every_recorded_highest_capability_is_sourced_and_sane() -> None:
    recorded = [(s, m) for s in KB.cudnn.all_series for m in s.max_cc]
    assert recorded, "no cuDNN series records the highest capability it supports"
    for series, major in recorded:
        assert any("nvidia.com" in src for src in series.provenance.sources), series.version
        steps = series.max_cc[major]
        low = series.min_cc.get(major)
        for since, top in steps:
            assert since.major == major
            assert low is None or top >= low


def test_the_highest_capability_is_per_build_where_the_matrix_splits() -> None:
    """cuDNN 9.10's CUDA 12.0-12.6 build lists up to Hopper, its CUDA 12.8 build Blackwell."""
    split = [s for s in KB.cudnn.all_series for steps in s.max_cc.values() if len(steps) > 1]
    assert split
    for series in split:
        for steps in series.max_cc.values():
            for (since, top), (later, higher) in zip(steps, steps[1:]):
                assert series.native_max(since) == top
                assert series.native_max(later) == higher
                assert higher > top


def test_unread_series_are_bounded_by_their_neighbours() -> None:
    known = {s.version for s in KB.cudnn.all_series if s.max_cc}
    unread = [s for s in KB.cudnn.all_series if not s.max_cc and s.cuda_majors]
    assert unread
    for series in unread:
        cuda = Version(f"{series.cuda_majors[-1]}.0")
        lower, upper = KB.cudnn.native_bounds(series, cuda)
        assert series.version not in known
        if lower is not None and upper is not None:
            assert lower <= upper


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{'12.8': '12.0', '12.0': '9.0'}", "rise"),
        ("{'11.8': '9.0'}", "not a CUDA 12 version"),
        ("{'twelve': '9.0'}", "not a CUDA version"),
    ],
)
def test_bad_steps_are_refused(text: str, problem: str) -> None:
    import yaml

    data = {
        "series": [
            {
                "version": "9.10",
                "cuda": [
                    {"major": 12, "versions": None, "min_cc": None, "max_cc": yaml.safe_load(text)}
                ],
                "source": "x",
                "retrieved": "2026-12-03",
            }
        ]
    }
    with pytest.raises(KBValidationError, match=problem):
        cudnn_kb.parse(Node(data, "nvidia/cudnn.yaml"))


# -- the verdict -----------------------------------------------------------------------


def test_a_listed_gpu_and_its_major_run_natively() -> None:
    for _release, cuda, cudnn in cuda_builds():
        series = KB.cudnn.series(cudnn)
        top = series.native_max(cuda) if series else None
        if top is None:
            continue
        for cc in (top, Version(f"{top.major}.{top.minor + 3}")):
            found = cudnn_on_gpu(KB, cudnn, cuda, cc)
            assert found is not None
            assert found.verdict == "native", (cudnn, cuda, cc)


def test_a_newer_gpu_runs_by_jit_only_where_cudnn_is_forward_compatible() -> None:
    assert FC is not None
    seen = set()
    for _release, cuda, cudnn in cuda_builds():
        series = KB.cudnn.series(cudnn)
        top = KB.cudnn.native_bounds(series, cuda)[1] if series else None
        if top is None:
            continue
        found = cudnn_on_gpu(KB, cudnn, cuda, next_major(top))
        assert found is not None
        if FC.covers(found.cudnn, cuda):
            assert found.verdict == "jit"
        else:
            assert found.verdict == "cannot-run"
        seen.add(found.verdict)
    assert seen == {"jit", "cannot-run"}


def test_a_later_series_of_the_major_is_the_way_out() -> None:
    """Where a later cuDNN of the same major lists the GPU, the verdict names it and does
    not block the release; where none does, it blocks."""
    assert FC is not None
    for _release, cuda, cudnn in cuda_builds():
        series = KB.cudnn.series(cudnn)
        if series is None or FC.covers(series.version, cuda):
            continue
        _lower, upper = KB.cudnn.native_bounds(series, cuda)
        if upper is None:
            continue
        found = cudnn_on_gpu(KB, cudnn, cuda, next_major(upper))
        assert found is not None
        assert found.verdict == "cannot-run"
        if found.newer is not None:
            later = KB.cudnn.series(found.newer)
            assert later is not None
            assert later.version.major == series.version.major
            top = later.native_max(cuda)
            assert top is not None
            assert next_major(upper) <= top or next_major(upper).major == top.major
            assert not found.blocks
        else:
            assert found.blocks


# -- the resolver ----------------------------------------------------------------------


def blocked_case() -> tuple[Version, Version]:
    """The newest release whose cuDNN blocks some GPU, and that GPU's capability."""
    for release, cuda, cudnn in reversed(cuda_builds()):
        series = KB.cudnn.series(cudnn)
        top = series.native_max(cuda) if series else None
        if top is None:
            continue
        found = cudnn_on_gpu(KB, cudnn, cuda, next_major(top))
        if found is not None and found.blocks:
            return release, next_major(top)
    raise AssertionError("no release whose cuDNN blocks a newer GPU")


def jit_case(cc: Version) -> Optional[Version]:
    for release, cuda, cudnn in reversed(cuda_builds()):
        found = cudnn_on_gpu(KB, cudnn, cuda, cc)
        if found is not None and found.verdict == "jit":
            return release
    return None


def test_a_cudnn_with_no_code_for_the_gpu_blocks_the_release(
    capsys: pytest.CaptureFixture[str],
) -> None:
    release, cc = blocked_case()
    code, data = resolve(capsys, "--tf", str(release), "--cc", str(cc), "--driver", "580.65.06")
    assert code == 1
    kinds = {c["kind"] for c in data["conflicts"]}
    assert "cudnn-arch" in kinds
    conflict = next(c for c in data["conflicts"] if c["kind"] == "cudnn-arch")
    assert conflict["fact"]["value"] == str(cc)


def test_a_forward_compatible_cudnn_is_a_warning_not_a_conflict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _blocked, cc = blocked_case()
    release = jit_case(cc)
    assert release is not None
    _code, data = resolve(capsys, "--tf", str(release), "--cc", str(cc), "--driver", "580.65.06")
    assert "cudnn-arch" not in {c["kind"] for c in data.get("conflicts", [])}
    if data.get("plan"):
        assert any("forward-compatibility mode" in w for w in cudnn_lines(data))


def test_no_cudnn_verdict_where_the_gpu_is_listed(capsys: pytest.CaptureFixture[str]) -> None:
    """The must-not-appear case: a GPU the build lists gets no cuDNN line and no conflict."""
    release, _cc = blocked_case()
    series = KB.cudnn.series(next(c for r, _u, c in cuda_builds() if r == release))
    assert series is not None
    cuda = next(u for r, u, _c in cuda_builds() if r == release)
    listed = series.native_max(cuda)
    assert listed is not None
    code, data = resolve(capsys, "--tf", str(release), "--cc", str(listed), "--driver", "580.65.06")
    assert code == 0
    assert "cudnn-arch" not in {c["kind"] for c in data.get("conflicts", [])}
    assert cudnn_lines(data) == []


def test_the_way_out_is_named_in_the_plan(capsys: pytest.CaptureFixture[str]) -> None:
    for release, cuda, cudnn in reversed(cuda_builds()):
        series = KB.cudnn.series(cudnn)
        if series is None:
            continue
        _lower, upper = KB.cudnn.native_bounds(series, cuda)
        if upper is None:
            continue
        cc = next_major(upper)
        found = cudnn_on_gpu(KB, cudnn, cuda, cc)
        if found is None or found.verdict != "cannot-run" or found.newer is None:
            continue
        _code, data = resolve(
            capsys, "--tf", str(release), "--cc", str(cc), "--driver", "580.65.06"
        )
        if not data.get("plan"):
            continue  # blocked by another rule for this GPU
        plan = data["plan"]
        # the plan installs the later cuDNN it names, and pins the built one nowhere (#24)
        assert plan["cudnn"] == str(found.newer)
        assert "cudnn-later" in {r["code"] for r in plan["reason_codes"]}
        assert "cudnn-newer" not in {w["code"] for w in plan["warning_codes"]}
        assert not any(
            f"cudnn={cudnn}" in c or f"cudnn{cudnn.major}=={cudnn}" in c for c in plan["commands"]
        )
        return
    pytest.skip("no release in the data whose cuDNN has a later series as the way out")


def _plan(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, data = resolve(capsys, *argv)
    assert code == 0, data
    return data["plan"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("manager", ["auto", "pip"])
def test_a_plan_installs_the_later_cudnn_it_needs(
    capsys: pytest.CaptureFixture[str], manager: str
) -> None:
    """H100 (9.0) on TensorFlow 2.11 (cuDNN 8.1 for CUDA 11.2, whose matrix ends with
    Ampere): conda+pip asks conda for cuDNN 8.9 and the system route's steps name 8.9."""
    argv = ("--os", "linux", "--gpu", "H100", "--driver", "560.35.03", "--tf", "2.11")
    plan = _plan(capsys, *argv, "--manager", manager)
    assert plan["route"] == {"auto": "conda+pip", "pip": "system"}[manager]
    assert plan["cudnn"] == "8.9"
    assert "cudnn-later" in {r["code"] for r in plan["reason_codes"]}
    assert "cudnn-newer" not in {w["code"] for w in plan["warning_codes"]}
    text = " ".join([*plan["commands"], *plan["steps"]])
    assert "8.1" not in text.replace("2.11.1", "")
    assert ("cudnn=8.9" in text) if manager == "auto" else ("cuDNN 8.9 for CUDA 11" in text)


@pytest.mark.parametrize(
    "argv",
    [
        ("--os", "linux", "--gpu", "A100", "--driver", "560.35.03", "--tf", "2.11"),
        ("--os", "windows", "--gpu", "RTX 3060", "--driver", "560.94", "--tf", "2.10"),
    ],
)
def test_no_later_cudnn_where_the_built_one_serves(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    """A GPU the build's cuDNN lists (A100) or whose verdict is not established (RTX 3060 on
    8.1): the plan installs the build's cuDNN 8.1.0.77 and says nothing of a later one."""
    plan = _plan(capsys, *argv)
    assert plan["cudnn"] == "8.1"
    assert "cudnn-later" not in {r["code"] for r in plan["reason_codes"]}
    assert any("cudnn=8.1.0.77" in c for c in plan["commands"])


def test_unknown_is_said_as_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    for release, cuda, cudnn in reversed(cuda_builds()):
        series = KB.cudnn.series(cudnn)
        if series is None:
            continue
        lower, upper = KB.cudnn.native_bounds(series, cuda)
        if lower is None or upper is None or lower.major == upper.major:
            continue
        cc = upper  # above what is known, within what the next matrix lists
        found = cudnn_on_gpu(KB, cudnn, cuda, cc)
        assert found is not None
        assert found.verdict == "unknown"
        _code, data = resolve(
            capsys, "--tf", str(release), "--cc", str(cc), "--driver", "580.65.06"
        )
        assert "cudnn-arch" not in {c["kind"] for c in data.get("conflicts", [])}
        if data.get("plan"):
            assert any("is not established" in w for w in cudnn_lines(data))
        return
    pytest.skip("every series the releases use is settled by the data")


def test_the_charts_colour_every_gpu_rule_as_no_code_for_the_gpu() -> None:
    from tfenv import rules
    from tfenv.chart.machine import CATEGORY

    gpu_rules = {r.kind for r in rules.RULES if r.fact_key == "gpu"}
    assert "cudnn-arch" in gpu_rules
    assert gpu_rules <= set(CATEGORY["gpu"])


# -- an NGC image as the way out where only cuDNN stands in the way (#24) ----------------


def _ways_out(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, Any]]:
    code, data = resolve(capsys, *argv)
    assert code == 1
    return data["suggestions"]  # type: ignore[no-any-return]


def test_an_ngc_image_whose_cudnn_runs_is_the_way_out(capsys: pytest.CaptureFixture[str]) -> None:
    """RTX 5090 (12.0) on 2.15: the wheels run by PTX JIT, their cuDNN 8.9 has no code for
    Blackwell and no later 8.x has; NGC 25.02 (cuDNN 9.7, CUDA 12.8) is offered."""
    ways = _ways_out(capsys, "--gpu", "RTX 5090", "--driver", "575.57.08", "--tf", "2.15")
    ngc = [w for w in ways if w["message"] == "way-out.ngc-cudnn"]
    assert len(ngc) == 1
    fields = ngc[0]["fields"]
    assert fields["image"] == "nvcr.io/nvidia/tensorflow:25.02-tf2-py3"
    assert fields["cudnn"].startswith("9.")
    assert "--manager container" in fields["command"]


@pytest.mark.parametrize(
    "argv",
    [
        # a GPU newer than every NGC image's CUDA (CUDA 12.8 targets up to 12.0)
        ("--gpu", "Future GPU", "--cc", "12.1", "--driver", "575.57.08", "--tf", "2.15"),
        # the wheels lack GPU code too: the NGC GPU-code way out, said once
        ("--gpu", "B200", "--driver", "575.57.08", "--tf", "2.16"),
    ],
)
def test_no_ngc_cudnn_way_out_where_it_does_not_apply(
    capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    ways = _ways_out(capsys, *argv)
    assert "way-out.ngc-cudnn" not in {w["message"] for w in ways}


def test_an_image_whose_cudnn_needs_a_later_one_is_no_plan(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The official 2.11 image carries cuDNN 8.1: on an H100 it is no plan (its cuDNN
    cannot be chosen), and the way out is a route that installs cuDNN 8.9; on an A100, whose
    capability 8.1's build lists, the same image is the plan."""
    argv = ("--driver", "560.35.03", "--tf", "2.11", "--manager", "container")
    code, data = resolve(capsys, "--gpu", "H100", *argv)
    assert code == 1
    text = " ".join(c["sentence"] for c in data["conflicts"])
    assert "carries cuDNN 8.1, which has no code for compute capability 9.0" in text
    assert "way-out.manager" in {w["message"] for w in data["suggestions"]}
    plan = _plan(capsys, "--gpu", "A100", *argv)
    assert plan["route"] == "container"
    assert plan["cudnn"].startswith("8.1")


def test_an_rtx_30xx_on_cudnn_8_1_is_told_that_it_is_not_established(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """RTX 3070 (8.6) on TensorFlow 2.10 (CUDA 11.2, cuDNN 8.1): the highest capability of
    8.1's build is not in the data (no matrix row and no 8.1 binary to scan was found, see
    cudnn.yaml), so the plan installs cuDNN 8.1 and says that its code for the GPU is not
    established; it neither blocks the release nor swaps in a later cuDNN."""
    series = KB.cudnn.series(Version("8.1"))
    assert series is not None
    assert series.native_max(Version("11.2")) is None
    found = cudnn_on_gpu(KB, Version("8.1"), Version("11.2"), Version("8.6"))
    assert found is not None
    assert found.verdict == "unknown"
    argv = ("--gpu", "RTX 3070", "--driver", "560.35.03", "--tf", "2.10")
    plan = _plan(capsys, *argv)
    assert plan["cudnn"] == "8.1"
    assert "cudnn-later" not in {r["code"] for r in plan["reason_codes"]}
    assert any("is not established" in w for w in cudnn_lines({"plan": plan}))
