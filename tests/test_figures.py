"""The six report figures: valid SVG, the same bytes every time, and drawable for awkward model/GPU pairs.

Awkward pairs: a card too small for the weights (no batch fits, no KV capacity), a spec with decode only and one
context, a mixture-of-experts model, and a what-if drawn over its baseline.  Numbers in the captions are the
seed 003 values (Llama 3.1 8B, bf16, H100 SXM): 4.79 ms, 0.0162 ms, ratio 295, ceilings 124 and 19, batch 425
crossing the ridge at 128, capacity batch 65 at 8k with intensity 15.4 (seed-claims s003-decode-tmem-h100,
s003-decode-tcomp-h100, s003-ridge-h100, s003-decode-ceiling-1k/-8k, s003-batch-to-cross-at-128,
s003-batch-cap-8k, s003-intensity-at-cap-8k).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from genreport.load.loader import load_report
from genreport.load.spec import MoE, short_link
from genreport.model.evaluate import evaluate
from genreport.present import figures
from shared import ROOT, evaluated

SPEC = ROOT / "specs" / "llama8b-h100.yaml"
NAMES = ["fig1-decode-bounds", "fig2-three-modes", "fig3-intensity-ruler", "fig4-decode-intensity",
         "fig5-memory-ledger", "fig6-roofline", "fig7-serving", "fig8-gpus", "fig9-gpu-rates"]


@pytest.fixture(scope="module")
def spec():
    return load_report(SPEC)


@pytest.fixture(scope="module")
def results(spec):
    return evaluate(spec)


@pytest.fixture(scope="module")
def drawn(results):
    return figures.draw_all(results)


def _check_svg(data: bytes) -> ET.Element:
    assert data.startswith(b"<?xml"), data[:40]
    root = ET.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(data) > 2_500, len(data)  # a real drawing, not an empty canvas
    assert data.count(b"<path") + data.count(b"<use") >= 4 and b"<text" in data, "no marks or no labels"
    assert b"<dc:date>" not in data  # no timestamp
    return root


def test_names_in_report_order(drawn):
    assert list(drawn) == NAMES
    assert [name for name, _ in figures.FIGURES] == NAMES


def test_each_figure_is_valid_svg_of_the_stated_size(drawn):
    for name, data in drawn.items():
        root = _check_svg(data)
        assert root.get("width") == "460.8pt" and root.get("height") == "259.2pt", name  # 6.4 x 3.6 in


def test_two_draws_same_bytes(results, drawn):
    again = figures.draw_all(results)
    for name in NAMES:
        assert again[name] == drawn[name], name


def test_same_bytes_in_another_process(drawn):
    """svg.hashsalt fixes the clip-path ids that would otherwise be random per process."""
    code = ("import hashlib, sys; from genreport.load.loader import load_report; from genreport.model.evaluate import evaluate;"
            "from genreport.present.figures import draw_all;"
            f"out = draw_all(evaluate(load_report({str(SPEC)!r})));"
            "print(' '.join(hashlib.sha256(v).hexdigest() for v in out.values()))")
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert run.stdout.split() == [hashlib.sha256(v).hexdigest() for v in drawn.values()]


def test_draw_leaves_global_rcparams_alone(results):
    import matplotlib

    before = dict(matplotlib.rcParams)
    figures.draw("fig6-roofline", results)
    assert dict(matplotlib.rcParams) == before


def test_single_draw_matches_draw_all(results, drawn):
    assert figures.draw("fig4-decode-intensity", results) == drawn["fig4-decode-intensity"]


def test_captions_state_seed_003_numbers(results):
    caps = figures.captions(results)
    assert list(caps) == NAMES
    assert "4.79 ms" in caps["fig1-decode-bounds"] and "0.0162 ms" in caps["fig1-decode-bounds"]
    assert "about 295 such tokens" in caps["fig1-decode-bounds"]
    assert "124 at 1k" in caps["fig4-decode-intensity"] and "19 at 8k" in caps["fig4-decode-intensity"]
    assert "batch 425 for 128" in caps["fig4-decode-intensity"]
    assert "8k at batch 65, intensity 15.4" in caps["fig4-decode-intensity"]
    assert "(4, 4)" in caps["fig4-decode-intensity"]  # I(G) = G for every context, G = 4
    assert "119.7 GiB" in caps["fig5-memory-ledger"] and "134.6 GiB" in caps["fig5-memory-ledger"]
    assert "65.04 GiB of KV cache" in caps["fig5-memory-ledger"]
    assert "1,024" in caps["fig3-intensity-ruler"] and "1,638" in caps["fig3-intensity-ruler"]


def test_decode_curves_pass_through_g(results):
    """All curves of figure 4 meet at (G, G) for a GQA model (seed 003: (4, 4) for Llama 3.1 8B)."""
    g = results.envs[results.lead].values["G"]
    batch, curves = figures._decode_curves(results)  # the model's samples of figure 4
    assert batch[0] == 1 and batch[-1] >= 8 * g
    for j in range(curves.shape[1]):  # log-log interpolation of 200 samples a decade-spread: within 1 %
        y = np.exp(np.interp(np.log(g), np.log(batch), np.log(curves[:, j])))
        assert y == pytest.approx(g, rel=1e-2)


@pytest.mark.parametrize("x,text", [(295.34, "295"), (1638.4, "1,638"), (15.41, "15.4"), (4.794, "4.79"),
                                    (0.016232, "0.0162"), (0.9995, "1")])
def test_number_format(x, text):
    assert figures.num(x) == text


def test_tick_labels_are_plain_text():
    assert [figures.tick(v) for v in (0.1, 1.0, 10.0, 1000.0, 1e4, 1e6)] == ["0.1", "1", "10", "1,000", "10,000",
                                                                              "1e6"]


def _draw_and_caption(r, baseline=None):
    out = figures.draw_all(r, baseline)
    # the figures the report shows (figures.hidden: the memory ledger only with a training workload, the GPUs'
    # comparison only beside other GPUs)
    assert list(out) == [n for n in NAMES if n not in figures.hidden(r)] == figures.drawn(r)
    for data in out.values():
        _check_svg(data)
    return out, figures.captions(r, baseline)


def test_model_too_big_for_the_card():
    r = evaluated(SPEC, ["hardware.memory.capacity=8 GiB"])
    assert r.scalars[r.lead]["kv_capacity_tokens"] is None  # no physical value: never a negative count
    assert r.entry("kv_capacity_tokens").reason.startswith("the weights alone exceed")
    assert not r.per_context[r.lead]["capacity_batch"].any()
    _out, caps = _draw_and_caption(r)
    assert "no batch fits" in caps["fig4-decode-intensity"]
    assert "overflow the card" in caps["fig5-memory-ledger"]
    # not even batch 1 fits: the caption must not say "no decode batch larger than 1 fits" (a review, DeepSeek-V3 on
    # 8 H100: 91.6 GiB of weights a GPU against 66.39 GiB)
    assert "larger than 1" not in caps["fig6-roofline"]
    assert "No decode batch fits: the weights alone exceed the memory" in caps["fig6-roofline"]


def test_roofline_caption_when_only_some_contexts_hold_one_sequence():
    # 8B on 20 GiB: the weights fit, one 8k sequence fits, no 128k one does (and no second sequence anywhere)
    r = evaluated(SPEC, ["hardware.memory.capacity=16.3 GiB", "workloads.decode.context=[8k,128k]"])
    caps_b = [float(x) for x in r.per_context[r.lead]["capacity_batch"]]
    assert caps_b[0] == 1 and not caps_b[1] >= 1, caps_b
    cap = figures.captions(r)["fig6-roofline"]
    assert "No decode batch larger than 1 fits beside the weights, and at S = 128k not even one sequence does." in cap
    r = evaluated(SPEC, ["hardware.memory.capacity=15.2 GiB", "workloads.decode.context=[8k,128k]"])
    assert not (r.per_context[r.lead]["capacity_batch"] >= 1).any()
    assert r.verdicts.get("weights_fit", True)
    cap = figures.captions(r)["fig6-roofline"]
    assert "No decode batch fits beside the weights, not even one sequence" in cap and "larger than 1" not in cap
    # a context that holds a batch beside one that holds not one sequence: the caption names both (it named only the
    # first; review, stop 78). 8B on 24 GiB: at 8k a batch of several, at 128k (16 GiB of cache) none
    r = evaluated(SPEC, ["hardware.memory.capacity=24 GiB", "workloads.decode.context=[8k,128k]"])
    caps_b = [float(x) for x in r.per_context[r.lead]["capacity_batch"]]
    assert caps_b[0] >= 2 and not caps_b[1] >= 1, caps_b
    cap = figures.captions(r)["fig6-roofline"]
    assert "At the largest batch that fits, decode reaches" in cap
    assert "At S = 128k not even one sequence fits beside the weights." in cap


def test_decode_only_one_context(spec):
    w = dataclasses.replace(spec.workloads, prefill_prompt=(), training_tokens=None, recipes=(),
                            decode_context=(32768,))
    r = evaluate(dataclasses.replace(spec, workloads=w, compare_hardware=()))
    assert not r.training and not r.prefill
    assert figures._crossovers(r) == [None]  # 32k never crosses the ridge
    _out, caps = _draw_and_caption(r)
    assert "prefill" not in caps["fig2-three-modes"] and "training" not in caps["fig2-three-modes"]
    assert "one way" in caps["fig2-three-modes"]
    assert "Training" not in caps["fig5-memory-ledger"]


def test_mixture_of_experts_that_does_not_fit(spec):
    model = dataclasses.replace(spec.model, moe=MoE(experts=8, active_experts=2, expert_ffn_size=14336),
                                declared_parameters=None)
    w = dataclasses.replace(spec.workloads, measured=())  # the 8B's measurement does not describe this model
    r = evaluate(dataclasses.replace(spec, model=model, workloads=w))
    assert r.scalars[r.lead]["weight_bytes"] > r.scalars[r.lead]["capacity"]
    _out, caps = _draw_and_caption(r)
    assert "(B, I) = (" not in caps["fig4-decode-intensity"]  # the (G, G) point is a dense-model statement


def test_what_if_over_baseline(results, drawn):
    r = evaluated(SPEC, ["hardware.memory.bandwidth=4.8 TB/s"])
    out, caps = _draw_and_caption(r, results)
    for name in ("fig4-decode-intensity", "fig5-memory-ledger", "fig6-roofline"):
        assert out[name] != drawn[name]
        assert b"#7f7f7f" in out[name] and b"#7f7f7f" not in drawn[name], name  # the faded grey baseline
    assert "ridge (dotted) is at 206" in caps["fig6-roofline"]


def test_figure9_caption_does_not_say_less_per_gpu_where_the_bound_scales(tmp_path):
    """Phi-3 mini on RTX 4090 over PCIe: the bound overlaps the all-reduces, so at batch 1 every tensor-parallel
    degree gives 125 tok/s per GPU; the caption said "each GPU added buys less" beside "32 GPUs give 4,010 tok/s,
    125 per GPU".  Llama 3.1 70B on H100 (23.7 per GPU on 2, 23.3 on 64) still buys less."""
    from genreport.present.figures.fig9_gpu_rates import caption9
    from shared import evaluated

    spec = tmp_path / "phi.yaml"
    spec.write_text("kind: report\nname: phi\ntitle: t\nhardware: rtx-4090\nmodel: phi-3-mini\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1, 8], context: [1k]}\n")
    r = evaluated(spec)
    rows = [x for x in r.many.scaling_batch1 if x["fits"]]
    first, last = rows[0], rows[-1]
    assert last["tokens_per_s_gpu"] >= 0.995 * first["tokens_per_s_gpu"]
    text = caption9(r)
    assert "buys less" not in text and "as many as on 1 GPU" in text
    assert "buys less" in caption9(evaluated("llama70b-h100-tp8.yaml"))


def test_figure8_caption_says_one_gpu_does_not_hold_the_weights():
    """Llama 3.1 70B in bf16 (141 GB) on H100 (80 GB): figure 7's caption said "7.7x faster than one GPU" of a card
    that cannot hold the model (chapter 1: "would not fit"); the ratio is now said to be to what it would take."""
    from genreport.present.figures.fig8_gpus import caption8
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml")
    (one,) = [x for x in r.many.scaling_batch1 if x["gpus"] == 1]
    assert not one["fits"]
    assert "than one GPU would be if it held the weights, which it does not" in caption8(r)


def test_figure8_caption_names_the_scale_out_network_the_widest_degrees_cross(tmp_path):
    """Llama 3.1 70B on H100 SXM: the tensor-parallel sweep runs to 64 GPUs (64 query heads), past the 8 GPUs one HGX
    H100 node's NVSwitch joins (specs/hardware/h100-sxm.yaml, node.gpus_per_node), so the all-reduces of 16, 32 and 64
    GPUs are costed over the node's InfiniBand NICs too (layout.choose_links: tier "scale-out"). The caption named only
    the NVLink for all of them."""
    from genreport.present.figures.fig8_gpus import caption8

    r = evaluated("llama70b-h100-tp8.yaml")
    out = [x["gpus"] for x in r.many.scaling_batch1 if x["link"] == "scale-out"]
    assert out == [16, 32, 64]
    text = caption8(r)
    assert short_link(r.spec.hardware.node.scale_out.name) in text  # running text names a link short (fix15)
    assert "the all-reduces of 16, 32 and 64 GPUs also cross" in text
    assert "within a domain of 8 GPUs" in text
    # Llama 2 13B's 40 heads split over 1, 2, 4 and 8 GPUs only (meta-llama/Llama-2-13b-hf config.json: 40 attention
    # heads): a sweep that stays in one node names its NVLink alone
    spec = tmp_path / "l13.yaml"
    spec.write_text("kind: report\nname: l13\ntitle: t\nhardware: a100-sxm-40gb\nmodel: llama-2-13b\n"
                    "precision: bf16\nworkloads:\n  decode: {batch: [1, 8], context: [1k]}\n")
    one = evaluated(spec)
    assert [x["gpus"] for x in one.many.scaling_batch1] == [1, 2, 4, 8]
    assert "between domains" not in caption8(one) and one.many.link in caption8(one)


def test_the_serving_views_capacity_point_is_at_the_capacity_batch():
    """Mistral 7B in bf16 on one A100 SXM 40GB (7,241,732,096 parameters, 128 KiB of KV a token: mistralai/Mistral-7B-v0.1
    config.json; 1.555 TB/s: NVIDIA A100 datasheet) at context 1,024 holds 173 sequences; figure 6's caption once
    gave "7,044 tok/s (batch 173)", the curve's nearest sample below it (batch 167.4). At batch 173 the step streams the
    weights and 173 caches of 1,024 tokens: 173 / ((N b + B S c) / W), bandwidth-bound (the step's FLOPs take 8 ms)."""
    from genreport.present.figures.fig7_serving import caption7

    r = evaluated("llama8b-a100.yaml", ["model=mistral-7b", "hardware=a100-sxm-40gb"])
    v = r.envs[r.lead].values
    j = list(r.spec.workloads.decode_context).index(1024)
    cap = float(r.per_context[r.lead]["capacity_batch"][j])
    assert cap == 173
    step = (float(v["N"]) * 2 + cap * 1024 * 131072) / float(v["W"])
    assert r.curves["serving_tokens_per_s_at_capacity"][j] == pytest.approx(cap / step, rel=1e-9)
    assert f"{cap / step:,.0f} tok/s at S = 1k (batch 173)" in caption7(r)


def test_the_serving_view_and_page_1s_lever_stop_at_the_engines_max_sequences_or_the_compute_roof():
    """Llama 3.1 8B on one A100 80GB at context 128 holds thousands of sequences, but the engine runs 256 at once
    (vLLM's max_num_seqs default, the spec's engine block silent: https://docs.vllm.ai/en/latest/api/vllm/config/
    scheduler.html): figure 6's caption and page 1's batching lever named the batch that fits (serving.engine_limit
    caps every other batch a replica runs)."""
    from genreport.present.figures.fig7_serving import caption7

    r = evaluated("llama8b-a100.yaml")
    assert r.spec.hardware.max_sequences == 256
    j = list(r.spec.workloads.decode_context).index(128)
    cap = int(r.per_context[r.lead]["capacity_batch"][j])
    assert cap > 256
    tps = float(np.asarray(r.q["decode_tokens_per_s"](r.envs[r.lead].at(batch=256.0, context=128.0))))
    assert r.curves["serving_engine_batch"][j] == 256
    assert r.curves["serving_tokens_per_s_at_engine"][j] == pytest.approx(tps, rel=1e-12)
    assert f"{tps:,.0f} tok/s at S = 128 (batch 256, the engine's max_sequences; {cap:,} fit)" in caption7(r)
    row = next(x for x in r.decision if x["workload"] == "decode" and x["batch"] == 1 and x["context"] == 128)
    # the step turns compute-bound before the engine's 256 (decision.compute_bound_batch): page 1's lever names the
    # first batch where it does, whose tok/s the 256 only match, each token waiting longer
    def binds(n):
        e = r.envs[r.lead].at(batch=float(n), context=128.0)
        return float(r.q["decode_time_compute"](e)) >= float(r.q["decode_time_memory"](e))

    first = next(n for n in range(2, 257) if binds(n))
    assert 1 < first < 256 and not binds(first - 1)
    assert row["lever"]["change"] == f"batch {first} (compute-bound from there; the 256 that could run give no more tok/s)"
    at_first = float(np.asarray(r.q["decode_tokens_per_s"](r.envs[r.lead].at(batch=float(first), context=128.0))))
    assert at_first == pytest.approx(tps, rel=1e-12)  # the compute roof's rate: P over the FLOPs of a token
    assert row["lever"]["gain"] == pytest.approx(at_first / row["tokens_per_s"], rel=1e-12)


@pytest.mark.parametrize("spec, over", [("mixtral8x22b-h100-tp8-ep8.yaml", ()),
                                        ("llama8b-h100.yaml", ("hardware.memory.bandwidth=20.338 TB/s",))])
def test_figure_1_states_times_as_the_formulas_do(spec, over):
    """Figure 1's times in the formulas' three-significant-digit format (fmt.time): Mixtral 8x22B's batch-1 compute
    bound per GPU is 9.88 us (the caption said "0.00988 ms"), and a bound of 0.790 ms was "0.79 ms" (Llama 3.1 8B's
    16.06 GB of bf16 weights at a bandwidth that streams them in 0.790 ms)."""
    from genreport.present.figures.fig1_decode_bounds import caption1
    from genreport.present.fmt import time

    r = evaluated(spec, over)
    sc = r.scalars[r.lead]
    text = caption1(r)
    for t in (sc["weight_stream_time"], sc["weight_flops_time"]):
        assert f"= {time(t)}" in text, (time(t), text)
    if over:
        assert time(sc["weight_stream_time"]) == "0.790 ms"


def test_figure_6s_training_point_sits_under_the_bf16_roof():
    """Llama 3.1 8B in fp8 on an H100 SXM (1,979 TFLOP/s dense fp8, 989.4 bf16: NVIDIA H100 datasheet) with a
    training micro-batch: training runs its GEMMs at the bf16 peak (recipes.TRAINING_COMPUTE, mixed precision), but
    figure 6 put its point on the fp8 roof. It sits on the bf16 roof, drawn for it; the live figure's input the same."""
    from genreport.present.figures.fig6_roofline import fig6_roofline
    from genreport.present.figures.live_data import roofline_data

    r = evaluated("llama8b-h100.yaml", ["precision=fp8", "workloads.training.micro_batch_tokens=8k"])
    hw = r.spec.hardware
    assert r.verdicts["training_compute"] == "bf16" and hw.dense["fp8"] == pytest.approx(2 * hw.dense["bf16"], rel=1e-3)
    i = float(r.verdicts["training_intensity"])
    want = min(hw.dense["bf16"], hw.bandwidth * i)
    fig = fig6_roofline(r)
    ax = fig.axes[0]
    (tri,) = [ln for ln in ax.lines if ln.get_marker() == "^"]
    assert float(tri.get_ydata()[0]) == pytest.approx(want, rel=1e-12)
    assert want < hw.dense["fp8"]  # the fp8 roof would put it higher
    assert any(ln.get_label().startswith("training (bf16), ridge") for ln in ax.lines)
    (point,) = [p for p in roofline_data(r)["points"] if p["kind"] == "training"]
    assert point["peak"] == hw.dense["bf16"] and point["compute"] == "bf16"


def test_the_decode_intensity_curves_common_point_is_where_2b_over_b_meets_i_kv():
    """Llama 3.1 8B (32 query, 8 KV heads: meta-llama/Llama-3.1-8B config.json) in fp8 weights and KV: the weights'
    intensity 2B/b equals the attention intensity 2G/b_kv = 8 at B = 4, so every context's curve passes through (4, 8);
    figure 5's caption said (G, G) = (4, 4), true only at b = b_kv = 2. With pipeline stages the rounds stream the
    slice min(n_PP, B) times and the curves share no point: the caption said (16, 16) of Llama 3.1 405B on tp 8 x
    pp 4, where the curves pass 4.03 to 4.92."""
    from genreport.present.figures.fig4_decode_intensity import caption4

    r = evaluated("llama8b-h100.yaml", ["precision=fp8"])
    env = r.envs[r.lead]
    for s in r.spec.workloads.decode_context:
        assert float(r.q["decode_intensity"](env.at(batch=4.0, context=float(s)))) == pytest.approx(8, rel=1e-12)
    assert "Every curve passes through (B, I) = (4, 8), where" in caption4(r)
    assert "Every curve passes through (B, I) = (4, 4), G = H_q/H_kv." in caption4(evaluated("llama8b-h100.yaml"))
    pp = evaluated("llama8b-h100.yaml", ["model=llama-3.1-70b", "parallelism.tp=2", "parallelism.pp=2"])
    assert "Every curve passes through" not in caption4(pp)


def test_the_three_modes_training_row_holds_the_recipes_bf16_weights():
    """Qwen3 30B-A3B served in int4 on 2 L4 (tp 2) with a training workload: figure 3 drew training's weight block as
    "int4 weights 7.86 GB", the served slice, beside chapter 3's table and figure 4 ("bf16 weights": a step trains
    the recipes' bf16 copy, seed 003 section 4). Its block is bf16, N_g 2 B: the slice's 15.25B parameters in 30.5 GB (Qwen/Qwen3-30B-A3B model card: 30.5B)."""
    from genreport.present.figures.fig2_three_modes import caption2

    r = evaluated("llama8b-h100.yaml", ["model=qwen3-30b-a3b", "hardware=l4", "parallelism.tp=2",
                                        "precision.weights=int4"])
    svg = figures.draw("fig2-three-modes", r, None, False).decode()
    n_g = float(r.scalars[r.lead]["weight_bytes"]) / float(r.envs[r.lead].values["b"])
    assert n_g == pytest.approx(30.5e9 / 2, rel=0.01)
    served = float(r.scalars[r.lead]["weight_bytes"]) / 1e9
    assert svg.count(f"{served:.3g} GB") == 2 and svg.count(f"{n_g * 2 / 1e9:.3g} GB") == 1  # decode, prefill; training
    text = caption2(r)
    assert f"training streams the recipes' bf16 copy of them ({n_g * 2 / 1e9:.3g} GB)" in text, text
    assert "identical in every row" not in text
    assert "identical in every row" in caption2(evaluated("llama8b-h100.yaml"))


def test_the_serving_views_caption_names_hollow_circles_only_where_drawn():
    """Figure 7 (the serving view) circles the batch that crosses the ridge, B*, where one does within its batches:
    Llama 3.1 8B on H100 at context 128 crosses at batch 425 (the claim above); at 32k the ceiling, 19 at 8k already,
    is below the ridge 295 and no batch crosses.  The caption described hollow circles on every report (DeepSeek-V3
    fp8 on 16 B200, Gemma 2 9B on an L4: none drawn); it now names them only where the figure draws one."""
    from genreport.present.figures.fig7_serving import caption7, fig7_serving

    for context, drawn in (("128", True), ("32k", False)):
        r = evaluated("llama8b-h100.yaml", (f"workloads.decode.context={context}",))
        fig = fig7_serving(r)
        circles = [ln for ln in fig.axes[0].get_lines() if ln.get_label() == "crosses the ridge (B*)"]
        assert bool(circles) == drawn
        assert ("Hollow circles: the batch that crosses the ridge" in caption7(r)) == drawn


@pytest.mark.parametrize("spec, drawn", [("llama8b-h100.yaml", ("circle decode", "square prefill", "triangle training")),
                                         ("llama70b-h100-tp8.yaml", ("circle decode", "square prefill"))])
def test_the_marker_keys_name_only_the_markers_drawn(spec, drawn):
    """Figures 3 and 6 list the marker shapes of the workloads the spec has: a spec without training drew no triangle,
    and its captions once said 'triangle training' all the same."""
    from genreport.present.figures import captions

    r = evaluated(spec)
    for name in ("fig3-intensity-ruler", "fig6-roofline"):
        text = captions(r)[name]
        key = text[text.index("Markers: "):]
        for shape in ("circle decode", "square prefill", "triangle training"):
            assert (shape in key) == (shape in drawn), (name, key)


def test_the_memory_ledgers_axis_writes_thousands_as_its_bars_do():
    """Figure 7 (the memory ledger) of a model with a training step of thousands of GiB labelled its bars "17,434 GiB"
    beside axis ticks "17500" (Kimi K2's 1.04T parameters; here DeepSeek-V3's 671B: 10,000 GiB in the bf16-grads
    recipe): the ticks carry the same separators."""
    import matplotlib
    from genreport.present import figures
    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml", ["workloads.training.micro_batch_tokens=4k"])
    with matplotlib.rc_context(figures.RC):
        fig = figures.DRAWERS["fig5-memory-ledger"](r, None)
    fig.canvas.draw()
    ticks = [t.get_text() for ax in fig.axes for t in ax.get_yticklabels() if t.get_text()]
    big = [t for t in ticks if float(t.replace(",", "")) >= 1000]
    assert big and all("," in t for t in big), ticks
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_a_report_folder_holds_the_figures_its_report_shows():
    """Every figure file of a committed report's folder is one its HTML shows, and every figure the HTML shows is
    there (a review, stop 91: fig5-memory-ledger.svg, hidden without a training workload, was written beside five
    reports); the figures drawn are figures.figure_list, less figures.hidden."""
    from genreport.present.figures import DRAWERS
    from shared import ROOT

    for folder in sorted((ROOT / "out").glob("*/report.html")):
        html = folder.read_text(encoding="utf-8")
        shown = {name for name in DRAWERS if name in html}  # each shown figure is embedded under its name
        files = {p.stem for p in (folder.parent / "figures").glob("*.svg")}
        assert files == shown, (folder.parent.name, files ^ shown)
    assert not (ROOT / "out" / "llama70b-h100-tp8" / "figures" / "fig5-memory-ledger.svg").exists()


def test_the_intensity_caption_says_how_little_room_is_left():
    """Llama 3.1 70B at tp 2 with a 13.1 GiB reserve: 0.12 GiB per GPU is left beside the weights, 778 tokens, but
    not one 1k sequence; the caption said the weights "leave no room for a KV cache" (a review)."""
    from genreport.present.figures.fig4_decode_intensity import caption4
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ("parallelism.tp=2", "engine.memory_reserve=13.1 GiB"))
    text = caption4(r)
    assert "leave no room" not in text and "leave 0.1188 GiB of 65.87 GiB, too little for one sequence of" in text, text
