#!/usr/bin/env python3
"""Whether each TensorBoard release that TensorFlow plans install starts, with today's newest
setuptools and below the bound (``src/tfenv/data/tensorflow/tensorboard.yaml``).

Usage::

    python tools/tensorboard_check.py [--state FILE] [--out FILE] [--only X,Y] [--work DIR]
                                      [--write-only]

The TensorBoard releases are those the runtime sweep's plans installed (``--state``, default
``tools/runtime_sweep_state.json``: every cell's installed versions), each on the newest Python
a plan installed it on, with that plan's NumPy and protobuf pinned (TensorBoard's own
dependencies otherwise resolve to versions the plan does not have). TensorFlow is not
installed: TensorBoard starts without it. Per release and per setuptools requirement (none:
the newest; ``<82``: the newest 81.x; ``==82.0.0``: the first release without
``pkg_resources``) it creates a fresh venv with uv, installs ``tensorboard==X``, runs
``tensorboard --version`` and serves an empty log folder on 127.0.0.1 until the page answers
(then stops it). The results are kept in ``--out`` (default
``tools/tensorboard_check.json``, the experiment's record) and the data file is written from
them. Not part of the tfenv package.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parent.parent
STATE = ROOT / "tools" / "runtime_sweep_state.json"
OUT = ROOT / "tools" / "tensorboard_check.json"
DATA = ROOT / "src" / "tfenv" / "data" / "tensorflow" / "tensorboard.yaml"
#: the setuptools requirements tried per release ("": whatever uv resolves, the newest)
SETUPTOOLS = ("", "<82", "==82.0.0")
#: the error a TensorBoard that imports pkg_resources stops with
PKG_RESOURCES = "No module named 'pkg_resources'"
#: the packages pinned to the plan's versions beside tensorboard (six: TensorBoard 2.7-2.9
#: import it without declaring it; TensorFlow's own requirement brings it)
PINNED = ("numpy", "protobuf", "six")


@dataclass(frozen=True)
class Target:
    """One TensorBoard release as a plan installs it."""

    tensorboard: str
    python: str
    pins: tuple[tuple[str, str], ...]  # (package, version) from the plan's run

    def requirements(self, setuptools: str) -> list[str]:
        lines = [f"tensorboard=={self.tensorboard}"]
        lines += [f"{name}=={version}" for name, version in self.pins]
        if setuptools:
            lines.append(f"setuptools{setuptools}")
        return lines


@dataclass(frozen=True)
class Result:
    tensorboard: str
    python: str
    requested: str  # the setuptools requirement ("" for none)
    setuptools: Optional[str]  # the version installed (None: none / did not install)
    outcome: str  # "ok", "broke" or "no-install"
    version_ok: bool  # `tensorboard --version` exited 0
    served: bool  # the page answered on 127.0.0.1
    error: Optional[str]  # the last line of the failure


def _pykey(python: str) -> tuple[int, ...]:
    return tuple(int(p) for p in python.split("."))


def targets(cells: Mapping[str, Mapping[str, Any]]) -> list[Target]:
    """Each TensorBoard version the sweep's plans installed, on the newest Python one did."""
    best: dict[str, tuple[tuple[int, ...], Target]] = {}
    for cell in cells.values():
        for key in ("bare_versions", "constrained_versions"):
            versions: Mapping[str, str] = cell.get(key) or {}
            tb = versions.get("tensorboard")
            if tb is None:
                continue
            python = str(cell["python"])
            pins = tuple((p, versions[p]) for p in PINNED if p in versions)
            target = Target(tb, python, pins)
            # the constrained run is what the plan installs: it wins over the bare one
            rank = (*_pykey(python), key == "constrained_versions")
            if tb not in best or rank > best[tb][0]:
                best[tb] = (rank, target)
    return [t for _, t in sorted(best.values(), key=lambda r: Version(r[1].tensorboard))]


def last_error_line(output: str) -> Optional[str]:
    """The exception line of a traceback (the last ``Name: text`` line), else the last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in reversed(lines):
        head = line.split(":", 1)[0]
        dotted = all(p.isidentifier() for p in head.split("."))
        if dotted and head.endswith(("Error", "Exception", "Exit", "Interrupt")):
            return line[:300]
    return lines[-1][:300] if lines else None


def boundary(results: Iterable[Result]) -> Optional[tuple[str, str]]:
    """(newest setuptools that ran, oldest that broke) over the releases that broke, or None
    when none broke or the versions overlap (a good one newer than a bad one)."""
    done = [r for r in results if r.outcome != "no-install" and r.setuptools]
    bad = [Version(r.setuptools) for r in done if _no_pkg_resources(r) and r.setuptools]
    if not bad:
        return None
    broke_releases = {r.tensorboard for r in done if _no_pkg_resources(r)}
    good = [
        Version(r.setuptools)
        for r in done
        if r.outcome == "ok" and r.tensorboard in broke_releases and r.setuptools
    ]
    if not good or max(good) >= min(bad):
        return None
    return str(max(good)), str(min(bad))


def _no_pkg_resources(result: Result) -> bool:
    """Whether the run broke for want of ``pkg_resources`` (not for another reason)."""
    return result.outcome == "broke" and PKG_RESOURCES in (result.error or "")


def broken_releases(results: Iterable[Result]) -> list[str]:
    """The TensorBoard releases that broke for want of ``pkg_resources``, in version order."""
    found = {r.tensorboard for r in results if _no_pkg_resources(r)}
    return sorted(found, key=Version)


def fixed_release(results: Iterable[Result], first_bad: str) -> Optional[str]:
    """The oldest release newer than every broken one that started with setuptools
    ``first_bad`` (None: none did)."""
    done = list(results)
    broken = broken_releases(done)
    newest_broken = Version(broken[-1]) if broken else None
    started = [
        Version(r.tensorboard)
        for r in done
        if r.outcome == "ok"
        and r.setuptools is not None
        and Version(r.setuptools) >= Version(first_bad)
        and (newest_broken is None or Version(r.tensorboard) > newest_broken)
    ]
    return str(min(started)) if started else None


def pythons_installing(results: Iterable[Result], first_bad: str) -> Optional[str]:
    """``>=X.Y``: the oldest Python setuptools ``first_bad`` installed on, when it installed on
    none older (older Pythons keep an older setuptools, and with it pkg_resources)."""
    tried = [r for r in results if r.requested == f"=={first_bad}"]
    installed = [_pykey(r.python) for r in tried if r.outcome != "no-install"]
    if not installed:
        return None
    low = min(installed)
    if any(_pykey(r.python) > low for r in tried if r.outcome == "no-install"):
        return None
    return ">=" + ".".join(str(p) for p in low)


def table(results: Sequence[Result]) -> str:
    """The Markdown table: release x setuptools requirement -> outcome (installed version)."""
    head = "| tensorboard | Python | newest setuptools | setuptools<82 | setuptools==82.0.0 |"
    rows = [head, "|---|---|---|---|---|"]
    by_release: dict[str, dict[str, Result]] = {}
    for r in results:
        by_release.setdefault(r.tensorboard, {})[r.requested] = r
    for tb in sorted(by_release, key=Version):
        runs = by_release[tb]
        python = next(iter(runs.values())).python
        cells = [_cell(runs.get(req)) for req in SETUPTOOLS]
        rows.append(f"| {tb} | {python} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _cell(result: Optional[Result]) -> str:
    if result is None:
        return "-"
    if result.outcome == "no-install":
        return "no install"
    return f"{result.outcome} ({result.setuptools or 'none'})"


# -- running ------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(
        {"PYTHONNOUSERSITE": "1", "PYTHONDONTWRITEBYTECODE": "1", "CUDA_VISIBLE_DEVICES": ""}
    )
    return env


def _run(args: Sequence[str], timeout: float, cwd: Optional[Path] = None) -> tuple[int, str]:
    try:
        done = subprocess.run(
            list(args),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            env=_env(),
            cwd=None if cwd is None else str(cwd),
            check=False,
        )
    except subprocess.TimeoutExpired:
        return 124, f"TimeoutError: no result in {timeout:.0f} s"
    return done.returncode, done.stdout


def _serve(exe: Path, folder: Path, timeout: float) -> tuple[bool, str]:
    """Start ``tensorboard --logdir`` on a free port; True once its page answers."""
    logdir = folder / "logs"
    logdir.mkdir()
    port = _free_port()
    log = folder / "serve.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(exe), "--logdir", str(logdir), "--host", "127.0.0.1", "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_env(),
            cwd=str(folder),
        )
        try:
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2) as page:
                        if page.status == 200:
                            return True, ""
                except OSError:
                    time.sleep(0.5)
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return False, log.read_text(errors="replace") or "TimeoutError: the page did not answer"


def check(uv: str, interpreter: str, target: Target, setuptools: str, work: Path) -> Result:
    folder = Path(tempfile.mkdtemp(prefix="tb-", dir=work))

    def result(outcome: str, installed: Optional[str], ver: bool, served: bool, out: str) -> Result:
        error = None if outcome == "ok" else last_error_line(out)
        return Result(
            target.tensorboard, target.python, setuptools, installed, outcome, ver, served, error
        )

    try:
        venv = folder / "venv"
        code, out = _run([uv, "venv", "-q", "--python", interpreter, str(venv)], 120)
        if code != 0:
            return result("no-install", None, False, False, out)
        py = str(venv / "bin" / "python")
        code, out = _run(
            [uv, "pip", "install", "-q", "--python", py, *target.requirements(setuptools)], 600
        )
        if code != 0:
            return result("no-install", None, False, False, out)
        _, frozen = _run([uv, "pip", "freeze", "--python", py], 120)
        installed = freeze_version(frozen, "setuptools")
        exe = venv / "bin" / "tensorboard"
        code, out = _run([str(exe), "--version"], 120, cwd=folder)
        version_ok = code == 0
        if not version_ok:
            return result("broke", installed, False, False, out)
        served, out = _serve(exe, folder, 90)
        return result("ok" if served else "broke", installed, True, served, out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def freeze_version(frozen: str, package: str) -> Optional[str]:
    for line in frozen.splitlines():
        name, sep, version = line.strip().partition("==")
        if sep and name.lower().replace("_", "-") == package:
            return version.strip()
    return None


def interpreter_for(python: str) -> Optional[str]:
    root = Path.home() / ".pyenv" / "versions"
    if not root.is_dir():
        return None
    for entry in sorted(root.iterdir(), reverse=True):
        try:
            version = Version(entry.name)
        except InvalidVersion:
            continue
        exe = entry / "bin" / f"python{python}"
        if f"{version.major}.{version.minor}" == python and exe.is_file():
            return str(exe)
    return None


# -- the data file -----------------------------------------------------------------------


def render_yaml(results: Sequence[Result], checked: str, command: str) -> str:
    edge = boundary(results)
    broken = broken_releases(results)
    if edge is None or not broken:
        raise SystemExit("no setuptools boundary in the results: nothing to write")
    good, bad = edge
    fix = fixed_release(results, bad)
    lines = [
        "# Whether TensorBoard starts with today's setuptools (pkg_resources removed in 82).",
        "# Generated by tools/tensorboard_check.py: do not edit by hand; rerun it (command below).",
        "# Linux x86_64, uv into a fresh venv (no TensorFlow), tensorboard --version + serving.",
        f'checked: "{checked}"',
        f'command: "{command}"',
        "pkg_resources:",
        '  package: "setuptools"',
        f'  requirement: "<{Version(bad).major}"',
        f'  last_good: "{good}"',
        f'  first_bad: "{bad}"',
        f'  broken: ">={broken[0]},<={broken[-1]}"',
        f"  fixed: {_q(fix)}",
        f"  pythons: {_q(pythons_installing(results, bad))}",
        f'  error: "ModuleNotFoundError: {PKG_RESOURCES}"',
        "  source:",
        f'    - "experiment: tools/tensorboard_check.py {checked}"',
        '    - "https://github.com/tensorflow/tensorboard/issues/7003"',
        '    - "https://setuptools.pypa.io/en/stable/history.html#v82-0-0"',
        f'  retrieved: "{checked}"',
        "results:",
    ]
    for r in results:
        lines.append(f'  - tensorboard: "{r.tensorboard}"')
        lines.append(f'    python: "{r.python}"')
        lines.append(f'    requested: "{r.requested}"')
        lines.append(f"    setuptools: {_q(r.setuptools)}")
        lines.append(f'    outcome: "{r.outcome}"')
    return "\n".join(lines) + "\n"


def _q(value: Optional[str]) -> str:
    return "null" if value is None else json.dumps(value)


def merged(before: Sequence[Result], now: Sequence[Result]) -> list[Result]:
    """The earlier results of the releases not checked now, and the new ones, in release
    and requirement order."""
    again = {r.tensorboard for r in now}
    kept = [r for r in before if r.tensorboard not in again]
    order = {req: i for i, req in enumerate(SETUPTOOLS)}
    return sorted([*kept, *now], key=lambda r: (Version(r.tensorboard), order[r.requested]))


def _previous(path: Path) -> list[Result]:
    return load_results(path)[1] if path.is_file() else []


def load_results(path: Path) -> tuple[str, list[Result]]:
    raw = json.loads(path.read_text())
    return str(raw["checked"]), [Result(**r) for r in raw["results"]]


def _check_release(uv: str, target: Target, work: Path) -> list[Result]:
    interpreter = interpreter_for(target.python)
    if interpreter is None:
        print(f"no Python {target.python} for tensorboard {target.tensorboard}")
        return []
    results = []
    for req in SETUPTOOLS:
        done = check(uv, interpreter, target, req, work)
        print(
            f"tensorboard {done.tensorboard} py{done.python} setuptools{req}: "
            f"{done.outcome} ({done.setuptools}) {done.error or ''}",
            flush=True,
        )
        results.append(done)
    return results


def _save(path: Path, now: Sequence[Result]) -> None:
    checked = datetime.date.today().isoformat()
    results = merged(_previous(path), now)
    text = json.dumps({"checked": checked, "results": [asdict(r) for r in results]}, indent=1)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text + "\n")
    tmp.replace(path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--state", type=Path, default=STATE)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--only", help="comma-separated TensorBoard versions (default: all)")
    parser.add_argument("--work", type=Path, default=None)
    parser.add_argument("--write-only", action="store_true", help="write the data file only")
    args = parser.parse_args(argv)
    if not args.write_only:
        uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
        cells = json.loads(args.state.read_text())["cells"]
        wanted = set(args.only.split(",")) if args.only else None
        work = args.work or Path(tempfile.gettempdir())
        for target in targets(cells):
            if wanted is None or target.tensorboard in wanted:
                _save(args.out, _check_release(uv, target, work))  # resumable: one at a time
    checked, results = load_results(args.out)
    print(table(results))
    args.data.write_text(render_yaml(results, checked, "python tools/tensorboard_check.py"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
