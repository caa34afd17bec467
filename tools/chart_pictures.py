#!/usr/bin/env python3
"""Re-draw the chart pictures in docs/charts/ with a headless browser.

Usage::

    python tools/chart_pictures.py [--browser chromium] [--out docs/charts]

Writes ``matrix.png`` (``tfenv matrix --html``) and one PNG per machine in
:data:`MACHINES` (``tfenv resolve ... --chart FILE.html``), each a screenshot of the HTML
page as Debian's ``chromium --headless`` renders it. The pixels depend on the browser and
its fonts, so these pictures are not checked for drift (``docs/matrix.svg`` is); re-draw
them when the data or the layout changes.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tfenv.cli import main as tfenv

#: name -> the ``tfenv resolve`` machine flags of the pictures in docs/charts.md
MACHINES = {
    "rtx5090-driver575": ["--os", "linux", "--gpu", "RTX 5090", "--driver", "575.57.08"],
    "gtx1060-windows": ["--os", "windows", "--gpu", "GTX 1060"],
    "m2-mac": ["--os", "macos", "--arch", "arm64"],
}


def _size(page: Path) -> tuple[int, int]:
    """A window that holds the whole page: the SVG's size, the text above it and margins."""
    found = re.search(r'<svg [^>]*width="([0-9.]+)" height="([0-9.]+)"', page.read_text("utf-8"))
    if found is None:
        raise SystemExit(f"{page}: no <svg> with a size")
    return int(float(found.group(1))) + 40, int(float(found.group(2))) + 110


def _shoot(browser: str, page: Path, png: Path, profile: Path) -> None:
    w, h = _size(page)
    argv = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={w},{h}",
        f"--screenshot={png}",
        page.as_uri(),
    ]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    print(f"Wrote {png}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--browser", default="chromium")
    parser.add_argument("--out", type=Path, default=Path("docs/charts"))
    args = parser.parse_args(argv)
    browser = shutil.which(args.browser)
    if browser is None:
        parser.error(f"{args.browser} is not on PATH (Debian: apt-get install chromium)")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        page = folder / "matrix.html"
        if tfenv(["matrix", "--html", str(page)]) != 0:
            return 1
        _shoot(browser, page, args.out / "matrix.png", folder / "profile")
        for name, flags in MACHINES.items():
            page = folder / f"{name}.html"
            with contextlib.redirect_stdout(io.StringIO()):  # the plan itself is not wanted
                code = tfenv(["resolve", *flags, "--chart", str(page)])
            if code not in (0, 1):
                return 1
            _shoot(browser, page, args.out / f"{name}.png", folder / "profile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
