"""Many GPUs: hand counts for the collectives and the per-GPU memory, fits, scaling and the closed forms.

Facts used (copied here with their sources):

* Llama 3.1 70B: 80 layers, hidden size 8192, 64 query heads, 8 KV heads, head dim 128, 70.6e9 parameters
  (Meta, Llama 3.1 model card and config.json).
* H100 SXM: 80 GiB, 3.35 TB/s HBM3, 989.4 TFLOP/s dense bf16 (NVIDIA H100 datasheet); NVLink 4 "900 GB/s" is
  both directions summed, 450 GB/s each way (NVIDIA H100 datasheet, NVLink row); one ring step over NVLink
  costs 0.6 us with NCCL's LL protocol (NCCL 2.30.7 src/graph/tuning.cc, default hwLatencies).
* Ring all-reduce 2 (n-1)/n Z/W + 2 (n-1) alpha (NCCL tests doc/PERFORMANCE.md; Thakur et al. 2005).
* Two all-reduces per transformer layer under tensor parallelism (Shoeybi et al. 2019, Megatron-LM, section 3).
* ZeRO per-GPU state: 2 + 2 + 12/N_d (stage 1), 2 + 14/N_d (stage 2), 16/N_d (stage 3) bytes per parameter
  (Rajbhandari et al. SC'20, figure 1).
"""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from genreport.commands.cli import main
from genreport.load.loader import load_hardware, load_model, load_report
from genreport.load.spec import Link, Node, Parallelism
from genreport.model.evaluate import evaluate
from genreport.model.plan import plan
from shared import ROOT

# NVLink 4 on HGX H100, per direction, and NCCL's LL step latency (see the module docstring).
NVLINK4 = Link(name="NVLink 4", bandwidth_per_direction=450e9, per_direction_from="spec", bandwidth=900e9,
               latency=0.6e-6, domain=8)
IB_NDR = Link(name="NDR InfiniBand", bandwidth_per_direction=50e9, per_direction_from="spec", latency=2.7e-6)

SPEC = """\
kind: report
name: par
title: Parallel test
hardware: {hw}
model: {model}
precision: {precision}
engine: {{memory_reserve: 0, max_batched_tokens: 0, max_sequences: 0}}
parallelism: {{tp: {tp}, pp: {pp}, ep: {ep}, dp: {dp}}}
workloads:
  decode: {{batch: [1, 8, 64], context: [128, 1k, 8k]}}
  prefill: {{prompt: [2k]}}
  training: {{micro_batch_tokens: 4k}}
"""


def spec_for(tmp_path, model="llama-3.1-70b", precision="bf16", tp=1, pp=1, ep=1, dp=1, link=None, hw="h100-sxm"):
    """The spec on the catalog's H100 SXM, or with ``link`` (and a DGX-like node) in place of its interconnect."""
    path = tmp_path / f"{model}-{hw}-{tp}-{pp}-{ep}-{dp}.yaml"
    path.write_text(SPEC.format(model=model, hw=hw, precision=precision, tp=tp, pp=pp, ep=ep, dp=dp),
                    encoding="utf-8")
    spec = load_report(path)
    if link is None:
        return spec
    hw = replace(spec.hardware, link=link, node=Node(gpus_per_node=8, scale_out=IB_NDR))
    return replace(spec, hardware=hw)


def test_catalog_h100_link_is_the_hand_count_one():
    hw = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
    assert hw.link.bandwidth_per_direction == NVLINK4.bandwidth_per_direction
    assert hw.link.latency == pytest.approx(NVLINK4.latency, rel=1e-12)
    assert hw.node.scale_out.bandwidth_per_direction == IB_NDR.bandwidth_per_direction


def entry(r, qid, **params):
    hits = [e.value for e in r.entries if e.id == qid and e.params == params]
    assert len(hits) == 1, (qid, params, hits)
    return hits[0]


# ----------------------------------------------------------------------------------------------- hand counts

def test_llama70b_tp8_batch1_all_reduce_hand_count(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8))
    per_all_reduce = 1 * 8192 * 2  # B d b_a = 16 KiB
    assert per_all_reduce == 16 * 1024
    count = 2 * 80  # two per layer
    # what one GPU sends as the bound counts it: each byte once into the switch, which reduces (NVLink SHARP), not the
    # ring's 2 (n-1)/n of them (4,587,520 B), as decode_time_comm charges the link below
    sent = count * per_all_reduce
    assert entry(r, "interconnect_bytes_decode", batch=1, context=1024) == pytest.approx(sent, rel=1e-12)
    assert sent == 2_621_440
    # the bound: the fewest bytes (NVLink SHARP reduces in the switch: each GPU sends its 16 KiB once) and one step
    one = per_all_reduce / 450e9 + 0.6e-6  # 36.4 ns of bytes + 0.6 us of latency
    assert one == pytest.approx(0.6364e-6, rel=1e-4)
    assert entry(r, "decode_time_comm", batch=1, context=1024) == pytest.approx(count * one, rel=1e-12)
    assert count * one == pytest.approx(101.8e-6, rel=1e-3)
    # the estimate: NCCL's ring with its LL protocol, 6.6 us per call (h100-sxm.yaml, collectives), 14 steps of 0.6 us,
    # at half the 370 GB/s it reaches, at most NCCL's 141 GB/s on Hopper; LL128 (14 us + 14 x 1.9 us), Simple (8.4 us +
    # 14 x 3.4 us) and NVLS (25 us a call) cost more at 16 KiB
    ring = 6.6e-6 + 2 * 7 * 0.6e-6 + 2 * 7 / 8 * per_all_reduce / 141e9  # 15.20 us, latency-dominated
    assert ring < min(25e-6 + 2 * 7 / 8 * per_all_reduce / 480e9, 14e-6 + 14 * 1.9e-6, 8.4e-6 + 14 * 3.4e-6)
    assert entry(r, "decode_time_comm_estimate", batch=1, context=1024) == pytest.approx(count * ring, rel=1e-12)
    assert count * ring == pytest.approx(2.4325e-3, rel=1e-3)  # 2.43 ms per token
    # the all-reduces do not depend on the context
    assert entry(r, "decode_time_comm", batch=1, context=8192) == entry(r, "decode_time_comm", batch=1, context=1024)


def test_the_bytes_sent_are_the_ones_the_bound_charges(tmp_path):
    """interconnect_bytes_decode counts what decode_time_comm charges the link: on 8 A100s (NVSwitch without in-switch
    reduction, a100-sxm-80gb.yaml) the ring's least, 2 (n-1)/n of each all-reduce's B d b_a = 16 KiB, 160 of them:
    4,587,520 B; the H100's NVLink SHARP sends each byte once (above). Both at 1 / the link's rate plus one latency
    a call, so bytes / W + 160 alpha is the bound's interconnect ledger."""
    r = evaluate(spec_for(tmp_path, tp=8, hw="a100-sxm-80gb"))
    sent = 160 * 2 * 7 / 8 * 16384
    assert sent == 4_587_520
    assert entry(r, "interconnect_bytes_decode", batch=1, context=1024) == pytest.approx(sent, rel=1e-12)
    link = r.spec.hardware.link
    assert not link.in_network_reduction
    assert entry(r, "decode_time_comm", batch=1, context=1024) == pytest.approx(
        sent / link.bandwidth_per_direction + 160 * link.latency, rel=1e-12)


def test_prefill_all_reduces_hand_count(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8))
    per_all_reduce = 2048 * 8192 * 2  # T d b_a = 32 MiB for a 2k prompt
    assert entry(r, "interconnect_bytes_prefill", tokens=2048) == pytest.approx(160 * per_all_reduce)  # once each
    t = 160 * (per_all_reduce / 450e9 + 0.6e-6)  # 12.0 ms at least (in-switch reduction): bandwidth, not latency
    assert entry(r, "prefill_time_comm", tokens=2048) == pytest.approx(t, rel=1e-12)
    assert entry(r, "prefill_time_bound", tokens=2048) <= entry(r, "prefill_time_serial", tokens=2048)


def test_batch_scales_bytes_not_latency(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8))
    b1 = entry(r, "decode_time_comm", batch=1, context=1024)
    b64 = entry(r, "decode_time_comm", batch=64, context=1024)
    bytes_part = 160 * 8192 * 2 / 450e9  # in-switch reduction: each GPU sends its B d b_a once
    assert b64 - b1 == pytest.approx(63 * bytes_part, rel=1e-9)


def test_per_gpu_memory_hand_count(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=2))
    # each GPU holds the 1,318,912 norm weights whole (80 x 2 x 8,192 + 8,192): one more copy at tp 2, N_R
    norms = 80 * 2 * 8192 + 8192
    assert entry(r, "weight_bytes_per_gpu") == pytest.approx((70.6e9 + norms) * 2 / 2, rel=1e-12)
    c = 2 * 80 * 8 * 128 * 2  # K and V, 80 layers, 8 KV heads of 128, bf16 = 320 KiB per token
    assert entry(r, "kv_bytes_per_token_per_gpu") == pytest.approx(c / 2, rel=1e-12)
    cap = (80 * 2**30 - 70.6e9 - norms) / (c / 2)
    assert entry(r, "kv_capacity_tokens_replica") == pytest.approx(cap, rel=1e-12)
    # past tp = H_kv the KV heads are replicated: tp 16 splits the cache 8 ways, not 16
    r16 = evaluate(spec_for(tmp_path, tp=16))
    assert entry(r16, "kv_bytes_per_token_per_gpu") == pytest.approx(c / 8, rel=1e-12)
    # and so are their K and V projections (80 x 2 x 8,192 x 8 x 128 weights, held twice), the norms 16 times
    kv = 80 * 2 * 8192 * 8 * 128
    assert entry(r16, "weight_bytes_per_gpu") == pytest.approx((70.6e9 + kv + 15 * norms) * 2 / 16, rel=1e-12)
    # pipeline stages split the layers, and so the KV cache; the weights are the stage's that holds the fewest tokens:
    # the last, 40 layers of 855,654,400 parameters (attention 2 x 8192^2 + 2 x 8192 x 1024, SwiGLU 3 x 8192 x 28672,
    # two norms), the output head 128,256 x 8192 and the final norm, against the model's 70,553,706,496 from its
    # shapes (its room is the logits' less than the first's, whose embedding weighs as the head): the declared 70.6e9
    # in that share
    rp = evaluate(spec_for(tmp_path, tp=2, pp=2))
    assert entry(rp, "kv_bytes_per_token_per_gpu") == pytest.approx(c / 4, rel=1e-12)
    layer = 2 * 8192**2 + 2 * 8192 * 1024 + 3 * 8192 * 28672 + 2 * 8192
    assert layer == 855_654_400
    last, total = 40 * layer + 128256 * 8192 + 8192, 80 * layer + 2 * 128256 * 8192 + 8192
    assert total == 70_553_706_496
    # with the norms each GPU holds whole, one more copy of the stage's (its 40 layers' and the final one)
    last_c, total_c = last + 40 * 2 * 8192 + 8192, total + norms
    assert entry(rp, "weight_bytes_per_gpu") == pytest.approx((70.6e9 + norms) * 2 / 2 * last_c / total_c, rel=1e-12)


def test_moe_experts_split_over_ep(tmp_path):
    from genreport.formulas.architecture import parameter_count

    spec = spec_for(tmp_path, model="deepseek-v3", precision="fp8", tp=4, ep=8, dp=2)
    r = evaluate(spec)
    pc = parameter_count(spec.model)
    # the seed accounting's declared counts (671e9 in all, 37e9 active): the routed experts' share of the 634e9
    # parameters one token does not touch, as the single-card report maps them
    n, n_a = spec.model.declared_parameters, spec.model.declared_active
    assert (n, n_a) == (671e9, 37e9)
    n_x = pc.experts_routed * (n - n_a) / (pc.total - pc.active)
    # and what each GPU of tp 4 holds whole, 3 more copies (MLA's down-projections, norms, router:
    # tests/test_tp_copies.py)
    want = ((n + 3 * pc.replicated - n_x) / 4 + n_x / 8) * 1.0
    assert entry(r, "weight_bytes_per_gpu") == pytest.approx(want, rel=1e-9)
    assert entry(r, "gpus") == 8
    # MLA's latent is shared by all heads: replicated on every tp GPU, split only by stage
    assert entry(r, "kv_bytes_per_token_per_gpu") == pytest.approx(r.scalars["seed"]["kv_bytes_per_token"], rel=1e-12)
    # expert parallelism adds all-to-alls: the interconnect ledger grows with ep
    r1 = evaluate(spec_for(tmp_path, model="deepseek-v3", precision="fp8", tp=4, ep=1, dp=2))
    assert entry(r, "decode_time_comm", batch=8, context=1024) > entry(r1, "decode_time_comm", batch=8, context=1024)


def test_data_parallel_attention_with_expert_parallelism_hand_count(tmp_path):
    # DeepSeek-V3 (config.json): hidden 7168, 8 routed experts per token, 61 layers of which the first 3 are dense.
    # tp 1, dp 8, ep 8: every GPU dispatches its own replica's token, once to each other GPU that holds one of its 8
    # experts: 7 (1 - (7/8)^8) = 4.595 GPUs on average (uniform routing, formulas.parallel.distinct_peers), 7168
    # elements at least one byte each (the bound's: DeepEP's FP8 dispatch, deepseek-ai/DeepEP docs/legacy.md)
    r = evaluate(spec_for(tmp_path, model="deepseek-v3", precision="fp8", tp=1, ep=8, dp=8))
    peers = 7 * (1 - (7 / 8) ** 8)
    assert peers == pytest.approx(4.595, abs=1e-3)
    per_all_to_all = peers * 1 * 7168 * 1
    sent = 2 * 58 * per_all_to_all  # dispatch and combine in 58 MoE layers
    assert entry(r, "interconnect_bytes_decode", batch=1, context=1024) == pytest.approx(sent, rel=1e-12)
    t = 2 * 58 * (per_all_to_all / 450e9 + 0.6e-6)  # at least one step of latency each
    assert entry(r, "decode_time_comm", batch=1, context=1024) == pytest.approx(t, rel=1e-12)


def test_zero_stages_hand_count(tmp_path):
    spec = spec_for(tmp_path, model="llama-3.1-8b", dp=8)
    r = evaluate(spec)
    n = 8.03e9
    got = {k: entry(r, f"training_state_per_gpu_zero{k}", recipe="bf16-grads") for k in range(4)}
    assert got[0] == pytest.approx(16 * n)
    assert got[1] == pytest.approx((2 + 2 + 12 / 8) * n)
    assert got[2] == pytest.approx((2 + 14 / 8) * n)
    assert got[3] == pytest.approx(16 / 8 * n)
    assert entry(r, "training_state_per_gpu_zero3", recipe="fp32-grads") == pytest.approx(18 / 8 * n)
    # the gradient all-reduce of 2 N bytes over 8 replicas
    want = 2 * 7 / 8 * 2 * n / 450e9 + 0.6e-6
    assert entry(r, "training_grad_comm_time", recipe="bf16-grads") == pytest.approx(want, rel=1e-12)
    # fp32 gradients: twice the bytes
    want32 = 2 * 7 / 8 * 4 * n / 450e9 + 0.6e-6
    assert entry(r, "training_grad_comm_time", recipe="fp32-grads") == pytest.approx(want32, rel=1e-12)
    # the backward pass of 4k tokens (4 N T / P) hides it once a step has more than T_ov tokens per replica
    t_ov = entry(r, "training_overlap_tokens", recipe="bf16-grads")
    assert 4 * n * t_ov / 989.4e12 == pytest.approx(want, rel=1e-9)


# ----------------------------------------------------------------------------------------------- fits and scaling

def test_llama70b_bf16_fits_two_h100(tmp_path):
    one = evaluate(spec_for(tmp_path, tp=1))
    assert entry(one, "kv_capacity_tokens_replica") is None  # 141 GB of weights, 80 GiB card: no KV fits
    (e,) = [e for e in one.entries if e.id == "kv_capacity_tokens_replica"]
    assert "exceed the memory capacity" in e.reason
    assert entry(one, "min_gpus_to_fit", batch=1, context=1024) == 2
    two = evaluate(spec_for(tmp_path, tp=2))
    assert entry(two, "kv_capacity_tokens_replica") > 0
    assert entry(two, "capacity_batch_replica", context=8192) >= 1
    assert entry(two, "decode_tokens_per_s_replica", batch=8, context=8192) > 0


def test_eight_gpus_give_less_than_eight_times_one_ideal_card(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8))
    card = evaluate(spec_for(tmp_path, tp=1))  # the single-card bound, fit aside
    ideal_one_card = entry(card, "decode_tokens_per_s", batch=1, context=1024)
    # at a layout the documented id is the layout's: a replica's token/s at the strict bound
    assert entry(r, "decode_tokens_per_s", batch=1, context=1024) == entry(r, "decode_tokens_per_s_replica",
                                                                            batch=1, context=1024)
    bound = entry(r, "decode_tokens_per_s_replica", batch=1, context=1024)
    serial = 1 / entry(r, "decode_time_serial", batch=1, context=1024)
    assert bound <= 8 * ideal_one_card * (1 + 1e-12)  # the strict bound: at best perfect scaling
    assert serial < 8 * ideal_one_card
    # by how much: the 2.43 ms of all-reduces as NCCL runs them and 80 layers x 10 kernels x 0.5 us = 0.40 ms of the
    # kernels' fixed costs (a CUDA graph replay) on top of 6.38 ms of weight streaming (5.28 ms at the H100's bf16
    # small-GEMM share e_g = 0.827): 42.25 / 9.22 = 4.58
    assert serial / ideal_one_card == pytest.approx(4.58, abs=0.05)


def test_pipeline_does_not_speed_up_batch_one(tmp_path):
    tp = evaluate(spec_for(tmp_path, tp=2))
    tp_pp = evaluate(spec_for(tmp_path, tp=2, pp=2))
    t1 = entry(tp, "decode_time_bound", batch=1, context=1024)
    t2 = entry(tp_pp, "decode_time_bound", batch=1, context=1024)
    assert t2 >= t1 * (1 - 1e-12)  # one sequence walks the stages in turn: the bubble eats the second stage
    # a full pipeline (B >= pp) halves the KV each GPU reads and keeps the weight streaming per round
    assert entry(tp_pp, "decode_time_memory_gpu", batch=64, context=8192) < \
        entry(tp, "decode_time_memory_gpu", batch=64, context=8192)


def test_bound_below_serial_everywhere(tmp_path):
    r = evaluate(spec_for(tmp_path, model="mixtral-8x7b", tp=4, pp=2, ep=4, dp=1))
    g = r.parallel.decode["seed"]
    assert np.all(g["decode_time_bound"] <= g["decode_time_serial"])
    assert np.all(g["decode_time_bound"] >= g["decode_time_comm"])


def test_group_beyond_the_domain_crosses_scale_out(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8, pp=2))
    links = r.parallel.links
    assert links["tp"].tier == "scale-up" and links["tp"].bandwidth_per_direction == 450e9
    assert links["pp"].tier == "scale-out" and links["pp"].bandwidth_per_direction == 50e9
    doc = json.loads(json.dumps(r.parallel.as_json()))
    assert doc["links"]["pp"]["per_direction_from"] == "spec"


def test_no_latency_in_spec_is_said_and_zero(tmp_path):
    link = replace(NVLINK4, latency=None, per_direction_from="bandwidth/2")
    r = evaluate(spec_for(tmp_path, tp=8, link=link))
    assert r.parallel.links["tp"].latency == 0 and not r.parallel.links["tp"].latency_given
    assert any("no latency" in n for n in r.parallel.notes)
    assert entry(r, "tp_weight_crossover") is None


# ----------------------------------------------------------------------------------------------- closed forms

def test_tp_weight_crossover_solves_its_equation(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8))
    n = entry(r, "tp_weight_crossover")
    # at n GPUs the batch-1 all-reduces of 80 layers, as NCCL's ring runs them with LL (6.6 us a call, 0.6 us a step,
    # half the 370 GB/s bus bandwidth at most 141 GB/s on Hopper), take as long as streaming N b / n
    t_comm = 2 * 80 * (6.6e-6 + 2 * (n - 1) / n * 8192 * 2 / 141e9 + 2 * (n - 1) * 0.6e-6)
    t_w = 70.6e9 * 2 / (n * 3.35e12)
    assert t_comm == pytest.approx(t_w, rel=1e-9)
    assert 8 < n < 32  # about 15: past two HGX nodes' worth, batch-1 decode of 70B turns latency-bound


def test_tp_link_bound_degree_and_ridge(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=8))
    ridge = entry(r, "link_ridge")
    assert ridge == pytest.approx(989.4e12 / 450e9, rel=1e-12)
    n = entry(r, "tp_link_bound_degree")
    n_a = r.envs["seed"].card["N_a"]  # the whole model's count
    assert n_a / (2 * 80 * (n - 1) * 8192 * 2) == pytest.approx(ridge, rel=1e-9)


def test_comm_hbm_crossover_batch(tmp_path):
    from genreport.formulas.compiled import load
    from genreport.model.layout import at_batch, layout_values

    r = evaluate(spec_for(tmp_path, tp=8))
    # at tp 8 and 1k context the KV per sequence (40 KiB per token per GPU) outgrows the all-reduces: no crossing
    assert entry(r, "comm_hbm_crossover_batch", context=1024) is None
    # 8B at tp 8: NCCL's 15 us per all-reduce outlast its 0.6 ms weight slice from batch 1: no crossing either
    assert entry(evaluate(spec_for(tmp_path, model="llama-3.1-8b", tp=8)), "comm_hbm_crossover_batch",
                 context=128) is None
    spec = spec_for(tmp_path, tp=8)
    r2 = evaluate(spec)
    b = entry(r2, "comm_hbm_crossover_batch", context=128)
    # short contexts: 32.5 us of all-reduce bytes per sequence with LL (half the bus bandwidth, at most 141 GB/s)
    # against 1.6 us of KV: the LL ring catches up at about 93, where LL128 and Simple (14 and 8.4 us a call, 1.9 and
    # 3.4 us a step) are still the slower; 264 when the ring was charged LL's latencies at the whole 370 GB/s
    assert b is not None and 85 < b < 100
    env = r2.envs["seed"].one_card()  # the layout formulas divide the whole model's values
    par = r2.parallel
    v = layout_values(env.values, spec.model, par.parallelism, par.links, spec.precision, "seed", env.pc)
    v = at_batch(dict(v, S=128.0), r2.envs["seed"], b)
    q = load()
    # the closed form is the ring's fastest protocol, LL here (formulas.parallel.decode_time_tp_ring): there it equals
    # the HBM ledger; the estimate takes NVLS at these 1.5 MiB messages (25 us a call), so it is still below
    lhs = 2 * 80 * float(q["all_reduce_time_library"]({"n_g": 8, "Z_g": b * 8192 * 2, "W_c": 141e9, "alpha": 0.6e-6,
                                                        "tau_c": 6.6e-6}))
    assert lhs == pytest.approx(float(q["decode_time_memory_gpu"](v)), rel=1e-9)
    assert float(q["decode_time_comm_estimate"](v)) < float(q["decode_time_memory_gpu"](v))


# ----------------------------------------------------------------------------------------------- plan

@pytest.fixture(scope="module")
def h100():
    return load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")


def test_plan_405b_bf16_needs_at_least_ten_h100(h100):
    model = load_model(ROOT / "specs" / "models" / "llama-3.1-405b.yaml")
    result = plan(model, h100, 64, 8192)
    bf16 = [r for r in result.rows if r.precision == "bf16"]
    assert bf16, "no bf16 layout at all"
    assert min(r.gpus for r in bf16) >= 10  # 756 GiB of weights against 80 GiB per card
    assert result.rejected["weights do not fit"] > 0
    rates = [r.tokens_per_s_gpu for r in result.rows]
    assert rates == sorted(rates, reverse=True)


def test_plan_latency_target_is_met(h100):
    model = load_model(ROOT / "specs" / "models" / "llama-3.1-70b.yaml")
    result = plan(model, h100, 64, 8192, latency=0.02)
    assert result.rows
    assert all(r.time_bound <= 0.02 for r in result.rows)
    assert {r.limit for r in result.rows} <= {"batch", "capacity", "latency"}
    assert all(r.binds in ("compute", "bandwidth", "interconnect", "capacity") for r in result.rows)


def test_plan_cli_table_and_json(capsys):
    assert main(["plan", "llama-3.1-405b", "--hardware", "h100-sxm", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["rows"] and all(r["gpus"] >= 10 for r in doc["rows"] if r["precision"] == "bf16")
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--latency", "50ms", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "tok/s/GPU" in out and "binds" in out


@pytest.mark.parametrize("args, text", [
    (["plan", "llama-3.1-70b", "--hardware", "h100"], "no hardware named 'h100'"),
    (["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--latency", "50"], "--latency 50:"),
    (["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--precision", "bf17"], "unknown format bf17"),
    (["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--context", "8q"], "--context 8q:"),
])
def test_plan_bad_input(capsys, args, text):
    assert main(args) == 1
    err = capsys.readouterr().err
    assert text in err and "hint:" in err and "Traceback" not in err


def test_parallelism_label():
    assert Parallelism(tp=8).label() == "tp8"
    assert Parallelism().label() == "1 GPU"


# ----------------------------------------------------------------------------------------------- report helpers

def test_smallest_layout_of_405b_on_h100(h100):
    from genreport.model.plan import smallest

    model = load_model(ROOT / "specs" / "models" / "llama-3.1-405b.yaml")
    best = smallest(plan(model, h100, 1, 8192, precisions=("bf16",)))
    assert best.gpus >= 10 and best.precision == "bf16"
    # 810 GB over the smallest valid tp x pp: tp must divide 128 heads and split 8 KV heads, pp divide 126 layers
    assert best.gpus == min(t * p for t in (1, 2, 4, 8, 16, 32, 64) for p in (1, 2, 3, 6, 7, 9, 14, 18)
                            if 405e9 * 2 / (t * p) < 80 * 2**30)


def test_page_one_names_every_degree_of_the_smallest_layout():
    """Qwen3 235B-A22B in bf16 on one Gaudi 3 (470 GB of weights, 114 GiB of memory): the smallest layout that holds
    it with a 1k context is 4 chips with data-parallel attention, tp 1 x ep 4 x dp 4 (each chip a quarter of the
    experts and its own attention); page 1's fit sentence named it "4 x ... (tp 1)", one GPU's layout on four."""
    from genreport.present.summary import _fit_sentence
    from shared import evaluated

    r = evaluated(ROOT / "specs" / "llama8b-h100.yaml",
                  ["model=qwen3-235b-a22b", "hardware=gaudi3", "workloads.decode.context=[1024]"])
    s = r.many.smallest
    assert (s["gpus"], s["tp"], s["pp"], s["ep"], s["dp"]) == (4, 1, 1, 4, 4) and s["tp"] * s["dp"] == s["gpus"]
    label = next(o["label"] for o in r.fit_options if o["kind"] == "gpus")
    assert label == "4 × Intel Gaudi 3 (HL-325L OAM) (tp 1 × dp 4 with ep 4)"
    assert f"or {label} (" in _fit_sentence(r)


def test_scaling_rows_split_the_round(h100):
    from genreport.model.plan import scaling

    model = load_model(ROOT / "specs" / "models" / "llama-3.1-70b.yaml")
    from genreport.load.loader import _precision

    rows = scaling(model, h100, _precision("bf16"), 1, 1024, degrees=(1, 2, 4, 8, 16))
    assert [r["tp"] for r in rows] == [1, 2, 4, 8, 16]
    assert [r["fits"] for r in rows] == [False, True, True, True, True]
    hbm = [r["hbm"] for r in rows]
    assert all(a > b for a, b in zip(hbm, hbm[1:], strict=False))  # each GPU streams less
    comm = [r["interconnect"] for r in rows]
    # and talks more: the bound's all-reduce (in-switch reduction, one step) costs the same at 2, 4 and 8 GPUs
    assert comm[0] == 0 and all(a <= b for a, b in zip(comm, comm[1:], strict=False)) and comm[4] > comm[3]
    est = [r["interconnect_estimate"] for r in rows]
    assert est[0] == 0 and all(a < b for a, b in zip(est, est[1:], strict=False))  # the ring's steps grow with n
    assert rows[4]["link"] == "scale-out"  # 16 GPUs leave the 8-GPU NVLink domain
    for r in rows:
        # one stage: the round is its GPU's largest ledger, up to the rounding of the 1 / W the compiled round shares
        # with the last stage's ledgers (formulas.parallel.pipelined)
        assert r["bound"] == pytest.approx(max(r["compute"], r["hbm"], r["interconnect"]), rel=1e-15, abs=0.0)
        # the kernels' fixed costs: 80 layers x 10 kernels x 0.5 us (a CUDA graph replay) = 0.4 ms, whatever the degree
        assert r["overhead"] == pytest.approx(80 * 10 * 0.5e-6, rel=1e-12)
        # the FLOPs at the measured matmul share of the peak, 0.803 for bf16 on H100 (MAMF 794.5 of 989.4 TFLOP/s)
        assert r["compute_estimate"] == pytest.approx(r["compute"] / 0.803, rel=1e-12)
        assert r["serial"] == pytest.approx(max(r["compute_estimate"], r["hbm_busiest"]) + r["interconnect_estimate"]
                                            + r["overhead"], rel=1e-12)


def test_fit_map_of_70b_on_h100(h100):
    from genreport.model.plan import fit_map

    model = load_model(ROOT / "specs" / "models" / "llama-3.1-70b.yaml")
    got = fit_map(model, h100, [1024, 131072], batch=1)
    assert got["bf16"][0] == 2 and got["fp8"][0] == 1  # 141 GB needs two cards, 70.6 GB fits one
    assert got["int4"][0] == 1
    assert got["bf16"][1] >= got["bf16"][0]  # a 128k context needs at least as many


def test_derive_evaluates_parallel_quantities_at_the_spec_layout(capsys):
    spec = str(ROOT / "specs" / "llama70b-h100-tp8.yaml")
    assert main(["derive", "decode_time_comm", "--spec", spec, "--batch", "1", "--context", "1k"]) == 0
    out = capsys.readouterr().out
    assert "n_TP = 8" in out and "t_x = 0.000101825 s" in out  # the hand count above: 160 x 0.636 us
    # a spec without parallelism is one GPU
    assert main(["derive", "weight_bytes_per_gpu", "--spec", str(ROOT / "specs" / "llama8b-h100.yaml")]) == 0
    assert "w_g = 1.606e+10 B" in capsys.readouterr().out


def test_decode_binds_per_layout(tmp_path):
    r = evaluate(spec_for(tmp_path, tp=2))
    binds = r.parallel.binds
    # Llama 3.1 70B on 2 H100: 11 sequences of 8k fit a replica, so batch 64 at 8k is capacity-limited;
    # batch 1 streams 65.8 GiB per GPU: HBM
    assert binds[0, 0] == "bandwidth"
    assert binds[2, 2] == "capacity"
    assert r.parallel.as_json()["decode_binds"] == binds.tolist()
    # tp 8 at batch 1: still HBM under the strict bound (5.3 ms of weights against 1.35 ms of all-reduces)
    assert evaluate(spec_for(tmp_path, tp=8)).parallel.binds[0, 0] == "bandwidth"


def test_min_gpus_uses_even_stages(tmp_path):
    # DeepSeek-V3 in fp8 (671 GB) on H200 (141 GiB = 151.4 GB): 5 GPUs would hold the bytes, but its 61 layers
    # split evenly only into 1 or 61 stages and tp must divide the 128 heads, so the smallest layout is tp 8
    r = evaluate(spec_for(tmp_path, model="deepseek-v3", precision="fp8", tp=8, hw="h200"))
    assert entry(r, "min_gpus_to_fit", batch=1, context=1024) == 8
    assert r.parallel.min_layout["seed"][0][0] == (8, 1)


def test_page_one_rows_of_a_pipeline_name_the_verdict_and_one_gpus_ledgers(tmp_path):
    """Qwen3 235B-A22B in fp8 on 16 H100 (tp 8 x pp 2 x ep 8; shapes from its model file): an 8k prompt's stage
    spends more on its all-reduces and all-to-alls than on its FLOPs, so page 1's row names the interconnect, as
    chapter 3 and the verdicts do (it said "compute", its one-GPU FLOPs against HBM alone).  "Other roof" is how
    many times shorter one GPU's next ledger is than its largest: it was the bound of the whole walk through the
    two stages over one GPU's ledger, twice too large (batch-1 decode 14x for 6.9x, a 512-token prompt 13x for
    its HBM over its links, 4.6x)."""
    path = tmp_path / "qwen.yaml"
    path.write_text(SPEC.format(model="qwen3-235b-a22b", hw="h100-sxm", precision="fp8", tp=8, pp=2, ep=8, dp=1)
                    .replace("prompt: [2k]", "prompt: [512, 8k]").replace("  training: {micro_batch_tokens: 4k}\n", ""),
                    encoding="utf-8")
    r = evaluate(load_report(path))
    pre = r.parallel.prefill[r.lead]
    rows = [x for x in r.decision if x["workload"] == "prefill"]
    # the 8k prompt's FLOPs (14.49 ms, with the K/V projections and router each GPU computes whole: tests/
    # test_tp_copies.py) just pass its collectives (14.25 ms): both name the compute, the other roof the interconnect
    assert [x["binds"] for x in rows] == list(r.verdicts["prefill_binds"]) == ["bandwidth", "compute"]
    assert pre["prefill_time_compute_gpu"][1] > pre["prefill_time_comm"][1] > pre["prefill_time_memory_gpu"][1]
    assert rows[0]["other_roof"] == pytest.approx(pre["prefill_time_memory_gpu"][0] / pre["prefill_time_comm"][0])
    assert rows[1]["other_roof"] == pytest.approx(pre["prefill_time_compute_gpu"][1] / pre["prefill_time_comm"][1])
    dec = r.parallel.decode[r.lead]
    one = next(x for x in r.decision if x["workload"] == "decode" and x["batch"] == 1)
    i, j = 0, list(r.spec.workloads.decode_context).index(one["context"])
    # one micro-batch walks 2 stages of 47 layers: the busiest stage's HBM time, then the last stage's, its layers and
    # the output head (151,936 x 4,096 fp8 weights over its tp 8 GPUs: formulas.parallel.at_last_stage)
    head = 151936 * 4096 * 1 / (8 * r.spec.hardware.bandwidth)
    assert one["time"] == pytest.approx(2 * dec["decode_time_memory_gpu"][i, j] + head)
    assert one["other_roof"] == pytest.approx(dec["decode_time_memory_gpu"][i, j] / dec["decode_time_comm"][i, j])


def test_chapter_six_counts_a_groups_members_not_the_gpus_it_spans(tmp_path):
    """Llama 3.1 70B on tp 8 x pp 2: the pipeline group is the 2 GPUs that hold one shard's two stages, 8 GPUs
    apart, within 16; chapter 6 said "The pp group (16 GPUs)", its span (LinkChoice.span) read as its size."""
    import re

    from shared import rendered

    r = evaluate(spec_for(tmp_path, tp=8, pp=2))
    assert r.parallel.links["pp"].span == 16
    html = rendered(r, "sections/s7_gpus.html.j2")
    assert re.findall(r"The (\w+) group \(([^)]*)\)", html) == [("pp", "2 GPUs, spread over 16"), ("tp", "8 GPUs")]


def test_the_rate_formula_at_a_layout_equals_its_own_arithmetic(tmp_path):
    """Qwen3 235B-A22B in fp8 on tp 8 x pp 2 x ep 8 (its model file's shapes): formula (16) substitutes one GPU's
    ledgers, B / max((B S c_g + N_g b) / W, ...), which at batch 1 and context 32k give 1,881 tok/s, and printed
    "= 940 tok/s", the replica's round through the two stages the table states.  The block now prints its own
    arithmetic and says where the table's 940 comes from."""
    from shared import rendered

    path = tmp_path / "qwen.yaml"
    path.write_text(SPEC.format(model="qwen3-235b-a22b", hw="h100-sxm", precision="fp8", tp=8, pp=2, ep=8, dp=1)
                    .replace("context: [128, 1k, 8k]", "context: [1k, 32k]")
                    .replace("  training: {micro_batch_tokens: 4k}\n", ""), encoding="utf-8")
    r = evaluate(load_report(path))
    b = r.blocks["tps"]
    env = {k: float(v) for k, v in b.inputs.items()}
    own = 1 / max((env["S"] * env["c"] + env["N"] * env["b"]) / env["W"],
                  (4 * env["S"] * env["H_q"] * env["L"] * env["d_h"] + 2 * env["N_a"]) / env["P"])
    # the table's: the round through the two stages, the busiest stage's then the last's, which also streams the
    # output head (151,936 x 4,096 fp8 weights over its tp 8 GPUs)
    head = 151936 * 4096 / (8 * env["W"])
    assert b.closed_form == pytest.approx(own, rel=1e-9)
    assert b.entry.value == pytest.approx(1 / (2 / own + head), rel=1e-9)
    html = rendered(r, "sections/s4_batching.html.j2")
    # 1,873 tok/s: the busiest stage's slice, without the output head (the last stage's), with what each GPU holds
    # whole (1,923 before: tests/test_tp_copies.py)
    assert "= <strong>1,873 tok/s</strong>" in html and "= <strong>916 tok/s" not in html
    assert "through its 2 pipeline stages, gives 916 tok/s: the number the table states" in html


def test_formulas_that_substitute_the_streamed_experts_do_not_call_them_n_g(tmp_path):
    """Qwen3 235B-A22B in fp8 on tp 8 x pp 2 x ep 8 (8 of 128 experts a token, its model file): the slice table
    defines N_g as the 14.69B parameters one GPU holds.  The decode intensity (10), the rate (16) and the memory
    bound (17) substitute the 1.387B a batch-1 step streams, the active slice, and printed them as N_g (formula (1)
    was fixed alone); they print N_a,g, and the exact accounting's (18) (N_a,g + N_e,g), the rows it then subtracts."""
    from genreport.present.render import Formulas

    path = tmp_path / "qwen.yaml"
    path.write_text(SPEC.format(model="qwen3-235b-a22b", hw="h100-sxm", precision="fp8", tp=8, pp=2, ep=8, dp=1)
                    .replace("  training: {micro_batch_tokens: 4k}\n", ""), encoding="utf-8")
    r = evaluate(load_report(path))
    held = float(r.envs[r.lead].values["N"])
    forms = Formulas(r)
    shown = {k: (b, forms.block(b)["symbolic_tex"]) for k, b in r.blocks.items() if "N" in b.inputs}
    for name in ("t_mem", "intensity", "tps", "seed_tmem"):
        b, tex = shown[name]
        assert b.inputs["N"] == pytest.approx(float(r.envs[r.lead].values["N_a"])) and b.inputs["N"] < held / 10
        assert "N_{a,g}" in tex and "N_{g}" not in tex, (name, tex)
    assert r"\left(N_{a,g} + N_{e,g}\right) \, b - N_{e,g} \, b" in shown["exact_tmem"][1]
    stage = float(r.envs[r.lead].held()["N"])  # every expert of the stage that holds the fewest tokens (pp 2)
    assert stage != held and r.scalars[r.lead]["weight_bytes"] == pytest.approx(
        stage * float(r.envs[r.lead].values["b"]), rel=1e-12)  # the stated weights are that stage's
    for name in ("cap_tokens", "cap_batch"):  # the capacity holds every expert of that stage: N_b,g
        b, tex = shown[name]
        assert b.inputs["N"] == stage and "N_{b,g}" in tex and "N_{g}" not in tex


def test_the_experts_a_pipelines_round_touches_are_one_micro_batchs(tmp_path):
    """Qwen3 235B-A22B on tp 8 x pp 2 x ep 8: a round at batch 4 passes 2 micro-batches of 2 tokens, each streaming
    the experts its own 2 tokens touch, 128 (1 - (1 - 8/128)^2) = 15.5 a layer, twice: 4.437 GB a GPU.  Chapter 1
    said "batch 4: 29.1 of 128 experts per layer, 4.437 GB per GPU" (29.1: four tokens at once) and at batch 256
    "29.38 GB per GPU" beside the 14.69 GB the GPU holds, without saying the slice is streamed once per micro-batch."""
    from genreport.present.prose import moe_text

    path = tmp_path / "qwen.yaml"
    path.write_text(SPEC.format(model="qwen3-235b-a22b", hw="h100-sxm", precision="fp8", tp=8, pp=2, ep=8, dp=1)
                    .replace("  training: {micro_batch_tokens: 4k}\n", ""), encoding="utf-8")
    r = evaluate(load_report(path))
    four = next(x for x in r.moe_reads if x["batch"] == 4)
    assert four["microbatches"] == 2 and four["touched"] == pytest.approx(128 * (1 - (1 - 8 / 128) ** 2))
    text = moe_text(r)
    # a GPU of the busiest stage before the last: its slice without the output head, 151,936 x 4,096 / 16 = 38.9 MB a
    # pass less than the even split's 1.387, 4.437 and 29.38 GB (the head is the last stage's: at_last_stage)
    # and with the K/V projections, norms and router each GPU holds whole (tests/test_tp_copies.py: 46.6 MB a pass)
    assert "batch 1: 8 of 128 experts per layer, 1.395 GB per GPU;" in text
    assert "batch 4: 15.5 of 128 experts per layer in each of its 2 micro-batches of 2, 4.452 GB per GPU a round" in text
    assert "batch 256: 128 of 128 experts per layer in each of its 2 micro-batches of 128, 29.39 GB per GPU a round" in text


def test_a_gpu_streams_no_more_weight_than_it_holds():
    """DeepSeek-V3 in fp8 on 8 H20 (tp 1 x dp 8 x ep 8, seed accounting): once a batch touches every expert a GPU
    streams what it holds.  Chapter 1 counted the batches' reads from the shapes, "batch 64: ... 98.86 GB per GPU",
    beside the 98.35 GB (the declared 671B) the same page says a GPU holds, and the formulas' N_s,g at batch 1
    (34.9 GB) beside its "35.45 GB" (a review of stop 87): now the report's own accounting throughout."""
    from shared import evaluated_text

    text = ("kind: report\nname: dsv3-h20\ntitle: DeepSeek-V3 on 8 H20\nhardware: h20\nmodel: deepseek-v3\n"
            "precision: fp8\nparallelism: {tp: 1, dp: 8, ep: 8}\nworkloads:\n  decode: {batch: [1, 64], "
            "context: [1k]}\n")
    r = evaluated_text(text, "dsv3-h20")
    held = r.scalars[r.lead]["weight_bytes"]
    full = next(x for x in r.moe_reads if x.get("batch") == 256)
    assert full["touched"] == pytest.approx(256) and full["bytes"] == pytest.approx(held, rel=1e-12)
    one = next(x for x in r.moe_reads if x.get("batch") == 1)
    streamed = r.envs[r.lead].at(batch=1.0)
    assert one["bytes"] == pytest.approx(float(np.ravel(streamed["N"])[0]) * float(np.ravel(streamed["b"])[0]),
                                         rel=1e-12)
