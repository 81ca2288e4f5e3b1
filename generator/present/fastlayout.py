"""WeasyPrint's layout made cheaper, with the same pages: about 0.08 s of the 8B report's 1.2 s layout.

Two changes, each giving stock WeasyPrint's PDF (``tests/test_fastlayout.py`` compares them on the reports).

**Percentages resolved in one function** (about 0.02 s). ``resolve_percentages`` sets a box's used margins,
paddings, widths and heights from their computed values through two nested calls per property
(``resolve_one_percentage``, ``percentage``); it runs 6,500 times for the 8B report. :func:`resolve_percentages`
does the same arithmetic, in the same order, in one loop, and hands anything but a plain length, a percentage,
``auto`` or ``None`` (a ``calc()``) to WeasyPrint's own ``percentage``.

**One fewer layout of the table of contents' page** (about 0.06 s).

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

Installed only on the WeasyPrint version it was checked against; ``GENREPORT_STOCK_LAYOUT=1`` turns both off.
"""

from __future__ import annotations

import copy
import os

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
        import weasyprint.layout as wlayout
    except (ImportError, OSError):
        return False
    from genreport.present.fastsvg import checked_versions

    if not checked_versions() or not hasattr(wlayout, "make_all_pages"):
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
    _swap_percentages(resolve_percentages)
    _installed = True
    return True


_PERCENT_USERS = ("percent", "inline", "page", "float", "grid", "absolute", "block", "column", "table")
_stock_resolve = None


def _swap_percentages(function) -> None:
    """Put ``function`` where WeasyPrint's layout modules call ``resolve_percentages``."""
    import importlib

    global _stock_resolve
    from weasyprint.layout import percent

    if _stock_resolve is None:
        _stock_resolve = percent.resolve_percentages
    for name in _PERCENT_USERS:
        module = importlib.import_module(f"weasyprint.layout.{name}")
        if getattr(module, "resolve_percentages", None) in (_stock_resolve, resolve_percentages):
            module.resolve_percentages = function


_W = None  # WeasyPrint's names this module uses, bound by _bind()


def _bind():
    global _W
    from math import inf

    from weasyprint.css.functions import check_math
    from weasyprint.formatting_structure import boxes
    from weasyprint.layout.percent import adjust_box_sizing, percentage

    _W = (boxes.Box, boxes.PageBox, check_math, adjust_box_sizing, percentage, inf)
    return _W


def resolve_percentages(box, containing_block):
    """WeasyPrint 70's ``layout.percent.resolve_percentages``, its two inner calls per property inlined."""
    Box, PageBox, check_math, adjust_box_sizing, percentage, inf = _W or _bind()  # noqa: N806
    if isinstance(containing_block, Box):
        cb_width = containing_block.width
        cb_height = containing_block.height
    else:
        cb_width, cb_height = containing_block
    maybe_height = cb_height if isinstance(box, PageBox) else cb_width
    style = box.style
    if cb_height == "auto":
        height = style["height"]
        if height == "auto" or check_math(height) or height.unit == "%":
            box.height = "auto"
        else:
            assert height.unit.lower() == "px"
            box.height = height.value
        tail = (("min_height", 0), ("max_height", inf))
    else:
        tail = (("height", cb_height), ("min_height", cb_height), ("max_height", cb_height))
    for name, refer_to in (
            ("margin_left", cb_width), ("margin_right", cb_width), ("margin_top", maybe_height),
            ("margin_bottom", maybe_height), ("padding_left", cb_width), ("padding_right", cb_width),
            ("padding_top", maybe_height), ("padding_bottom", maybe_height), ("width", cb_width),
            ("min_width", cb_width), ("max_width", cb_width), *tail):
        value = style[name]
        if value is not None and value != "auto":
            unit = getattr(value, "unit", None)
            if unit is None:
                value = percentage(value, style, refer_to)  # calc(): WeasyPrint's own
            elif unit == "%":
                value = refer_to * value.value / 100
            else:
                value = value.value
        if value == "auto" and name in ("min_width", "min_height"):
            value = 0
        setattr(box, name, value)
    collapse = style["border_collapse"] == "collapse"
    for prop in ("border_top_width", "border_right_width", "border_bottom_width", "border_left_width"):
        if not (collapse and hasattr(box, prop)):
            setattr(box, prop, style[prop])
    adjust_box_sizing(box, "width")
    adjust_box_sizing(box, "height")


def uninstall() -> None:
    """WeasyPrint's own pass back (tests compare the two)."""
    global _installed
    import weasyprint.layout as wlayout

    stock = getattr(wlayout.make_all_pages, "stock", None)
    if stock is not None:
        wlayout.make_all_pages = stock
    if _stock_resolve is not None:
        _swap_percentages(_stock_resolve)
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
