"""The shared typed reads of ``kb/_fields.py`` as the loaders use them: a bad value in any
file is reported at its path, with the same words whichever file it is in."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from tfenv.errors import KBValidationError
from tfenv.kb import containers, cuda
from tfenv.kb import errors as kb_errors
from tfenv.kb._fields import Node
from tfenv.kb.platforms import PLATFORMS_FILE, load_platforms

_ENTRY = (
    "  - {{id: {id}, title: t, severity: {severity}, patterns: [boom], cause: c, fix: f,"
    " applies: {{tensorflow: '{tf}'}}, source: s, retrieved: '2026-11-30'}}\n"
)


def _errors(tmp_path: Path, *entries: dict[str, str]) -> Path:
    base = {"id": "one", "severity": "problem", "tf": ">=2.0"}
    body = "".join(_ENTRY.format(**{**base, **e}) for e in entries)
    (tmp_path / "errors.yaml").write_text("errors:\n" + body, "utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("entries", "path", "problem"),
    [
        ([{"id": "Not-Kebab"}], "errors[0].id", "is not a kebab-case id"),
        ([{"id": "a--b"}], "errors[0].id", "is not a kebab-case id"),
        ([{"severity": "fatal"}], "errors[0].severity", "'fatal' is not one of problem, warning"),
        ([{"tf": "=>2.0"}], "errors[0].applies.tensorflow", "is not a version specifier"),
        ([{}, {"id": "two"}, {}], "errors[2].id", "id 'one' appears twice"),
    ],
)
def test_broken_error_entry(
    tmp_path: Path, entries: list[dict[str, str]], path: str, problem: str
) -> None:
    with pytest.raises(KBValidationError) as caught:
        kb_errors.load(_errors(tmp_path, *entries))
    assert caught.value.path == path
    assert problem in caught.value.problem


def test_good_error_entries_load(tmp_path: Path) -> None:
    loaded = kb_errors.load(_errors(tmp_path, {}, {"id": "two-2", "severity": "harmless"}))
    assert [e.id for e in loaded] == ["one", "two-2"]
    assert str(loaded[0].applies.tensorflow) == ">=2.0"


def _platforms(tmp_path: Path, old: str, new: str) -> Path:
    text = resources.files("tfenv.data").joinpath(PLATFORMS_FILE).read_text("utf-8")
    assert old in text
    (tmp_path / PLATFORMS_FILE).write_text(text.replace(old, new, 1), "utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("old", "new", "path", "problem"),
    [
        ('applies: ">=2.14"', 'applies: "=>2.14"', "routes[0].applies", "not a version specifier"),
        ("route: pip\n", "route: teleport\n", "routes[0].route", "'teleport' is not one of"),
        ("id: conda-cudatoolkit-pip", "id: pip-and-cuda", "routes[1].id", "appears twice"),
    ],
)
def test_broken_route(tmp_path: Path, old: str, new: str, path: str, problem: str) -> None:
    with pytest.raises(KBValidationError) as caught:
        load_platforms(_platforms(tmp_path, old, new))
    assert caught.value.file == PLATFORMS_FILE
    assert caught.value.path == path
    assert problem in caught.value.problem


def test_duplicate_keys_are_named_where_they_repeat(tmp_path: Path) -> None:
    toolkit = {
        "version": "12.0",
        "min_driver": {"linux": None, "windows": None},
        "compute_capabilities": {"min": None, "max": None},
        "source": "s",
        "retrieved": "2026-11-30",
    }
    doc = {"toolkits": [toolkit, dict(toolkit)], "families": [], "driver_branches": []}
    with pytest.raises(KBValidationError, match=r"duplicate toolkit 12\.0") as caught:
        cuda.parse(Node(doc, cuda.CUDA_FILE))
    assert caught.value.path == "toolkits[1].version"

    text = resources.files("tfenv.data").joinpath(containers.CONTAINERS_FILE).read_text("utf-8")
    assert "  - release: '23.01'\n" in text
    (tmp_path / containers.CONTAINERS_FILE).write_text(
        text.replace("  - release: '23.01'\n", "  - release: '25.02'\n", 1), "utf-8"
    )
    with pytest.raises(KBValidationError, match=r"duplicate NGC release 25\.02") as caught:
        containers.load(tmp_path)
    assert caught.value.path == "ngc[1]"


def test_opt_texts_and_opt_versions() -> None:
    assert Node(None, "f").opt_texts() is None
    assert Node("one", "f").opt_texts() == ("one",)
    assert Node(["a", "b"], "f").opt_texts() == ("a", "b")
    assert Node(None, "f").opt_versions() is None
    assert [str(v) for v in Node(["12.0", "11.8"], "f").opt_versions() or ()] == ["12.0", "11.8"]
    with pytest.raises(KBValidationError, match="expected a list"):
        Node({"a": 1}, "f", "x").opt_texts()


def test_the_generated_gpu_table_must_cite_its_readme() -> None:
    from tfenv.kb import gpus
    from tfenv.kb._files import load_node, read_data

    readme = dict(read_data(gpus.README_FILE))
    readme["source"] = " "
    with pytest.raises(KBValidationError, match="non-empty source") as caught:
        gpus.parse(load_node(gpus.GPUS_FILE), Node(readme, gpus.README_FILE))
    assert caught.value.file == gpus.README_FILE
