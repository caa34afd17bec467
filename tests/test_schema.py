"""The shipped JSON Schema of ``[tool.tfenv]`` and the configuration reader cannot drift apart."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tfenv import config as config_module
from tfenv import specs
from tfenv.config import parse_config
from tfenv.errors import ConfigError
from tfenv.kb.cuda_wheels import POLICIES
from tfenv.models.target import CUDA_LIBS, MANAGERS
from tfenv.schema import config_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).parent.parent
SCHEMA = config_schema()
VALIDATOR = jsonschema.Draft7Validator(SCHEMA)
TARGET = SCHEMA["definitions"]["target"]
MINIMAL = {"targets": {"a": {"os": "linux"}}}


def _schema_ok(table: dict[str, Any]) -> bool:
    return VALIDATOR.is_valid(table)


def _reader_ok(table: dict[str, Any], tmp: Path) -> bool:
    try:
        parse_config(table, tmp / "tfenv.toml")
    except ConfigError:
        return False
    return True


def test_the_schema_is_a_valid_draft_7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(SCHEMA)


def test_the_schema_has_exactly_the_keys_the_reader_accepts() -> None:
    assert set(SCHEMA["properties"]) == set(config_module._TOP_KEYS)
    assert set(TARGET["properties"]) == set(config_module._TARGET_KEYS)
    assert SCHEMA["properties"]["manager"]["enum"] == list(MANAGERS)
    assert TARGET["properties"]["manager"]["enum"] == list(MANAGERS)
    assert SCHEMA["properties"]["cuda-libs"]["enum"] == list(CUDA_LIBS) == list(POLICIES)
    assert TARGET["properties"]["cuda-libs"]["enum"] == list(CUDA_LIBS)
    assert set(TARGET["properties"]["os"]["enum"]) == set(specs._OS_ALIASES)
    assert set(TARGET["properties"]["arch"]["enum"]) == set(specs._ARCH_ALIASES)
    name = SCHEMA["properties"]["targets"]["propertyNames"]["pattern"]
    assert name == config_module._NAME.pattern


@pytest.mark.parametrize("key", sorted(SCHEMA["properties"]))
def test_every_top_level_example_is_accepted_by_both(key: str, tmp_path: Path) -> None:
    examples = SCHEMA["properties"][key]["examples"]
    assert examples, key
    for example in examples:
        table = {**MINIMAL, key: example}
        assert _schema_ok(table), (key, example)
        assert _reader_ok(table, tmp_path), (key, example)


@pytest.mark.parametrize("key", sorted(TARGET["properties"]))
def test_every_target_example_is_accepted_by_both(key: str, tmp_path: Path) -> None:
    examples = TARGET["properties"][key]["examples"]
    assert examples, key
    for example in examples:
        machine = {"os": "linux", key: example} if key != "host" else {key: example}
        table = {"targets": {"a": machine}}
        assert _schema_ok(table), (key, example)
        assert _reader_ok(table, tmp_path), (key, example)


def _documented_example() -> dict[str, Any]:
    text = (ROOT / "docs" / "lock.md").read_text("utf-8")
    block = re.search(r"```toml\n(\[tool\.tfenv\].*?)```", text, flags=re.S)
    assert block is not None, "docs/lock.md lost its full example"
    doc = tomllib.loads(block.group(1))
    table: dict[str, Any] = doc["tool"]["tfenv"]
    return table


def test_the_documented_example_validates_and_reads(tmp_path: Path) -> None:
    table = _documented_example()
    assert set(table) == set(config_module._TOP_KEYS)  # the example shows every key
    VALIDATOR.validate(table)
    config = parse_config(table, tmp_path / "pyproject.toml", prefix="tool.tfenv.")
    assert [t.name for t in config.targets] == list(table["targets"])


def test_the_test_configurations_validate() -> None:
    paths = sorted((ROOT / "tests" / "data").rglob("tfenv.toml"))
    assert paths, "no test configuration found"
    for path in paths:
        VALIDATOR.validate(tomllib.loads(path.read_text("utf-8")))


INVALID = [
    ('pythn = "3.11"\n[targets.a]\nos = "linux"\n', "an unknown key"),
    ('python = 3.11\n[targets.a]\nos = "linux"\n', "a Python without quotes"),
    ('manager = "brew"\n[targets.a]\nos = "linux"\n', "an unknown manager"),
    ('dependencies = "pandas"\n[targets.a]\nos = "linux"\n', "dependencies not a list"),
    ('allow-cpu = "no"\n[targets.a]\nos = "linux"\n', "a string for a boolean"),
    ('out = ""\n[targets.a]\nos = "linux"\n', "an empty out"),
    ('python = "3.11"\n', "no targets"),
    ("targets = {}\n", "an empty targets table"),
    ('[targets."a.b"]\nos = "linux"\n', "a dot in a target name"),
    ('[targets.a]\narch = "x86_64"\n', "neither host nor os"),
    ('[targets.a]\nos = "beos"\n', "an unknown OS"),
    ('[targets.a]\nos = "linux"\narch = "sparc"\n', "an unknown arch"),
    ('[targets.a]\nos = "linux"\ncc = "8.6"\ngpu = "A100"\n', "gpu and cc"),
    ('[targets.a]\nos = "linux"\ncc = "8.6"\nno-gpu = true\n', "cc and no-gpu"),
    ('[targets.a]\nos = "linux"\ncc = "14.0"\n', "a compute capability past 13.x"),
    ('[targets.a]\nos = "linux"\ndriver = "abc"\n', "a driver that is no version"),
    ('[targets.a]\nos = "linux"\nglibc = "2"\n', "a glibc that is not X.Y"),
    ('[targets.a]\nos = "linux"\ngpu-index = "0"\n', "a string for gpu-index"),
    ('[targets.a]\nos = "linux"\nmanager = "brew"\n', "an unknown target manager"),
    ('cuda-libs = "latest"\n[targets.a]\nos = "linux"\n', "an unknown CUDA-library preference"),
    ('cuda-libs = true\n[targets.a]\nos = "linux"\n', "a boolean CUDA-library preference"),
    ('[targets.a]\nos = "linux"\ncuda-libs = "oldest"\n', "an unknown target CUDA-library pref"),
    ('[targets.a]\nos = "linux"\nno-gpu = "yes"\n', "a string for no-gpu"),
    ('[targets.a]\nos = "linux"\ndrvier = "535.104.05"\n', "an unknown target key"),
    # issue 26: refused at load time, not inside uv or rattler
    ('dependencies = ["pkg @ file:///etc/passwd"]\n[targets.a]\nos = "linux"\n', "a file URL"),
    ('dependencies = ["pkg@https://x.example/p.whl"]\n[targets.a]\nos = "linux"\n', "a URL"),
    ('channels = ["../../x"]\n[targets.a]\nos = "linux"\n', "a relative channel path"),
    ('channels = ["./local"]\n[targets.a]\nos = "linux"\n', "a channel in this folder"),
    ('channels = ["ftp://h/c"]\n[targets.a]\nos = "linux"\n', "an ftp channel"),
    ('tensorflow = ""\n[targets.a]\nos = "linux"\n', "an empty tensorflow"),
    ('tensorflow = "  "\n[targets.a]\nos = "linux"\n', "a blank tensorflow"),
    ('index-url = ""\n[targets.a]\nos = "linux"\n', "an empty index-url"),
    ('index-url = "../simple"\n[targets.a]\nos = "linux"\n', "a relative index-url"),
    ('dependencies = [""]\n[targets.a]\nos = "linux"\n', "an empty dependency"),
    ('channels = [" "]\n[targets.a]\nos = "linux"\n', "a blank channel"),
    ('[targets.a]\nos = "linux"\ngpu = " "\n', "a blank gpu"),
    ('[targets.a]\nhost = ""\n', "an empty host"),
]


VALID_CHANNELS = ["conda-forge", "nvidia", "conda-forge/label/cf202003",
                  "https://conda.example/channel", "file:///srv/conda/channel"]  # fmt: skip


@pytest.mark.parametrize("channel", VALID_CHANNELS)
def test_channels_that_are_names_or_urls_are_accepted_by_both(channel: str, tmp_path: Path) -> None:
    table = {**MINIMAL, "channels": [channel]}
    assert _schema_ok(table)
    assert _reader_ok(table, tmp_path)


@pytest.mark.parametrize(("text", "why"), INVALID, ids=[why for _, why in INVALID])
def test_invalid_configurations_are_rejected_by_both(text: str, why: str, tmp_path: Path) -> None:
    table = tomllib.loads(text)
    assert not _schema_ok(table), why
    assert not _reader_ok(table, tmp_path), why
