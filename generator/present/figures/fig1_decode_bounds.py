"""Figure 1: the batch-1 decode step's two lower bounds, memory and compute, and which binds."""

from __future__ import annotations

import math

from genreport.model.evaluate import Results
from genreport.present.figures.data import _sc
from genreport.present.figures.style import BLUE, VERMILION, _figure, _note, num, pick
from genreport.present.fmt import time  # three significant digits, as the formulas print times ("0.790 ms")


def _shown(x: float, sig: int) -> tuple[str, float]:
    """``x`` to ``sig`` significant digits: the text and the number it states (27.009 at 3: '27', at 4: '27.01')."""
    v = float(f"{x:.{sig}g}")
    if v == 0:
        return "0", 0.0
    decimals = max(0, sig - 1 - math.floor(math.log10(abs(v))))
    text = f"{v:,.{decimals}f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text), v


def _streamed(r: Results):
    """What the memory bound streams: (row note, the bar text's head, caption's formula, the compute bound's symbol).

    The head is a function of the significant digits giving (its text, the bytes it states), so that the bar's
    arithmetic holds as written (:func:`_bar_text`).
    A mixture of experts streams only the experts its batch touches, so the bar must not quote the whole model's
    bytes beside a time computed from the streamed ones (DeepSeek-V3 on MI300X: 7 ms is 37 B active, not 671 GB).
    At batch 1 those are its active weights, except where one GPU holds a share of the experts that the tokens of
    several data-parallel replicas touch: the parameters it streams (N_s,g) are then not the N_a,g it computes with.
    """
    sc = _sc(r)
    v = r.envs[r.lead].values
    n, n_a = r.frame.sym("N"), r.frame.sym("N_a")
    streamed = sc["weight_stream_time"] * sc["bandwidth"]
    if abs(streamed - sc["weight_bytes"]) <= 1e-3 * sc["weight_bytes"]:
        what = "its slice" if r.frame.many else "every weight"

        def whole(sig: int, x: float = sc["weight_bytes"] / 1e9):
            text, shown = _shown(x, sig)
            return f"{text} GB of weights", shown * 1e9

        return f"stream {what} once\n{n}·b / W", whole, f"{n}·b/W", n
    block = r.blocks.get("t_mem")
    # the bytes per weight (1) substitutes: with weights per tensor class, the mean of what it streams (gpt-oss's
    # batch-1 active weights at 1.16 B: bf16 attention and head beside mxfp4 experts), not the whole model's 0.658
    b = block.inputs.get("b", v["b"]) if block is not None else v["b"]
    tex = block.symbols.get("N", "") if block is not None else ""
    n_s = tex.replace("{", "").replace("}", "") or n_a

    def weights(label: str, count: float):
        def head(sig: int):
            c_text, c = _shown(count / 1e9, sig)
            b_text, b_v = _shown(float(b), sig)
            return f"{label} {c_text} B × {b_text} byte{'' if b_v == 1 else 's'}", c * 1e9 * b_v
        return head

    if n_s == n_a:
        return (f"stream active weights\n{n_a}·b / W", weights("active weights", v["N_a"]),
                f"{n_a}·b/W (the {num(v['N_a'] / 1e9)} billion active weights)", n_a)
    params = block.inputs["N"] - block.inputs.get("N_e", 0.0)  # what (1) streams, as its substitution
    return (f"stream touched weights\n{n_s}·b / W", weights("streamed weights", params),
            f"{n_s}·b/W (the {num(params / 1e9)} billion weights one GPU streams)", n_a)


def _bar_text(head, bandwidth: float, t: float, sep: str) -> str:
    """'4.143 GB of weights / 1.008 TB/s = 4.11 ms': the bytes and the bandwidth to the fewest significant digits,
    3 to 6, whose quotient as written rounds to the time shown (at 3, the RTX 4090's 4.14 GB / 1.01 TB/s is 4.10 ms,
    not the bound's 4.11 ms; an A100's 3.23 B × 2 bytes / 1.55 TB/s is 4.17 ms, not 4.15)."""
    want = time(t)
    for sig in range(3, 7):
        text, nbytes = head(sig)
        w_text, w = _shown(bandwidth / 1e12, sig)
        if w > 0 and time(nbytes / (w * 1e12)) == want:
            break
    return f"{text} / {w_text} TB/s{sep}= {want}"


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
    # wide: row labels left of the bars; phone: above them, bars across the whole width
    x0, x1 = pick((2.35, 9.75), (0.2, 9.8))
    y_mem, y_cmp, h = pick((3.65, 1.4, 0.8), (3.55, 1.0, 0.7))
    row_note, bar_head, formula, n_sym = _streamed(r)  # n_sym: N, or N_a for a mixture of experts
    cmp_note = f"one token at peak\n2{n_sym} / P"
    sep = pick("\n", ": ")
    for y, title, note in ((y_mem, "memory bound", row_note), (y_cmp, "compute bound", cmp_note)):
        at = pick((0.2, y + 0.7, 0.2, y + 0.2), (0.2, y + h + 0.48, 0.2, y + h + 0.22))
        ax.text(at[0], at[1], title, fontsize=9, weight="bold", va="center")
        ax.text(at[2], at[3], note.replace("\n", sep), fontsize=7.5, va="center", color="#333333")
    long_is_mem = ratio >= 1
    slots = ratio if long_is_mem else 1 / ratio
    # the long bound: one solid bar over the whole span
    bar_y = y_mem if long_is_mem else y_cmp
    cell_y = y_cmp if long_is_mem else y_mem
    long_t, short_t = (t_mem, t_comp) if long_is_mem else (t_comp, t_mem)
    ax.add_patch(Rectangle((x0, bar_y), x1 - x0, h, facecolor=BLUE if long_is_mem else VERMILION,
                           edgecolor="none"))
    ax.text((x0 + x1) / 2, bar_y + h / 2,
            (_bar_text(bar_head, sc["bandwidth"], long_t, pick(" ", chr(10)))
             if long_is_mem else f"2{n_sym} / P = {time(long_t)}"),
            ha="center", va="center", color="white", fontsize=pick(9, 8.5), weight="bold", linespacing=1.15)
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
        what, at, tip = f"the 1 token it has to do: 2{n_sym} / P = {time(short_t)}", cell_y, cell_y - pick(0.55, 0.4)
    else:
        what, at, tip = (f"one pass over the weights: {formula.split(' (')[0]} = {time(short_t)}", cell_y + h,
                         cell_y + h + 0.3)
    ax.annotate(what, xy=(x0 + w / 2, at), xytext=(x0 + 0.1, tip), fontsize=8, va="center",
                color=VERMILION if long_is_mem else BLUE, arrowprops={"arrowstyle": "-", "color": "#555555", "lw": 0.7})
    # span arrow between the rows
    ya = (y_mem + y_cmp + h) / 2
    ax.add_patch(FancyArrowPatch((x0, ya), (x1, ya), arrowstyle="<->", mutation_scale=9, color="#444444", lw=0.8))
    if long_is_mem:
        msg = f"in this window peak compute could do ≈ {num(slots)} such tokens;{pick(' ', chr(10))}it does 1"
    else:
        msg = f"compute is the longer bound:{pick(' ', chr(10))}the weights could be streamed ≈ {num(slots)} times"
    ax.text((x0 + x1) / 2, ya + 0.12, msg, ha="center", va="bottom", fontsize=8.5, linespacing=1.15,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})
    ridge = sc["ridge_point"]
    eq = " (= the ridge, since b = 2 B)" if abs(ratio - ridge) <= 1e-9 * ridge else ""
    ax.text((x0 + x1) / 2, ya - 0.12, f"t_mem / t_comp = {num(ratio)}{eq}", ha="center", va="top",
            fontsize=7.5, color="#333333")
    _note(ax, "Schematic: cells not to scale.  A ratio of two lower bounds, not an idle fraction:"
              + pick(" ", "\n") + "compute and memory access overlap.", x=0.5, y=0.02, ha="center")
    return fig


def caption1(r: Results, baseline: Results | None = None) -> str:
    sc = _sc(r)
    t_mem, t_comp = sc["weight_stream_time"], sc["weight_flops_time"]
    ratio = t_mem / t_comp
    _, _, formula, n_sym = _streamed(r)
    where = (f"one GPU of {r.frame.gpus} × {r.spec.hardware.title} ({r.frame.label})" if r.frame.many
             else r.spec.hardware.title)
    card = "each GPU" if r.frame.many else "the card"
    head = (f"Schematic (cells not to scale): the two lower bounds of one batch-1 decode step of "
            f"{r.spec.model.title} on {where}. By bandwidth it takes {formula} = {time(t_mem)}; "
            f"by compute only 2{n_sym}/P = {time(t_comp)}. ")
    if ratio >= 1:
        body = (f"In the time the bandwidth sets, {card}'s peak compute could do about {num(ratio)} such tokens, "
                f"and it has to do 1. ")
    else:
        body = (f"Here compute is the longer bound ({num(1 / ratio)}× the memory time), so batch-1 decode is "
                f"compute-bound on {'each GPU' if r.frame.many else 'this card'}. ")
    ridge = sc["ridge_point"]
    if abs(ratio - ridge) <= 1e-9 * ridge:
        body += f"The ratio {num(ratio)} equals the ridge because weights take b = 2 bytes. "
    tail = ("It is a ratio of two lower bounds, not an idle fraction: compute and memory access overlap.")
    return head + body + tail
