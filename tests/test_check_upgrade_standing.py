"""``check-upgrade`` as a CI gate: a finding is a change only if it differs between the two
sides; what holds on both is a standing condition (reported once, its warnings never fail
``--strict``); known issues only where they concern the machine; a series with only
pre-releases needs ``--pre``. Releases are named relative to the knowledge base."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Optional

import pytest
from packaging.version import Version

from tests.test_check_upgrade import A100, BLOCKERS_UP, LINUX_GPU
from tfenv.cli import main
from tfenv.kb import KnowledgeBase
from tfenv.kb.releases import build_of
from tfenv.kb.tensorflow import series_of
from tfenv.upgrade.changes import stable_releases

KB = KnowledgeBase.from_environment()
STABLE = stable_releases(KB)
R535 = "535.104.05"  # a real R535 driver (issue 24's team)
MACHINES = {
    "A100": A100,
    "RTX 3060": (*LINUX_GPU, "--gpu", "RTX 3060", "--driver", "550.54", "--python", "3.11"),
    "no GPU": ("--os", "linux", "--no-gpu", "--glibc", "2.35", "--python", "3.11"),
}


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = main(["check-upgrade", *argv, "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    data = json.loads(out)
    assert isinstance(data, dict)
    for t in data["targets"]:  # no fix tells a target to resolve the release it is on
        for f in t["findings"] + t["standing"]:
            assert f"--tf {t['from']}" not in f["fix"], f
    return code, data


def kinds(data: dict[str, Any], part: str = "findings") -> set[str]:
    return {f["ref"] or f["kind"] for t in data["targets"] for f in t[part]}


def last_of_each_series() -> list[Version]:
    out: dict[Version, Version] = {}
    for v in STABLE:
        out[series_of(v)] = v
    return sorted(out.values())


def pairs(same: Callable[[Version], object]) -> list[tuple[Version, Version]]:
    """Adjacent series (their last releases) where ``same`` gives one known value."""
    last = last_of_each_series()
    return [
        (a, b)
        for a, b in zip(last, last[1:])
        if same(a) is not None and same(a) == same(b) and a >= Version("2.12")
    ]


def _cuda(v: Version) -> Optional[Version]:
    build = build_of(KB, v)
    cb = build.for_machine("linux") if build else None
    return cb.cuda if cb else None


def _own_minimum(v: Version) -> Optional[Version]:
    cuda = _cuda(v)
    toolkit = KB.cuda.toolkit(str(cuda)) if cuda else None
    found = toolkit.min_driver("linux") if toolkit else None
    return Version(str(found)) if found is not None else None


# -- a series with only pre-releases ----------------------------------------------------


def pre_only_series() -> list[Version]:
    stable = {series_of(v) for v in STABLE}
    pres = {
        series_of(r.version)
        for r in KB.index.releases("tensorflow")
        if r.version.is_prerelease and r.version >= Version("2.0")
    }
    return sorted(pres - stable)


def test_to_a_series_with_only_pre_releases_needs_pre(capsys: pytest.CaptureFixture[str]) -> None:
    series = pre_only_series()
    if not series:
        pytest.skip("every pre-release series in the knowledge base has a stable release")
    to = str(series[-1])
    capsys.readouterr()
    code = main(["check-upgrade", "--from", str(STABLE[-1]), "--to", to, *A100])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert "only pre-releases" in err
    assert "--pre" in err
    assert f"--to {series_of(STABLE[-1])}" in err  # the newest stable series as the other way
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    code, data = check(capsys, "--from", str(STABLE[-1]), "--to", to, *A100, "--pre")
    assert Version(data["targets"][0]["to"]).is_prerelease
    assert code in (0, 1)


# -- known issues only on the machines they concern -------------------------------------


def gpu_issues() -> list[tuple[str, Version]]:
    """(issue id, the newest release it hits on Linux x86_64) of issues that concern only
    some GPUs, for releases that have a build recorded."""
    out = []
    every = sorted(r.version for r in KB.index.releases("tensorflow"))
    for issue in KB.known_issues:
        if issue.compute_capability is None or issue.routes:
            continue
        hit = [v for v in every if issue.matches(v, "linux_x86_64")]
        if hit:
            out.append((issue.id, hit[-1]))
    return out


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_known_issues_only_where_they_concern_the_gpu(
    capsys: pytest.CaptureFixture[str], machine: str
) -> None:
    issues = gpu_issues()
    assert issues, "the knowledge base records GPU-specific known issues"
    by_id = {i.id: i for i in KB.known_issues}
    for ref, release in issues:
        cc = {"A100": "8.0", "RTX 3060": "8.6"}.get(machine)
        concerned = cc is not None and by_id[ref].compute_capability.contains(Version(cc))  # type: ignore[union-attr]
        pre = ("--pre",) if release.is_prerelease else ()
        _, data = check(
            capsys, "--from", str(STABLE[-1]), "--to", str(release), *MACHINES[machine], *pre
        )
        found = kinds(data) | kinds(data, "standing")
        assert (ref in found) == concerned, (machine, ref, found)


def test_a_known_issue_on_both_sides_is_standing(capsys: pytest.CaptureFixture[str]) -> None:
    for ref, release in gpu_issues():
        issue = next(i for i in KB.known_issues if i.id == ref)
        both = [v for v in STABLE if issue.matches(v, "linux_x86_64") and v < release]
        if not both:
            continue
        spec = issue.compute_capability
        assert spec is not None
        cc = next(c for c in ("12.0", "10.0", "9.0", "8.9", "8.6", "8.0") if spec.contains(c))
        pre = ("--pre",) if release.is_prerelease else ()
        gpu = (*LINUX_GPU, "--cc", cc, "--driver", "580.95.05", "--python", "3.11")
        _, data = check(capsys, "--from", str(both[-1]), "--to", str(release), *gpu, *pre)
        assert ref not in kinds(data)
        assert ref in kinds(data, "standing")
        return
    pytest.skip("no GPU-specific known issue hits two releases")


# -- the driver below CUDA's own minimum ------------------------------------------------


def test_driver_below_cuda_minimum_on_both_sides_is_standing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    both = [
        (a, b) for a, b in pairs(_cuda) if (m := _own_minimum(a)) is not None and Version(R535) < m
    ]
    assert both, "two series on one CUDA whose own minimum is above R535"
    for a, b in both[-2:]:
        for frm, to, down in ((a, b, ()), (b, a, ("--allow-downgrade",))):
            argv = ("--from", str(frm), "--to", str(to), *A100, "--driver", R535, *down)
            _, data = check(capsys, *argv)
            assert "driver" not in kinds(data), (frm, to)
            assert "driver" in kinds(data, "standing"), (frm, to)


def test_driver_below_cuda_minimum_is_a_change_where_the_minimum_rises(
    capsys: pytest.CaptureFixture[str],
) -> None:
    last = last_of_each_series()
    rises = [
        (a, b)
        for a, b in zip(last, last[1:])
        if (ma := _own_minimum(a)) is not None
        and (mb := _own_minimum(b)) is not None
        and ma <= Version(R535) < mb
    ]
    assert rises, "a series whose CUDA's own minimum passes R535"
    a, b = rises[-1]
    _, data = check(capsys, "--from", str(a), "--to", str(b), *A100, "--driver", R535)
    assert "driver" in kinds(data)
    assert "driver" not in kinds(data, "standing")


# -- facts equal on both sides are not changes ------------------------------------------


def _keras(v: Version) -> object:
    build = build_of(KB, v)
    return build.keras_major if build else None


def _major(what: str) -> Callable[[Version], object]:
    def value(v: Version) -> object:
        build = build_of(KB, v)
        cb = build.for_machine("linux") if build else None
        found = getattr(cb, what) if cb is not None else None
        return found.major if found is not None else None

    return value


@pytest.mark.parametrize(
    ("kind", "same"), [("keras", _keras), ("cuda", _major("cuda")), ("cudnn", _major("cudnn"))]
)
def test_a_fact_equal_on_both_sides_is_no_finding(
    capsys: pytest.CaptureFixture[str], kind: str, same: Callable[[Version], object]
) -> None:
    found = pairs(same)
    assert found, f"two adjacent series with one {kind} major"
    for a, b in found[-2:]:
        _, data = check(capsys, "--from", str(a), "--to", str(b), *A100)
        assert kind not in {f["kind"] for f in data["targets"][0]["findings"]}, (a, b)


# -- the audit: at the same release no finding of any kind is a change -------------------

SAME = (
    [(to, machine) for _frm, to, machine, _ref, _fix in BLOCKERS_UP]
    + [(str(STABLE[-1]), m) for m in MACHINES.values()]
    + [(str(STABLE[-1]), (*LINUX_GPU, "--gpu", "A100", "--driver", R535, "--python", "3.11"))]
)


@pytest.mark.parametrize(("version", "machine"), SAME)
def test_the_same_release_changes_nothing(
    capsys: pytest.CaptureFixture[str], version: str, machine: tuple[str, ...]
) -> None:
    code, data = check(capsys, "--from", version, "--to", version, *machine, "--strict")
    target = data["targets"][0]
    assert target["findings"] == [], target["findings"]
    blocked = any(f["severity"] == "blocker" for f in target["standing"])
    assert target["status"] == ("blocked" if blocked else "safe")
    assert code == (1 if blocked else 0)
