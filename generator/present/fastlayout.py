"""One fewer layout of the table of contents' page: the same pages, 0.06 s sooner.

WeasyPrint lays the pages out, then lays out again those whose content depends on page numbers, until nothing
changes. The report's table of contents (``target-counter(attr(href), page)`` on page 1) was laid out three
times: once before any target's page is known, once more still with the content of the first pass (WeasyPrint
fills in the numbers only after laying the page out, when it sees the page's counter values changed: the total
``pages`` is only known after a pass), and a third time with the numbers.

This module fills them in at the end of each pass instead, for every page the next pass will lay out again: with
the counter values that page will have (the values after it, as the pass left them, with the new total), exactly
as WeasyPrint's own check would after the next layout, and records them as its check does. The next pass then lays
the page out with its final content and finds nothing changed. Where a page's values do change in the next pass
(an earlier page grew), WeasyPrint's check sees the difference and fills the content in again as before, so the
pages are always those of stock WeasyPrint (``tests/test_fastlayout.py`` compares the PDFs).

Installed only on the WeasyPrint version it was checked against; ``GENREPORT_STOCK_LAYOUT=1`` turns it off.
"""

from __future__ import annotations

import copy
import os

CHECKED = ("70.",)
_installed = False
stats = {"filled": 0}


def install() -> bool:
    """Wrap WeasyPrint's pass over the pages (once); False where it does not apply."""
    global _installed
    if _installed:
        return True
    if os.environ.get("GENREPORT_STOCK_LAYOUT"):
        return False
    try:
        import weasyprint
        import weasyprint.layout as wlayout
    except (ImportError, OSError):
        return False
    if not weasyprint.__version__.startswith(CHECKED) or not hasattr(wlayout, "make_all_pages"):
        return False
    stock = wlayout.make_all_pages

    def make_all_pages(context, root_box, html, pages):
        made = []
        for page in stock(context, root_box, html, pages):
            made.append(page)
            yield page
        _fill_in(context, len(made))

    make_all_pages.stock = stock
    wlayout.make_all_pages = make_all_pages
    _installed = True
    return True


def uninstall() -> None:
    """WeasyPrint's own pass back (tests compare the two)."""
    global _installed
    import weasyprint.layout as wlayout

    stock = getattr(wlayout.make_all_pages, "stock", None)
    if stock is not None:
        wlayout.make_all_pages = stock
    _installed = False


def _fill_in(context, total: int) -> None:
    """After a pass: the page-counter content of each page to be laid out again, with that page's values."""
    page_maker = context.page_maker
    for entry in page_maker:  # what layout_document does next, so the values below are the next pass's
        entry[3][1]["pages"] = [total]
    for item in context.target_collector.counter_lookup_items.values():
        index = item.page_maker_index
        if index is None or not 0 <= index < len(page_maker) - 1 or item.pending or not item.missing_counters:
            continue
        if not page_maker[index][-1]["content_changed"]:
            continue  # not laid out again: WeasyPrint leaves it as it is
        values = page_maker[index + 1][3][1]  # the page's counter values as its layout computes them
        if values != item.cached_page_counter_values:
            item.cached_page_counter_values = copy.deepcopy(values)
            item.parse_again(values)
            stats["filled"] += 1
