"""Live: every ok plan of the data-driven cases installs from the configured package index
(needs network; the offline counterpart against the replica is test_installability.py).

Each distinct install set is compiled by uv for its plan's platform and Python, a few at a
time with one shared uv cache, within a deadline; the failure report names each plan that
does not resolve (its cases, pip set, platform, Python) with uv's message."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.installability import compile_all, failures, install_sets
from tfenv.kb import KnowledgeBase
from tfenv.kb._index_url import configured_index_url

pytestmark = pytest.mark.live

# Plans that do not install from the real index, by a case id of theirs: product bugs to
# fix in src. Strict, like xfail(strict=True): the test fails when one installs again
# (remove it here then) or names no plan any more. Their Requires-Dist pins versions of
# pure-Python dependencies published as sdists only; the replica cannot see that, since
# the recorded data does not say which dependencies have wheels.
_GAST = "needs gast==0.2.2 (sdist only)"
_TERMCOLOR_WRAPT = "needs termcolor==1.1.0, wrapt==1.12.1 (sdists only)"
KNOWN_NOT_INSTALLING: dict[str, str] = {
    "linux-2.0-needs-tensorflow-gpu": f"tensorflow-gpu==2.0.4 {_GAST}",
    "windows-2.0-tensorflow-gpu": f"tensorflow-gpu==2.0.4 {_GAST}",
    "minor-2.1": f"tensorflow==2.1.4 {_GAST}",
    "minor-2.4": f"tensorflow==2.4.4 {_TERMCOLOR_WRAPT}",
    "linux-2.5": f"tensorflow==2.5.3 {_TERMCOLOR_WRAPT}",
    "windows-2.5-native-gpu": f"tensorflow==2.5.3 {_TERMCOLOR_WRAPT}",
    "minor-2.6": "tensorflow==2.6.5 needs clang==5.0, termcolor==1.1.0, wrapt==1.12.1 (sdists)",
}
WORKERS = 4
PER_PLAN_S = 180.0
DEADLINE_S = 420.0


def _cache(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    cache = getattr(request.config, "cache", None)  # absent with -p no:cacheprovider
    if cache is not None:
        return Path(cache.mkdir("tfenv-uv-cache"))
    return tmp_path / "uv-cache"


def test_every_ok_plan_installs_live(
    request: pytest.FixtureRequest, tmp_path: Path, kb: KnowledgeBase
) -> None:
    url, _origin = configured_index_url()
    installs = install_sets(kb)
    started = time.monotonic()
    results = compile_all(
        installs,
        url,
        _cache(request, tmp_path),
        workers=WORKERS,
        timeout_s=PER_PLAN_S,
        deadline_s=DEADLINE_S,
        environ=os.environ,
    )
    elapsed = time.monotonic() - started
    named = {c for i in installs for c in i.cases}
    assert not set(KNOWN_NOT_INSTALLING) - named, "KNOWN_NOT_INSTALLING names no plan"
    known = [r for r in results if set(r.install.cases) & set(KNOWN_NOT_INSTALLING)]
    # a known plan must fail for its known reason (a dependency without wheels)
    unexpected = [
        r for r in results if not r.ok and (r not in known or "no usable wheels" not in r.output)
    ]
    summary = f"{len(unexpected)} of {len(results)} plans do not install from {url}"
    assert not unexpected, f"{summary} ({elapsed:.0f} s):\n\n{failures(unexpected)}"
    installs_now = [r.install.name for r in known if r.ok]
    assert not installs_now, (
        f"these install now, remove them from KNOWN_NOT_INSTALLING: {installs_now}"
    )
    if known:
        why = {KNOWN_NOT_INSTALLING.get(c, "") for r in known for c in r.install.cases} - {""}
        pytest.xfail(
            f"{len(known)} of {len(results)} plans do not install: {'; '.join(sorted(why))}"
        )
