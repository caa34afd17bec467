"""Every ``tfenv resolve`` command tfenv prints reproduces the machine it was made for.

The commands are collected from what tfenv prints for a dozen machines (the personas of
the Chinese guides, a CPU runner, Blackwell, a Jetson, Macs, a container, a Kepler) through
resolve (its ways out, in ``--json`` and in text; the regenerate line of ``--emit``),
explain (its fixes), lock (a team's errors) and check-upgrade (its fixes). Each is read as
the shell it is for reads it (POSIX: :func:`shlex.split`; native Windows: the cmd.exe and
PowerShell tokenizer of ``tests/winshell.py``), then run: it must describe the same machine
(but for the one change a way out proposes) and give what its sentence promised.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.golden import team_outputs, upgrade_outputs
from tests.test_shells import _WINE, _wine_cmd
from tests.winshell import both
from tfenv.cli import main

#: the machines, as the flags of ``tfenv resolve``
MACHINES: dict[str, tuple[str, ...]] = {
    "win10-gtx1060-tf2.3-py3.9": (
        *("--os", "windows", "--gpu", "GTX 1060", "--driver", "472.12"),
        *("--tf", "2.3", "--python", "3.9"),
    ),
    "win11-3070ti-laptop-tf2.15": (
        *("--os", "windows", "--gpu", "RTX 3070 Ti Laptop", "--driver", "552.22"),
        *("--tf", "2.15"),
    ),
    "win11-3070ti-laptop-tf2.10": (
        *("--os", "windows", "--gpu", "RTX 3070 Ti Laptop", "--driver", "552.22"),
        *("--tf", "2.10", "--python", "3.10"),
    ),
    "wsl2-old-driver": (
        *("--os", "wsl2", "--gpu", "RTX 3070 Ti Laptop", "--driver", "511.79"),
        *("--tf", "2.15", "--python", "3.11"),
    ),
    "linux-3060-old-driver": (
        *("--os", "linux", "--gpu", "RTX 3060", "--driver", "470.82.01"),
        *("--python", "3.11", "--tf", "2.15"),
    ),
    "cloud-a100-container-old-driver": (
        *("--os", "linux", "--gpu", "A100", "--driver", "510.47.03"),
        *("--manager", "container", "--tf", "2.15"),
    ),
    "blackwell-5090": ("--os", "linux", "--gpu", "RTX 5090", "--driver", "570.86.10"),
    "blackwell-5090-tf2.15": (
        *("--os", "linux", "--gpu", "RTX 5090", "--driver", "570.86.10", "--tf", "2.15"),
    ),
    "jetson-orin": ("--os", "linux", "--arch", "aarch64", "--cc", "8.7", "--python", "3.10"),
    "mac-apple-silicon": ("--os", "macos", "--arch", "arm64", "--python", "3.11"),
    "mac-intel-tf2.17": ("--os", "macos", "--arch", "x86_64", "--tf", "2.17"),
    "mac-intel-amd-tf2.16": (
        *("--os", "macos", "--arch", "x86_64", "--gpu", "AMD Radeon Pro 5500M"),
        *("--python", "3.12", "--tf", "2.16"),
    ),
    "cpu-ci-runner": ("--os", "linux", "--no-gpu", "--python", "3.12", "--tf", "2.14"),
    "python-3.14-gpu": (
        *("--os", "linux", "--cc", "8.6", "--driver", "535.104.05", "--python", "3.14"),
    ),
    "kepler-k80-tf2.16": (
        *("--os", "linux", "--gpu", "Tesla K80", "--driver", "470.82.01", "--tf", "2.16"),
    ),
    "glibc-old-linux": (*("--os", "linux", "--no-gpu", "--glibc", "2.17", "--python", "3.10"),),
}

#: the facts of a machine that a command must carry (``tfenv resolve --json``'s target)
FACTS = ("os", "arch", "python", "gpu", "compute_capability", "driver", "glibc")
#: what each way out changes of the machine
CHANGES = {"way-out.wsl2": {"os", "platform"}, "way-out.python": {"python"}}


def _resolve(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    capsys.readouterr()
    code = main(["resolve", *argv, "--json"])
    out = capsys.readouterr().out
    assert code in (0, 1), (argv, out)
    found: dict[str, Any] = json.loads(out)
    return found


def read(line: str, os: str) -> list[str]:
    """``line`` as the shell of ``os`` splits it (and bash parses it: ``bash -n``)."""
    if os != "windows":
        subprocess.run(["bash", "-n", "-c", line], check=True, timeout=30)
    argv = both(line) if os == "windows" else shlex.split(line)
    assert argv[:2] == ["tfenv", "resolve"], line
    return argv


def _facts(target: dict[str, Any]) -> dict[str, Any]:
    return {k: target.get(k) for k in FACTS}


def _changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    return {k for k in FACTS if before.get(k) != after.get(k)}


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_way_out_reproduces_the_machine_and_gives_what_it_promised(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    asked = _resolve(capsys, list(MACHINES[name]))
    os = asked["target"]["os"]
    for way in asked["suggestions"]:
        fields = way["fields"]
        if "command" not in fields or "tfenv resolve" not in fields["command"]:
            continue
        line = fields["command"]
        assert line in way["sentence"]
        got = _resolve(capsys, read(line, os)[2:])
        assert _changed(asked["target"], got["target"]) <= CHANGES.get(way["message"], set())
        if way["message"] == "way-out.wsl2":
            assert got["target"]["os"] == "wsl2"
        plan = got["plan"]
        assert plan is not None, (name, line, got["conflicts"])
        if "tensorflow" in fields:
            assert plan["tensorflow"] == fields["tensorflow"], line
        if "python" in fields:
            assert plan["python"] == fields["python"], line
        if "route" in fields:
            assert plan["route"] == fields["route"], line
        if "image" in fields:
            assert plan["container"]["image"] == fields["image"], line
        if way["message"] in ("way-out.wsl2", "way-out.ngc-gpu", "way-out.ngc-cudnn"):
            assert plan["gpu"], line
        if way["message"] == "way-out.cpu":
            assert not plan["gpu"], line


def test_the_personas_get_ways_out_with_commands(capsys: pytest.CaptureFixture[str]) -> None:
    """The collection above is not empty by accident: the personas' ways out carry commands."""
    lines = [
        way["fields"]["command"]
        for name in MACHINES
        for way in _resolve(capsys, list(MACHINES[name]))["suggestions"]
        if "tfenv resolve" in way["fields"].get("command", "")
    ]
    assert len(lines) >= 15
    wsl2 = _resolve(capsys, list(MACHINES["win11-3070ti-laptop-tf2.15"]))["suggestions"]
    (line,) = [w["fields"]["command"] for w in wsl2 if w["message"] == "way-out.wsl2"]
    assert read(line, "windows")[2:] == [
        *("--tf", "2.15", "--os", "wsl2", "--arch", "x86_64"),
        *("--gpu", "NVIDIA GeForce RTX 3070 Ti Laptop GPU", "--cc", "8.6", "--driver", "552.22"),
    ]


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_the_regenerate_line_gives_the_same_plan(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    asked = _resolve(capsys, list(MACHINES[name]))
    if asked["plan"] is None:
        return
    capsys.readouterr()
    assert main(["resolve", *MACHINES[name], "--emit", str(tmp_path)]) == 0
    first = sorted(p for p in tmp_path.rglob("*") if p.is_file() and p.suffix in (".txt", ".yml"))
    header = first[0].read_text("utf-8").splitlines()[0] if first else ""
    found = re.search(r"regenerate with: (tfenv resolve .*) --emit DIR", header)
    assert found, header
    again = _resolve(capsys, read(found.group(1), asked["target"]["os"])[2:])
    assert _facts(again["target"]) == _facts(asked["target"])
    for key in ("tensorflow", "python", "route", "packages", "gpu"):
        assert again["plan"][key] == asked["plan"][key], (key, found.group(1))


# -- commands inside sentences: explain's fixes, lock's errors, check-upgrade's fixes -----

#: a `tfenv resolve` command inside a sentence: up to a closing backtick, or the full stop
#: (or ';', ')') that ends the sentence (no word of a command ends in one)
_IN_TEXT = re.compile(r"tfenv resolve(?:[^`\n]*?)(?=`|[.;)](?:\s|$)|$)", re.M)

EXPLAINED: dict[str, tuple[tuple[str, ...], str]] = {
    "windows-py3.9-tf2.3": (
        ("--os", "windows", "--python", "3.9"),
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.3.0 "
        "(from versions: 2.5.0, 2.5.1, 2.10.0)",
    ),
    "old-driver-2.15": (
        ("--os", "linux", "--gpu", "RTX 3060", "--driver", "470.82.01", "--tf", "2.15.1"),
        "CUDA driver version is insufficient for CUDA runtime version",
    ),
    "linux-py3.12-tf2.10": (
        ("--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--python", "3.12"),
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.10.0 "
        "(from versions: 2.16.1, 2.16.2, 2.17.0)\n"
        "ERROR: No matching distribution found for tensorflow==2.10.0",
    ),
    "windows-3070ti-no-gpu-2.15": (
        ("--os", "windows", "--gpu", "RTX 3070 Ti Laptop", "--driver", "552.22", "--tf", "2.15.1"),
        "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1960] Cannot dlopen some GPU "
        "libraries. Skipping registering GPU devices...",
    ),
}


def _commands_in(text: str) -> list[str]:
    """The commands in ``text``; not a mention of a flag with a placeholder (`tfenv resolve
    --emit DIR` writes ...), which names the option, not a command to run."""
    found = [m.group(0).strip() for m in _IN_TEXT.finditer(text)]
    return [line for line in found if not _PLACEHOLDERS & set(shlex.split(line))]


_PLACEHOLDERS = {"DIR", "FILE", "NAME", "X.Y", "VERSION", "SPEC", "URL"}


def _run_in_text(capsys: pytest.CaptureFixture[str], text: str, os: str) -> int:
    ran = 0
    for line in _commands_in(text):
        got = _resolve(capsys, read(line, os)[2:])
        assert got["plan"] is not None, (line, got["conflicts"])
        named = re.search(r"--tf (\S+)", line)
        if named and re.fullmatch(r"\d+\.\d+\.\d+\S*", named.group(1).strip('"')):
            assert got["plan"]["tensorflow"] == named.group(1).strip('"'), line
        ran += 1
    return ran


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_every_command_in_the_text_output_runs(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """The text output (plan warnings such as the Metal plug-in's, ways out) too."""
    capsys.readouterr()
    main(["resolve", *MACHINES[name]])
    text = capsys.readouterr().out
    os = MACHINES[name][MACHINES[name].index("--os") + 1]
    _run_in_text(capsys, text, "windows" if os == "windows" else "posix")


@pytest.mark.parametrize("name", sorted(EXPLAINED))
def test_explains_commands_reproduce_the_machine(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    flags, message = EXPLAINED[name]
    capsys.readouterr()
    main(["explain", "--no-detect", *flags, message])
    text = capsys.readouterr().out
    os = flags[flags.index("--os") + 1]
    for line in _commands_in(text):
        argv = read(line, os)
        for flag in ("--os", "--driver"):  # (a way out may propose another Python)
            if flag in flags:
                assert argv[argv.index(flag) + 1] == flags[flags.index(flag) + 1], line
        if "--gpu" in flags:
            assert "--cc" in argv, line
    _run_in_text(capsys, text, os)


def test_explain_gives_commands_for_the_personas(capsys: pytest.CaptureFixture[str]) -> None:
    found = 0
    for flags, message in EXPLAINED.values():
        capsys.readouterr()
        main(["explain", "--no-detect", *flags, message])
        found += len(_commands_in(capsys.readouterr().out))
    assert found >= 3


def test_lock_and_check_upgrade_commands_reproduce_their_targets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A team target's way out (lock's error) and check-upgrade's fix name the target's
    machine, not the one tfenv runs on, and give a plan."""
    ran = 0
    upgrades = [text for name, text in upgrade_outputs().items() if not name.endswith("-json")]
    for text in [*team_outputs().values(), *upgrades]:
        for line in _commands_in(text):
            os = "windows" if "--os windows" in line else "posix"
            argv = read(line, os)
            assert "--os" in argv, line
            assert "--arch" in argv, line
            got = _resolve(capsys, argv[2:])
            assert got["plan"] is not None, (line, got["conflicts"])
            ran += 1
    assert ran >= 5


# -- the Windows lines, in the shells themselves ------------------------------------------


def windows_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Every `tfenv resolve` line printed for the native-Windows machines (ways out, the
    plans' own commands) and by explain for them."""
    lines: list[str] = []
    for flags in MACHINES.values():
        if flags[flags.index("--os") + 1] != "windows":
            continue
        capsys.readouterr()
        main(["resolve", *flags])
        lines += _commands_in(capsys.readouterr().out)
        asked = _resolve(capsys, list(flags))
        if asked["plan"] is not None:
            lines += asked["plan"]["commands"]
    for flags, message in EXPLAINED.values():
        if flags[flags.index("--os") + 1] == "windows":
            capsys.readouterr()
            main(["explain", "--no-detect", *flags, message])
            lines += _commands_in(capsys.readouterr().out)
    return lines


@pytest.mark.skipif(_WINE is None, reason="Wine is not installed (apt-get install wine64)")
def test_the_windows_lines_pass_through_wines_cmd_unchanged(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """cmd.exe echoes each line as it hands it to the program: nothing expanded,
    redirected or split off."""
    lines = windows_lines(capsys)
    assert len(lines) >= 8
    got = _wine_cmd(tmp_path, [f"echo {line}" for line in lines])
    assert got == lines


def test_the_windows_lines_parse_as_plain_powershell_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    grammar = pytest.importorskip("tests.test_powershell_grammar")
    for line in windows_lines(capsys):
        assert grammar.ps_argv(line) == both(line), line
