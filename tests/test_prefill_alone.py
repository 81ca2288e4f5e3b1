"""A prompt prefilled alone (the serving chapter's t_p, figure 11's queue) is a pass over a whole prompt: MLA in its
decompressed (MHA) form, as the layout's prefill and the chapter's TTFT take it (env.prefill_head_dim), not the
absorbed head a decode step reads.  DeepSeek-V3 on 8 H200 (tp 1 x dp 8 x ep 8) stated t_p = 218 ms beside a TTFT of
167 ms through the layout for the same 4k prompt: the 218 ms charged the prompt's attention at the absorbed
d_h = 544 (kv_lora_rank 512 + qk_rope_head_dim 64, the decode form) where the prefill's is
(qk_nope_head_dim 128 + qk_rope_head_dim 64 + v_head_dim 128) / 2 = 160 (DeepSeek-V3 config.json,
huggingface.co/deepseek-ai/DeepSeek-V3; DeepSeek-V2 paper, arXiv 2405.04434, section 2.1).
"""

from __future__ import annotations

import pytest
from shared import evaluated


def test_the_prompt_alone_takes_the_prefill_head_dim():
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    t_p = r.serving["techniques"]["rates"]["prefill_alone_time"]
    v = r.envs[r.lead].values
    prompt = float(r.spec.serving.prompt)
    flops = 2 * v["N_p"] * prompt + 2 * v["L"] * v["H_q"] * 160.0 * prompt**2 + 2 * v["V"] * v["d"]
    assert t_p == pytest.approx(flops / v["P"], rel=1e-9)  # compute-bound, at the prefill's d_h
    # t_p is the rate figure's service of one replica while its peers prefill too: its GPU runs its prompt's routed
    # experts' FLOPs' worth (the group's 8 GPUs each serve 1/8 of 8 replicas' prompts).  The TTFT through the layout is
    # one prompt alone: its routed experts spread over the expert group's 8 GPUs, the rest on its replica's one, so
    # below t_p here (it was at least t_p while the bound charged one GPU all the prompt's expert FLOPs)
    assert r.serving["rows"][0]["bound"]["ttft"] < t_p


def test_a_chunked_step_charges_each_part_its_own_attention_form():
    """The serving chapter's chunked step (chunked_step_time) at DeepSeek-V3 on 8 H200: B = 165 decode tokens at the
    last context S = 5,119 attend in MLA's absorbed form, d_h = (2 x 512 + 64) / 2 = 544 (kv_lora_rank 512,
    qk_rope_head_dim 64), and the 4,096-token prompt chunk (C_p = T_in = 4,096, the budget of 8,192 leaves it whole) in
    the prefill's decompressed form, d_hp = (128 + 64 + 128) / 2 = 160, as vLLM's and SGLang's MLA backends split a
    mixed batch (DeepSeek-V3 config.json; DeepSeek-V2, arXiv:2405.04434, section 2.1).  By hand, at 1978.9 TFLOP/s:
    decode 2 x 37e9 x 165 + 4 x 61 x 128 x 544 x 165 x 5,119 = 1.2210e13 + 1.43505e13 = 2.65605e13 FLOP;
    chunk 2 x 35,146,641,920 x 4,096 + 2 x 61 x 128 x 160 x 4,096^2 + 2 x 129,280 x 7,168 = 2.87921e14 + 4.19189e13
    + 1.853e9 = 3.29842e14 FLOP; the step 3.56403e14 / 1.9789e15 = 180.10 ms (compute-bound).  With the chunk at the
    decode form (the chunk's attention 1.42524e14) it read 230.94 ms."""
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    t = r.serving["techniques"]
    assert (t["batch"], t["context"], t["numbers"]["chunk_tokens"]) == (165, 5119, 4096.0)
    inputs = r.blocks["tech_chunked"].inputs
    assert (inputs["d_h"], inputs["d_hp"]) == (544.0, 160.0)
    decode = 2 * 37e9 * 165 + 4 * 61 * 128 * 544 * 165 * 5119
    chunk = 2 * (37e9 - 2 * 129280 * 7168) * 4096 + 2 * 61 * 128 * 160 * 4096**2 + 2 * 129280 * 7168
    assert (decode + chunk) / 1978.9e12 == pytest.approx(0.18010, abs=5e-6)
    assert t["numbers"]["chunked_step_time"] == pytest.approx((decode + chunk) / 1978.9e12, rel=1e-9)
    # the prompt as one chunk alone is the prompt prefilled alone (t_p): the same form, the same FLOPs
    assert t["numbers"]["chunked_ttft_alone"] == pytest.approx(t["rates"]["prefill_alone_time"], rel=1e-12)


GEMMA_L40S = """\
kind: report
name: gemma-l40s
title: Gemma 3 27B on 2 L40S
hardware: l40s
model: gemma-3-27b
precision: bf16
parallelism: {tp: 2}
workloads:
  decode: {batch: [1], context: [32k]}
serving: {prompt: 32k, output: 512, ttft: 5 s, tpot: 80 ms}
"""


def test_a_windowed_prompt_takes_the_prefills_attended_share(tmp_path):
    """Gemma 3 27B (specs/models/gemma-3-27b.yaml, from its config.json, huggingface.co/google/gemma-3-27b-pt: 62
    layers, 52 local of a 1,024-token window and 10 global, head_dim 128) on 2 L40S with a 32k prompt: a prompt of T
    tokens computes g(T) of its causal attention, (10 T^2 / 2 + 52 (1,024 T - 1,024^2 / 2)) / (62 T^2 / 2) =
    7,086,276,608 / 33,285,996,544 = 0.212890625 at T = 32,768, so d_hp = 128 g = 27.25, where the decode step's
    window share at the last context (S = 33,279) is about 23.95.  The prompt prefilled alone (t_p, the rate figure's
    service) and the chunked row's prompt alone are then the chapter's TTFT through the layout (2.4773 s, compute-bound
    on its ledgers); at the decode share they read 2.4578 s."""
    path = tmp_path / "gemma.yaml"
    path.write_text(GEMMA_L40S)
    r = evaluated(path)
    t = r.serving["techniques"]
    assert t["head_dim_chunk"] == 27.25 and t["head_dim_decode"] < 24.0
    ttft = r.serving["rows"][0]["bound"]["ttft"]
    assert t["rates"]["prefill_alone_time"] == pytest.approx(ttft, rel=1e-9)
    assert t["numbers"]["chunked_ttft_alone"] == pytest.approx(ttft, rel=1e-9)
    assert r.blocks["tech_chunked"].inputs["d_hp"] == 27.25
