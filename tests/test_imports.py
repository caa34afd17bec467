"""Import hygiene, in the spirit of pip-tools' test_circular_imports.

Each ``tfenv`` module is imported on its own in a fresh interpreter, so that the
order in which other tests happened to import things cannot hide an import
cycle. And ``tfenv resolve`` must not pay for httpx, which only ``tfenv
refresh`` needs.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap

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


_HTTPX_CHECK = textwrap.dedent(
    """
    import contextlib, io, json, sys

    def loaded():
        return sorted(m for m in sys.modules if m == "httpx" or m.startswith("httpx."))

    report = {}
    for name in %(modules)r:
        __import__(name)
    report["after_import"] = loaded()
    from tfenv.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["resolve", "--os", "linux", "--no-gpu", "--python", "3.11", "--json"])
    report["exit_code"] = code
    report["status"] = json.loads(out.getvalue())["status"]
    report["after_resolve"] = loaded()
    print(json.dumps(report))
    """
)


def test_resolve_does_not_import_httpx() -> None:
    done = run_python(_HTTPX_CHECK % {"modules": RESOLVE_PATH})
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["exit_code"] == 0
    assert report["status"] == "ok"
    assert report["after_import"] == [], "importing the resolve path imports httpx"
    assert report["after_resolve"] == [], "tfenv resolve imports httpx"


@pytest.mark.parametrize("module", RESOLVE_PATH)
def test_each_resolve_module_alone_does_not_import_httpx(module: str) -> None:
    code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith('httpx')))"
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"import {module} loads {done.stdout.strip()}"


def test_the_check_would_see_httpx() -> None:
    """The subprocess check is not vacuous: the refresh path does import httpx."""
    done = run_python("import sys, tfenv.kb.refresh; print('httpx' in sys.modules)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
