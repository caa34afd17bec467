"""`tfenv explain --lang zh` leaves no English sentence, for every recorded message.

Every message of tests/data/errors/ (one per catalogue entry, and the real logs under
real/) is explained in Chinese for a machine only the text describes; the catalogue's own
messages also for five machines that take the answers down their other branches (a Linux
machine without a GPU on TensorFlow 2.15, an H100 on driver 525, an RTX 5090 on 570, the
Windows 10 + GTX 1060 + TF 2.3 machine of the guides, an M2 Mac). What may stay in ASCII:
commands, package names, versions, paths, URLs, source citations, product names, and what
the pasted text itself says (explain quotes it: the ``行：`` excerpt and quoted spans).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_kb_translations import KB_PARTS, _children
from tests.test_zh_output import english_left
from tfenv.cli import main
from tfenv.explain.requirements import PLATFORM_TITLES
from tfenv.kb import KnowledgeBase
from tfenv.kb._fields import Provenance

ERRORS = Path(__file__).parent / "data" / "errors"
SNAPSHOT = Path(__file__).parent / "kb_snapshot"

#: machines whose facts take the answers down their other branches
MACHINES = {
    "linux-cpu-tf2.15": ["--os", "linux", "--glibc", "2.17", "--tf", "2.15"],
    "h100-525-tf2.16": ["--os", "linux", "--gpu", "H100", "--driver", "525.60.13", "--tf", "2.16"],
    "rtx5090-570-tf2.18": [
        *("--os", "linux", "--gpu", "RTX 5090", "--driver", "570.86.10", "--tf", "2.18"),
    ],
    "windows10-gtx1060-tf2.3": ["--os", "windows", "--gpu", "GTX 1060", "--tf", "2.3"],
    "m2-mac": ["--os", "macos", "--arch", "arm64"],
}

#: several-word names that stay as they are, and commands inside a sentence
_KEPT = tuple(
    re.compile(p)
    for p in (
        *(re.escape(t) for t in sorted(PLATFORM_TITLES.values(), key=len, reverse=True)),
        r"Microsoft Visual C\+\+(?: [\d-]+)? Redistributable(?: \(x64\))?",
        r"TensorFlow C API",
        r"pip CUDA wheel",
        r"DLL load failed",  # the error's own words, named in a title
        r"\bsudo [ -~]+?(?=[\uff0c\u3002\uff1b\uff09]|$)",  # sudo ... up to Chinese punctuation
    )
)
_EXCERPT = "  行："
_CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]+")


def _messages() -> list[Path]:
    return sorted(ERRORS.rglob("*.txt"))


def _catalogue_messages() -> list[Path]:
    return sorted(ERRORS.glob("*.txt"))


def _provenances(kb: KnowledgeBase) -> Iterator[Provenance]:
    seen: set[int] = set()
    todo: list[object] = [getattr(kb, name) for name in KB_PARTS]
    while todo:
        value = todo.pop()
        if id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
            continue
        seen.add(id(value))
        if isinstance(value, Provenance):
            yield value
        todo.extend(_children(value))


@pytest.fixture(scope="module")
def sources() -> list[str]:
    """Every source citation the knowledge base holds, longest first."""
    found = {s for p in _provenances(KnowledgeBase(SNAPSHOT)) for s in p.sources}
    return sorted(found, key=len, reverse=True)


def _message(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return "\n".join(line for line in text.splitlines() if not line.startswith("#"))


def english_sentences(out: str, sources: list[str], message: str) -> list[str]:
    """The English runs :func:`english_left` finds in ``out`` outside the excerpts and the
    names and commands that stay as they are."""
    lines = [line for line in out.splitlines() if not line.startswith(_EXCERPT)]
    text = "\n".join(lines)
    for pattern in _KEPT:
        text = pattern.sub(" ", text)
    # Chinese text ends a run: two ASCII words on either side of it are not one sentence
    return english_left(_CHINESE.sub("\n", text), sources, message)


def _explain(capsys: pytest.CaptureFixture[str], message: str, flags: list[str]) -> str:
    code = main(["explain", "--lang", "zh", message, *flags])
    out = capsys.readouterr().out
    assert code in (0, 1), out  # 1: a problem was found
    return out


@pytest.mark.parametrize("path", _messages(), ids=lambda p: str(p.relative_to(ERRORS)))
def test_every_message_is_answered_in_chinese(
    path: Path, sources: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    message = _message(path)
    out = _explain(capsys, message, ["--no-detect"])
    assert english_sentences(out, sources, message) == []


@pytest.mark.slow
@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_the_catalogue_is_answered_in_chinese_for_machines(
    machine: str, sources: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    left = {}
    for path in _catalogue_messages():
        message = _message(path)
        out = _explain(capsys, message, MACHINES[machine])
        found = english_sentences(out, sources, message)
        if found:
            left[path.stem] = found
    assert left == {}


def test_the_check_finds_an_untranslated_answer() -> None:
    out = (
        "  行：      ptxas fatal : Value 'sm_90a' is not defined for option 'gpu-name'\n"
        "  事实：    The ptxas that ran: ptxas (the first one on PATH).\n"
        "  解决办法：重启（sudo rmmod nvidia_uvm nvidia，然后 sudo modprobe nvidia）。\n"
    )
    assert english_sentences(out, [], "") == ["The ptxas that   ptxas", "the first one on PATH"]
    mixed = "  事实：    通过 PTX JIT 运行（compute_80）；只有 XLA 编译"
    assert english_sentences(mixed, [], "") == []
