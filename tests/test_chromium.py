"""The HTML as a reader sees it: headless Chromium renders it (no script, no network) at desktop and phone width."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from genreport.write.build import build

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (scripts/setup --test installs it)")


@pytest.fixture(scope="module")
def html_file(tmp_path_factory):
    built = build(ROOT / "specs" / "llama8b-h100.yaml", formats=("html",))
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_bytes(built.files["report.html"])
    return path


def _shot(html: Path, width: int, height: int, out: Path) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
             "--no-first-run", "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             "--hide-scrollbars", "--force-device-scale-factor=1", f"--window-size={width},{height}",
             f"--screenshot={out}", html.as_uri()],
            capture_output=True, timeout=120, check=False)


def _ink(png: Path) -> float:
    from PIL import Image

    im = Image.open(png).convert("L")
    hist = im.histogram()
    return 1 - sum(hist[250:]) / sum(hist)


@pytest.mark.parametrize("width,height", [(1000, 5200), (390, 3000)])
def test_report_renders_with_text_and_figures(html_file, tmp_path, width, height):
    png = tmp_path / f"shot-{width}.png"
    _shot(html_file, width, height, png)
    assert png.is_file(), "chromium wrote no screenshot"
    from PIL import Image

    im = Image.open(png)
    assert im.size == (width, height)
    assert _ink(png) > 0.03, "the page looks blank"
    # the right edge at phone width is background, not cut-off content: the layout fits the screen
    if width == 390:
        strip = im.convert("L").crop((width - 4, 0, width, height))
        hist = strip.histogram()
        assert sum(hist[240:]) / sum(hist) > 0.9, "content runs off the right edge at phone width"
