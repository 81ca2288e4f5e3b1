"""Shared styling of the figures: colours (Okabe-Ito), sizes, matplotlib rc, number labels, axes helpers."""

from __future__ import annotations

import io
import math
from collections.abc import Callable

# Okabe-Ito, colour-blind safe.  Orange is reserved for the capacity limit (seed 003, figure 4).
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILION, PURPLE = (
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
GREY = "#7f7f7f"
CONTEXT_COLOURS = (BLUE, GREEN, PURPLE, VERMILION, SKY, BLACK)
COMPARE_COLOURS = (SKY, VERMILION, PURPLE, GREEN, YELLOW)
MODE_COLOURS = {"decode": VERMILION, "prefill": BLUE, "training": GREEN}
BASELINE = {"color": GREY, "alpha": 0.3}

SIZE = (6.4, 3.6)  # inches
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
    from matplotlib.figure import Figure

    return Figure(figsize=SIZE)


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
