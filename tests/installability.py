"""Every ok plan installs: the install sets of the data-driven cases' plans, compiled by uv
for each plan's platform and Python.

:func:`install_sets` resolves every case in ``tests/cases/`` (``resolve*.yaml`` and
``containers.yaml``; ``synthetic.yaml`` runs on a synthetic KB and is left out) and keeps
the plans with pip packages: routes pip, system, cpu and metal, the pip part of
``conda+pip``, and the container route's pip install, which runs inside a Linux image
(the image's glibc is not recorded; the default assumed glibc, older than the images',
is used). Identical (pip set, platform, Python) triples are compiled once.

:func:`uv_compile` runs ``uv pip compile`` with ``--only-binary`` for every package the
knowledge base has wheel facts about (TensorFlow's distributions and the and-cuda
extra's CUDA wheels): those must install as wheels for the plan's platform and Python
(TensorFlow's and NVIDIA's placeholder sdists exist to fail). Other dependencies may be
sdists, as pip builds them by default: TensorFlow 2.0-2.6 pin pure-Python packages that
were only ever published as sdists (gast 0.2.2, termcolor 1.1.0, wrapt 1.12.1 with its
optional C extension, clang 5.0).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import yaml

from tests.snapshot import frozen_kb
from tests.test_resolve_cases import run_case
from tfenv.kb import KnowledgeBase
from tfenv.lock.pip import PipLockSpec, find_uv, python_platform, uv_env
from tfenv.routes.container import container_view

CASES_DIR = Path(__file__).parent / "cases"
SKIPPED_CASE_FILES = ("synthetic.yaml",)  # a synthetic KB: its plans name no real wheels


@dataclass(frozen=True)
class InstallSet:
    """What one plan installs with pip, and where."""

    pip: tuple[str, ...]
    platform: str  # uv's --python-platform
    python: str  # X.Y
    cases: tuple[str, ...]  # the case ids whose plans install exactly this

    @property
    def name(self) -> str:
        more = f" (+{len(self.cases) - 1} more)" if len(self.cases) > 1 else ""
        return f"{self.cases[0]}{more}"

    def describe(self) -> str:
        return f"{' '.join(self.pip)} for {self.platform}, Python {self.python}"


def case_files() -> list[Path]:
    return [p for p in sorted(CASES_DIR.glob("*.yaml")) if p.name not in SKIPPED_CASE_FILES]


def cases() -> list[dict[str, Any]]:
    return [case for path in case_files() for case in yaml.safe_load(path.read_text("utf-8"))]


def install_sets(kb: KnowledgeBase) -> list[InstallSet]:
    """The distinct install sets of every ok plan with pip packages, in case order."""
    found: dict[tuple[tuple[str, ...], str, str], list[str]] = {}
    for case in cases():
        res = run_case(kb, case["args"])
        plan = res.plan
        if plan is None or not plan.pip:
            continue
        assert plan.python is not None, f"{case['id']}: a pip plan without a Python"
        target = container_view(res.target) if plan.route == "container" else res.target
        key = (tuple(plan.pip), python_platform(target), plan.python)
        found.setdefault(key, []).append(case["id"])
    return [InstallSet(pip, plat, py, tuple(ids)) for (pip, plat, py), ids in found.items()]


@dataclass(frozen=True)
class Compiled:
    install: InstallSet
    ok: bool
    seconds: float
    output: str  # the pins on success, uv's message on failure


def wheel_packages() -> tuple[str, ...]:
    """The packages the knowledge base has wheel facts about: TensorFlow's distributions
    and every package an and-cuda extra names."""
    from tfenv.kb.index import INDEX_PACKAGES

    return (*INDEX_PACKAGES, *sorted(frozen_kb().index.cuda.versions))


def uv_compile(
    install: InstallSet,
    index_url: str,
    cache_dir: Path,
    *,
    timeout_s: float = 120.0,
    environ: Optional[Mapping[str, str]] = None,
    uv_bin: Optional[str] = None,
) -> Compiled:
    """``uv pip compile`` of one install set against ``index_url`` only."""
    binary_only = wheel_packages()
    spec = PipLockSpec(
        index_url=index_url,
        python_version=install.python,
        python_platform=install.platform,
        requirements=install.pip,
        cache_dir=cache_dir,
        timeout_s=30.0,
    )
    cmd = [
        uv_bin or find_uv(),
        "pip",
        "compile",
        "-",
        "--python-platform",
        install.platform,
        "--python-version",
        install.python,
        "--python",  # saves uv's interpreter discovery; builds sdist metadata if needed
        sys.executable,
        "--index-url",
        index_url,
        "--only-binary",  # wheels for what tfenv's facts are about (module doc)
        ",".join(binary_only),
        "--no-config",
        "--no-header",
        "--quiet",
    ]
    started = time.monotonic()
    try:
        done = subprocess.run(
            cmd,
            input="".join(f"{r}\n" for r in install.pip),
            env=uv_env(spec, environ),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Compiled(install, False, timeout_s, f"uv did not finish within {timeout_s:.0f} s")
    seconds = time.monotonic() - started
    if done.returncode == 0:
        return Compiled(install, True, seconds, done.stdout)
    return Compiled(install, False, seconds, (done.stderr or done.stdout).strip())


def compile_all(
    installs: Sequence[InstallSet],
    index_url: str,
    cache_dir: Path,
    *,
    workers: int = 4,
    timeout_s: float = 120.0,
    deadline_s: Optional[float] = None,
    environ: Optional[Mapping[str, str]] = None,
) -> list[Compiled]:
    """Compile every install set, ``workers`` at a time, sharing one uv cache. With
    ``deadline_s``, a compile gets no longer than what is left of it, and one not
    started by then fails as not compiled."""
    end = None if deadline_s is None else time.monotonic() + deadline_s
    uv_bin = find_uv()  # once: its sysconfig lookup is not safe to race on from threads

    def one(install: InstallSet) -> Compiled:
        left = timeout_s if end is None else min(timeout_s, end - time.monotonic())
        if left <= 0:
            return Compiled(install, False, 0.0, f"not compiled: over the {deadline_s} s deadline")
        return uv_compile(
            install, index_url, cache_dir, timeout_s=left, environ=environ, uv_bin=uv_bin
        )

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, installs))


def failures(results: Sequence[Compiled]) -> str:
    """A report of the install sets uv could not resolve ("" when none)."""
    return "\n\n".join(
        f"{r.install.name} [{', '.join(r.install.cases)}]: {r.install.describe()}\n{r.output}"
        for r in results
        if not r.ok
    )
