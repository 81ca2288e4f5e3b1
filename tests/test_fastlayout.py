"""The table of contents' page laid out one time fewer gives stock WeasyPrint's pages (generator/printing/fastlayout.py)."""

from __future__ import annotations

import os

import pytest

weasyprint = pytest.importorskip("weasyprint")

from genreport.printing import fastlayout, gate  # noqa: E402
from genreport.printing import pdf as pdfstage  # noqa: E402

pytestmark = pytest.mark.skipif(not fastlayout.install(), reason=f"the gate is closed: {gate.reason()}")


def _both(html: str) -> tuple[tuple[bytes, int], tuple[bytes, int]]:
    """(PDF, pages laid out) with WeasyPrint's own passes and with the content filled in after each pass."""
    import weasyprint.layout.page as wpage

    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    stock_remake, made = wpage.remake_page, [0]

    def counting(*args):
        made[0] += 1
        return stock_remake(*args)

    out = []
    wpage.remake_page = counting
    try:
        for fast in (False, True):
            (fastlayout.install if fast else fastlayout.uninstall)()
            made[0] = 0
            pdf = pdfstage._html(html).render().write_pdf(pdf_identifier=False)
            out.append((pdf, made[0]))
    finally:
        wpage.remake_page = stock_remake
        fastlayout.install()
    return out[0], out[1]


def test_the_report_lays_out_one_page_fewer_with_the_same_bytes():
    """The 8B report laid out by WeasyPrint's own passes: the bytes and one page more than the session's fast print
    of it (tests/shared.py, laid out with this fast path installed). Every committed report, MoE and MLA ones
    too, is printed by the whole fast path and by stock WeasyPrint in tests/test_fastpdf.py."""
    import weasyprint.layout.page as wpage
    from shared import printed, write

    fast = printed("llama8b-h100")
    stock_remake, made = wpage.remake_page, [0]

    def counting(*args):
        made[0] += 1
        return stock_remake(*args)

    fastlayout.uninstall()
    wpage.remake_page = counting
    try:
        stock = write(pdfstage._html(fast.html).render())
    finally:
        wpage.remake_page = stock_remake
        fastlayout.install()
    assert stock == fast.pdf
    assert fast.pages_laid_out == made[0] - 1, (made[0], fast.pages_laid_out)


def test_numbers_that_move_pages_still_settle_as_stock_weasyprint_does():
    """A table of contents long enough that filling in its numbers moves what follows it, and counter(pages) in
    the content: WeasyPrint's own check takes over where the values change, and the pages are the same.
    (counter(pages) in the same content as a target-counter crashes WeasyPrint 70 itself.)"""
    toc = "".join(f'<p class="t"><a href="#h{i}">Section {i} ' + "word " * (i % 7) + "</a></p>" for i in range(60))
    body = "".join(f'<h2 id="h{i}">Section {i}</h2>' + "<p>" + "text " * (40 + 25 * (i % 5)) + "</p>"
                   for i in range(60))
    html = (f"<html><head><style>@page {{ size: A6; margin: 10mm }} .t a::after {{ content: leader('.') "
            f"target-counter(attr(href), page) }} .t {{ margin: 0 }} .n::after {{ content: counter(page) ' of ' "
            f"counter(pages) }}</style></head><body><p class='n'>page </p>{toc}{body}</body></html>")
    (stock, _), (fast, _) = _both(html)
    assert fast == stock


def test_percentages_calc_and_box_sizing_resolve_as_stock_weasyprint_does():
    """Lengths, percentages, calc(), auto heights, min/max, border-box and padding-box, page margins in %,
    collapsed table borders: one function gives the boxes WeasyPrint's nested calls give."""
    css = ("@page { size: 120mm 90mm; margin: 5% 8% 10px calc(4% + 3px) } "
           "div { width: 60%; min-width: calc(20% + 10px); max-width: 90%; padding: 2% 1em 3px 4%; "
           "margin: 1% auto 2px calc(1% - 1px); border: 3px solid; min-height: auto; height: 20% } "
           ".b { box-sizing: border-box; max-height: 40% } .p { box-sizing: padding-box; height: calc(10% + 2em) } "
           "table { border-collapse: collapse; width: 80% } td { border: 2px solid; padding: 1%; width: 30% } "
           "span { display: inline-block; width: 25%; margin-left: 5% }")
    body = "".join(f'<div class="{c}">{c} <span>s</span> {"text " * 30}</div>'
                   for c in ("a", "b", "p", "b p") * 3)
    body += "<table>" + "<tr><td>a</td><td>b</td><td>c</td></tr>" * 20 + "</table>"
    (stock, _), (fast, _) = _both(f"<html><head><style>{css}</style></head><body>{body}</body></html>")
    assert fast == stock
