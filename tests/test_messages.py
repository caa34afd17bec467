"""Conflicts, ways out and team blockers are worded in one module (tfenv/models/messages.py):
whole-sentence templates keyed by message id, looked up in one function."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from tfenv.cli import main
from tfenv.models import messages
from tfenv.models.conflict import Conflict, Suggestion, TargetFact

SRC = Path(__file__).resolve().parent.parent / "src" / "tfenv"
UNSAT = ["resolve", "--os", "linux", "--cc", "8.6", "--driver", "470.82.01", "--python", "3.11"]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_template_is_a_format_string_with_named_fields() -> None:
    for message_id, template in messages.TEMPLATES.items():
        names = _fields(template)
        assert all(n.isidentifier() for n in names), message_id
        messages.render(message_id, dict.fromkeys(names, "x"))


def test_every_message_id_the_code_names_has_a_template() -> None:
    pattern = re.compile(r'"((?:conflict|way-out|team|upgrade|failure|fact)\.[a-z0-9.+-]+)"')
    named = set()
    for path in SRC.rglob("*.py"):
        if path.name != "messages.py":
            named |= set(pattern.findall(path.read_text("utf-8")))
    assert named, "the scan found no message id"
    assert named <= set(messages.TEMPLATES), named - set(messages.TEMPLATES)


@pytest.mark.parametrize(
    "phrase",
    [
        "fail the same way",
        "fails the same way",
        "fits this machine (the newest that does)",
        "No TensorFlow version runs on every target",
        "It does not resolve here",
        "is a candidate for",
        "pass --pre to consider them",
    ],
)
def test_the_wording_lives_only_in_messages(phrase: str) -> None:
    found = [p.name for p in SRC.rglob("*.py") if phrase in p.read_text("utf-8")]
    assert found == ["messages.py"]


def test_a_translation_replaces_only_the_template_lookup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every conflict and way out the text output prints comes through ``template``."""
    main([*UNSAT, "--tf", "2.15"])
    before = capsys.readouterr().out
    monkeypatch.setattr(messages, "template", lambda message_id: f"<{message_id}>")
    main([*UNSAT, "--tf", "2.15"])
    after = capsys.readouterr().out
    listed = [line for line in after.splitlines() if line.startswith("  - ")]
    assert listed, after
    assert all(re.fullmatch(r"  - <[a-z0-9.+-]+>", line) for line in listed), listed
    assert "  - <conflict.release+older-many+fact>" in listed
    assert "  - <way-out.other-tf>" in listed
    assert before.splitlines()[0] == after.splitlines()[0]  # the rest is not a message


def test_conflict_variants() -> None:
    fact = TargetFact("driver", "this machine's driver is 470.82.01", "detected", "470.82.01")
    base = Conflict(
        "conflict.release",
        "driver",
        topic="The NVIDIA driver is too old",
        release="TensorFlow 2.15.1 (CUDA build)",
        version="2.15.1",
        requirements=("an NVIDIA driver >= 525.60.13",),
    )
    head = "The NVIDIA driver is too old: TensorFlow 2.15.1 (CUDA build) needs an NVIDIA driver"
    assert base.sentence == f"{head} >= 525.60.13."
    one = Conflict(**{**base.__dict__, "older": ("2.15.0",), "fact": fact})
    assert one.sentence == (
        f"{head} >= 525.60.13; the older release 2.15.0 fails the same way, but this "
        "machine's driver is 470.82.01 (detected)."
    )
    many = Conflict(**{**base.__dict__, "older": ("2.15.0", "2.15.0.post1")})
    assert many.sentence.endswith("; 2 older releases (2.15.0 to 2.15.0.post1) fail the same way.")
    assert many.to_dict()["sentence"] == many.sentence
    command = "tfenv resolve --tf 2.15 --os linux --arch x86_64 --cc 8.6 --allow-cpu"
    assert Suggestion.of("way-out.cpu", tensorflow="2.15.1", command=command).to_dict() == {
        "message": "way-out.cpu",
        "fields": {"tensorflow": "2.15.1", "command": command},
        "sentence": "Accept a CPU-only plan with --allow-cpu: TensorFlow 2.15.1 installs but "
        f"will not use the GPU: {command}.",
    }
