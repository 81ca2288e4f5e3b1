"""Figure 8: the decode round against the tensor-parallel degree: the compute, HBM and interconnect ledgers per
GPU, the strict bound (their maximum) and the serialized estimate, at batch 1 and at the spec's largest batch."""

from __future__ import annotations

import numpy as np
from genreport.model.evaluate import Results
from genreport.present.figures.data import sweep_note
from genreport.present.figures.style import (
    BLACK,
    BLUE,
    GREEN,
    VERMILION,
    _figure,
    _log_axis,
    _note,
    fit_left,
    narrow,
    num,
    tokens,
)

LEDGERS = (("compute", "compute", BLUE), ("hbm", "HBM", GREEN), ("interconnect", "interconnect", VERMILION))


def _panel(ax, rows, title: str) -> None:
    gpus = np.asarray([x["gpus"] for x in rows], dtype=float)
    for key, label, colour in LEDGERS:
        y = np.asarray([x[key] for x in rows], dtype=float) * 1e3
        ok = y > 0
        ax.plot(gpus[ok], y[ok], color=colour, lw=1.2, marker="o", ms=3, label=label)
    bound = np.asarray([x["bound"] for x in rows], dtype=float) * 1e3
    serial = np.asarray([x["serial"] for x in rows], dtype=float) * 1e3
    ax.plot(gpus, bound, color=BLACK, lw=2.2, alpha=0.35, label="bound (the largest)")
    ax.plot(gpus, serial, color=BLACK, lw=1.0, ls="--", label="serial estimate")
    for x, b, row in zip(gpus, bound, rows, strict=True):
        if not row["fits"]:
            ax.plot([x], [b], marker="x", ms=6, color=BLACK, ls="none")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    _log_axis(ax.yaxis)
    ax.set_xticks(gpus)
    ax.set_xticklabels([f"{int(g)}" for g in gpus])
    ax.set_xlabel("GPUs (tensor parallel)")
    ax.set_title(title, fontsize=8)
    ax.grid(True, which="major")


def fig8_gpus(r: Results, baseline: Results | None = None):
    fig = _figure()
    m = r.many
    if m is None or not m.scaling_batch1:
        ax = fig.add_axes((0.05, 0.05, 0.9, 0.9))
        ax.axis("off")
        _note(ax, "No decode workload, or no interconnect in the GPU's spec.", x=0.5, y=0.5, ha="center", va="center")
        return fig
    if narrow():  # the phone layout: the two panels stacked, the legend below them
        left = fig.add_axes((0.16, 0.67, 0.8, 0.27))
        right = fig.add_axes((0.16, 0.22, 0.8, 0.27))
    else:
        left = fig.add_axes((0.09, 0.27, 0.39, 0.64))
        right = fig.add_axes((0.58, 0.27, 0.39, 0.64))
    _panel(left, m.scaling_batch1, f"batch 1, context {tokens(m.context)}")
    _panel(right, m.scaling_large, f"batch {m.batch_large:,}, context {tokens(m.context)}")
    left.set_ylabel("time per decode round (ms)")
    fit_left(fig, left)
    if narrow():
        right.set_ylabel("time per decode round (ms)")
        fit_left(fig, right)
    handles, labels = left.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3 if narrow() else 5, fontsize=7, frameon=False)
    return fig


def _links(r: Results, rows, up: str) -> str:
    """The links the sweep's all-reduces cross: the scale-up link, and where a degree spans more GPUs than one
    scale-up domain holds, the scale-out network between the domains (the degrees that cross it named), as each
    row's all-reduces are costed (layout.choose_links)."""
    from genreport.model.layout import scale_up_size

    up = up or "the scale-up link"
    out = [int(x["gpus"]) for x in rows if x.get("link") == "scale-out"]
    hw = r.spec.hardware
    down = hw.node.scale_out if hw.node is not None else None
    if not out or down is None:
        return up
    degrees = ", ".join(f"{g:,}" for g in out[:-1]) + (" and " if len(out) > 1 else "") + f"{out[-1]:,}"
    return (f"{up} within a domain of {scale_up_size(hw):,} GPUs; the all-reduces of {degrees} GPUs also cross "
            f"{down.short_name} between domains")


def caption8(r: Results, baseline: Results | None = None) -> str:
    m = r.many
    if m is None or not m.scaling_batch1:
        return "No decode workload, or no interconnect in the GPU's spec: no many-GPU view."
    rows = {x["gpus"]: x for x in m.scaling_batch1}
    one = rows.get(1)
    fitting = [x for x in m.scaling_batch1 if x["fits"]]
    best = min(fitting or m.scaling_batch1, key=lambda x: x["bound"])
    text = sweep_note(r) + (
        f"The decode round split into its three ledgers per GPU as the model is spread over more GPUs with "
        f"tensor parallelism ({_links(r, m.scaling_batch1, m.link)}): compute and HBM time shrink as 1/n, the "
        f"all-reduces grow with n. The bound is the largest ledger (perfect overlap); the serial estimate adds "
        f"the all-reduces to it, as real decode does. ")
    if not fitting:
        text += (f"No replica of the sweep ({', '.join(str(x['gpus']) for x in m.scaling_batch1)} GPUs) holds the "
                 "weights: the times are what it would take if it did. ")
    elif one is not None and r.frame.many:  # the one-card time is stated once, in chapter 1
        # one card that cannot hold the weights has no speed of its own: the ratio is to what it would take
        ratio = num(one['bound'] / best['bound'])
        than = (f"{ratio}× faster than one GPU for {best['gpus']}× the GPUs" if one["fits"] else
                f"{ratio}× faster, for {best['gpus']}× the GPUs, than one GPU would be if it held the weights, "
                "which it does not")
        text += f"At batch 1 the bound is {num(best['bound'] * 1e3)} ms at best, on {best['gpus']} GPUs ({than}). "
    elif one is not None:
        text += (f"At batch 1 the bound is {num(one['bound'] * 1e3)} ms on one GPU and "
                 f"{num(best['bound'] * 1e3)} ms at best, on {best['gpus']} GPUs "
                 f"({num(one['bound'] / best['bound'])}× faster for {best['gpus']}× the GPUs). ")
    text += "A cross marks a layout whose replica does not hold the weights and that batch."
    return text
