"""Print stage: the same HTML, paginated to PDF by WeasyPrint (no MathML: formulas are SVG images).

A one-off build can print in a worker process forked as soon as the command line knows a PDF is wanted
(:func:`start_worker`): the worker imports WeasyPrint while the build loads, evaluates and writes its HTML,
then prints the HTML it is sent with the very code a build without it runs (:func:`html_to_pdf`), so the bytes
are the same. If the worker cannot be started or fails in any way, the build prints in its own process.
Warm processes (``genreport serve``, ``--watch``) print in their own process, WeasyPrint already loaded.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import sys

from genreport.errors import BuildError

_worker = None
_in_process = False  # warm processes print in their own process
_finished: list[int] = []  # workers that have answered, to be reaped


def prepare():
    """Import WeasyPrint and set it up; returns the module (None while a PDF worker does that instead)."""
    if _worker is not None:
        return None
    return _import()


def _import():
    """Import WeasyPrint (0.2 s with the prebuilt bindings, 0.5 s without) and set it up; returns the module."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")  # fontTools subsetting stamps the time otherwise
    for name in ("weasyprint", "fontTools"):
        logging.getLogger(name).setLevel(logging.ERROR)
    try:
        from genreport.present import pangoffi

        pangoffi.install()  # the same bindings without parsing their C declarations (see its docstring)
        import weasyprint
    except (ImportError, OSError) as exc:  # missing Pango/HarfBuzz shows up as OSError
        raise BuildError(f"PDF output needs WeasyPrint and its system libraries ({exc}); "
                         "install them as the README says, or use --format html,json") from None
    from genreport.present import fastsvg

    fastsvg.install()  # same bytes, a third less time (see its docstring)
    return weasyprint


def html_to_pdf(html: str, figures=None, timer=None) -> bytes:
    """PDF bytes of a self-contained HTML string; deterministic given the same fonts and versions.

    With a ``timer``, its laps are ``pdf-layout`` (WeasyPrint's cascade and pagination) and ``pdf-draw``
    (painting pages, images and fonts into the file).
    """
    global _worker
    if _worker is not None:
        worker, _worker = _worker, None  # one document per worker: a second build prints here
        pdf = worker.render(html, timer)
        if pdf is not None:
            return pdf
    weasyprint = _import()
    document = weasyprint.HTML(string=html, base_url=None).render()
    if timer:
        timer.lap("pdf-layout")
    pdf = document.write_pdf(pdf_identifier=False)
    if timer:
        timer.lap("pdf-draw")
    return pdf


def warm_up() -> None:
    """Import WeasyPrint and print a small page, so fontconfig, Pango and the fonts are loaded (warm processes)."""
    weasyprint = _import()
    html = ('<p style="font-family: DejaVu Sans">warm <b>bold</b> <i>italic</i> <code>mono</code></p>'
            '<img src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHdpZHRoPSIx'
            'MCIgaGVpZ2h0PSIxMCI+PHBhdGggZD0iTSAwIDAgTCAxMCAxMCIvPjwvc3ZnPg==">')
    weasyprint.HTML(string=html, base_url=None).render().write_pdf(pdf_identifier=False)


# ------------------------------------------------------------------------------------------------ the worker

def start_worker() -> bool:
    """Fork the PDF worker now (on a machine with two or more cores); True if one is running."""
    global _worker
    _reap()
    if _worker is not None:
        return True
    if _in_process or os.environ.get("GENREPORT_SERIAL") or os.environ.get("GENREPORT_PDF_WORKER") == "0" or (os.cpu_count() or 1) < 2 or not hasattr(os, "fork") \
            or "weasyprint" in sys.modules:
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
            done, _status = os.waitpid(pid, 0 if block else os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _finished.remove(pid)


def _send(fd: int, data: bytes) -> None:
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int) -> bytes | None:
    """One message, or None at the end of the pipe."""
    head = _read_exactly(fd, 8)
    if head is None:
        return None
    return _read_exactly(fd, struct.unpack("<Q", head)[0])


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


class _Worker:
    """A forked process that imports WeasyPrint at once, then prints one HTML document sent to it."""

    def __init__(self):
        requests, self._to = os.pipe()
        self._from, replies = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the worker
            code = 1
            try:
                os.close(self._to)
                os.close(self._from)
                _child(requests, replies)
                code = 0
            finally:
                os._exit(code)  # never return into the command line's code, never flush its buffers
        os.close(requests)
        os.close(replies)

    def render(self, html: str, timer=None) -> bytes | None:
        """The PDF of ``html``, or None if the worker failed (the caller then prints it itself)."""
        import time

        t = time.perf_counter()
        try:
            _send(self._to, html.encode("utf-8"))
            meta = _receive(self._from)
            pdf = _receive(self._from)
        except OSError:
            meta = pdf = None
        self.close()
        if meta is None or pdf is None:
            return None
        laps = json.loads(meta)
        if not laps.get("ok"):
            return None
        if timer:
            timer.lap("pdf-draw")  # all the time waited, split below as the worker measured it
            waited = time.perf_counter() - t
            layout = min(laps["layout"], timer.t["pdf-draw"])
            timer.t["pdf-draw"] -= layout
            timer.t["pdf-layout"] = timer.t.get("pdf-layout", 0.0) + layout
            timer.t["pdf-wait"] = max(0.0, waited - laps["layout"] - laps["draw"])
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
    html = _receive(requests)
    if html is None:
        return
    import time

    class Laps:
        def __init__(self):
            self.t, self._last = {}, time.perf_counter()

        def lap(self, name):
            now = time.perf_counter()
            self.t[name] = self.t.get(name, 0.0) + now - self._last
            self._last = now

    laps = Laps()
    try:
        pdf = html_to_pdf(html.decode("utf-8"), timer=laps)
        meta = {"ok": True, "layout": laps.t["pdf-layout"], "draw": laps.t["pdf-draw"]}
    except BaseException:  # noqa: BLE001 - the build prints it again in its own process and reports the error
        pdf, meta = b"", {"ok": False}
    _send(replies, json.dumps(meta).encode())
    _send(replies, pdf)
