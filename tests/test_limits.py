"""Say what limited the answer (#24 part 2).

An ok plan that is not the newest says why each newer series (and a newer Python) was not
taken, from the rules' structured failures; a team lock names the target that holds the
team down, the rule, what the others run alone, and how to split the team with a
per-target ``tensorflow``; only a pre-release fitting gives ``--pre``; advice that cannot
be followed (a driver past a GPU's last branch) is not given; releases are counted once.
Each case lists what must appear and what must NOT.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tfenv.cli import main
from tfenv.config import load_config
from tfenv.errors import ConfigError
from tfenv.kb import KnowledgeBase
from tfenv.team import team_resolve


def _resolve(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(["resolve", *argv])
    return code, capsys.readouterr().out


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    code, out = _resolve(capsys, *argv, "--json")
    assert code in (0, 1)
    return json.loads(out)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Case:
    argv: tuple[str, ...]
    says: tuple[str, ...] = ()
    never: tuple[str, ...] = ()


H100 = ("--os", "linux", "--gpu", "H100", "--driver", "535.183.01")
K80 = ("--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01", "--python", "3.9")
WIN_GPU = ("--os", "windows", "--gpu", "RTX 3060", "--driver", "536.00")

CASES: dict[str, Case] = {
    # the H100 on R535: 2.16.2, and why not 2.17-2.21 (JIT driver floors)
    "h100-r535-why-not-newer": Case(
        (*H100, "--python", "3.11"),
        says=(
            "Plan: TensorFlow 2.16.2",
            "Why not newer:",
            "2.19 to 2.21: TensorFlow 2.21.0 (CUDA build) needs an NVIDIA driver >= 555.42.02",
            "2.17 to 2.18: TensorFlow 2.18.1 (CUDA build) needs an NVIDIA driver >= 545.23.06",
            "but this machine's driver is 535.183.01 (given)",
        ),
        never=("Python 3.13:", "2.16:"),  # Python given; the plan's own series is no skip
    ),
    # the Python left open: the plan's release has wheels up to 3.12, others have 3.13
    "h100-open-python-why-not-newer-python": Case(
        H100,
        says=("Python 3.13: TensorFlow 2.16.2 (CUDA build) needs Python 3.9-3.12",),
    ),
    # the newest release fits: nothing to explain
    "newest-fits-no-section": Case(
        ("--os", "linux", "--gpu", "A100", "--driver", "535.104.05", "--python", "3.11"),
        says=("Plan: TensorFlow 2.21.0",),
        never=("Why not newer:",),
    ),
    # a Python given too old for newer series: the Python rule says so for each run
    "python-3.8-why-not-newer": Case(
        ("--os", "linux", "--python", "3.8"),
        says=("needs Python 3.10-3.13", "but the plan must use Python 3.8 (given)"),
        never=("Why not newer:\n\n",),
    ),
    # Kepler: never told to install a driver past R470, anywhere in the answer
    "k80-branch-limit-not-upgrade": Case(
        K80,
        says=(
            "Plan: TensorFlow 2.14.1",
            "no NVIDIA driver >= 520.61.05 supports Tesla K80 (R470 was the last driver branch "
            "for Kepler GPUs)",
            "2.15 to 2.21: TensorFlow 2.21.0 (CUDA build) needs a GPU that",
        ),
        never=("upgrade the driver", "Install an NVIDIA driver"),
    ),
    "k80-2.15-no-driver-way-out": Case(
        (*K80, "--tf", "2.15"),
        says=("TensorFlow 2.14.1 fits this machine",),
        never=("Install an NVIDIA driver", "upgrade the driver"),
    ),
    # a Maxwell card on the same old driver is told to install a newer one (it can)
    "maxwell-r470-driver-way-out-stays": Case(
        ("--os", "linux", "--gpu", "GTX 980", "--driver", "470.82.01", "--tf", "2.15"),
        says=("Install an NVIDIA driver >= 525.60.13",),
        never=("last driver branch",),
    ),
    # Windows: each release counted once; no-CUDA-build releases are not "(CUDA build)"
    "windows-count-once": Case(
        (*WIN_GPU, "--python", "3.11"),
        says=(
            "TensorFlow 2.10.1 (CUDA build) needs Python 3.7-3.10",
            "49 older releases (2.0.0 to 2.10.0)",
            "TensorFlow 2.21.0 needs a platform with a CUDA build",
            "19 older releases (2.11.0 to 2.20.0)",
        ),
        never=("2.11.1 (CUDA build)", "(2.0.0 to 2.11.0)", "2.21.0 (CUDA build)"),
    ),
    "windows-2.11-no-python-line": Case(
        (*WIN_GPU, "--python", "3.12", "--tf", "2.11"),
        says=("TensorFlow 2.11.1 needs a platform with a CUDA build",),
        never=("No wheel for this Python", "(CUDA build) needs"),
    ),
    "windows-gpu-why-not-newer-one-line": Case(
        (*WIN_GPU, "--python", "3.10"),
        says=("Plan: TensorFlow 2.10.1", "2.11 to 2.21: TensorFlow 2.21.0 needs a platform"),
        never=("2.21.0 (CUDA build)", "  - 2.20:"),
    ),
    # only a pre-release fits: say so and give --pre
    "windows-py314-only-prerelease": Case(
        ("--os", "windows", "--python", "3.14"),
        says=(
            "Only a pre-release fits this machine: TensorFlow 2.22.0rc0",
            'tfenv resolve --os windows --arch x86_64 --python "3.14" --pre',
        ),
    ),
    "finals-fit-no-pre-way-out": Case(
        ("--os", "windows", "--python", "3.9", "--tf", "2.22"),
        never=("--pre\n", "--pre.", "Only a pre-release fits this machine"),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    case = CASES[name]
    _code, out = _resolve(capsys, *case.argv)
    for text in case.says:
        assert text in out, (name, text, out)
    for text in case.never:
        assert text not in out, (name, text, out)


def test_skipped_json_carries_rule_ids(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, *H100, "--python", "3.11")
    skipped = doc["plan"]["skipped"]
    assert [(s["subject"], s["name"], s["oldest"]) for s in skipped] == [
        ("tensorflow", "2.21", "2.19"),
        ("tensorflow", "2.18", "2.17"),
    ]
    assert all(s["rules"] == ["jit-driver"] for s in skipped)
    first = skipped[0]["conflicts"][0]
    assert first["version"] == "2.21.0"
    assert first["fact"] == {
        "key": "driver",
        "value": "535.183.01",
        "origin": "given",
        "text": "this machine's driver is 535.183.01",
    }
    assert skipped[0]["sentence"].startswith("2.19 to 2.21: ")


def test_skipped_python_json(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, *H100)
    python = [s for s in doc["plan"]["skipped"] if s["subject"] == "python"]
    assert [(s["name"], s["rules"]) for s in python] == [("3.13", ["python"])]


def test_skipped_empty_when_newest(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "--os", "linux", "--python", "3.11")
    assert doc["plan"]["tensorflow"] == "2.21.0"
    assert doc["plan"]["skipped"] == []


def test_skipped_respects_the_request(capsys: pytest.CaptureFixture[str]) -> None:
    """--tf 2.14 asks for that series: newer series are not "skipped", they were not asked."""
    doc = _json(capsys, *H100, "--python", "3.11", "--tf", "2.14")
    assert doc["plan"]["skipped"] == []


def test_pre_way_out_json(capsys: pytest.CaptureFixture[str]) -> None:
    doc = _json(capsys, "--os", "windows", "--python", "3.14")
    pre = [s for s in doc["suggestions"] if s["message"] == "way-out.pre"]
    assert pre
    assert pre[0]["fields"]["tensorflow"] == "2.22.0rc0"
    assert pre[0]["fields"]["command"] == (
        'tfenv resolve --os windows --arch x86_64 --python "3.14" --pre'
    )


# -- team lock ----------------------------------------------------------------------------

TEAM = """
[targets.a100]
os = "linux"
gpu = "A100"
driver = "535.104.05"
python = "3.11"

[targets.rtx3060]
os = "linux"
gpu = "RTX 3060"
driver = "550.54.14"
python = "3.11"

[targets.old]
os = "linux"
gpu = "RTX 3060"
driver = "470.82.01"
python = "3.11"
"""


def _team(tmp_path: Path, text: str, name: str = "tfenv.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    return path


def test_team_names_the_limit_and_the_split(tmp_path: Path, kb: KnowledgeBase) -> None:
    team = team_resolve(kb, load_config(_team(tmp_path, TEAM)))
    assert team.tensorflow == "2.14.1"
    assert [x.target for x in team.limits] == ["old"]
    limit = team.limits[0]
    text = limit.describe()
    assert text.startswith("Target 'old' holds the team at TensorFlow 2.14.1: 2.15 to 2.21:")
    assert "needs an NVIDIA driver >= 525.60.13" in text
    assert "this machine's driver is 470.82.01 (given)" in text
    assert "('a100' 2.21.0, 'rtx3060' 2.21.0)" in text
    split = limit.split()
    assert '[targets.old] tensorflow = "2.14"' in split
    assert "the others then share TensorFlow 2.21.0" in split
    doc = limit.to_dict()
    assert doc["rules"] == ["driver"]
    assert doc["others"] == {"a100": "2.21.0", "rtx3060": "2.21.0"}
    assert doc["split"]["table"] == "targets.old"
    assert doc["split"]["others_share"] == "2.21.0"


def test_team_limit_pyproject_table(tmp_path: Path, kb: KnowledgeBase) -> None:
    body = TEAM.replace("[targets.", "[tool.tfenv.targets.")
    team = team_resolve(kb, load_config(_team(tmp_path, body, "pyproject.toml")))
    assert '[tool.tfenv.targets.old] tensorflow = "2.14"' in team.limits[0].split()
    assert "in pyproject.toml" in team.limits[0].split()


def test_team_without_a_limit_names_none(tmp_path: Path, kb: KnowledgeBase) -> None:
    body = TEAM.split("[targets.old]")[0]
    team = team_resolve(kb, load_config(_team(tmp_path, body)))
    assert team.tensorflow == "2.21.0"
    assert team.limits == ()


def test_team_per_target_tensorflow_splits_it(tmp_path: Path, kb: KnowledgeBase) -> None:
    body = TEAM + 'tensorflow = "2.14"\n'  # under [targets.old]
    team = team_resolve(kb, load_config(_team(tmp_path, body)))
    assert team.ok
    assert team.tensorflow == "2.21.0"
    assert team.own == ("old",)
    assert team.limits == ()  # nobody holds anyone down any more
    got = {n: r.plan.tensorflow for n, r in team.resolutions if r.plan is not None}
    assert got == {"a100": "2.21.0", "rtx3060": "2.21.0", "old": "2.14.1"}


def test_team_every_target_its_own(tmp_path: Path, kb: KnowledgeBase) -> None:
    body = (
        '[targets.a]\nos = "linux"\npython = "3.11"\ntensorflow = "2.15"\n'
        '[targets.b]\nos = "linux"\npython = "3.11"\ntensorflow = "2.16.1"\n'
    )
    team = team_resolve(kb, load_config(_team(tmp_path, body)))
    assert team.ok
    assert team.tensorflow is None
    got = {n: r.plan.tensorflow for n, r in team.resolutions if r.plan is not None}
    assert got == {"a": "2.15.1", "b": "2.16.1"}


def test_team_own_tensorflow_that_fits_nothing_blocks(tmp_path: Path, kb: KnowledgeBase) -> None:
    body = TEAM + 'tensorflow = "2.15"\n'  # driver 470 runs no 2.15 CUDA build
    team = team_resolve(kb, load_config(_team(tmp_path, body)))
    assert not team.ok
    assert [b.target for b in team.blockers] == ["old"]


@pytest.mark.parametrize("value", ['""', '"   "', '"not a version"', "2.14"])
def test_per_target_tensorflow_refused(tmp_path: Path, value: str) -> None:
    body = TEAM + f"tensorflow = {value}\n"
    with pytest.raises(ConfigError) as err:
        load_config(_team(tmp_path, body))
    assert "targets.old.tensorflow" in err.value.message
    assert err.value.exit_code == 2


def test_per_target_tensorflow_cli_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _team(tmp_path, TEAM + 'tensorflow = ""\n')
    assert main(["lock", "--config", str(tmp_path), "--check"]) == 2
    err = capsys.readouterr().err
    assert "targets.old.tensorflow" in err
    assert "Traceback" not in err


def test_lock_inputs_change_only_when_given(tmp_path: Path, kb: KnowledgeBase) -> None:
    """A configuration without per-target tensorflow keeps its lock digests; one with it
    changes the target's own input (so --check reports it)."""
    from tfenv.lock.header import lock_inputs
    from tfenv.team import build_targets

    plain = load_config(_team(tmp_path, TEAM))
    own = load_config(_team(tmp_path / "..", TEAM + 'tensorflow = "2.14"\n', "own.toml"))
    targets = build_targets(kb, plain.targets)
    a = lock_inputs(plain, targets, "old", "kb")
    b = lock_inputs(own, targets, "old", "kb")
    assert a.keys["targets.a100"] == b.keys["targets.a100"]
    assert a.keys["targets.old"] != b.keys["targets.old"]


# -- explain and doctor: the same limits -----------------------------------------------


def test_explain_prerelease_never_claims_no_release(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "explain",
            "--os",
            "windows",
            "--python",
            "3.14",
            "ERROR: No matching distribution found for tensorflow",
        ]
    )
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert "tensorflow 2.22.0rc0 has a wheel for Python 3.14" in out
    assert "--pre" in out
    assert "(any release)" not in out
    assert "no tensorflow release has" not in out


def test_explain_k80_driver_fact_names_the_branch(capsys: pytest.CaptureFixture[str]) -> None:
    main(
        [
            "explain",
            *("--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01", "--tf", "2.14.1"),
            "Could not load dynamic library 'libcudart.so.12.2'",
        ]
    )
    out = capsys.readouterr().out
    assert "R470 was the last driver branch for Kepler GPUs" in out
    assert "update the driver" not in out


@pytest.mark.parametrize(
    ("gpu", "cc", "says", "never"),
    [
        ("Tesla K80", "3.7", "R470 was the last driver branch for Kepler GPUs", "update the"),
        ("NVIDIA GeForce GTX 980", "5.2", "update the NVIDIA driver to", "last driver branch"),
    ],
)
def test_doctor_driver_fix(
    tmp_path: Path, kb: KnowledgeBase, gpu: str, cc: str, says: str, never: str
) -> None:
    """An installed 2.15.1 (CUDA 12.2) on driver 470: a Kepler GPU is not told to update."""
    from packaging.version import Version

    from tests.test_doctor import _run, _venv
    from tfenv.host.profile import GpuInfo, HostProfile

    host = HostProfile(
        os="linux",
        arch="x86_64",
        python=Version("3.11"),
        driver="470.82.01",
        gpus=(GpuInfo(0, gpu, Version(cc)),),
    )
    found = _run(_venv(tmp_path), kb, {}, host=host)
    assert found["driver"].status == "problem"
    fix = found["driver"].fix or ""
    assert says in fix
    assert never not in fix


@pytest.mark.parametrize(("frm", "to"), [("2.14.1", "2.15"), ("2.10.1", "2.14")])
def test_check_upgrade_k80_never_told_to_install_a_driver(
    capsys: pytest.CaptureFixture[str], frm: str, to: str
) -> None:
    machine = ("--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01", "--python", "3.9")
    main(["check-upgrade", *machine, "--from", frm, "--to", to])
    out = capsys.readouterr().out
    assert "R470 was the last driver branch for Kepler GPUs" in out
    assert "Install an NVIDIA driver" not in out
    assert "upgrade the driver" not in out


def test_lock_json_summary_carries_the_limits(tmp_path: Path, kb: KnowledgeBase) -> None:
    """The summary `tfenv lock --json` prints, built from a real team plan."""
    from tfenv.commands.lock import _summary
    from tfenv.lock import LockOutcome, TargetFiles

    team = team_resolve(kb, load_config(_team(tmp_path, TEAM)))
    files = tuple(
        TargetFiles(n, r.plan.route, r.plan.tensorflow, ())
        for n, r in team.resolutions
        if r.plan is not None
    )
    doc = _summary(LockOutcome(team, files, (), folder=tmp_path))
    assert doc["tensorflow"] == "2.14.1"
    limits = doc["limits"]
    assert isinstance(limits, list)
    assert [x["target"] for x in limits] == ["old"]
    assert limits[0]["split"]["others_share"] == "2.21.0"
    json.dumps(doc)  # serialisable as printed


# -- a team version set by the targets together (trial finding R3) ----------------------

MIXED = """
[targets.mac]
os = "macos"
arch = "arm64"
python = "3.9"

[targets.windows]
os = "windows"
gpu = "RTX 3060"
driver = "560.94"
python = "3.9"

[targets.ci]
os = "linux"
no-gpu = true
python = "3.9"
"""


def test_a_limit_set_by_the_targets_together_is_named(tmp_path: Path, kb: KnowledgeBase) -> None:
    """Windows' GPU builds stop at 2.10.1 and tensorflow-macos has no 2.10.1: no target's
    own newest is 2.10.0, so no single target is named, and the shared limit says each
    target's ceiling and the release the mac lacks."""
    team = team_resolve(kb, load_config(_team(tmp_path, MIXED)))
    assert team.tensorflow == "2.10.0"
    assert team.limits == ()
    shared = team.shared_limit
    assert shared is not None
    ceilings = dict(shared.ceilings)
    assert ceilings["windows"] == "2.10.1"
    assert all(v > "2.10.1" for n, v in ceilings.items() if n != "windows")
    assert [(g.release, g.target) for g in shared.gaps] == [("2.10.1", "mac")]
    text = shared.describe()
    assert "No single target holds the team at TensorFlow 2.10.0" in text
    assert "'windows' 2.10.1" in text
    assert "TensorFlow 2.10.1 does not fit 'mac'" in text
    doc = team.limits_json()
    assert [d["kind"] for d in doc] == ["shared"]
    assert doc[0]["gaps"][0]["rules"] == ["no-wheel"]
    assert doc[0]["ceilings"]["windows"] == "2.10.1"
    assert doc[0]["sentence"] == text


def test_a_single_limiting_target_has_no_shared_limit(tmp_path: Path, kb: KnowledgeBase) -> None:
    team = team_resolve(kb, load_config(_team(tmp_path, TEAM)))
    assert team.shared_limit is None
    assert [d["kind"] for d in team.limits_json()] == ["target"]
    body = TEAM.replace('driver = "470.82.01"', 'driver = "550.54.14"')
    assert team_resolve(kb, load_config(_team(tmp_path, body))).shared_limit is None


NO_COMMON = """\
[targets.new]
os = "linux"
no-gpu = true
python = "3.12"

[targets.k80]
os = "linux"
gpu = "Tesla K80"
driver = "470.82.01"
python = "3.10"
"""


def test_a_failed_lock_names_the_target_that_holds_the_team_back_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """'new' runs 2.21.0 alone and only fails 2.14.1, the newest the K80 runs: the K80 is
    what holds the team back, so it comes first, with why it runs nothing newer and how to
    split the team; then 'new', each reason and way out on a line of its own."""
    path = _team(tmp_path, NO_COMMON)
    capsys.readouterr()
    assert main(["lock", "--config", str(path), "--offline", "--quiet"]) == 1
    lines = capsys.readouterr().err.splitlines()
    head = lines[0]
    assert "Held back by 'k80': nothing newer than TensorFlow 2.14.1 runs there" in head
    assert head.index("'k80'", head.index("Held back")) < head.index("'new' cannot run")
    assert len(head) < 300  # the paragraph is a summary; the reasons are the lines below
    bullets = [line.strip() for line in lines if line.lstrip().startswith("- ")]
    assert bullets[0].startswith("- Target 'k80' holds the team at TensorFlow 2.14.1")
    assert (
        bullets[1] == "- Target 'new' cannot run TensorFlow 2.14.1, the newest release 'k80' runs:"
    )
    assert len(bullets) == 2
    assert any("compute capability 3.7 (given)" in line for line in lines[1:])
    assert any('[targets.k80] tensorflow = "2.14"' in line for line in lines[1:])
    assert any(line.strip() == "Ways out:" for line in lines)


def test_a_failed_lock_json_carries_the_holder_and_the_blockers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _team(tmp_path, NO_COMMON)
    capsys.readouterr()
    assert main(["lock", "--config", str(path), "--offline", "--quiet", "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["ok"] is False
    assert [(x["kind"], x["target"]) for x in doc["limits"]] == [("target", "k80")]
    assert doc["limits"][0]["split"]["others_share"] == "2.21.0"
    assert [(b["target"], b["tensorflow"]) for b in doc["blockers"]] == [("new", "2.14.1")]
    assert doc["details"][0].startswith("- Target 'k80'")
