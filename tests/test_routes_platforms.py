"""Every install route and every machine, through every part of tfenv that handles them.

Routes (:data:`tfenv.routes.ROUTES`): the solver plans on each for some machine of the
shipped knowledge base, ``--emit`` writes the files the route declares (and they parse
back), ``tfenv lock`` expects the files of the route's locker, and the plan's reasons
give the route's own sentence. Machines (:data:`tfenv.models.platform.SYSTEMS`): each
resolves and emits, ``check-upgrade`` runs for it, and ``doctor`` diagnoses it; a pair
no wheel serves is refused with one paragraph, never a traceback. A route or a machine
added without a row here fails :func:`test_every_route_has_a_case`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.checker import check_plan
from tests.snapshot import frozen_kb
from tests.test_resolve_cases import run_case
from tfenv import routes
from tfenv.cli import main
from tfenv.config import load_config
from tfenv.doctor import env as target_env
from tfenv.doctor.checks import Inputs, diagnose
from tfenv.emit import plan_files, write_plan_files
from tfenv.emit.record import RECORD
from tfenv.host.profile import ARCHES, GpuInfo, HostProfile
from tfenv.lock import check_project, expected_files
from tfenv.lock.conda import env_file_name, lock_file_name
from tfenv.models.plan import Resolution
from tfenv.models.platform import (
    SYSTEMS,
    UnsupportedPlatform,
    machine,
    normalize_arch,
    os_title,
    platform_of,
)
from tfenv.models.target import MANAGERS, Target

KB = frozen_kb()  # module level: the cases are built at import time
GPU = {"cc": "8.6", "driver": "535.104.05"}

#: route -> (the flags of `tfenv resolve` that plan on it, the files --emit writes for that plan)
ROUTE_CASES: dict[str, tuple[dict[str, Any], frozenset[str]]] = {
    "pip": (
        {"os": "linux", **GPU, "python": "3.11"},
        frozenset({"requirements.txt", "activate-tfenv.sh"}),
    ),
    "conda": (
        {"os": "linux", **GPU, "python": "3.11", "tf": "2.16", "manager": "conda"},
        frozenset({"environment.yml", "INSTALL.md"}),  # conda-forge's build sets no variables
    ),
    "conda+pip": (
        {"os": "linux", **GPU, "python": "3.10", "tf": "2.12"},
        frozenset({"environment.yml", "activate-tfenv.sh", "INSTALL.md"}),
    ),
    "system": (
        {"os": "linux", **GPU, "python": "3.10", "tf": "2.12", "manager": "pip"},
        frozenset({"requirements.txt", "activate-tfenv.sh", "INSTALL.md"}),
    ),
    "metal": ({"os": "macos", "arch": "arm64", "python": "3.11"}, frozenset({"requirements.txt"})),
    "cpu": ({"os": "linux", "no_gpu": True, "python": "3.12"}, frozenset({"requirements.txt"})),
    "container": (
        {"os": "linux", **GPU, "tf": "2.15", "manager": "container"},
        frozenset({"Dockerfile", ".devcontainer/devcontainer.json"}),
    ),
}
#: what each kind in Route.emits is written as
EMIT_NAMES = {
    "requirements": "requirements.txt",
    "environment": "environment.yml",
    "activation": "activate-tfenv.sh",
    "activation-wheels": "activate-tfenv.sh",
    "dockerfile": "Dockerfile",
    "devcontainer": ".devcontainer/devcontainer.json",
    "activation-bat": "activate-tfenv.bat",
    "activation-ps1": "activate-tfenv.ps1",
    "install-guide": "INSTALL.md",
}
ROUTE_NAMES = [r.name for r in routes.ROUTES]
MACHINES = [(s.name, arch) for s in SYSTEMS for arch in s.arches]
UNSUPPORTED = [
    (s.name, arch)
    for s in SYSTEMS
    for arch in (*ARCHES, "ppc64le", "riscv64")
    if normalize_arch(s.name, arch) not in s.arches
]


@cache
def planned(route: str) -> Resolution:
    return run_case(KB, ROUTE_CASES[route][0])


def test_every_route_has_a_case() -> None:
    assert sorted(ROUTE_CASES) == sorted(ROUTE_NAMES)
    assert {kind for r in routes.ROUTES for kind in r.emits} <= set(EMIT_NAMES)


def test_every_manager_selects_a_route() -> None:
    for manager in MANAGERS:
        assert routes.for_manager(manager), manager
    for r in routes.ROUTES:
        assert r.managers, r
        assert set(r.managers) <= set(MANAGERS), r


# -- each route ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ROUTE_NAMES)
def test_solver_plans_on_the_route(name: str) -> None:
    res = planned(name)
    assert res.plan is not None, res.conflicts
    assert res.plan.route == name
    assert check_plan(KB, res) == []


@pytest.mark.parametrize("name", ROUTE_NAMES)
def test_reasons_give_the_route_sentence(name: str) -> None:
    plan = planned(name).plan
    assert plan is not None
    assert f"Route {name}: {routes.route(name).why}." in plan.reasons


@pytest.mark.parametrize("name", ROUTE_NAMES)
def test_emit_writes_the_route_files(name: str, tmp_path: Path) -> None:
    res = planned(name)
    files = plan_files(res)
    declared = {EMIT_NAMES[kind] for kind in routes.route(name).emits}
    assert set(files) == ROUTE_CASES[name][1]
    assert set(files) <= declared
    for file_name, text in files.items():
        assert text.strip(), file_name
        _parses(res, file_name, text, tmp_path)
    written = write_plan_files(res, tmp_path / "out").written
    names = sorted(p.relative_to(tmp_path / "out").as_posix() for p in written)
    assert names == sorted([*files, RECORD])


def _parses(res: Resolution, file_name: str, text: str, tmp_path: Path) -> None:
    """Read one emitted file back with the tool its format belongs to."""
    plan = res.plan
    assert plan is not None
    if file_name == "requirements.txt":
        lines = [ln.strip() for ln in text.splitlines()]
        reqs = [Requirement(ln) for ln in lines if ln and not ln.startswith("#")]
        assert {canonicalize_name(r.name) for r in reqs} == {
            canonicalize_name(Requirement(p).name) for p in plan.pip
        }
    elif file_name == "environment.yml":
        doc = yaml.safe_load(text)
        deps = doc["dependencies"]
        assert [d for d in deps if isinstance(d, str) and d != "pip"] == list(plan.conda)
        pip = [d["pip"] for d in deps if isinstance(d, dict)]
        assert pip == ([list(plan.pip)] if plan.pip else [])
        assert doc["channels"][: len(plan.channels)] == list(plan.channels)
    elif file_name.endswith(".sh"):
        bash = shutil.which("bash")
        if bash is None:
            pytest.skip("bash is not installed")
        script = tmp_path / "check.sh"
        script.write_text(text, "utf-8")
        done = subprocess.run([bash, "-n", str(script)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    elif file_name.endswith(".json"):
        doc = json.loads(text)
        assert doc["build"]["dockerfile"] == "../Dockerfile"
    elif file_name == "Dockerfile":
        assert f"FROM {plan.image}" in text.splitlines()
    elif file_name == "INSTALL.md":
        assert text.startswith(f"# Install {plan.summary()}\n")
        assert all(f"\n{i}. " in text for i in range(1, len(plan.steps) + 1))
        assert all(c in text for c in plan.commands)
    else:
        pytest.fail(f"no reader for {file_name}")


@pytest.mark.parametrize("name", ROUTE_NAMES)
def test_lock_files_follow_the_route_locker(name: str) -> None:
    r = routes.route(name)
    plan = planned(name).plan
    assert plan is not None
    files = expected_files("team", name)
    assert files == r.lockfiles("team")
    if r.locker == "conda":
        assert files == (lock_file_name("team"), env_file_name("team"))
        assert plan.conda, "the conda locker solves the plan's conda packages"
        assert plan.channels
    else:
        assert files == ("requirements.team.txt", "pylock.team.toml")
        assert plan.conda == (), "the pip locker would drop the plan's conda packages"


def _toml(args: dict[str, Any]) -> str:
    keys = {"os", "arch", "cc", "driver", "python", "manager", "glibc"}
    lines = [f'tensorflow = "{args.get("tf", "latest")}"', "", "[targets.team]"]
    lines += [f'{k} = "{v}"' for k, v in args.items() if k in keys]
    if args.get("no_gpu"):
        lines.append("no-gpu = true")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ROUTE_NAMES)
def test_lock_check_expects_the_route_files(name: str, tmp_path: Path) -> None:
    (tmp_path / "tfenv.toml").write_text(_toml(ROUTE_CASES[name][0]), "utf-8")
    outcome = check_project(KB, load_config(tmp_path))
    assert outcome.problems == tuple(
        f"{f} (target 'team'): missing" for f in expected_files("team", name)
    )


# -- each machine --------------------------------------------------------------------------------


@pytest.mark.parametrize(("os", "arch"), MACHINES)
def test_machine_resolves_and_emits(os: str, arch: str) -> None:
    found = machine(os, arch)
    assert platform_of(os, arch) == found.platform
    assert Target(os=os, arch=arch).platform == found.platform
    res = run_case(KB, {"os": os, "arch": arch, "no_gpu": True, "python": "3.11"})
    assert res.plan is not None, res.conflicts
    assert res.target.platform == found.platform
    assert check_plan(KB, res) == []
    assert plan_files(res)["requirements.txt"].strip()


def _gpu_flags(os: str) -> list[tuple[str, ...]]:
    flags: list[tuple[str, ...]] = [("--no-gpu",)]
    if machine(os, "x86_64").system.driver_os is not None:
        flags.append(("--cc", GPU["cc"], "--driver", GPU["driver"]))
    return flags


@pytest.mark.parametrize(
    ("os", "arch", "flags"), [(o, a, f) for o, a in MACHINES for f in _gpu_flags(o)]
)
def test_check_upgrade_on_every_machine(
    os: str,
    arch: str,
    flags: tuple[str, ...],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    capsys.readouterr()
    argv = ["check-upgrade", "--from", "2.15", "--os", os, "--arch", arch, "--python", "3.11"]
    code = main([*argv, *flags, "--json"])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    assert "Traceback" not in err
    (target,) = json.loads(out)["targets"]
    assert f", {normalize_arch(os, arch)}, Python 3.11, " in target["machine"]
    assert target["status"] in ("safe", "warnings", "blocked"), target


def _tf_env(tmp_path: Path) -> Path:
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    info = site / "tensorflow-2.15.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tensorflow\nVersion: 2.15.1\n")
    return tmp_path / "env"


@pytest.mark.parametrize(("os", "arch"), [*MACHINES, ("windows", "aarch64")])
@pytest.mark.parametrize("gpu", [True, False], ids=["gpu", "no-gpu"])
def test_doctor_on_every_machine(os: str, arch: str, gpu: bool, tmp_path: Path) -> None:
    host = HostProfile(
        os=os,
        arch=arch,
        python=Version("3.11"),
        driver=GPU["driver"] if gpu else None,
        gpus=(GpuInfo(0, "NVIDIA GeForce RTX 3080", Version("8.6")),) if gpu else (),
    )
    prefix = _tf_env(tmp_path)
    inputs = Inputs(
        env=target_env.from_prefix(prefix),
        host=host,
        kb=KB,
        environ={},
        system_dirs=(),
        ld_conf=prefix / "no-ld-conf",
        load_libraries=False,
        cuda_home=prefix / "no-cuda",
    )
    findings = {f.id: f for f in diagnose(inputs)}
    tf = findings["tensorflow"]
    assert "None" not in f"{tf.title} {tf.detail or ''}"
    where = platform_of(os, arch)
    if gpu:
        assert (where.key if where else f"{os_title(os)}/{arch}") in tf.title
    else:
        assert tf.status == "ok"


# -- machines no wheel serves ----------------------------------------------------------------------


@pytest.mark.parametrize(("os", "arch"), [*UNSUPPORTED, ("freebsd", "x86_64")])
def test_unsupported_machine_is_refused(os: str, arch: str) -> None:
    assert ("windows", "aarch64") in UNSUPPORTED
    with pytest.raises(UnsupportedPlatform):
        Target(os=os, arch=arch)
    assert platform_of(os, arch) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["resolve", "--os", "windows", "--arch", "arm64", "--cc", "8.6"],
        ["resolve", "--os", "windows", "--arch", "aarch64", "--no-gpu", "--json"],
        ["check-upgrade", "--from", "2.15", "--os", "windows", "--arch", "arm64"],
    ],
)
def test_cli_refuses_an_unsupported_machine(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(argv) == 2
    out, err = capsys.readouterr()
    if "--json" in argv:  # the error object (docs/json.md), the prose on stderr as ever
        assert "TensorFlow publishes no wheels" in json.loads(out)["error"]
    else:
        assert out == ""
    assert "Traceback" not in err
    assert "\n\n" not in err.strip(), "one paragraph"
    assert "TensorFlow publishes no wheels for native Windows on aarch64" in err
