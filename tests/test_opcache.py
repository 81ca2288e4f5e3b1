"""Formula images replayed from kept operators give WeasyPrint's own bytes (generator/printing/opcache.py).

Each test prints the same HTML three ways: with the cache off, once to fill it, and once replaying it (its file
read back as a new process would). The committed reports, replayed, are compared with stock WeasyPrint in
tests/test_fastpdf.py (its later builds share the first one's cache).
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path

import pytest

weasyprint = pytest.importorskip("weasyprint")

from genreport.printing import gate, opcache  # noqa: E402
from shared import ROOT  # noqa: E402

pytestmark = pytest.mark.skipif(not opcache.install(), reason=f"the gate is closed: {gate.reason()}")


def _uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


def _report_formulas() -> list[str]:
    """The 8B report's formula images (display and inline), as the report writes them."""
    html = (ROOT / "out" / "llama8b-h100" / "report.html").read_text(encoding="utf-8")
    return re.findall(r'<img class="math[^"]*"[^>]*>', html)


def _print(html: str) -> bytes:
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    return weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)


def _three_ways(html: str, cache: Path, monkeypatch) -> tuple[bytes, bytes, bytes, dict]:
    """(stock, filling, replaying) PDFs and the replaying run's counts."""
    monkeypatch.setenv("GENREPORT_CACHE", str(cache))
    monkeypatch.setattr(opcache, "_entries", None)
    monkeypatch.setattr(opcache, "_placed", {})
    monkeypatch.setattr(opcache, "_placed_new", [])
    opcache.uninstall()
    try:
        stock = _print(html)
    finally:
        opcache.install()
    filling = _print(html)
    opcache.save()
    monkeypatch.setattr(opcache, "_entries", None)  # read back from the files, as the next run does
    monkeypatch.setattr(opcache, "_placed", {})
    before = dict(opcache.stats)
    replaying = _print(html)
    counts = {k: opcache.stats[k] - before[k] for k in before}
    return stock, filling, replaying, counts


def test_the_report_formulas_replayed_are_the_same_bytes(tmp_path, monkeypatch):
    """Every formula of the 8B report, in text of three colours, in a table cell and in a list: the colour and
    opacity a formula starts from are part of its key."""
    imgs = _report_formulas()
    assert len(imgs) >= 80
    head = (ROOT / "templates" / "report.css").read_text(encoding="utf-8")
    body = []
    for i, img in enumerate(imgs):
        colour = ("#b00020", "#0b5cad", "inherit")[i % 3]
        body.append(f'<p style="color: {colour}">before {img} after</p>')
        if i % 7 == 0:
            body.append(f"<table><tr><td>cell {img}</td><td class='n'>1.0</td></tr></table><ul><li>{img}</li></ul>")
    html = f"<html><head><style>{head}</style></head><body>{''.join(body)}</body></html>"
    stock, filling, replaying, counts = _three_ways(html, tmp_path / "cache", monkeypatch)
    assert filling == stock
    assert replaying == stock
    assert counts["replayed"] >= len(imgs) and counts["recorded"] == 0, counts
    kept = json.loads((tmp_path / "cache" / opcache.FILE).read_text())
    assert kept["entries"] and all(len(e[0]) == 64 for e in kept["entries"])


SVG_TEXT = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><text x="2" y="14" '
            'font-family="DejaVu Sans">a b</text></svg>')
SVG_OPACITY = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><g opacity="0.5">'
               '<path d="M 0 0 L 20 20 L 0 20 Z" fill="red"/></g></svg>')
SVG_CLIP = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20"><defs><clipPath id="c">'
            '<rect width="10" height="10"/></clipPath></defs><path clip-path="url(#c)" d="M 0 0 L 20 20 L 0 20 Z"/></svg>')
SVG_ALPHA = ('<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">'
             '<path d="M 0 0 L 20 20 L 0 20 Z" fill="blue" fill-opacity="0.25" stroke="black" stroke-opacity="0.5"/>'
             '</svg>')


def test_images_with_text_groups_or_clips_are_kept_where_they_were_drawn(tmp_path, monkeypatch):
    """Text (the document's fonts and their glyphs), opacity (a transparency group, named by counting) and clip
    paths (written through the page's matrix) are kept as placed images: by position, with the glyphs and groups
    they made. Fill and stroke opacity alone (states named by value) are kept as anywhere-images."""
    imgs = [f'<img src="{_uri(s)}">' for s in (SVG_TEXT, SVG_OPACITY, SVG_CLIP, SVG_ALPHA)]
    html = "<html><body>" + "".join(f"<p>{i} {i}</p>" for i in imgs) + "</body></html>"
    stock, filling, replaying, counts = _three_ways(html, tmp_path / "cache", monkeypatch)
    assert filling == stock and replaying == stock
    # The first text image makes its font (DejaVu Sans is new to the page): drawn, every time. Every other image
    # is replayed: the alpha one anywhere, the others at their places.
    assert counts["replayed"] == 7 and counts["drawn"] == 1, counts
    kept = json.loads((tmp_path / "cache" / opcache.FILE).read_text())["entries"]
    assert len(kept) == 1 and [s[0] for s in kept[0][2]] == ["a0.25", "A0.5"], kept
    placed = [json.loads(p.read_text()) for p in (tmp_path / "cache" / opcache.PLACED_FOLDER).glob("*.json")]
    assert len(placed) == 5  # text once, opacity and clip twice each
    assert sum(bool(p["glyphs"]) for p in placed) == 1 and sum(len(p["groups"]) for p in placed) == 2


def test_a_figure_of_the_report_is_replayed_at_its_place_with_the_same_bytes(tmp_path, monkeypatch):
    """A matplotlib figure (anchored text in groups, clip paths, forced opacity), after body text in the same font,
    drawn at two places: each place is replayed with its glyphs and groups."""
    html = (ROOT / "out" / "llama8b-h100" / "report.html").read_text(encoding="utf-8")
    figure = re.search(r'<img src="(data:image/svg\+xml;base64,[^"]+)"[^>]*alt="[^"]*roofline', html)
    uri = figure.group(1) if figure else re.findall(r'src="(data:image/svg\+xml;base64,[^"]{20000,})"', html)[0]
    page = (f'<p style="font-family: DejaVu Sans">Roofline, decode 0123456789 ×</p><img src="{uri}" width="400">'
            f'<p style="font-family: DejaVu Sans; font-style: italic">again</p><img src="{uri}" width="300">')
    stock, filling, replaying, counts = _three_ways(f"<html><body>{page}</body></html>", tmp_path / "c", monkeypatch)
    assert filling == stock and replaying == stock
    assert counts["replayed"] >= 1, counts


class _Font:
    def __init__(self, widths):
        self.widths, self.to_unicode, self.missing = dict(widths), {}, {}


@pytest.mark.parametrize("widths", [{}, {5: 601}])
def test_a_placed_image_is_drawn_where_a_glyph_it_read_has_another_width(widths):
    """A width the recording read (not computed) must be the same at replay: it sets the kerning written."""
    import types

    stream = types.SimpleNamespace(_fonts={7: _Font(widths)})
    entry = (b"", (), ((7, ((5, "a"),), ((5, 600, False),)),), (), (), "unchanged")
    assert opcache._replay_placed(stream, entry) is False
    assert stream._fonts[7].to_unicode == {} and stream._fonts[7].widths == widths  # nothing done


@pytest.mark.parametrize("change", ["ops", "ids", "font", "versions"])
def test_a_placed_file_that_is_not_as_written_is_ignored(tmp_path, monkeypatch, change):
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path))
    monkeypatch.setattr(opcache, "_placed", {})
    key = "1" * 64
    data = {"versions": opcache._versions(), "key": key, "ops": "q\n/x0 Do\nQ", "states": [], "font": "unchanged",
            "glyphs": [], "ids": ["x0"], "groups": [[[0, 0, 1, 1], "0 0 m\nh", [], []]]}
    folder = tmp_path / opcache.PLACED_FOLDER
    folder.mkdir()
    (folder / f"{key}.json").write_text(json.dumps({**data, "digest": opcache._digest(key, data)}))
    assert opcache._placed_entry(key) is not None
    monkeypatch.setattr(opcache, "_placed", {})
    bad = {"ops": "q\n/p0 scn\n/x0 Do\nQ", "ids": ["../x"], "font": ["f", "big"], "versions": {}}
    data[change] = bad[change]
    (folder / f"{key}.json").write_text(json.dumps({**data, "digest": opcache._digest(key, data)}))
    assert opcache._placed_entry(key) is None


@pytest.mark.parametrize("content", [
    b"not json", b"[]", b'{"versions": {}, "entries": []}', b"\xff\xfe",
    "BAD_ENTRY",
])
def test_a_cache_file_that_is_not_as_written_is_ignored(tmp_path, monkeypatch, content):
    monkeypatch.setenv("GENREPORT_CACHE", str(tmp_path))
    monkeypatch.setattr(opcache, "_entries", None)
    if content == "BAD_ENTRY":
        content = json.dumps({"versions": opcache._versions(),
                              "entries": [["0" * 64, "0 0 m", [["a1", {"SMask": "/x0"}]]]]}).encode()
    (tmp_path / opcache.FILE).write_bytes(content)
    assert opcache._cache() == {}


def test_a_warm_process_holds_a_bounded_number_of_placed_images(monkeypatch):
    monkeypatch.setattr(opcache, "_placed", {})
    monkeypatch.setattr(opcache, "_placed_new", ["w", "a"])  # recorded, not written yet: still bounded
    monkeypatch.setattr(opcache, "PLACED_KEEP", 3)
    for key in ("w", "a", "b", "c"):
        opcache._keep_placed(key, (key,))
    opcache._use("a")  # replayed: the most recently used
    opcache._keep_placed("d", ("d",))
    assert list(opcache._placed) == ["c", "a", "d"]
    assert opcache._placed_new == ["a"]  # "w", dropped from memory, is not written
