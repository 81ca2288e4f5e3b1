"""Figure 7: the serving view: total tokens/s against the time per token, one curve per context, the spec's
batches marked, the capacity limit and the ridge crossing on each curve, and dollars per million tokens on the
right axis when the spec gives a price."""

from __future__ import annotations

import numpy as np
from genreport.model.evaluate import Results
from genreport.model.values import physical
from genreport.present.figures.data import _contexts, context_colours
from genreport.present.figures.style import (
    BLACK,
    ORANGE,
    _figure,
    _log_axis,
    _note,
    fit_left,
    legends_below,
    narrow,
    num,
    pick,
    tokens,
)


def _ridge_points(r: Results) -> list[int | None]:
    """Per decode context, the index into the curve's batches where the step crosses the ridge (B*, as in figure 4),
    None where it does not within the curve's batches: the figure circles these and its caption names them only
    where it circles one."""
    batch = r.curves["decode_batch"]
    out: list[int | None] = []
    for j, _s in enumerate(_contexts(r)):
        b_star = physical("crossover_batch", r.per_context[r.lead]["crossover_batch"][j])[0]
        out.append(min(int(np.searchsorted(batch, b_star)), len(batch) - 1)
                   if b_star is not None and b_star <= batch[-1] else None)
    return out


def fig7_serving(r: Results, baseline: Results | None = None):
    fig = _figure()
    ax = fig.add_axes(pick((0.11, 0.13, 0.76, 0.82), (0.19, 0.5, 0.6, 0.47)))  # phone: the key below
    ctx = _contexts(r)
    if not ctx:
        ax.axis("off")
        _note(ax, "This spec has no decode workload.", x=0.5, y=0.5, ha="center", va="center")
        return fig
    batch = r.curves["decode_batch"]
    tps = r.curves["serving_tokens_per_s"]
    ms = r.curves["serving_ms_per_token"]
    per = r.per_context[r.lead]
    grid = r.decode[r.lead]["decode_tokens_per_s"] if r.lead in r.decode else None
    spec_batch = np.asarray(r.spec.workloads.decode_batch, dtype=float)
    fits_weights = r.verdicts.get("weights_fit", True)
    colours = context_colours(r)  # as in figures 3, 4 and 6
    ridge = _ridge_points(r)
    first = next((j for j, k in enumerate(ridge) if k is not None), None)  # the legend names the first circle drawn
    runs = r.curves.get("serving_engine_batch")  # the engine's max_sequences where it stops a batch before the memory
    held_back = False  # the legend names the first engine limit drawn
    for j, s in enumerate(ctx):
        c = colours[int(s)]
        cap = float(per["capacity_batch"][j]) if fits_weights else 0.0
        # solid as far as the engine runs: past its max_sequences the batches fit but no step runs them (a review:
        # Qwen3-235B on 8 MI300X drawn solid to 90k tok/s at 3,147 sequences, beside a caption's 32k at 256)
        limit = float(runs[j]) if runs is not None and 1 <= cap and float(runs[j]) < cap else cap
        inside = batch <= limit
        if inside.any():
            ax.plot(ms[inside, j], tps[inside, j], color=c, label=f"S = {tokens(s)}")
        if limit < cap:
            between = (batch >= limit) & (batch <= cap)
            ax.plot(ms[between, j], tps[between, j], color=c, lw=1.0, ls=(0, (4, 1.5, 1, 1.5)))
            t_run = float(r.curves["serving_tokens_per_s_at_engine"][j])
            ax.plot([limit / t_run * 1e3], [t_run], marker="s", ms=5.5, ls="none", color=c, mec=BLACK, mew=0.8,
                    zorder=5, label=None if held_back else "engine's max_sequences")
            held_back = True
        ax.plot(ms[batch >= cap, j], tps[batch >= cap, j], color=c, lw=1.0, ls=(0, (1, 1.5)),
                label=None if inside.any() else f"S = {tokens(s)} (no fit)")
        if grid is not None:
            ok = spec_batch <= limit
            t_spec = grid[:, j]
            ax.plot(spec_batch[ok] / t_spec[ok] * 1e3, t_spec[ok], ls="none", marker="o", ms=3.5, color=c)
        if 1 <= cap <= batch[-1]:
            t_cap = float(r.curves["serving_tokens_per_s_at_capacity"][j])
            ax.plot([cap / t_cap * 1e3], [t_cap], marker="D", ms=6, ls="none", color=ORANGE, zorder=5,
                    label="capacity limit" if j == 0 else None)
        k = ridge[j]
        if k is not None:
            ax.plot([ms[k, j]], [tps[k, j]], marker="o", ms=6, ls="none", mfc="white", mec=BLACK, mew=1.2, zorder=5,
                    label="crosses the ridge (B*)" if j == first else None)  # as in figure 4
    ax.set_xscale("log")
    ax.set_yscale("log")
    lo, hi = float(np.nanmin(tps)), float(np.nanmax(tps))
    ax.set_ylim(lo / 1.5, hi * 2.0)  # room above the flat compute-bound tops
    _log_axis(ax.xaxis)
    _log_axis(ax.yaxis)
    ax.set_xlabel("time per token of one sequence (ms), the bound")
    ax.set_ylabel("tokens/s in total, the bound")
    fit_left(fig, ax)
    ax.grid(True, which="major")
    price = r.spec.hardware.price_per_hour
    hourly = r.curves.get("serving_usd_per_hour")  # the model's: a replica's price
    if price and hourly:
        def per_mtok(t):  # its own inverse: $/M tokens = k / (tokens/s)
            return hourly / (np.maximum(t, 1e-12) * 3600.0) * 1e6

        gpus = r.frame.replica_gpus
        sec = ax.secondary_yaxis("right", functions=(per_mtok, per_mtok))
        sec.set_ylabel(f"\\$ per million tokens at {f'{gpus} × ' if gpus > 1 else ''}\\${price:.2f}/h")  # not mathtext
        _log_axis(sec.yaxis)
    if narrow():
        handles, names = ax.get_legend_handles_labels()
        legends_below(fig, [{"handles": handles, "labels": names, "fontsize": 7.5}], 0.385)
    else:
        ax.legend(loc="lower right", fontsize=7)
    return fig


def caption7(r: Results, baseline: Results | None = None) -> str:
    ctx = _contexts(r)
    if not ctx:
        return "No decode workload: no serving view."
    per = r.per_context[r.lead]
    bits = []
    runs = r.curves.get("serving_engine_batch")  # where the engine's max_sequences stops a batch before the memory
    for j, s in enumerate(ctx):
        cap = float(per["capacity_batch"][j]) if r.verdicts.get("weights_fit", True) else 0.0
        if cap >= 1 and runs is not None and runs[j] < cap:
            bits.append(f"{num(r.curves['serving_tokens_per_s_at_engine'][j])} tok/s at S = {tokens(s)} "
                        f"(batch {int(runs[j]):,}, the engine's max_sequences; {int(cap):,} fit)")
        elif cap >= 1:
            bits.append(f"{num(r.curves['serving_tokens_per_s_at_capacity'][j])} tok/s at S = {tokens(s)} "
                        f"(batch {int(cap):,})")
    price = r.spec.hardware.price_per_hour
    text = ("The serving view of the batch × context table: each curve runs from batch 1 (left: fastest per token, "
            "fewest tokens in total) to larger batches (up and right). ")
    most = "The most that fit" if runs is None else "The most that fit and the engine runs at once"
    text += (most + " give " + "; ".join(bits) + ". ") if bits else "No batch fits beside the weights. "
    if runs is not None and any(cap >= 1 and runs[j] < cap for j, cap in enumerate(
            float(per["capacity_batch"][j]) if r.verdicts.get("weights_fit", True) else 0.0 for j in range(len(ctx)))):
        text += ("Squares: the engine's max_sequences, the most it runs at once; dash-dotted past it, batches that fit "
                 "the memory but no step runs. ")
    text += "Dotted: past the memory capacity."
    if any(k is not None for k in _ridge_points(r)):
        text += (" Hollow circles: the batch that crosses the ridge, where the step turns compute-bound and the time per "
                 "token starts to grow with the batch.")
    if price:
        gpus = r.frame.replica_gpus
        text += (f" Right axis: dollars per million tokens at {r.spec.hardware.title}'s ${price:.2f} per hour"
                 + (f", {gpus} GPUs a replica." if gpus > 1 else "."))
    return text
