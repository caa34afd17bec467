"""Golden output: what tfenv prints, byte for byte, for a fixed set of questions.

Every unsatisfiable case of ``tests/cases/resolve*.yaml`` and ``containers.yaml`` (the
conflict and way-out wording), a sample of satisfiable ones, team blockers and
check-upgrade findings: run on the frozen snapshot of the knowledge base, compared by
``tests/test_golden.py`` with ``tests/golden/*.txt``.

Regenerate with ``python -m tests.golden`` (only when a change of wording is intended: review
the diff).
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from tests import snapshot

CASES = Path(__file__).parent / "cases"
OUT = Path(__file__).parent / "golden"

TEAM = """
python = "3.11"
[targets.cluster]
os = "linux"
cc = "8.0"
driver = "535.104.05"
[targets.mac]
os = "macos"
arch = "arm64"
[targets.cpu]
os = "linux"
no-gpu = true
"""

#: team configurations whose `tfenv lock --dry-run` has blockers
TEAMS: dict[str, str] = {
    "windows-gpu-blocks-2.15": 'tensorflow = "2.15"\n'
    + TEAM
    + '[targets.wingpu]\nos = "windows"\ncc = "8.6"\n',
    "old-driver-blocks-everything": TEAM
    + '[targets.old]\nos = "linux"\ncc = "8.6"\ndriver = "396.26"\n',
    "no-common-version": (
        '[targets.k80]\nos = "linux"\ngpu = "Tesla K80"\ndriver = "470.82.01"\npython = "3.10"\n'
        '[targets.new]\nos = "linux"\nno-gpu = true\npython = "3.12"\n'
    ),
    "kepler-and-2.16": 'tensorflow = "2.16"\n'
    + TEAM
    + '[targets.k80]\nos = "linux"\ngpu = "Tesla K80"\ndriver = "470.82.01"\n',
}

_OLD_DRIVER_TO_2_15: tuple[str, ...] = ("--from", "2.14", "--to", "2.15", "--os", "linux")
_OLD_DRIVER_TO_2_15 += ("--cc", "8.6", "--driver", "470.82.01", "--python", "3.11")

#: check-upgrade questions (text output)
UPGRADES: dict[str, tuple[str, ...]] = {
    "driver-too-old-for-2.15": _OLD_DRIVER_TO_2_15,
    "driver-too-old-for-2.15-json": (*_OLD_DRIVER_TO_2_15, "--json"),
    "kepler-to-2.16": (
        "--from",
        "2.14",
        "--to",
        "2.16",
        "--os",
        "linux",
        "--gpu",
        "Tesla K80",
        "--driver",
        "470.82.01",
        "--python",
        "3.10",
    ),
    "windows-gpu-to-2.11": (
        "--from",
        "2.10",
        "--to",
        "2.11",
        "--os",
        "windows",
        "--cc",
        "8.6",
        "--driver",
        "535.104.05",
        "--python",
        "3.10",
    ),
    "glibc-2.17-to-2.21": (
        "--from",
        "2.20",
        "--to",
        "2.21",
        "--os",
        "linux",
        "--cc",
        "8.6",
        "--driver",
        "535.104.05",
        "--python",
        "3.11",
        "--glibc",
        "2.17",
    ),
    "python-3.7-to-2.12": (
        "--from",
        "2.11",
        "--to",
        "2.12",
        "--os",
        "linux",
        "--no-gpu",
        "--python",
        "3.7",
    ),
    "conda-on-windows-to-2.12": (
        "--from",
        "2.10",
        "--to",
        "2.12",
        "--os",
        "windows",
        "--no-gpu",
        "--python",
        "3.10",
        "--manager",
        "conda",
    ),
    "conda-on-windows-json": (
        "--from",
        "2.10",
        "--to",
        "2.12",
        "--os",
        "windows",
        "--no-gpu",
        "--python",
        "3.10",
        "--manager",
        "conda",
        "--json",
    ),
    "macos-x86-to-2.17": (
        "--from",
        "2.15",
        "--to",
        "2.17",
        "--os",
        "macos",
        "--arch",
        "x86_64",
        "--python",
        "3.11",
    ),
    "cpu-box-to-2.16": (
        "--from",
        "2.13",
        "--to",
        "2.16",
        "--os",
        "linux",
        "--no-gpu",
        "--glibc",
        "2.35",
    ),
}

_FLAGS = ("allow_cpu", "no_gpu", "pre")


def resolve_argv(args: dict[str, Any]) -> list[str]:
    """``tfenv resolve`` flags of a case's ``args``."""
    argv = ["resolve"]
    for key, value in args.items():
        flag = "--" + key.replace("_", "-")
        if key in _FLAGS:
            if value:
                argv.append(flag)
        else:
            argv += [flag, str(value)]
    return argv


def _run(argv: list[str]) -> str:
    from tfenv.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return f"$ tfenv {' '.join(argv)}\n[exit {code}]\n{out.getvalue()}{err.getvalue()}"


def resolve_outputs() -> dict[str, str]:
    out: dict[str, str] = {}
    for path in sorted(CASES.glob("*.yaml")):
        if path.name == "synthetic.yaml":
            continue
        for n, case in enumerate(yaml.safe_load(path.read_text("utf-8"))):
            unsat = case["expect"].get("status") == "unsatisfiable"
            if unsat or n % 10 == 0:
                out[f"{path.stem}/{case['id']}"] = _run(resolve_argv(case["args"]))
    return out


def team_outputs() -> dict[str, str]:
    out: dict[str, str] = {}
    for name, config in TEAMS.items():
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "tfenv.toml").write_text(config, "utf-8")
            text = _run(["lock", "--config", tmp, "--offline", "--quiet"])
        out[name] = text.replace(tmp, "<project>")
    return out


def upgrade_outputs() -> dict[str, str]:
    return {name: _run(["check-upgrade", *argv]) for name, argv in UPGRADES.items()}


GROUPS = {"resolve": resolve_outputs, "team": team_outputs, "upgrade": upgrade_outputs}


def render(outputs: dict[str, str]) -> str:
    return "".join(f"=== {name}\n{text}" for name, text in outputs.items())


def main() -> int:
    os.environ["TFENV_DATA_DIR"] = str(snapshot.SNAPSHOT)
    OUT.mkdir(exist_ok=True)
    for group, make in GROUPS.items():
        (OUT / f"{group}.txt").write_text(render(make()), "utf-8")
        print(f"wrote tests/golden/{group}.txt", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
