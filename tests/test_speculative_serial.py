"""Speculative decoding as engines pay it: the serving chapter's lever row states the serial estimate's speed-up and
where it stops paying beside the strict bound's ratio; and the chapter's cheapest layout is the first row of ``plan``
in its cost order, with or without speculation.

The bound's ratio t_plain / (t_verify + t_draft) is a ratio of two lower bounds, not a bound: a round of the bound
has no fixed cost, so a verify round that reads more experts than a plain one (a mixture of experts at a small batch)
is slower there, while an engine's round pays its kernels' and collectives' fixed costs once for all of the verify
round's tokens.  Measured (TensorRT-LLM, docs/source/blogs/tech_blog/blog1_Pushing_Latency_Boundaries_Optimizing_
DeepSeek-R1_Performance_on_NVIDIA_B200_GPUs.md, "Autoregressive MTP Layers", at commit 01c4ece): DeepSeek-R1 on 8
B200 (nvfp4 experts, batch 1, 1k prompt, 2k output), 111 tok/s per user without MTP; with 1 and 3 MTP layers 198 and
253 at 1.92 and 2.82 tokens per verify step: 1.78x and 2.28x.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from genreport.commands import plan as plan_cmd
from genreport.model.techniques import _layout_round
from shared import evaluated_text, spec_file

# DeepSeek-R1 (DeepSeek-V3's shapes) as the blog ran it: tp 8 with the experts over ep 2 (TP4 x EP2), nvfp4 experts,
# bf16 attention and embeddings, one MTP head layer (the blog's MTP layers are passes of that head: draft_tokens)
DSR1_B200 = """\
kind: report
name: dsr1-b200-mtp{k}
title: DeepSeek-R1 on 8 B200, MTP {k}
hardware: b200
model: deepseek-v3
precision:
  weights: {{default: nvfp4, experts: nvfp4, attention: bf16, embeddings: bf16}}
  kv_cache: bf16
parallelism: {{tp: 8, ep: 2}}
workloads:
  decode: {{batch: [1], context: [2k]}}
  prefill: {{prompt: [1k]}}
serving:
  prompt: 1k
  output: 2k
  users: 1
  speculative: {{draft_tokens: {k}, accepted_length: {tau}, draft_layers: 1}}
"""
MEASURED = {1: (1.92, 198 / 111), 3: (2.82, 253 / 111)}


def _row(r) -> dict:
    return next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "speculative decoding")


@pytest.mark.parametrize("k", sorted(MEASURED))
def test_the_serial_estimate_gives_deepseek_r1_s_mtp_speed_up(k):
    """The chapter's serial speed-up at batch 1 is within 10% of the measured one (1.78x, 2.28x), where the bound's
    ratio is 14-29% under it (19-37% before each GPU of tp 8 read its whole MLA down-projections, norms and router:
    tests/test_tp_copies.py); none of them is a bound, and the row says both."""
    tau, measured = MEASURED[k]
    r = evaluated_text(DSR1_B200.format(k=k, tau=tau), f"dsr1-b200-mtp{k}")
    n = r.serving["techniques"]["numbers"]
    assert n["speedup_mean_serial"] == pytest.approx(measured, rel=0.10), (n["speedup_mean_serial"], measured)
    assert n["speedup_mean"] < 0.9 * measured
    assert n["breakeven_batch_serial"] is None  # it pays at every batch the engine runs
    row = _row(r)
    assert f"the serial estimate: TPOT {n['speedup_last_serial']:.2f}× faster, tok/s {n['speedup_mean_serial']:.2f}×" \
        in row["note"]
    assert "by the serial estimate (each round's fixed costs, the kernels' and the collectives', paid once for all " \
           "of a verify round's tokens) it pays at every batch up to" in row["ends"]


# Llama 4 Scout in fp8 on 8 B200 at tp 8 with a free drafter of 5 tokens at 1.66 tokens a verify step (TensorRT-LLM's
# n-gram speculation, docs/source/blogs/tech_blog/blog7_NGram_performance_Analysis_And_Auto_Enablement.md; its
# measured speed-ups pass the stated 1.66 tokens a step, so only the direction is taken from it: it pays at batch 1)
SCOUT_B200 = """\
kind: report
name: scout-b200-ngram
title: Llama 4 Scout fp8 on 8 B200, n-gram speculation
hardware: b200
model: llama-4-scout
precision: fp8
parallelism: {tp: 8}
workloads:
  decode: {batch: [1, 4, 32], context: [2k]}
  prefill: {prompt: [1k]}
serving:
  prompt: 1k
  output: 1k
  users: 1
  speculative: {draft_tokens: 5, accepted_length: 1.66, draft_cost: 0}
"""


def test_a_mixture_of_experts_where_the_bound_s_ratio_does_not_pay_and_the_estimate_s_does():
    """Scout at batch 1: the verify step's 6 tokens a sequence touch 16 (1 - (15/16)^6) = 5.14 experts of a layer
    where a plain step's one touches 1, so the bound's ratio is 0.68 (it does not pay from batch 1 to 12); the serial
    round pays its fixed costs once for the verify round's tokens: 1.46x, and it pays at every batch scanned.  The
    chapter's serial speed-up is the frontier's titled layout's at batch 1 (serving.curve: another path to it), and
    the scan's break-evens are the first batches where the speed-up at the last token passes or falls to 1."""
    r = evaluated_text(SCOUT_B200, "scout-b200-ngram")
    n = r.serving["techniques"]["numbers"]
    assert (n["breakeven_batch"], n["resumes_batch"]) == (1, 13)
    assert n["speedup_last"] == pytest.approx(0.681, abs=1e-3) and n["speedup_last_serial"] == pytest.approx(1.464, abs=1e-3)
    assert (n["breakeven_batch_serial"], n["resumes_batch_serial"], n["stops_again_batch_serial"]) == (None, None, None)
    titled = next(x for x in r.serving["frontier"]["layouts"] if x.get("titled"))
    assert titled["batch"][0] == 1
    assert titled["speculative"]["serial"]["speedup"][0] == pytest.approx(n["speedup_last_serial"], rel=1e-12)
    assert titled["speculative"]["bound"]["speedup"][0] == pytest.approx(n["speedup_last"], rel=1e-12)
    lay = _layout_round(r, 1.0)
    assert lay["serial_pays"] == {"breakeven": None, "resumes": None, "stops_again": None}
    assert (lay["breakeven"], lay["resumes"]) == (1, 13)
    row = _row(r)
    assert row["ends"].startswith("does not pay from batch 1 to 12 per replica at this layout")
    assert "it pays at every batch up to 256" in row["ends"]
    assert "TPOT 1.47× slower at the last token" in row["note"] and "the serial estimate: TPOT 1.46× faster" in row["note"]


def test_the_pays_scan_by_hand():
    """_pays: the first batch that does not pay, the first past it that pays again, the first past that which stops
    again (batches counted from 1)."""
    from genreport.model.techniques import _pays

    on = np.array([True, True, False, False, True, True, False])
    assert _pays(on) == {"breakeven": 3, "resumes": 5, "stops_again": 7}
    assert _pays(np.ones(4, dtype=bool)) == {"breakeven": None, "resumes": None, "stops_again": None}
    assert _pays(np.array([False, False])) == {"breakeven": 1, "resumes": None, "stops_again": None}


# Qwen3-235B-A22B in fp8 on 8 MI300X at tp 8 x ep 8, no speculation (a deployment review, stop 86: the chapter named
# tp 2 "the cheapest" where plan's first row, tp 1 x dp 2 with ep 2, costs 29% less a request)
QWEN3_MI300X = """\
kind: report
name: qwen3-235b-mi300x
title: Qwen3-235B-A22B in fp8 on 8 MI300X
hardware: mi300x
model: qwen3-235b-a22b
precision: fp8
parallelism: {tp: 8, ep: 8}
workloads:
  decode: {batch: [1, 64], context: [1k]}
serving: {prompt: 2k, output: 512, ttft: 2 s, tpot: 40 ms, users: 256}
"""


def test_the_cheapest_layout_is_plan_s_first_row_in_its_cost_order(capsys):
    """Without speculation the chapter's cheapest layout was plan's fastest per GPU (plan lists its rows by tok/s per
    GPU; the command line orders them by a request's cost): now the first row of ``genreport plan SPEC``, the least
    $ a request of every row plan lists."""
    r = evaluated_text(QWEN3_MI300X, "qwen3-235b-mi300x")
    cheapest = r.serving["cheapest"]
    assert plan_cmd.main([str(spec_file(QWEN3_MI300X, "qwen3-235b-mi300x")), "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    first = rows[0]
    assert {k: first[k] for k in ("tp", "pp", "ep", "dp", "precision", "kv_cache")} == \
        {k: cheapest[k] for k in ("tp", "pp", "ep", "dp", "precision", "kv_cache")}
    assert cheapest["usd_per_request"] == min(x["usd_per_request"] for x in rows)
    assert (cheapest["tp"], cheapest["dp"], cheapest["ep"]) == (1, 2, 2)  # not tp 2, the most tok/s per GPU
    assert max(x["tokens_per_s_gpu"] for x in rows) > cheapest["tokens_per_s_gpu"]
