"""The container route: KB facts, image choice, NVIDIA_REQUIRE_CUDA, the emitted files."""

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
from packaging.version import Version

from tests.case_expect import assert_conflict_texts
from tests.checker import check_plan
from tests.test_resolve_cases import run_case
from tfenv.emit import plan_files, write_plan_files
from tfenv.emit.dockerfile import LOCK_IN_IMAGE
from tfenv.emit.record import RECORD
from tfenv.kb import KnowledgeBase
from tfenv.models.plan import Plan, Resolution
from tfenv.rules.container_images import mismatch

SCHEMA = json.loads((Path(__file__).parent / "data" / "devcontainer.schema.json").read_text())
LINUX = {"os": "linux", "cc": "8.6", "driver": "550.54.15", "manager": "container"}
CASES_FILE = Path(__file__).parent / "cases" / "containers.yaml"
CASES: list[dict[str, Any]] = yaml.safe_load(CASES_FILE.read_text("utf-8"))


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


def steps_of(text: str, tmp_path: Path) -> list[tuple[str, str]]:
    return [(s["instruction"], s["value"]) for s in instructions(text, tmp_path)]


# -- data-driven cases ----------------------------------------------------------------


def _params() -> list[Any]:
    out = []
    for case in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=case["xfail"])] if "xfail" in case else []
        out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


@pytest.mark.parametrize("case", _params())
def test_case(kb: KnowledgeBase, case: dict[str, Any]) -> None:
    res = run_case(kb, case["args"])
    expect = dict(case["expect"])
    if expect.pop("status", "ok") == "unsatisfiable":
        assert res.plan is None, f"expected no plan, got {res.plan}"
        assert_conflict_texts(res, expect)
        return
    assert res.plan is not None, res.conflicts
    assert res.plan.route == "container"
    _check_expected(res.plan, expect)
    assert check_plan(kb, res) == []  # NGC plans too: checked against the image's own facts


def _check_expected(plan: Plan, expect: dict[str, Any]) -> None:
    got = plan.to_dict()
    for key, want in expect.items():
        if key in ("warnings", "reasons"):
            for text in want:
                assert any(text in w for w in got[key]), got[key]
        elif key == "image":
            assert plan.image == want
        elif key == "pip":
            assert all(any(w in p for p in plan.pip) for w in want), plan.pip
            assert want or not plan.pip, plan.pip
        else:
            assert got[key] == want, (key, got)


def test_cases_cover_the_issue() -> None:
    """The cases issue #17 asks for are here (Jetson is another issue's)."""
    ids = {c["id"] for c in CASES}
    assert {
        "official-2.15.0-cuda-11.8-refused",
        "official-2.19-cudnn-8.9-refused",
        "clause-rejects-510-on-cuda-12.3",
        "clause-admits-535-on-a-datacenter-gpu",
        "ngc-way-out-for-a-gpu-older-than-the-wheels",
        "ngc-way-out-for-blackwell",
    } <= ids


# -- knowledge base -------------------------------------------------------------------


def test_every_container_fact_has_a_source(kb: KnowledgeBase) -> None:
    facts = kb.containers
    assert facts.official.repository == "tensorflow/tensorflow"
    assert facts.official.releases, "no official image recorded"
    assert facts.cuda_bases, "no CUDA base image recorded"
    for rec in facts.official.releases:
        assert rec.provenance.sources
        assert rec.provenance.retrieved
        if rec.status == "unknown":
            assert (rec.cuda, rec.cudnn, rec.python, rec.base_image) == (None,) * 4
        if rec.require_cuda is None:
            assert rec.require_cuda_status == "unknown"
    for base in facts.cuda_bases:
        assert base.provenance.sources
        assert base.image.startswith(f"nvidia/cuda:{base.cuda}.")
        assert base.image.endswith(f"-base-ubuntu{base.ubuntu}")
    assert facts.ngc, "no NGC releases recorded"
    for rel in facts.ngc:
        assert rel.provenance.sources
        assert rel.provenance.retrieved
        assert rel.image.startswith("nvcr.io/nvidia/tensorflow:")
        assert rel.cuda is not None
        assert rel.min_driver is not None or rel.status != "established"


def test_ngc_images_are_named_from_the_data(kb: KnowledgeBase) -> None:
    rel = next(r for r in kb.containers.ngc if r.release == "23.01")
    assert rel.image == "nvcr.io/nvidia/tensorflow:23.01-tf2-py3"
    assert rel.naming.provenance.sources
    assert rel.naming.provenance.retrieved


@pytest.mark.parametrize(
    ("old", "new", "path"),
    [
        ("repository: nvcr.io/nvidia/tensorflow\n", 'repository: "nvcr.io/x\\nRUN y"\n',
         "ngc_image.repository"),
        ("repository: tensorflow/tensorflow\n", 'repository: "tensorflow/x\\nRUN y"\n',
         "official.repository"),
    ],
)  # fmt: skip
def test_an_image_name_that_would_break_a_dockerfile_is_refused(
    tmp_path: Path, old: str, new: str, path: str
) -> None:
    from tfenv.errors import KBValidationError
    from tfenv.kb import containers

    text = resources.files("tfenv.data").joinpath(containers.CONTAINERS_FILE).read_text("utf-8")
    assert old in text
    (tmp_path / containers.CONTAINERS_FILE).write_text(text.replace(old, new, 1), "utf-8")
    with pytest.raises(KBValidationError, match="control character") as caught:
        containers.load(tmp_path)
    assert caught.value.path == path


def test_a_base_image_clause_requires_its_own_cuda(kb: KnowledgeBase) -> None:
    """An nvidia/cuda image's NVIDIA_REQUIRE_CUDA starts with cuda>= its own X.Y."""
    clauses = [r for r in kb.containers.official.releases if r.require_cuda is not None]
    assert clauses, "no official image's NVIDIA_REQUIRE_CUDA recorded"
    for rec in clauses:
        assert rec.require_cuda is not None
        assert rec.cuda is not None
        assert rec.require_cuda.cuda_floor == Version(f"{rec.cuda.major}.{rec.cuda.minor}")
    for base in kb.containers.cuda_bases:
        assert base.require_cuda is not None
        assert base.require_cuda.cuda_floor == Version(f"{base.cuda.major}.{base.cuda.minor}")


# which official images match the TensorFlow inside them (CUDA and cuDNN, from builds.yaml)
MATCHES = {
    "2.0.4": True,
    "2.3.4": True,
    "2.4.0": True,
    "2.9.1": True,
    "2.11.0": True,
    "2.12.0": True,
    "2.13.0": True,
    "2.14.0": False,  # cuDNN 8.6 < 8.7
    "2.15.0": False,  # CUDA 11.8, built with 12.2
    "2.16.1": True,
    "2.17.0": True,
    "2.18.0": False,  # cuDNN 8.9, built with 9.3
    "2.19.0": False,
    "2.20.0": False,
}


@pytest.mark.parametrize(("version", "fits"), MATCHES.items())
def test_official_images_are_matched_to_their_build(
    kb: KnowledgeBase, version: str, fits: bool
) -> None:
    v = Version(version)
    rec = kb.containers.official.release(v)
    build = kb.builds.for_version(v)
    assert rec is not None
    assert build is not None
    assert (mismatch(rec.cuda, rec.cudnn, build.linux, v) is None) is fits


def test_official_records_with_status(kb: KnowledgeBase) -> None:
    official = kb.containers.official
    rec = official.release(Version("2.19.0"))
    assert rec is not None
    assert (rec.cuda, rec.cudnn, rec.status) == (Version("12.3"), Version("8.9.6.50"), "inferred")
    assert any("build/issues/221" in s for s in rec.provenance.sources)
    assert official.release(Version("2.4.0")).status == "established"  # type: ignore[union-attr]
    assert official.release(Version("2.21.0")).status == "unknown"  # type: ignore[union-attr]
    assert official.release(Version("2.15.1")) is None  # no image of 2.15.1 is recorded
    assert official.gpu_tags(Version("2.0.4")) == ("2.0.4-gpu-py3",)
    assert official.gpu_tags(Version("2.17.0")) == ("2.17.0-gpu", "2.17.0-gpu-jupyter")


def test_gpu_brands_cover_every_catalog_segment(kb: KnowledgeBase) -> None:
    brands = kb.containers.gpu_brands
    segments = {m.segment for m in kb.gpus.models}
    assert segments <= {name for name, _ in brands.segments}
    assert brands.for_segment("geforce-desktop") == frozenset({"geforce"})
    assert brands.for_segment("datacenter") == frozenset({"tesla", "nvidia", "unknown"})
    assert brands.for_segment("jetson") is None


def test_ngc_releases_and_the_last_one(kb: KnowledgeBase) -> None:
    facts = kb.containers
    assert facts.ngc[0].release == "25.02"  # newest first
    last = facts.ngc_last
    assert last.release == "25.02"
    assert last.status == "third-party"
    assert last.notice is not None
    assert "will no longer be released" in last.notice
    (rel,) = facts.ngc_for(Version("2.17.0"))
    assert (rel.cuda, rel.cudnn, rel.python, rel.ubuntu) == (
        Version("12.8.0.38"),
        Version("9.7.1"),
        Version("3.12"),
        "24.04",
    )
    assert rel.status == "third-party"
    assert rel.min_driver is None  # not known from NVIDIA's page
    assert {r.release for r in facts.ngc} >= {"20.03", "20.06", "21.04", "22.10", "23.01"}


def test_forward_compat_is_per_branch(kb: KnowledgeBase) -> None:
    rel = next(r for r in kb.containers.ngc if r.release == "23.01")
    assert rel.forward_compatible(Version("470.82.01"))
    assert not rel.forward_compatible(Version("470.42"))  # below 470.57
    assert not rel.forward_compatible(Version("460.91.03"))  # R460 is not listed
    assert not rel.driver_ok(Version("470.82.01"))
    assert rel.driver_ok(Version("535.104.05"))


def test_ngc_23_01_ships_tensorflow_2_11_0(kb: KnowledgeBase) -> None:
    rel = next(r for r in kb.containers.ngc if r.release == "23.01")
    assert rel.tensorflow == Version("2.11.0")
    assert rel.cudnn == Version("8.7.0")
    assert rel.python == Version("3.8.10")
    assert rel.cuda == Version("12.0.1")  # unchanged, from the release notes
    assert any("trt-samples-for-hackathon-cn" in s for s in rel.provenance.sources)
    assert kb.containers.ngc_for(Version("2.11.1")) == ()  # NGC ships the .0, not the patch


def test_a_bad_clause_is_a_kb_error(tmp_path: Path) -> None:
    from tfenv.errors import KBValidationError

    root = tmp_path / "data"
    with resources.as_file(resources.files("tfenv.data")) as shipped:
        shutil.copytree(shipped, root)
    path = root / "containers.yaml"
    data = yaml.safe_load(path.read_text())
    data["cuda_bases"][0]["require_cuda"] = "cuda>=11.8 colour=green"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(KBValidationError, match="NVIDIA_REQUIRE_CUDA"):
        _ = KnowledgeBase(root).containers


# -- emitted files ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tf", "image"),
    [
        ("2.17.0", "tensorflow/tensorflow:2.17.0-gpu"),
        ("2.12", "tensorflow/tensorflow:2.12.0-gpu"),
        ("2.5", "tensorflow/tensorflow:2.5.3-gpu"),
        ("2.0", "tensorflow/tensorflow:2.0.4-gpu-py3"),
    ],
)
def test_dockerfile_from_an_official_image(
    kb: KnowledgeBase, tmp_path: Path, tf: str, image: str
) -> None:
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
    assert not any("pip install" in v for n, v in steps if n == "RUN")


CUDA_BASE = [
    ("2.15.0", "A100", "535.104.05", "nvidia/cuda:12.2.2-base-ubuntu22.04", "3.11"),
    ("2.19", "A100", "535.104.05", "nvidia/cuda:12.5.0-base-ubuntu22.04", "3.12"),
]


@pytest.mark.parametrize(("tf", "gpu", "driver", "image", "python"), CUDA_BASE)
def test_dockerfile_on_a_cuda_base_installs_python_and_tensorflow(
    kb: KnowledgeBase, tmp_path: Path, tf: str, gpu: str, driver: str, image: str, python: str
) -> None:
    res = container(kb, tf=tf, gpu=gpu, cc=None, driver=driver)
    assert res.plan is not None
    text = plan_files(res)["Dockerfile"]
    parsed = DockerfileParser(path=str(tmp_path / "Dockerfile"))
    parsed.content = text
    assert parsed.baseimage == image
    steps = [(i["instruction"], i["value"]) for i in parsed.structure]
    names = [n for n, _ in steps]
    runs = [v for n, v in steps if n == "RUN"]
    assert "add-apt-repository -y ppa:deadsnakes/ppa" in runs[0]
    assert f"python{python} python{python}-venv" in runs[0]
    assert f"python{python} -m venv /opt/venv" in runs[0]
    assert ("ENV", "PATH=/opt/venv/bin:$PATH") in steps
    install = next(r for r in runs if "pip install" in r)
    assert "--require-hashes" not in install  # no lock here: said in a comment
    for spec in res.plan.pip:
        assert f"'{spec}'" in install
    assert "NOT hash-checked" in text
    assert names.index("USER") > max(i for i, n in enumerate(names) if n == "RUN")
    assert ("USER", "tfenv") in steps


LOCK_TF = (
    "tensorflow==2.19.1 \\\n    --hash=sha256:" + "1" * 64 + "\n"
    "numpy==1.26.4 \\\n    --hash=sha256:" + "0" * 64 + "\n"
)


def test_cuda_base_installs_the_hashed_lock(kb: KnowledgeBase, tmp_path: Path) -> None:
    lock = tmp_path / "requirements.box.txt"
    lock.write_text(LOCK_TF)
    out = tmp_path / "out"
    res = container(kb, tf="2.19", gpu="A100", cc=None, driver="535.104.05")
    write_plan_files(res, out, lock)
    steps = steps_of((out / "Dockerfile").read_text(), tmp_path)
    copy = next(v for n, v in steps if n == "COPY")
    assert copy == '["requirements.box.txt", "/tmp/tfenv-requirements.txt"]'
    runs = [v for n, v in steps if n == "RUN"]
    install = next(r for r in runs if "pip install" in r)
    assert "--require-hashes --no-deps -r /tmp/tfenv-requirements.txt" in install
    assert "tensorflow[and-cuda]" not in install


def test_cuda_base_refuses_a_lock_without_tensorflow(kb: KnowledgeBase, tmp_path: Path) -> None:
    from tfenv.errors import UsageError

    (tmp_path / "requirements-lock.txt").write_text(LOCK)
    res = container(kb, tf="2.19", gpu="A100", cc=None, driver="535.104.05")
    with pytest.raises(UsageError, match="does not pin"):
        write_plan_files(res, tmp_path)


def test_dockerfile_of_the_ngc_way_out(kb: KnowledgeBase, tmp_path: Path) -> None:
    res = container(kb, tf="2.17", gpu="GTX 980", cc=None, driver="570.86.10")
    text = plan_files(res)["Dockerfile"]
    parsed = DockerfileParser(path=str(tmp_path / "Dockerfile"))
    parsed.content = text
    assert parsed.baseimage == "nvcr.io/nvidia/tensorflow:25.02-tf2-py3"
    assert "deadsnakes" not in text  # the NGC image has its Python


@pytest.mark.parametrize("tf", ["2.17.0", "2.12", "2.5", "2.19"])
def test_devcontainer_matches_schema(kb: KnowledgeBase, tf: str) -> None:
    res = container(kb, tf=tf, gpu="A100", cc=None, driver="535.104.05")
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
    written = write_plan_files(container(kb, tf="2.17.0"), tmp_path).written
    assert {p.name for p in written} == {"Dockerfile", "devcontainer.json", RECORD}
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
    write_plan_files(container(kb, tf="2.17.0"), out, lock)
    assert (out / "requirements.lock.txt").read_text() == LOCK
    assert f'COPY ["requirements.lock.txt", "{LOCK_IN_IMAGE}"]' in (out / "Dockerfile").read_text()


def test_requirements_without_hashes_is_refused(kb: KnowledgeBase, tmp_path: Path) -> None:
    from tfenv.errors import UsageError

    plain = tmp_path / "requirements.txt"
    plain.write_text("numpy==1.26.4\n")
    with pytest.raises(UsageError, match="--hash"):
        write_plan_files(container(kb, tf="2.17.0"), tmp_path / "out", plain)


def test_cli_prints_docker_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tfenv.cli import main

    machine = ["--os", "linux", "--cc", "8.6", "--driver", "535.104.05"]
    code = main(
        ["resolve", *machine, "--tf", "2.15", "--manager", "container", "--emit", str(tmp_path)]
    )
    err = capsys.readouterr().err
    assert code == 0
    assert "docker run --gpus all" in err
    assert (tmp_path / "Dockerfile").is_file()
    assert "FROM nvidia/cuda:12.2.2-base-ubuntu22.04" in (tmp_path / "Dockerfile").read_text()
    assert (tmp_path / ".devcontainer" / "devcontainer.json").is_file()


# -- NGC forward compatibility, on hand-made data -------------------------------------
# NGC 23.01 ships TensorFlow 2.11.0; these cases copy the data and give 23.01 TensorFlow
# 2.15.1 for the test only.

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
  expect: {route: container, image: "nvidia/cuda:12.2.2-base-ubuntu22.04"}
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
        assert_conflict_texts(res, expect)
        return
    assert res.plan is not None, res.conflicts
    assert res.plan.route == expect["route"]
    assert res.plan.image == expect["image"]
    for text in expect.get("warnings", []):
        assert any(text in w for w in res.plan.warnings), res.plan.warnings
    assert check_plan(ngc_kb, res) == []


# -- the Python asked for ------------------------------------------------------------


def test_the_python_asked_for_is_the_images_python(kb: KnowledgeBase, tmp_path: Path) -> None:
    """--python 3.12 on a release whose newest Python is another: the CUDA base image
    installs 3.12 (the plan, its reasons and the Dockerfile agree with the Target line)."""
    res = container(kb, tf="2.21", python="3.12")
    assert res.plan is not None
    assert res.plan.python == "3.12"
    assert res.plan.image == "nvidia/cuda:12.5.0-base-ubuntu22.04"
    assert any(
        "Python 3.12: installed in the image, the Python asked for." in r for r in res.plan.reasons
    )
    runs = [v for n, v in steps_of(plan_files(res)["Dockerfile"], tmp_path) if n == "RUN"]
    assert "python3.12 -m venv /opt/venv" in runs[0]


@pytest.mark.parametrize(
    ("python", "image"),
    [
        ("3.11", "tensorflow/tensorflow:2.17.0-gpu"),  # the official image carries 3.11
        ("3.12", "nvidia/cuda:12.3.2-base-ubuntu22.04"),  # it does not carry 3.12
    ],
)
def test_an_image_with_another_python_is_not_taken(
    kb: KnowledgeBase, python: str, image: str
) -> None:
    res = container(kb, tf="2.17.0", python=python)
    assert res.plan is not None
    assert (res.plan.image, res.plan.python) == (image, python)
    if image.startswith("nvidia/cuda"):
        assert any(
            "tensorflow/tensorflow:2.17.0-gpu is not used: it carries Python 3.11, and Python "
            "3.12 was asked for" in r
            for r in res.plan.reasons
        )


def test_a_python_without_wheels_gives_no_container_plan(kb: KnowledgeBase) -> None:
    res = run_case(kb, {**LINUX, "tf": "2.15", "python": "3.14"})
    assert res.plan is None
    assert any("3.14 (given)" in c.sentence for c in res.conflicts)
    assert any("Python 3.11" in s.sentence for s in res.suggestions)


def test_the_detected_python_does_not_bind_the_image(kb: KnowledgeBase) -> None:
    """The Python tfenv runs in is the host's: an image brings its own."""
    from dataclasses import replace

    from tfenv.models.target import Target
    from tfenv.routes.container import container_view

    host = Target.from_facts(
        {"os": "linux", "arch": "x86_64", "python": Version("3.8"), "cc": Version("8.6")},
        detected={"python"},
    )
    assert container_view(host).python is None
    given = replace(host, detected=frozenset())
    assert container_view(given).python == Version("3.8")


def test_an_ngc_way_out_with_another_python_says_which(kb: KnowledgeBase) -> None:
    """A Maxwell GPU on 2.17 with Python 3.11: NGC 25.02 (Python 3.12) is the way out, and
    its command asks for that Python, which the container route then honours."""
    args = {"os": "linux", "gpu": "GTX 970", "driver": "550.54.15", "tf": "2.17"}
    res = run_case(kb, {**args, "python": "3.11"})
    ngc = [s for s in res.suggestions if "nvcr.io/nvidia/tensorflow:25.02-tf2-py3" in s.sentence]
    assert ngc
    for s in ngc:
        command = dict(s.fields)["command"]
        assert " --python 3.12 " in command
        assert command.endswith(" --manager container")
    plan = container(kb, **{**args, "tf": "2.17.0", "python": "3.12", "cc": None}).plan
    assert plan is not None
    assert (plan.image, plan.python) == ("nvcr.io/nvidia/tensorflow:25.02-tf2-py3", "3.12")
