"""Print stage: the same HTML, paginated to PDF by WeasyPrint (no MathML: formulas are SVG images).

Two ways to overlap printing with the rest of a build are here, both on by default and giving the same bytes as
without them. Early layout (``GENREPORT_PDF_OFF=early-layout`` turns it off): since the PDF no longer waits for the
phone-layout figures, laying the pages out while the figures are drawn took a full build of the 8B report from
3.88 s to 3.27 s on two cores. The PDF worker (``GENREPORT_PDF_OFF=worker`` turns it off): once the figure process
stopped waiting for the build and the pages were painted by two processes, a worker that imports WeasyPrint
while the build loads and evaluates took the same build from about 2.5 s to 2.3 s (it measured no gain before). What WeasyPrint does is made cheaper in four more ways, each giving its bytes: its Pango bindings
are prebuilt (``pangoffi``), SVG paths are parsed faster (``fastsvg``), formula images are drawn once and
replayed (``opcache``), and the pages are painted by two processes (``splitpaint``); here, the HTML it parses has a
short token for each image's data URI (:func:`_html`), and the cycle collector is paused while it works.

A one-off build can print in a worker process forked as soon as the command line knows a PDF is wanted
(:func:`start_worker`): the worker imports WeasyPrint while the build loads, evaluates and writes its HTML,
then prints the HTML it is sent with the very code a build without it runs (:func:`html_to_pdf`), so the bytes
are the same. If the worker cannot be started or fails in any way, the build prints in its own process.
Warm processes (``genreport serve``, ``--watch``) print in their own process, WeasyPrint already loaded.

Early layout: the figures are drawn in another process while the HTML is written, and laying out the pages
needs only each figure's size, not its drawing. So :func:`prepare` lays out the HTML at once with a blank
stand-in of the right size for each figure (sizes remembered from the last build, in the cache folder: data
only; before any build, those of the built-in reports, shipped as ``figure_sizes.json`` by
``python -m genreport.present.mathship``), on the worker or in this process, while the figures are still being
drawn (figures already at hand, kept from the last build, are laid out themselves); :func:`html_to_pdf` then puts
the real drawings in place of the stand-ins and paints the pages. It does so only when the final HTML is exactly
the early one with the figures in place and every figure's size (width, height, viewBox, as WeasyPrint reads
them) is the stand-in's; otherwise the pages are laid out again from the final HTML. Either way the bytes are
those of WeasyPrint printing the final HTML (``tests/test_fastpdf.py``). ``GENREPORT_PDF_OFF=early-layout`` turns
it off. Where the gate is closed (:mod:`genreport.printing.gate`) the document is printed by :func:`stock_pdf`:
WeasyPrint as it is, no early layout, no second process.
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import os
import re
import sys
import time

from genreport.errors import BuildError
from genreport.printing.common import _URIS, TOKEN, _receive, _send, _size_of, data_uri, font_config, put_figures, token  # noqa: F401 - the names tests and callers know pdf by
from genreport.procs import Watch, collect, cores, no_gc

_worker = None
_in_process = False  # warm processes print in their own process
_finished: list[int] = []  # workers that have answered, to be reaped
_early: dict | None = None  # the early layout of this process: html (with marks), plan, document, seconds
_used_early = False  # whether the last PDF printed here was painted from its early layout
_early_why = ""  # why the last PDF printed here was not painted from an early layout
_since: dict | None = None  # the fast paths' counts when the early layout began
_paths: dict = {}  # what the last PDF printed by this process (or its worker) ran: see paths()
_marked: tuple[str, dict[str, str]] | None = None  # the render stage's HTML with its figure marks, name -> mark
_sizes: dict[str, list[str]] | None = None  # figure name -> [width, height, viewBox] of its last drawing
_SIZE_VALUE = re.compile(r"[0-9][0-9.]*(pt|px|mm|cm|in)?|[-0-9. ]+")  # nothing that could leave an attribute


def prepare(html: str | None = None, marks: dict[str, str] | None = None, figures: dict[str, bytes] | None = None,
            idle=None):
    """Import WeasyPrint and set it up; returns the module (None while a PDF worker does that instead).

    Given the report's ``html`` with a placeholder ``marks[name]`` where each figure's data URI goes, also
    start laying it out (see the module's docstring); with the ``figures`` themselves where they are at hand
    (kept from an earlier build), the layout has them in place of blank stand-ins, so the pages need nothing more.
    ``idle()`` is called where this process would otherwise wait for another during that layout (if it does).
    """
    global _marked, _early_why
    _marked = (html, dict(marks)) if html is not None and marks else None
    plan = _plan(marks, figures) if _marked else None
    _early_why = "" if plan or not _marked else "figure sizes not known from a previous build, or turned off"
    if _worker is not None:
        if plan:
            _worker.layout(html, plan)
        return None
    weasyprint = _import()
    if plan:
        _layout_early(html, plan, idle)
    return weasyprint


def _plan(marks: dict[str, str], figures: dict[str, bytes] | None = None) -> dict | None:
    """name -> (mark, stand-in data URI, size) when every figure's size is known from a previous build; the
    stand-in is the figure itself where ``figures`` has it."""
    from genreport.printing import gate

    if gate.off("early-layout") or not gate.is_open():
        return None
    sizes = dict(_known_sizes())
    real = sizes_of(figures) if figures else {}
    sizes.update(real)
    if not all(name in sizes for name in marks):
        return None
    plan = {}
    for name, mark in marks.items():
        if name in real:
            plan[name] = [mark, _data_uri(figures[name]), real[name], False]
            continue
        w, h, vb = sizes[name]
        blank = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="{vb}" '
                 f'id="genreport-stand-in-{name}"></svg>').encode()
        plan[name] = [mark, _data_uri(blank), [w, h, vb], True]
    return plan


def _data_uri(svg: bytes) -> str:
    """As the render stage writes a figure; checked, not assumed (see :func:`_from_early`)."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg).decode()


def _layout_early(html: str, plan: dict, idle=None) -> None:
    global _early, _since
    t = time.perf_counter()
    _since = _counts()
    early = html
    for mark, uri, _size, _blank in plan.values():
        early = early.replace(mark, uri)

    try:
        with no_gc():
            from genreport.printing import splitlayout

            blank = {token(uri) for _mark, uri, _size, is_blank in plan.values() if is_blank}
            document = splitlayout.render(_html(early), blank=blank, idle=idle)
    except Exception:  # noqa: BLE001 - the final HTML is laid out again and any error shows there
        _early = None
        return
    _early = {"html": html, "plan": plan, "document": document, "seconds": time.perf_counter() - t}


_URI = re.compile(r"data:image/svg\+xml;base64,[A-Za-z0-9+/=]*")


def _extract(marked: str, marks: dict[str, str], html: str) -> dict[str, tuple[str, bytes]] | None:
    """name -> (data URI, SVG bytes) of each figure, if ``html`` is exactly ``marked`` with an SVG data URI in
    place of every mark (the same one wherever a mark recurs); None otherwise."""
    by_mark = {mark: name for name, mark in marks.items()}
    pieces = _split_at(marked, list(by_mark))
    pos, found = 0, {}
    for i, piece in enumerate(pieces):
        if i % 2 == 0:
            if not html.startswith(piece, pos):
                return None
            pos += len(piece)
            continue
        m = _URI.match(html, pos)
        if m is None:
            return None
        name = by_mark[piece]
        if found.setdefault(name, m.group()) != m.group():
            return None
        pos = m.end()
    if pos != len(html):
        return None
    try:
        return {name: (uri, base64.b64decode(uri.split(",", 1)[1], validate=True)) for name, uri in found.items()}
    except ValueError:
        return None


def _split_at(text: str, marks: list[str]) -> list[str]:
    """``re.split("(m1|m2|...)", text)`` for the fixed strings ``marks``, without compiling a pattern where they
    share a prefix (the render stage's figure marks share one, with the build's random token): ``re`` kept each
    build's pattern in its module cache, one more (29 kB to compile) with every build of a warm process up to 512.
    Every match of the alternation starts with the prefix, so the leftmost one is at the first of its occurrences
    where a mark starts (the first mark in order, as the alternation tries them)."""
    prefix = os.path.commonprefix(marks)
    if not prefix:
        return re.split("(" + "|".join(re.escape(m) for m in marks) + ")", text)
    out, start, at = [], 0, text.find(prefix)
    while at >= 0:
        mark = next((m for m in marks if text.startswith(m, at)), None)
        if mark is None:
            at = text.find(prefix, at + 1)
            continue
        out += [text[start:at], mark]
        start = at + len(mark)
        at = text.find(prefix, start)
    out.append(text[start:])
    return out


def _from_early(html: str, figures=None):
    """The early layout with the real figures in place, or None where it is not exactly the final HTML's."""
    global _early, _early_why
    early, _early = _early, None
    if early is None:
        _early_why = _early_why or "no early layout was made (no figure sizes known, or it failed)"
        return None
    extracted = _extract(early["html"], {name: mark for name, (mark, *_rest) in early["plan"].items()}, html)
    if extracted is None or set(extracted) != set(early["plan"]):
        _early_why = "the final HTML is not the early one with the figures in place"
        return None
    stand_ins = {token(uri): name for name, (_mark, uri, *_rest) in early["plan"].items()}
    # stand-in token -> (data URI, SVG bytes) of each figure that is not already in place
    wanted = {t: extracted[name] for t, name in stand_ins.items() if token(extracted[name][0]) != t}
    document = early["document"]
    if not put_figures([page._page_box for page in document.pages if hasattr(page, "_page_box")], wanted):
        _early_why = "a figure's size is not its stand-in's"
        return None
    split = getattr(document, "_genreport_split", None)
    if split is not None:  # the pages laid out by another process get theirs there (splitlayout)
        split.figures = wanted
    return document


def _html(html: str):
    """WeasyPrint's document of ``html`` with each SVG data URI replaced by its token, which a URL fetcher
    answers with the decoded bytes: WeasyPrint's HTML parser no longer reads 1.2 MB of base64 a character class at a
    time (0.07 s of the 8B report's layout). Same pages, same bytes (the images' URLs are not written)."""
    import weasyprint

    def swap(m):
        uri = m.group()
        t = token(uri)
        _URIS[t] = uri
        return t

    _URIS.clear()
    return weasyprint.HTML(string=_URI.sub(swap, html), base_url=None, url_fetcher=_fetcher_class()())


@functools.cache
def _fetcher_class():
    from weasyprint.urls import URLFetcher, URLFetcherResponse

    class Fetcher(URLFetcher):
        """Answers the document's own tokens and nothing else: no file, no network, whatever an image names."""

        def fetch(self, url, headers=None):
            uri = _URIS.get(url) if isinstance(url, str) and url.startswith(TOKEN) else None
            if uri is None:  # WeasyPrint leaves out what it cannot fetch, and goes on
                raise ValueError(f"genreport fetches no URL: {str(url)[:80]}")
            return URLFetcherResponse(url, base64.b64decode(uri.split(",", 1)[1]), {"Content-Type": "image/svg+xml"})

    return Fetcher


def _known_sizes() -> dict[str, list[str]]:
    global _sizes
    if _sizes is None:
        from genreport.fileio import ReadError, read_private, read_regular

        data = {}
        # a first build: the built-in reports' figure sizes, shipped in the package
        for path, read in ((_sizes_file(), read_private), (SHIPPED_SIZES, read_regular)):
            try:
                data = json.loads(read(path, 100_000))
            except (ReadError, ValueError, RecursionError):
                continue
            if isinstance(data, dict) and data:
                break
        _sizes = {k: v for k, v in data.items() if _valid_size(v)} if isinstance(data, dict) else {}
    return _sizes


def sizes_of(figures: dict[str, bytes]) -> dict[str, list[str]]:
    """name -> [width, height, viewBox] of each figure whose root element states all three."""
    out = {}
    for name, svg in figures.items():
        m = _ROOT.search(svg[:4096])
        attrs = dict(_ATTR.findall(m.group(1).decode("utf-8", "replace"))) if m else {}
        value = [attrs.get("width", ""), attrs.get("height", ""), attrs.get("viewBox", "")]
        if _valid_size(value) and all(value):
            out[name] = value
    return out


def _valid_size(v) -> bool:
    return (isinstance(v, list) and len(v) == 3 and all(isinstance(x, str) and len(x) < 64 for x in v)
            and all(_SIZE_VALUE.fullmatch(x) for x in v))


SHIPPED_SIZES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "figure_sizes.json")


def _sizes_file():
    from genreport.paths import cache_dir

    return cache_dir() / "figure-sizes.json"


_ROOT = re.compile(rb"<svg\b([^>]*)>")
_ATTR = re.compile(r'\s(width|height|viewBox)="([^"]*)"')


def _remember_sizes(figures: dict[str, bytes] | None) -> None:
    """Note each figure's size for the next build's early layout (in memory and in the cache folder)."""
    if not figures:
        return
    sizes = dict(_known_sizes())
    found = sizes_of(figures)
    for name in figures:
        if name in found:
            sizes[name] = found[name]
        else:
            sizes.pop(name, None)
    if sizes != _known_sizes():
        _known_sizes().clear()
        _known_sizes().update(sizes)
        from genreport.errors import BuildError as WriteFailed
        from genreport.fileio import write_file

        try:
            write_file(_sizes_file(), json.dumps(sizes, sort_keys=True).encode(), private=True)
        except WriteFailed:
            pass  # no early layout next time, nothing else


def _import():
    """Import WeasyPrint (0.15 s with the prebuilt bindings and fontTools' unused modules deferred, 0.5 s without)
    and install the fast paths where the gate is open (:mod:`genreport.printing.gate`); returns the module."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # fontTools subsetting stamps the time otherwise
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    from genreport.printing import gate
    from genreport.printing.common import keep_libraries_open

    try:
        gate.install(before_import=True)  # fontTools' subsetter deferred, the prebuilt Pango bindings
        import weasyprint
    except (ImportError, OSError) as exc:  # missing Pango/HarfBuzz shows up as OSError
        raise BuildError(f"PDF output needs WeasyPrint and its system libraries ({exc}); "
                         "install them as the README says, or use --format html,json") from None
    gate.install(before_import=False)  # the SVG paths, the file's streams, formula images, the layout's passes
    keep_libraries_open()  # Pango and the rest stay mapped while the interpreter frees what it kept
    return weasyprint


def stock_pdf(html: str) -> bytes:
    """The stock path: WeasyPrint as it is, given the HTML and nothing else (no file, no network: it may read
    only the document's own data URIs)."""
    import weasyprint
    from weasyprint.urls import URLFetcher

    fetcher = URLFetcher(allowed_protocols={"data"})
    return weasyprint.HTML(string=html, base_url=None, url_fetcher=fetcher).write_pdf(pdf_identifier=False)


def html_to_pdf(html: str, figures=None, timer=None, idle=None) -> bytes:
    """PDF bytes of a self-contained HTML string; deterministic given the same fonts and versions.

    With a ``timer``, its laps are ``pdf-layout`` (WeasyPrint's cascade and pagination) and ``pdf-draw``
    (painting pages, images and fonts into the file). ``idle()`` runs once: while the worker prints, or after
    the PDF is made here.
    """
    global _worker, _used_early
    pending = [idle] if idle is not None else []

    def run_idle():
        while pending:
            pending.pop()()

    if _worker is not None:
        worker, _worker = _worker, None  # one document per worker: a second build prints here
        pdf = worker.render(html, timer, run_idle)
        if pdf is not None:
            _used_early = worker.used_early
            _paths.clear()
            _paths.update(worker.paths, process="the PDF worker process")
            _remember_marked(html)
            return pdf
    _import()
    before = _since if _early is not None and _since is not None else _counts()
    from genreport.printing import gate

    if not gate.is_open():
        pdf = stock_pdf(html)
        if timer:
            timer.lap("pdf-draw")
        _note_paths(before, False)
        run_idle()
        return pdf
    early = _early
    document = _from_early(html)
    if timer and early is not None and document is not None:  # it ran inside the render stage's 'pdf-import' lap
        moved = min(early["seconds"], timer.t.get("pdf-import", 0.0))
        timer.t["pdf-import"] = timer.t.get("pdf-import", 0.0) - moved
        timer.t["pdf-early-layout"] = moved
    _used_early = document is not None
    from genreport.printing import splitlayout, splitpaint

    try:
        with no_gc():
            if document is None:
                document = splitlayout.render(_html(html))
            if timer:
                timer.lap("pdf-layout")
            try:
                pdf = splitpaint.write_pdf(document)  # the same bytes as document.write_pdf(pdf_identifier=False)
            except splitlayout.Fallback:  # the other process's pages could not be merged: print it all here
                pdf = splitpaint.write_pdf(splitlayout.render(_html(html), split=False))
    finally:
        splitlayout.close_all()
    if timer:
        timer.lap("pdf-draw")
    _remember_marked(html)
    from genreport.printing import opcache

    opcache.save()
    _note_paths(before, _used_early)
    run_idle()
    return pdf


def _counts() -> dict:
    from genreport.printing import fastlayout, opcache, splitlayout, splitpaint

    return {name: dict(mod.stats) for name, mod in (("split-layout", splitlayout), ("split-paint", splitpaint),
                                                    ("opcache", opcache), ("layout", fastlayout))}


def _note_paths(before: dict, used_early: bool) -> None:
    """What this process's last PDF ran (see :func:`paths`)."""
    from genreport.printing import gate, pangoffi

    after = _counts()
    delta = {part: {k: v - before[part].get(k, 0) if isinstance(v, int) else v for k, v in counts.items()}
             for part, counts in after.items()}
    _paths.clear()
    _paths.update(path="fast" if gate.is_open() else "stock", gate=gate.reason(), versions=gate.versions(),
                  patches=gate.installed(), pango=pangoffi.used(), process="this process",
                  early="used" if used_early else _early_why, counts=delta,
                  off=sorted(p for p in gate.PARTS if gate.off(p)))


def paths() -> dict:
    """What the last PDF printed by this process (or its worker) ran, as :func:`describe` words it."""
    return dict(_paths)


def describe() -> list[str]:
    """Lines saying which paths printed the last PDF, and every fallback with its reason (``--timings``)."""
    p = _paths
    if not p:
        return []
    versions = ", ".join(f"{k} {v}" for k, v in p["versions"].items())
    if p["path"] == "stock":
        return [f"pdf: stock WeasyPrint ({p['gate']}; {versions}), printed by {p['process']}"]
    c = p["counts"]
    lines = [f"pdf: fast path (gate open: {versions}), printed by {p['process']}",
             "pdf: patches: " + ", ".join(p["patches"]) + ("" if p["pango"] else "; Pango bindings: stock (cdef parsed)")]
    if p["off"]:
        lines.append("pdf: turned off by GENREPORT_PDF_OFF: " + ", ".join(p["off"]))
    lines.append("pdf: early layout: " + ("used" if p["early"] == "used" else f"not used ({p['early'] or 'no HTML'})"))
    sl = c["split-layout"]
    if sl.get("taken") and not sl.get("materialized"):
        lines.append("pdf: split layout: the pages after the break laid out by a second process")
    elif sl.get("split"):
        lines.append(f"pdf: split layout: fell back to one process ({sl.get('reason') or 'laid out again here'})")
    else:
        lines.append("pdf: split layout: not tried (no record of this document's shape yet, one core, or off)")
    sp = c["split-paint"]
    if sp.get("fell_back"):
        lines.append(f"pdf: split paint: fell back to one process ({sp.get('reason')})")
    elif sp.get("merged") or sl.get("merged"):
        lines.append("pdf: split paint: pages painted by two processes, merged")
    else:
        lines.append("pdf: split paint: one process (few pages, one core, or off)")
    oc = c["opcache"]
    lines.append(f"pdf: formula images: {oc.get('replayed', 0)} replayed, {oc.get('recorded', 0)} recorded, "
                 f"{oc.get('drawn', 0)} drawn by WeasyPrint")
    return lines


def _remember_marked(html: str) -> None:
    """The sizes of every figure in ``html`` (wide and narrow) for the next early layout, if asked for."""
    global _marked
    marked, _marked = _marked, None
    from genreport.printing import gate

    if marked is None or gate.off("early-layout") or not gate.is_open():
        return
    extracted = _extract(marked[0], marked[1], html)
    if extracted:
        _remember_sizes({name: svg for name, (_uri, svg) in extracted.items()})


def warm_up() -> None:
    """Import WeasyPrint and print a small page, so fontconfig, Pango and the fonts are loaded (warm processes)."""
    weasyprint = _import()
    html = ('<p style="font-family: DejaVu Sans">warm <b>bold</b> <i>italic</i> <code>mono</code></p>'
            '<img src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIx'
            'MCIgaGVpZ2h0PSIxMCI+PHBhdGggZD0iTSAwIDAgTCAxMCAxMCIvPjwvc3ZnPg==">')
    weasyprint.HTML(string=html, base_url=None).render(font_config=font_config()).write_pdf(pdf_identifier=False)


# ------------------------------------------------------------------------------------------------ the worker

def start_worker() -> bool:
    """Fork the PDF worker now (two or more cores, not ``GENREPORT_PDF_OFF=worker``); True if one is running."""
    global _worker
    _reap()
    if _worker is not None:
        return True
    from genreport.printing import gate

    gate.is_open()  # decided (and any warning given) here, not in the worker, whose output goes nowhere
    if _in_process or gate.off("worker") or os.environ.get("GENREPORT_SERIAL") or cores() < 2 or not hasattr(os, "fork") or "weasyprint" in sys.modules:
        return False
    try:
        _worker = _Worker()
    except OSError:  # no fork here (memory, limits): print in this process
        _worker = None
    return _worker is not None


def stop_worker() -> None:
    """End a worker that was not used (a build that failed or needed no PDF) and collect those that were."""
    global _worker
    worker, _worker = _worker, None
    if worker is not None:
        worker.close()
        import signal

        try:
            os.kill(worker.pid, signal.SIGKILL)
            os.waitpid(worker.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
    _reap(block=True)


def keep_in_process() -> None:
    """No worker from now on: this process keeps WeasyPrint loaded and prints itself (serve, --watch)."""
    global _in_process
    stop_worker()
    _in_process = True


def _reap(block: bool = False) -> None:
    """Collect workers that have answered (``block``: wait for them to exit, so their resource use is counted)."""
    for pid in list(_finished):
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
            if block and not done:  # bounded: a worker stopped before it could exit is killed (genreport.procs)
                collect(pid)
                done = pid
        except ChildProcessError:
            done = pid
        if done:
            _finished.remove(pid)


class _Worker:
    """A forked process that imports WeasyPrint at once, then prints one HTML document sent to it."""

    def __init__(self):
        requests, self._to = os.pipe()
        self._from, replies = os.pipe()
        self.used_early = False
        self.paths: dict = {}
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the worker
            code = 1
            try:
                from genreport.procs import die_with_parent

                die_with_parent(parent)
                os.close(self._to)
                os.close(self._from)
                _child(requests, replies)
                code = 0
            finally:
                os._exit(code)  # never return into the command line's code, never flush its buffers
        os.close(requests)
        os.close(replies)

    def layout(self, html: str, plan: dict) -> None:
        """Have the worker start laying out ``html`` with the figures' stand-ins (it answers nothing)."""
        watch = Watch(self.pid)
        try:
            _send(self._to, json.dumps({"kind": "layout", "plan": plan}).encode(), watch)
            _send(self._to, html.encode("utf-8"), watch)
        except OSError:
            pass  # a dead worker (or a stuck one, killed): render() finds out and the build prints itself

    def render(self, html: str, timer=None, idle=None) -> bytes | None:
        """The PDF of ``html``, or None if the worker failed (the caller then prints it itself); ``idle()`` runs
        once ``html`` is sent, while the worker prints."""
        t = time.perf_counter()
        watch = Watch(self.pid)
        try:
            _send(self._to, json.dumps({"kind": "print"}).encode(), watch)
            _send(self._to, html.encode("utf-8"), watch)
            if idle is not None:
                idle()
            meta = _receive(self._from, watch)
            pdf = _receive(self._from, watch)
        except OSError:  # a dead worker, or a stuck one (killed)
            meta = pdf = None
        self.close()
        if meta is None or pdf is None:
            return None
        laps = json.loads(meta)
        if not laps.get("ok"):
            return None
        self.used_early = bool(laps.get("early"))
        self.paths = laps.get("paths") or {}
        if timer:
            timer.lap("pdf-draw")  # all the time waited, split below as the worker measured it
            waited = time.perf_counter() - t
            layout = min(laps["layout"], waited)
            draw = min(laps["draw"], waited - layout)
            timer.t["pdf-draw"] = timer.t["pdf-draw"] - waited + draw
            timer.t["pdf-layout"] = timer.t.get("pdf-layout", 0.0) + layout
            timer.t["pdf-wait"] = waited - layout - draw  # the worker still laying out, sending, writing
            if laps.get("early"):
                timer.t["pdf-early-layout"] = laps["early"]
        return pdf

    def close(self) -> None:
        for fd in (self._to, self._from):
            try:
                os.close(fd)
            except OSError:
                pass
        self._to = self._from = -1
        _finished.append(self.pid)


def _child(requests: int, replies: int) -> None:
    """The worker's life: import WeasyPrint, print the one document it gets, send the PDF back."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C ends it quietly; the command line reports it
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # nothing of the worker's may reach the user's terminal or pipes:
    os.dup2(devnull, 2)  # whatever goes wrong, the build prints the page itself and says why
    try:
        _import()
    except BaseException:  # noqa: BLE001
        pass
    while True:
        head = _receive(requests)
        html = _receive(requests)
        if head is None or html is None:
            return
        request = json.loads(head)
        if request["kind"] == "layout":
            try:
                _layout_early(html.decode("utf-8"), request["plan"])
            except BaseException:  # noqa: BLE001 - laid out again from the final HTML
                pass
            continue
        break

    class Laps:
        def __init__(self):
            self.t, self._last = {}, time.perf_counter()

        def lap(self, name):
            now = time.perf_counter()
            self.t[name] = self.t.get(name, 0.0) + now - self._last
            self._last = now

    laps = Laps()
    early = _early["seconds"] if _early else 0.0
    try:
        pdf = html_to_pdf(html.decode("utf-8"), timer=laps)
        meta = {"ok": True, "layout": laps.t.get("pdf-layout", 0.0), "draw": laps.t["pdf-draw"],
                "early": early if _used_early else 0.0, "paths": paths()}
    except BaseException:  # noqa: BLE001 - the build prints it again in its own process and reports the error
        pdf, meta = b"", {"ok": False}
    _send(replies, json.dumps(meta).encode())
    _send(replies, pdf)
