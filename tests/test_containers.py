"""The container route: KB facts, image driver floors, the emitted Dockerfile and devcontainer."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from dockerfile_parse import DockerfileParser  # type: ignore[import-untyped]

from tests.checker import check_plan
from tests.test_resolve_cases import run_case
from tfenv.emit import plan_files, write_plan_files
from tfenv.emit.dockerfile import LOCK_IN_IMAGE
from tfenv.kb import KnowledgeBase
from tfenv.resolver import Resolution

SCHEMA = json.loads((Path(__file__).parent / "data" / "devcontainer.schema.json").read_text())
LINUX = {"os": "linux", "cc": "8.6", "driver": "550.54.15", "manager": "container"}


def container(kb: KnowledgeBase, **args: Any) -> Resolution:
    res = run_case(kb, {**LINUX, **args})
    assert res.plan is not None, res.conflicts
    assert res.plan.route == "container"
    return res


def instructions(text: str, tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "Dockerfile"
    path.write_text(text)
    parsed: list[dict[str, Any]] = DockerfileParser(path=str(path)).structure
    return parsed


# -- knowledge base -----------------------------------------------------------


def test_every_container_fact_has_a_source(kb: KnowledgeBase) -> None:
    facts = kb.containers
    assert facts.official.repository == "tensorflow/tensorflow"
    assert facts.official.provenance.sources
    assert facts.ngc, "no NGC releases recorded"
    for rel in facts.ngc:
        assert rel.provenance.sources
        assert rel.provenance.retrieved
        assert rel.image.startswith("nvcr.io/nvidia/tensorflow:")
        assert rel.cuda is not None
        assert rel.min_driver is not None


def test_forward_compat_is_per_branch(kb: KnowledgeBase) -> None:
    from packaging.version import Version

    rel = next(r for r in kb.containers.ngc if r.release == "23.01")
    assert rel.forward_compatible(Version("470.82.01"))
    assert not rel.forward_compatible(Version("470.42"))  # below 470.57
    assert not rel.forward_compatible(Version("460.91.03"))  # R460 is not listed
    assert not rel.driver_ok(Version("470.82.01"))
    assert rel.driver_ok(Version("535.104.05"))


def test_ngc_23_01_ships_tensorflow_2_11_0(kb: KnowledgeBase) -> None:
    from packaging.version import Version

    rel = next(r for r in kb.containers.ngc if r.release == "23.01")
    assert rel.tensorflow == Version("2.11.0")
    assert rel.cudnn == Version("8.7.0")
    assert rel.python == Version("3.8.10")
    assert rel.cuda == Version("12.0.1")  # unchanged, from the release notes
    assert any("trt-samples-for-hackathon-cn" in s for s in rel.provenance.sources)
    assert kb.containers.ngc_for(Version("2.11.0")) == (rel,)
    assert kb.containers.ngc_for(Version("2.11.1")) == ()  # NGC ships the .0, not the patch


def test_official_images_have_no_release_tied_cuda(kb: KnowledgeBase) -> None:
    from packaging.version import Version

    official = kb.containers.official
    assert official.releases == ()  # no Dockerfile version could be tied to a release
    assert official.release(Version("2.15.1")) is None
    assert any("tensorflow/build" in s for s in official.provenance.sources)
    assert official.note is not None
    assert "tensorflow_runtime_dockerfiles" in official.note


def test_ngc_last_release_stays_unknown(kb: KnowledgeBase) -> None:
    assert kb.containers.ngc_last_release is None
    assert kb.containers.ngc_last_provenance.sources


# -- emitted files --------------------------------------------------------------


@pytest.mark.parametrize(
    ("tf", "image"),
    [
        ("2.15", "tensorflow/tensorflow:2.15.1-gpu"),
        ("2.12", "tensorflow/tensorflow:2.12.1-gpu"),
        ("2.5", "tensorflow/tensorflow:2.5.3-gpu"),
        ("2.0", "tensorflow/tensorflow:2.0.4-gpu"),
    ],
)
def test_dockerfile_parses(kb: KnowledgeBase, tmp_path: Path, tf: str, image: str) -> None:
    res = container(kb, tf=tf)
    files = plan_files(res)
    assert set(files) == {"Dockerfile", ".devcontainer/devcontainer.json"}
    parsed = DockerfileParser(path=str(tmp_path / "Dockerfile"))
    parsed.content = files["Dockerfile"]
    assert parsed.baseimage == image
    steps = [(i["instruction"], i["value"]) for i in parsed.structure]
    names = [name for name, _ in steps]
    assert names.count("FROM") == 1
    assert ("USER", "tfenv") in steps
    assert names.index("USER") > names.index("RUN")  # the user is created before it is used
    health = next(v for n, v in steps if n == "HEALTHCHECK")
    assert "list_physical_devices('GPU')" in health
    assert "COPY" not in names  # no lock in this folder


@pytest.mark.parametrize("tf", ["2.15", "2.12", "2.5"])
def test_devcontainer_matches_schema(kb: KnowledgeBase, tf: str) -> None:
    res = container(kb, tf=tf)
    data = json.loads(plan_files(res)[".devcontainer/devcontainer.json"])
    jsonschema.validate(data, SCHEMA)
    assert data["runArgs"] == ["--gpus", "all"]
    assert data["hostRequirements"]["gpu"] is True
    assert data["build"]["dockerfile"] == "../Dockerfile"


def test_schema_rejects_a_bad_gpu_requirement() -> None:
    bad = {"build": {"dockerfile": "Dockerfile"}, "hostRequirements": {"gpu": "yes"}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, SCHEMA)


LOCK = "numpy==1.26.4 \\\n    --hash=sha256:" + "0" * 64 + "\n"


def test_lock_in_folder_is_installed_with_hashes(kb: KnowledgeBase, tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("numpy\n")  # no hashes: not a lock
    (tmp_path / "requirements-lock.txt").write_text(LOCK)
    written = write_plan_files(container(kb, tf="2.15"), tmp_path)
    assert {p.name for p in written} == {"Dockerfile", "devcontainer.json"}
    steps = instructions((tmp_path / "Dockerfile").read_text(), tmp_path)
    copy = next(s["value"] for s in steps if s["instruction"] == "COPY")
    assert json.loads(copy) == ["requirements-lock.txt", LOCK_IN_IMAGE]  # exec (JSON) form
    runs = [s["value"] for s in steps if s["instruction"] == "RUN"]
    assert any("--require-hashes" in r and LOCK_IN_IMAGE in r for r in runs)


def test_requirements_flag_copies_the_lock(kb: KnowledgeBase, tmp_path: Path) -> None:
    lock = tmp_path / "elsewhere" / "requirements.lock.txt"
    lock.parent.mkdir()
    lock.write_text(LOCK)
    out = tmp_path / "out"
    write_plan_files(container(kb, tf="2.15"), out, lock)
    assert (out / "requirements.lock.txt").read_text() == LOCK
    assert f'COPY ["requirements.lock.txt", "{LOCK_IN_IMAGE}"]' in (out / "Dockerfile").read_text()


def test_requirements_without_hashes_is_refused(kb: KnowledgeBase, tmp_path: Path) -> None:
    from tfenv.errors import UsageError

    plain = tmp_path / "requirements.txt"
    plain.write_text("numpy==1.26.4\n")
    with pytest.raises(UsageError, match="--hash"):
        write_plan_files(container(kb, tf="2.15"), tmp_path / "out", plain)


def test_cli_prints_docker_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfenv.cli import main

    monkeypatch.delenv("TFENV_DATA_DIR", raising=False)
    machine = ["--os", "linux", "--cc", "8.6", "--driver", "535.104.05"]
    code = main(
        ["resolve", *machine, "--tf", "2.15", "--manager", "container", "--emit", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert code == 0
    assert "docker run --gpus all" in err
    assert (tmp_path / "Dockerfile").is_file()
    assert (tmp_path / ".devcontainer" / "devcontainer.json").is_file()


# -- NGC forward compatibility, on hand-made data ---------------------------------
# The shipped containers.yaml records only 23.01's TensorFlow version (2.11.0), so these
# cases copy the data and give 23.01 TensorFlow 2.15.1 for the test only.

NGC_CASES = yaml.safe_load(
    """
- id: ngc-forward-compat-datacenter
  args: {os: linux, gpu: "A100", driver: "470.82.01", tf: "2.15.1", manager: container}
  expect:
    route: container
    warnings: ["forward compatibility"]
    image: "nvcr.io/nvidia/tensorflow:23.01-tf2-py3"
- id: ngc-no-forward-compat-on-geforce
  args: {os: linux, gpu: "RTX 3060", driver: "470.82.01", tf: "2.15.1", manager: container}
  expect: {status: unsatisfiable, conflicts: ["470.82.01"]}
- id: ngc-not-needed-with-new-driver
  args: {os: linux, gpu: "A100", driver: "535.104.05", tf: "2.15.1", manager: container}
  expect: {route: container, image: "tensorflow/tensorflow:2.15.1-gpu"}
"""
)


@pytest.fixture(scope="module")
def ngc_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root = tmp_path_factory.mktemp("data")
    with resources.as_file(resources.files("tfenv.data")) as shipped:
        shutil.copytree(shipped, root, dirs_exist_ok=True)
    path = root / "containers.yaml"
    data = yaml.safe_load(path.read_text())
    for rel in data["ngc"]:
        if rel["release"] == "23.01":
            rel["tensorflow"] = "2.15.1"  # hand-made for the test
    path.write_text(yaml.safe_dump(data))
    return KnowledgeBase(root)


@pytest.mark.parametrize("case", NGC_CASES, ids=[c["id"] for c in NGC_CASES])
def test_ngc_forward_compat(ngc_kb: KnowledgeBase, case: dict[str, Any]) -> None:
    res = run_case(ngc_kb, case["args"])
    expect = dict(case["expect"])
    if expect.get("status") == "unsatisfiable":
        assert res.plan is None
        for text in expect["conflicts"]:
            assert text in " ".join(res.conflicts)
        return
    assert res.plan is not None, res.conflicts
    assert res.plan.route == expect["route"]
    assert res.plan.image == expect["image"]
    for text in expect.get("warnings", []):
        assert any(text in w for w in res.plan.warnings), res.plan.warnings
    if res.plan.image and res.plan.image.startswith("tensorflow/"):
        assert check_plan(ngc_kb, res) == []
