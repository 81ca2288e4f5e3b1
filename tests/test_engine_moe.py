"""MoE layers as engines run them (issue 27): their kernel count in the serial estimate's fixed costs.

Facts copied here, with their sources:
* vLLM, vllm/model_executor/layers/fused_moe/fused_moe.py (fused_experts_impl) and the MoE block around it: an MoE
  layer's MLP runs the router's GEMM, topk_softmax, moe_align_block_size, the grouped gate/up GEMM, silu_and_mul, the
  grouped down GEMM and moe_sum, 7 kernels where a dense MLP runs 3 (GEMM, activation, GEMM); shared experts run as a
  dense MLP beside them (GEMM, activation, GEMM) and are added in (one add).
* vLLM's Llama decoder layer: 10 kernels besides its collectives (the dense default, generator/load/spec.py).
* DeepSeek-V3 config.json: 61 layers, first_k_dense_replace 3, n_shared_experts 1; Mixtral 8x22B: 56 layers, all MoE,
  no shared expert.
"""

from __future__ import annotations

import pytest
from genreport.load.loader import load_model, load_report
from genreport.load.spec import Kernels
from genreport.model.layout import kernels_per_layer
from shared import ROOT


def _m(name):
    return load_model(ROOT / "specs" / "models" / f"{name}.yaml")


def test_moe_layers_launch_more_kernels_by_hand():
    k = Kernels()
    assert kernels_per_layer(_m("llama-3.1-70b"), k) == 10
    assert kernels_per_layer(_m("mixtral-8x22b"), k) == 10 + 4  # every layer MoE, no shared expert
    # DeepSeek-V3: 3 dense layers at 10, 58 MoE layers at 10 + 4 + 4 (its shared expert)
    assert kernels_per_layer(_m("deepseek-v3"), k) == pytest.approx((3 * 10 + 58 * 18) / 61, rel=1e-12)


def test_a_spec_kernel_count_is_every_layers():
    k = Kernels(per_layer=12.0, moe_per_layer=12.0)
    assert kernels_per_layer(_m("deepseek-v3"), k) == 12.0


def test_the_report_charges_the_moe_kernels(tmp_path):
    spec = load_report(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml")
    assert spec.hardware.kernels.moe_per_layer is None
    given = load_report(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml", ["engine.kernels_per_layer=11"])
    assert given.hardware.kernels.moe_per_layer == 11.0 and given.hardware.kernels.per_layer == 11.0


def test_the_layout_values_carry_the_mean_count():
    from genreport.load.loader import _precision, load_hardware
    from genreport.load.spec import Parallelism
    from genreport.model.env import make_env
    from genreport.model.layout import choose_links, layout_values

    m, hw, prec, par = _m("deepseek-v3"), load_hardware(ROOT / "specs" / "hardware" / "h200.yaml"), \
        _precision("fp8"), Parallelism(8, ep=8)
    env = make_env(hw, m, prec, "seed")
    links, _ = choose_links(hw, par)
    v = layout_values(env.values, m, par, links, prec, "seed", env.pc, kernels=Kernels())
    assert float(v["k_L"]) == pytest.approx(1074 / 61, rel=1e-12)


# ----------------------------------------------------------------------------------------------- redundant experts
#
# DeepSeek-V3 technical report (arXiv 2412.19437, section 3.4.1): for prefill, 32 redundant experts over 32 GPUs (each
# GPU hosts its 8 experts and one redundant one); SGLang's --ep-num-redundant-experts takes the same count and needs
# it spread evenly over the expert-parallel GPUs.  DeepSeek-V3 config.json: hidden 7168, moe_intermediate_size 2048,
# 58 MoE layers of 256 routed experts.

def test_redundant_experts_add_their_bytes_by_hand():
    from genreport.formulas.compiled import load
    from genreport.load.loader import _precision, load_hardware
    from genreport.load.spec import Parallelism
    from genreport.model.env import make_env
    from genreport.model.layout import choose_links, layout_values

    m, hw, prec = _m("deepseek-v3"), load_hardware(ROOT / "specs" / "hardware" / "h200.yaml"), _precision("fp8")
    q, got = load(), {}
    for r in (0, 32):
        par = Parallelism(1, dp=32, ep=32, redundant_experts=r)
        env = make_env(hw, m, prec, "exact", layout=par)
        links, _ = choose_links(hw, par)
        v = layout_values(env.one_card().values, m, par, links, prec, "exact", env.pc)
        assert float(v["rho_x"]) == r / 256
        got[r] = float(q["weight_bytes_per_gpu"](v))
        # the slice the GPU holds (env) and the formula agree, replicas and all
        assert float(env.values["N"]) * float(v["b"]) == pytest.approx(got[r], rel=1e-9)
    one_expert = 3 * 7168 * 2048  # gate, up and down projections, fp8: one byte each
    assert got[32] - got[0] == pytest.approx(58 * one_expert * 1.0, rel=1e-9)  # one more expert a layer: 2.55 GB


def test_the_busiest_gpu_with_replicas_by_hand():
    from genreport.model.env import busiest_experts, busiest_experts_redundant

    # 4 experts on 2 GPUs, 2 touched: both on one GPU with probability 2 C(2,2) / C(4,2) = 1/3, so E[max] = 4/3
    assert busiest_experts(4, 2, 2.0) == pytest.approx(4 / 3, rel=1e-12)
    assert busiest_experts_redundant(4, 2, 0, 2.0) == pytest.approx(4 / 3, rel=1e-12)
    # 2 of them replicated: the 2 others one a GPU, 1 of them touched on average: the busiest holds 1, the mean
    assert busiest_experts_redundant(4, 2, 2, 2.0) == pytest.approx(1.0, rel=1e-12)
    # DeepSeek-V3 over 32 GPUs: the expected maximum falls with the replicas, never below the mean
    for t in (8.0, 64.0, 200.0):
        plain, r32, r64 = (busiest_experts_redundant(256, 32, r, t) for r in (0, 32, 64))
        assert t / 32 <= r64 <= r32 < plain


def test_redundant_experts_must_spread_evenly():
    from genreport.errors import SpecError

    spec = load_report(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml", ["engine.redundant_experts=32"])
    assert spec.parallelism.redundant_experts == 32
    with pytest.raises(SpecError) as exc:
        load_report(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml", ["engine.redundant_experts=30"])
    assert "redundant_experts" in str(exc.value) and "256 experts + 30 redundant = 286" in str(exc.value)
    assert "use 24 or 32 redundant experts (35 or 36 a GPU)" in str(exc.value)


# DeepSeek-V3's 256 routed experts on a 72-GPU NVLink domain: 72 does not divide 256, but 256 + 32 replicas = 288 slots
# do, 4 a GPU (DeepSeek's EPLB, deepseek-ai/EPLB eplb.py, asserts num_physical_experts % num_gpus == 0 with the
# physical experts the logical ones plus the redundant; SGLang places num_experts + ep_num_redundant_experts the same way).
NVL72 = """\
kind: report
name: nvl72
title: DeepSeek-V3 over a GB200 NVL72 domain
hardware: gb200
model: deepseek-v3
precision: {weights: fp4, kv_cache: fp8, compute: fp8}
parallelism: {tp: 1, ep: 72, dp: 72}
workloads:
  decode: {batch: [1, 64], context: [8k]}
"""


def test_the_physical_experts_spread_evenly_not_the_logical_ones():
    """ep 72 with 32 redundant experts loads and holds what ep 64 holds (4 expert slots a GPU); ep 72 alone is refused
    with the replicas that would make it even; a count that leaves the slots uneven names the next that does not."""
    from genreport.errors import SpecError
    from genreport.model.evaluate import evaluate
    from shared import spec_file

    path = spec_file(NVL72, "nvl72")
    with pytest.raises(SpecError) as exc:
        load_report(path)
    assert "ep 72 does not divide the 256 experts" in str(exc.value)
    assert "engine.redundant_experts: 32; 4 a GPU" in str(exc.value)
    even = load_report(path, ["engine.redundant_experts=32"])
    assert (even.parallelism.ep, even.parallelism.redundant_experts) == (72, 32)
    at64 = load_report(path, ["parallelism.ep=64", "parallelism.dp=64"])
    held = [evaluate(s).parallel.scalars["seed"]["weight_bytes_per_gpu"] for s in (even, at64)]
    assert held[0] == pytest.approx(held[1], rel=1e-12)
    with pytest.raises(SpecError) as exc:
        load_report(path, ["engine.redundant_experts=40"])
    assert "use 32 or 104 redundant experts (4 or 5 a GPU)" in str(exc.value)
    # the chapter says how the replicas sit: 32 over 72 GPUs are one or none each, not "0.444 a GPU more"
    import re

    from shared import rendered

    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(evaluate(even), "sections/s7_gpus.html.j2")))
    assert "the 72 GPUs of the expert group hold 32 replica slots more (0.444 a GPU on average: 0 or 1 each)" in words
    eight = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(evaluate(load_report(
        ROOT / "specs" / "deepseek-v3-h200-ep8.yaml", ["engine.redundant_experts=16"])), "sections/s7_gpus.html.j2")))
    assert "each GPU holds 2 replica slots more" in eight


# ----------------------------------------------------------------------------------------------- a short prompt's experts

# Qwen3-235B-A22B (specs/models/qwen3-235b-a22b.yaml, from its config.json): 94 layers, all routed, 128 experts of
# 3 x 4096 x 1536 = 18,874,368 parameters, 8 a token; 235,093,634,560 parameters in all, 22,190,763,520 active; the
# input embedding 151,936 x 4,096 = 622,329,856 (a row lookup, not streamed).  H100 SXM: 3.35 TB/s.
QWEN3_TOTAL, QWEN3_ACTIVE, QWEN3_EMBED = 235_093_634_560, 22_190_763_520, 151_936 * 4_096
QWEN3_EXPERT, QWEN3_ROUTED = 3 * 4_096 * 1_536, 94 * 128 * 3 * 4_096 * 1_536


@pytest.mark.parametrize("prompt, touched", [(16, 128 * (1 - (15 / 16) ** 16)), (2048, 128.0)])
def test_a_short_prompt_reads_the_experts_its_tokens_touch_by_hand(prompt, touched):
    """A prefill of T tokens reads, in each MoE layer, the experts its tokens touch: E (1 - (1 - k/E)^T) under uniform
    routing, as a decode step of T tokens does (16 tokens: 82.42 of Qwen3's 128; a typical prompt all of them).  The
    prefill's HBM bound used to read all 128 whatever the prompt: for 16 tokens on 8 H100 in fp8 that was 1.53x the
    bytes.  The audit's strict bound takes the fewest any routing reads, one token's 8 experts: the active count."""
    from genreport.load.loader import _precision, load_hardware
    from genreport.load.spec import Parallelism
    from genreport.model.plan import layout_bound, point

    m, hw, fp8, par = _m("qwen3-235b-a22b"), load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml"), \
        _precision("fp8"), Parallelism(8, ep=8)
    assert QWEN3_TOTAL - QWEN3_ROUTED + 94 * 8 * QWEN3_EXPERT == QWEN3_ACTIVE  # one token reads the active weights
    kv_per_gpu = 94 * 2 * 128 * 1  # one of the 4 KV heads on each GPU at tp 8, fp8 (1 B), per token
    dense = QWEN3_TOTAL - QWEN3_ROUTED - QWEN3_EMBED

    # what each GPU holds whole beyond one copy (tests/test_tp_copies.py): the K and V projections twice (4 KV heads
    # over 8 GPUs), the norms and router 8 times
    copies = 94 * 2 * 4096 * 4 * 128 + 7 * (94 * 2 * 4096 + 4096 + 94 * 2 * 128 + 94 * 4096 * 128)

    def hbm(experts):  # weights of one GPU (tp = ep = 8: an eighth of everything) + the prompt's cache, over W
        return ((dense + copies + 94 * experts * QWEN3_EXPERT) / 8 + prompt * kv_per_gpu) / 3.35e12

    p = point(m, hw, fp8, par, 1.0, float(prompt), prompt=float(prompt), accounting="exact")
    strict = layout_bound(m, hw, fp8, par, None, float(prompt), float(prompt), accounting="exact")
    if prompt == 16:  # the bytes bind: 5.76 ms, not the 8.78 ms of all 128 experts
        assert p.prefill_bound == pytest.approx(hbm(touched), rel=1e-9)
        assert p.prefill_bound == pytest.approx(5.760e-3, abs=5e-7) and hbm(128) == pytest.approx(8.777e-3, abs=5e-7)
        assert strict.prefill == pytest.approx(hbm(8), rel=1e-9) and strict.prefill_binds == "bandwidth"
    else:  # every expert, as before
        assert p.prefill_bound >= hbm(128) * (1 - 1e-12)
    assert strict.prefill <= p.prefill_bound


@pytest.mark.parametrize("model, hw, prec, tp, ep, dp", [
    ("qwen3-235b-a22b", "h100-sxm", "fp8", 8, 8, 1), ("deepseek-v3", "h200", "fp8", 1, 8, 8),
    ("gpt-oss-120b", "h100-sxm", "bf16", 2, 2, 1), ("mixtral-8x22b", "mi300x", "fp8", 4, 1, 1),
    ("llama-4-maverick", "b200", "fp8", 8, 8, 1)])
def test_a_prompts_bound_grows_with_its_tokens_and_starts_at_one_tokens_read(model, hw, prec, tp, ep, dp):
    """A longer prompt touches at least the experts a shorter one does and does more FLOPs: its prefill bound never
    falls with T.  A prompt of one token reads what a decode step of batch 1 reads (the same experts: the one
    token's; with an expert group wider than the replica, DeepSeek-V3's tp 1 x ep 8, when every replica of the group
    runs one, m_P = 8, as every replica steps in a decode round), so its HBM ledger is that step's weights and one
    token's cache; a prompt alone (its TTFT) reads its own token's experts, no more."""
    from genreport.formulas.compiled import load
    from genreport.load.loader import _precision, load_hardware
    from genreport.load.spec import Parallelism
    from genreport.model.layout import at_batch, at_prompt
    from genreport.model.plan import _at_layout, make_env, point

    m, h, p, par = _m(model), load_hardware(ROOT / "specs" / "hardware" / f"{hw}.yaml"), _precision(prec), \
        Parallelism(tp, ep=ep, dp=dp)
    times = [point(m, h, p, par, 1.0, float(t), prompt=float(t)).prefill_bound for t in (1, 2, 4, 16, 64, 256, 4096)]
    assert all(a <= b * (1 + 1e-12) for a, b in zip(times, times[1:], strict=False)), times
    q, env = load(), make_env(h, m, p, "exact")
    base, _, _ = _at_layout(env, m, h, p, par, 1.0, "exact")
    lay = env.with_layout(par)
    one, step = at_prompt(base, lay, 1.0, steady=True), at_batch(base, lay, 1.0, busiest=False)
    assert (one["N"], one["N_x"], one["b"]) == (float(step["N"]), float(step["N_x"]), float(step["b"]))
    alone = at_prompt(base, lay, 1.0)
    assert alone["N"] < one["N"] if ep > tp else (alone["N"], alone["N_x"]) == (one["N"], one["N_x"])
    assert float(q["prefill_time_memory_gpu"](one)) < float(q["prefill_time_memory_gpu"](at_prompt(base, lay, 4096.0)))


def test_a_prompt_alone_reads_its_own_tokens_experts_and_a_busy_group_all_of_theirs():
    """DeepSeek-V3 fp8 on 8 H200, tp 1 x dp 8 x ep 8, a 16-token prompt (exact accounting): alone (its TTFT) its
    tokens touch 256 (1 - (1 - 8/256)^16) = 101.96 experts a layer; with every replica of the group prefilling one
    (m_P = 8, what prices it) the group's GPUs serve 128 tokens, 256 (1 - (1 - 8/256)^128) = 251.60.  The routed
    parameters read scale with the experts touched (58 MoE layers of 44,040,192 parameters an expert: 3 x 7,168 x
    2,048, deepseek-ai/DeepSeek-V3 config.json)."""
    from genreport.load.loader import _precision, load_hardware
    from genreport.load.spec import Parallelism
    from genreport.model.layout import at_prompt
    from genreport.model.plan import _at_layout, make_env

    m, h, p = _m("deepseek-v3"), load_hardware(ROOT / "specs" / "hardware" / "h200.yaml"), _precision("fp8")
    par = Parallelism(1, ep=8, dp=8)
    env = make_env(h, m, p, "exact")
    base, _, _ = _at_layout(env, m, h, p, par, 1.0, "exact")
    lay = env.with_layout(par)
    alone, busy = at_prompt(base, lay, 16.0), at_prompt(base, lay, 16.0, steady=True)
    touched = [256 * (1 - (1 - 8 / 256) ** t) for t in (16, 128)]
    assert touched == pytest.approx([101.96, 251.60], abs=0.005)
    assert (float(alone["m_P"]), float(busy["m_P"])) == (1.0, 8.0)
    assert float(alone["N_x"]) == pytest.approx(58 * touched[0] * 3 * 7168 * 2048, rel=1e-9)
    assert float(busy["N_x"]) == pytest.approx(58 * touched[1] * 3 * 7168 * 2048, rel=1e-9)
