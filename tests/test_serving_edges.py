"""The serving chapter at the edges an outside review found (stop 71): a prefix cache that holds nearly the whole
prompt, a TPOT target neither pool meets, a verify step that turns compute-bound only past the engine's batch.

Each case is a spec of its own (an MoE over 8 GPUs with expert parallelism, a sliding-window MoE on one card in its
checkpoint's formats) or a what-if of the committed dense one; the numbers it checks are derived in the test."""

from __future__ import annotations

import pytest
from shared import evaluated, evaluated_text

QWEN_EP8 = """\
kind: report
name: qwen-ep8
title: Qwen3 235B fp8 on 8 H200 (tp 4 x dp 2 x ep 8)
hardware: h200
model: qwen3-235b-a22b
precision: fp8
parallelism: {tp: 4, dp: 2, ep: 8}
workloads:
  decode: {batch: [1, 32], context: [1k]}
serving:
  prompt: 2k
  output: 2k
  tpot: 30 ms
  users: 512
  speculative: {draft_tokens: 3, accepted_length: 3.5, draft_layers: 1}
"""

GPT_OSS_ONE = """\
kind: report
name: gpt-oss-one
title: gpt-oss-120b on one H100 at a 1 ms TPOT
hardware: h100-sxm
model: gpt-oss-120b
precision: checkpoint
workloads:
  decode: {batch: [1], context: [1k]}
serving:
  prompt: 1k
  output: 8k
  tpot: 1 ms
  users: 64
"""


def _row(r, technique: str) -> dict:
    return next(x for x in r.serving["techniques"]["rows"] if x["technique"] == technique)


def test_a_prefix_cache_of_99_percent_still_reads_the_weights_once():
    """Llama 3.1 70B bf16 at tp 8 on H100, 4,096-token prompts 99% cached: the TTFT read 73.7 -> 0.74 ms, the whole
    prompt's times 0.01, under the 5.27 ms a GPU takes to read its eighth of the weights (70.6e9 x 2 B / 8 at
    3.35 TB/s), and a prefill replica "served 1,357 prompts/s". It is now the 41 uncached tokens alone at the layout:
    at least that read, and the chunked row's TTFT at least the step its one chunk rides in."""
    r = evaluated("llama70b-h100-tp8.yaml", ("serving.prefix_hit=0.99",))
    n = r.serving["techniques"]["numbers"]
    weights = (70.6e9 - 128256 * 8192) * 2 / 8 / 3.35e12  # the GPU's dense slice, the embedding table not read
    prefix = _row(r, "prefix caching")
    assert prefix["ttft"][1] >= weights and prefix["ttft"][1] == n["prefix_ttft"]
    assert prefix["ttft"][1] < 1.05 * weights  # 41 tokens: the read binds
    assert prefix["ttft"][0] > 10 * prefix["ttft"][1]
    pools = _row(r, "prefill/decode disaggregation")
    assert pools["ttft"][1] == pytest.approx(prefix["ttft"][1] + n["kv_transfer_time"], rel=1e-12)
    assert n["pool_prefill_time"] == n["prefix_prefill"] >= prefix["ttft"][1]
    chunked = _row(r, "chunked prefill")
    assert chunked["ttft"][1] >= chunked["tpot"][1]  # the prompt's one chunk rides in a step of that TPOT


def test_neither_pool_meeting_the_tpot_target_claims_no_gain():
    """gpt-oss-120b on one H100 at a 1 ms TPOT target: one pool misses it even at batch 1, and the pools at the
    chapter's batch miss it too (their TPOT well over 1 ms); the row said "the pools 4.21x" as if they met it."""
    r = evaluated_text(GPT_OSS_ONE, "gpt-oss-one")
    row = _row(r, "prefill/decode disaggregation")
    assert row["tpot"][1] > 1e-3
    assert "misses the 1 ms TPOT target even at batch 1" in row["ends"]
    assert "TPOT misses it too: neither meets the target" in row["ends"]
    assert "the pools " not in row["ends"].split("even at batch 1")[1].replace("the pools' ", "")


def test_a_verify_step_that_turns_compute_bound_past_the_engines_batch_is_said_so():
    """Qwen3 235B fp8 on 8 H200 (tp 4 x dp 2 x ep 8), an MTP head: speculation pays at every batch up to the engine's
    256 sequences, and one GPU's verify step turns compute-bound only at 765, past them. The row read "past batch
    765 the speed-up at the last token falls, to 3.36x at batch 256", a crossover past the batch it names."""
    r = evaluated_text(QWEN_EP8, "qwen-ep8")
    row, n = _row(r, "speculative decoding"), r.serving["techniques"]["numbers"]
    assert n["breakeven_batch"] is None and n["verify_crossover_batch"] > 256
    assert "pays at every batch up to the 256 sequences the engine runs at once" in row["ends"]
    assert f"turns compute-bound only at {n['verify_crossover_batch']:,.0f}" in row["ends"]
    assert "past batch" not in row["ends"]


@pytest.mark.parametrize("name", ["deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml"])
def test_a_one_token_request_has_no_disaggregation_row(name):
    """A request of one generated token has its first token from the prefill and no decode round, so no decode pool
    has work (``plan --disaggregate`` refuses --output 1): the chapter states no disaggregation row, no pools' rate.
    The hostile review of stop 88 found DeepSeek-V3's expert-parallel groups reading "the pools serve the lesser of
    their rates, min(48, ∞) requests/s: tok/s per GPU 0%" and the dense 70B "100% prefill, 0% decode ... 205 → 0"."""
    from shared import words

    r = evaluated(name, ["serving.output=1"])
    techniques = r.serving["techniques"]
    assert techniques is not None
    assert "prefill/decode disaggregation" not in [row["technique"] for row in techniques["rows"]]
    assert not {"prefill_share", "pool_rate", "pool_decode_rate"} & set(techniques["numbers"])
    text = words(r, "s9_serving")  # the chapter's words, no what-if report built
    assert "∞" not in text and "Disaggregation: pools" not in text
    assert "Disaggregation: pools" in words(evaluated(name), "s9_serving")  # the specs' own requests state them
