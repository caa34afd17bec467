"""Re-record the test fixture under ``tests/data/index/`` from the configured index.

Run by hand (``.venv/bin/python tests/record_index.py``); not collected by pytest.
Keeps a small real subset (the versions in ``SUBSET``, Python 3.10/3.11 wheels),
rewrites file URLs to ``../../files/<filename>`` and stores each wheel's METADATA,
so no host name ends up in the repository.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_sdist_filename, parse_wheel_filename
from packaging.version import Version

from tfenv.index_url import configured_index_url
from tfenv.refresh import make_client
from tfenv.refresh.simple_api import SIMPLE_JSON, IndexFile, SimpleIndex
from tfenv.refresh.wheel_facts import parse_metadata

OUT = Path(__file__).parent / "data" / "index"
SUBSET = {
    "tensorflow": ["2.11.0", "2.14.0", "2.15.0", "2.15.0.post1", "2.21.0"],
    "tensorflow-gpu": ["2.10.0", "2.12.0"],
    "tensorflow-cpu": ["2.15.0"],
    "tensorflow-intel": ["2.15.0"],
    "tensorflow-cpu-aws": ["2.15.0"],
    "tensorflow-macos": ["2.15.0"],
    "tensorflow-metal": ["1.1.0"],
}
PYTHONS = ("cp310", "cp311", "py3")
CUDA_VERSIONS_KEPT = 2


def _version(filename: str) -> Version | None:
    try:
        if filename.endswith(".whl"):
            return parse_wheel_filename(filename)[1]
        return parse_sdist_filename(filename)[1]
    except ValueError:
        return None


def _strip(raw: dict[str, Any]) -> dict[str, Any]:
    keep = ("filename", "hashes", "requires-python", "size", "upload-time", "yanked")
    entry = {k: raw[k] for k in keep if k in raw}
    entry["url"] = f"../../files/{raw['filename']}"
    return entry


def _page(client: Any, url: str) -> dict[str, Any]:
    resp = client.get(url, headers={"Accept": SIMPLE_JSON})
    resp.raise_for_status()
    page: dict[str, Any] = resp.json()
    return page


def main() -> None:
    index_url, _origin = configured_index_url()
    shutil.rmtree(OUT, ignore_errors=True)
    (OUT / "simple").mkdir(parents=True)
    (OUT / "files").mkdir()
    specs: dict[str, list[SpecifierSet]] = {}
    with make_client(60) as client:
        idx = SimpleIndex(client, index_url)
        for name, versions in SUBSET.items():
            page = _page(client, idx.project_url(name))
            files = [
                f
                for f in page["files"]
                if str(_version(f["filename"])) in versions
                and (not f["filename"].endswith(".whl") or f["filename"].split("-")[2] in PYTHONS)
            ]
            for f in files:
                if not f["filename"].endswith(".whl"):
                    continue
                ifile = IndexFile(
                    f["filename"], f["url"], f.get("size"), None, None, False, None, None
                )
                meta = idx.metadata(ifile)
                (OUT / "files" / f"{f['filename']}.metadata").write_bytes(meta)
                for req in parse_metadata(meta, f["filename"]).requirements:
                    if req.marker is not None and "and-cuda" in str(req.marker):
                        specs.setdefault(canonicalize_name(req.name), []).append(req.specifier)
            _write(name, page, files)
        for name, pins in sorted(specs.items()):
            page = _page(client, idx.project_url(name))
            keep_versions = sorted(
                {
                    v
                    for f in page["files"]
                    if (v := _version(f["filename"])) is not None
                    and any(s.contains(v, prereleases=True) for s in pins)
                }
            )
            wanted = set(keep_versions[-CUDA_VERSIONS_KEPT:]) | {
                v for v in keep_versions if any(str(v) in str(s) for s in pins)
            }
            files = [f for f in page["files"] if _version(f["filename"]) in wanted]
            _write(name, page, files)


def _write(name: str, page: dict[str, Any], files: list[dict[str, Any]]) -> None:
    kept = [_strip(f) for f in files]
    versions = sorted(
        {str(v) for f in kept if (v := _version(f["filename"])) is not None}, key=Version
    )
    out = {
        "meta": page.get("meta", {}),
        "name": page.get("name", name),
        "files": kept,
        "versions": versions,
    }
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    (OUT / "simple" / f"{name}.json").write_text(text, "utf-8")


if __name__ == "__main__":
    main()
