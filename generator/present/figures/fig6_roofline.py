"""Figure 6: the roofline with every workload placed on it."""

from __future__ import annotations

import math

import numpy as np
from genreport.model.evaluate import Results
from genreport.present.figures.data import _contexts, _sc
from genreport.present.figures.style import (
    BASELINE,
    BLACK,
    BLUE,
    COMPARE_COLOURS,
    CONTEXT_COLOURS,
    GREEN,
    _figure,
    _hw_short,
    _join,
    _log_axis,
    _pad,
    num,
    tick,
    tokens,
)


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
