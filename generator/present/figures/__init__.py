"""Draw stage (one module per figure, shared styling in ``style``): a Results object in, the report's figures out as SVG bytes.  No disk.

matplotlib's object API only (``Figure`` + ``savefig`` into a buffer), never pyplot's global state.
Every figure is drawn inside one ``rc_context`` with a fixed ``svg.hashsalt`` and saved without a date,
so two runs in two processes give the same bytes.

Each figure has a caption function: it states the figure's numbers as conditions on the results, so the
caption stays true for any model/GPU pair.  ``FIGURES`` lists (name, caption) of the figures every report draws;
``SERVING_FIGURES`` those only a report with a ``serving`` block draws; :func:`figure_list` gives a report's own.
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
from genreport.present.figures.fig10_frontier import caption10, fig10_frontier
from genreport.present.figures.fig11_rates import caption11, fig11_rates
from genreport.present.figures.style import RC, _svg, layout, num, tick, tokens  # noqa: F401
from genreport.procs import POLL, Watch

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
SERVING_FIGURES: list[tuple[str, Caption]] = [
    ("fig10-frontier", caption10),
    ("fig11-rates", caption11),
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
    "fig10-frontier": fig10_frontier,
    "fig11-rates": fig11_rates,
}


def hidden(results: Results) -> set[str]:
    """The figures ``results``' report does not show: the memory ledger without a training workload (chapter 4 has no
    training state to draw), the GPUs' comparison where no other GPU is compared, its rates where no tensor-parallel
    layout fits, the serving chapter's without a ``serving`` block.  Neither drawn nor written (a review found
    fig5-memory-ledger.svg in the folders of reports that do not show it)."""
    r = results
    return (({"fig5-memory-ledger"} if not r.training else set())
            | ({"fig8-gpus", "fig9-gpu-rates"} if r.many is None else set())
            | ({"fig9-gpu-rates"} if r.many is not None and not r.many.tp_fits else set())
            | ({"fig10-frontier", "fig11-rates"} if r.serving is None else set()))


def figure_list(results: Results) -> list[tuple[str, Caption]]:
    """(name, caption) of the figures ``results``' report has, in report order: every report's, then the serving
    chapter's when the spec has a ``serving`` block (a report without one has the same figures as before).  Their
    captions are the report's words also where a figure is not shown (:func:`hidden`: chapter 6 says what the GPUs'
    rates would have drawn)."""
    return FIGURES + (SERVING_FIGURES if results.serving is not None else [])


def drawn(results: Results) -> list[str]:
    """The names of the figures ``results``' report shows, in report order: those drawn and written."""
    gone = hidden(results)
    return [name for name, _cap in figure_list(results) if name not in gone]


def captions(results: Results, baseline: Results | None = None) -> dict[str, str]:
    """Figure name -> caption, in report order."""
    from genreport.present.fmt import device

    return {name: device(cap(results, baseline), results.spec.hardware.noun) for name, cap in figure_list(results)}


def draw(name: str, results: Results, baseline: Results | None = None, narrow: bool = False) -> bytes:
    """One figure as SVG bytes (``narrow``: the phone layout)."""
    import matplotlib

    with matplotlib.rc_context(RC), layout(narrow):
        return _svg(_nouned(DRAWERS[name](results, baseline), results.spec.hardware.noun))


def _nouned(fig, noun: str):
    """``fig`` with every text (labels, ticks, legends, notes) saying the device's ``noun`` for "GPU"
    (:func:`genreport.present.fmt.device`); a GPU report's figure is left as it is drawn."""
    if noun != "GPU":
        from genreport.present.fmt import device
        from matplotlib.text import Text

        for t in fig.findobj(Text):
            if "GPU" in t.get_text():
                t.set_text(device(t.get_text(), noun))
    return fig


class Pending:
    """Figures being drawn in forked child processes while the parent goes on (see :func:`start`).

    Figures kept from an earlier build with the same inputs are taken from ``store`` and not drawn. One child draws
    the wide figures, then the phone ones; with ``apart`` (a build without a PDF, whose own process has nothing else
    to do), two children draw one layout each, side by side. A thread of the parent
    takes each batch off its pipe as soon as it is sent, so a child never waits for the parent: with a PDF, the
    phone figures are drawn while the parent lays out the pages, and are done before the pages are painted
    (which then has the second core to itself, see ``present/splitpaint.py``).
    """

    def __init__(self, results: Results, baseline: Results | None, apart: bool = False, phone: bool = True):
        import threading

        from genreport.present.figures import store

        self._keys = store.keys(results, baseline)
        results, baseline = store.blind(results), store.blind(baseline)  # what the figures may depend on
        self._args = (results, baseline)
        self._done: dict[str, dict[str, bytes]] = {}
        self._drawn: set[str] = set()  # the kinds drawn by this build (kept for the next: see keep())
        self._got: dict[str, dict[str, bytes]] = {}
        self._failed: set[str] = set()
        self._covered: set[str] = set()  # the kinds a running child draws
        self._children: list[tuple] = []  # (process, connection, reader thread, its Watch: waits are bounded)
        self._cond = threading.Condition()
        kinds = ("wide", "narrow") if phone else ("wide",)
        self._kept = {kind for kind in kinds if store.exists(self._keys[kind])}  # read when asked for (_get)
        wanted = tuple(kind for kind in kinds if kind not in self._kept)
        if not wanted or not _parallel():
            return
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        groups = tuple((kind,) for kind in wanted) if apart else (wanted,)
        for kinds in groups:
            conn, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_child, args=(child, results, baseline, os.getpid(), kinds), daemon=True)
            try:
                proc.start()
            except OSError:  # no fork here (memory, limits): drawn in this process
                conn.close()
                child.close()
                continue
            child.close()
            reader = threading.Thread(target=self._read, args=(conn, kinds), name="genreport-figures", daemon=True)
            reader.start()
            self._children.append((proc, conn, reader, Watch(proc.pid)))
            self._covered.update(kinds)

    def _read(self, conn, kinds: tuple[str, ...]) -> None:
        """A reader thread: each batch its child sends, until all of its kinds are in or the child is gone."""
        waiting = list(kinds)
        while waiting:
            try:
                got = conn.recv()
            except (EOFError, OSError):
                got = None
            with self._cond:
                if isinstance(got, dict) and len(got) == 1 and next(iter(got)) in waiting:
                    self._got.update(got)
                    self._drawn.add(next(iter(got)))
                    waiting.remove(next(iter(got)))
                else:  # a child that failed for any reason (an error in a figure included) sends None
                    self._failed.update(waiting)
                    waiting = []
                self._cond.notify_all()

    def cancel(self) -> None:
        """Stop the children (the build failed elsewhere)."""
        for proc, *_rest in self._children:
            proc.kill()
        self._finish()
        self._done = {"wide": {}, "narrow": {}}
        self._drawn = set()

    def result(self) -> dict[str, bytes]:
        """The figures, name -> SVG bytes; drawn here if no child could draw them. They come before the phone
        ones, so the PDF (which never shows those) can start meanwhile."""
        return self._get("wide")

    def ready(self) -> dict[str, bytes] | None:
        """The figures (as :meth:`result`) if they are at hand without waiting: kept from an earlier build or
        already drawn; None while they are still being drawn."""
        if self.at_hand("wide"):
            return self._get("wide")
        return None

    def at_hand(self, kind: str) -> bool:
        """Whether the figures of ``kind`` ("wide", "narrow") can be had without waiting for a child to draw them."""
        return kind in self._done or kind in self._kept or kind in self._got

    def narrow(self) -> dict[str, bytes]:
        """The figures in the phone layout, name -> SVG bytes (the HTML shows them below 40rem)."""
        return self._get("narrow")

    def _get(self, kind: str) -> dict[str, bytes]:
        if kind not in self._done and kind in self._kept:
            from genreport.present.figures import store

            kept = store.get(self._keys[kind], drawn(self._args[0]))
            if kept is not None:  # else (a file gone or spoilt since) drawn here, below
                self._done[kind] = kept
        if kind not in self._done and kind in self._covered:
            with self._cond:
                while kind not in self._got and kind not in self._failed:
                    if not self._cond.wait(POLL):  # a stuck child is killed: its reader then sees the pipe end
                        for *_rest, watch in self._children:
                            watch.stuck()
                self._done.update(self._got)
                finished = self._covered <= set(self._got) | self._failed
            if finished:
                self._finish()
        if kind not in self._done:  # drawn here: the same error, if any, in the usual place with its usual message
            args = self._args
            self._done[kind] = draw_all(*args, narrow=kind == "narrow")
            self._drawn.add(kind)
        return self._done[kind]

    def keep(self) -> None:
        """Keep the figures this build drew for the next one (``store``); after the report is made, off its path."""
        from genreport.present.figures import store

        for kind in sorted(self._drawn):
            if kind in self._done:
                store.put(self._keys[kind], self._done[kind])
        self._drawn = set()

    def _finish(self) -> None:
        children, self._children = self._children, []
        for proc, conn, reader, watch in children:
            while proc.is_alive() and not watch.stuck():  # one stopped before it could exit is killed
                proc.join(POLL)
            proc.join()
            reader.join()
            conn.close()
        self._covered = set()


def _parallel() -> bool:
    from genreport.procs import cores

    if os.environ.get("GENREPORT_SERIAL") or cores() < 2:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _child(conn, results: Results, baseline: Results | None, parent: int, kinds: tuple[str, ...]) -> None:
    from genreport.procs import die_with_parent

    die_with_parent(parent)
    try:
        for kind in kinds:  # the wide ones first: the PDF needs only those
            try:
                out = {kind: draw_all(results, baseline, narrow=kind == "narrow")}
            except BaseException:  # noqa: BLE001 - the parent redraws and reports it
                conn.send(None)
                return
            conn.send(out)
    finally:
        conn.close()


def start(results: Results, baseline: Results | None = None, apart: bool = False, phone: bool = True) -> Pending:
    """Begin drawing every figure: on a machine with two or more cores, in forked processes.

    Drawing takes about a second; the parent meanwhile renders the math and HTML and lays out the PDF, so the
    figures cost almost no wall time. ``apart``: the wide and the phone figures in two processes at once (for a
    build without a PDF: 1.6 s -> 1.1 s for the 8B report's HTML). ``phone=False``: the wide figures only (a build
    without HTML). ``GENREPORT_SERIAL=1`` draws them here.
    """
    return Pending(results, baseline, apart, phone)


def preload() -> None:
    """Load in this process what a figure's first drawing loads: Matplotlib's figure, axes, legend and SVG modules,
    the font list and DejaVu Sans's glyph metrics (a throwaway log-scale figure with a legend, written as SVG).

    For a process that forks figure children again and again (``serve``, ``--watch``, the tests' workers): each child
    then starts with them (copy-on-write), where it spent 0.4-0.6 s of its draw loading them itself.  A one-off
    build does not call it: its children load them while the parent renders the math and lays out the pages."""
    import matplotlib
    from genreport.present.figures import style

    with matplotlib.rc_context(RC), layout(False):
        fig = style._figure()
        ax = fig.add_subplot()
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.plot([1.0, 10.0], [1.0, 10.0], "o-", label="a")
        ax.annotate("b", (1.0, 1.0))
        ax.set_xlabel("c")
        ax.legend()
        style._svg(fig)


def draw_all(results: Results, baseline: Results | None = None, narrow: bool = False) -> dict[str, bytes]:
    """Every figure as SVG bytes, name -> bytes, in report order.  ``baseline`` is drawn faded underneath.

    ``narrow``: the phone layout (4.0 in wide, text at least 7 pt, so at least 9 px on a page 400 px wide).
    """
    import matplotlib

    out: dict[str, bytes] = {}
    with matplotlib.rc_context(RC), layout(narrow):
        for name in drawn(results):
            out[name] = _svg(_nouned(DRAWERS[name](results, baseline), results.spec.hardware.noun))
    return out

