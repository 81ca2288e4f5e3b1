"""Figure 5: the memory ledger: weights, KV cache and training state against the card's capacity (and a draft
model's weights where serving.speculative names one: its KV cache shares the KV segment)."""

from __future__ import annotations

import numpy as np
from genreport.model.evaluate import Results
from genreport.present.figures.data import _contexts, _sc
from genreport.present.figures.style import (
    BASELINE,
    BLACK,
    BLUE,
    CONTEXT_COLOURS,
    GIB,
    GREEN,
    ORANGE,
    PURPLE,
    SKY,
    VERMILION,
    YELLOW,
    _figure,
    _join,
    fit_left,
    gib,
    legends_below,
    narrow,
    num,
    pick,
)

_SEGMENT_COLOURS = (("master", GREEN), ("gradient", SKY), ("adam m", PURPLE), ("adam v", YELLOW),
                    ("kv", ORANGE), ("weights", BLUE))


def _segment_colour(label: str, k: int) -> str:
    low = label.lower()
    for key, colour in _SEGMENT_COLOURS:
        if key in low:
            return colour
    return CONTEXT_COLOURS[k % len(CONTEXT_COLOURS)]


def _one_card(r: Results) -> bool:
    """Whether the bars are the whole model's on one card: where a layout's report has training bars, which are the
    whole model's (chapter 5's table, tables.training), its inference bar is too (frame.one_card), not one GPU's
    slice of the layout beside them.  Otherwise every bar is one GPU's (of the layout, or the card)."""
    return bool(r.training) and r.frame.many and bool(r.frame.one_card)


def _capacity(r: Results) -> float:
    """The capacity line: one card's where the bars are the whole model's on one card, else one GPU's [B]."""
    return r.frame.one_card["capacity"] if _one_card(r) else _sc(r)["capacity"]


def _weights(r: Results) -> float:
    return r.frame.one_card["weight_bytes"] if _one_card(r) else _sc(r)["weight_bytes"]


def _ledger(r: Results) -> list[tuple[str, list[tuple[str, float]]]]:
    """Bars: (name, [(segment label, bytes)]): one per training recipe, then inference, all at one scope (_one_card)."""
    bars = []
    for t in r.training:
        bars.append((f"training\n{t['recipe']}\n({num(t['bytes_per_param'])} B/param)", list(t["parts"])))
    weights = _weights(r)
    nums = (((r.serving or {}).get("techniques") or {}).get("numbers") or {})
    # a draft model's weights on one GPU of the layout (techniques.draft_memory): not on the whole-model scope
    draft = 0.0 if _one_card(r) else float(nums.get("draft_weights_gpu") or 0.0)
    kv = max(_capacity(r) - weights - draft, 0.0)
    inf = [(f"{r.spec.precision.weights} weights", weights)]
    if draft > 0:
        sp = r.spec.serving.speculative
        head = sp.draft_layers if sp is not None else None  # an EAGLE/MTP head: its layers, not the long title
        inf.append((f"draft head ({head} layer{'s' if head > 1 else ''})" if head else f"draft {nums['draft_model']}",
                    draft))
    if kv > 0 and _contexts(r):
        inf.append(("KV cache", kv))
    bars.append(("inference\nweights + KV" if len(inf) > 1 else "inference\nweights", inf))
    return bars


def fig5_memory_ledger(r: Results, baseline: Results | None = None):
    sc = {"capacity": _capacity(r)}
    cap = sc["capacity"] / GIB
    bars = _ledger(r)
    fig = _figure()
    ax = fig.add_axes(pick((0.1, 0.16, 0.62, 0.81), (0.18, 0.46, 0.65, 0.52)))  # phone: the key below
    x = np.arange(len(bars), dtype=float)
    width = 0.55
    top = cap
    if baseline is not None:
        bbars = dict(_ledger(baseline))
        bcap = _capacity(baseline) / GIB
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
    if not narrow():  # the phone layout names the capacity line in its key
        ax.text(x[-1] + width / 2 + 0.05, cap, f"capacity\n{gib(sc['capacity'])} GiB", color=VERMILION,
                fontsize=7.5, va="bottom", ha="left", linespacing=1.1)
    ax.set_xlim(-0.5, max(len(bars), 3) - 0.5 + pick(0.45, 0.05))
    ax.set_ylim(0, top * 1.12)
    ax.set_xticks(x)
    ax.set_xticklabels([b[0] for b in bars], fontsize=7.5)
    ax.tick_params(axis="x", length=0)
    ax.set_ylabel("memory of one card, whole model (GiB)" if _one_card(r) else "memory (GiB)")
    from matplotlib.ticker import FuncFormatter

    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,g}"))  # "17,500" as the bars' labels, not "17500"
    fit_left(fig, ax)
    ax.grid(True, axis="y")
    ax.set_axisbelow(True)
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=styles[lab][0], hatch=styles[lab][1], edgecolor="white", label=lab)
               for _k, lab in sorted(order, key=lambda t: -t[0])]
    bh, bl = ax.get_legend_handles_labels()
    names = [h.get_label() for h in handles] + bl
    if narrow():
        from matplotlib.lines import Line2D

        handles.append(Line2D([], [], color=VERMILION, ls="--", lw=1.2, label=f"capacity {gib(sc['capacity'])} GiB"))
        names = [h.get_label() for h in handles] + bl
        legends_below(fig, [{"handles": handles + bh, "labels": names, "fontsize": 7.5, "frameon": False,
                             "ncols": 2}], 0.36)
        fig.text(0.99, 0.01, "activations not included", fontsize=7.5, style="italic", color="#555555", ha="right")
    else:
        fig.legend(handles + bh, names, loc="upper left", bbox_to_anchor=(0.735, 0.97), fontsize=7.5, frameon=False)
        fig.text(0.735, 0.05, "activations not included", fontsize=7.5, style="italic", color="#555555")
    return fig


def caption5(r: Results, baseline: Results | None = None) -> str:
    sc = {"capacity": _capacity(r), "weight_bytes": _weights(r)}
    cap = gib(sc["capacity"])
    s = f"Memory budgets of {r.spec.model.title} on one {r.spec.hardware.title} with {cap} GiB, stacked in GiB. "
    if _one_card(r):
        s += (f"Every bar is the whole model on one card, as chapter 5's training state is, not one GPU of the "
              f"{r.frame.label} layout (whose slice of the weights is {gib(_sc(r)['weight_bytes'])} GiB, chapter 1). ")
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
        # the inference bar's segments as drawn: the weights, a draft's weights beside them, the KV cache in the rest
        parts = _ledger(r)[-1][1]
        said = [f"{gib(v)} GiB of " + (f"{r.spec.precision.weights} weights" if k == 0 else
                                       "KV cache" if label == "KV cache" else f"the {label}")
                for k, (label, v) in enumerate(parts)]
        whole = said[0] if len(said) == 1 else ", ".join(said[:-1]) + (" plus " if len(said) == 2 else " and ") + said[-1]
        if _contexts(r):
            s += f"Inference: {whole} fill {'each GPU' if r.frame.many and not _one_card(r) else 'the card'}. "
        else:
            s += f"Inference: {whole}. "
    else:
        s += (f"Inference: the {r.spec.precision.weights} weights alone ({gib(w)} GiB"
              f"{' per GPU' if r.frame.many and not _one_card(r) else ''}) overflow "
              f"{'each GPU' if r.frame.many and not _one_card(r) else 'the card'}, "
              "leaving nothing for a KV cache. ")
    if r.training:
        s += "The bottom segment of every bar is the weights."
    if baseline is not None:
        s += " Faded grey: the baseline spec's totals."
    return s.strip()
