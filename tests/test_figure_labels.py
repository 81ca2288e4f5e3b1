"""Figure labels read without collisions: no two text boxes overlap, in every committed report's figures and in
figures of hard specs (a mixture of experts that does not fit, a dense model that does not fit, many contexts, a
what-if over its baseline), in the wide and the narrow (phone) layout.

Boxes are the matplotlib artists' window extents measured with the figure's own renderer (the SVG's text is the
same DejaVu Sans at the same size); a legend counts as one box.  The roofline (figure 6) has its own rules:
a label stays on its point's side of the ridge, no marker covers the "P = ... TFLOP/s" label, batch-1 decode
markers do not overlap, and a spec with a measured run shows it as a star at (intensity, achieved FLOP/s).
"""

from __future__ import annotations

import itertools
import math
import re

import matplotlib
import pytest
from genreport.present import figures
from genreport.present.figures import style
from shared import COMMITTED, evaluated

# DeepSeek-V3 in fp8 on one MI300X: 671 GB of weights in 192 GiB (does not fit), 37 B active per token.
DEEPSEEK_MI300X = """\
kind: report
name: deepseek-mi300x
title: "DeepSeek-V3 on one MI300X"
hardware: mi300x
model: deepseek-v3
precision: fp8
workloads:
  decode:
    batch: [1, 2, 4, 8, 16, 32, 64, 128, 256]
    context: [128, 1k, 4k, 16k, 64k, 128k]
  prefill:
    prompt: [256, 2k, 8k]
  training:
    micro_batch_tokens: 8k
"""
MANY_CONTEXTS = "workloads.decode.context=[128, 256, 512, 1k, 2k, 4k, 8k, 16k, 32k, 128k]"


def _hard(name: str, tmp_path_factory):
    if name == "deepseek-v3-mi300x":
        path = tmp_path_factory.mktemp("spec") / "deepseek-mi300x.yaml"
        path.write_text(DEEPSEEK_MI300X)
        return evaluated(path), None
    spec = "llama8b-h100.yaml"
    if name == "too-small-card":
        return evaluated(spec, ["hardware.memory.capacity=8 GiB"]), None
    if name == "many-contexts":
        return evaluated(spec, [MANY_CONTEXTS]), None
    if name == "what-if":
        return evaluated(spec, ["hardware.memory.bandwidth=4.8 TB/s"]), evaluated(spec)
    raise AssertionError(name)


CASES = [*(("committed", n) for n in COMMITTED),
         *(("hard", n) for n in ("deepseek-v3-mi300x", "too-small-card", "many-contexts", "what-if"))]


@pytest.fixture(scope="module", params=CASES, ids=[c[1] for c in CASES])
def case(request, tmp_path_factory):
    kind, name = request.param
    _ROOFLINES.clear()  # the figures of the case before: drawn, checked, no longer needed
    if kind == "committed":
        return evaluated(name), None
    return _hard(name, tmp_path_factory)


def _drawn(r, baseline, name, narrow):
    with matplotlib.rc_context(figures.RC), style.layout(narrow):
        return figures.DRAWERS[name](r, baseline)


_ROOFLINES: dict = {}  # (id of the case's results, narrow) -> the roofline drawn for them, which no test changes


def _roofline(r, baseline, narrow):
    """The case's roofline, drawn once for the overlap test and the roofline's own rules (both only read it)."""
    key = (id(r), narrow)
    if key not in _ROOFLINES:
        _ROOFLINES[key] = (r, _drawn(r, baseline, "fig6-roofline", narrow))  # r kept: its id stays its own
    return _ROOFLINES[key][1]


def _collisions(fig, boxes=None) -> list[str]:
    boxes = style.text_boxes(fig) if boxes is None else boxes
    return [f"{a!r} overlaps {b!r}" for (a, ba), (b, bb) in itertools.combinations(boxes, 2)
            if ba.overlaps(bb)]


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
@pytest.mark.parametrize("name", [n for n, _ in figures.FIGURES])
def test_no_two_labels_overlap(case, name, narrow):
    r, baseline = case
    fig = _roofline(r, baseline, narrow) if name == "fig6-roofline" else _drawn(r, baseline, name, narrow)
    boxes = style.text_boxes(fig)  # measured once (a draw of the figure): both checks read them
    assert _collisions(fig, boxes) == []
    # and every text lies on the canvas (a label pushed off the edge is as unreadable as one under another)
    for text, bb in boxes:
        assert bb.x0 >= -1 and bb.x1 <= fig.bbox.x1 + 1 and bb.y0 >= -1 and bb.y1 <= fig.bbox.y1 + 1, text


def test_the_check_sees_a_collision():
    """The overlap check can fail: two labels put on one spot are reported (on one report's roofline: what the
    check does depends on the boxes, not on the report)."""
    fig = _drawn(evaluated("llama8b-h100.yaml"), None, "fig6-roofline", False)
    ax = fig.axes[0]
    ax.text(10, 10, "one label")
    ax.text(10, 10, "another label")
    assert any("one label" in c and "another label" in c for c in _collisions(fig))


def _markers(ax):
    """(marker, x, y, display box) of every drawn point marker."""
    out = []
    for line in ax.lines:
        m = line.get_marker()
        if m in (None, "None", "", " ") or line.get_linestyle() not in ("None", "", " "):
            continue
        for x, y in zip(line.get_xdata(), line.get_ydata(), strict=True):
            out.append((m, float(x), float(y), style.marker_box(ax, x, y, line.get_markersize()),
                        line.get_markerfacecolor()))
    return out


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow"])
def test_roofline_rules(case, narrow):
    r, baseline = case
    fig = _roofline(r, baseline, narrow)
    ax = fig.axes[0]
    style.renderer(fig)
    fig.draw_without_rendering()
    rend = style.renderer(fig)
    sc = r.scalars[r.lead]
    ridge_px = ax.transData.transform((sc["ridge_point"], 1.0))[0]
    marks = [m for m in _markers(ax) if m[4] != "#7f7f7f"]  # not the faded baseline's
    texts = {t.get_text(): t for t in ax.texts}
    # the peak's label: no marker on it
    p_label = next(t for name, t in texts.items() if name.startswith("P = "))
    pbox = p_label.get_window_extent(rend)
    assert not [m for m in marks if m[3].overlaps(pbox)], "a marker sits on the peak's label"
    # each workload label on its point's side of the ridge
    for t in ax.texts:
        if t.get_text().startswith("P = ") or not t.get_text():
            continue
        x = t.xy[0] if hasattr(t, "xy") else None
        if x is None:
            continue
        bb = t.get_window_extent(rend)
        if x < sc["ridge_point"]:
            assert bb.x1 <= ridge_px + 0.5, f"{t.get_text()!r} crosses the ridge away from its point"
        else:
            assert bb.x0 >= ridge_px - 0.5, f"{t.get_text()!r} crosses the ridge away from its point"
    # batch-1 decode markers (hollow circles) do not overlap one another
    hollow = [m for m in marks if m[0] == "o" and m[4] == "white"]
    for a, b in itertools.combinations(hollow, 2):
        assert not a[3].overlaps(b[3]), f"batch-1 markers at I = {a[1]:.3g} and {b[1]:.3g} overlap"
    # a measured run is a star at its intensity and achieved FLOP/s
    stars = [m for m in marks if m[0] == "*"]
    expected = [(row["intensity"], row["achieved_flops"]) for row in r.measured]
    assert len(stars) == len(expected)
    for (i, f), star in zip(expected, stars, strict=True):
        assert math.isclose(star[1], i) and math.isclose(star[2], f)


def test_moe_bound_names_the_active_weights(tmp_path):
    """DeepSeek-V3 streams 37 B active weights per batch-1 token, not its 671 GB (figure 1 once said
    '671 GB / 5.3 TB/s = 7.09 ms', pairing the whole model's bytes with the active weights' time)."""
    path = tmp_path / "deepseek-mi300x.yaml"
    path.write_text(DEEPSEEK_MI300X)
    r = evaluated(path)
    fig = _drawn(r, None, "fig1-decode-bounds", False)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert not any("671 GB" in t for t in texts), texts
    assert any(t.startswith("active weights 37 B") for t in texts), texts
    # "billion", not "B", the report's unit of bytes (a review read "the 5.71 B active weights" as bytes)
    assert "N_a·b/W (the 37 billion active weights)" in figures.captions(r)["fig1-decode-bounds"]


# gpt-oss-20b at its checkpoint's formats on one RTX 4090: routed experts in MXFP4 (4.25 bits), the rest in bf16
# (openai/gpt-oss-20b config.json, quantization_config; specs/models/gpt-oss-20b.yaml).
GPT_OSS_4090 = """\
kind: report
name: gptoss-4090
title: gpt-oss-20b on one RTX 4090
hardware: rtx-4090
model: gpt-oss-20b
precision: {weights: checkpoint}
workloads:
  decode: {batch: [1, 8], context: [1k]}
"""


@pytest.mark.parametrize("text", [GPT_OSS_4090, DEEPSEEK_MI300X])
def test_the_memory_bars_arithmetic_is_its_result(text, tmp_path):
    """The bar's 'P B x b bytes / W TB/s = t ms' multiplies out to t. gpt-oss-20b's batch-1 active weights are
    4.187e9 parameters at a mean 1.16 B (bf16 attention, embeddings and head beside 4 of 32 mxfp4 experts), 4.865 GB,
    4.83 ms at 1.008 TB/s; the bar once printed the whole model's mean, 0.658 B, beside the same 4.83 ms
    (4.187e9 x 0.658 / 1.008e12 = 2.73 ms)."""
    path = tmp_path / "fig1.yaml"
    path.write_text(text)
    r = evaluated(path)
    fig = _drawn(r, None, "fig1-decode-bounds", False)
    bar = [t.get_text() for t in fig.axes[0].texts if "TB/s" in t.get_text() and "=" in t.get_text()]
    assert len(bar) == 1, bar
    m = re.search(r"([\d.]+) B × ([\d.]+) bytes? / ([\d.]+) TB/s\s*=\s*([\d.]+) ms", bar[0])
    assert m, bar[0]
    params, b, w, t = (float(g) for g in m.groups())
    assert params * 1e9 * b / (w * 1e12) * 1e3 == pytest.approx(t, rel=0.012), bar[0]


@pytest.mark.parametrize("narrow", [False, True])
def test_the_weight_blocks_label_stays_inside_the_block(narrow, tmp_path):
    """Figure 3's white label on the blue weight block: gpt-oss-20b's "mxfp4+bf16 weights" was wider than the block
    and read "xfp4+bf16 weigh" on the page, white beyond the blue. Every white label lies inside a block."""
    from matplotlib.patches import Rectangle

    path = tmp_path / "fig2.yaml"
    path.write_text(GPT_OSS_4090)
    fig = _drawn(evaluated(path), None, "fig2-three-modes", narrow)
    rend = style.renderer(fig)
    ax = fig.axes[0]
    blocks = [p.get_window_extent(rend) for p in ax.patches if isinstance(p, Rectangle)]
    white = [t for t in ax.texts if t.get_color() == "white"]
    assert white and "mxfp4+bf16" in white[0].get_text()
    for t in white:
        box = t.get_window_extent(rend)
        assert any(b.x0 <= box.x0 and box.x1 <= b.x1 and b.y0 <= box.y0 and box.y1 <= b.y1 for b in blocks), (
            t.get_text(), box)


# Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B config.json: num_experts 128, num_experts_per_tok 8) in bf16 on one H100 with a
# prefill and a training micro-batch: an MoE whose routed experts' load serves T k / E = T / 16 tokens.
QWEN3_MOE_H100 = """\
kind: report
name: q3moe
title: Qwen3 30B-A3B on one H100
hardware: h100-sxm
model: qwen3-30b-a3b
precision: bf16
workloads:
  decode: {batch: [1, 8], context: [1k]}
  prefill: {prompt: [512, 8k]}
  training: {micro_batch_tokens: 4k, recipes: [bf16-grads]}
"""


@pytest.mark.parametrize("case", ["mixtral", "deepseek", "qwen3", "dense"])
def test_the_ruler_places_a_routed_experts_load_beside_the_dense_reading(case, tmp_path):
    """Figure 4 (the intensity ruler) once placed an MoE prefill only at 2T/b ("prefill 512 at 512 on the
    compute-bound right" for Mixtral 8x22B) while chapter 3's sentence says one load of a routed expert serves
    T k / E tokens, 2 T k / (E b). Mixtral 8x22B (k 2 of E 8; mistralai/Mixtral-8x22B-v0.1 config.json), bf16 on
    H100 (ridge 989.4 / 3.35 = 295): 2 x 512 x 2 / (8 x 2) = 128, left. DeepSeek-V3 (k 8 of E 256;
    deepseek-ai/DeepSeek-V3 config.json), fp8 (b = 1) on H200 (ridge 412): 2 x 512 x 8 / 256 = 32 and 2 x 2,048 x
    8 / 256 = 128 left, 2 x 8,192 x 8 / 256 = 512 right. Qwen3-30B-A3B (k 8 of E 128) bf16 on H100: 512 x 8 / 128
    = 32, left, 8,192 / 16 = 512, right; training 4k at bf16: 4,096 / 16 = 256, left. A dense model keeps its two
    rows."""
    if case == "qwen3":
        path = tmp_path / "q3.yaml"
        path.write_text(QWEN3_MOE_H100)
        r = evaluated(path)
    else:
        r = evaluated({"mixtral": "mixtral8x22b-h100-tp8-ep8.yaml", "deepseek": "deepseek-v3-h200-ep8.yaml",
                       "dense": "llama8b-h100.yaml"}[case])
    fig = _drawn(r, None, "fig3-intensity-ruler", False)
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    texts = [t.get_text() for t in fig.axes[0].texts]
    caption = figures.captions(r)["fig3-intensity-ruler"]
    if case == "dense":
        assert not any("routed" in t for t in ticks) and "routed" not in caption, (ticks, caption)
        assert len(ticks) == 2 and "prefill 256 at 256 on the memory-bound left" in caption, caption
        return
    assert ticks[0] == "routed expert\n2T k / (E b)", ticks
    want = {"mixtral": (["prefill 512\n128", "prefill 2k\n512", "prefill 8k\n2,048"],
                        "prefill 512 at 128 on the memory-bound left"),
            "deepseek": (["prefill 512\n32", "prefill 2k\n128", "prefill 8k\n512"],
                         "prefill 512 at 32 and prefill 2k at 128 on the memory-bound left; prefill 8k at 512 on "
                         "the compute-bound right"),
            "qwen3": (["prefill 512\n32", "training 4k\n256"],
                      "prefill 512 at 32 and training 4k at 256 on the memory-bound left; prefill 8k at 512 on the "
                      "compute-bound right")}[case]
    for label in want[0]:
        assert label in texts, (label, texts)
    assert want[1] in caption, caption
    assert "A routed expert's weights serve only the tokens routed to it" in caption


def test_the_ruler_places_decode_batch_1_at_the_bytes_the_step_streams(tmp_path):
    """gpt-oss-20b at its checkpoint's formats (mxfp4 routed experts, bf16 rest; openai/gpt-oss-20b config.json):
    the batch-1 step streams 4.187e9 active weights at a mean 1.16 B (formula (1); the memory bar's test above),
    so decode batch 1 sits at 2 x 1 / 1.16 = 1.72 FLOP/B, not at the whole model's mean 0.658 B (2 / 0.658 = 3.04)."""
    path = tmp_path / "gptoss.yaml"
    path.write_text(GPT_OSS_4090)
    r = evaluated(path)
    streamed = float(r.envs[r.lead].at(batch=1.0)["b"])
    assert streamed == pytest.approx(1.16, abs=0.005)
    assert r.value("weight_reuse_intensity", "seed", tokens=1) == pytest.approx(2 / streamed, rel=1e-9)
    texts = [t.get_text() for t in _drawn(r, None, "fig3-intensity-ruler", False).axes[0].texts]
    assert "decode batch 1\n1.72" in texts, texts
    assert "decode batch 1 at 1.72 on the memory-bound left" in figures.captions(r)["fig3-intensity-ruler"]


def test_the_roofline_legends_hide_no_marker(tmp_path):
    """Llama 3.1 70B in fp8 on GB200 (tp 8): the ridge sits at 5 PFLOP/s / 8 TB/s = 625 FLOP/B (NVIDIA GB200 NVL72
    datasheet, per GPU), so the largest batch that fits at context 1k (8,122 sequences, intensity 815) sits at the
    roof's corner, where the roof legend at the upper left hid its marker. Each legend now goes where it covers no
    marker (the committed reports keep theirs: upper left, lower right)."""
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    path = tmp_path / "gb.yaml"
    path.write_text("""\
kind: report
name: gb
title: Llama 3.1 70B in fp8 on 8 GB200
hardware: gb200
model: llama-3.1-70b
precision: fp8
parallelism: {tp: 8}
workloads:
  decode: {batch: [1, 256], context: [1k, 8k, 32k]}
  prefill: {prompt: [512, 16k]}
""", encoding="utf-8")
    r = evaluate(load_report(path))
    with matplotlib.rc_context(figures.RC), style.layout(False):
        fig = figures.DRAWERS["fig6-roofline"](r, None)
    ax = fig.axes[0]
    rend = style.renderer(fig)
    legends = [a for a in ax.artists if isinstance(a, matplotlib.legend.Legend)] + [ax.get_legend()]
    boxes = [leg.get_window_extent(rend) for leg in legends if leg is not None]
    assert len(boxes) == 2
    points = [line for line in ax.lines if len(line.get_xdata()) == 1]  # the workloads' markers
    assert len(points) >= 6
    for line in points:
        box = style.marker_box(ax, line.get_xdata()[0], line.get_ydata()[0], line.get_markersize())
        assert not any(box.overlaps(b) for b in boxes), (line.get_xdata()[0], line.get_ydata()[0])


@pytest.mark.parametrize("spec", [
    "llama8b-h100.yaml",  # was '16.1 GB of weights / 3.35 TB/s = 4.79 ms': 16.1 / 3.35 is 4.81
    ("kind: report\nname: i4\ntitle: t\nhardware: rtx-4090\nmodel: llama-3.1-8b\nprecision: {weights: int4, "
     "group_size: 128}\nworkloads:\n  decode: {batch: [1], context: [2k]}\n"),  # was 4.14 GB / 1.01 TB/s = 4.11 ms
    ("kind: report\nname: mx\ntitle: t\nhardware: a100-sxm-40gb\nmodel: mixtral-8x7b\nprecision: bf16\n"
     "parallelism: {tp: 4}\nworkloads:\n  decode: {batch: [1], context: [2k]}\n"),  # was 3.23 B x 2 / 1.55 = 4.15
])
def test_the_memory_bars_arithmetic_rounds_to_its_result(spec, tmp_path):
    """The bar's operands, as written, give the time it shows to its last digit: the RTX 4090's 1.008 TB/s was
    written 1.01 (4.14 / 1.01 = 4.10, not the 4.11 ms shown), an A100's 1.555 TB/s 1.55.  The operands now carry
    the digits (3 to 6 significant) that make the quotient round to the time."""
    if spec.endswith(".yaml"):
        r = evaluated(spec)
    else:
        path = tmp_path / "fig1.yaml"
        path.write_text(spec)
        r = evaluated(path)
    fig = _drawn(r, None, "fig1-decode-bounds", False)
    bar = next(t.get_text() for t in fig.axes[0].texts if "TB/s" in t.get_text() and "=" in t.get_text())
    m = re.search(r"(?:([\d.,]+) GB of weights|([\d.,]+) B × ([\d.]+) bytes?) / ([\d.]+) TB/s\s*=\s*([\d.]+ ms)", bar)
    assert m, bar
    gbytes, params, b, w, shown = m.groups()
    nbytes = float(gbytes.replace(",", "")) * 1e9 if gbytes else float(params.replace(",", "")) * 1e9 * float(b)
    assert style.ms(nbytes / (float(w) * 1e12)) == shown, bar
    assert shown == style.ms(r.scalars[r.lead]["weight_stream_time"]), bar


def test_a_joined_label_with_no_room_on_one_line_takes_two(tmp_path):
    """Qwen3 30B-A3B on 16 H100 PCIe (tp 4 x pp 2 x dp 2), decode at 2k, 64k and 256k: on the phone roofline the
    joined label of two points "S = 256k, B = 21 / decode S = 64k, B = 85" found no place on one line inside the axes
    and ran off their left edge over the tick label "1".  It breaks after its " / " where one line does not fit."""
    spec = tmp_path / "q30.yaml"
    spec.write_text("kind: report\nname: q30\ntitle: t\nhardware: h100-pcie\nmodel: qwen3-30b-a3b\nprecision: bf16\n"
                    "parallelism: {tp: 4, pp: 2, dp: 2}\n"
                    "workloads:\n  decode: {batch: [1, 32, 512], context: [2k, 64k, 256k]}\n"
                    "  prefill: {prompt: [128, 16k]}\n  training: {micro_batch_tokens: 4k}\n")
    r = evaluated(spec)
    fig = _drawn(r, None, "fig6-roofline", True)
    assert _collisions(fig) == []
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "S = 256k, B = 21 /\ndecode S = 64k, B = 85" in texts, texts
