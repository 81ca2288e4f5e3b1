"""Shared styling of the figures: colours (Okabe-Ito), sizes, matplotlib rc, number labels, axes helpers."""

from __future__ import annotations

import contextlib
import contextvars
import io
import math
from collections.abc import Callable

import numpy as np

# Okabe-Ito, colour-blind safe.  Orange is reserved for the capacity limit (seed 003, figure 4).
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILION, PURPLE = (
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
GREY = "#7f7f7f"
# Okabe-Ito first, then four of Paul Tol's muted scheme, so up to ten context lengths get distinct colours.
CONTEXT_COLOURS = (BLUE, GREEN, PURPLE, VERMILION, SKY, "#332288", "#999933", "#882255", "#44AA99", BLACK)
COMPARE_COLOURS = (SKY, VERMILION, PURPLE, GREEN, YELLOW)
# One marker shape per workload kind, in every figure: decode circle, prefill square, training triangle, a measured
# run a star.
MARKERS = {"decode": "o", "decode-cap": "o", "prefill": "s", "training": "^", "measured": "*"}
MODE_COLOURS = {"decode": VERMILION, "prefill": BLUE, "training": GREEN}
BASELINE = {"color": GREY, "alpha": 0.3}

SIZE = (6.4, 3.6)  # inches
# The phone layout: a page 400 px wide shows a figure about 379 px wide, so a 4.0 in (384 px) canvas is drawn at
# 0.99 scale and 7 pt text (9.3 px) stays above 9 px.  The wide figure would shrink to 0.62 and its text to 5.8 px.
NARROW_SIZE = (4.0, 4.8)
MIN_FONT_PT = 7.0
_NARROW = contextvars.ContextVar("genreport_narrow_figure", default=False)


@contextlib.contextmanager
def layout(narrow: bool):
    """Draw figures in the phone layout (``narrow``) or the wide one inside this block."""
    token = _NARROW.set(bool(narrow))
    try:
        yield
    finally:
        _NARROW.reset(token)


def narrow() -> bool:
    """True while drawing the phone layout (see :func:`layout`)."""
    return _NARROW.get()


def pick(wide, phone):
    """``wide`` in the wide layout, ``phone`` in the phone layout."""
    return phone if narrow() else wide

RC = {
    "svg.hashsalt": "genreport",
    "svg.fonttype": "none",  # text as <text> in DejaVu Sans (installed by scripts/setup): 1/4 the size, selectable, fast in WeasyPrint
    "font.family": "DejaVu Sans",
    "font.size": 8.5,
    "axes.labelsize": 8.5,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 7.5,
    "legend.frameon": True,
    "legend.framealpha": 0.9,
    "legend.edgecolor": "#cccccc",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.linewidth": 0.7,
    "lines.linewidth": 1.6,
    "grid.color": "#e6e6e6",
    "grid.linewidth": 0.5,
    "hatch.linewidth": 0.5,
}
GIB = float(2**30)


def num(x: float) -> str:
    """295, 1,638, 15.4, 4.79, 0.0162: integers from 100 up, three significant figures below."""
    if x is None or not math.isfinite(x):
        return "n/a"
    if abs(x) >= 99.5:
        return f"{x:,.0f}"
    s = f"{x:.3g}"
    return s if "e" not in s else f"{x:.2e}"


def ms(t: float) -> str:
    return f"{num(t * 1e3)} ms"


def gib(b: float) -> str:
    """GiB with four significant figures (119.7, 14.96, 1,043)."""
    x = b / GIB
    return f"{x:,.0f}" if x >= 999.5 else f"{x:.4g}"


def gb(b: float) -> str:
    return f"{num(b / 1e9)} GB"


def tokens(n: float) -> str:
    """128, 1k, 8k, 128k (binary k, as the specs write them), or the plain number."""
    n = int(n)
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024}k"
    return f"{n:,}"


def plain_text(text: str) -> str:
    r"""Spec text (a title) for a Matplotlib text, legend or tick label: shown as written, never as mathtext.

    Matplotlib parses text with two '$' as TeX: the title 'H100 $rac{1}$' crashed the build and
    'spot $2, reserved $1' came out in italics.  An escaped '\$' is a literal dollar sign to it.

    >>> plain_text("H100 $\frac{1}$")
    'H100 \$\frac{1}\$'
    """
    return text.replace("$", r"\$")


def _hw_short(title: str) -> str:
    """A GPU's title without the vendor, for a legend (plain text: see :func:`plain_text`)."""
    return plain_text(title.removeprefix("NVIDIA ").removeprefix("AMD "))


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _figure():
    """A new figure on an Agg canvas, whose renderer (the one that measures text) is made once and kept.

    A bare ``Figure`` has no canvas of its own: each ``fig._get_renderer()`` (every text measured without a renderer
    given, each ``renderer(fig)``, each draw without rendering) made a new renderer, with a new cache of text
    metrics, and measured every label again. The Agg canvas keeps one renderer while the figure's size and dpi stay
    the same (they do), so a text is measured once a figure; its metrics are those of the same Agg renderer, and
    the SVG (written by its own canvas, as before) is the same bytes."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=NARROW_SIZE if narrow() else SIZE)
    FigureCanvasAgg(fig)
    return fig


def _svg(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def _pad(lo: float, hi: float, below: float = 0.25, above: float = 0.25) -> tuple[float, float]:
    """Log-axis limits a little outside [lo, hi] (in decades), so end markers are not cut."""
    return 10.0 ** (math.log10(lo) - below), 10.0 ** (math.log10(hi) + above)


def tick(v: float) -> str:
    """Log-axis tick label as plain text (mathtext 10^k labels cost ~0.3 s a figure): 0.1, 1, 10, 1,000, 1e6."""
    if v >= 1e6 or v < 1e-3:
        e = int(round(math.log10(v)))
        return f"1e{e}" if abs(v / 10.0**e - 1) < 1e-9 else f"{v:.0e}"
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def _log_axis(axis, fmt: Callable[[float], str] = tick, minor: tuple[float, ...] = ()) -> None:
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter, NullLocator

    axis.set_major_locator(LogLocator(10.0))
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt(v)))
    axis.set_minor_locator(LogLocator(10.0, subs=minor) if minor else NullLocator())
    axis.set_minor_formatter(NullFormatter())


def _note(ax, text: str, x: float = 0.99, y: float = 0.02, ha: str = "right", va: str = "bottom", **kw):
    ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=7, color="#555555", style="italic", **kw)


def _levels(xs: list[float], widths: list[float]) -> list[int]:
    """Greedy label stacking: the lowest level whose last label ends before this one starts (log x)."""
    ends: list[float] = []
    out = []
    for x, w in zip(xs, widths, strict=True):
        for k, end in enumerate(ends):
            if x - w / 2 > end:
                ends[k] = x + w / 2
                out.append(k)
                break
        else:
            ends.append(x + w / 2)
            out.append(len(ends) - 1)
    return out


# -- direct labels without collisions -------------------------------------------------------------------------------

# Candidate offsets (points) of a label from its anchor, nearest first: (dx, dy, ha, va).
_NEAR = [(6, 0, "left", "center"), (-6, 0, "right", "center"), (0, 7, "center", "bottom"),
         (0, -7, "center", "top"), (5, 5, "left", "bottom"), (5, -5, "left", "top"),
         (-5, 5, "right", "bottom"), (-5, -5, "right", "top")]
OFFSETS = [(k * dx, k * dy, ha, va) for k in (1, 2.2, 3.6, 5.2, 7) for dx, dy, ha, va in _NEAR]


def renderer(fig):
    """The figure's text-measuring renderer (Agg; the SVG's DejaVu Sans text has the same metrics)."""
    return fig._get_renderer()


def marker_box(ax, x: float, y: float, size_pt: float):
    """Display-space box of a marker of ``size_pt`` points centred on data point (x, y)."""
    from matplotlib.transforms import Bbox

    px, py = ax.transData.transform((x, y))
    h = size_pt * ax.figure.dpi / 72 / 2
    return Bbox([[px - h, py - h], [px + h, py + h]])


def line_boxes(ax, xs, ys, half_px: float = 1.5) -> list:
    """Small display-space boxes along a drawn line, so labels keep off it."""
    from matplotlib.transforms import Bbox

    pts = ax.transData.transform(np.column_stack([xs, ys]))
    return [Bbox([[x - half_px, y - half_px], [x + half_px, y + half_px]]) for x, y in pts]


def _extents(boxes) -> np.ndarray:
    """Boxes as an (n, 4) array of x0, y0, x1, y1."""
    return np.array([b.extents for b in boxes], dtype=float).reshape(-1, 4)


# the wider search when every near candidate collides: a grid of offsets, nearest first
_GRID = sorted(((dx, dy, "center", "center") for dx in range(-150, 151, 10) for dy in range(-90, 91, 8)),
               key=lambda c: math.hypot(c[0], c[1]))


def _costs(t, rend, cands, taken: np.ndarray, soft_px: np.ndarray, frame, side, side_px) -> np.ndarray:
    """The cost of each candidate (dx, dy, ha, va) for text ``t``: overlap with ``taken`` (x100) and ``soft_px``,
    and 5000 per pixel outside the axes ``frame`` or on the wrong ``side``. A candidate's box is the text's box at
    no offset (measured once per alignment) moved by the offset, in points: the same box matplotlib measures,
    to 1e-13 px, at a twentieth of the time."""
    scale = t.figure.dpi / 72.0
    base = {}
    boxes = np.empty((len(cands), 4))
    for i, (dx, dy, ha, va) in enumerate(cands):
        if (ha, va) not in base:
            t.set_position((0, 0))
            t.set_ha(ha)
            t.set_va(va)
            base[ha, va] = np.array(t.get_window_extent(rend).extents, dtype=float)
        boxes[i] = base[ha, va] + np.array((dx, dy, dx, dy), dtype=float) * scale
    cost = 100 * _overlaps(boxes, taken) + _overlaps(boxes, soft_px)
    out_px = (np.maximum(0.0, frame.x0 - boxes[:, 0]) + np.maximum(0.0, boxes[:, 2] - frame.x1)
              + np.maximum(0.0, frame.y0 - boxes[:, 1]) + np.maximum(0.0, boxes[:, 3] - frame.y1))
    cost += out_px * 5000
    if side == "left":
        cost += np.maximum(0.0, boxes[:, 2] - side_px) * 5000
    elif side == "right":
        cost += np.maximum(0.0, side_px - boxes[:, 0]) * 5000
    return cost


def _overlaps(boxes: np.ndarray, others: np.ndarray) -> np.ndarray:
    """For each of ``boxes`` (n, 4), the total area covered by ``others`` (m, 4), in display px²."""
    if not len(others):
        return np.zeros(len(boxes))
    w = np.minimum(boxes[:, None, 2], others[None, :, 2]) - np.maximum(boxes[:, None, 0], others[None, :, 0])
    h = np.minimum(boxes[:, None, 3], others[None, :, 3]) - np.maximum(boxes[:, None, 1], others[None, :, 1])
    return np.sum(np.clip(w, 0, None) * np.clip(h, 0, None), axis=1)


def place_labels(ax, labels: list[dict], obstacles: list | None = None, offsets=OFFSETS, soft: list | None = None) -> list:
    """Put each label near its anchor where its measured box overlaps no other label and no obstacle.

    ``labels``: dicts with ``text``, ``xy`` (data), and optionally ``color``, ``fontsize`` (7), ``backdrop`` (a white
    box under the text, where the figure's dashed lines may cross it), ``side``
    ("left" or "right" of ``side_x``, data x: the whole box must lie on that side, e.g. of the ridge) and
    ``offsets`` (candidates to try first).  ``obstacles``: display-space boxes (markers, legends, other text) a label must not cover; ``soft``: boxes
    it had better not cover (points along lines).  Tries the candidate offsets nearest first and keeps the first that fits inside the axes without overlap;
    when none does, the one with the least overlap.  A label moved beyond the nearest ring gets a thin leader
    line to its anchor.  Returns the Text artists, in the order given.
    """
    fig = ax.figure
    rend = renderer(fig)
    frame = ax.get_window_extent(rend)
    taken = _extents(obstacles or [])
    soft_px = _extents(soft or [])
    out = []
    for lab in labels:
        t = ax.annotate(lab["text"], lab["xy"], xytext=(0, 0), textcoords="offset points",
                        fontsize=lab.get("fontsize", 7), color=lab.get("color", BLACK), zorder=6,
                        linespacing=1.1)
        side = lab.get("side")
        side_px = ax.transData.transform((lab["side_x"], 1.0))[0] if side else None
        best, best_cost = None, math.inf
        # a label of two points joined by " / " that fits nowhere on one line may on two ("S = 256k, B = 21 / decode
        # S = 64k, B = 85" ran off a phone roofline's axes over its tick label "1")
        texts = [lab["text"]] + ([lab["text"].replace(" / ", " /\n")] if " / " in lab["text"] else [])
        for text in texts:
            if best_cost < 100:
                break
            t.set_text(text)
            for cands in ([*lab.get("offsets", []), *offsets], _GRID):
                costs = _costs(t, rend, cands, taken, soft_px, frame, side, side_px)
                zero = np.flatnonzero(costs == 0)
                i = int(zero[0]) if zero.size else int(np.argmin(costs))
                if costs[i] < best_cost:
                    best, best_cost, chosen = cands[i], float(costs[i]), text
                if best_cost < 100:  # nothing hard in the way (at most a line crossed)
                    break
        t.set_text(chosen)
        dx, dy, ha, va = best
        t.set_position((dx, dy))
        t.set_ha(ha)
        t.set_va(va)
        if lab.get("backdrop"):  # a label that lines may cross keeps its text readable over them
            t.set_bbox({"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 0.4})
        if math.hypot(dx, dy) > 10:
            ax.annotate("", lab["xy"], xytext=(dx, dy), textcoords="offset points", zorder=4,
                        arrowprops={"arrowstyle": "-", "color": lab.get("color", BLACK), "lw": 0.5,
                                    "shrinkA": 0, "shrinkB": 4})
        taken = np.vstack([taken, _extents([t.get_window_extent(rend).padded(3)])])
        out.append(t)
    return out


def text_boxes(fig) -> list[tuple[str, object]]:
    """(text, display box) of every visible text of a drawn figure, a legend counted as one box: for tests."""
    from matplotlib.legend import Legend
    from matplotlib.text import Text

    rend = renderer(fig)
    fig.draw_without_rendering()
    legends = list(fig.findobj(Legend))
    inside = {id(t) for lg in legends for t in lg.findobj(Text)}
    drawn_ticks = set()
    for ax in [*fig.axes, *(c for a in fig.axes for c in a.child_axes)]:  # a secondary axis is a child
        for axis in (ax.xaxis, ax.yaxis):
            every = [t for tick in axis.get_major_ticks() + axis.get_minor_ticks() for t in (tick.label1, tick.label2)]
            inside |= {id(t) for t in every}
            if ax.axison and axis.get_visible():
                drawn_ticks |= {id(t) for tick in axis._update_ticks() for t in (tick.label1, tick.label2)
                                if t.get_visible()}
    out = [(f"legend: {lg.get_texts()[0].get_text() if lg.get_texts() else ''}", lg.get_window_extent(rend))
           for lg in legends if lg.get_visible()]
    for t in fig.findobj(Text):
        if (id(t) in inside and id(t) not in drawn_ticks) or not t.get_visible() or not t.get_text().strip():
            continue
        bb = t.get_window_extent(rend)
        out.append((t.get_text(), bb))
    return out


def legends_below(fig, groups: list[dict], top: float) -> list:
    """Phone layout: the legends stacked under the axes, left-aligned, from ``top`` (figure fraction) down.

    ``groups``: keyword arguments of ``fig.legend`` each (``handles``, ``labels``, ``title``, ...); each legend is
    measured with the figure's renderer and the next one starts under it.
    """
    rend = renderer(fig)
    heights = []
    for kw in groups:  # measure in one column first; two columns when one does not fit the space
        lg = fig.legend(loc="upper left", bbox_to_anchor=(0.01, top), **kw)
        heights.append(lg.get_window_extent(rend).height / fig.bbox.height + 0.01)
        lg.remove()
    two = sum(heights) > top
    out, y = [], top
    for kw in groups:
        if two and "ncols" not in kw and len(kw.get("labels", ())) > 2:
            kw = {**kw, "ncols": 2, "fontsize": 7, "handlelength": 1.5, "columnspacing": 0.8}
        lg = fig.legend(loc="upper left", bbox_to_anchor=(0.01, y), **kw)
        out.append(lg)
        y -= lg.get_window_extent(rend).height / fig.bbox.height + 0.01
    return out


def fit_left(fig, ax, pad_px: float = 3.0) -> None:
    """Move the axes right (narrowing them) when their tick labels or axis label would start off the canvas."""
    rend = renderer(fig)
    x0 = ax.get_tightbbox(rend).x0
    if x0 < pad_px:
        shift = (pad_px - x0) / fig.bbox.width
        left, bottom, w, h = ax.get_position().bounds
        ax.set_position((left + shift, bottom, w - shift, h))
