"""A small real refresh from the configured package index (needs network)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet

from tfenv.index_url import configured_index_url
from tfenv.refresh import make_client, refresh


@pytest.mark.live
def test_refresh_one_version_live(tmp_path: Path) -> None:
    url, _origin = configured_index_url()
    with make_client(30.0) as client:
        outcome = refresh(
            client,
            url,
            tmp_path,
            packages=["tensorflow"],
            versions=SpecifierSet("==2.15.0.post1"),
            today=datetime.date(2026, 1, 1),
        )
    doc = json.loads((tmp_path / "index" / "tensorflow.json").read_text())
    assert doc["source"] == "simple:/tensorflow/"
    (release,) = doc["releases"]
    assert release["version"] == "2.15.0.post1"
    assert sorted(release["wheels"]) == ["linux_x86_64"]
    linux = release["wheels"]["linux_x86_64"]
    assert "nvidia-cudnn-cu12==8.9.4.25" in linux["and_cuda"]
    assert outcome.wheels >= 3
