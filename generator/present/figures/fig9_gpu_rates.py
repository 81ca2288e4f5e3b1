"""Figure 9: tokens/s per GPU and per replica against the tensor-parallel degree, at batch 1 and at the spec's
largest batch (the strict bound)."""

from __future__ import annotations

import numpy as np
from genreport.model.evaluate import Results
from genreport.present.figures.data import sweep_note
from genreport.present.figures.style import (
    BLUE,
    VERMILION,
    _figure,
    _log_axis,
    _note,
    fit_left,
    narrow,
    num,
    pick,
    tokens,
)


def fig9_gpu_rates(r: Results, baseline: Results | None = None):
    fig = _figure()
    m = r.many
    ax = fig.add_axes((0.19, 0.3, 0.76, 0.65) if narrow() else (0.12, 0.15, 0.84, 0.8))
    if m is None or not m.scaling_batch1:
        ax.axis("off")
        _note(ax, "No decode workload, or no interconnect in the GPU's spec.", x=0.5, y=0.5, ha="center", va="center")
        return fig
    if not any(x["fits"] for x in (*m.scaling_batch1, *m.scaling_large)):
        ax.axis("off")
        _note(ax, f"No tensor-parallel layout up to {_widest(m):,} GPUs{pick(' ', chr(10))}holds the weights and one "
                  "sequence.", x=0.5, y=0.5, ha="center", va="center")
        return fig
    for rows, colour, label in ((m.scaling_batch1, BLUE, "batch 1"),
                                (m.scaling_large, VERMILION, f"batch {m.batch_large:,}")):
        gpus = np.asarray([x["gpus"] for x in rows], dtype=float)
        fits = np.asarray([x["fits"] for x in rows])
        per_gpu = np.asarray([x["tokens_per_s_gpu"] for x in rows])
        replica = np.asarray([x["tokens_per_s_replica"] for x in rows])
        ax.plot(gpus[fits], replica[fits], color=colour, lw=1.6, marker="o", ms=3.5, label=f"{label}: per replica")
        ax.plot(gpus[fits], per_gpu[fits], color=colour, lw=1.0, ls="--", marker="s", ms=3,
                label=f"{label}: per GPU")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    _log_axis(ax.yaxis)
    g = np.asarray([x["gpus"] for x in m.scaling_batch1], dtype=float)
    ax.set_xticks(g)
    ax.set_xticklabels([f"{int(x)}" for x in g])
    ax.set_xlabel("GPUs (tensor parallel)")
    ax.set_ylabel(f"tokens/s at context {tokens(m.context)}, the bound")
    ax.grid(True, which="major")
    fit_left(fig, ax)
    if narrow():
        handles, labels = ax.get_legend_handles_labels()
        fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=7, frameon=False)
    else:
        ax.legend(fontsize=7)
    return fig


def caption9(r: Results, baseline: Results | None = None) -> str:
    m = r.many
    if m is None or not m.scaling_batch1:
        return "No decode workload, or no interconnect in the GPU's spec: no many-GPU view."
    rows = [x for x in m.scaling_batch1 if x["fits"]]
    if not rows:
        return (f"No tensor-parallel layout up to {_widest(m):,} GPUs holds the weights and one sequence at this "
                "context.")
    first, last = rows[0], max(rows, key=lambda x: x["gpus"])
    if last["gpus"] > first["gpus"] and last["tokens_per_s_gpu"] < 0.995 * first["tokens_per_s_gpu"]:
        why = (": each GPU added buys less, because the weights it no longer streams are traded for all-reduces")
    else:  # the bound overlaps the all-reduces: where they stay under each GPU's weight stream, per GPU holds
        why = (f", as many as on {first['gpus']} GPU{'s' if first['gpus'] > 1 else ''}: the bound overlaps the "
               "all-reduces, which stay under each GPU's weight stream (the serial estimate of the figure before "
               "pays them)")
    return sweep_note(r, first=False) + (f"Tokens/s of one replica (solid) and per GPU (dashed) as the replica grows. At batch 1 one replica of "
            f"{first['gpus']} GPU{'s' if first['gpus'] > 1 else ''} gives {num(first['tokens_per_s_replica'])} tok/s; "
            f"{last['gpus']} GPUs give {num(last['tokens_per_s_replica'])} tok/s, "
            f"{num(last['tokens_per_s_gpu'])} per GPU{why}. Only layouts whose replica holds the batch are drawn.")


def _widest(m) -> int:
    """The most GPUs the tensor-parallel sweep tried."""
    return max(int(x["gpus"]) for x in m.scaling_batch1)
