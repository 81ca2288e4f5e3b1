"""``plan --speculative`` and ``plan --disaggregate`` (issue 30): the verify round and the pools at each layout.

Hand counts copied here with their sources: Llama 3.1 70B from Meta's config.json (80 layers, d 8192, 64 query and 8
KV heads of 128, 70.6e9 parameters by Meta's count, vocabulary 128,256), H100 SXM from NVIDIA's datasheet (989.4
TFLOP/s dense bf16, 3.35 TB/s) and the DGX H100 user guide (one 400 Gb/s ConnectX-7 per GPU, 50 GB/s a direction);
speculative decoding's expected tokens (1 - p^(k+1)) / (1 - p) from Leviathan, Kalman and Matias, ICML 2023, eq. (1);
DeepSeek-V3's multi-token prediction from its technical report (arXiv:2412.19437, section 5.4.3: the second token
accepted 85-90% of the time, 1.8x the generation speed).
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from genreport.commands.cli import main
from genreport.present import fmt

N, L, D, HQ, DH, V = 70.6e9, 80, 8192, 64, 128, 128256
C = 80 * 2 * 8 * 128 * 2  # bf16 KV bytes per token, whole model
P, W = 989.4e12, 3.35e12


def _json(capsys, *args):
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def _row(doc, tp, pp=1):
    return next(r for r in doc["rows"] if (r["tp"], r["pp"], r["ep"], r["dp"]) == (tp, pp, 1, 1))


def _hand_round(batch, s, tokens_per_seq=1):
    """A decode (or verify) round of 70B bf16 at tp 8, one GPU's ledgers: max(F / P, Q / W)."""
    flops = batch * tokens_per_seq * (2 * (N - V * D) + 4 * L * HQ * DH * s) / 8
    nbytes = (N * 2 + batch * s * C) / 8
    return max(flops / P, nbytes / W)


def test_speculative_memory_bound_is_nearly_free(capsys):
    """70B tp 8 on H100 at batch 1: the verify round reads what a decode round reads, so the speed-up is
    E / (1 + draft cost) with E = (1 - 0.8^4) / 0.2 = 2.952 for k = 3, p = 0.8."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8",
                "--prompt", "8k", "--output", "256", "--batch", "1", "--speculative", "3,0.8")
    r = _row(doc, 8)
    e = (1 - 0.8**4) / (1 - 0.8)
    assert e == pytest.approx(2.952)
    assert r["speculative"] == "on"
    assert r["spec_speedup"] == pytest.approx(e / 1.05, rel=2e-3)
    assert r["tpot"] == pytest.approx(r["tpot_plain"] / r["spec_speedup"], rel=1e-9)
    assert r["tpot_plain"] == pytest.approx(_hand_round(1, 8192 + 256), rel=2e-3)
    assert doc["speculative"] == {"draft_tokens": 3, "acceptance": 0.8, "draft_cost": 0.05, "verify_tokens": 4}
    plain = _row(_json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8",
                       "--prompt", "8k", "--output", "256", "--batch", "1"), 8)
    assert plain["tpot"] == pytest.approx(r["tpot_plain"], rel=1e-12) and plain["speculative"] == ""
    # the request's rounds at its mean context take the speed-up too: more tokens per user, same TTFT
    assert r["ttft"] == plain["ttft"]
    assert r["tokens_per_s_user"] / plain["tokens_per_s_user"] == pytest.approx(e / 1.05, rel=5e-3)
    # each by its own context's speed-up (serving.speculative_request): TPOT, a time at the last token (8,447), over
    # the speed-up there; tok/s and the decode rounds over the one at the mean context (8,320), both E / 1.05 at batch 1
    assert r["spec_speedup_mean"] == pytest.approx(e / 1.05, rel=2e-3)
    assert r["tokens_per_s_user"] == pytest.approx(plain["tokens_per_s_user"] * r["spec_speedup_mean"], rel=1e-12)
    assert r["e2e"] - r["ttft"] == pytest.approx((plain["e2e"] - plain["ttft"]) / r["spec_speedup_mean"], rel=1e-12)


def test_speculative_turns_off_past_the_breakeven(capsys):
    """Short requests at a large batch: the verify round's 4 B tokens make it compute-bound; past the batch where
    E t(B) = t_v(B) + 0.05 t(B) (counted here by hand, one GPU's ledgers) the row decodes plainly and says so."""
    # --max-batched-tokens 0: an engine with no max_sequences (its default, 256, would stop the batch there)
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8",
                "--prompt", "96", "--output", "32", "--batch", "1024", "--speculative", "3,0.8",
                "--max-batched-tokens", "0")
    r = _row(doc, 8)
    e = (1 - 0.8**4) / (1 - 0.8)
    s = 128
    hand = next(b for b in range(1, 1025) if e * _hand_round(b, s) <= _hand_round(b, s, 4) + 0.05 * _hand_round(b, s))
    assert r["spec_breakeven_batch"] == pytest.approx(hand, rel=0.02)
    assert r["speculative"] == "off" and r["batch"] == 1024
    assert r["tpot"] == r["tpot_plain"]  # off: the plain round
    assert r["spec_speedup"] == pytest.approx(e / 4.05, rel=1e-3)  # both compute-bound: E / (k + 1 + cost)
    # below the break-even the same layout speculates
    low = _row(_json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8",
                     "--prompt", "96", "--output", "32", "--batch", str(hand - 8), "--speculative", "3,0.8"), 8)
    assert low["speculative"] == "on" and low["spec_speedup"] > 1 and low["spec_breakeven_batch"] is None
    # the table says it
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--prompt",
                 "96", "--output", "32", "--batch", "1024", "--speculative", "3,0.8", "--limit", "0",
                 "--max-batched-tokens", "0"]) == 0
    out = capsys.readouterr().out
    assert "off (0.73x)" in out and f"batch {r['spec_breakeven_batch']:,}" in out


def test_the_breakeven_scan_stops_at_the_engines_max_sequences(capsys):
    """Llama 3.1 70B bf16 on 8 H100, 1k prompts: speculation pays up to the 256 sequences the engine runs at once
    (vLLM's max_num_seqs default, https://docs.vllm.ai/en/latest/api/vllm/config/scheduler.html) and stops paying
    past them; plan's break-even scan went on past 256 and named a batch no replica runs.  Without the engine's limit
    (--max-batched-tokens 0) the batch and the break-even go past 256."""
    args = ("llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--prompt", "1k",
            "--output", "32", "--batch", "1024", "--speculative", "3,0.8")
    r = _row(_json(capsys, *args), 8)
    assert r["batch"] == 256 and r["limit"] == "engine" and r["speculative"] == "on"
    assert r["spec_breakeven_batch"] is None
    free = _row(_json(capsys, *args, "--max-batched-tokens", "0"), 8)
    assert free["spec_breakeven_batch"] is not None and 256 < free["spec_breakeven_batch"] <= free["batch"]


def test_speculative_lets_a_larger_batch_meet_tpot(capsys):
    """A TPOT target a plain round misses at batch 64 is met with speculation: the batch is chosen on the
    verify round's time per token.  4k prompts at 7 ms (8k at 12 ms until stop 75: there the 8k prompts' prefills
    alone take the replica's compute past 12 ms a token from 37 sequences, compute_batch, before the round's latency
    binds)."""
    args = ["llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--prompt", "4k",
            "--output", "512", "--batch", "64", "--tpot", "7ms"]
    plain = _row(_json(capsys, *args), 8)
    spec = _row(_json(capsys, *args, "--speculative", "3,0.8"), 8)
    assert plain["limit"] == "latency" and plain["batch"] < 64
    assert spec["batch"] > plain["batch"] and spec["tpot"] <= 0.012
    assert spec["tokens_per_s_gpu"] > plain["tokens_per_s_gpu"]


@pytest.mark.parametrize("acceptance", [0.85, 0.9])
def test_deepseek_v3_mtp(capsys, acceptance):
    """DeepSeek-V3 fp8 on H200 with MTP depth 1 at 85-90% acceptance: 1.8x (the report's section 5.4.3).  The MTP
    head reads one layer of 61 and the embeddings it shares: 1.61e9 of 37e9 active parameters, 0.0435 of a round.
    With 128 users over a data-parallel-attention layout every expert is touched by the plain round already, so the
    verify round costs what a decode round costs and the speed-up is (1 + p) / 1.0435, within 2%."""
    doc = _json(capsys, "deepseek-v3", "--hardware", "h200", "--weights", "fp8", "--prompt", "3k", "--output", "1k",
                "--users", "128", "--speculative", f"1,{acceptance},0.0435")
    r = next(x for x in doc["rows"] if (x["tp"], x["dp"], x["ep"]) == (4, 2, 8))
    assert r["speculative"] == "on"
    assert r["spec_speedup"] == pytest.approx((1 + acceptance) / 1.0435, rel=0.02)
    assert 1.7 <= r["spec_speedup"] <= 1.85  # the published 1.8x


def test_disaggregate_hand_counts(capsys):
    """70B tp 8 on H100, 4k + 512 tokens, TPOT <= 40 ms: the balanced share t_p B / (t_p B + (T_out - 1) t_s)
    (DistServe), one prompt's KV (4,096 x 327,680 B) over 8 GPUs' 50 GB/s scale-out links, and one pool that
    prefills between rounds: TPOT + B TTFT / 511 <= 40 ms.  The rates (the pools' balance, tok/s per GPU) take the
    steady state's mean round t_s = 1 / tok/s per user, the round at the mean context 4,096 + 256, as the row's
    tok/s per GPU does; the TPOT round, at the last context, is the latency the target bounds."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8",
                "--prompt", "4k", "--output", "512", "--batch", "256", "--tpot", "40ms", "--disaggregate")
    r = _row(doc, 8)
    b, ttft, tpot = r["batch"], r["ttft"], r["tpot"]
    t_s = 1 / r["tokens_per_s_user"]  # the mean round
    assert t_s == pytest.approx(_hand_round(b, 4096 + 256), rel=3e-3) and t_s < tpot
    assert r["tokens_per_s_gpu"] == pytest.approx(b / (8 * t_s), rel=1e-9)
    # the row's batch stops where the prompts' prefills fill the compute (compute_batch, stop 75: 8 x 989.4 TFLOP/s
    # x 511 x 0.04 s / 6.6112e14 FLOP = 244.7); a decode replica of the pools prefills nothing and runs the TPOT
    # target's batch for the round alone
    assert r["limit"] == "prompts" and b == 244 and r["pool_decode_batch"] > b
    d = r["pool_decode_batch"]
    assert d == 256 and _hand_round(d, 4608) <= 0.04  # the batch asked: its round alone meets the 40 ms
    t_d = _hand_round(d, 4096 + 256)  # its mean round, by hand
    t_p, seqs = ttft * 8, d / 8
    assert r["pool_prefill_share"] == pytest.approx(t_p * seqs / (t_p * seqs + 511 * t_d), rel=3e-3)
    assert r["kv_transfer"] == pytest.approx(4096 * C / (8 * 50e9), rel=1e-9)
    assert "scale-out" in r["kv_link"] and r["pool_ttft"] == pytest.approx(ttft + r["kv_transfer"])
    b1 = r["one_pool_batch"]
    assert 0 < b1 < b
    assert r["one_pool_tpot"] == pytest.approx(_hand_round(b1, 4608) + b1 * ttft / 511, rel=3e-3)
    assert _hand_round(b1 + 1, 4608) + (b1 + 1) * ttft / 511 > 0.04 * 0.999
    assert r["one_pool_tokens_per_s_gpu"] == pytest.approx(
        b1 / (8 * (_hand_round(b1, 4096 + 256) + b1 * ttft / 511)), rel=3e-3)
    pre, dec = (int(x) for x in r["pool_split"].split(":"))
    rate = min(pre / ttft, dec * d / (511 * t_d))
    assert r["pool_tokens_per_s_gpu"] == pytest.approx(rate * 511 / ((pre + dec) * 8), rel=3e-3)
    assert r["pool_beats"] in ("yes", "tie", "no")
    # the balanced pools serve what one pool at the same batch serves: the gain is the batch the target allows
    ideal = (1 - r["pool_prefill_share"]) * d / (8 * t_d)
    assert ideal == pytest.approx(d / (8 * (t_d + d * ttft / 511)), rel=3e-3)
    # a pipeline layout, whose prefill is slower, wins: one pool must drop to a much smaller batch
    r42 = _row(doc, 4, 2)
    assert r42["pool_beats"] == "yes" and r42["pool_tokens_per_s_gpu"] > r42["one_pool_tokens_per_s_gpu"]


# The cache a 12k prompt leaves after its prefill, by hand, whole model, bf16: Llama 4 Scout (config.json text_config,
# https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json: 48 layers, every 4th global, 36
# chunked at attention_chunk_size 8,192, 8 KV heads of 128: 4,096 B a position and layer) and Gemma 3 27B
# (https://huggingface.co/google/gemma-3-27b-pt/blob/main/config.json: 62 layers, five local of window 1,024 to one
# global, 52 local and 10 global, 16 KV heads of 128: 8,192 B a position and layer).  A prefill replica sends what
# the prompt's T_in tokens hold, not T_in times the cache per token at the request's last context (12,799), which
# counted the chunked and local layers' bounded cache over more tokens (Scout 4.409 ms, Gemma 3.564 ms).
PROMPT_CACHE = {"llama-4-scout": 4096 * (12 * 12288 + 36 * 8192), "gemma-3-27b": 8192 * (10 * 12288 + 52 * 1024),
                "llama-3.1-70b": 12288 * C}


@pytest.mark.parametrize("model", sorted(PROMPT_CACHE))
def test_disaggregate_sends_the_cache_the_prompt_leaves(capsys, model):
    """plan --disaggregate, 12k + 512 on 8 H100 (replicas of 8 GPUs: two do not share one 8-GPU NVLink domain, so
    the cache crosses the scale-out network, 8 GPUs x 50 GB/s, DGX H100 user guide): T_in c at T_in."""
    doc = _json(capsys, model, "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--prompt", "12k",
                "--output", "512", "--batch", "16", "--disaggregate")
    rows = [r for r in doc["rows"] if r["tp"] * r["pp"] == 8]  # not data-parallel attention's 1-GPU replicas
    assert rows and all("scale-out" in r["kv_link"] for r in rows)
    for r in rows:
        assert r["kv_transfer"] == pytest.approx(PROMPT_CACHE[model] / (8 * 50e9), rel=1e-12)
    assert PROMPT_CACHE["llama-4-scout"] / 400e9 == pytest.approx(4.530e-3, abs=1e-6)
    assert PROMPT_CACHE["gemma-3-27b"] / 400e9 == pytest.approx(3.607e-3, abs=1e-6)


def test_chapter_and_plan_send_one_prompt_cache():
    """The serving chapter's disaggregation row (Scout swapped into the 70B tp-8 report, 12k + 512) sends the cache
    plan sends: one number."""
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ("model=llama-4-scout", "serving.prompt=12288", "serving.output=512",
                                             "serving.users=16"))
    n = r.serving["techniques"]["numbers"]
    assert "scale-out" in n["kv_link"]
    assert n["kv_transfer_time"] == pytest.approx(PROMPT_CACHE["llama-4-scout"] / (8 * 50e9), rel=1e-12)


def test_chapter_says_when_no_link_carries_the_prompt_cache():
    """On 8 L40S (specs/hardware/l40s.yaml: PCIe, a scale-up domain of 1 GPU, no node.scale_out) no link between a
    prefill and a decode replica is in the spec: the disaggregation row's TTFT leaves the transfer out and says so,
    as plan's kv_link reason does, instead of a TTFT that silently equals the aggregated one."""
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ("hardware=l40s",))
    n = r.serving["techniques"]["numbers"]
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert "kv_transfer_time" not in n and row["ttft"][0] == row["ttft"][1]
    assert ("; one prompt's KV cache transfer is not counted in the TTFT: no link between replicas in the spec; one "
            "pool of these replicas") in row["ends"]


DISTSERVE_FIGURE_1 = """kind: report
name: distserve-figure-1
title: Llama 2 13B on one A100, DistServe's Figure 1 request
hardware: a100-sxm-80gb
model: llama-2-13b
precision: bf16
workloads:
  decode: {batch: [1, 32], context: [544]}
  prefill: {prompt: [512]}
serving: {prompt: 512, output: 64, ttft: 400 ms, tpot: 40 ms}
"""


def test_disaggregate_takes_distserve_s_split_and_direction(capsys):
    """DistServe's motivating example (Zhong et al., OSDI 2024, arXiv:2401.09670, section 1 and Figure 1): a 13B model
    on one A100 80 GB, every prompt 512 tokens and every output 64, P90 TTFT <= 0.4 s and P90 TPOT <= 0.04 s.  Measured:
    one colocated GPU (vLLM) 1.6 requests/s, a prefill-only GPU 5.6, a decode-only GPU 10; two prefill GPUs and one
    decode GPU serve 3.3 requests/s per GPU, 2.1x.  plan's own answer for Llama 2 13B (the same 40 layers of
    5,120 with 40 full-width heads as the paper's OPT-13B, 13.0e9 parameters) on that card: the pools' best split
    of up to 16 GPUs is 2:1, DistServe's, and they beat one pool (which must hold its batch to 30 for its TPOT with
    the prompts' prefills between its rounds), by 1.29x: the direction, two-fifths of the measured gain short (the
    formula-level check with the tails: tests/test_techniques_published.py).  At the chatbot's 0.1 s target one pool
    holds nearly every sequence it fits and the pools only tie with it, as the chatbot tests there find."""
    args = ("llama-2-13b", "--hardware", "a100-sxm-80gb", "--weights", "bf16", "--gpus", "1", "--prompt", "512",
            "--output", "64", "--ttft", "0.4s", "--batch", "1000", "--disaggregate")
    tight = _row(_json(capsys, *args, "--tpot", "40ms"), 1)
    assert tight["pool_split"] == "2:1" and tight["pool_beats"] == "yes"
    assert tight["one_pool_batch"] == 30 and tight["one_pool_tpot"] <= 0.04
    gain = tight["pool_tokens_per_s_gpu"] / tight["one_pool_tokens_per_s_gpu"]
    assert gain == pytest.approx(1.29, abs=0.01) and 1 < gain < 2.1
    loose = _row(_json(capsys, *args, "--tpot", "100ms"), 1)
    assert loose["pool_split"] == "2:1" and loose["pool_beats"] == "tie"
    assert loose["one_pool_batch"] > 3 * tight["one_pool_batch"]
    # the serving chapter's disaggregation row at the same request: the same one pool (batch 30, the same tok/s per
    # GPU), against balanced (fractional) pools whose decode replicas run 106 (what the caches hold: the decode round
    # alone meets 40 ms there), 1.30x; the chapter's own batch, one pool's with the prompts' prefills within its compute
    # roof, is 53 (compute_batch, stop 75: 312 TFLOP/s x 63 x 0.04 s over a request's FLOPs)
    from shared import evaluated_text

    r = evaluated_text(DISTSERVE_FIGURE_1, "distserve-figure-1.yaml")
    tq = r.serving["techniques"]
    row, n = next(x for x in tq["rows"] if x["technique"] == "prefill/decode disaggregation"), tq["numbers"]
    assert (n["one_pool_batch"], tq["batch"], r.serving["decode_tpot_batch"]) == (30, 53, 106)
    assert r.serving["compute_batch"] == 53 and "at batch 106" in row["ends"]
    assert row["per_gpu"][0] == pytest.approx(tight["one_pool_tokens_per_s_gpu"], rel=1e-9)
    assert row["gain"] == pytest.approx(1.30, abs=0.005) and row["tpot"][0] <= 0.04


def test_disaggregate_pipelines_the_prefill_of_a_pipeline_layout(capsys):
    """DistServe's prefill instance (Zhong et al., OSDI 2024, section 3.1; its artifact runs OPT-13B's prefill on
    2 pipeline stages): a replica of pp stages admits a prompt every pass / pp, the pass its stages' ledgers in turn
    (prefill_pass_bound), which the TTFT's bound may beat (a schedule can pipeline one prompt's pieces over the stages).
    70B on 8 H100 at tp 4 x pp 2, 4k + 512, batch 256: by hand the best split of whole replicas (one prompt at a
    time) and of 2-stage pipelines over up to 16 replicas; plan takes the better, the pipeline, and says so."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8",
                "--prompt", "4k", "--output", "512", "--batch", "256", "--disaggregate")
    r = _row(doc, 4, 2)
    b, ttft, busy = r["batch"], r["ttft"], r["pool_prefill_pass"]
    assert ttft < busy < 2 * ttft  # the bound: the last stage after the first piece's walk; the pass: both stages
    t_s = 1 / r["tokens_per_s_user"]  # the steady state's mean round
    decode = b / (511 * t_s)  # requests/s a decode replica retires

    def best(stages):
        return max((min(pre * stages / busy, (n - pre) * decode) * 511 / (n * 8), -n, pre, stages)
                   for n in range(2, 17) for pre in range(1, n))

    whole, piped = best(1), best(2)
    assert piped[0] > 1.5 * whole[0]  # the pipelines: 520.18 tok/s per GPU
    assert r["pool_prefill_stages"] == 2 and r["pool_split"] == f"{piped[2]}:{-piped[1] - piped[2]}" == "3:2"
    assert r["pool_tokens_per_s_gpu"] == pytest.approx(piped[0], rel=1e-12)
    # 512.87 at the TPOT round; 520.21 before each GPU held the norms whole (tests/test_tp_copies.py)
    assert r["pool_tokens_per_s_gpu"] == pytest.approx(520.18, abs=0.01)
    t_p, seqs = busy * 8, b / 8  # the balanced share with k_pp = 2: t_p B / (t_p B + 2 x 511 t_s)
    assert r["pool_prefill_share"] == pytest.approx(t_p * seqs / (t_p * seqs + 2 * 511 * t_s), rel=1e-12)
    assert r["pool_ttft"] == pytest.approx(ttft + r["kv_transfer"], rel=1e-12)  # each prompt still takes the TTFT
    assert _row(doc, 8)["pool_prefill_stages"] == 1  # no stages: whole replicas
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--prompt",
                 "4k", "--output", "512", "--batch", "256", "--disaggregate", "--limit", "0"]) == 0
    out = capsys.readouterr().out
    assert "2 stages" in out and "replicas" in out and "admitting a prompt every pass / pp" in out


def test_chapter_pools_pipeline_the_prefill_as_plan_does():
    """The serving chapter at tp 4 x pp 2 (the 70B report's layout changed): its disaggregation row balances prefill
    pipelines of 2 stages, as plan's row for that layout at the chapter's batch does (one share, to 1e-12), says so,
    and prints the balanced share with k_pp."""
    from genreport.model.plan import Shape, plan
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ("parallelism.tp=4", "parallelism.pp=2"))
    spec, sv, tech = r.spec, r.spec.serving, r.serving["techniques"]
    n = tech["numbers"]
    assert n["prefill_stages"] == 2
    found = plan(spec.model, spec.hardware, tech["batch"], None, None, ("bf16",), 8, spec.accounting,
                 shape=Shape(sv.prompt, sv.output), disaggregate=True)
    p = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (4, 2, 1, 1))
    assert p.batch == tech["batch"] and p.pool_prefill_stages == 2
    assert p.pool_prefill_share == pytest.approx(n["prefill_share"], rel=1e-12)
    row = next(x for x in tech["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert "each prefill replica a pipeline of 2 stages" in row["setting"]
    assert f"serves {fmt.sig3(2 / p.pool_prefill_pass)} prompts/s (a prompt every {fmt.time(p.pool_prefill_pass)} / 2, " \
           "its pass through the 2 stages" in row["ends"]
    decoding = r.serving["rows"][-1]["bound"]["tokens_per_s_gpu"]  # the replicas decoding alone
    assert row["per_gpu"][1] == pytest.approx(decoding * (1 - n["prefill_share"]), rel=1e-12)
    # the row's before is plan's one pool at the TPOT target: the same batch and the same tok/s per GPU
    at_target = plan(spec.model, spec.hardware, tech["batch"], None, sv.tpot, ("bf16",), 8, spec.accounting,
                     shape=Shape(sv.prompt, sv.output), disaggregate=True)
    p = next(x for x in at_target.rows if (x.tp, x.pp, x.ep, x.dp) == (4, 2, 1, 1))
    assert 0 < n["one_pool_batch"] < tech["batch"] and n["one_pool_tpot"] <= sv.tpot
    assert (n["one_pool_batch"], row["per_gpu"][0]) == (p.one_pool_batch, pytest.approx(p.one_pool_tokens_per_s_gpu,
                                                                                           rel=1e-9))
    from genreport.formulas.compiled import load

    assert "k_pp" in load()["balanced_prefill_gpus"].fn_args


def test_disaggregate_columns_and_errors(capsys):
    args = ["llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "2", "--prompt", "2k", "--output", "256",
            "--disaggregate", "--speculative", "2,0.7"]
    assert main(["plan", *args, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and {"pool_split", "kv_transfer", "pool_beats", "speculative", "spec_speedup"} <= set(rows[0])
    assert all(r["kv_link"].startswith("scale-up") for r in rows)  # two 2-GPU replicas sit in one NVLink domain
    assert main(["plan", *args, "--format", "md"]) == 0
    md = capsys.readouterr().out
    assert "pools P:D" in md and "pools win" in md
    assert main(["plan", *args[:-3]]) == 0
    assert "pools" not in capsys.readouterr().out  # the columns only when asked
    for bad in ("x", "0,0.8", "2,1", "2,0.8,-1", "2,0.8,0.1,2", "2,0.8,0.1,4,5", "2,0.8,0.1,4.5"):
        assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--speculative", bad]) == 1
        assert "--speculative" in capsys.readouterr().err
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--disaggregate"]) == 1
    assert "--output" in capsys.readouterr().err


def test_verify_round_limits():
    """n_v = 1 (k_d = 0: one token a sequence) is the decode round itself, bound and estimate (formulas/techniques.py); one pool with no prefill
    (t_p = 0) has the decode pool's TPOT.  The rounds are compared as the report computes them (the compiled
    formulas) at random positive inputs, in each regime the Max picks: SymPy's simplify of the two pipelined Max
    expressions took 21 s for the same answer."""
    import numpy as np
    from genreport.formulas import techniques
    from genreport.formulas.compiled import load
    from genreport.formulas.glossary import sym

    q = load()
    rng = np.random.default_rng(7)
    for verify, plain in (("verify_time_bound", "decode_time_bound"), ("verify_time_serial", "decode_time_serial")):
        v, d = q[verify], q[plain]
        assert set(d.fn_args) <= set(v.fn_args) and "n_v" in v.fn_args
        for _ in range(200):  # inputs over six decades, so each term of the Max leads somewhere
            x = {a: 10.0 ** rng.uniform(-3, 3) for a in v.fn_args}
            x.update(n_v=1.0, n_TP=float(rng.integers(1, 9)), n_PP=float(rng.integers(1, 5)))
            assert v.fn(*(x[a] for a in v.fn_args)) == pytest.approx(d.fn(*(x[a] for a in d.fn_args)), rel=1e-12)
    assert techniques.aggregated_tpot().subs(sym("t_pr"), 0) == sym("t_s")


def test_nvl72_domain_is_searched_by_default(capsys):
    """--max-gpus defaults to 72, a GB200 NVL72 domain; tp x pp that fill it are tried with uneven stages: 80 layers
    over pp 9 are stages of 9 and 8 layers, the first holding 9 layers and the embedding over 8 GPUs, pp 18 stages of
    4 and 5."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "gb200", "--weights", "fp8")
    assert doc["max_gpus"] == 72 and max(r["gpus"] for r in doc["rows"]) == 72
    rows = {(r["tp"], r["pp"]): r for r in doc["rows"] if r["gpus"] == 72}
    # the memory is the stage's that holds the fewest tokens (genreport.model.stages): the first, with a layer more
    # than the last and the embedding (128,256 x 8192) beside its layers of 855,654,400 parameters, of the 70.55e9
    # the shapes count; 70.6e9 declared (seed accounting), 1 B each in fp8
    layer, vd, total = 855_654_400, 128256 * 8192, 70_553_706_496
    # with the norms each GPU of tp 8 holds whole (tests/test_tp_copies.py), 7 more copies of the model's 1,318,912 and
    # of the first stage's 9 layers' 2 x 8,192
    norms = 80 * 2 * 8192 + 8192
    assert rows[(8, 9)]["weight_bytes_per_gpu"] == pytest.approx(
        (70.6e9 + 7 * norms) * (9 * layer + vd + 7 * 9 * 2 * 8192) / (total + 7 * norms) / 8, rel=1e-9)
    # pp 18: vLLM puts the 8 extra layers on the stages before the last, so the first holds 4 and the embedding, and a
    # middle stage of 5 layers binds
    assert rows[(4, 18)]["weight_bytes_per_gpu"] == pytest.approx(
        (70.6e9 + 3 * norms) * (5 * layer + 3 * 5 * 2 * 8192) / (total + 3 * norms) / 4, rel=1e-9)
    assert "NVLink" in rows[(8, 9)]["links"] and "scale-out" not in rows[(8, 9)]["links"]  # inside the domain


def test_json_has_no_nan(capsys):
    """Columns that were not asked for, or have no value, are null: strict JSON parsers refuse NaN."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--format", "json"]) == 0
    out = capsys.readouterr().out
    assert "NaN" not in out
    doc = json.loads(out)
    assert all(r["spec_speedup"] is None and r["kv_transfer"] is None for r in doc["rows"])


def test_completion_offers_the_new_options_and_quantities():
    from genreport.commands.completion import candidates

    assert candidates(["plan", "deepseek-v3"], "--spec") == ["--speculative"]
    assert candidates(["plan", "deepseek-v3"], "--disa") == ["--disaggregate"]
    assert {"verify_time_bound", "verify_time_serial"} <= set(candidates(["derive"], "verify_"))
    assert "speculative_speedup_layout" in candidates(["derive"], "speculative_")


def test_chapter_pools_take_the_mean_round_as_their_tok_s_per_gpu():
    """Mixtral 8x22B bf16 on 8 MI300X (tp 8 x ep 8), sharegpt prompts, chunk 2048, TPOT 40 ms: the disaggregation
    row's pool split and 'a decode replica retires N requests/s' took the TPOT round (the last context's) while its
    tok/s per GPU (6,226 -> 1,413) took the mean round; at the TPOT round it would have been 1,342 (rev4).  A rate is a
    steady state: a decode replica's batch holds sequences at every point of their output, so one request's T_o - 1
    rounds take (T_o - 1) / tok/s per user.  Now one round for all three, plan's (to 1e-12)."""
    from genreport.model.plan import Shape, plan
    from shared import evaluated

    r = evaluated("mixtral8x22b-h100-tp8-ep8.yaml", (
        "hardware=mi300x", "serving={prompt: 4k, output: 1k, ttft: 3 s, tpot: 40 ms, users: 512, chunk: 2048, "
        "prompt_spread: sharegpt}"))
    spec, sv, tech = r.spec, r.spec.serving, r.serving["techniques"]
    n, base = tech["numbers"], r.serving["rows"][-1]["bound"]
    row = next(x for x in tech["rows"] if x["technique"] == "prefill/decode disaggregation")
    t_s = 1 / base["tokens_per_s_user"]
    assert n["pool_round"] == pytest.approx(t_s, rel=1e-12) and t_s < base["tpot"]
    # what a decode replica retires, over its GPUs, is the chapter's tok/s per GPU (its replicas decoding alone)
    assert n["pool_rate"] * (sv.output - 1) / 8 == pytest.approx(base["tokens_per_s_gpu"], rel=1e-12)
    assert row["per_gpu"][1] == pytest.approx(base["tokens_per_s_gpu"] * (1 - n["prefill_share"]), rel=1e-12)
    assert f"a decode replica retires {fmt.sig3(n['pool_rate'])} requests/s" in row["ends"]
    found = plan(spec.model, spec.hardware, tech["batch"], None, None, ("bf16",), 8, spec.accounting,
                 shape=Shape(sv.prompt, sv.output), disaggregate=True)
    p = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 1, 8, 1))
    assert p.batch == tech["batch"]
    assert p.pool_prefill_share == pytest.approx(n["prefill_share"], rel=1e-12)
    # derive evaluates the pools at the row's point: the same share and rate
    from genreport.commands.derive import _pool_point

    pools = _pool_point(spec)
    assert pools["t_s"] == pytest.approx(t_s, rel=1e-12)
    from genreport.formulas.compiled import load

    q = load()
    given = {**pools, "T_out": float(sv.output)}
    for qid, want in (("balanced_prefill_gpus", n["prefill_share"]), ("decode_pool_rate", n["pool_rate"])):
        assert float(q[qid](given)) == pytest.approx(want, rel=1e-12)


def test_a_mixture_of_experts_that_speculates_again_past_the_breakeven_says_so(capsys):
    """gpt-oss-120b (4 of 128 experts) on 4 GB200, tp 4 x ep 4, an MTP-style head: at batches 2-6 the verify round's
    4 B tokens touch so many more experts than the plain round's B that speculation does not pay; from 7 on it does
    again (every expert read either way), so at batch 256 it speculates 2.46x.  The table said "spec ends: batch 2"
    beside "2.46x"; it names the batches where it does not pay."""
    args = ("gpt-oss-120b", "--hardware", "gb200", "--prompt", "4k", "--output", "1k", "--gpus", "4",
            "--speculative", "3,0.7,layers:1")
    doc = _json(capsys, *args, "--batch", "256")
    (r,) = [x for x in doc["rows"] if (x["tp"], x["pp"], x["ep"], x["dp"]) == (4, 1, 4, 1)]
    assert r["speculative"] == "on" and r["batch"] == 256
    off, again = r["spec_breakeven_batch"], r["spec_resumes_batch"]
    assert off is not None and again is not None and off < again <= 256
    for b, on in ((off, False), (again - 1, False), (again, True)):
        (x,) = [y for y in _json(capsys, *args, "--batch", str(b))["rows"]
                if (y["tp"], y["pp"], y["ep"], y["dp"]) == (4, 1, 4, 1)]
        assert x["batch"] == b and (x["speculative"] == "on") is on
    assert main(["plan", *args, "--batch", "256", "--limit", "0"]) == 0
    assert f"off at {off}-{again - 1}" in capsys.readouterr().out


def test_speculation_that_stops_again_past_its_window_says_so(capsys):
    """Mixtral 8x7B in int4 on 2 H100 PCIe (tp 2 x ep 2) drafted by Mistral 7B in int4: speculation does not pay at
    batches 1-3 (the verify round's 5 tokens touch more of the 8 experts), pays from 4, and stops again where the
    draft's 4 passes, each reading its own cache of every sequence (128 KiB a token, mistralai/Mistral-7B-v0.1
    config.json: 32 layers x 8 KV heads x 128 x 2 x 2 B), cost more than the verify round saves. At batch 64 the row
    decodes plainly ("off (0.86x)") and the table said only "off at 1-3"; it names where it stops again."""
    args = ("mixtral-8x7b", "--hardware", "h100-pcie", "--weights", "int4", "--kv-cache", "bf16", "--prompt", "2k",
            "--output", "512", "--gpus", "2", "--speculative", "4,0.7,mistral-7b@int4")
    doc = _json(capsys, *args, "--batch", "64")
    (r,) = [x for x in doc["rows"] if (x["tp"], x["pp"], x["ep"], x["dp"]) == (2, 1, 2, 1)]
    off, again, stops = r["spec_breakeven_batch"], r["spec_resumes_batch"], r["spec_stops_again_batch"]
    assert r["speculative"] == "off" and off is not None and again is not None and stops is not None
    assert off < again < stops <= 64
    for b, on in ((stops - 1, True), (stops, False)):
        (x,) = [y for y in _json(capsys, *args, "--batch", str(b))["rows"]
                if (y["tp"], y["pp"], y["ep"], y["dp"]) == (2, 1, 2, 1)]
        assert x["batch"] == b and (x["speculative"] == "on") is on
    assert main(["plan", *args, "--batch", "64", "--limit", "0"]) == 0
    assert f"off at {off}-{again - 1} and from {stops}" in capsys.readouterr().out


def test_the_pools_prefill_the_uncached_part_of_a_prompt():
    """Qwen2.5 72B-like shape on the 70B report with half of each prompt cached (serving.prefix_hit 0.5): the
    prefix caching and chunked prefill rows prefill the uncached half, but the disaggregation row balanced its pools
    with the whole prompt's TTFT (Qwen2.5 72B fp8 on 2 GB200: 65% of the GPUs prefilling, each prefill replica
    16.75 prompts/s, where the uncached half takes 29.9 ms: 48%, 33.49 prompts/s).  A prefill replica now takes
    the uncached part alone at the layout, the prefix caching row's TTFT (more than a fresh 2k prompt's: its tokens
    attend to the cached half too; compute-bound, a little over half the 4k one's), and the balance is DistServe's
    over that."""
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ("serving.prefix_hit=0.5",))
    tech = r.serving["techniques"]
    n, rows = tech["numbers"], {x["technique"]: x for x in tech["rows"]}
    ttft = rows["prefix caching"]["ttft"]
    two_k = evaluated("llama70b-h100-tp8.yaml", ("serving.prompt=2048",)).serving["rows"][-1]["bound"]
    assert ttft[1] == n["prefix_ttft"] and two_k["ttft"] < ttft[1] < 0.55 * ttft[0]
    pools = rows["prefill/decode disaggregation"]
    t_p, retires = ttft[1], n["pool_rate"]  # one decode replica's requests/s at the chapter's batch
    assert n["prefill_share"] == pytest.approx(retires * t_p / (retires * t_p + 1), rel=1e-12)  # rates balanced
    assert f"serves {fmt.sig3(1 / t_p)} prompts/s" in pools["ends"]
    assert pools["ttft"][1] == pytest.approx(t_p + n["kv_transfer_time"], rel=1e-12)
    plain = evaluated("llama70b-h100-tp8.yaml").serving["techniques"]["numbers"]
    assert n["prefill_share"] < plain["prefill_share"]  # half the prefill work: a smaller prefill pool


def test_disaggregate_pools_are_whole_expert_parallel_groups(capsys):
    """plan --disaggregate, DeepSeek-V3 fp8 on 8 H200: where ep > tp (data-parallel attention, ep 8 over every GPU)
    an expert-parallel group spans the whole layout, so no replica serves alone.  The pools are counted in whole
    layouts (P:D of 8 GPUs each), each a whole number of groups (lcm(tp, ep) pp GPUs), never a share of one, and they
    serve the lesser of the two pools' rates: at most D / (P + D) of the one pool's tok/s per GPU."""
    import math

    doc = _json(capsys, "deepseek-v3", "--hardware", "h200", "--gpus", "8", "--prompt", "4k", "--output", "1k",
                "--batch", "64", "--weights", "fp8", "--disaggregate")
    rows = [r for r in doc["rows"] if r["ep"] > r["tp"]]
    assert {(r["tp"], r["dp"]) for r in rows} >= {(1, 8), (2, 4), (4, 2)}
    for r in rows:
        pre, dec = map(int, r["pool_split"].split(":"))
        assert pre >= 1 and dec >= 1 and r["gpus"] % (math.lcm(r["tp"], r["ep"]) * r["pp"]) == 0
        assert 0 < r["pool_prefill_share"] < 1  # the balanced share, fractional; the split is whole layouts
        assert r["pool_tokens_per_s_gpu"] <= r["tokens_per_s_gpu"] * dec / (pre + dec) * (1 + 1e-12)


def test_no_acceptance_at_no_draft_cost_is_a_tie_that_decodes_plainly(capsys):
    """QA of stop 71: ``--speculative 1,0,0`` (nothing accepted, drafts free) computes a speed-up of
    1.0000000000000002 at tp 8, which plan called "on" (breaking even at batch 1, "off at 1-4 and from 6"); a tie goes
    to plain decoding (serving.PAYS), so every row is off and its TPOT the plain one."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--speculative", "1,0,0", "--gpus", "8",
                "--weights", "bf16", "--batch", "5")
    assert doc["rows"]
    for r in doc["rows"]:
        assert r["speculative"] == "off" and r["spec_speedup"] == pytest.approx(1.0, abs=1e-12), r
        assert r["tpot"] == r["tpot_plain"]
