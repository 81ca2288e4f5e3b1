"""WeasyPrint's layout made cheaper, with the same pages: about 0.12 s of the 8B report's 1.1 s layout.

Four changes, each giving stock WeasyPrint's PDF (``tests/test_fastlayout.py`` compares them on the reports).

**Computed styles and flow in fewer calls** (about 0.04 s). A property an element's rules do not set takes its
parent's value (inherited) or its initial value: :func:`_missing` does those lookups itself, in the order and with
the entries WeasyPrint 70's ``ComputedStyle.__missing__`` makes (76,000 calls for the 8B report), and hands every
other case to it. ``Box.is_in_normal_flow`` asks five methods for two style values; :func:`_in_normal_flow` reads
them once (installed only while no box class has its own version of those methods).

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

Installed only where the gate (:mod:`genreport.printing.gate`) is open; ``GENREPORT_PDF_OFF=layout`` turns both off.
"""

from __future__ import annotations

import copy
import re

_installed = False
stats = {"filled": 0}
end_of_pass: list = []  # called with the layout context at the end of each pass, before the fill-in below


def install() -> bool:
    """Wrap WeasyPrint's pass over the pages (once); False where it does not apply."""
    global _installed
    if _installed:
        return True
    from genreport.printing import gate

    if not gate.is_open():
        return False
    try:
        import weasyprint.layout as wlayout
    except (ImportError, OSError):
        return False
    if not hasattr(wlayout, "make_all_pages"):
        return False
    stock = wlayout.make_all_pages

    def make_all_pages(context, root_box, html, pages):
        made = []
        for page in stock(context, root_box, html, pages):
            made.append(page)
            yield page
        for hook in end_of_pass:
            hook(context)
        _fill_in(context, len(made))

    make_all_pages.stock = stock
    wlayout.make_all_pages = make_all_pages
    _swap_percentages(resolve_percentages)
    _swap_styles(True)
    _swap_backgrounds(True)
    _swap_stylesheets(True)
    _installed = True
    return True


_stock_style = {}  # what _swap_styles replaced: (class, name) -> function
_stock_missing = None


def _swap_styles(fast: bool) -> None:
    """Computed styles' inherited and initial values, and a box's flow, looked up with fewer calls."""
    global _stock_missing
    from weasyprint.css import ComputedStyle
    from weasyprint.formatting_structure.boxes import Box

    if not _stock_style:
        _stock_missing = _stock_style[ComputedStyle, "__missing__"] = ComputedStyle.__missing__
        _stock_style[Box, "is_in_normal_flow"] = Box.is_in_normal_flow
    if fast and not _flow_overridden(Box):
        ComputedStyle.__missing__ = _missing
        Box.is_in_normal_flow = _in_normal_flow
    else:
        for (cls, name), function in _stock_style.items():
            setattr(cls, name, function)


def _flow_overridden(base) -> bool:
    """Whether a box class has its own idea of floating or positioning (then WeasyPrint's methods are kept)."""
    names = ("is_floated", "is_absolutely_positioned", "is_running", "is_footnote", "is_note", "is_in_normal_flow")
    seen, stack = set(), [base]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
                if any(name in vars(sub) for name in names):
                    return True
    return False


_SPECIAL = None  # properties whose computed value WeasyPrint works out in its own way


def _missing(self, key):
    """``ComputedStyle.__missing__`` for a property the element's rules do not set: the parent's value of an
    inherited one, the initial value of another, as WeasyPrint 70 finds them (the same dict entries, in the same
    order); anything else (a rule sets it, a logical or custom property, 'float', 'display', 'position', 'page',
    text decorations, a value still to be computed or holding a math function) goes to WeasyPrint's own."""
    global _SPECIAL
    if _SPECIAL is None:
        from weasyprint.css import PHYSICAL_FUNCTIONS
        from weasyprint.css.functions import check_math
        from weasyprint.css.properties import INHERITED, INITIAL_NOT_COMPUTED, INITIAL_VALUES

        _SPECIAL = (frozenset({"float", "display", "position", "page", *PHYSICAL_FUNCTIONS}), INHERITED,
                    INITIAL_NOT_COMPUTED, INITIAL_VALUES, check_math)
    special, inherited, not_computed, initial, check_math = _SPECIAL
    if key not in self.cascaded and key not in special and key[:2] != "__" and key[:16] != "text_decoration_":
        if key in inherited:
            parent = self.parent_style
            if parent is not None:
                value = parent[key]
                if not check_math(value):
                    self[key] = value
                    return value
        elif key not in not_computed:
            value = self[key] = initial[key]
            return value
    return _stock_missing(self, key)


def _in_normal_flow(self) -> bool:
    """``Box.is_in_normal_flow``: not floated, a footnote, absolutely or fixed positioned, running or a note; its
    five method calls made one (the style's 'float' read before its 'position', as they were)."""
    style = self.style
    if style["float"] in ("left", "right", "inline-start", "inline-end", "footnote"):
        return False
    position = style["position"]
    return position not in ("absolute", "fixed") and position[0] not in ("running()", "note()")


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
    if _stock_style:
        _swap_styles(False)
    _swap_backgrounds(False)
    _swap_stylesheets(False)
    _installed = False


_stock_css = None
_sheets: dict[tuple, tuple] = {}  # (CSS text, base URL, media type) -> (matcher, page rules, layers) it added
_SHEETS_KEPT = 8
_NOT_KEPT = re.compile(r"@(import|font-face|counter-style|color-profile)\b", re.IGNORECASE)


def _swap_stylesheets(fast: bool) -> None:
    global _stock_css
    _stock_css = _swap("weasyprint.css", "CSS", stylesheet, fast, _stock_css)
    _sheets.clear()


def _swap(module: str, name: str, fast_version, fast: bool, stock):
    """Put ``fast_version`` (``fast``) or the stock function back as ``module.name``; returns the stock one."""
    import importlib

    mod = importlib.import_module(module)
    if stock is None:
        stock = getattr(mod, name)
    setattr(mod, name, fast_version if fast else stock)
    return stock


def stylesheet(*args, string=None, base_url=None, media_type="print", page_rules=None, layers=None, **kwargs):
    """``weasyprint.CSS`` as a document's ``<style>`` element makes it, parsed once per process for each text.

    Parsing the report's style sheet and sorting its selectors is 0.02 s of every build. What a ``CSS`` holds is
    its base URL and selector matcher (only read while matching), and what parsing adds to the document's lists
    of page rules and layers. Those are kept by text, base URL and media type and given to the next document
    with the same, so its cascade is the same. A sheet that imports another or declares fonts, counter styles or
    colour profiles (which go to per-document objects) is parsed every time; so is any other kind of source."""
    if args or string is None or page_rules is None or layers is None or set(kwargs) - {
            "url_fetcher", "font_config", "counter_style", "color_profiles"} or _NOT_KEPT.search(string):
        return _stock_css(*args, string=string, base_url=base_url, media_type=media_type, page_rules=page_rules,
                          layers=layers, **kwargs)
    key = (string, base_url, media_type)
    kept = _sheets.get(key)
    if kept is None:
        pages, layered = len(page_rules), len(layers)
        css = _stock_css(string=string, base_url=base_url, media_type=media_type, page_rules=page_rules,
                         layers=layers, **kwargs)
        if len(_sheets) >= _SHEETS_KEPT:
            _sheets.pop(next(iter(_sheets)))
        _sheets[key] = (css.base_url, css.matcher, page_rules[pages:], layers[layered:])
        return css
    css = _stock_css.__new__(_stock_css)
    css.base_url, css.matcher, added_pages, added_layers = kept
    page_rules.extend(added_pages)
    layers.extend(added_layers)
    css.page_rules, css.layers = page_rules, layers
    return css


_stock_backgrounds = None
_CORNERS = ("border_top_left_radius", "border_top_right_radius", "border_bottom_right_radius",
            "border_bottom_left_radius")
_facts: dict[int, tuple] = {}  # id(style) -> (style, square corners, nothing to paint)


def _swap_backgrounds(fast: bool) -> None:
    global _stock_backgrounds
    _stock_backgrounds = _swap("weasyprint.layout.background", "layout_box_backgrounds", layout_box_backgrounds,
                               fast, _stock_backgrounds)
    _facts.clear()


def forget_styles() -> None:
    """Drop what was found about styles (a document's styles are not kept alive after it)."""
    _facts.clear()


def layout_box_backgrounds(page, box, get_image_from_uri, layout_children=True, style=None):
    """WeasyPrint 70's ``layout.background.layout_box_backgrounds`` (run on every box of every page after the
    layout: 16,000 boxes, 0.1 s for the 8B report), with what a box's style says found once per style: whether
    its corners are square (each radius with a zero), and whether it has nothing to paint (no border or mask
    image, no shadow, no background image, a transparent background colour, or hidden). Those boxes get what
    WeasyPrint gives them (square radii, no background) without the lookups; the style's values are read in
    WeasyPrint's order, so its entries are the same. Any other box, and a style given apart from the box's,
    goes to WeasyPrint's own."""
    if style is not None:
        return _stock_backgrounds(page, box, get_image_from_uri, layout_children, style)
    style = box.style
    facts = _facts.get(id(style))
    if facts is None or facts[0] is not style:
        if len(_facts) > 50_000:
            _facts.clear()
        facts = _facts[id(style)] = (style, *_style_facts(style))
    if not facts[1] or not facts[2] or box is page:
        return _stock_backgrounds(page, box, get_image_from_uri, layout_children)
    box.border_top_left_radius = box.border_top_right_radius = (0, 0)
    box.border_bottom_right_radius = box.border_bottom_left_radius = (0, 0)
    if layout_children:
        for child in box.all_children():
            layout_box_backgrounds(page, child, get_image_from_uri)
    box.background = None
    return None


_PAINTED = ("radius", "background", "box_shadow", "border_image", "mask_border")  # in the names that matter


def _style_facts(style) -> tuple[bool, bool]:
    """(square corners, nothing to paint). A style whose rules set none of the properties involved (nor their
    logical forms) has their initial values, which say so without computing them (visibility aside, which
    changes nothing then); an anonymous box's style always does. Any other is read as WeasyPrint's function
    reads it, in its order."""
    from weasyprint.css import AnonymousStyle
    from weasyprint.draw.color import get_color

    if isinstance(style, AnonymousStyle):
        return True, True
    cascaded = getattr(style, "cascaded", None)
    if cascaded is not None and not any(part in key for key in cascaded for part in _PAINTED):
        return True, True

    square = True
    for name in _CORNERS:
        if (0, "px") not in style[name]:
            square = False
    if style["border_image_source"][0] != "none" or style["mask_border_source"][0] != "none":
        return square, False
    if style["visibility"] == "hidden":
        return square, not style["box_shadow"]
    style["image_orientation"]  # noqa: B018 - read where WeasyPrint reads it
    if any(type_ != "none" for type_, _value in style["background_image"]):
        return square, False
    if get_color(style, "background_color").alpha != 0:
        return square, False
    return square, not style["box_shadow"]


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
