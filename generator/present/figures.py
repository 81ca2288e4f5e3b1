"""Draw stage: a Results object in, the report's six figures out as SVG bytes.  No disk.

matplotlib's object API only (``Figure`` + ``savefig`` into a buffer), never pyplot's global state.
Every figure is drawn inside one ``rc_context`` with a fixed ``svg.hashsalt`` and saved without a date,
so two runs in two processes give the same bytes.

Each figure has a caption function: it states the figure's numbers as conditions on the results, so the
caption stays true for any model/GPU pair.  ``FIGURES`` lists (name, caption) in report order.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable

import numpy as np
from genreport.model.evaluate import Results

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


# ---------------------------------------------------------------- formatting

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


def _hw_short(title: str) -> str:
    return title.removeprefix("NVIDIA ").removeprefix("AMD ")


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


# ---------------------------------------------------------------- shared data

def _sc(r: Results) -> dict:
    return r.scalars[r.lead]


def _contexts(r: Results) -> list[int]:
    return list(r.spec.workloads.decode_context) if r.lead in r.per_context else []


def _gemm_reading(r: Results, t: float) -> tuple[float, float | None]:
    """(weight-reuse I_W = 2T/b, full intensity of the first GEMM) at T tokens per weight load."""
    if r.gemm:
        g = r.gemm[0]
        if t in g["tokens"]:
            i = g["tokens"].index(t)
            return float(g["weight_reuse"][i]), float(g["intensity"][i])
    return float(r.value("weight_reuse_intensity", "seed", tokens=t)), None


def _modes(r: Results) -> list[tuple[str, str, int]]:
    """(kind, label, tokens per weight load) for the modes the spec has, in seed 003's order."""
    w = r.spec.workloads
    rows = []
    if w.decode_batch or w.decode_context or not (w.prefill_prompt or w.training_tokens):
        rows.append(("decode", "decode batch 1", 1))
    for p in sorted(w.prefill_prompt):
        rows.append(("prefill", f"prefill {tokens(p)}", int(p)))
    if w.training_tokens:
        rows.append(("training", f"training {tokens(w.training_tokens)}", int(w.training_tokens)))
    return rows


def _decode_curves(r: Results) -> tuple[np.ndarray, np.ndarray]:
    """The model's decode intensity samples: (batch axis, intensity with the spec's contexts along axis 1)."""
    return r.curves["decode_batch"], r.curves["decode_intensity"]


def _crossovers(r: Results) -> list[float | None]:
    xs = r.per_context[r.lead]["crossover_batch"]
    return [float(x) if math.isfinite(x) and x > 0 else None for x in xs]


# ---------------------------------------------------------------- figure plumbing

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


# ---------------------------------------------------------------- figure 1

def fig1_decode_bounds(r: Results, baseline: Results | None = None):
    from matplotlib.patches import FancyArrowPatch, Rectangle

    sc = _sc(r)
    t_mem, t_comp = sc["weight_stream_time"], sc["weight_flops_time"]
    ratio = t_mem / t_comp
    fig = _figure()
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, 10)
    ax.set_ylim(0.1, 4.9)
    ax.axis("off")
    x0, x1 = 2.35, 9.75
    # row labels
    ax.text(0.2, 4.35, "memory bound", fontsize=9, weight="bold", va="center")
    ax.text(0.2, 3.85, "stream every weight once\nN·b / W", fontsize=7.5, va="center", color="#333333")
    ax.text(0.2, 2.05, "compute bound", fontsize=9, weight="bold", va="center")
    ax.text(0.2, 1.55, "one token at peak\n2N / P", fontsize=7.5, va="center", color="#333333")
    long_is_mem = ratio >= 1
    slots = ratio if long_is_mem else 1 / ratio
    # the long bound: one solid bar over the whole span
    y_mem, y_cmp, h = 3.65, 1.4, 0.8
    bar_y = y_mem if long_is_mem else y_cmp
    cell_y = y_cmp if long_is_mem else y_mem
    long_t, short_t = (t_mem, t_comp) if long_is_mem else (t_comp, t_mem)
    ax.add_patch(Rectangle((x0, bar_y), x1 - x0, h, facecolor=BLUE if long_is_mem else VERMILION,
                           edgecolor="none"))
    ax.text((x0 + x1) / 2, bar_y + h / 2,
            (f"{gb(sc['weight_bytes'])} of weights / {num(sc['bandwidth'] / 1e12)} TB/s = {ms(long_t)}"
             if long_is_mem else f"2N / P = {ms(long_t)}"),
            ha="center", va="center", color="white", fontsize=9, weight="bold")
    # the short bound: cells of the short duration under the same span (not to scale)
    n_slots = max(1, int(round(slots)))
    if n_slots <= 24:
        cells = list(range(n_slots))
        n_pos, gap = n_slots, None
    else:
        cells = [*range(16), *range(18, 21)]
        n_pos, gap = 21, 16.5
    w = (x1 - x0) / n_pos
    for k in cells:
        filled = k == 0
        ax.add_patch(Rectangle((x0 + k * w + 0.02, cell_y), w - 0.04, h,
                               facecolor=(VERMILION if long_is_mem else BLUE) if filled else "white",
                               edgecolor="#888888" if not filled else "none", linewidth=0.6))
    if gap is not None:
        ax.text(x0 + (gap + 0.5) * w, cell_y + h / 2, "⋯", ha="center", va="center", fontsize=14, color="#555555")
    # what the one filled cell is
    if long_is_mem:
        what, at, tip = f"the 1 token it has to do: 2N / P = {ms(short_t)}", cell_y, cell_y - 0.55
    else:
        what, at, tip = f"one pass over the weights: N·b / W = {ms(short_t)}", cell_y + h, cell_y + h + 0.3
    ax.annotate(what, xy=(x0 + w / 2, at), xytext=(x0 + 0.1, tip), fontsize=8, va="center",
                color=VERMILION if long_is_mem else BLUE, arrowprops={"arrowstyle": "-", "color": "#555555", "lw": 0.7})
    # span arrow between the rows
    ya = (y_mem + y_cmp + h) / 2
    ax.add_patch(FancyArrowPatch((x0, ya), (x1, ya), arrowstyle="<->", mutation_scale=9, color="#444444", lw=0.8))
    if long_is_mem:
        msg = f"in this window peak compute could do ≈ {num(slots)} such tokens; it does 1"
    else:
        msg = f"compute is the longer bound: the weights could be streamed ≈ {num(slots)} times"
    ax.text((x0 + x1) / 2, ya + 0.12, msg, ha="center", va="bottom", fontsize=8.5,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})
    ridge = sc["ridge_point"]
    eq = " (= the ridge, since b = 2 B)" if abs(ratio - ridge) <= 1e-9 * ridge else ""
    ax.text((x0 + x1) / 2, ya - 0.12, f"t_mem / t_comp = {num(ratio)}{eq}", ha="center", va="top",
            fontsize=7.5, color="#333333")
    _note(ax, "Schematic: cells not to scale.  A ratio of two lower bounds, not an idle fraction: "
              "compute and memory access overlap.", x=0.5, y=0.02, ha="center")
    return fig


def caption1(r: Results, baseline: Results | None = None) -> str:
    sc = _sc(r)
    t_mem, t_comp = sc["weight_stream_time"], sc["weight_flops_time"]
    ratio = t_mem / t_comp
    head = (f"Schematic (cells not to scale): the two lower bounds of one batch-1 decode step of "
            f"{r.spec.model.title} on {r.spec.hardware.title}. By bandwidth it takes N·b/W = {ms(t_mem)}; "
            f"by compute only 2N/P = {ms(t_comp)}. ")
    if ratio >= 1:
        body = (f"In the time the bandwidth sets, the card's peak compute could do about {num(ratio)} such tokens, "
                f"and it has to do 1. ")
    else:
        body = (f"Here compute is the longer bound ({num(1 / ratio)}× the memory time), so batch-1 decode is "
                f"compute-bound on this card. ")
    ridge = sc["ridge_point"]
    if abs(ratio - ridge) <= 1e-9 * ridge:
        body += f"The ratio {num(ratio)} equals the ridge because weights take b = 2 bytes. "
    tail = ("It is a ratio of two lower bounds, not an idle fraction: compute and memory access overlap.")
    return head + body + tail


# ---------------------------------------------------------------- figure 2

def fig2_three_modes(r: Results, baseline: Results | None = None):
    from matplotlib.patches import FancyArrowPatch, Rectangle

    rows = [m for m in _modes(r) if m[0] != "prefill" or m[2] == max(r.spec.workloads.prefill_prompt)]
    fig = _figure()
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.85, 2.75)
    ax.axis("off")
    sc = _sc(r)
    n = len(rows)
    wb = f"{r.spec.precision.weights} weights\n{gb(sc['weight_bytes'])}"
    xb0, xb1 = 2.45, 3.85
    x_tok, x_end, max_cells = 5.0, 8.3, 16
    cw = (x_end - x_tok) / max_cells
    ys = [1.0 + (n - 1) / 2 - i for i in range(n)]
    for (kind, _label, t), y in zip(rows, ys, strict=True):
        c = MODE_COLOURS[kind]
        name = {"decode": "decode\nbatch 1", "prefill": f"prefill\n{tokens(t)} prompt",
                "training": f"training\n{tokens(t)} micro-batch"}[kind]
        ax.text(0.2, y, name, va="center", fontsize=8.5, weight="bold", color=c, linespacing=1.2)
        ax.add_patch(Rectangle((xb0, y - 0.32), xb1 - xb0, 0.64, facecolor=BLUE, edgecolor="none"))
        ax.text((xb0 + xb1) / 2, y, wb, ha="center", va="center", color="white", fontsize=7.5)
        ax.add_patch(FancyArrowPatch((xb1 + 0.1, y), (x_tok - 0.15, y), arrowstyle="-|>", mutation_scale=9,
                                     color="#444444", lw=0.9))
        ax.text((xb1 + x_tok) / 2, y + 0.08, "one load", ha="center", va="bottom", fontsize=6.5, color="#555555")
        k = 1 if t == 1 else min(max_cells, 1 + int(round(math.log2(t))))
        for j in range(k):
            ax.add_patch(Rectangle((x_tok + j * cw + 0.015, y - 0.2), cw - 0.03, 0.4, facecolor=c,
                                   edgecolor="none", alpha=1.0 if j == 0 else 0.6))
        served = "1 token" if t == 1 else f"{t:,} tokens"
        ax.text(x_tok + k * cw + 0.12, y, served, va="center", fontsize=8.5)
    head = ys[0] + 0.5
    ax.text((xb0 + xb1) / 2, head, "same weights", ha="center", va="bottom", fontsize=7.5, color="#555555")
    ax.text(x_tok, head, "tokens served by one weight load", ha="left", va="bottom", fontsize=7.5,
            color="#555555")
    _note(ax, "Schematic: token strips not to scale.", x=0.5, y=0.02, ha="center")
    return fig


def caption2(r: Results, baseline: Results | None = None) -> str:
    rows = _modes(r)
    sc = _sc(r)
    parts = []
    for kind, _label, t in rows:
        if kind == "decode":
            parts.append("decode (batch 1) serves 1 token per weight load")
        elif kind == "prefill" and t == max(r.spec.workloads.prefill_prompt):
            parts.append(f"prefill serves the whole prompt ({t:,} tokens)")
        elif kind == "training":
            parts.append(f"training serves the whole micro-batch ({t:,} tokens)")
    k = len(parts)
    what = {1: "one way", 2: "two ways", 3: "three ways"}.get(k, f"{k} ways")
    return (f"The same weights ({r.spec.precision.weights}, {gb(sc['weight_bytes'])}), {what} to run them. "
            f"The weight block is identical in every row; only the right side differs: {_join(parts)}. "
            "Schematic: the token strips are not to scale.")


# ---------------------------------------------------------------- figure 3

def _ruler_points(r: Results) -> list[tuple[str, str, float, float | None]]:
    out = []
    for kind, label, t in _modes(r):
        iw, full = _gemm_reading(r, t)
        out.append((kind, label, iw, full))
    return out


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


def fig3_intensity_ruler(r: Results, baseline: Results | None = None):
    pts = sorted(_ruler_points(r), key=lambda p: p[2])
    ridge = _sc(r)["ridge_point"]
    values = [p[2] for p in pts] + [p[3] for p in pts if p[3]] + [ridge]
    lo, hi = _pad(min(1.0, min(values)), max(1e4, max(values)), 0.3, 0.3)
    fig = _figure()
    box = (0.2, 0.14, 0.77, 0.84)
    ax = fig.add_axes(box)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    _log_axis(ax.xaxis, minor=(2.0, 5.0))
    ax.set_ylim(0, 1)
    ax.axvspan(lo, ridge, color=SKY, alpha=0.12, lw=0)
    ax.axvspan(ridge, hi, color=ORANGE, alpha=0.10, lw=0)
    ax.axvline(ridge, color=BLACK, lw=1.2)
    ax.text(ridge, 0.015, f" ridge {num(ridge)} ", ha="center", va="bottom", fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    ax.text(0.01, 0.98, "← memory-bound", transform=ax.transAxes, ha="left", va="top", fontsize=8, color=BLUE)
    ax.text(0.99, 0.98, "compute-bound →", transform=ax.transAxes, ha="right", va="top", fontsize=8,
            color=VERMILION)
    y_w, y_f = 0.56, 0.27
    has_full = any(p[3] for p in pts)
    gemm = r.gemm[0] if r.gemm else None
    ax.set_yticks([y_w, y_f] if has_full else [y_w])
    labels = ["weight reuse\nI_W = 2T / b"]
    if has_full:
        labels.append(f"with activations\n({gemm['n']:,}×{gemm['m']:,} GEMM)")
    ax.set_yticklabels(labels)
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    ax.set_xlabel("arithmetic intensity (FLOP/B, log scale)")
    per_decade = box[2] * SIZE[0] / math.log10(hi / lo)  # inches per decade
    char = 0.062  # inches per character at 7.5 pt, generous

    def width(text: str) -> float:
        return (max(len(line) for line in text.split("\n")) * char + 0.08) / per_decade

    tops = [f"{p[1]}\n{num(p[2])}" for p in pts]
    lv_w = _levels([math.log10(p[2]) for p in pts], [width(t) for t in tops])
    full_pts = [(p, num(p[3])) for p in pts if p[3]]
    lv_f = _levels([math.log10(p[3]) for p, _ in full_pts], [width(t) for _, t in full_pts])
    def box(x: float, text: str) -> dict | None:
        """A light backing where the label would sit on the ridge line."""
        if abs(math.log10(x / ridge)) < width(text) / 2:
            return {"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 0.4}
        return None

    for (kind, _label, iw, full), text, lv in zip(pts, tops, lv_w, strict=True):
        c = MODE_COLOURS[kind]
        if full:
            ax.plot([iw, full], [y_w, y_f], color=c, lw=0.8, alpha=0.6)
        ax.plot([iw], [y_w], marker="o", ms=7, color=c, ls="none")
        ax.text(iw, y_w + 0.05 + 0.11 * lv, text, ha="center", va="bottom", fontsize=7.5, color=c,
                linespacing=1.1, bbox=box(iw, text))
    for ((kind, _label, _iw, full), text), lv in zip(full_pts, lv_f, strict=True):
        c = MODE_COLOURS[kind]
        ax.plot([full], [y_f], marker="o", ms=6, mfc="white", mec=c, mew=1.4, ls="none")
        ax.text(full, y_f - 0.05 - 0.065 * lv, text, ha="center", va="top", fontsize=7.5, color=c,
                bbox=box(full, text))
    return fig


def caption3(r: Results, baseline: Results | None = None) -> str:
    pts = _ruler_points(r)
    ridge = _sc(r)["ridge_point"]
    iws = [p[2] for p in pts]
    left = [f"{p[1]} at {num(p[2])}" for p in pts if p[2] < ridge]
    right = [f"{p[1]} at {num(p[2])}" for p in pts if p[2] >= ridge]
    s = f"Weight-reuse intensity I_W = 2T/b of {r.spec.model.title}, {r.spec.precision.weights} weights, "
    if len(pts) > 1:
        s += f"for {len(pts)} ways of running the same weights, spanning {math.log10(max(iws) / min(iws)):.1f} " \
             "orders of magnitude. "
    else:
        s += "for the one mode this spec has. "
    s += f"The ridge at {num(ridge)} FLOP/B splits the ruler: "
    sides = []
    if left:
        sides.append(f"{_join(left)} on the memory-bound left")
    if right:
        sides.append(f"{_join(right)} on the compute-bound right")
    s += "; ".join(sides) + ". "
    full = [(p[1], p[3]) for p in pts if p[3]]
    if full and r.gemm:
        g = r.gemm[0]
        s += (f"Counting activations ({g['n']:,}×{g['m']:,} GEMM, hollow markers): "
              + _join([f"{lab} ≈ {num(v)}" for lab, v in full]) + ".")
        flips = [p[1] for p in pts if p[3] and (p[2] >= ridge) != (p[3] >= ridge)]
        if flips:
            s += f" With activations counted, {_join(flips)} crosses back to the memory-bound side."
    return s


# ---------------------------------------------------------------- figure 4

def _batch_range(res_list: list[Results]) -> float:
    """Right end of the batch axis: the widest of the reports' own ranges (the model's figure samples)."""
    return max(float(x.curves["decode_batch_max"]) for x in res_list if "decode_batch_max" in x.curves)


def _draw_decode(ax, r: Results, faded: bool) -> list[float]:
    ctx = _contexts(r)
    batch, curves = _decode_curves(r)
    pc = r.per_context[r.lead]
    ys = [float(np.nanmin(curves)), float(np.nanmax(curves))]
    for j, s in enumerate(ctx):
        y = curves[:, j]
        ceil = float(pc["decode_intensity_ceiling"][j])
        ys.append(ceil)
        if faded:
            ax.plot(batch, y, lw=2.4, **BASELINE, label="baseline" if j == 0 else None)
            ax.axhline(ceil, ls="--", lw=0.9, **BASELINE)
            cap = float(pc["capacity_batch"][j])
            if 1 <= cap <= batch[-1]:
                ax.plot([cap], [float(pc["intensity_at_capacity"][j])], marker="D", ms=6.5, ls="none", **BASELINE)
            continue
        c = CONTEXT_COLOURS[j % len(CONTEXT_COLOURS)]
        cap = float(pc["capacity_batch"][j])
        label = f"S = {tokens(s)}, ceiling {num(ceil)}"
        if cap >= 1:
            fits = batch <= cap
            ax.plot(batch[fits], y[fits], color=c, label=label)
            beyond = batch >= cap
            ax.plot(batch[beyond], y[beyond], color=c, lw=1.0, ls=(0, (1, 1.5)))
        else:  # not one sequence fits: the whole curve is past the capacity limit
            ax.plot(batch, y, color=c, lw=1.3, ls=(0, (1, 1.5)), label=label + " (no fit)")
        ax.axhline(ceil, color=c, ls="--", lw=0.9, alpha=0.9)
    return ys


def fig4_decode_intensity(r: Results, baseline: Results | None = None):
    from matplotlib.lines import Line2D

    fig = _figure()
    ax = fig.add_axes((0.1, 0.13, 0.87, 0.84))
    ctx = _contexts(r)
    if not ctx:
        ax.axis("off")
        _note(ax, "This spec has no decode workload.", x=0.5, y=0.5, ha="center", va="center")
        return fig
    sc = _sc(r)
    ridge = sc["ridge_point"]
    with_base = baseline is not None and bool(_contexts(baseline))
    bmax = _batch_range([r, baseline] if with_base else [r])
    ys = [ridge]
    if with_base:
        ax.axhline(_sc(baseline)["ridge_point"], lw=1.0, ls=":", **BASELINE)
        ys += _draw_decode(ax, baseline, faded=True)
    ys += _draw_decode(ax, r, faded=False)
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.set_xlim(1 / 1.15, bmax)
    ylo, yhi = _pad(max(min(ys), 1e-3), max(ys), 0.2, 0.35)
    ax.set_ylim(ylo, yhi)
    ax.axhline(ridge, color=BLACK, lw=1.1, ls=":", label=f"ridge {num(ridge)}")
    for k, c in enumerate(x for x in r.compare if not x["is_base"]):  # where the other GPUs' ridges sit
        if ylo <= c["ridge"] <= yhi:
            ax.axhline(c["ridge"], color=COMPARE_COLOURS[k % len(COMPARE_COLOURS)], lw=0.9, ls=(0, (1, 2)),
                       label=f"ridge of {_hw_short(c['title'])}: {num(c['ridge'])}")
    pc = r.per_context[r.lead]
    backing = {"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 0.5}
    xbs = sorted(x for x in _crossovers(r) if x is not None and 1 <= x <= bmax)
    per_decade = 0.87 * SIZE[0] / math.log10(bmax * 1.15)
    labels_x = [f"B = {num(x)}" for x in xbs]
    levels = _levels([math.log10(x) for x in xbs], [(len(t) * 0.062 + 0.1) / per_decade for t in labels_x])
    for k, (xb, text, lv) in enumerate(zip(xbs, labels_x, levels, strict=True)):
        ax.plot([xb], [ridge], marker="o", ms=6, mfc="white", mec=BLACK, mew=1.2, ls="none", zorder=5,
                label=None if k else "crosses the ridge")
        ax.annotate(text, (xb, ridge), xytext=(0, 6 + 11 * lv), textcoords="offset points", ha="center",
                    va="bottom", fontsize=7.5, bbox=backing)
    caps = pc["capacity_batch"]
    icap = pc["intensity_at_capacity"]
    first = True
    for j, _s in enumerate(ctx):
        if 1 <= caps[j] <= bmax:
            ax.plot([caps[j]], [icap[j]], marker="D", ms=6.5, color=ORANGE, mec=BLACK, mew=0.6, ls="none",
                    zorder=6, label="capacity limit" if first else None)
            first = False
            ax.annotate(f"B = {num(caps[j])}\nI = {num(icap[j])}", (caps[j], icap[j]), xytext=(6, -4),
                        textcoords="offset points", ha="left", va="top", fontsize=7, color="#333333",
                        linespacing=1.1, bbox=backing)
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="#555555", ls="--", lw=0.9))
    labels.append("ceiling, B → ∞ (dashed)")
    if not any(c >= 1 for c in caps):
        _note(ax, f"Weights ({gib(sc['weight_bytes'])} GiB) leave no room for KV in {gib(sc['capacity'])} GiB: "
                  "no batch fits.", x=0.99, y=0.02)
    else:
        handles.append(Line2D([], [], color="#555555", ls=(0, (1, 1.5)), lw=1.0))
        labels.append("past the capacity limit")
    ax.set_xlabel("batch B (sequences per step)")
    ax.set_ylabel("decode intensity (FLOP/B)")
    ax.grid(True, which="major")
    ax.legend(handles, labels, loc="upper left", handlelength=2.2)
    return fig


def caption4(r: Results, baseline: Results | None = None) -> str:
    ctx = _contexts(r)
    if not ctx:
        return "This spec has no decode workload, so there is no decode intensity to draw."
    sc = _sc(r)
    ridge = sc["ridge_point"]
    pc = r.per_context[r.lead]
    ceil = pc["decode_intensity_ceiling"]
    n = len(ctx)
    s = (f"Decode intensity of one step vs batch at {n} context length{'s' if n > 1 else ''}, counting weights "
         f"+ KV only, so curves and ceilings are upper bounds. Ceilings (dashed): "
         + _join([f"{num(ceil[j])} at {tokens(c)}" for j, c in enumerate(ctx)]) + ". ")
    below = [tokens(c) for j, c in enumerate(ctx) if ceil[j] < ridge]
    if below:
        s += (f"{'The ceiling' if len(below) == 1 else 'The ceilings'} at {_join(below)} "
              f"{'lies' if len(below) == 1 else 'lie'} below the ridge {num(ridge)}: no batch makes "
              f"{'that context' if len(below) == 1 else 'those contexts'} compute-bound. ")
    crosses = [(tokens(c), x) for c, x in zip(ctx, _crossovers(r), strict=True) if x is not None]
    if crosses:
        s += "The ridge is crossed " + _join([f"at batch {num(x)} for {c}" for c, x in crosses]) + ". "
    caps = pc["capacity_batch"]
    icap = pc["intensity_at_capacity"]
    cap_gib = gib(sc["capacity"])
    fit = [(tokens(c), caps[j], icap[j]) for j, c in enumerate(ctx) if caps[j] >= 1]
    if fit:
        s += (f"Orange diamonds: where {cap_gib} GiB holds no more requests — "
              + _join([f"{c} at batch {num(b)}, intensity {num(i)}" for c, b, i in fit]) + ". ")
        none = [tokens(c) for j, c in enumerate(ctx) if caps[j] < 1]
        if none:
            s += f"Not one {_join(none)} sequence fits beside the weights. "
    else:
        s += (f"The weights alone ({gib(sc['weight_bytes'])} GiB) leave no room for a KV cache on "
              f"{cap_gib} GiB, so no batch fits: the curves are dotted and no diamonds are drawn. ")
    G = r.envs[r.lead].values["G"]
    if r.spec.model.moe is None and r.spec.model.attention.kind in ("gqa", "mqa", "mha") and G >= 1:
        s += f"Every curve passes through (B, I) = ({num(G)}, {num(G)}), G = H_q/H_kv."
    if baseline is not None:
        s += " Faded grey: the baseline spec."
    return s.strip()


# ---------------------------------------------------------------- figure 5

_SEGMENT_COLOURS = (("master", GREEN), ("gradient", SKY), ("adam m", PURPLE), ("adam v", YELLOW),
                    ("kv", ORANGE), ("weights", BLUE))


def _segment_colour(label: str, k: int) -> str:
    low = label.lower()
    for key, colour in _SEGMENT_COLOURS:
        if key in low:
            return colour
    return CONTEXT_COLOURS[k % len(CONTEXT_COLOURS)]


def _ledger(r: Results) -> list[tuple[str, list[tuple[str, float]]]]:
    """Bars: (name, [(segment label, bytes)]): one per training recipe, then inference."""
    sc = _sc(r)
    bars = []
    for t in r.training:
        bars.append((f"training\n{t['recipe']}\n({num(t['bytes_per_param'])} B/param)", list(t["parts"])))
    weights = sc["weight_bytes"]
    kv = max(sc["capacity"] - weights, 0.0)
    inf = [(f"{r.spec.precision.weights} weights", weights)]
    if kv > 0 and _contexts(r):
        inf.append(("KV cache", kv))
    bars.append(("inference\nweights + KV" if len(inf) > 1 else "inference\nweights", inf))
    return bars


def fig5_memory_ledger(r: Results, baseline: Results | None = None):
    sc = _sc(r)
    cap = sc["capacity"] / GIB
    bars = _ledger(r)
    fig = _figure()
    ax = fig.add_axes((0.1, 0.16, 0.62, 0.81))
    x = np.arange(len(bars), dtype=float)
    width = 0.55
    top = cap
    if baseline is not None:
        bbars = dict(_ledger(baseline))
        bcap = _sc(baseline)["capacity"] / GIB
        for i, (name, _segs) in enumerate(bars):
            if name in bbars:
                tot = sum(v for _, v in bbars[name]) / GIB
                ax.bar(x[i], tot, width=width + 0.16, **BASELINE, lw=0, label="baseline (total)" if i == 0 else None)
                top = max(top, tot)
        if abs(bcap - cap) > 1e-9 * cap:
            ax.axhline(bcap, ls="--", lw=1.0, **BASELINE)
    styles: dict[str, tuple[str, str | None]] = {}  # segment label -> (colour, hatch)
    order: list[tuple[int, str]] = []  # (stack position, label) for the legend
    hatches = (None, "////", "xxxx", "....")
    for i, (_name, segs) in enumerate(bars):
        bottom = 0.0
        for k, (label, v) in enumerate(segs):
            if label not in styles:
                colour = _segment_colour(label, k)
                same = sum(1 for c, _ in styles.values() if c == colour)
                styles[label] = (colour, hatches[same % len(hatches)])
                order.append((k, label))
            colour, hatch = styles[label]
            h = v / GIB
            ax.bar(x[i], h, width=width, bottom=bottom, color=colour, edgecolor="white", lw=0.6, hatch=hatch)
            if h >= 0.075 * max(top, cap):
                ax.text(x[i], bottom + h / 2, gib(v), ha="center", va="center", fontsize=7,
                        color="white" if colour in (BLUE, GREEN, PURPLE) else BLACK,
                        bbox={"facecolor": colour, "edgecolor": "none", "pad": 0.6} if hatch else None)
            bottom += h
        top = max(top, bottom)
        ax.text(x[i], bottom, f"{gib(sum(v for _, v in segs))} GiB", ha="center", va="bottom", fontsize=7.5,
                weight="bold")
    ax.axhline(cap, color=VERMILION, ls="--", lw=1.2)
    ax.text(x[-1] + width / 2 + 0.05, cap, f"capacity\n{gib(sc['capacity'])} GiB", color=VERMILION,
            fontsize=7.5, va="bottom", ha="left", linespacing=1.1)
    ax.set_xlim(-0.5, max(len(bars), 3) - 0.5 + 0.45)
    ax.set_ylim(0, top * 1.12)
    ax.set_xticks(x)
    ax.set_xticklabels([b[0] for b in bars], fontsize=7.5)
    ax.tick_params(axis="x", length=0)
    ax.set_ylabel("memory (GiB)")
    ax.grid(True, axis="y")
    ax.set_axisbelow(True)
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=styles[lab][0], hatch=styles[lab][1], edgecolor="white", label=lab)
               for _k, lab in sorted(order, key=lambda t: -t[0])]
    bh, bl = ax.get_legend_handles_labels()
    fig.legend(handles + bh, [h.get_label() for h in handles] + bl, loc="upper left", bbox_to_anchor=(0.735, 0.97),
               fontsize=7.5, frameon=False)
    fig.text(0.735, 0.05, "activations not included", fontsize=7.5, style="italic", color="#555555")
    return fig


def caption5(r: Results, baseline: Results | None = None) -> str:
    sc = _sc(r)
    cap = gib(sc["capacity"])
    s = f"Memory budgets of {r.spec.model.title} on one {r.spec.hardware.title} with {cap} GiB, stacked in GiB. "
    if r.training:
        tr = [f"{gib(t['total'])} GiB with {t['recipe']} ({num(t['bytes_per_param'])} B/param)" for t in r.training]
        over = [t for t in r.training if not t["fits"]]
        s += "Training state: " + _join(tr) + "; "
        if len(over) == len(r.training):
            s += ("all exceed" if len(over) > 1 else "it exceeds") + f" the {cap} GiB card"
        elif not over:
            s += ("all fit" if len(r.training) > 1 else "it fits") + f" on {cap} GiB"
        else:
            s += _join([t["recipe"] for t in over]) + f" exceed{'s' if len(over) == 1 else ''} {cap} GiB"
        s += ", and activations are not included. "
    w = sc["weight_bytes"]
    if w <= sc["capacity"]:
        kv = sc["capacity"] - w
        if _contexts(r):
            s += (f"Inference: {gib(w)} GiB of {r.spec.precision.weights} weights plus {gib(kv)} GiB of KV cache "
                  f"fill the card. ")
        else:
            s += f"Inference: {gib(w)} GiB of {r.spec.precision.weights} weights. "
    else:
        s += (f"Inference: the {r.spec.precision.weights} weights alone ({gib(w)} GiB) overflow the card, "
              "leaving nothing for a KV cache. ")
    if r.training:
        s += "The bottom segment of every bar is the weights."
    if baseline is not None:
        s += " Faded grey: the baseline spec's totals."
    return s.strip()


# ---------------------------------------------------------------- figure 6

def _roof_points(r: Results) -> list[tuple[str, str, float, str, str]]:
    """(kind, label, intensity, colour, marker) of every workload on the roofline."""
    pts = []
    ctx = _contexts(r)
    if ctx:
        pc = r.per_context[r.lead]
        for j, s in enumerate(ctx):
            c = CONTEXT_COLOURS[j % len(CONTEXT_COLOURS)]
            i1 = float(r.curves["decode_intensity_batch1"][j])
            pts.append(("decode", f"decode S = {tokens(s)}, B = 1", i1, c, "o"))
            cap = float(pc["capacity_batch"][j])
            if cap >= 2:
                pts.append(("decode-cap", f"decode S = {tokens(s)}, B = {num(cap)}",
                            float(pc["intensity_at_capacity"][j]), c, "D"))
    if r.lead in r.prefill:
        for t, i in zip(r.spec.workloads.prefill_prompt, r.prefill[r.lead]["prefill_intensity"], strict=True):
            pts.append(("prefill", f"prefill {tokens(t)}", float(i), BLUE, "s"))
    if r.spec.workloads.training_tokens and "training_intensity" in r.verdicts:
        pts.append(("training", f"training {tokens(r.spec.workloads.training_tokens)}",
                    float(r.verdicts["training_intensity"]), GREEN, "^"))
    return pts


def _tflops(v: float) -> str:
    return tick(v / 1e12)


def fig6_roofline(r: Results, baseline: Results | None = None):
    from matplotlib.lines import Line2D

    sc = _sc(r)
    peak, bw, ridge = sc["peak_flops"], sc["bandwidth"], sc["ridge_point"]
    pts = _roof_points(r)
    others = [c for c in r.compare if not c["is_base"]]
    xs = [p[2] for p in pts] + [ridge] + [c["ridge"] for c in others]
    lo, hi = _pad(min(1.0, min(xs)), max(1e4, max(xs)), 0.3, 0.3)
    fig = _figure()
    ax = fig.add_axes((0.11, 0.13, 0.86, 0.84))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ix = np.logspace(math.log10(lo), math.log10(hi), 200)
    peaks = [peak] + [c["peak"] for c in others]
    floor = [bw * lo] + [c["bandwidth"] * lo for c in others]
    if baseline is not None:
        bs = _sc(baseline)
        ax.plot(ix, np.minimum(bs["peak_flops"], bs["bandwidth"] * ix), lw=3.0, **BASELINE, label="baseline")
        ax.axvline(bs["ridge_point"], ls=":", lw=1.0, **BASELINE)
        for _kind, _lab, i, _c, m in _roof_points(baseline):
            ax.plot([i], [min(bs["peak_flops"], bs["bandwidth"] * i)], marker=m, ms=5, ls="none", **BASELINE)
        peaks.append(bs["peak_flops"])
        floor.append(bs["bandwidth"] * lo)
    ylo, yhi = _pad(min(floor), max(peaks), 0.1, 0.35)
    for k, c in enumerate(others):
        col = COMPARE_COLOURS[k % len(COMPARE_COLOURS)]
        ax.plot(ix, np.minimum(c["peak"], c["bandwidth"] * ix), color=col, lw=1.2, ls="--",
                label=f"{_hw_short(c['title'])}, ridge {num(c['ridge'])}")
        ax.plot([c["ridge"]] * 2, [ylo, c["peak"]], color=col, lw=0.8, ls=":")
    ax.plot(ix, np.minimum(peak, bw * ix), color=BLACK, lw=1.8,
            label=f"{_hw_short(r.spec.hardware.title)}, ridge {num(ridge)}")
    measured = _measured_roof(r)
    if measured:
        m_peak, m_bw = measured
        ax.plot(ix, np.minimum(m_peak, m_bw * ix), color=BLACK, lw=1.2, ls="-.",
                label=f"measured (calibrate), ridge {num(m_peak / m_bw)}")
    ax.plot([ridge] * 2, [ylo, peak], color=BLACK, lw=0.9, ls=":")
    ax.set_xlim(lo, hi)
    ax.set_ylim(ylo, yhi)
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis, _tflops)
    roofs = ax.legend(loc="upper left", title="roof = min(P, W·I)", title_fontsize=7.5)
    ax.add_artist(roofs)
    decode_ctx: dict[str, str] = {}
    kinds = set()
    for kind, label, i, c, m in pts:
        y = min(peak, bw * i)
        ax.plot([i], [y], marker=m, ms=6.5 if m != "D" else 5.5, color=c, mec=BLACK, mew=0.5, ls="none", zorder=5)
        kinds.add(kind)
        if kind in ("prefill", "training"):
            left = i < ridge
            ax.annotate(label, (i, y), xytext=(6 if left else 0, -8), textcoords="offset points",
                        ha="left" if left else "center", va="top", fontsize=7, color=c)
        else:
            decode_ctx.setdefault(label.split(",")[0].removeprefix("decode "), c)
    if decode_ctx:
        handles = [Line2D([], [], color=c, marker="s", ls="none", ms=6, label=s) for s, c in decode_ctx.items()]
        handles.append(Line2D([], [], color="white", mec=BLACK, marker="o", ls="none", ms=6, label="batch 1"))
        if "decode-cap" in kinds:
            handles.append(Line2D([], [], color="white", mec=BLACK, marker="D", ls="none", ms=5.5,
                                  label="largest batch that fits"))
        ax.legend(handles=handles, loc="lower right", title="decode", title_fontsize=7.5)
    ax.text(hi / 1.15, peak * 1.1, f"P = {num(peak / 1e12)} TFLOP/s", ha="right", va="bottom", fontsize=7.5)
    ax.set_xlabel("arithmetic intensity I (FLOP/B)")
    ax.set_ylabel("attainable (TFLOP/s)")
    ax.grid(True, which="major")
    return fig


def _measured_roof(r: Results) -> tuple[float, float] | None:
    """The attainable roof measured by 'genreport calibrate', when the hardware spec carries one."""
    hw, fmt = r.spec.hardware, r.spec.precision.compute
    if hw.measured_bandwidth is None and not hw.measured_peaks:
        return None
    m_peak = hw.measured_peaks.get(fmt, hw.dense[fmt])
    m_bw = hw.measured_bandwidth or hw.bandwidth
    return m_peak, m_bw


def caption6(r: Results, baseline: Results | None = None) -> str:
    sc = _sc(r)
    peak, bw, ridge = sc["peak_flops"], sc["bandwidth"], sc["ridge_point"]
    s = (f"Roofline of {r.spec.hardware.title} ({r.spec.precision.compute}): attainable FLOP/s = min(P, W·I) with "
         f"P = {num(peak / 1e12)} TFLOP/s and W = {num(bw / 1e12)} TB/s; the ridge (dotted) is at {num(ridge)} FLOP/B. ")
    pts = _roof_points(r)
    dec1 = [p[2] for p in pts if p[0] == "decode"]
    if dec1:
        lo_i, hi_i = min(dec1), max(dec1)
        rng = num(lo_i) if num(lo_i) == num(hi_i) else f"{num(lo_i)}–{num(hi_i)}"
        gap = num(ridge / hi_i) if num(ridge / hi_i) == num(ridge / lo_i) else f"{num(ridge / hi_i)}–{num(ridge / lo_i)}"
        if hi_i < ridge:
            s += f"Batch-1 decode sits at I ≈ {rng}, {gap}× left of the ridge. "
        elif lo_i >= ridge:
            s += f"Batch-1 decode sits at I ≈ {rng}, right of the ridge. "
        else:
            s += f"Batch-1 decode spans I ≈ {rng}, across the ridge. "
    caps = [p for p in pts if p[0] == "decode-cap"]
    if caps:
        over = [p for p in caps if p[2] >= ridge]
        s += ("At the largest batch that fits, decode reaches "
              + _join([f"{num(p[2])} ({p[1].removeprefix('decode ')})" for p in caps]) + "; ")
        s += (("only " if len(over) < len(caps) else "") + _join([p[1].removeprefix("decode ") for p in over])
              + f" {'crosses' if len(over) == 1 else 'cross'} the ridge. ") if over else "none reaches the ridge. "
    elif dec1:
        s += "No decode batch larger than 1 fits beside the weights. "
    rest = [p for p in pts if p[0] in ("prefill", "training")]
    left = [f"{p[1]} ({num(p[2])})" for p in rest if p[2] < ridge]
    right = [f"{p[1]} ({num(p[2])})" for p in rest if p[2] >= ridge]
    if right:
        s += f"Compute-bound, right of the ridge: {_join(right)}. "
    if left:
        s += f"Bandwidth-bound, left of the ridge: {_join(left)}. "
    others = [c for c in r.compare if not c["is_base"]]
    if others:
        s += ("Dashed: the roofs of " + _join([f"{c['title']} (ridge {num(c['ridge'])})" for c in others])
              + ". ")
    measured = _measured_roof(r)
    if measured:
        s += (f"Dash-dotted: the roof measured on this machine by genreport calibrate "
              f"({num(measured[0] / 1e12)} TFLOP/s, {num(measured[1] / 1e9)} GB/s). ")
    if baseline is not None:
        s += "Faded grey: the baseline spec's roof and workloads."
    return s.strip()


# ---------------------------------------------------------------- registry

Drawer = Callable[[Results, "Results | None"], object]
Caption = Callable[..., str]

FIGURES: list[tuple[str, Caption]] = [
    ("fig1-decode-bounds", caption1),
    ("fig2-three-modes", caption2),
    ("fig3-intensity-ruler", caption3),
    ("fig4-decode-intensity", caption4),
    ("fig5-memory-ledger", caption5),
    ("fig6-roofline", caption6),
]
DRAWERS: dict[str, Drawer] = {
    "fig1-decode-bounds": fig1_decode_bounds,
    "fig2-three-modes": fig2_three_modes,
    "fig3-intensity-ruler": fig3_intensity_ruler,
    "fig4-decode-intensity": fig4_decode_intensity,
    "fig5-memory-ledger": fig5_memory_ledger,
    "fig6-roofline": fig6_roofline,
}


def captions(results: Results, baseline: Results | None = None) -> dict[str, str]:
    """Figure name -> caption, in report order."""
    return {name: cap(results, baseline) for name, cap in FIGURES}


def draw(name: str, results: Results, baseline: Results | None = None) -> bytes:
    """One figure as SVG bytes."""
    import matplotlib

    with matplotlib.rc_context(RC):
        return _svg(DRAWERS[name](results, baseline))


class Pending:
    """Figures being drawn in a forked child process while the parent goes on (see :func:`start`)."""

    def __init__(self, results: Results, baseline: Results | None):
        self._args = (results, baseline)
        self._done: dict[str, bytes] | None = None
        self._proc = self._conn = None
        if _parallel():
            import multiprocessing

            ctx = multiprocessing.get_context("fork")
            self._conn, child = ctx.Pipe(duplex=False)
            self._proc = ctx.Process(target=_child, args=(child, results, baseline), daemon=True)
            try:
                self._proc.start()
            except OSError:  # no fork here (memory, limits): draw in this process
                self._proc = None
            child.close()

    def cancel(self) -> None:
        """Stop the child (the build failed elsewhere)."""
        if self._proc is not None:
            self._proc.kill()
            self._proc.join()
            self._conn.close()
            self._proc = None
            self._done = {}

    def result(self) -> dict[str, bytes]:
        """The figures, name -> SVG bytes; drawn here if the child could not draw them."""
        if self._done is None:
            got = None
            if self._proc is not None:
                try:
                    got = self._conn.recv()
                except (EOFError, OSError):
                    got = None
                self._proc.join()
                self._conn.close()
            # A child that failed for any reason (an error in a figure included) sends None: drawing again here
            # raises the same error in the usual place, with its usual message.
            self._done = got if isinstance(got, dict) else draw_all(*self._args)
        return self._done


def _parallel() -> bool:
    import os

    if os.environ.get("GENREPORT_SERIAL") or (os.cpu_count() or 1) < 2:
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def _child(conn, results: Results, baseline: Results | None) -> None:
    try:
        out = draw_all(results, baseline)
    except BaseException:  # noqa: BLE001 - the parent redraws and reports it
        out = None
    try:
        conn.send(out)
    finally:
        conn.close()


def start(results: Results, baseline: Results | None = None) -> Pending:
    """Begin drawing every figure: on a machine with two or more cores, in a forked process.

    Drawing takes about a second; the parent meanwhile renders the math and HTML and imports WeasyPrint, so the
    figures cost almost no wall time. ``GENREPORT_SERIAL=1`` draws them in this process.
    """
    return Pending(results, baseline)


def draw_all(results: Results, baseline: Results | None = None) -> dict[str, bytes]:
    """Every figure as SVG bytes, name -> bytes, in report order.  ``baseline`` is drawn faded underneath."""
    import matplotlib

    out: dict[str, bytes] = {}
    with matplotlib.rc_context(RC):
        for name, _cap in FIGURES:
            out[name] = _svg(DRAWERS[name](results, baseline))
    return out
