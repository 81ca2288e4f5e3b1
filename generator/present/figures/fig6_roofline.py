"""Figure 6: the roofline with every workload placed on it."""

from __future__ import annotations

import math

import numpy as np
from genreport.model.env import peak_of
from genreport.model.evaluate import Results
from genreport.present.figures.data import _contexts, _gemm_reading, _sc, context_colours
from genreport.present.figures.style import (
    BASELINE,
    BLACK,
    COMPARE_COLOURS,
    MARKERS,
    YELLOW,
    _figure,
    _hw_short,
    _join,
    _log_axis,
    _pad,
    fit_left,
    legends_below,
    line_boxes,
    marker_box,
    narrow,
    num,
    pick,
    place_labels,
    renderer,
    tick,
    tokens,
)

INK = "#555555"  # the marker key and merged markers (the faded baseline is GREY)

# Decode is a circle, hollow at batch 1 and filled at the largest batch that fits (style.MARKERS).
SIZES = {"decode": 6.0, "decode-cap": 6.5, "prefill": 6.5, "training": 7.5, "measured": 11.0}


def _roof_points(r: Results) -> list[tuple[str, str, float, str, str]]:
    """(kind, label, intensity, colour, marker) of every workload on the roofline.

    Intensities are whole-pass ones: all FLOPs of the step over all bytes it moves (weights, KV cache,
    activations), the quantity the roof min(P, W·I) takes; figure 3 shows the weight-reuse and one-GEMM readings.
    """
    pts = []
    colour = context_colours(r)
    ctx = _contexts(r)
    if ctx:
        pc = r.per_context[r.lead]
        for j, s in enumerate(ctx):
            c = colour[int(s)]
            i1 = float(r.curves["decode_intensity_batch1"][j])
            pts.append(("decode", f"decode S = {tokens(s)}, B = 1", i1, c, MARKERS["decode"]))
            cap = float(pc["capacity_batch"][j])
            if cap >= 2:
                pts.append(("decode-cap", f"decode S = {tokens(s)}, B = {num(cap)}",
                            float(pc["intensity_at_capacity"][j]), c, MARKERS["decode-cap"]))
    if r.lead in r.prefill:
        for t, i in zip(r.spec.workloads.prefill_prompt, r.prefill[r.lead]["prefill_intensity"], strict=True):
            pts.append(("prefill", f"prefill {tokens(t)}", float(i), colour[int(t)], MARKERS["prefill"]))
    if r.spec.workloads.training_tokens and "training_intensity" in r.verdicts:
        t = r.spec.workloads.training_tokens
        pts.append(("training", f"training {tokens(t)}", float(r.verdicts["training_intensity"]),
                    colour[int(t)], MARKERS["training"]))
    return pts


def training_peak(r: Results) -> float | None:
    """The peak a training step's roof takes: its recipes' GEMMs run in bf16 (recipes.TRAINING_COMPUTE, the
    evaluation's ``training_compute``), not at the spec's compute format; None without a training point."""
    fmt = r.verdicts.get("training_compute")
    return float(r.spec.hardware.dense[fmt]) if fmt else None


def _peak_of(r: Results, kind: str, peak: float) -> float:
    """The roof's peak a point of ``kind`` sits under: training's own (:func:`training_peak`), the spec's otherwise."""
    return (training_peak(r) or peak) if kind == "training" else peak


def _measured_points(r: Results) -> list[tuple[str, float, float]]:
    """(label, intensity, achieved FLOP/s) of each measured run the spec quotes."""
    out = []
    for m in r.measured:
        i, f = m.get("intensity"), m.get("achieved_flops")
        if i and f and math.isfinite(i) and math.isfinite(f) and i > 0 and f > 0:
            out.append((f"measured\n{m['where']}", float(i), float(f)))
    return out


def _tflops(v: float) -> str:
    return tick(v / 1e12)


def _groups(ax, pts: list, kind: str) -> list[list]:
    """Points of one kind whose markers would overlap, grouped (each group gets one marker and one label)."""
    same = sorted([p for p in pts if p[0] == kind], key=lambda p: p[2])
    groups: list[list] = []
    for p in same:
        if groups:
            q = groups[-1][-1]
            a, b = ax.transData.transform((q[2], q[5])), ax.transData.transform((p[2], p[5]))
            if math.dist(a, b) * 72 / ax.figure.dpi < SIZES[kind] + 1.0:
                groups[-1].append(p)
                continue
        groups.append([p])
    return groups


def fig6_roofline(r: Results, baseline: Results | None = None):
    from matplotlib.lines import Line2D

    sc = _sc(r)
    peak, bw, ridge = sc["peak_flops"], sc["bandwidth"], sc["ridge_point"]
    measured_pts = _measured_points(r)
    pts = [(*p, min(_peak_of(r, p[0], peak), bw * p[2])) for p in _roof_points(r)]
    others = [c for c in r.compare if not c["is_base"]]
    xs = [p[2] for p in pts] + [ridge] + [c["ridge"] for c in others] + [m[1] for m in measured_pts]
    lo, hi = _pad(min(1.0, min(xs)), max(1e4, max(xs)), 0.3, 0.3)
    fig = _figure()
    ax = fig.add_axes(pick((0.11, 0.13, 0.86, 0.84), (0.18, 0.5, 0.79, 0.48)))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ix = np.logspace(math.log10(lo), math.log10(hi), 200)
    peaks = [peak] + [c["peak"] for c in others]
    floor = [bw * lo] + [c["bandwidth"] * lo for c in others] + [m[2] / 2 for m in measured_pts]
    if baseline is not None:
        bs = _sc(baseline)
        ax.plot(ix, np.minimum(bs["peak_flops"], bs["bandwidth"] * ix), lw=3.0, **BASELINE, label="baseline")
        ax.axvline(bs["ridge_point"], ls=":", lw=1.0, **BASELINE)
        for kind, _lab, i, _c, m in _roof_points(baseline):
            ax.plot([i], [min(_peak_of(baseline, kind, bs["peak_flops"]), bs["bandwidth"] * i)], marker=m, ms=5,
                    ls="none", **BASELINE)
        peaks.append(bs["peak_flops"])
        floor.append(bs["bandwidth"] * lo)
    ylo, yhi = _pad(min(floor), max(peaks), 0.1, 0.4)
    for k, c in enumerate(others):
        col = COMPARE_COLOURS[k % len(COMPARE_COLOURS)]
        ax.plot(ix, np.minimum(c["peak"], c["bandwidth"] * ix), color=col, lw=1.2, ls="--",
                label=f"{_hw_short(c['title'])}, ridge {num(c['ridge'])}")
        ax.plot([c["ridge"]] * 2, [ylo, c["peak"]], color=col, lw=0.8, ls=":")
    ax.plot(ix, np.minimum(peak, bw * ix), color=BLACK, lw=1.8,
            label=f"{_hw_short(r.spec.hardware.title)}, ridge {num(ridge)}")
    p_train = training_peak(r) if any(p[0] == "training" for p in pts) else None
    if p_train is not None and p_train != peak:  # training runs at the bf16 peak: its own roof, under its point
        ax.plot(ix, np.minimum(p_train, bw * ix), color=BLACK, lw=1.0, ls=(0, (4, 2)),
                label=f"training ({r.verdicts['training_compute']}), ridge {num(p_train / bw)}")
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
    ax.set_ylabel("attainable (TFLOP/s)")
    fit_left(fig, ax)
    roof_handles, roof_names = ax.get_legend_handles_labels()
    rend = renderer(fig)
    # the peak's label above the flat roof, right-aligned, clear of the markers that sit on the roof
    p_label = ax.annotate(f"P = {num(peak / 1e12)} TFLOP/s", (hi, peak), xytext=(-3, 8), textcoords="offset points",
                          ha="right", va="bottom", fontsize=7.5)
    kinds = []
    marks, labels = [], []
    for kind in ("decode", "decode-cap", "prefill", "training"):
        for group in _groups(ax, pts, kind):
            first = group[0]
            _k, label, i, c, m, y = first
            if len(group) > 1:  # coinciding markers: one marker, one label naming every member
                c = INK
                names = [p[1].split(",")[0].removeprefix("decode S = ") for p in group]
                ctxs = ", ".join(names) if len(names) <= 3 else f"{names[0]}–{names[-1]} ({len(names)} contexts)"
                label = f"decode S = {ctxs}, B = 1" if kind == "decode" else " / ".join(p[1] for p in group)
            hollow = kind == "decode"
            ax.plot([i], [y], marker=m, ms=SIZES[kind], color=c, mfc="white" if hollow else c,
                    mec=c if hollow else BLACK, mew=1.4 if hollow else 0.5, ls="none", zorder=5)
            kinds.append(kind)
            marks.append(marker_box(ax, i, y, SIZES[kind]))
            side = "left" if i < ridge else "right"
            labels.append({"text": label.removeprefix("decode ") if kind.startswith("decode") else label,
                           "xy": (i, y), "color": c, "side": side, "side_x": ridge})
    for label, i, f in measured_pts:
        ax.plot([i], [f], marker=MARKERS["measured"], ms=SIZES["measured"], color=YELLOW, mec=BLACK, mew=0.6,
                ls="none", zorder=6)
        kinds.append("measured")
        marks.append(marker_box(ax, i, f, SIZES["measured"]))
        labels.append({"text": label, "xy": (i, f), "color": BLACK, "side": "left" if i < ridge else "right",
                       "side_x": ridge, "offsets": [(6, -6, "left", "top"), (6, 0, "left", "center")]})
    handles = []
    for kind, text in (("decode", "decode, batch 1"), ("decode-cap", "decode, largest batch that fits"),
                       ("prefill", "prefill"), ("training", "training"), ("measured", "measured run")):
        if kind in kinds:
            hollow = kind == "decode"
            handles.append(Line2D([], [], marker=MARKERS[kind], ls="none", ms=SIZES[kind] * 0.9,
                                  color=INK, mfc="white" if hollow else (YELLOW if kind == "measured" else INK),
                                  mec=INK if hollow else BLACK, mew=1.4 if hollow else 0.5, label=text))
    # 6 px clear of the peak's label: at 2 a label read as touching it in print ("S = 1k, B = 886P = 1,979 TFLOP/s")
    obstacles = [*marks, p_label.get_window_extent(rend).padded(6)]
    roofs = {"handles": roof_handles, "labels": roof_names, "title": "roof = min(P, W·I)", "title_fontsize": 7.5}
    key = {"handles": handles, "labels": [h.get_label() for h in handles], "title": "workload (colour: context)",
           "title_fontsize": 7}
    if narrow():
        legends_below(fig, [roofs, *([key] if handles else [])], 0.385)
    else:
        # each legend where it hides no marker: upper left unless a point sits there (a ridge far right puts the
        # largest batch that fits at the roof's corner, under the roof legend: Llama 3.1 70B fp8 on GB200, S = 1k)
        roof_legend = _clear_legend(ax, rend, roofs, ("upper left", "center left", "center right", "lower right"),
                                    marks)
        ax.add_artist(roof_legend)
        obstacles.append(roof_legend.get_window_extent(rend).padded(4))
        if handles:
            taken = [*marks, roof_legend.get_window_extent(rend).padded(4)]
            obstacles.append(_clear_legend(ax, rend, key, ("lower right", "center right", "upper left", "center left"),
                                           taken).get_window_extent(rend).padded(4))
    fine = np.logspace(math.log10(lo), math.log10(hi), 400)
    lines = []
    for p_, w_ in [(peak, bw), *[(c["peak"], c["bandwidth"]) for c in others], *([measured] if measured else [])]:
        lines += line_boxes(ax, fine, np.minimum(p_, w_ * fine))
    place_labels(ax, labels, obstacles, soft=lines)
    ax.set_xlabel("arithmetic intensity I (FLOP/B, whole pass)")
    ax.set_ylabel("attainable (TFLOP/s)")
    ax.grid(True, which="major")
    return fig


def _clear_legend(ax, rend, kw: dict, locs: tuple[str, ...], avoid: list):
    """The axes' legend at the first of ``locs`` where it overlaps none of the display boxes ``avoid`` (the
    markers), else at the first."""
    for loc in locs:
        legend = ax.legend(loc=loc, **kw)
        box = legend.get_window_extent(rend).padded(4)  # its frame's edge and a margin
        if not any(box.overlaps(b) for b in avoid):
            return legend
        legend.remove()
    return ax.legend(loc=locs[0], **kw)


def _measured_roof(r: Results) -> tuple[float, float] | None:
    """The attainable roof measured by 'genreport calibrate', when the hardware spec carries one."""
    hw = r.spec.hardware
    if hw.measured_bandwidth is None and not hw.measured_peaks:
        return None
    m_peak = peak_of(r.spec.precision, hw, r.spec.model, r.params, measured=True).value
    m_bw = hw.measured_bandwidth or hw.bandwidth
    return m_peak, m_bw


def _engine_runs(r: Results) -> str:
    """Where the engine's max_sequences stops the batch before the memory, the intensity decode reaches at the batch it
    runs (a review: "decode reaches 108 (S = 2k, B = 3,147)" on 8 MI300X where the engine runs 256 at once)."""

    at = r.curves.get("decode_intensity_at_engine")  # shown.curves: nan where the memory stops the batch first
    if at is None or not r.verdicts.get("weights_fit", True):
        return ""
    runs = int(getattr(r.spec.hardware, "max_sequences", 0) or 0)
    bits = [f"{num(float(x))} at S = {tokens(ctx)}" for x, ctx in zip(at, _contexts(r), strict=True) if math.isfinite(x)]
    if not bits:
        return ""
    return f"The engine runs at most {runs:,} sequences at once (its max_sequences), where decode reaches {_join(bits)}. "


def caption6(r: Results, baseline: Results | None = None) -> str:
    sc = _sc(r)
    peak, bw, ridge = sc["peak_flops"], sc["bandwidth"], sc["ridge_point"]
    label = peak_of(r.spec.precision, r.spec.hardware, r.spec.model, r.params).label(r.spec.precision.compute)
    s = (f"Roofline of {r.spec.hardware.title} ({label}): attainable FLOP/s = min(P, W·I) with "
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
        # a context that holds not one sequence has no such point: said, not left out silently (review, stop 78)
        none = [c for c, x in zip(_contexts(r), r.per_context[r.lead]["capacity_batch"], strict=True) if float(x) < 1]
        if none:
            s += f"At {_join([f'S = {tokens(c)}' for c in none])} not even one sequence fits beside the weights. "
        s += _engine_runs(r)
    elif dec1:
        # batch 1 itself may not fit: the weights alone past the memory, or no sequence of a context beside them (a
        # review read "no decode batch larger than 1 fits" on DeepSeek-V3 over 8 H100, which holds not even one)
        one = [float(x) >= 1 for x in r.per_context[r.lead]["capacity_batch"]]
        if not r.verdicts.get("weights_fit", True):
            s += ("No decode batch fits: the weights alone exceed the memory, so the batch-1 points mark where a step "
                  "would sit if it fitted. ")
        elif not any(one):
            s += ("No decode batch fits beside the weights, not even one sequence: the batch-1 points mark where a "
                  "step would sit if it fitted. ")
        elif all(one):
            s += "No decode batch larger than 1 fits beside the weights. "
        else:
            s += ("No decode batch larger than 1 fits beside the weights, and at "
                  + _join([f"S = {tokens(c)}" for c, ok in zip(_contexts(r), one, strict=True) if not ok])
                  + " not even one sequence does. ")
    rest = [p for p in pts if p[0] in ("prefill", "training")]
    # what binds each prefill at the report's layout (the tables' verdict): the interconnect where it outlasts both
    # of this chart's roofs (a review read "compute-bound" here beside page 1's "interconnect-bound", 4 GB200)
    said = r.verdicts.get("prefill_binds")
    binds = {f"prefill {tokens(t)}": str(v) for t, v in zip(r.spec.workloads.prefill_prompt,
                                                             () if said is None else list(said), strict=False)}
    linked = [f"{p[1]} ({num(p[2])})" for p in rest if binds.get(p[1]) == "interconnect"]
    left = [f"{p[1]} ({num(p[2])})" for p in rest if p[2] < ridge and binds.get(p[1]) != "interconnect"]
    right = [f"{p[1]} ({num(p[2])})" for p in rest if p[2] >= ridge and binds.get(p[1]) != "interconnect"]
    if right:
        s += f"Compute-bound, right of the ridge: {_join(right)}. "
    if left:
        s += f"Bandwidth-bound, left of the ridge: {_join(left)}. "
    if linked:
        s += (f"Interconnect-bound at the report's layout, as the tables say: {_join(linked)}, whose collectives "
              "outlast both roofs drawn here (the GPU's compute and HBM). ")
    group = int(r.frame.prompt_group)
    if group > 1 and any(p[0] == "prefill" for p in rest):
        # the point is the steady state's pass (m_P prompts share the experts); the verdicts and the TTFT are one
        # prompt alone, whose experts no other prompt reuses (a review read "compute-bound" here beside chapter 3's
        # "bandwidth-bound" for the same 512 tokens)
        s += (f"A prefill point is a pass of the expert group, each of its {group} replicas prefilling a prompt at "
              f"once (m_P = {group}: the experts' reads shared); one prompt alone, whose verdict and TTFT the tables "
              "state, reads its experts for itself and sits further left. ")
    whole = [p for p in rest if p[0] == "prefill"]
    if whole:
        p = whole[-1]
        t = int(next(t for t in r.spec.workloads.prefill_prompt if f"prefill {tokens(t)}" == p[1]))
        iw, full = _gemm_reading(r, t)
        s += (f"Each workload sits at its whole-pass intensity, all FLOPs of the step over all bytes it moves: "
              f"{p[1]} at {num(p[2])}, where figure {{figure:fig3-intensity-ruler}} reads {num(iw)} per weight load"
              + (f" and {num(full)} for one GEMM with its activations" if full else "") + ". ")
    for label, i, f in _measured_points(r):
        s += (f"Star: the measured run ({label.removeprefix('measured').strip()}), {num(f / 1e12)} TFLOP/s achieved at "
              f"I = {num(i)}, under the roof's {num(min(peak, bw * i) / 1e12)} TFLOP/s there. ")
    kinds = {p[0] for p in pts}  # only the markers drawn
    filled = ", filled at the largest batch that fits" if "decode-cap" in kinds else ""
    marks = ([f"circle decode (hollow at batch 1{filled})"] * bool(kinds & {"decode", "decode-cap"})
             + ["square prefill"] * ("prefill" in kinds) + ["triangle training"] * ("training" in kinds))
    if marks:
        s += "Markers: " + ", ".join(marks) + "; colour by context length. "
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
