"""Import hygiene, in the spirit of pip-tools' test_circular_imports.

Each ``tfenv`` module is imported on its own in a fresh interpreter, so that the
order in which other tests happened to import things cannot hide an import
cycle. And ``tfenv resolve`` must not pay for heavy imports it does not use: httpx,
which only ``tfenv refresh`` needs, and the others in :data:`HEAVY`.
"""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import tfenv
from tfenv.cli import COMMANDS


def _all_modules() -> list[str]:
    names = {"tfenv"}
    for info in pkgutil.walk_packages(tfenv.__path__, "tfenv."):
        names.add(info.name)
    return sorted(names)


MODULES = _all_modules()

RESOLVE_PATH = ("tfenv.cli", "tfenv.commands.resolve", "tfenv.api", "tfenv.resolver")


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


def test_module_list_is_complete() -> None:
    """The walk found the package's modules (guards against an empty parametrization)."""
    for name in (*RESOLVE_PATH, "tfenv.kb", "tfenv.emit", "tfenv.host", "tfenv.specs"):
        assert name in MODULES


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_on_its_own(module: str) -> None:
    done = run_python(f"import {module}")
    assert done.returncode == 0, f"import {module} in a fresh interpreter fails:\n{done.stderr}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_module_exists(command: str) -> None:
    """Each subcommand the CLI lists can be imported and has configure() and run()."""
    module = COMMANDS[command][0]
    code = textwrap.dedent(
        f"""
        import importlib
        m = importlib.import_module({module!r})
        assert callable(m.configure) and callable(m.run), {module!r}
        """
    )
    done = run_python(code)
    assert done.returncode == 0, done.stderr


# Imported by ``tfenv resolve`` only on a cold cache (yaml, packaging's requirement parser
# and its name normalization, which imports its wheel-tag module and through it
# subprocess, platform, logging and sysconfig: loading the shipped data, which parses the
# and-cuda lines once and checks package names), or never:
# httpx (~100 ms, refresh only), the container route's image choice, difflib.
HEAVY = (
    "httpx",
    "yaml",
    "packaging.requirements",
    "packaging.markers",
    "packaging.tags",
    "dataclasses",  # with inspect, ast, dis, tokenize: the records are tfenv.models._record's
    "inspect",
    "difflib",
    "tfenv.rules.container_images",
    "tfenv.kb.gpu_families",  # the GPU table's generation rules: loading only
    "tfenv.chart",  # the charts (--chart) and their XML writer
    "xml.etree.ElementTree",
    "tfenv.refresh",  # tfenv refresh and everything under it (index, README, wheel readers)
    # a cache miss only: importlib.resources reading the shipped data, writing the pickle
    # (pathlib with urllib.parse and ipaddress; tempfile with shutil and the compressors);
    # argparse asks shutil for the terminal's width only when help is formatted
    "pathlib",
    "shutil",
    "datetime",  # YAML's dates (the records hold their dates as text)
)

_HEAVY_CHECK = textwrap.dedent(
    """
    import contextlib, io, json, sys

    def loaded():
        return sorted(m for m in sys.modules if m.split(".")[0] == "httpx" or m in %(heavy)r)

    report = {}
    for name in %(modules)r:
        __import__(name)
    report["after_import"] = loaded()
    from tfenv.cli import main
    for argv in %(runs)r:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(argv)
        report.setdefault("exit_codes", []).append(code)
        if "--json" in argv:
            report.setdefault("statuses", []).append(json.loads(out.getvalue())["status"])
    report["after_resolve"] = loaded()
    print(json.dumps(report))
    """
)

_RUNS = [
    ["resolve", "--os", "linux", "--no-gpu", "--python", "3.11", "--json"],
    ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--json"],
    ["resolve", "--os", "windows", "--cc", "8.6", "--driver", "552.22", "--json"],
    ["resolve", "--os", "macos", "--arch", "arm64", "--json"],
    # the README's line, as text
    ["resolve", "--os", "linux", "--gpu", "RTX 3060", "--driver", "535.104.05", "--python", "3.11"],
]
_JSON_RUNS = sum("--json" in argv for argv in _RUNS)


def _run_heavy_check(env: dict[str, str]) -> dict[str, Any]:
    code = _HEAVY_CHECK % {"modules": RESOLVE_PATH, "heavy": HEAVY, "runs": _RUNS}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_resolve_imports_nothing_heavy(tmp_path: Path) -> None:
    # a user's run: the shipped data (a data folder given with TFENV_DATA_DIR, as the other
    # tests give the frozen snapshot, is read with pathlib and keyed by its content)
    env = {k: v for k, v in os.environ.items() if k != "TFENV_DATA_DIR"}
    env["TFENV_CACHE_DIR"] = str(tmp_path)
    cold = _run_heavy_check(env)
    assert cold["statuses"] == ["ok"] * _JSON_RUNS, cold
    assert cold["exit_codes"] == [0] * len(_RUNS), cold
    assert cold["after_import"] == [], "importing the resolve path imports " + str(cold)
    # loading the data: its parsers and the GPU table's rules
    parsing = {
        "yaml",
        "packaging.requirements",
        "packaging.markers",
        "packaging.tags",
        "dataclasses",  # packaging's requirement tokenizer imports it
        "inspect",
        "tfenv.kb.gpu_families",
        "pathlib",  # the data read with importlib.resources, the pickles written
        "shutil",
        "datetime",
    }
    assert set(cold["after_resolve"]) <= parsing, cold
    assert "yaml" in cold["after_resolve"], cold  # so the check does see what a run imports
    warm = _run_heavy_check(env)  # the knowledge base now comes from the cache
    assert warm["after_resolve"] == [], f"a warm tfenv resolve imports {warm['after_resolve']}"


_TEXT_CHECK = textwrap.dedent(
    """
    import contextlib, io, sys
    from tfenv.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(%(argv)r)
    print(code, out.getvalue().startswith("Target: "), "json" in sys.modules)
    """
)


def test_text_resolve_imports_no_json(tmp_path: Path) -> None:
    """The README's line prints text: json is imported for --json only (the check itself
    imports no json, unlike the one above)."""
    env = {k: v for k, v in os.environ.items() if k != "TFENV_DATA_DIR"}
    env["TFENV_CACHE_DIR"] = str(tmp_path)
    code = _TEXT_CHECK % {"argv": _RUNS[-1]}
    for _ in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
        )
        assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True", "False"], done.stdout
    json_run = code.replace("'3.11']", "'3.11', '--json']")
    assert json_run != code
    done = subprocess.run(
        [sys.executable, "-c", json_run], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.stdout.split() == ["0", "False", "True"], done  # the check would see it


@pytest.mark.parametrize("module", RESOLVE_PATH)
def test_each_resolve_module_alone_does_not_import_httpx(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('httpx')))"
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"import {module} loads {done.stdout.strip()}"


def test_the_check_would_see_httpx() -> None:
    """The subprocess check is not vacuous: the refresh path does import httpx."""
    done = run_python("import sys, tfenv.refresh; print('httpx' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


# What `tfenv --version` and `tfenv <command> --help` must not import: the argument parser
# and the command's flags need none of it (bench/bench_startup.py measures the start-up).
STARTUP_FORBIDDEN = (
    "typing",
    "dataclasses",
    "packaging",
    "resolvelib",
    "yaml",
    "httpx",
    "tfenv.kb",
    "tfenv.api",
    "tfenv.config",
    "tfenv.lock",
    "tfenv.upgrade",
    "tfenv.models.target",
    "tfenv.models.plan",
)

_STARTUP_CHECK = textwrap.dedent(
    """
    import contextlib, io, json, sys
    from tfenv.cli import main
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            code = main(%(argv)r)
    except SystemExit as exc:
        code = exc.code
    print(json.dumps({"code": code, "out": out.getvalue(), "modules": sorted(sys.modules)}))
    """
)


@pytest.mark.parametrize(
    "argv",
    [["--version"], ["resolve", "--help"], ["lock", "--help"], ["check-upgrade", "--help"]],
    ids=" ".join,
)
def test_startup_imports_only_what_the_parser_needs(argv: list[str]) -> None:
    done = run_python(_STARTUP_CHECK % {"argv": argv})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0
    assert report["out"].startswith(
        f"tfenv {tfenv.__version__}" if argv == ["--version"] else "usage:"
    )
    loaded = [
        m
        for m in report["modules"]
        if any(m == f or m.startswith(f + ".") for f in STARTUP_FORBIDDEN)
    ]
    assert loaded == [], f"tfenv {' '.join(argv)} imports {loaded}"
    if argv == ["--version"]:
        assert "tfenv.commands" not in report["modules"]


def test_the_startup_check_would_see_an_import() -> None:
    """Not vacuous: a command's run does import what its --help must not."""
    done = run_python(
        "import sys, tfenv.lock.api, tfenv.upgrade.api; print('typing' in sys.modules)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
