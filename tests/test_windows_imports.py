"""Nothing POSIX-only on tfenv's import path: every tfenv module imports, and ``tfenv
--help``, ``tfenv resolve --os windows`` (with ``--emit``) run, in an interpreter that
looks like native Windows to tfenv.

A child interpreter first imports the standard library that tfenv uses (as on this
machine: the standard library has its own Windows branches), then plays Windows for
tfenv: ``sys.platform`` is ``win32``; the ``os`` and ``signal`` that tfenv's modules import
say ``os.name == "nt"`` and lack their POSIX-only attributes (``os.getuid``, ``os.killpg``,
``signal.SIGKILL``, ``signal.SIGHUP`` ...; the standard library keeps the real ones, and
with them this machine's files and processes); and a POSIX-only module (``fcntl``, ``pwd``,
``grp``, ``resource``, ``termios`` ...) that tfenv's code imports is missing, as it is on
Windows (the standard library may still import its own).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: the modules Windows' Python lacks (https://docs.python.org/3/library/unix.html and
#: the availability notes of the others)
POSIX_MODULES = (
    "crypt",
    "curses",
    "fcntl",
    "grp",
    "nis",
    "ossaudiodev",
    "posix",
    "pty",
    "pwd",
    "readline",
    "resource",
    "spwd",
    "syslog",
    "termios",
    "tty",
    "_posixsubprocess",
    "_posixshmem",
)
#: attributes marked "Availability: Unix" in the os and signal modules' documentation
POSIX_OS = (
    "O_CLOEXEC", "O_NONBLOCK", "chown", "fork", "forkpty", "getegid", "geteuid", "getgid",
    "getgroups", "getloadavg", "getpgid", "getpgrp", "getsid", "getuid", "killpg", "lchown",
    "mkfifo", "mknod", "nice", "openpty", "sched_getaffinity", "setpgid", "setpgrp", "setsid",
    "statvfs", "sysconf", "ttyname", "uname",
)  # fmt: skip
POSIX_SIGNAL = (
    "SIGALRM", "SIGCHLD", "SIGCONT", "SIGHUP", "SIGKILL", "SIGPIPE", "SIGQUIT", "SIGSTOP",
    "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGUSR1", "SIGUSR2", "SIGWINCH", "alarm", "getitimer",
    "pause", "pthread_kill", "pthread_sigmask", "setitimer", "siginterrupt", "sigwait",
)  # fmt: skip
#: the standard library tfenv imports, loaded before Windows is played
STDLIB = (
    "argparse", "asyncio", "contextlib", "ctypes", "ctypes.util", "dataclasses", "datetime",
    "difflib", "email.parser", "fnmatch", "functools", "gc", "getpass", "glob", "gzip",
    "hashlib", "importlib.metadata", "importlib.resources", "inspect", "io", "ipaddress",
    "json", "locale", "logging", "math", "ntpath", "pathlib", "pickle", "pkgutil", "platform",
    "posixpath", "queue", "random", "re", "secrets", "selectors", "shlex", "shutil",
    "signal", "socket", "sqlite3", "ssl", "string", "subprocess", "sysconfig", "tarfile",
    "tempfile", "textwrap", "threading", "time", "tomllib", "unicodedata", "urllib.parse",
    "urllib.request", "uuid", "xml.etree.ElementTree", "zipfile", "zlib",
)  # fmt: skip

CHILD = r"""
import contextlib, importlib, io, json, os, signal, sys, types

for name in STDLIB:
    with contextlib.suppress(ImportError):
        importlib.import_module(name)


class AsOnWindows(types.ModuleType):
    # the module as tfenv sees it: without the POSIX-only attributes, some others changed
    def __init__(self, real, hidden, changed):
        super().__init__(real.__name__)
        self.__dict__.update(_real=real, _hidden=frozenset(hidden), _changed=changed)

    def __getattr__(self, name):
        if name in self._hidden:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        return self._changed[name] if name in self._changed else getattr(self._real, name)


found = []


def _importer():
    frame = sys._getframe(2)
    while frame is not None and (
        frame.f_code.co_filename.startswith("<frozen importlib")
        or frame.f_code.co_filename.endswith(os.path.join("importlib", "__init__.py"))
    ):
        frame = frame.f_back
    return frame.f_globals.get("__name__", "") if frame is not None else ""


class NotOnWindows:
    def find_spec(self, name, path=None, target=None):
        importer = _importer()
        if name.split(".")[0] in POSIX_MODULES and importer.split(".")[0] == "tfenv":
            found.append(f"{importer} imports {name}")
            raise ModuleNotFoundError(f"No module named {name!r} (not on Windows)", name=name)
        return None


for name in POSIX_MODULES:
    if name != "posix":  # os is built on it here; tfenv importing it is still caught
        sys.modules.pop(name, None)
sys.meta_path.insert(0, NotOnWindows())
sys.modules.pop("posix", None)
# the standard library loaded above keeps the real os and signal (its POSIX branches were
# chosen on import); tfenv's modules, imported from here on, get Windows' view of them
sys.modules["os"] = AsOnWindows(os, POSIX_OS, {"name": "nt", "linesep": "\r\n"})
sys.modules["signal"] = AsOnWindows(signal, POSIX_SIGNAL, {})
sys.platform = "win32"

import pkgutil
import tfenv

names = sorted({"tfenv", *(i.name for i in pkgutil.walk_packages(tfenv.__path__, "tfenv."))})
failed = {}
for name in names:
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
from tfenv.cli import main

codes = []
for argv in RUNS:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
    codes.append([code, out.getvalue(), err.getvalue()])
extra = {}
exec(EXTRA)
report = {"modules": len(names), "failed": failed, "found": found, "runs": codes, **extra}
print(json.dumps(report))
"""

EXPLAINED = "ImportError: DLL load failed while importing _pywrap_tensorflow_internal"
WINDOWS_MACHINE = ("--os", "windows", "--gpu", "RTX 3060", "--driver", "552.22", "--python", "3.10")


def _play_windows(runs: list[list[str]], extra: str = "") -> dict[str, object]:
    """Play Windows in a child (see the module's text), import every tfenv module, run
    ``tfenv ARGV`` for each of ``runs`` and then the code ``extra`` (which may put its
    findings in the dict ``extra``): what came of it."""
    consts = {
        "EXTRA": extra,
        "STDLIB": STDLIB,
        "POSIX_MODULES": POSIX_MODULES,
        "POSIX_OS": POSIX_OS,
        "POSIX_SIGNAL": POSIX_SIGNAL,
        "RUNS": runs,
    }
    code = "".join(f"{k} = {v!r}\n" for k, v in consts.items()) + CHILD
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


@pytest.fixture(scope="module")
def as_windows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("windows-emit")
    return _play_windows(
        [
            ["--help"],
            ["resolve", "--help"],
            ["resolve", *WINDOWS_MACHINE, "--tf", "2.10"],
            ["resolve", *WINDOWS_MACHINE, "--tf", "2.10", "--json"],
            ["resolve", *WINDOWS_MACHINE, "--tf", "2.10", "--manager", "pip", "--emit", str(out)],
            ["explain", "--no-detect", *WINDOWS_MACHINE, "--tf", "2.10", EXPLAINED],
        ]
    )


def test_every_module_imports_without_posix_only_modules(as_windows: dict[str, object]) -> None:
    assert as_windows["found"] == [], "tfenv imports a module Windows' Python lacks"
    assert as_windows["failed"] == {}
    assert isinstance(as_windows["modules"], int)
    assert as_windows["modules"] > 150  # the walk found the package


def test_help_and_resolve_for_windows_run_as_on_windows(as_windows: dict[str, object]) -> None:
    runs = as_windows["runs"]
    assert isinstance(runs, list)
    for code, out, err in runs:
        assert "Traceback" not in err
        assert "internal error" not in err.lower()
        assert code in (0, 1), (code, out, err)
    assert "usage: tfenv" in runs[0][1]
    assert "Plan: TensorFlow 2.10" in runs[2][1]
    assert json.loads(runs[3][1])["plan"]["tensorflow"].startswith("2.10")


KILL_A_CHILD = """
import subprocess, time
from tfenv import procs
child = procs.start([sys.executable, "-c", "import time; time.sleep(60)"])
started = time.monotonic()
procs.kill(child)  # a child that outlives its time: SIGKILL on POSIX, TerminateProcess here
procs.forget(child)
extra["killed"] = child.poll() is not None
extra["seconds"] = time.monotonic() - started
"""


def test_a_child_is_killed_without_posix_signals() -> None:
    """procs.kill (a child that outlives its time) names no signal Windows lacks (SIGKILL)."""
    report = _play_windows([], KILL_A_CHILD)
    assert report["killed"] is True
    assert isinstance(report["seconds"], float)
    assert report["seconds"] < 10


def test_the_check_catches_a_posix_only_import(tmp_path: Path) -> None:
    """The harness itself: a tfenv module that imports fcntl is reported (so the tests
    above can fail)."""
    probe = Path(__file__).parents[1] / "src" / "tfenv" / "_posix_probe.py"
    probe.write_text("import fcntl\n")
    try:
        report = _play_windows([])
    finally:
        probe.unlink()
    assert report["found"] == ["tfenv._posix_probe imports fcntl"]
    assert "tfenv._posix_probe" in report["failed"]  # type: ignore[operator]
