"""Figure 2: decode, prefill and training as tokens per weight load against the ridge."""

from __future__ import annotations

import math

from genreport.model.evaluate import Results
from genreport.model.shown import training_weights
from genreport.present.figures.data import _modes, _sc
from genreport.present.figures.style import (
    BLUE,
    MODE_COLOURS,
    _figure,
    _join,
    _note,
    gb,
    narrow,
    pick,
    renderer,
    tokens,
)


def fig2_three_modes(r: Results, baseline: Results | None = None):
    from matplotlib.patches import FancyArrowPatch, Rectangle

    rows = [m for m in _modes(r) if m[0] != "prefill" or m[2] == max(r.spec.workloads.prefill_prompt)]
    fig = _figure()
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.85, pick(2.75, 3.0))
    ax.axis("off")
    n = len(rows)
    xb0, xb1 = pick((2.45, 3.85), (0.2, 2.4))  # phone: each row's name above it, not left of it
    x_tok, x_end, max_cells = pick((5.0, 8.3), (3.55, 7.3)) + (16,)
    cw = (x_end - x_tok) / max_cells
    ys = [1.0 + (n - 1) / 2 - i for i in range(n)]
    for (kind, _label, t), y in zip(rows, ys, strict=True):
        c = MODE_COLOURS[kind]
        name = {"decode": "decode\nbatch 1", "prefill": f"prefill\n{tokens(t)} prompt",
                "training": f"training\n{tokens(t)} micro-batch"}[kind]
        if narrow():
            ax.text(0.2, y + 0.42, name.replace("\n", " "), va="bottom", fontsize=8.5, weight="bold", color=c)
        else:
            ax.text(0.2, y, name, va="center", fontsize=8.5, weight="bold", color=c, linespacing=1.2)
        box = ax.add_patch(Rectangle((xb0, y - 0.32), xb1 - xb0, 0.64, facecolor=BLUE, edgecolor="none"))
        fmt_, size = _weights(r, kind)
        _inside(fig, box, ax.text((xb0 + xb1) / 2, y, f"{fmt_} weights\n{size}", ha="center", va="center",
                                  color="white", fontsize=7.5), fmt_, size)
        ax.add_patch(FancyArrowPatch((xb1 + 0.1, y), (x_tok - 0.15, y), arrowstyle="-|>", mutation_scale=9,
                                     color="#444444", lw=0.9))
        ax.text((xb1 + x_tok) / 2, y + 0.08, "one load", ha="center", va="bottom", fontsize=7, color="#555555")
        k = 1 if t == 1 else min(max_cells, 1 + int(round(math.log2(t))))
        for j in range(k):
            ax.add_patch(Rectangle((x_tok + j * cw + 0.015, y - 0.2), cw - 0.03, 0.4, facecolor=c,
                                   edgecolor="none", alpha=1.0 if j == 0 else 0.6))
        served = "1 token" if t == 1 else f"{t:,} tokens"
        ax.text(x_tok + k * cw + 0.12, y, served, va="center", fontsize=8.5)
    head = ys[0] + pick(0.5, 0.72)
    ax.text((xb0 + xb1) / 2, head, "same weights", ha="center", va="bottom", fontsize=7.5, color="#555555")
    ax.text(pick(x_tok, x_end + 2.6), head, pick("tokens served by one weight load", "tokens served\nby one load"), ha=pick("left", "right"), va="bottom",
            fontsize=7.5, color="#555555", linespacing=1.1)
    _note(ax, "Schematic: token strips not to scale.", x=0.5, y=0.02, ha="center")
    return fig


def _trains_bf16(r: Results) -> bool:
    """Training streams the recipes' bf16 weights (chapter 5), not the served format's: another block where the
    served weights are not 16-bit."""
    return training_weights(r) is not None


def _weights(r: Results, kind: str) -> tuple[str, str]:
    """The weight block's format and size for a row: the slice each GPU holds, in the served format, or for training
    the same parameters in the recipes' bf16 (N_g 2 B: the served bytes over b, times 2)."""
    sc = _sc(r)
    if kind == "training" and _trains_bf16(r):
        return "bf16", gb(training_weights(r))
    return r.spec.precision.weights, gb(sc["weight_bytes"])


def _inside(fig, box, text, weights: str, size: str) -> None:
    """White on the weight block, so a label wider than the block is cut off where it leaves it ("xfp4+bf16 weigh"
    for gpt-oss-20b's mxfp4+bf16): the format on a line of its own, then split at its '+', then a smaller font,
    until the label fits inside the block with a little room."""
    rend = renderer(fig)
    inner = box.get_window_extent(rend).padded(-2.0)
    lines = [f"{weights} weights\n{size}", f"{weights}\nweights\n{size}"]
    if "+" in weights:
        lines.append(weights.replace("+", "+\n") + f"\nweights\n{size}")
    for fontsize in (7.5, 6.5, 5.5):
        for label in lines:
            text.set_text(label)
            text.set_fontsize(fontsize)
            got = text.get_window_extent(rend)
            if got.x0 >= inner.x0 and got.x1 <= inner.x1 and got.y0 >= inner.y0 and got.y1 <= inner.y1:
                return


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
    # at a layout the block is one GPU's slice (results' weight_bytes, gpu scope), not the model's
    held = f"{r.spec.precision.weights}, {gb(sc['weight_bytes'])}" + (
        f", one GPU's slice at {r.frame.label}" if r.frame.many else "")
    if any(kind == "training" for kind, _label, _t in rows) and _trains_bf16(r):
        fmt_, size = _weights(r, "training")
        return (f"The same weights ({held}), {what} to run them; "
                f"training streams the recipes' {fmt_} copy of them ({size}). The right side shows what one load "
                f"serves: {_join(parts)}.{_routed(r, rows)} Schematic: the token strips are not to scale.")
    return (f"The same weights ({held}), {what} to run them. "
            f"The weight block is identical in every row; only the right side differs: {_join(parts)}.{_routed(r, rows)} "
            "Schematic: the token strips are not to scale.")


def _routed(r: Results, rows) -> str:
    """For a mixture of experts, what a load reads of the block (a review: the figure showed the whole block as
    batch-1 decode's one load): a token's k of the E routed experts a layer, a prompt's T tokens the expected
    E (1 - (1 - k/E)^T) of them (uniform routing, formulas.architecture's count)."""
    moe = r.spec.model.moe
    if moe is None or moe.active_experts >= moe.experts:
        return ""
    k, e = moe.active_experts, moe.experts
    bits = [f"a batch-1 token reads its {k} of the {e} routed experts a layer ({k / e:.1%} of them)"]
    longest = max((t for kind, _label, t in rows if kind == "prefill"), default=None)
    if longest is not None:
        touched = 1 - (1 - k / e) ** longest
        share = "all of them" if touched > 0.9995 else f"{touched:.1%} of them in expectation"
        bits.append(f"a prompt of {longest:,} tokens {share}")
    return " For a mixture of experts a load is what the tokens' experts need: " + ", ".join(bits) + "."
