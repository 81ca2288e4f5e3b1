"""The sweep's figure: best decode tokens/s per model x GPU, as a heatmap.  SVG bytes, no disk.

matplotlib's object API, inside ``rc_context`` with the report figures' fixed ``svg.hashsalt``
and no date in the metadata, so two runs give the same bytes.
"""

from __future__ import annotations

import io
import math

import numpy as np


def _short(x: float) -> str:
    """12, 345, 1.2k, 34k, 1.2M."""
    if not math.isfinite(x):
        return ""
    for scale, suffix in ((1e6, "M"), (1e3, "k")):
        if x >= scale:
            v = x / scale
            return f"{v:.2g}{suffix}" if v < 10 else f"{v:.0f}{suffix}"
    return f"{x:.2g}" if x < 10 else f"{x:.0f}"


TITLE_PT = 7.5  # the title's size; its lines wrap to the figure's width
_CHAR_EM = 0.56  # DejaVu Sans' mean character width, in ems: how many characters a line of the width holds


def heatmap_figure(best: dict, accounting: str = "seed", kept: str = ""):
    """The heatmap as a matplotlib Figure (drawn by :func:`heatmap_svg`): ``best`` from
    :func:`genreport.model.sweep.best_per_pair`, rows models, columns GPUs; ``kept``: what the capacity leaves out
    of each GPU (commands.sweep.kept_note), a second line of the title.  Its size follows the grid, the longest model
    name and the title, which wraps to the width: two models on three GPUs once cut the title and the colour bar's
    label at the figure's edges."""
    import textwrap

    import matplotlib
    from genreport.present.figures import RC
    from matplotlib.colors import LogNorm
    from matplotlib.figure import Figure

    value = np.asarray(best["value"], dtype=float)
    models, gpus = best["models"], best["hardware"]
    rows, cols = value.shape
    names = max((len(m) for m in models), default=0)
    # the model names at 8 pt, the cells, the colour bar with its ticks and label
    width = min(0.5 + names * 8 * _CHAR_EM / 72 + 0.62 * cols + 1.1, 16.0)
    per_line = max(20, int((width - 0.25) * 72 / (TITLE_PT * _CHAR_EM)))
    title = "\n".join(textwrap.fill(part, per_line) for part in (
        f"Best decode tokens/s at context {best['context']:,}: any precision, largest batch that fits "
        f"({accounting} accounting; '-': the weights do not fit)", kept) if part)
    lines = title.count("\n") + 1
    # the cells, the title's lines and the GPU names below; at least the colour bar's label (2.4 in at 7 pt) tall
    height = min(max(1.0 + 0.34 * rows + lines * TITLE_PT * 1.3 / 72, 3.4), 14.0)
    # text as SVG text, not glyph paths: a cell label per model x GPU would cost seconds as paths
    with matplotlib.rc_context({**RC, "svg.fonttype": "none"}):
        fig = Figure(figsize=(width, height))
        ax = fig.add_subplot()
        finite = value[np.isfinite(value)]
        shown = np.ma.masked_invalid(value)
        if finite.size:
            lo, hi = float(finite.min()), float(finite.max())
            norm = LogNorm(vmin=lo, vmax=hi if hi > lo else lo * 10)
        else:
            norm = None
        cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#eeeeee")
        im = ax.imshow(shown, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
        ax.set_xticks(range(cols), labels=gpus, rotation=45, ha="right", rotation_mode="anchor")
        ax.set_yticks(range(rows), labels=models)
        ax.tick_params(length=0)
        for side in ("top", "right", "bottom", "left"):
            ax.spines[side].set_visible(False)
        if norm is not None:
            mid = math.sqrt(norm.vmin * norm.vmax)
        for r in range(rows):
            for c in range(cols):
                v = value[r, c]
                if not math.isfinite(v):
                    ax.text(c, r, "-", ha="center", va="center", fontsize=6.5, color="#888888").set_in_layout(False)
                    continue
                prec, batch = best["where"][(r, c)]
                colour = "white" if norm is not None and v < mid else "black"
                ax.text(c, r, f"{_short(v)}\n{prec} B{batch}", ha="center", va="center", fontsize=5.5,
                        color=colour, linespacing=1.1).set_in_layout(False)  # inside its cell: no layout cost
        if norm is not None:
            bar = fig.colorbar(im, ax=ax, fraction=0.04, pad=0.02)
            bar.set_label("decode tokens/s (roofline ceiling)", fontsize=7)
        fig.suptitle(title, x=0.01, ha="left", fontsize=TITLE_PT)  # over the whole width, the model names' too
        fig.tight_layout()
    return fig


def heatmap_svg(best: dict, accounting: str = "seed", kept: str = "") -> bytes:
    """:func:`heatmap_figure` as SVG bytes (the same bytes every run)."""
    import matplotlib
    from genreport.present.figures import RC

    fig = heatmap_figure(best, accounting, kept)
    with matplotlib.rc_context({**RC, "svg.fonttype": "none"}):
        buf = io.BytesIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()
