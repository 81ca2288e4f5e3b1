"""Figure 4: decode intensity I(B, S) against the batch, its ceiling per context, capacity and crossover."""

from __future__ import annotations

import numpy as np
from genreport.model.evaluate import Results
from genreport.present.figures.data import _contexts, _crossovers, _decode_curves, _sc, context_colours
from genreport.present.figures.style import (
    BASELINE,
    BLACK,
    COMPARE_COLOURS,
    ORANGE,
    _figure,
    _hw_short,
    _join,
    _log_axis,
    _note,
    _pad,
    fit_left,
    gib,
    legends_below,
    marker_box,
    narrow,
    num,
    pick,
    place_labels,
    renderer,
    tokens,
)


def _batch_range(res_list: list[Results]) -> float:
    """Right end of the batch axis: the widest of the reports' own ranges (the model's figure samples)."""
    return max(float(x.curves["decode_batch_max"]) for x in res_list if "decode_batch_max" in x.curves)


def _draw_decode(ax, r: Results, faded: bool) -> list[float]:
    ctx = _contexts(r)
    batch, curves = _decode_curves(r)
    pc = r.per_context[r.lead]
    colours = context_colours(r)
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
        c = colours[int(s)]
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
    ax = fig.add_axes(pick((0.1, 0.13, 0.87, 0.84), (0.19, 0.48, 0.78, 0.5)))
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
    xbs = sorted(x for x in _crossovers(r) if x is not None and 1 <= x <= bmax)
    labels, marks = [], []
    for k, xb in enumerate(xbs):
        ax.plot([xb], [ridge], marker="o", ms=6, mfc="white", mec=BLACK, mew=1.2, ls="none", zorder=5,
                label=None if k else "crosses the ridge")
        marks.append((xb, ridge, 6))
        labels.append({"text": f"B = {num(xb)}", "xy": (xb, ridge), "fontsize": 7.5,
                       "offsets": [(0, 6, "center", "bottom"), (0, -7, "center", "top")]})
    caps = pc["capacity_batch"]
    icap = pc["intensity_at_capacity"]
    first = True
    for j, _s in enumerate(ctx):
        if 1 <= caps[j] <= bmax:
            ax.plot([caps[j]], [icap[j]], marker="D", ms=6.5, color=ORANGE, mec=BLACK, mew=0.6, ls="none",
                    zorder=6, label="capacity limit" if first else None)
            first = False
            marks.append((caps[j], icap[j], 6.5))
            # the ceilings' dashed lines and the curves past the limit cross the labels' corner (QA: "I = 8.79" struck
            # through on Gemma 3 27B): the text keeps a white backdrop
            labels.append({"text": f"B = {num(caps[j])}\nI = {num(icap[j])}", "xy": (caps[j], icap[j]),
                           "color": "#333333", "offsets": [(6, -4, "left", "top")], "backdrop": True})
    handles, names = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], color="#555555", ls="--", lw=0.9))
    names.append("ceiling, B → ∞ (dashed)")
    if not any(c >= 1 for c in caps):
        _note(ax, f"Weights ({gib(sc['weight_bytes'])} GiB) leave no room for KV in {gib(sc['capacity'])} GiB:"
                  + pick(" ", "\n") + "no batch fits.", x=0.99, y=0.02)
    else:
        handles.append(Line2D([], [], color="#555555", ls=(0, (1, 1.5)), lw=1.0))
        names.append("past the capacity limit")
    ax.set_xlabel("batch B (sequences per step)")
    ax.set_ylabel("decode intensity (FLOP/B)")
    fit_left(fig, ax)
    ax.grid(True, which="major")
    if narrow():
        many = len(names) > 10
        legends_below(fig, [{"handles": handles, "labels": names, "handlelength": 1.6 if many else 2.2,
                             "ncols": 2 if many else 1, "fontsize": 7 if many else 7.5,
                             "columnspacing": 0.8}], 0.385)
        keep_off = []
    elif len(names) > 12:  # a long key beside the axes, not over the curves
        ax.set_position((0.1, 0.13, 0.57, 0.84))
        fit_left(fig, ax)
        fig.legend(handles, names, loc="upper left", bbox_to_anchor=(0.685, 0.98), handlelength=2.0, fontsize=7)
        keep_off = []
    else:
        key = ax.legend(handles, names, loc="upper left", handlelength=2.2)
        keep_off = [key.get_window_extent(renderer(fig)).padded(4)]
    place_labels(ax, labels, [*(marker_box(ax, *m) for m in marks), *keep_off])
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
    elif sc["weight_bytes"] < sc["capacity"]:  # room for a few tokens, not for one sequence of these contexts
        s += (f"The weights ({gib(sc['weight_bytes'])} GiB) leave {gib(sc['capacity'] - sc['weight_bytes'])} GiB of "
              f"{cap_gib} GiB, too little for one sequence of {_join([tokens(c) for c in ctx])}, so no batch fits: "
              "the curves are dotted and no diamonds are drawn. ")
    else:
        s += (f"The weights alone ({gib(sc['weight_bytes'])} GiB) leave no room for a KV cache on "
              f"{cap_gib} GiB, so no batch fits: the curves are dotted and no diamonds are drawn. ")
    point = r.curves.get("decode_intensity_common_point")
    if r.spec.model.moe is None and r.spec.model.attention.kind in ("gqa", "mqa", "mha") and point is not None:
        B, i_kv = point
        s += (f"Every curve passes through (B, I) = ({num(B)}, {num(i_kv)}), where the weights' 2B/b meets the attention "
              f"intensity I_KV = 2G/b_kv, G = H_q/H_kv." if B != i_kv or i_kv != r.envs[r.lead].values["G"] else
              f"Every curve passes through (B, I) = ({num(B)}, {num(i_kv)}), G = H_q/H_kv.")
    if baseline is not None:
        s += " Faded grey: the baseline spec."
    return s.strip()
