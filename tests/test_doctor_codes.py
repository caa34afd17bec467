"""Every doctor finding is a value a script reads by code: its title, detail and fix are
sentences with a code from a closed list (models/doctor_codes.py, docs/json.md) and the
template's named values, worded where the finding is made by ``said``; ``doctor --json``
writes the codes beside the sentences, the same bytes in every interface language."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.test_doctor import _fake_gpu_env
from tfenv.cli import main
from tfenv.doctor.findings import Finding
from tfenv.models.doctor_codes import DOCTOR_CODES
from tfenv.models.sentence import CODES, said

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "json.md"
# the modules that make findings: doctor's, and tfenv install's verification
MAKERS = (*sorted((SRC / "doctor").glob("*.py")), SRC / "install" / "verify.py")


def test_a_finding_made_from_a_pre_worded_string_is_refused() -> None:
    ok = said("env", "Environment variables that matter")
    Finding("env", "ok", ok)  # a coded sentence: fine
    with pytest.raises(TypeError, match="not a coded sentence"):
        Finding("env", "ok", "Environment variables that matter")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="its detail"):
        Finding("env", "ok", ok, "none set")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="its fix"):
        Finding("env", "warning", ok, fix="unset CUDA_VISIBLE_DEVICES")  # type: ignore[arg-type]


def _worded(node: ast.expr) -> bool:
    """Whether an argument is text worded on the spot: a string, an f-string, ``_()``,
    ``ngettext()``, a ``.format()``/``.join()`` call or a concatenation."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value != ""  # "": no detail
    if isinstance(node, (ast.JoinedStr, ast.BinOp)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("_", "ngettext", "str"):
            return True
        if isinstance(func, ast.Attribute) and func.attr in ("format", "join"):
            return True
    if isinstance(node, ast.IfExp):
        return _worded(node.body) or _worded(node.orelse)
    if isinstance(node, ast.BoolOp):
        return any(_worded(v) for v in node.values)
    return False


def _worded_findings(source: str) -> list[int]:
    """The lines where a ``Finding(...)`` gets a worded title, detail or fix."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Finding"):
            continue
        texts = list(node.args[2:]) + [
            k.value for k in node.keywords if k.arg in ("title", "detail", "fix")
        ]
        if any(_worded(t) for t in texts):
            out.append(node.lineno)
    return out


def test_no_finding_is_made_from_a_pre_worded_string() -> None:
    found = []
    for path in MAKERS:
        for line in _worded_findings(path.read_text("utf-8")):
            found.append(f"{path.relative_to(SRC)}:{line}")
    assert found == []


def test_the_static_guard_can_fail() -> None:
    assert _worded_findings('Finding("env", "ok", _("Environment variables"))')
    assert _worded_findings('Finding(fid, "ok", f"{pin.name} {have}")')
    assert _worded_findings('Finding(fid, "ok", t, _("x {a}").format(a=1))')
    assert _worded_findings('Finding(fid, "ok", t, fix=", ".join(fixes))')
    assert _worded_findings('Finding(fid, "ok", t, where or _("none"))')
    assert not _worded_findings('Finding("env", "ok", said("env", _("Environment")), "")')
    assert not _worded_findings("Finding(fid, status, title, detail, fix)")


def test_the_makers_use_only_doctor_codes() -> None:
    used: set[str] = set()
    for path in MAKERS:
        used |= set(re.findall(r'(?:said|coded)\(\s*"([a-z0-9-]+)"', path.read_text("utf-8")))
    assert used
    assert used <= set(DOCTOR_CODES)


def test_doctor_codes_and_plan_codes_are_apart() -> None:
    assert not set(DOCTOR_CODES) & set(CODES)


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def test_docs_list_every_doctor_code() -> None:
    text = _section(DOCS.read_text("utf-8"), "## Doctor's findings")
    documented = re.findall(r"^\| `([a-z0-9-]+)` \|", text, flags=re.M)
    assert len(documented) == len(set(documented))
    assert set(documented) == set(DOCTOR_CODES)


def _doctor_json(argv: list[str]) -> tuple[str, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["doctor", "--json", *argv])
    assert out.getvalue(), err.getvalue()
    return out.getvalue(), json.loads(out.getvalue())


def test_doctor_json_carries_the_codes_the_same_in_chinese(tmp_path: Path) -> None:
    prefix = _fake_gpu_env(tmp_path)
    argv = ["--prefix", str(prefix), "--gpu", "RTX 3090", "--driver", "535.104.05"]
    text, doc = _doctor_json(argv)
    assert _doctor_json([*argv, "--lang", "zh"])[0] == text
    findings = doc["findings"]
    assert len(findings) > 10
    for f in findings:
        for part in ("title", "detail", "fix"):
            code = f[f"{part}_code"]
            if not f[part]:
                assert code is None, f
                continue
            assert code["code"] in DOCTOR_CODES, f
            assert all(isinstance(v, str) for v in code["params"].values()), f
    by_id = {f["id"]: f for f in findings}
    driver = by_id["driver"]["title_code"]
    assert driver["code"] == "driver-ok"
    assert driver["params"]["have"] == "535.104.05"
    missing = by_id["pin-nvidia-cublas-cu12"]
    assert missing["title_code"] == {
        "code": "pin-missing",
        "params": {"name": "nvidia-cublas-cu12"},
    }
    assert missing["fix_code"]["code"] == "fix-pip-install-pin"
