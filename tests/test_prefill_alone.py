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
    # one GPU's slice without collectives is at most the TTFT through the layout (tp 1: the same prompt's FLOPs)
    assert t_p <= r.serving["rows"][0]["bound"]["ttft"] * (1 + 1e-9)
