"""`tfenv resolve` and `tfenv explain` read as Chinese end to end for common machines.

For each machine of the seed guides (Windows 10 + GTX 1060 + TF 2.3, an RTX 3070 Ti Laptop
under WSL2, Linux without a GPU, an H100 on driver 535, a K80, an M2 Mac) the Chinese output
of resolve and of explain (a real message of that machine, tests/data/errors/) keeps no
English sentence: once commands, package names, versions, paths, URLs, the knowledge base's
source citations, the GPU's name and backticked and quoted spans are taken out, no run of
three or more ASCII words is left.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tfenv.cli import main
from tfenv.kb import KnowledgeBase

ERRORS = Path(__file__).parent / "data" / "errors"
SNAPSHOT = Path(__file__).parent / "kb_snapshot"

#: machine -> (resolve flags, the error entry whose real message explain reads)
MACHINES = {
    "windows10-gtx1060-tf2.3": (
        ["--os", "windows", "--gpu", "GTX 1060", "--tf", "2.3"],
        "windows-cuda-dll-missing",
    ),
    "wsl2-rtx3070ti-laptop": (
        ["--os", "wsl2", "--gpu", "RTX 3070 Ti Laptop", "--driver", "560.94"],
        "linux-cudnn-missing",
    ),
    "linux-no-gpu": (["--os", "linux", "--no-gpu"], "no-cuda-drivers"),
    "linux-h100-535": (
        ["--os", "linux", "--gpu", "H100", "--driver", "535.104.05"],
        "driver-insufficient",
    ),
    "linux-k80": (
        ["--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01"],
        "compute-capability-too-low",
    ),
    "m2-mac": (["--os", "macos", "--arch", "arm64"], "metal-plugin-symbol-not-found"),
}

#: names that are several words and stay as they are (products, the GPU at hand)
_NAMES = (
    r"NVIDIA GeForce [\w ]+?(?= ?[（(]|$)",
    r"NVIDIA [A-Z]\d+\w*",
    r"Tesla K80",
    r"Microsoft Visual C\+\+ [\d-]+ Redistributable \(x64\)",
    r"NVIDIA GPU Computing Toolkit",
    r"GeForce Experience",
    r"NVIDIA Container Toolkit",
)
_SPANS = (
    r"`[^`]*`",  # backticked
    r"\u201c[^\u201d]*\u201d",  # quoted the Chinese way
    r"'[^'\n]*'",  # quoted
    r"\"[^\"\n]*\"",
    r"https?://\S+",  # URLs
    r"\bpython -m \S+(?: \S+)?",  # commands in a sentence (python -m venv NAME)
    r"\S*[/\\=<>_@:$%*]\S*",  # paths, commands' options, pins, variables
    r"\S+\.(?:dll|so|exe|zip|h|lib|dylib|bat|ps1|sh)\b",
)
_ASCII_RUN = re.compile(r"[A-Za-z][\w.+'-]*(?:[ ,]+[A-Za-z][\w.+'-]*){2,}")
#: lines that are commands (Install, Environment, Verify blocks): no prose in them
_COMMAND_LINE = re.compile(r"^\s+(?:python|pip|conda|set |\$env:|export |source |docker )")


def _children(value: object) -> Iterator[object]:
    if isinstance(value, dict):
        yield from value.values()
    elif isinstance(value, (tuple, list, frozenset, set)):
        yield from value
    elif hasattr(value, "__dataclass_fields__"):
        for name in value.__dataclass_fields__:
            yield getattr(value, name, None)


def _citations(value: object, seen: set[int]) -> Iterator[str]:
    """The ``sources`` of every record below ``value``."""
    if id(value) in seen or isinstance(value, (str, bytes, int, float, type(None))):
        return
    seen.add(id(value))
    sources = getattr(value, "sources", None)
    if isinstance(sources, tuple) and all(isinstance(s, str) for s in sources):
        yield from sources
    for child in _children(value):
        yield from _citations(child, seen)


def _sources(kb: KnowledgeBase) -> list[str]:
    """Every source citation the knowledge base can print (longest first)."""
    seen: set[int] = set()
    found: set[str] = set()
    for name in ("builds", "cuda", "cudnn", "metal", "runtime", "known_issues", "errors"):
        found.update(_citations(getattr(kb, name), seen))
    return sorted(found, key=len, reverse=True)


def english_left(text: str, sources: list[str], quoted: str = "") -> list[str]:
    """The runs of three or more ASCII words left once names, citations and code are out
    (and any run that ``quoted``, the pasted message, holds: explain quotes it)."""
    left = []
    message = _words(_stripped(quoted, [])) if quoted else ""
    for line in text.splitlines():
        if _COMMAND_LINE.match(line):
            continue
        runs = _ASCII_RUN.finditer(_stripped(line, sources))
        left += [m.group(0) for m in runs if not message or _words(m.group(0)) not in message]
    return left


def _stripped(line: str, sources: list[str]) -> str:
    for source in sources:
        line = line.replace(source, " ")
    for pattern in (*_NAMES, *_SPANS):
        line = re.sub(pattern, " ", line)
    return line


def _words(text: str) -> str:
    return " ".join(re.findall(r"[A-Za-z][\w.+'-]*", text))


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = main(argv)
    out = capsys.readouterr().out
    assert code == 0, out
    return out


@pytest.fixture(scope="module")
def sources() -> list[str]:
    return _sources(KnowledgeBase(SNAPSHOT))


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_resolve_reads_as_chinese(
    machine: str, sources: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    flags, _entry = MACHINES[machine]
    out = _run(capsys, ["resolve", "--lang", "zh", *flags])
    assert re.search(r"[\u4e00-\u9fff]", out)
    assert english_left(out, sources) == []


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_explain_reads_as_chinese(
    machine: str, sources: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    flags, entry = MACHINES[machine]
    message = "\n".join(
        line
        for line in (ERRORS / f"{entry}.txt").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    )
    machine_flags = [f for f in flags if f not in ("--tf",)]
    if "--tf" in flags:
        i = machine_flags.index("2.3") if "2.3" in machine_flags else -1
        if i >= 0:
            del machine_flags[i]
    out = _run(capsys, ["explain", "--lang", "zh", message, *machine_flags])
    assert re.search(r"[\u4e00-\u9fff]", out)
    assert english_left(out, sources, message) == []


#: recorded messages whose answer tfenv works out (conda, containers, pip's and uv's
#: missing or unfit wheels, backtracking, conflicts, tensorflow-gpu, the runtime bounds), and
#: the machine it answers for
ANSWERED = (
    ("conda-cudatoolkit-12", ["--os", "linux", "--gpu", "RTX 4090", "--driver", "550.54.14"]),
    ("conda-cudatoolkit-12", ["--os", "windows"]),
    ("conda-no-tensorflow", ["--os", "windows"]),
    ("conda-python-conflict", ["--os", "linux", "--python", "3.13"]),
    (
        "container-cuda-requirement",
        ["--os", "linux", "--gpu", "RTX 4090", "--driver", "535.104.05"],
    ),
    ("container-no-gpu-runtime", ["--os", "linux"]),
    ("container-no-host-driver", ["--os", "wsl2"]),
    ("pip-no-matching-distribution", ["--no-detect"]),
    ("pip-no-matching-distribution", ["--os", "windows", "--python", "3.13"]),
    ("uv-no-matching-wheel", ["--no-detect"]),
    ("protobuf-descriptors", ["--no-detect"]),
    ("numpy2-abi", ["--os", "linux", "--python", "3.11", "--tf", "2.15"]),
    ("pip-unsupported-wheel", ["--os", "linux", "--python", "3.12"]),
    ("tensorflow-gpu-removed", ["--os", "windows"]),
    ("tensorflow-gpu-removed", ["--os", "linux", "--python", "3.11"]),
    ("pip-backtracking", ["--os", "linux", "--gpu", "RTX 4090", "--driver", "550.54.14"]),
    ("pip-dependency-conflict", ["--os", "linux", "--python", "3.11"]),
    ("uv-universal-resolution", ["--no-detect"]),
)


@pytest.mark.parametrize(("entry", "flags"), ANSWERED, ids=[f"{e}{f[:2]}" for e, f in ANSWERED])
def test_worked_out_answers_read_as_chinese(
    entry: str, flags: list[str], sources: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    message = "\n".join(
        line
        for line in (ERRORS / f"{entry}.txt").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    )
    out = _run(capsys, ["explain", "--lang", "zh", message, *flags])
    assert "原因：" in out
    assert "行：" in out
    assert english_left(out, sources, message) == []


def test_the_smi_header_answer_reads_as_chinese(
    sources: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """The nvidia-smi header's facts (the knowledge base's cause says "pip CUDA wheel")."""
    message = (ERRORS / "nvidia-smi-header.txt").read_text(encoding="utf-8")
    out = _run(capsys, ["explain", "--lang", "zh", message, "--os", "linux", "--tf", "2.15"])
    facts = "\n".join(line for line in out.splitlines() if line.startswith("  事实："))
    assert "R610+" in facts
    assert "所有系列" in facts
    assert english_left(facts, sources, message) == []


def test_the_check_finds_an_english_sentence() -> None:
    text = "原因：the driver is too old for this release。`pip install tensorflow`"
    assert english_left(text, []) == ["the driver is too old for this release"]
    assert english_left("安装 NVIDIA GeForce GTX 1060（计算能力 6.1）", []) == []


def test_cached_option_problems_are_worded_when_shown() -> None:
    """The release options are derived once and cached on disk: what they say is kept as a
    template and its values, worded in the language of the run that shows it."""
    import pickle

    from tfenv.i18n import using
    from tfenv.kb.releases import Problem

    problem = Problem.of("tensorflow {version} has no and-cuda extra", version="2.13.1")
    kept = pickle.loads(pickle.dumps(problem))
    assert kept.text() == "tensorflow 2.13.1 has no and-cuda extra"
    with using("zh"):
        assert kept.text() == "tensorflow 2.13.1 没有 and-cuda extra"


@pytest.mark.parametrize("machine", sorted(MACHINES))
@pytest.mark.parametrize("tf", [None, "2.15"])
def test_json_is_byte_identical_in_both_languages(
    machine: str, tf: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json is machine output: English sentences beside their codes, whatever --lang."""
    flags = [f for f in MACHINES[machine][0] if f not in ("--tf", "2.3")]
    flags += ["--tf", tf] if tf else []
    main(["resolve", "--json", *flags])
    english = capsys.readouterr().out
    main(["resolve", "--json", "--lang", "zh", *flags])
    assert capsys.readouterr().out == english
