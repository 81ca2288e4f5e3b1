"""Pages laid out by two processes, the PDF the same bytes as one process lays out and paints.

WeasyPrint paginates a document one page after another (0.5 s of the 8B report's 0.85 s layout), and the second
core waited. What makes a page is, by WeasyPrint's own design, a function of the page's *page-maker entry*: where
the content resumes (``resume_at``), the kind of break and page side, and the page counters. WeasyPrint relies on
that to lay out again only the pages whose entry changed. So a process that knows the entry of page ``k`` can lay
out pages ``k``, ``k + 1``, ... while another lays out the pages before it.

The entry of page ``k`` is taken from the previous build of a document of the same shape (kept in the cache
folder as plain data, ``page-splits-1.txt``, with the element path it points into; a record of any other shape or
type is ignored, see :func:`_valid`), and checked, not trusted:

* After the box tree is built, the process forks. The child lays out the pages from the remembered entry of page
  ``k`` to the end, while the parent lays out the pages before ``k``.
* When the parent comes to page ``k``, its own entry must equal the remembered one, exactly as WeasyPrint compares
  entries, with nothing carried across the break (no float or footnote continued, no running element). Otherwise
  the child is stopped and the parent goes on alone, as it would have without it.
* The child sends what its pages did to the shared state, and the parent applies it in the order one process
  would: the page-maker entries, the anchors' page counters (the table of contents' numbers), and the pages' size,
  links, anchors and bookmarks. WeasyPrint's next pass then runs in the parent as usual.
* The child finishes its own pages (margin boxes, backgrounds) with the page total and with the running strings
  (``string-set``) set before its first page, taken from the box tree and checked against the parent's pages.
* Painting works as ``splitpaint`` does: the child paints its pages into streams of its own (at once when no
  figure on them is still a blank stand-in, with what a document's painting starts with assumed and checked; else
  when the parent's painting starts), and the parent adds the fonts, glyphs, opacity states, groups and patterns
  they used after its own, with the same names and order.

Each build also remembers its anchors' pages and the counters its table of contents was laid out with; the next
build of the same shape gets them before its first pass (:func:`_seed`), which is then its only pass.

Anything else (a page of the child's laid out again by a later pass, a page-based counter, a fixed box, a form, an
attachment, an image, a font made outside the laid-out text, a failed or slow child) makes the parent lay out the
child's pages itself from their entries, or print the document again in one process: the bytes are those of
one process either way (``tests/test_splitlayout.py`` and ``tests/test_fastpdf.py`` compare them).

On only where it pays: two or more cores, fork available, eight pages or more, a previous build's entry, not
``GENREPORT_SERIAL``; ``GENREPORT_PDF_OFF=split-layout`` turns it off. It runs only where the gate (:mod:`genreport.printing.gate`) is open.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import os
import pickle
import select
import time

MIN_PAGES = 8
KEEP = 16  # remembered documents (their split entries) in the cache folder
CHILD_SHARE = 0.5  # of the measured layout the child is given
TIMEOUT = 120.0  # seconds the parent waits for the child before going on without it
RECORDS_FILE = "page-splits-1.txt"
stats = {"split": 0, "taken": 0, "abandoned": 0, "materialized": 0, "merged": 0, "seeded": 0, "corrected": 0,
         "laid_out_again": 0, "reason": ""}


def _mark(label: str) -> None:
    """A point on the timeline (a benchmark or test puts a function here)."""


class Fallback(Exception):
    """What the child painted cannot be merged exactly: the document is printed again in one process."""


def seeding() -> bool:
    """Whether anchors are given their remembered pages before the first pass (``GENREPORT_PDF_OFF=seed-pages``: no)."""
    from genreport.printing import gate

    if gate.off("seed-pages"):
        return False
    import weasyprint.layout as wlayout

    return hasattr(wlayout.make_all_pages, "stock")  # fastlayout's end of a pass checks what was given


def enabled() -> bool:
    from genreport.printing import gate

    if gate.off("split-layout") or os.environ.get("GENREPORT_SERIAL") or not gate.is_open():
        return False
    from genreport.procs import cores

    if not hasattr(os, "fork") or cores() < 2:
        return False
    return True


# ------------------------------------------------------------------------------------------------ rendering

def render(html, split: bool = True, blank=frozenset(), idle=None):
    """``html.render()`` (a WeasyPrint HTML document), its pages laid out by two processes where a previous build
    of the same shape says where to split; every build notes where the next one should split. ``blank``: the
    URLs of images that are stand-ins for figures still to come (the child's pages with one wait for them).
    ``idle()`` runs once, when this process comes to the child's first page before the child is done with it."""
    import weasyprint.document as wdoc
    from weasyprint.layout import page as wpage

    stock_layout, stock_page, stock_remake = wdoc.layout_document, wdoc.Page, wpage.remake_page
    runs = []

    def layout_document(html_, root_box, context, max_loops=8):
        run = _Run(root_box, context, split and enabled(), seeding())
        if run.split is not None:
            run.split.blank, run.split.idle = frozenset(blank), idle
        runs.append(run)
        return run.layout(html_, stock_layout, max_loops)

    def page(box):
        return box.page() if isinstance(box, StandIn) else stock_page(box)

    def remake_page(index, context, root_box, html_):
        run = runs[-1] if runs else None
        t = time.perf_counter()
        made = stock_remake(index, context, root_box, html_)
        if run is not None:
            run.made(index, context, time.perf_counter() - t)
        return made

    def check_seeds(context):
        if runs:
            runs[-1].check_seeds(context)

    from genreport.printing import fastlayout
    from genreport.printing.common import font_config

    wdoc.layout_document, wdoc.Page, wpage.remake_page = layout_document, page, remake_page
    fastlayout.end_of_pass.append(check_seeds)
    try:
        document = html.render(font_config=font_config())  # one per process: each new one leaks 230 kB
    finally:
        wdoc.layout_document, wdoc.Page, wpage.remake_page = stock_layout, stock_page, stock_remake
        fastlayout.end_of_pass.remove(check_seeds)
        fastlayout.forget_styles()
    if runs:
        runs[-1].done(document)
    return document


def close_all() -> None:
    """Stop every child still running (a document printed, dropped or failed)."""
    for split in list(_live):
        split.close()


_live: list = []


class _Run:
    """One document's layout: what it measures for the next build (its split, its anchors' pages), its split if
    it has one, and the anchors' pages it was given."""

    def __init__(self, root_box, context, may_split: bool, seed: bool):
        self.root_box, self.context = root_box, context
        self.costs: dict[int, float] = {}  # page index -> seconds of its first layout
        self.entries: dict[int, tuple] = {}  # page index -> its page-maker entry as the first pass made it
        self.later = 0.0  # seconds of later passes
        self.first_pass = True  # ended by the split's own first pass (pages it lays out later are not first)
        self.anchors: dict[str, dict] = {}  # anchor -> its page counters as the first pass noted them
        self.noted: set[str] = set()
        record, path = _find(root_box)
        self.seeded, self.seeded_lookups = _seed(context, record) if record and seed else ({}, [])
        stats["seeded"] += bool(self.seeded_lookups)
        self.checked = False
        self.split = _Split.start(root_box, context, record, path) if record and may_split else None
        collector = context.target_collector
        cache = collector.cache_target_page_counters

        def cache_target_page_counters(anchor_name, page_counter_values, page_maker_index, page_maker):
            self.anchors.setdefault(anchor_name, copy.deepcopy(page_counter_values))
            self.noted.add(anchor_name)
            return cache(anchor_name, page_counter_values, page_maker_index, page_maker)

        collector.cache_target_page_counters = cache_target_page_counters

    def made(self, index: int, context, seconds: float) -> None:
        if self.first_pass and index not in self.costs:
            self.costs[index] = seconds
            self.entries[index + 1] = copy.deepcopy(tuple(context.page_maker[index + 1][:4]))
        else:
            self.later += seconds
            stats["laid_out_again"] += 1

    def layout(self, html, stock, max_loops):
        if self.split is None:  # a page laid out again in a later pass is already in costs
            return stock(html, self.root_box, self.context, max_loops)
        return self.split.layout(self, html, max_loops)

    def check_seeds(self, context) -> None:
        """At the end of the first pass: content with page numbers given ahead that is not what the pages laid
        out say is set to be laid out again, as WeasyPrint does with content whose numbers changed."""
        if self.checked:
            return
        self.checked = True
        collector = context.target_collector
        for name in self.seeded:
            if name not in self.noted:  # never laid out: no page, as without the guess
                collector.target_lookup_items[name].cached_page_counter_values = {}
        for box, item in self.seeded_lookups:
            if item.page_maker_index is not None and _content(box) != _content_again(box, item):
                context.page_maker[item.page_maker_index][-1]["content_changed"] = True
                stats["corrected"] += 1

    def done(self, document) -> None:
        split = self.split
        if split is not None and split.taken:
            document._genreport_split = split
            self.costs.update(split.child_costs)
            self.entries.update(split.child_entries)
        elif split is not None:
            split.close()
        _remember(self.root_box, self.costs, self.entries, self.later, self.anchors, self._lookups())

    def _lookups(self) -> list | None:
        """What each piece of content with page numbers (in the order the box tree made them) showed: the page
        counters it was laid out with in the first pass; None where one was not laid out."""
        out = []
        for (_box, css_token), item in self.context.target_collector.counter_lookup_items.items():
            entry = self.entries.get(item.page_maker_index + 1) if item.page_maker_index is not None else None
            if css_token != "content" or entry is None:
                return None
            out.append((tuple(item.missing_counters), entry[3][1]))
        return out


def _find(root_box) -> tuple[dict | None, list | None]:
    """The remembered record of a document of this shape (its break's element path is in this box tree)."""
    for record in _records():
        path = _path(root_box, record["entry"][0])
        if path is not None and _signature(path) == record["sig"]:
            return record, path
    return None, None


def _seed(context, record: dict) -> tuple[dict, list]:
    """Give each anchor the page counters it had in the first pass of the last build, and each piece of content
    that shows page numbers (a table of contents' ``target-counter``) its content from them, before the first pass.

    WeasyPrint learns an anchor's page only when it lays the anchor out, so the table of contents, laid out first,
    is laid out again once the numbers are known: a second pass (0.06 s of the 8B report). Content with page
    numbers is set again when the counters of the page it is on differ from those it was last set with; given
    those counters and the anchors' pages, the first pass finds nothing to set again and is the last.

    Nothing is trusted: at the end of the first pass, each such content is made again from what the pass found
    (an anchor never laid out has no page, as without the guess); where it differs from what was laid out, its
    page is laid out again, as WeasyPrint does when a number changes (see :meth:`_Run.check_seeds`). Content that
    shows the page total is left alone. Returns the anchors given a page (name -> counters) and the content
    given its counters ([(box, lookup item)])."""
    collector = context.target_collector
    lookups = [(box, item) for (box, _css_token), item in collector.counter_lookup_items.items()]
    remembered = record.get("lookups")
    if not remembered or len(remembered) != len(lookups) or any(
            tuple(item.missing_counters) != missing or "pages" in missing
            for (_box, item), (missing, _values) in zip(lookups, remembered, strict=True)):
        return {}, []
    seeded = {}
    for name, values in record.get("anchors", {}).items():
        item = collector.target_lookup_items.get(name)
        if item is not None and item.state == "up-to-date" and not item.cached_page_counter_values:
            item.cached_page_counter_values = copy.deepcopy(values)
            seeded[name] = values
    for (_box, item), (_missing, values) in zip(lookups, remembered, strict=True):
        item.cached_page_counter_values = copy.deepcopy(values)
        item.parse_again(item.cached_page_counter_values)  # as laying out its page would, with those counters
    return seeded, lookups


def _content(box) -> tuple:
    """What a generated content box holds: each descendant's kind and text."""
    return tuple((type(child).__name__, getattr(child, "text", None)) for child in box.descendants())


def _content_again(box, item) -> tuple:
    """:func:`_content` of ``box`` made again from its lookup's counters and its targets' pages as they are now;
    the box is left as it was."""
    from weasyprint.formatting_structure.boxes import LineBox

    children = box.children
    line = children[0] if len(children) == 1 and isinstance(children[0], LineBox) else None
    inner = line.children if line is not None else None
    try:
        item.parse_again(item.cached_page_counter_values)
        return _content(box)
    finally:
        if line is not None:
            line.children = inner
        box.children = children


# ---------------------------------------------------------------------------------------- stand-in pages

class StandIn:
    """A page the child laid out, as the parent's pass sees it (kept as is) and its document holds it."""

    fixed_boxes = ()

    def __init__(self, split, index: int):
        self.split, self.index = split, index

    def page(self):
        return self.split.page(self.index)


class _LinkBox:
    """What a link's box is to the PDF writer: somewhere to keep the link's annotation."""


class StandInPage:
    """A :class:`weasyprint.document.Page` the child laid out and paints: its size, links, anchors and bookmarks."""

    def __init__(self, split, index: int, data: dict):
        self.split, self.index = split, index
        self.width, self.height, self.bleed = data["width"], data["height"], dict(data["bleed"])
        self.links = [(kind, target, rect, _LinkBox()) for kind, target, rect in data["links"]]
        self.anchors = dict(data["anchors"])
        self.bookmarks = list(data["bookmarks"])
        self.forms = {None: []}
        self.fixed_boxes = ()

    def paint(self, stream, scale=1):
        self.split.paint(self.index, stream, scale)


# ------------------------------------------------------------------------------------------------ the split

class _Split:
    def __init__(self, root_box, record: dict, path: list):
        self.root_box = root_box
        self.k, self.entry = record["k"], record["entry"]
        self.seeds = _strings_before(path)
        self.pid = self.rfd = self.wfd = None
        self.taken = self.alive = False
        self.remade = False
        self.page_data: dict[int, dict] = {}
        self.child_costs: dict[int, float] = {}
        self.child_entries: dict[int, tuple] = {}
        self.figures = None  # stand-in token -> (data URI, SVG bytes) of the final figures, set by the PDF stage
        self.blank = frozenset()  # the URLs of blank stand-ins, whose figures come later
        self.idle = None  # something to do while waiting for the child's layout
        self.n = 0

    @classmethod
    def start(cls, root_box, context, record: dict, path: list):
        """A split of this document at the remembered ``record``'s break; None where one cannot be made."""
        if any(token != "content" for _box, token in context.target_collector.counter_lookup_items):
            return None  # string-set or bookmark-label with page counters: set after layout, across the break
        if context.footnotes:
            return None
        if any(box.bookmark_label for box, _index in path):
            return None  # a bookmark on both sides of the break
        return cls(root_box, record, path)

    # the parent's layout -----------------------------------------------------------------------------------

    def layout(self, run, html, max_loops):
        """WeasyPrint 70's ``layout_document`` with the first pass shared with the child (see the docstring)."""
        import weasyprint.layout as wlayout

        context, root_box = run.context, run.root_box
        wlayout.initialize_page_maker(context, root_box)
        _mark("parent: boxes built")
        self._fork(run, html)
        _mark("parent: forked")
        pages, original_footnotes, total = [], [], 0
        for loop in range(max_loops):
            if loop > 0:
                context.footnotes = original_footnotes.copy()
            initial_total = total
            if loop == 0:
                original_footnotes = context.footnotes.copy()
                pages = list(self._first_pass(context, root_box, html))
                run.first_pass = False
            else:
                pages = list(wlayout.make_all_pages(context, root_box, html, pages))
            total = len(pages)
            reloop_content = reloop_pages = False
            for _resume, _next, _right, page_state, remake_state in context.page_maker:
                page_state[1]["pages"] = [total]
                if remake_state["content_changed"]:
                    reloop_content = True
                if remake_state["pages_wanted"]:
                    reloop_pages = initial_total != total
            if not reloop_content and not reloop_pages:
                break
        if self.taken:
            why = self._check_pages(pages, context)
            if why:
                self._materialize(pages, context, root_box, html, why)
        self._later = (pages, context, root_box, html)  # for page(), should the child's pages fail now
        return _finish(context, pages)

    def page(self, index: int):
        """The document's page ``index`` of the child's: its stand-in, once the child has finished its pages (it
        did so while this process finished its own) and the running strings the child was given are those this
        process's pages set. Should either fail, the child's pages are laid out and finished here after all, from
        their entries (what the pages before them hold does not depend on them: the child has no fixed box, no
        running element and no page-based counter)."""
        from weasyprint.document import Page

        if not self.page_data and self.taken:
            _mark("parent: own pages finished")
            data = self._receive()
            _mark("parent: child's pages received")
            pages, context, root_box, html = self._later
            if data is None or data.get("refused"):
                why = data["refused"] if data else "the child's finished pages did not come"
            elif _strings_until(context, self.k) != self.seeds:
                why = "the running strings before the break are not the ones the child was given"
            else:
                why = ""
            if not why:
                self.page_data = {i: page for i, page in enumerate(data["pages"], self.k)}
            else:
                self._materialize(pages, context, root_box, html, why)
                finished = list(_finish(context, pages, first=self.k))
                self.page_data = {i: Page(finished[i]) for i in range(self.k, self.n)}
        if isinstance(self.page_data[index], dict):
            return StandInPage(self, index, self.page_data[index])
        return self.page_data[index]

    def _first_pass(self, context, root_box, html):
        import weasyprint.layout as wlayout
        from weasyprint.layout import page as wpage

        i = 0
        context.rendered_notes = []
        while True:
            remake_state = context.page_maker[i][-1]
            if i == self.k and self.alive:
                stand_ins = self._take_over(context)
                if stand_ins is not None:
                    yield from stand_ins
                    i += len(stand_ins)
                    context.page_maker = context.page_maker[:i + 1]
                    context.broken_out_of_flow.clear()
                    context.reported_footnotes.clear()
                    break
            remake_state.update(_fresh())  # as make_all_pages resets it
            page, resume_at = wpage.remake_page(i, context, root_box, html)
            reported_footnotes = context.reported_footnotes
            yield page
            i += 1
            if resume_at is None and not reported_footnotes:
                context.page_maker = context.page_maker[:i + 1]
                context.broken_out_of_flow.clear()
                context.reported_footnotes.clear()
                break
        if not self.taken and self.alive:
            self.abandon("the document ended before the split")
        if hasattr(wlayout.make_all_pages, "stock"):  # fastlayout's end of a pass
            from genreport.printing import fastlayout

            for hook in fastlayout.end_of_pass:
                hook(context)
            fastlayout._fill_in(context, i)

    def _take_over(self, context):
        """The child's pages in place of this process's, once page k's entry is the remembered one."""
        from weasyprint.layout import page as wpage

        if tuple(context.page_maker[self.k][:4]) != self.entry:
            return self.abandon("page k's entry is not the remembered one")
        if context.broken_out_of_flow or context.reported_footnotes or context.current_page_footnotes:
            return self.abandon("content carried across the break")
        _mark("parent: at page k")
        if self.idle is not None and self.rfd is not None and not select.select([self.rfd], [], [], 0)[0]:
            idle, self.idle = self.idle, None
            idle()
            _mark("parent: idle work done")
        got = self._receive()
        _mark("parent: child's layout received")
        if got is None or got.get("refused"):
            return self.abandon(got["refused"] if got else stats["reason"])
        page_maker = context.page_maker
        known = {name for *_rest, state in page_maker[:self.k] for name in state["anchors"]}
        state_k = page_maker[self.k][-1]
        state_k.update(got["state_k"])
        state_k["anchors"] = [name for name in state_k["anchors"] if name not in known]
        for resume_at, next_page, right_page, page_state, remake_state in got["entries"]:
            remake_state["anchors"] = [name for name in remake_state["anchors"] if name not in known]
            page_maker.append((resume_at, next_page, right_page, page_state, remake_state))
        collector = context.target_collector
        for name, values, index in got["anchors"]:
            if name not in known:  # in one process, an anchor is noted on the first page it is on
                collector.cache_target_page_counters(name, values, index, page_maker[:index + 1])
        self.n = self.k + len(got["entries"])
        self.child_costs = got["costs"]
        self.child_entries = {index: copy.deepcopy(entry[:4])  # as the pass made them, before the page total
                              for index, entry in enumerate(got["entries"], self.k + 1)}
        self.taken = True
        stats["taken"] += 1

        stock_remake = wpage.remake_page

        def remake_page(index, *args):
            if index >= self.k:
                self.remade = True  # a later pass reached the child's pages
            return stock_remake(index, *args)

        self._unwatch = (wpage, stock_remake)
        wpage.remake_page = remake_page
        return [StandIn(self, i) for i in range(self.k, self.n)]

    def _check_pages(self, pages, context) -> str:
        """Why the child's pages cannot stand as they are ('' when they can)."""
        from weasyprint.layout import page as wpage

        module, stock = self._unwatch
        if module.remake_page is not stock:
            wpage.remake_page = stock
        if self.remade:
            return "a later pass laid out the child's pages again"
        _mark("parent: passes done")
        if any(page.fixed_boxes for page in pages):
            return "a fixed box, drawn on every page"
        if any(context.running_elements.values()):
            return "a running element, which the pages after it show"
        return ""

    def _materialize(self, pages, context, root_box, html, why: str) -> None:
        """Lay out the child's pages here, from their entries (the child is stopped)."""
        from weasyprint.layout import page as wpage

        self.abandon(why)
        self.taken = False
        stats["materialized"] += 1
        for i, page in enumerate(pages):
            if isinstance(page, StandIn):
                context.page_maker[i][-1].update(_fresh())
                pages[i], _resume_at = wpage.remake_page(i, context, root_box, html)

    # the child ---------------------------------------------------------------------------------------------

    def _fork(self, run, html) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        parent = os.getpid()
        try:
            pid = os.fork()
        except OSError:
            for fd in (to_child_r, to_child_w, from_child_r, from_child_w):
                os.close(fd)
            return
        if pid == 0:
            status = 0
            try:
                os.close(to_child_w)
                os.close(from_child_r)
                from genreport.procs import die_with_parent

                die_with_parent(parent)
                self.rfd, self.wfd = to_child_r, from_child_w
                _child(self, run, html)
            except BaseException:  # noqa: BLE001 - the parent finds the pipe closed and goes on alone
                status = 1
            finally:
                os._exit(status)
        os.close(to_child_r)
        os.close(from_child_w)
        self.pid, self.rfd, self.wfd = pid, from_child_r, to_child_w
        self.alive = True
        _live.append(self)
        stats["split"] += 1

    def _receive(self):
        from genreport.printing.common import _receive
        from genreport.procs import Watch

        if self.rfd is None:
            return None
        try:  # bounded: a child stopped, deadlocked or past TIMEOUT is killed (ChildStuck), and this one goes on
            data = _receive(self.rfd, Watch(self.pid, TIMEOUT))
            got = pickle.loads(data) if data else None  # noqa: S301 - from our own forked child
        except Exception:  # noqa: BLE001
            got = None
        if got is None:
            stats["reason"] = "the child sent nothing usable"
        return got

    def abandon(self, why: str):
        stats["abandoned"] += 1
        stats["reason"] = why
        self.close()
        return None

    def close(self) -> None:
        self.alive = False
        for name in ("rfd", "wfd"):
            fd = getattr(self, name)
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
                setattr(self, name, None)
        if self.pid is not None:
            from genreport.procs import end

            end(self.pid)
            self.pid = None
        if self in _live:
            _live.remove(self)

    # painting ----------------------------------------------------------------------------------------------

    def write_pdf(self, document) -> bytes:
        """``document.write_pdf(pdf_identifier=False)``, the child's pages painted by the child."""
        from genreport.printing.splitpaint import write_painting

        self._merged = None

        def paint(stock, page, stream, scale):
            if self._merged is None:
                self._go(stream, scale)
                self._merged = False
            return stock(page, stream, scale)

        return write_painting(document, paint, self.close)

    def _go(self, stream, scale) -> None:
        """Tell the child to paint, with what the pages share at the start (the first page's stream)."""
        from genreport.printing.common import _send
        from genreport.procs import Watch

        if stream._tags is not None or stream._color_profiles or stream._output_intent:
            raise Fallback("tagged PDF or colour profiles")
        message = {"figures": self.figures, "colorspace": stream._resources["ColorSpace"],
                   "compress": stream.compress, "scale": scale}
        try:
            _send(self.wfd, pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL), Watch(self.pid, TIMEOUT))
        except (OSError, TypeError) as exc:
            raise Fallback(f"the child cannot be told to paint ({exc})") from None

    def paint(self, index: int, stream, scale) -> None:
        from genreport.printing import splitpaint

        if self._merged is False:
            _mark("parent: at the child's first page")
            got = self._receive()
            _mark("parent: child's painting received")
            if got is None or got.get("refused"):
                raise Fallback(got["refused"] if got else stats["reason"])
            try:
                self._merged = splitpaint.merge(got, stream, self._find_fonts)
            except splitpaint._Fallback as why:
                raise Fallback(str(why)) from None
            stats["merged"] += 1
        items = self._merged.pop(index, None)
        if items is None or not stream.stream or items[0] != stream.stream[0]:
            raise Fallback("the child's pages do not match")
        stream.stream[:] = items

    def _find_fonts(self, new: list, fonts: dict) -> list:
        """The Pango fonts of the fonts first used on the child's pages, found by shaping the same text in the
        same style: the style object itself where the box tree has it (shared with the child by the fork), for an
        SVG text (whose style WeasyPrint makes while painting) the style svg.text makes from the same font
        properties. font_of checks the font is the one the child used."""
        from genreport.printing.splitpaint import _Fallback, font_of, svg_text_style
        from weasyprint.text.line_break import create_layout

        new = [(key, style_id, text, described) for key, _box, style_id, text, described, _facts in new
               if key not in fonts]
        if not new:
            return []
        styles = {id(box.style): box.style for box in self.root_box.descendants()}
        out = []
        for key, style_id, text, described in new:
            svg, values = described or (False, None)
            style = svg_text_style(values, self.root_box.style) if svg and values is not None else styles.get(style_id)
            if style is None or not text:
                raise _Fallback("a font first used in a style the box tree does not have")
            layout = create_layout(text, style, None, None, 0)
            out.append((layout, font_of(layout, key)))
        return out


def _child(split: _Split, run: _Run, html) -> None:
    """In the child: lay out pages k.. from the remembered entry, finish them, paint them when told to (what
    ``run`` measures of those pages goes to the parent, for the next build)."""
    from genreport.printing.common import _receive, _send
    from weasyprint.document import Page
    from weasyprint.layout import page as wpage

    def send(obj) -> None:
        _send(split.wfd, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))

    k, root_box, context = split.k, run.root_box, run.context
    resume_at, next_page, right_page, page_state = copy.deepcopy(split.entry)
    context.page_maker = (context.page_maker[:1] + [(None, None, None, None, _fresh()) for _ in range(1, k)]
                          + [(resume_at, next_page, right_page, page_state, _fresh())])
    noted = []
    collector = context.target_collector
    cache = collector.cache_target_page_counters

    def cache_target_page_counters(anchor_name, page_counter_values, page_maker_index, page_maker):
        noted.append((anchor_name, copy.deepcopy(page_counter_values), page_maker_index))
        return cache(anchor_name, page_counter_values, page_maker_index, page_maker)

    collector.cache_target_page_counters = cache_target_page_counters
    pages = []
    context.rendered_notes = []
    i = k
    while True:
        context.page_maker[i][-1].update(_fresh())
        page, resume_at = wpage.remake_page(i, context, root_box, html)  # measured by render()'s wrapper
        pages.append(page)
        reported = context.reported_footnotes
        i += 1
        if resume_at is None and not reported:
            break
    n = i
    context.page_maker = context.page_maker[:n + 1]
    context.broken_out_of_flow.clear()
    context.reported_footnotes.clear()
    refused = _refusal(context, pages, k, n)
    if refused:
        send({"refused": refused})
        return
    _mark("child: laid out")
    send({"state_k": copy.deepcopy(context.page_maker[k][-1]),
          "entries": copy.deepcopy([tuple(e) for e in context.page_maker[k + 1:n + 1]]),
          "anchors": noted, "costs": {i: run.costs[i] for i in range(k, n)}})

    # finish the pages as layout_document does after its passes, with the total and the strings before them
    for entry in context.page_maker[k:]:
        entry[3][1]["pages"] = [n]
    for name, text in split.seeds.items():
        context.string_set[name][k] = [text]
    all_pages = [None] * k + pages
    finished = list(_finish(context, all_pages, first=k))
    documented = [Page(box) for box in finished[k:]]
    data = []
    for page in documented:
        if any(page.forms.values()) or any(kind == "attachment" for kind, *_ in page.links):
            send({"refused": "a form or an attachment on the child's pages"})
            return
        data.append({"width": page.width, "height": page.height, "bleed": page.bleed,
                     "links": [(kind, target, rect) for kind, target, rect, _box in page.links],
                     "anchors": page.anchors, "bookmarks": page.bookmarks})
    send({"pages": data})
    _mark("child: finished pages sent")

    # paint at once if no figure is still to come, else when told to, with the final figures in place of their
    # stand-ins; what the parent's first page starts with is checked against what was assumed
    early = None
    if not _images(documented, split.blank):
        assumed = _assumed()
        with contextlib.suppress(Exception):
            early = (assumed, _paint(documented, k, assumed))
            _mark("child: painted at once")
    message = _receive(split.rfd)
    if message is None:
        return
    go = pickle.loads(message)  # noqa: S301 - from our own parent
    _mark("child: told to paint")
    try:
        if early is not None and early[0] == dict(go, figures=None) and not _images(documented, go["figures"]):
            send(early[1])
        else:
            send(_paint(documented, k, go))
        _mark("child: painted and sent")
    except Exception as exc:  # noqa: BLE001 - the parent prints the document again in one process
        send({"refused": f"the child could not paint its pages ({type(exc).__name__}: {exc})"})


def _images(documented: list, urls) -> bool:
    """Whether an image of ``documented`` pages has one of ``urls``."""
    if not urls:
        return False
    from weasyprint.formatting_structure.boxes import ReplacedBox

    return any(isinstance(box, ReplacedBox) and getattr(box.replacement, "_base_url", None) in urls
               for page in documented for box in page._page_box.descendants())


def _assumed() -> dict:
    """What a document without colour profiles or tags starts painting with, as WeasyPrint 70's generate_pdf
    makes it: the colour space is the file's first object, scale 0.75 (zoom 1), streams compressed."""
    import pydyf

    color_space = pydyf.Dictionary()
    pydyf.PDF().add_object(color_space)
    return {"figures": None, "colorspace": color_space.reference, "compress": True, "scale": 0.75}


def _paint(documented: list, k: int, go: dict) -> dict:
    import pydyf
    from genreport.printing import common
    from genreport.printing.splitpaint import paint_packed

    if go["figures"] and not common.put_figures([page._page_box for page in documented], go["figures"]):
        return {"refused": "a final figure's size is not its stand-in's"}

    class Shared:  # what the parent's first stream holds at the start of painting
        _fonts, _images, _tags, _color_profiles, _output_intent = {}, {}, None, {}, None
        compress = go["compress"]
        _resources = pydyf.Dictionary({
            "ExtGState": pydyf.Dictionary(), "XObject": pydyf.Dictionary(), "Pattern": pydyf.Dictionary(),
            "Shading": pydyf.Dictionary(), "ColorSpace": go["colorspace"]})

    return paint_packed(list(enumerate(documented, k)), type(documented[0]).paint, Shared, go["scale"])


def _fresh() -> dict:
    return {"content_changed": False, "pages_wanted": False, "anchors": [], "content_lookups": []}


def _refusal(context, pages, k: int, n: int) -> str:
    """Why the child's pages cannot be used without laying them out again in the parent ('' when they can)."""
    for _resume, _next, _right, _state, remake_state in context.page_maker[k:n + 1]:
        if remake_state["content_changed"] or remake_state["pages_wanted"] or remake_state["content_lookups"]:
            return "a page-based counter on the child's pages"
    if any(item.page_maker_index is not None and item.page_maker_index >= k
           for item in context.target_collector.counter_lookup_items.values()):
        return "a page-based counter on the child's pages"
    if any(context.running_elements.values()) or context.footnotes or any(page.fixed_boxes for page in pages):
        return "a running element, footnote or fixed box on the child's pages"
    return ""


def _finish(context, pages, first: int = 0):
    """WeasyPrint 70's end of ``layout_document`` (bookmarks, strings, margin boxes, backgrounds) for the pages
    from ``first`` on that are laid out here; stand-ins are passed through as they are."""
    from weasyprint.layout import layout_fixed_boxes, make_margin_boxes
    from weasyprint.layout.background import layout_backgrounds

    pages = list(pages)  # as they are now: stand-ins laid out here later are finished where that is done
    watch_elements, watch_elements_before, watch_elements_after = [], [], []
    for i, page in enumerate(pages):
        if i < first or isinstance(page, StandIn):
            continue
        _, _, _, page_state, _ = context.page_maker[i + 1]
        page_counter_values = page_state[1]
        for child in page.descendants():
            if child.bookmark_label:
                if child.element_tag.endswith("::before"):
                    checklist = watch_elements_before
                elif child.element_tag.endswith("::after"):
                    checklist = watch_elements_after
                else:
                    checklist = watch_elements
                if child.element in checklist:
                    child.bookmark_label = ""
                else:
                    checklist.append(child.element)
            if child.missing_link:
                for (box, css_token), item in context.target_collector.counter_lookup_items.items():
                    if child.missing_link == box and css_token != "content":
                        if css_token == "bookmark-label" and not child.bookmark_label:
                            continue
                        item.parse_again(page_counter_values)
                        if css_token == "bookmark-label":
                            child.bookmark_label = box.bookmark_label
            string_sets = child.string_set
            if string_sets and string_sets != "none":
                for string_name, text in string_sets:
                    context.string_set[string_name][i + 1].append(text)
    for i, page in enumerate(pages):
        if i < first or isinstance(page, StandIn):
            yield page
            continue
        root_children = []
        root, footnote_area, note_area = page.children
        root_children.extend(layout_fixed_boxes(context, pages[first:i], page))
        root_children.extend(root.children)
        root_children.extend(layout_fixed_boxes(context, pages[i + 1:], page))
        root.children = root_children
        context.current_page = i + 1
        state = context.page_maker[context.current_page][3]
        children = [root]
        if footnote_area.children:
            children.append(footnote_area)
        if note_area.children:
            children.append(note_area)
        children.extend(make_margin_boxes(context, page, state))
        page.children = tuple(children)
        layout_backgrounds(page, context.get_image_from_uri)
        yield page


# ----------------------------------------------------------------------------- where to split, remembered

def _path(root_box, resume_at) -> list | None:
    """[(box, child index)] from the root to where ``resume_at`` resumes; None where it does not fit the tree."""
    path, box, skip = [], root_box, resume_at
    while skip:
        if not isinstance(skip, dict) or len(skip) != 1:
            return None
        ((index, skip),) = skip.items()
        children = getattr(box, "children", None)
        if not isinstance(index, int):
            return None
        path.append((box, index))
        if children is None:  # a text box: the index is an offset in its text
            return path if skip is None else None
        if not 0 <= index < len(children):
            return None
        box = children[index]
    return path if path else None


def _signature(path: list) -> tuple:
    """What a remembered break is checked against first: the elements on the path to it, with their indices
    and (below the root and the body, whose text starts with the title) the start of their text, and the element
    it is before with the start of its text, or the text it is in: another report of the same template, whose
    numbers differ, is not taken for this one, and a retitled one still is."""
    def name(box):
        element = getattr(box, "element", None)
        return str(box.element_tag), str(element.get("id") or "") if element is not None else ""

    # below the root and the body, each element on the path with the start of its text too
    out = [(*name(box), index, _text_start(box) if depth > 1 else "") for depth, (box, index) in enumerate(path)]
    box, index = path[-1]
    children = getattr(box, "children", None)
    if children is not None:
        out.append((*name(children[index]), _text_start(children[index])))
    else:  # a break inside a text: the text
        out.append(_text_start(box))
    return tuple(out)


def _text_start(box, limit: int = 200) -> str:
    """The first ``limit`` characters of the text in ``box``."""
    out, size, stack = [], 0, [box]
    while stack and size < limit:
        box = stack.pop()
        text = getattr(box, "text", None)
        if isinstance(text, str):
            out.append(text)
            size += len(text)
        stack.extend(reversed(getattr(box, "children", None) or ()))
    return "".join(out)[:limit]


def _strings_until(context, page_number: int) -> dict[str, str]:
    """The last value of each running string set on the pages up to ``page_number`` (1-based), as finished."""
    last = {}
    for name, pages in context.string_set.items():
        numbers = [number for number, texts in pages.items() if number <= page_number and texts]
        if numbers:
            last[name] = pages[max(numbers)][-1]
    return last


def _strings_before(path: list) -> dict[str, str]:
    """The last value of each running string (``string-set``) set before the break, in document order: on the
    ancestors of the break and the boxes wholly before it (checked against the parent's pages)."""
    last: dict[str, str] = {}

    def take(box):
        string_set = getattr(box, "string_set", None)
        if string_set and string_set != "none":
            for name, text in string_set:
                last[name] = text

    def whole(box):
        take(box)
        for child in getattr(box, "children", None) or ():
            whole(child)

    for box, index in path:
        take(box)
        for child in (getattr(box, "children", None) or ())[:index]:
            whole(child)
    return last


_memory: list | None = None  # the remembered records, newest first


def _records_path():
    from genreport.paths import cache_dir

    return cache_dir() / RECORDS_FILE


def _records() -> list:
    global _memory
    if _memory is None:
        from genreport.fileio import ReadError, read_private

        try:
            data = ast.literal_eval(read_private(_records_path(), 1_000_000).decode())  # data only, never code
        except (ReadError, ValueError, TypeError, SyntaxError, MemoryError, RecursionError, UnicodeDecodeError):
            data = []
        _memory = [r for r in data if _valid(r)] if isinstance(data, list) else []
    return _memory


def _valid(record) -> bool:
    """Whether ``record`` is one :func:`_remember` writes, every field of its type, shape and range: anything else
    in the file (a page set to None, a float, a list of lists, garbage) is ignored, and remembered again."""
    try:
        return (isinstance(record, dict) and set(record) == {"sig", "k", "entry", "anchors", "lookups"}
                and _int(record["k"], 1) and _valid_signature(record["sig"]) and _valid_entry(record["entry"])
                and isinstance(record["anchors"], dict)
                and all(isinstance(name, str) and _counters(values) and "page" in values
                        for name, values in record["anchors"].items())
                and (record["lookups"] is None or isinstance(record["lookups"], list) and all(
                    isinstance(item, tuple) and len(item) == 2 and _names(item[0]) and _counters(item[1])
                    and set(item[0]) <= set(item[1]) for item in record["lookups"])))
    except RecursionError:
        return False


_MAX = 10**9  # page numbers, counters and indices of a document of any size are below this


def _int(value, low: int = 0) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < _MAX


def _names(value) -> bool:
    return isinstance(value, tuple) and all(isinstance(name, str) for name in value)


def _counters(values) -> bool:
    """Counter values as WeasyPrint keeps them: name -> [value, ...] (one per nesting level), integers."""
    return isinstance(values, dict) and all(
        isinstance(name, str) and isinstance(levels, list) and levels
        and all(isinstance(v, int) and not isinstance(v, bool) and -_MAX < v < _MAX for v in levels)
        for name, levels in values.items())


def _valid_signature(sig) -> bool:
    """(tag, id, child index, text) for each element on the path, then (tag, id, text) of the element the break
    is before, or the text it is in (see :func:`_signature`)."""
    if not (isinstance(sig, tuple) and len(sig) >= 2):
        return False
    *path, last = sig
    return (all(isinstance(item, tuple) and len(item) == 4 and isinstance(item[0], str) and isinstance(item[1], str)
                and _int(item[2]) and isinstance(item[3], str) for item in path)
            and (isinstance(last, str) or isinstance(last, tuple) and len(last) == 3
                 and all(isinstance(v, str) for v in last)))


def _resume_at(value, depth: int = 0) -> bool:
    """WeasyPrint's skip stack: {child index: the child's skip stack, or None}, or None."""
    return value is None or (isinstance(value, dict) and depth < 1000 and all(
        _int(index) and _resume_at(inner, depth + 1) for index, inner in value.items()))


def _valid_entry(entry) -> bool:
    """A page-maker entry as WeasyPrint makes it: (resume_at, next_page, right_page, page_state), page_state
    (quote depths, counter values, counter scopes, page groups)."""
    if not (isinstance(entry, tuple) and len(entry) == 4):
        return False
    resume_at, next_page, right_page, state = entry
    if not (isinstance(resume_at, dict) and resume_at and _resume_at(resume_at) and isinstance(right_page, bool)
            and isinstance(next_page, dict) and set(next_page) == {"break", "page"}
            and isinstance(next_page["break"], str) and isinstance(next_page["page"], (str, type(None)))
            and isinstance(state, tuple) and len(state) == 4):
        return False
    quote_depth, counter_values, scopes, groups = state
    return (isinstance(quote_depth, list) and all(_int(v) for v in quote_depth) and _counters(counter_values)
            and isinstance(scopes, list)
            and all(isinstance(scope, set) and all(isinstance(n, str) for n in scope) for scope in scopes)
            and isinstance(groups, list) and all(
                isinstance(g, list) and len(g) == 3 and (g[0] is None or isinstance(g[0], str)) and _int(g[1])
                and _resume_at(g[2]) for g in groups))


def _remember(root_box, costs: dict, entries: dict, later: float, anchors: dict, lookups: list | None) -> None:
    """Note where the next build of a document of this shape should split (its first pass's entries)."""
    n = len(costs)
    if n < MIN_PAGES or sorted(costs) != list(range(n)) or any(i not in entries for i in range(1, n)):
        return
    record = None
    for k in _split_points([costs[i] for i in range(n)], later):  # the best first, where its entry can be kept
        path = _path(root_box, entries[k][0])
        if path is not None:
            record = {"sig": _signature(path), "k": k, "entry": entries[k], "anchors": anchors, "lookups": lookups}
            try:
                if ast.literal_eval(repr(record)) == record and _valid(record):
                    break
            except (ValueError, SyntaxError, RecursionError):
                pass
            record = None  # something that does not read back as data
    if record is None:
        return
    records = _records()
    if records and records[0] == record:
        return
    records[:] = [record] + [r for r in records if r["sig"] != record["sig"]][:KEEP - 1]
    from genreport.errors import BuildError
    from genreport.fileio import write_file

    with contextlib.suppress(BuildError, OSError):
        write_file(_records_path(), repr(records).encode(), private=True)


def _split_points(costs: list[float], later: float) -> list[int]:
    """The pages the child could start at, the best first: its share of the measured layout closest to
    CHILD_SHARE (the parent also lays out again what later passes did)."""
    total = sum(costs) + later
    worst, acc = {}, 0.0
    for k in range(1, len(costs) - 1):
        acc += costs[k - 1]
        worst[k] = max(acc + later, (total - acc - later) * CHILD_SHARE / (1 - CHILD_SHARE))
    return sorted(worst, key=lambda k: (worst[k], k))
