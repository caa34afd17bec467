"""The chart pages rendered by a real headless browser (Debian's ``chromium``).

The page is opened twice: once for a screenshot, which must not be blank and must show
the fill of every verdict the chart uses, and once with a probe script appended to a
copy of the page, which asks the browser where every label was laid out: each must be
on screen and inside its cell. Without chromium on PATH the tests are skipped, unless
``TFENV_BROWSER_TEST=required`` (CI installs chromium and sets it), when they fail.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tfenv import matrix
from tfenv.chart.palette import MACHINE, MATRIX
from tfenv.chart.render import machine_chart_text, matrix_chart_text
from tfenv.kb import KnowledgeBase
from tfenv.models.target import Request, Target
from tfenv.resolver import resolve

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_WINDOW = (1200, 1400)

# appended to a copy of the page: where the browser put every label
_PROBE = """
<pre id="probe"></pre>
<script>
const out = {labels: 0, offscreen: [], outside: [], empty: []};
const W = window.innerWidth, H = window.innerHeight;
for (const t of document.querySelectorAll("svg text")) {
  out.labels += 1;
  const r = t.getBoundingClientRect();
  if (t.textContent.length > 0 && (r.width <= 0 || r.height <= 0)) out.empty.push(t.textContent);
  if (r.left < 0 || r.top < 0 || r.right > W || r.bottom > H) out.offscreen.push(t.textContent);
  const g = t.closest("g.cell");
  if (g) {
    const c = g.querySelector("rect").getBoundingClientRect();
    if (r.left < c.left - 1 || r.right > c.right + 1 || r.top < c.top - 1 ||
        r.bottom > c.bottom + 1) out.outside.push(t.textContent);
  }
}
document.getElementById("probe").textContent = JSON.stringify(out);
</script>
"""


@pytest.fixture(scope="module")
def browser() -> str:
    for name in _BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    why = (
        "no headless chromium on PATH (Debian: apt-get install chromium); "
        "TFENV_BROWSER_TEST=required turns this skip into a failure"
    )
    if os.environ.get("TFENV_BROWSER_TEST") == "required":
        pytest.fail(why)
    pytest.skip(why)


def _run(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    w, h = _WINDOW
    argv = [
        browser,
        "--headless",
        "--no-sandbox",  # root in a container has no user namespace for the sandbox
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        f"--user-data-dir={profile}",
        f"--window-size={w},{h}",
        *args,
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _probe(browser: str, page: Path, tmp_path: Path) -> dict[str, Any]:
    probe = tmp_path / f"probe-{page.name}"
    probe.write_text(page.read_text("utf-8").replace("</main>", _PROBE + "</main>"), "utf-8")
    done = _run(browser, tmp_path / "profile-dom", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found is not None, done.stdout[-2000:]
    result: dict[str, Any] = json.loads(html.unescape(found.group(1)))
    return result


def _screenshot_colours(browser: str, page: Path, tmp_path: Path) -> set[str]:
    from PIL import Image

    shot = tmp_path / f"{page.stem}.png"
    _run(browser, tmp_path / "profile-shot", f"--screenshot={shot}", page.as_uri())
    with Image.open(shot) as img:
        rgb = img.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20) or []
    assert len(colours) > 20, "the screenshot is (nearly) blank"
    return {"#" + "".join(f"{v:02X}" for v in c) for _, c in colours if isinstance(c, tuple)}


def _check(browser: str, page: Path, tmp_path: Path, fills: set[str], labels: int) -> None:
    probe = _probe(browser, page, tmp_path)
    assert probe["labels"] == labels
    assert probe["empty"] == [], f"labels drawn with no size: {probe['empty'][:5]}"
    assert probe["offscreen"] == [], f"labels off the screen: {probe['offscreen'][:5]}"
    assert probe["outside"] == [], f"labels outside their cells: {probe['outside'][:5]}"
    seen = _screenshot_colours(browser, page, tmp_path)
    assert fills <= seen, f"fills not on the screenshot: {sorted(fills - seen)}"


def test_the_compatibility_chart_renders(browser: str, kb: KnowledgeBase, tmp_path: Path) -> None:
    text = matrix_chart_text(kb, matrix.matrix_rows(kb), "html")
    page = tmp_path / "matrix.html"
    page.write_text(text, "utf-8")
    verdicts = set(re.findall(r'data-verdict="([a-z-]+)"', text)) - {"fact"}
    assert {"native", "jit", "cannot-load", "gpu-build", "cpu-only"} <= verdicts
    fills = {MATRIX[v].fill for v in verdicts}
    _check(browser, page, tmp_path, fills, text.count("<text "))


def test_the_chart_of_one_machine_renders(browser: str, kb: KnowledgeBase, tmp_path: Path) -> None:
    target = Target("windows", "x86_64", cc=None)
    text = machine_chart_text(kb, resolve(kb, target, Request()), "html")
    page = tmp_path / "machine.html"
    page.write_text(text, "utf-8")
    verdicts = set(re.findall(r'data-verdict="([a-z-]+)"', text))
    fills = {MACHINE[v].fill for v in verdicts}
    _check(browser, page, tmp_path, fills, text.count("<text "))


def test_the_probe_would_see_a_label_outside_its_cell(
    browser: str, kb: KnowledgeBase, tmp_path: Path
) -> None:
    text = matrix_chart_text(kb, matrix.matrix_rows(kb, tf="2.15"), "html")
    text = text.replace(">12.2</text>", ">12.2 and a label far too long for its cell</text>", 1)
    page = tmp_path / "bad.html"
    page.write_text(text, "utf-8")
    probe = _probe(browser, page, tmp_path)
    assert probe["outside"] == ["12.2 and a label far too long for its cell"]
