"""Figure 3: the intensity ruler: weight-reuse and full GEMM intensity of each mode against the ridge."""

from __future__ import annotations

import math

from genreport.model.evaluate import Results
from genreport.present.figures.data import _gemm_reading, _modes, _sc, context_colours
from genreport.present.figures.style import (
    BLACK,
    BLUE,
    MARKERS,
    ORANGE,
    SKY,
    VERMILION,
    _figure,
    _join,
    _log_axis,
    _pad,
    fit_left,
    marker_box,
    narrow,
    num,
    pick,
    place_labels,
    renderer,
)


def _ruler_points(r: Results) -> list[tuple[str, str, float, float | None]]:
    out = []
    for kind, label, t in _modes(r):
        iw, full = _gemm_reading(r, t)
        if kind == "training" and "training_weight_reuse" in r.facts:  # the recipes' bf16 weights, as chapter 5
            iw, full = r.facts["training_weight_reuse"], r.facts.get("training_gemm_intensity", full)
        out.append((kind, label, iw, full))
    return out


def _routed_points(r: Results) -> list[tuple[str, str, float]]:
    """(kind, label, intensity) of a routed expert's weights in each mode that loads them for many tokens (an MoE's
    prefill and training): one load serves T k / E tokens, 2 T k / (E b) (the model's facts)."""
    out = []
    routed = iter(r.facts.get("routed_weight_reuse", []))
    for kind, label, _t in _modes(r):
        if kind == "prefill" and "routed_weight_reuse" in r.facts:
            out.append((kind, label, float(next(routed))))
        elif kind == "training" and "training_routed_weight_reuse" in r.facts:
            out.append((kind, label, float(r.facts["training_routed_weight_reuse"])))
    return out


def _colour(r: Results, kind: str, label: str) -> str:
    """Colour by context length, as in figures 4 and 6 (decode batch 1 has one token: ink)."""
    if kind == "decode":
        return "#333333"
    t = next(t for k, lab, t in _modes(r) if k == kind and lab == label)
    return context_colours(r).get(int(t), "#333333")


def fig3_intensity_ruler(r: Results, baseline: Results | None = None):
    pts = sorted(_ruler_points(r), key=lambda p: p[2])
    routed = _routed_points(r)
    ridge = _sc(r)["ridge_point"]
    values = [p[2] for p in pts] + [p[3] for p in pts if p[3]] + [p[2] for p in routed] + [ridge]
    lo, hi = _pad(min(1.0, min(values)), max(1e4, max(values)), 0.3, 0.3)
    fig = _figure()
    box = pick((0.2, 0.14, 0.77, 0.84), (0.03, 0.25, 0.94, 0.73))  # phone: the rows named below the axes
    ax = fig.add_axes(box)
    ax.set_xscale("log")
    ax.set_xlim(lo, hi)
    _log_axis(ax.xaxis, minor=(2.0, 5.0))
    ax.set_ylim(0, 1)
    ax.axvspan(lo, ridge, color=SKY, alpha=0.12, lw=0)
    ax.axvspan(ridge, hi, color=ORANGE, alpha=0.10, lw=0)
    ax.axvline(ridge, color=BLACK, lw=1.2)
    ridge_text = ax.text(ridge, 0.015, f" ridge {num(ridge)} ", ha="center", va="bottom", fontsize=8,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    left_text = ax.text(0.01, 0.98, "← memory-bound", transform=ax.transAxes, ha="left", va="top", fontsize=8, color=BLUE)
    right_text = ax.text(0.99, 0.98, "compute-bound →", transform=ax.transAxes, ha="right", va="top", fontsize=8,
            color=VERMILION)
    y_x, y_w, y_f = (0.8, 0.52, 0.24) if routed else (None, 0.56, 0.27)
    has_full = any(p[3] for p in pts)
    gemm = r.gemm[0] if r.gemm else None
    ax.set_yticks(([y_x] if routed else []) + ([y_w, y_f] if has_full else [y_w]))
    labels = (["routed expert\n2T k / (E b)"] if routed else []) + ["weight reuse\nI_W = 2T / b"]
    if has_full:
        labels.append(f"with activations\n({gemm['n']:,}×{gemm['m']:,} GEMM)")
    if narrow():
        ax.set_yticklabels([])
        fig.text(0.03, 0.01, ("top, half-filled: a routed expert 2T k / (E b)\n" if routed else "")
                 + "filled: weight reuse I_W = 2T / b" + (
            f"\nhollow: with activations ({gemm['n']:,}×{gemm['m']:,} GEMM)" if has_full else ""),
            fontsize=7.5, va="bottom", ha="left", linespacing=1.2, color="#333333")
    else:
        ax.set_yticklabels(labels)
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)
    ax.set_xlabel("arithmetic intensity (FLOP/B, log scale)")
    fit_left(fig, ax)  # long GEMM names in the tick labels (16,384×16,384) must stay on the canvas
    labels, marks = [], []
    up = [(0, 7, "center", "bottom"), (0, 22, "center", "bottom"), (6, 7, "left", "bottom"),
          (-6, 7, "right", "bottom"), (0, 37, "center", "bottom")]
    down = [(0, -7, "center", "top"), (0, -19, "center", "top"), (6, -7, "left", "top"),
            (-6, -7, "right", "top"), (0, -31, "center", "top")]
    for kind, label, iw, full in pts:
        c = _colour(r, kind, label)
        if full:
            ax.plot([iw, full], [y_w, y_f], color=c, lw=0.8, alpha=0.6)
        ax.plot([iw], [y_w], marker=MARKERS[kind], ms=7, color=c, ls="none")
        marks.append(marker_box(ax, iw, y_w, 7))
        labels.append({"text": f"{label}\n{num(iw)}", "xy": (iw, y_w), "color": c, "fontsize": 7.5,
                       "offsets": up})
    iw_of = {(p[0], p[1]): p[2] for p in pts}
    for kind, label, ix in routed:  # a routed expert's load: T k / E tokens, joined to the same mode's 2T/b
        c = _colour(r, kind, label)
        ax.plot([iw_of[(kind, label)], ix], [y_w, y_x], color=c, lw=0.8, alpha=0.6, ls="--")
        ax.plot([ix], [y_x], marker=MARKERS[kind], ms=7, color=c, mfc=c, mfcalt="white", fillstyle="bottom", mec=c, mew=1.2,
                ls="none")
        marks.append(marker_box(ax, ix, y_x, 7))
        labels.append({"text": f"{label}\n{num(ix)}", "xy": (ix, y_x), "color": c, "fontsize": 7.5, "offsets": up})
    for kind, label, _iw, full in pts:
        if full:
            c = _colour(r, kind, label)
            ax.plot([full], [y_f], marker=MARKERS[kind], ms=6, mfc="white", mec=c, mew=1.4, ls="none")
            marks.append(marker_box(ax, full, y_f, 6))
            labels.append({"text": num(full), "xy": (full, y_f), "color": c, "fontsize": 7.5, "offsets": down})
    rend = renderer(fig)
    fixed = [t.get_window_extent(rend).padded(2) for t in (ridge_text, left_text, right_text)]
    for t in place_labels(ax, labels, [*marks, *fixed], offsets=[]):
        t.set_bbox({"facecolor": "white", "alpha": 0.8, "edgecolor": "none", "pad": 0.4})
    return fig


def caption3(r: Results, baseline: Results | None = None) -> str:
    pts = _ruler_points(r)
    ridge = _sc(r)["ridge_point"]
    iws = [p[2] for p in pts]
    left = [f"{p[1]} at {num(p[2])}" for p in pts if p[2] < ridge]
    right = [f"{p[1]} at {num(p[2])}" for p in pts if p[2] >= ridge]
    s = f"Weight-reuse intensity I_W = 2T/b of {r.spec.model.title}, {r.spec.precision.weights} weights" + (
        " (training streams the recipes' bf16 weights, b = 2)"
        if r.spec.workloads.training_tokens and r.spec.precision.weight_bytes != 2 else "") + ", "
    if len(pts) > 1:
        s += f"for {len(pts)} ways of running the same weights, spanning {math.log10(max(iws) / min(iws)):.1f} " \
             "orders of magnitude. "
    else:
        s += "for the one mode this spec has. "
    routed = _routed_points(r)
    s += f"The ridge at {num(ridge)} FLOP/B splits the ruler: "
    if routed:  # the 2T/b row counts every token against every weight; the routed row says what an expert serves
        s += "counting every token against every weight (2T/b), "
    sides = []
    if left:
        sides.append(f"{_join(left)} on the memory-bound left")
    if right:
        sides.append(f"{_join(right)} on the compute-bound right")
    s += "; ".join(sides) + ". "
    if routed:
        m = r.spec.model.moe
        r_left = [f"{p[1]} at {num(p[2])}" for p in routed if p[2] < ridge]
        r_right = [f"{p[1]} at {num(p[2])}" for p in routed if p[2] >= ridge]
        s += (f"A routed expert's weights serve only the tokens routed to it, T k / E of them (k = {m.active_experts}"
              f" of E = {m.experts}, uniform routing): top row, 2T k / (E b), "
              + "; ".join([f"{_join(r_left)} on the memory-bound left"] * bool(r_left)
                          + [f"{_join(r_right)} on the compute-bound right"] * bool(r_right))
              + ". ")
    full = [(p[1], p[3]) for p in pts if p[3]]
    if full and r.gemm:
        g = r.gemm[0]
        s += (f"Counting activations ({g['n']:,}×{g['m']:,} GEMM, hollow markers): "
              + _join([f"{lab} ≈ {num(v)}" for lab, v in full]) + ".")
        flips = [p[1] for p in pts if p[3] and (p[2] >= ridge) != (p[3] >= ridge)]
        if flips:
            s += f" With activations counted, {_join(flips)} crosses back to the memory-bound side."
    kinds = {p[0] for p in pts}
    marks = [f"{shape} {kind}" for shape, kind in (("circle", "decode"), ("square", "prefill"), ("triangle", "training"))
             if kind in kinds]
    s += (" Markers: " + ", ".join(marks)
          + (" (half-filled: a routed expert's load)" if routed else "")
          + "; colour by context length, as in figures {figure:fig6-roofline} and {figure:fig4-decode-intensity}."
          " This figure reads intensity per weight load" + (" (upper rows)" if routed else " (top)")
          + " and per GEMM (bottom); figure {figure:fig6-roofline} places each workload at its whole-pass"
          " intensity instead.")
    return s
