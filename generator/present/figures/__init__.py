"""Draw stage (one module per figure, shared styling in ``style``): a Results object in, the report's six figures out as SVG bytes.  No disk.

matplotlib's object API only (``Figure`` + ``savefig`` into a buffer), never pyplot's global state.
Every figure is drawn inside one ``rc_context`` with a fixed ``svg.hashsalt`` and saved without a date,
so two runs in two processes give the same bytes.

Each figure has a caption function: it states the figure's numbers as conditions on the results, so the
caption stays true for any model/GPU pair.  ``FIGURES`` lists (name, caption) in report order.
"""


from __future__ import annotations

import os
from collections.abc import Callable

from genreport.model.evaluate import Results
from genreport.present.figures.data import _contexts, _crossovers, _decode_curves, _gemm_reading, _modes  # noqa: F401
from genreport.present.figures.fig1_decode_bounds import caption1, fig1_decode_bounds
from genreport.present.figures.fig2_three_modes import caption2, fig2_three_modes
from genreport.present.figures.fig3_intensity_ruler import caption3, fig3_intensity_ruler
from genreport.present.figures.fig4_decode_intensity import caption4, fig4_decode_intensity
from genreport.present.figures.fig5_memory_ledger import caption5, fig5_memory_ledger
from genreport.present.figures.fig6_roofline import caption6, fig6_roofline
from genreport.present.figures.fig7_serving import caption7, fig7_serving
from genreport.present.figures.fig8_gpus import caption8, fig8_gpus
from genreport.present.figures.fig9_gpu_rates import caption9, fig9_gpu_rates
from genreport.present.figures.style import RC, _svg, layout, num, tick, tokens  # noqa: F401

Drawer = Callable[[Results, "Results | None"], object]
Caption = Callable[..., str]

FIGURES: list[tuple[str, Caption]] = [
    ("fig1-decode-bounds", caption1),
    ("fig2-three-modes", caption2),
    ("fig3-intensity-ruler", caption3),
    ("fig4-decode-intensity", caption4),
    ("fig5-memory-ledger", caption5),
    ("fig6-roofline", caption6),
    ("fig7-serving", caption7),
    ("fig8-gpus", caption8),
    ("fig9-gpu-rates", caption9),
]
DRAWERS: dict[str, Drawer] = {
    "fig1-decode-bounds": fig1_decode_bounds,
    "fig2-three-modes": fig2_three_modes,
    "fig3-intensity-ruler": fig3_intensity_ruler,
    "fig4-decode-intensity": fig4_decode_intensity,
    "fig5-memory-ledger": fig5_memory_ledger,
    "fig6-roofline": fig6_roofline,
    "fig7-serving": fig7_serving,
    "fig8-gpus": fig8_gpus,
    "fig9-gpu-rates": fig9_gpu_rates,
}


def captions(results: Results, baseline: Results | None = None) -> dict[str, str]:
    """Figure name -> caption, in report order."""
    return {name: cap(results, baseline) for name, cap in FIGURES}


def draw(name: str, results: Results, baseline: Results | None = None, narrow: bool = False) -> bytes:
    """One figure as SVG bytes (``narrow``: the phone layout)."""
    import matplotlib

    with matplotlib.rc_context(RC), layout(narrow):
        return _svg(DRAWERS[name](results, baseline))


class Pending:
    """Figures being drawn in a forked child process while the parent goes on (see :func:`start`).

    A thread of the parent takes each batch off the pipe as soon as the child sends it, so the child never waits
    for the parent: it draws the phone layout while the parent lays out the PDF, and is done before the PDF is
    painted (which then has the second core to itself, see ``present/splitpaint.py``).
    """

    def __init__(self, results: Results, baseline: Results | None):
        self._args = (results, baseline)
        self._done: dict[str, dict[str, bytes]] = {}
        self._proc = self._conn = self._reader = None
        self._got: dict[str, dict[str, bytes]] = {}
        self._failed = False
        if _parallel():
            import multiprocessing
            import threading

            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe(duplex=False)
            self._proc = ctx.Process(target=_child, args=(child, results, baseline, os.getpid()), daemon=True)
            try:
                self._proc.start()
            except OSError:  # no fork here (memory, limits): draw in this process
                self._proc = None
            child.close()
            if self._proc is not None:
                self._cond = threading.Condition()
                self._reader = threading.Thread(target=self._read, name="genreport-figures", daemon=True)
                self._reader.start()

    def _read(self) -> None:
        """The reader thread: every batch the child sends, until both are in or the child is gone."""
        while True:
            try:
                got = self._conn.recv()
            except (EOFError, OSError):
                got = None
            with self._cond:
                if isinstance(got, dict) and len(got) == 1 and next(iter(got)) in ("wide", "narrow"):
                    self._got.update(got)
                else:  # a child that failed for any reason (an error in a figure included) sends None
                    self._failed = True
                self._cond.notify_all()
                if self._failed or "narrow" in self._got:
                    return

    def cancel(self) -> None:
        """Stop the child (the build failed elsewhere)."""
        if self._proc is not None:
            self._proc.kill()
            self._finish()
            self._done = {"wide": {}, "narrow": {}}

    def result(self) -> dict[str, bytes]:
        """The figures, name -> SVG bytes; drawn here if the child could not draw them. The child sends them
        before it draws the phone layout, so the PDF (which never shows that) can start meanwhile."""
        return self._get("wide")

    def narrow(self) -> dict[str, bytes]:
        """The figures in the phone layout, name -> SVG bytes (the HTML shows them below 40rem)."""
        return self._get("narrow")

    def _get(self, kind: str) -> dict[str, bytes]:
        if kind not in self._done and self._proc is not None:
            with self._cond:
                while kind not in self._got and not self._failed:
                    self._cond.wait()
            self._done.update(self._got)
            if self._failed or "narrow" in self._got:
                self._finish()
        if kind not in self._done:  # drawn here: the same error, if any, in the usual place with its usual message
            args = self._args
            self._done[kind] = draw_all(*args, narrow=kind == "narrow")
        return self._done[kind]

    def _finish(self) -> None:
        self._proc.join()
        if self._reader is not None:
            self._reader.join()
        self._conn.close()
        self._proc = None


def _parallel() -> bool:
    from genreport.procs import cores

    if os.environ.get("GENREPORT_SERIAL") or cores() < 2:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _child(conn, results: Results, baseline: Results | None, parent: int) -> None:
    from genreport.procs import die_with_parent

    die_with_parent(parent)
    try:
        for kind in ("wide", "narrow"):  # the wide ones first: the PDF needs only those
            try:
                out = {kind: draw_all(results, baseline, narrow=kind == "narrow")}
            except BaseException:  # noqa: BLE001 - the parent redraws and reports it
                conn.send(None)
                return
            conn.send(out)
    finally:
        conn.close()


def start(results: Results, baseline: Results | None = None) -> Pending:
    """Begin drawing every figure: on a machine with two or more cores, in a forked process.

    Drawing takes about a second; the parent meanwhile renders the math and HTML and imports WeasyPrint, so the
    figures cost almost no wall time. ``GENREPORT_SERIAL=1`` draws them in this process.
    """
    return Pending(results, baseline)


def draw_all(results: Results, baseline: Results | None = None, narrow: bool = False) -> dict[str, bytes]:
    """Every figure as SVG bytes, name -> bytes, in report order.  ``baseline`` is drawn faded underneath.

    ``narrow``: the phone layout (4.0 in wide, text at least 7 pt, so at least 9 px on a page 400 px wide).
    """
    import matplotlib

    out: dict[str, bytes] = {}
    with matplotlib.rc_context(RC), layout(narrow):
        for name, _cap in FIGURES:
            out[name] = _svg(DRAWERS[name](results, baseline))
    return out

