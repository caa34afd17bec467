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
from tests.lock_index import live_uv_cache
from tfenv.index_url import configured_index_url
from tfenv.kb import KnowledgeBase

pytestmark = pytest.mark.live

WORKERS = 4
PER_PLAN_S = 180.0
DEADLINE_S = 420.0


def test_every_ok_plan_installs_live(
    request: pytest.FixtureRequest, tmp_path: Path, kb: KnowledgeBase
) -> None:
    url, _origin = configured_index_url()
    installs = install_sets(kb)
    started = time.monotonic()
    results = compile_all(
        installs,
        url,
        live_uv_cache(request, tmp_path),
        workers=WORKERS,
        timeout_s=PER_PLAN_S,
        deadline_s=DEADLINE_S,
        environ=os.environ,
    )
    elapsed = time.monotonic() - started
    failing = [r for r in results if not r.ok]
    summary = f"{len(failing)} of {len(results)} plans do not install from {url}"
    assert not failing, f"{summary} ({elapsed:.0f} s):\n\n{failures(failing)}"
