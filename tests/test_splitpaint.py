"""Pages painted by two processes give the bytes one process paints (generator/printing/splitpaint.py).

The 8B report is laid out once and written with the split off, with it on, and with it on but made to fall back
(the child failing, or its pages not mergeable): the same bytes each time. Its child pages first use a font the
parent's pages do not (made by the merge from the child's text box) and add form groups and a pattern that are
renamed after the parent's. Every committed report (MoE, MLA, many GPUs) is printed by the whole fast path, split
painting included, and by stock WeasyPrint in tests/test_fastpdf.py.
"""

from __future__ import annotations

import os

import pytest

weasyprint = pytest.importorskip("weasyprint")

from genreport.printing import splitpaint  # noqa: E402
from shared import ROOT  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not splitpaint.enabled(99),
                                reason="needs fork, two cores and the checked WeasyPrint")


@pytest.fixture()
def laid_out():
    """The 8B report laid out once this session by the fast path, and its PDF written in one process
    (tests/shared.py)."""
    from shared import printed

    reference = printed("llama8b-h100")
    return "llama8b-h100", reference.document, reference.pdf


def _split(document) -> tuple[bytes, dict]:
    """Written as a first time: the document keeps the fonts a write made (with their glyphs) for the next."""
    document.fonts.clear()
    before = dict(splitpaint.stats)
    pdf = splitpaint.write_pdf(document)
    return pdf, {k: v - before[k] for k, v in splitpaint.stats.items() if isinstance(v, int)}


def test_split_painting_writes_the_same_bytes(laid_out):
    name, document, stock = laid_out
    pdf, counts = _split(document)
    assert counts["split"] == 1 and counts["merged"] == 1, (counts, splitpaint.stats["reason"])
    assert pdf == stock, f"{name}: split painting changed the PDF"
    assert counts["fonts_made"] >= 1 and counts["renamed"] >= 10, counts
    assert pdf == (ROOT / "out" / name / "report.pdf").read_bytes()


def test_a_child_that_fails_leaves_its_pages_to_the_parent(laid_out, monkeypatch):
    _name, document, stock = laid_out

    def broken(*args):
        raise RuntimeError("painting failed")

    monkeypatch.setattr(splitpaint, "_paint_child", broken)
    pdf, counts = _split(document)
    assert counts["fell_back"] == 1 and "painting failed" in splitpaint.stats["reason"]
    assert pdf == stock


def test_pages_that_cannot_be_merged_are_painted_by_the_parent(laid_out, monkeypatch):
    """A state the merge does not know how to name (here: no opacity state is accepted) -> all or nothing."""
    _name, document, stock = laid_out
    monkeypatch.setattr(splitpaint, "_VALUE_STATE", __import__("re").compile("(?!)"))
    pdf, counts = _split(document)
    assert counts["fell_back"] == 1 and counts["merged"] == 0, splitpaint.stats["reason"]
    assert pdf == stock


def test_it_can_be_turned_off(laid_out, monkeypatch):
    _name, document, stock = laid_out
    monkeypatch.setenv("GENREPORT_PDF_OFF", "split-paint")
    pdf, counts = _split(document)
    assert counts["split"] == 0 and pdf == stock


def test_renaming_refuses_names_used_another_way():
    renames = {b"x3": b"x7"}
    base = {"XObject": 2, "Pattern": 0}
    assert splitpaint._rename(b"/x3 Do", renames, base) == b"/x7 Do"
    assert splitpaint._rename(b"/x1 Do", renames, base) == b"/x1 Do"  # made before the fork
    assert splitpaint._rename(b"0 0 m", renames, base) == b"0 0 m"
    # several operators in one item (an image replayed by opcache): every Do renamed
    assert splitpaint._rename(b"q\n/x3 Do\n/x1 Do\nQ", renames, base) == b"q\n/x7 Do\n/x1 Do\nQ"
    for item in (b"/x3 BDC", b"/x9 Do", b"q /x9 Do Q", b"q /x3 Do /x3 BDC Q"):
        with pytest.raises(splitpaint._Fallback):
            splitpaint._rename(item, renames, base)


def test_a_font_first_used_by_the_childs_svg_text_is_made_in_the_parent(monkeypatch):
    """An SVG's text (a formula image WeasyPrint draws) is shaped while its page is painted, with a style no box of
    the laid-out pages has: a font it is the first to use on the child's pages is made again in the parent from the
    style's font properties, not a reason for the parent to paint the child's pages itself."""
    from genreport.printing import pdf as pdfstage
    from shared import write

    pdfstage._import()
    monkeypatch.setattr("genreport.procs.cores", lambda: 2)
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><text x="2" y="14" font-family="DejaVu Sans"'
           ' font-style="italic" font-size="7">S</text><text x="20" y="14" font-family="DejaVu Serif"'
           ' font-weight="bold" font-size="9">Tx</text></svg>')
    words = " ".join(f"w{j}" for j in range(300))
    body = "".join(f"<h2>Part {i}</h2><p>{words}</p>" for i in range(30))
    html = f'<html><body style="font-family: DejaVu Sans; font-size: 10pt">{body}<p>{svg}</p></body></html>'
    document = pdfstage._html(html).render()
    assert len(document.pages) >= splitpaint.MIN_PAGES
    one = write(document)
    monkeypatch.setattr(splitpaint, "_split_at", lambda pages: len(pages) - 1)  # the SVG's page alone to the child
    pdf, counts = _split(document)
    assert counts["split"] == 1 and counts["merged"] == 1, (counts, splitpaint.stats["reason"])
    assert counts["fonts_made"] >= 2, counts  # the SVG texts' fonts, first used on the child's page
    assert pdf == one
