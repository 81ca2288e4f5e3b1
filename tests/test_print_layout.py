"""The printed report holds its layout: no page more than 40% blank except a chapter's last, long tables split
with their header repeated, lead-ins kept with what they introduce.

Each committed spec's PDF is built, rendered with poppler (pdftoppm, 40 dpi, grey) and read (pdftotext).  A page's
blank fraction is the share of its body band (the running footer left out) below its last inked row.  A chapter
ends on a page when the next page starts with a numbered heading ("3. Three modes") or "Appendix".
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from shared import ROOT, built

SPECS = sorted(p.name for p in (ROOT / "specs").glob("*.yaml"))
BLANK_LIMIT = 0.40  # issue 15: "no page more than 40% blank except a chapter's last"
TOP, BOTTOM = 0.06, 0.90  # the body band of an A4 page (the 18 mm bottom margin holds the footer)
CHAPTER = re.compile(r"^\s*(\d+\.\s+\S|Appendix\b)")

pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None,
                                reason="poppler-utils not installed (scripts/setup --test)")


def blank_fractions(pdf: Path, tmp: Path) -> list[float]:
    import numpy as np
    from PIL import Image

    # PGM, not PNG: the same pixels, without the PNG encoding that took three quarters of pdftoppm's time
    subprocess.run(["pdftoppm", "-r", "40", "-gray", str(pdf), str(tmp / "p")], check=True)
    out = []
    for pgm in sorted(tmp.glob("p-*.pgm"), key=lambda p: int(p.stem.split("-")[-1])):
        im = Image.open(pgm).convert("L")
        w, h = im.size
        top, bottom = int(h * TOP), int(h * BOTTOM)
        band = im.crop((int(w * 0.08), top, int(w * 0.92), bottom))
        inked = np.flatnonzero(np.asarray(band).min(axis=1) < 200)
        last = int(inked[-1]) if inked.size else 0
        out.append((band.height - 1 - last) / band.height)
    return out


def pages_text(pdf: Path) -> list[str]:
    """Each page's text (pdftotext -layout): read once per PDF file and size, for the two tests of each report."""
    stat = pdf.stat()
    return list(_pages_text(pdf, stat.st_size, stat.st_mtime_ns))


@functools.lru_cache(maxsize=16)
def _pages_text(pdf: Path, _size: int, _mtime: int) -> tuple[str, ...]:
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return tuple(text.split("\f"))


def too_blank(pdf: Path, tmp: Path) -> list[str]:
    fracs, texts = blank_fractions(pdf, tmp), pages_text(pdf)
    bad = []
    for i, frac in enumerate(fracs):
        nxt = texts[i + 1] if i + 1 < len(texts) else ""
        first = next((ln for ln in nxt.splitlines() if ln.strip()), "")
        if i == len(fracs) - 1 or CHAPTER.match(first):
            continue  # a chapter's last page may end early
        if frac > BLANK_LIMIT:
            bad.append(f"page {i + 1}: {frac:.0%} blank")
    return bad


FRESH = "llama8b-h100.yaml"  # built afresh here (the session's build, which tests/test_report.py reads too)


@pytest.fixture(scope="module", params=SPECS)
def pdf(request, tmp_path_factory) -> Path:
    """The committed PDF (tests/test_golden.py and `genreport --check` keep it equal to a fresh build); one spec is
    built afresh too, so a layout change that was not rebuilt still shows here."""
    name = Path(request.param).stem
    if request.param != FRESH:
        return ROOT / "out" / name / "report.pdf"
    path = tmp_path_factory.mktemp("pdf") / "report.pdf"
    path.write_bytes(built(FRESH, ("html", "pdf", "json")).files["report.pdf"])
    return path


def test_no_page_too_blank_except_a_chapter_end(pdf, tmp_path):
    assert too_blank(pdf, tmp_path) == []


def test_long_tables_repeat_their_header(pdf):
    """The formula index in the appendix runs over pages; each page it continues on starts with its header."""
    texts = pages_text(pdf)
    header = re.compile(r"^\s*quantity\s+result\s+at\s+source", re.M)
    pages = [i for i, t in enumerate(texts) if header.search(t)]
    assert len(pages) >= 2, "the formula index fits one page: nothing to check"
    assert pages == list(range(pages[0], pages[0] + len(pages))), pages


def test_the_check_sees_a_blank_page(tmp_path):
    """A PDF whose first page holds one line above a page break is reported (the check can fail)."""
    from genreport.printing.pdf import html_to_pdf

    html = ("<html><body><p>one line</p><p style='break-before: page'>next page</p>"
            "<p>more</p></body></html>")
    path = tmp_path / "t.pdf"
    path.write_bytes(html_to_pdf(html))
    assert [b.split(":")[0] for b in too_blank(path, tmp_path)] == ["page 1"]


def _figure_document(caption_words: int, sentences: int, lead: str = "<p>The figure:</p>", wide: bool = False) -> str:
    """The report's stylesheet, ``sentences`` sentences of text, ``lead``, then a figure (a 4:3 SVG picture, 16:9 if
    ``wide``, whose text "PICTUREMARK" shows its page) whose caption has ``caption_words`` words between "CAPSTART"
    and "CAPEND"."""
    import base64

    css = (ROOT / "templates" / "report.css").read_text(encoding="utf-8")
    w, h = (480, 270) if wide else (400, 300)
    svg = (f"<svg xmlns='http://www.w3.org/2000/svg' width='{w}' height='{h}' viewBox='0 0 {w} {h}'>"
           f"<rect width='{w}' height='{h}' fill='#ddd'/><text x='20' y='150' font-size='30'>PICTUREMARK</text></svg>")
    src = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    filler = "".join(f"<p>{'Filler words of a paragraph before the figure. ' * min(9, sentences - k)}</p>"
                     for k in range(0, sentences, 9))
    caption = " ".join(["caption"] * caption_words)
    return (f"<html><head><style>{css}</style></head><body>{filler}{lead}"
            f"<figure><picture><img src='{src}'></picture><figcaption>CAPSTART {caption} CAPEND</figcaption>"
            "</figure><p>After the figure.</p></body></html>")


def _pages(tmp_path: Path, caption_words: int, sentences: int, **kw) -> tuple[int, int, int]:
    """The pages (from 0) of the figure's picture, its caption's first word and its caption's last word."""
    texts = pages_text(_figure_pdf(tmp_path, caption_words, sentences, **kw))
    return (next(i for i, t in enumerate(texts) if "PICTUREMARK" in t), next(i for i, t in enumerate(texts) if "CAPSTART" in t),
            next(i for i, t in enumerate(texts) if "CAPEND" in t))


def _figure_pdf(tmp_path: Path, caption_words: int, sentences: int, **kw) -> Path:
    from genreport.printing.pdf import html_to_pdf

    path = tmp_path / f"f{caption_words}-{sentences}-{len(kw.get('lead', ''))}-{kw.get('wide', False)}.pdf"
    if not path.is_file():
        path.write_bytes(html_to_pdf(_figure_document(caption_words, sentences, **kw)))
    return path


def test_a_long_caption_splits_and_a_short_one_keeps_its_figure_whole(tmp_path):
    """A figure whose caption runs over many lines (the frontier figure of a two-node MoE: 13 lines) may continue its
    caption on the next page, its picture and first lines where they fit; moved whole it left 60% of a page blank
    (Llama 4 Maverick bf16 on 16 H100, page 15).  A caption of a line or two never leaves its picture: at the text's
    length where the figure first moves to page 2, and one sentence shorter, picture and caption share a page."""
    assert _pages(tmp_path, 400, 36) == (0, 0, 1)  # picture and first lines on page 1, the caption's end on page 2
    lo, hi = 20, 60  # sentences: the short-captioned figure is on page 1 after lo, on page 2 after hi
    assert _pages(tmp_path, 12, lo)[0] == 0 and _pages(tmp_path, 12, hi)[0] == 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _pages(tmp_path, 12, mid)[0] == 0 else (lo, mid)
    assert _pages(tmp_path, 12, lo) == (0, 0, 0) and _pages(tmp_path, 12, hi) == (1, 1, 1)


# What can precede a figure and move with it to the next page: a lead-in of three lines (the longest that cannot split,
# two lines at least on each side) and a heading (kept with what follows it).
LEADS = {"lead-in": "<p>" + "A lead-in of three lines that introduces the figure below it. " * 5 + "</p>",
         "heading": "<h3>A section that opens with its figure</h3>"}


@pytest.mark.parametrize("lead", sorted(LEADS))
def test_a_figure_that_moves_to_the_next_page_leaves_at_most_40_percent_blank(tmp_path, lead):
    """The tallest run that cannot break, moved whole to the next page, leaves the page before it at most 40% blank,
    whatever text comes before it: a picture of the report's shape (16:9: every figure's, as shipped) with a caption
    of three lines (the longest that cannot split) and a heading before it (kept with it); a lead-in paragraph no
    longer moves with its figure.  Kept with a three-line lead-in, with five caption lines unsplit and the picture at
    84% of the text's width, such a move left 40-42% blank (Mixtral 8x7B on Gaudi 3 and Llama 3.1 70B on MI300X with a
    training step, Llama 4 Scout on H20; here the lead-in case gave 0.417, now 0.346, the heading 0.397).  Found at the
    shortest text before the figure that pushes it over (the largest blank)."""
    import json

    shipped = json.loads((ROOT / "generator" / "printing" / "figure_sizes.json").read_text())
    assert shipped and all(float(h[:-2]) / float(w[:-2]) <= 9 / 16 + 1e-9 for w, h, _ in shipped.values())
    kw = {"lead": LEADS[lead], "wide": True}
    words = 40  # three lines of caption
    lo, hi = 20, 60
    assert _pages(tmp_path, words, lo, **kw)[0] == 0 and _pages(tmp_path, words, hi, **kw)[0] == 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _pages(tmp_path, words, mid, **kw)[0] == 0 else (lo, mid)
    pushed = _figure_pdf(tmp_path, words, hi, **kw)
    lines = [ln for ln in pages_text(pushed)[1].splitlines() if "caption" in ln]
    assert len(lines) == 3 and _pages(tmp_path, words, hi, **kw) == (1, 1, 1)  # three lines, moved whole
    blank = blank_fractions(pushed, tmp_path)[0]
    assert 0.2 < blank <= BLANK_LIMIT, blank


@pytest.mark.parametrize("wrap", ["bare", "static"])
def test_a_lead_in_moves_with_the_formula_it_introduces(tmp_path, wrap):
    """A lead-in ending in a colon never closes a page whose formula starts the next: the formula bare, or wrapped
    for the live page (``<div class="static-fx" data-static>``: the serving chapter's formulas, which cssselect2's
    ``:has`` could not see through; DeepSeek-V3 on 8 H200 left "...into its decode and prefill parts:" alone at the
    foot of page 19 with a third of it blank).  Found at the text's length where the formula first moves to page 2."""
    from genreport.printing.pdf import html_to_pdf

    css = (ROOT / "templates" / "report.css").read_text(encoding="utf-8")
    formula = "<div class='formula' style='height: 70mm'>FORMULAMARK</div>"
    if wrap == "static":
        formula = f"<div class='static-fx' data-static>{formula}</div>"

    def pages(sentences: int) -> tuple[int, int]:
        filler = "".join(f"<p>{'Filler words of a paragraph before the formula. ' * min(9, sentences - k)}</p>"
                         for k in range(0, sentences, 9))
        html = (f"<html><head><style>{css}</style></head><body>{filler}<p>LEADMARK the formula below:</p>"
                f"{formula}<p>After.</p></body></html>")
        path = tmp_path / f"{sentences}.pdf"
        path.write_bytes(html_to_pdf(html))
        texts = pages_text(path)
        return (next(i for i, t in enumerate(texts) if "LEADMARK" in t),
                next(i for i, t in enumerate(texts) if "FORMULAMARK" in t))

    lo, hi = 20, 90
    assert pages(lo)[1] == 0 and pages(hi)[1] == 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if pages(mid)[1] == 0 else (lo, mid)
    assert pages(hi) == (1, 1)


# a line of text that ends with a number (after a word, a comma, "(" or "=" and a space: not a figure's tick label)
# and a next line that begins with the unit it takes (pdftotext -layout keeps each printed line)
_BROKEN_UNIT = re.compile(r"[A-Za-z,(=] [\d,.]*\d\n[ \t]*(?:ms|µs|s|[kMGTP]?FLOP/s|[kMGTP]i?B(?:/s)?|tok(?:en)?s?/s)(?![\w/])")


# a unit with a slash broken after it ("at most 65 tok/ | s per chip")
_BROKEN_SLASH = re.compile(r"(?<![\w/])(?:[kMGTP]?FLOP|[kMGTP]i?B|B|tok(?:en)?s?)/\n[ \t]*(?:s|B|param|token)(?![\w/])")


def test_a_number_keeps_its_unit_on_its_line(pdf):
    """No printed line ends with a number whose unit starts the next (render.keep_units): the 8B on H100's PDF broke
    "at least 11.5 | ms (22,238 prompt tokens/s)" and figure 1's caption "W = 4.8 | TB/s"; a 70B's "61,350 | tok/s"."""
    text = "\n".join(pages_text(pdf))
    joined = [text[max(0, m.start() - 30):m.end()] for r in (_BROKEN_UNIT, _BROKEN_SLASH) for m in r.finditer(text)]
    assert not joined, joined


def test_keep_units_binds_a_number_to_its_unit_in_text_only():
    from genreport.present.render import keep_units

    nb = "\u00a0"
    def whole(unit):  # a word joiner after the slash: no break there, and no inline box (a span.nowrap made
        # WeasyPrint break its line at the first opportunity: "Decode" alone on page 1's first line of the 70B on H200)
        return unit.replace("/", "/\u2060")

    assert keep_units("<p>at least 11.5 ms, 61,350 tok/s per GPU at 4.8 TB/s and 989 TFLOP/s; 2 B/param, 3 s.</p>") == (
        f"<p>at least 11.5{nb}ms, 61,350{nb}{whole('tok/s')} per GPU at 4.8{nb}{whole('TB/s')} and "
        f"989{nb}{whole('TFLOP/s')}; 2{nb}{whole('B/param')}, 3{nb}s.</p>")
    # a unit with a slash stays whole (the TPU v5p report's "at most 65 tok/ | s per chip"); a path or a ratio of
    # words does not
    assert keep_units("<p>$/M tok, tok/s/seq; github.com/LLMServe/DistServe, and/or, 1/TPOT</p>") == (
        f"<p>{whole('$/M')} tok, {whole('tok/s/seq')}; github.com/LLMServe/DistServe, and/or, 1/TPOT</p>")
    assert keep_units("<td>yes, ≤ 1,545</td><p>≈ 298 such tokens</p>") == f"<td>yes, ≤{nb}1,545</td><p>≈{nb}298 such tokens</p>"
    kept = ('<p title="at 2 ms">8 GPUs, 3 seeds, 2 streams</p><code>x = 2 ms, tok/s</code><svg><text>4 GB</text></svg>'
            '<script>a = 1 ms</script><style>p { margin: 2 em }</style><a href="https://a.b/tok/s">https://a.b/tok/s</a>')
    assert keep_units(kept) == kept  # attributes, words that begin like a unit, code, pictures, scripts and styles
