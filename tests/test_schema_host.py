"""The shipped JSON Schema of host files and the host-file reader cannot drift apart (issue 26):
the same keys, the examples and real host files accepted by both, odd values refused by both,
each with one error naming its field."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest

from tests.host_doc import host_document
from tfenv.errors import ConfigError
from tfenv.host.profile import PROFILE_KEYS, GpuInfo
from tfenv.host.profile_file import profile_from_dict, profile_from_json
from tfenv.schema import host_schema

SCHEMA = host_schema()
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
A100 = {"index": 0, "name": "NVIDIA A100-SXM4-80GB", "compute_capability": "8.0",
        "cc_source": "nvml", "memory_mib": 81920, "mig": False, "uuid": "GPU-1"}  # fmt: skip
FULL = host_document(
    driver="535.104.05",
    driver_cuda="12.2",
    gpus=[A100],
    cuda_toolkits=[{"version": "12.2", "path": "/usr/local/cuda-12.2", "source": "nvcc"}],
    cudnn=[{"version": "8.9.7", "path": "/usr/include/cudnn_version.h"}],
    packages={"tensorflow": "2.15.1", "nvidia-cudnn-cu12": "8.9.4.25"},
    conda_env="/opt/conda/envs/tf",
    notes=["a general note", {"about": "driver", "value": "535.104.05", "text": "Driver."}],
    sources={"os": "platform"},
)


def _reader_problem(doc: Any) -> str | None:
    try:
        profile_from_dict(doc, "the host file h.json")
    except ConfigError as exc:
        return exc.message
    return None


def test_the_schema_is_a_valid_draft_7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_the_schema_has_exactly_the_keys_the_reader_accepts() -> None:
    assert list(SCHEMA["properties"]) == list(PROFILE_KEYS)
    gpu = GpuInfo(index=0, name="x").to_dict()
    assert set(SCHEMA["definitions"]["gpu"]["properties"]) == set(gpu)
    assert set(SCHEMA["required"]) == {"schema", "os", "arch", "python"}


@pytest.mark.parametrize("key", sorted(SCHEMA["properties"]))
def test_every_example_is_accepted_by_both(key: str) -> None:
    examples = SCHEMA["properties"][key]["examples"]
    assert examples, key
    for example in examples:
        doc = {**FULL, key: example}
        VALIDATOR.validate(doc)
        assert _reader_problem(doc) is None, (key, example)


def test_what_detect_writes_validates_and_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from tfenv.host import detect

    monkeypatch.setenv("TFENV_DETECT_NVML", "0")
    written = detect().to_dict()  # this machine, as 'tfenv detect --json' writes it
    for doc in (FULL, host_document(), written):
        VALIDATOR.validate(doc)
        assert _reader_problem(doc) is None, doc


def _with(path: str, value: Any) -> dict[str, Any]:
    doc = copy.deepcopy(FULL)
    *parents, last = path.split(".")
    node: Any = doc
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[last] = value
    return doc


INVALID = [
    ("schema", True, "schema"),
    ("schema", 2, "schema"),
    ("schema", "1", "schema"),
    ("python", "1!3.11", "python"),
    ("python", "3.11.5.1", "python"),
    ("python", "3.11+local", "python"),
    ("python", "0.0", "python"),
    ("python", "3.11.post1", "python"),
    ("python", "", "python"),
    ("gpus.0.compute_capability", "1!8.0", "gpus[0].compute_capability"),
    ("gpus.0.compute_capability", "8.0+local", "gpus[0].compute_capability"),
    ("gpus.0.compute_capability", "8.0.dev1", "gpus[0].compute_capability"),
    ("driver_cuda", "99.9", "driver_cuda"),
    ("driver_cuda", "0", "driver_cuda"),
    ("driver_cuda", "12", "driver_cuda"),
    ("driver_cuda", "12.2+x", "driver_cuda"),
    ("glibc", "99.99", "glibc"),
    ("glibc", "2.35rc1", "glibc"),
    ("glibc", "1!2.35", "glibc"),
    ("packages", {"tensorflow": "garbage"}, "packages.tensorflow"),
    ("packages", {"tensorflow": ""}, "packages.tensorflow"),
    ("packages", {"-bad name-": "1.0"}, "packages.-bad name-"),
    ("cuda_toolkits.0.version", "99.9", "cuda_toolkits[0].version"),
    ("cudnn.0.version", "0.1", "cudnn[0].version"),
    ("driver", "0", "driver"),
]


@pytest.mark.parametrize(
    ("path", "value", "field"), INVALID, ids=[f"{p}={v!r}" for p, v, _ in INVALID]
)
def test_odd_host_values_are_refused_by_both_naming_the_field(
    path: str, value: Any, field: str
) -> None:
    doc = _with(path, value)
    assert not VALIDATOR.is_valid(doc), (path, value)
    problem = _reader_problem(doc)
    assert problem is not None, (path, value)
    assert f"field '{field}'" in problem
    assert "\n" not in problem


def test_schema_written_as_a_float_is_refused_by_the_reader() -> None:
    """JSON Schema counts 1.0 as the integer 1; the reader wants it written as 1."""
    problem = _reader_problem({**FULL, "schema": 1.0})
    assert problem is not None
    assert "field 'schema'" in problem


@pytest.mark.parametrize(
    "text",
    [
        '{"schema": 1, "os": "linux", "arch": "x86_64", "python": "3.11", "python": "3.12"}',
        '{"schema": 1, "os": "linux", "arch": "x86_64", "python": "3.11", "gpus": '
        '[{"index": 0, "name": "A100", "name": "T4"}]}',
    ],
    ids=["top-level", "in-a-gpu"],
)
def test_a_key_given_twice_is_refused_naming_it(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        profile_from_json(text, "the host file h.json")
    assert "appears twice" in info.value.message
    assert "'python'" in info.value.message or "'name'" in info.value.message


@pytest.mark.parametrize("python", ["3.11", "3.11.5", "3.13.0rc1", "2.7"])
def test_real_python_versions_are_read(python: str) -> None:
    assert _reader_problem({**FULL, "python": python}) is None
    assert VALIDATOR.is_valid({**FULL, "python": python})
