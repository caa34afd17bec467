"""Every reason and warning of a plan carries a code from a closed list (models/sentence.py,
docs/json.md), and --json writes it, with the template's named values, beside the sentence."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.golden import CASES, resolve_argv
from tfenv.cli import main
from tfenv.models.sentence import CODES, Sentence, coded, said

DOCS = Path(__file__).resolve().parent.parent / "docs" / "json.md"


def _cases() -> list[tuple[str, dict[str, Any]]]:
    found = []
    for path in sorted(CASES.glob("*.yaml")):
        if path.name == "synthetic.yaml":
            continue
        for case in yaml.safe_load(path.read_text("utf-8")):
            if case["expect"].get("status") != "unsatisfiable":
                found.append((f"{path.stem}/{case['id']}", case["args"]))
    return found


CASE_LIST = _cases()


def _resolve_json(argv: list[str]) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*argv, "--json"])
    assert out.getvalue(), f"tfenv {' '.join(argv)} --json: exit {code}, {err.getvalue()}"
    doc: dict[str, Any] = json.loads(out.getvalue())
    return doc


def test_the_cases_are_many() -> None:
    assert len(CASE_LIST) > 100


@pytest.mark.slow
def test_every_reason_and_warning_is_coded() -> None:
    seen: set[str] = set()
    for name, args in CASE_LIST:
        doc = _resolve_json(resolve_argv(args))
        plan = doc["plan"]
        if plan is None:
            continue
        for prose, codes in (("reasons", "reason_codes"), ("warnings", "warning_codes")):
            assert len(plan[prose]) == len(plan[codes]), name
            for sentence, code in zip(plan[prose], plan[codes]):
                assert code["code"] in CODES, (name, sentence)
                assert all(isinstance(v, str) for v in code["params"].values()), name
                seen.add(code["code"])
    # the cases reach most codes: a code nothing emits any more is noticed
    assert len(seen) >= 25, sorted(set(CODES) - seen)


def test_a_code_carries_the_templates_values() -> None:
    doc = _resolve_json(
        ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--tf", "2.15"]
    )
    codes = {c["code"]: c["params"] for c in doc["plan"]["reason_codes"]}
    assert codes["tensorflow"]["version"] == "2.15.1"
    assert codes["driver-floor"]["driver"] == "535.104.05"
    assert codes["route"]["route"] == doc["plan"]["route"]


def test_json_codes_are_the_same_in_chinese() -> None:
    argv = ["resolve", "--os", "windows", "--gpu", "GTX 1060", "--driver", "452.06", "--tf", "2.3"]
    assert _resolve_json([*argv, "--lang", "zh"]) == _resolve_json(argv)


def test_a_sentence_is_its_text_and_keeps_its_code_through_pickle() -> None:
    import pickle

    s = said("driver-floor", "Driver >= {floor}: {why}.", floor="525.60.13", why="CUDA 12")
    assert s == "Driver >= 525.60.13: CUDA 12."
    assert isinstance(s, str)
    kept = pickle.loads(pickle.dumps(s))
    assert isinstance(kept, Sentence)
    assert kept.to_dict() == {
        "code": "driver-floor",
        "params": {"floor": "525.60.13", "why": "CUDA 12"},
    }


def test_an_unknown_code_is_refused() -> None:
    with pytest.raises(ValueError, match="not a sentence code"):
        said("no-such-code", "text")
    with pytest.raises(ValueError, match="not a sentence code"):
        coded("no-such-code", "text")


def test_docs_list_every_code() -> None:
    # the plan's codes: the tables before doctor's (tests/test_doctor_codes.py reads that one)
    text = DOCS.read_text("utf-8").split("## Doctor's findings")[0]
    documented = set(re.findall(r"^\| `([a-z0-9-]+)` \|", text, flags=re.M))
    assert documented == set(CODES)


def test_docs_list_every_conflict_and_way_out_id() -> None:
    from tfenv.models.messages import TEMPLATES

    text = DOCS.read_text("utf-8")
    for prefix in ("conflict.", "way-out."):
        wanted = {k for k in TEMPLATES if k.startswith(prefix)}
        documented = {k for k in re.findall(r"`([a-z0-9.+-]+)`", text) if k.startswith(prefix)}
        assert documented == wanted
