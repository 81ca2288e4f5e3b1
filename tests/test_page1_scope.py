"""Page 1 and the tables beside it say what the layout and the card can hold, at their scope (a deployment
engineer's review, stop 81):

- a prefill writes its prompt's whole KV cache: a prompt that does not fit beside the weights is not priced and its
  row binds on the capacity, as a decode row's does (Llama 3.1 70B on 2 H100 at a 100k-token prompt read "fits");
- the batching lever stops where the step turns compute-bound: past it the tok/s stays and every sequence waits
  longer (Llama 3.1 405B int4 on 4 MI300X named the engine's 256 for the tok/s of 75);
- the comparison of other GPUs sells no tokens on a card that cannot hold the model, and the comparison of other
  models takes each whole on one card with that card's own workspace, not the layout GPU's;
- `table` warns as a build of the same spec does; the CLI's KV line gives the whole model's bytes beside its
  layer counts and a GPU's share after them; a pipeline alone sends between stages, it runs no collectives.
"""

from __future__ import annotations

import numpy as np
import pytest
from genreport.commands import table
from genreport.model.layout import decode_ledgers_at, point_values
from genreport.present import summary
from shared import ROOT, evaluated, spec_file

LONG_PROMPT = ["workloads.prefill.prompt=[4k, 100k]"]

# Llama 3.1 405B with AWQ-style int4 weights (group 128) over 4 MI300X, tensor parallel
L405_MI300X = """\
kind: report
name: l405-mi300x-int4
title: Llama 3.1 405B with int4 weights on 4 MI300X
hardware: mi300x
model: llama-3.1-405b
precision: {weights: int4, group_size: 128}
parallelism: {tp: 4}
workloads:
  decode:
    batch: [1, 8, 128]
    context: [1k, 32k]
"""

# Gemma 3 27B over two pipeline stages: a sliding window (1,024) on 52 of 62 layers, the stages' caches unequal
GEMMA_PP2 = """\
kind: report
name: gemma3-pp2
title: Gemma 3 27B on 2 H100 (pipeline parallel)
hardware: h100-sxm
model: gemma-3-27b
precision: bf16
parallelism: {pp: 2}
workloads:
  decode:
    batch: [1, 8]
    context: [1k, 128k]
  prefill:
    prompt: [8k, 2M]
"""


def test_a_prompt_whose_cache_does_not_fit_the_replica_binds_on_the_capacity():
    """Llama 3.1 70B bf16 on 2 H100 (tp 2): the replica holds 34,202 tokens of KV cache beside its weights (each
    token 2 x 80 layers x 8 heads x 128 x 2 B = 327,680 B, split 2 ways), so a 4,096-token prompt fits and a
    102,400-token one does not: its row binds on the capacity, has no price and its lever makes the cache fit; page 1
    says so, and gives the bound it would have."""
    r = evaluated("llama70b-h100-tp2.yaml", LONG_PROMPT)
    kv = r.parallel.scalars[r.lead]["kv_capacity_tokens_replica"]
    assert 4096 < kv < 102_400 and round(kv) == 34_202
    assert r.verdicts["prefill_fits"] == [True, False]
    for t, fits in ((4096, True), (102_400, False)):  # the replica's capacity at the prompt, as chapter 4's
        cap = float(np.ravel(r.q["capacity_batch_replica"](point_values(r.spec, r.lead, "capacity_batch_replica",
                                                                         context=float(t))))[0])
        assert (cap >= 1) is fits
    short, long = (x for x in r.decision if x["workload"] == "prefill")
    assert short["fits"] and short["binds"] == short["roof"] == "compute" and short["usd_per_mtok"] > 0
    assert not long["fits"] and long["binds"] == "capacity" and long["roof"] == "compute"
    assert long["usd_per_mtok"] is None and long["time"] > 0
    assert long["lever"] == {"change": "a shorter prompt or more GPUs", "gain": None, "effect": "the KV cache fits"}
    said = " ".join(summary.sentences(r))
    assert ("A 102,400-token prefill does not fit: its KV cache needs more than the memory of a replica holds beside "
            "the weights; were it to fit, it would be compute-bound, at least") in said


def test_one_card_and_a_sliding_window_pipeline_judge_the_prompt_by_the_cache_it_holds():
    """One H100 cut to 20 GiB holds a few thousand tokens beside Llama 3.1 8B's 16 GB: a 2,048-token prompt fits, a
    65,536-token one does not.  Gemma 3 27B over 2 stages holds one sequence of about 1.15M tokens (its windowed
    layers keep 1,024 positions, its 10 global layers all of them): 8,192 fits, 2,097,152 does not."""
    r = evaluated("llama8b-h100.yaml", ["hardware.memory.capacity=20 GiB", "workloads.prefill.prompt=[2k, 64k]"])
    assert r.parallel is None
    assert 2048 <= r.scalars[r.lead]["kv_capacity_tokens"] < 65_536
    assert r.verdicts["prefill_fits"] == [True, False]
    assert [x["binds"] == "capacity" for x in r.decision if x["workload"] == "prefill"] == [False, True]
    g = evaluated(spec_file(GEMMA_PP2, "gemma3-pp2"))
    assert g.verdicts["prefill_fits"] == [True, False]
    one = float(np.ravel(g.q["capacity_batch_replica"](point_values(g.spec, g.lead, "capacity_batch_replica",
                                                                     context=1_100_000.0)))[0])
    assert one >= 1  # far past the windows, the cache grows with the global layers only


def test_the_batching_lever_stops_where_the_step_turns_compute_bound():
    """Llama 3.1 405B int4 on 4 MI300X at context 1,024: 256 sequences could run (the engine's max_sequences; far
    more fit), but the round turns compute-bound at a batch of 75, where one GPU's FLOPs over its peak first pass its
    HBM and link ledgers; the 256 give the same tok/s, each token waiting 256 / 75 times as long.  At 32k the round
    stays bandwidth-bound up to the 31 that fit: the lever names them all."""
    r = evaluated(spec_file(L405_MI300X, "l405-mi300x-int4"))

    def binds(n, s):
        x = decode_ledgers_at(r.spec, r.lead, float(n), float(s))
        return x["compute"] >= max(x["bandwidth"], x["interconnect"])

    row = next(x for x in r.decision if x["workload"] == "decode" and x["batch"] == 1 and x["context"] == 1024)
    first = 75
    assert binds(first, 1024) and not binds(first - 1, 1024) and binds(256, 1024)
    assert row["lever"]["change"] == "batch 75 (compute-bound from there; the 256 that could run give no more tok/s)"
    rate = {n: n / decode_ledgers_at(r.spec, r.lead, float(n), 1024.0)["bound"] for n in (first, 256)}
    assert rate[first] == pytest.approx(rate[256], rel=1e-12)
    assert row["lever"]["gain"] == pytest.approx(rate[first] / row["tokens_per_s"], rel=1e-12)
    long = next(x for x in r.decision if x["workload"] == "decode" and x["context"] == 32_768)
    cap = int(r.parallel.per_context[r.lead]["capacity_batch_replica"][1])
    assert not binds(cap, 32_768) and long["lever"]["change"] == f"batch {cap}"


def test_the_comparisons_take_each_card_whole_and_sell_nothing_that_does_not_fit():
    """Llama 3.1 405B fp8 on 8 H200 beside Llama 3.1 70B: on one H200 the 405B does not fit (no tokens per dollar;
    its bound stays, as a decision row's does), and the 70B whole on one H200 holds as many sequences at 32k as its
    own one-card report says, with that card's workspace at tp 1, not the 8-GPU layout's."""
    text = (ROOT / "specs" / "llama405b-h200-fp8-tp8.yaml").read_text()
    r = evaluated(spec_file(text.replace("name: llama405b-h200-fp8-tp8", "name: l405cmp")
                            + "compare: {hardware: [b200], models: [llama-3.1-70b]}\n", "l405cmp"))
    assert [c["fits"] for c in r.compare] == [False, False]
    assert all(c["tokens_per_usd"] is None and c["decode_tokens_per_s"] > 0 for c in r.compare)
    alone = evaluated(spec_file("kind: report\nname: l70-h200\ntitle: Llama 3.1 70B fp8 on one H200\nhardware: h200\n"
                                "model: llama-3.1-70b\nprecision: fp8\nworkloads:\n  decode: {batch: [1], context: "
                                "[1k, 8k, 32k]}\n", "l70-h200"))
    row = next(m for m in r.compare_models if m["name"] == "llama-3.1-70b")
    assert row["fits"] and row["context"] == 32_768
    assert row["capacity_batch"] == alone.per_context[alone.lead]["capacity_batch"][2] == 11


def test_table_warns_as_a_build_does(capsys):
    """A prompt past the model's context: the build warns on stderr, and `table` of the same spec now too; a built-in
    report's name, as the build takes it."""
    assert table.main([str(ROOT / "specs" / "llama70b-h100-tp2.yaml"), "--set", "workloads.prefill.prompt=[300k]"]) == 0
    err = capsys.readouterr().err
    assert "warning: prompt 307,200 exceeds the model's maximum context 131,072" in err
    assert table.main(["llama70b-h100-tp2"]) == 0  # (the note that says so follows the process's verbosity)
    assert capsys.readouterr().out.startswith("Llama 3.1 70B in bf16 on 2 H100 SXM (tensor parallel)\n")


def test_the_kv_line_and_the_collectives_clause_say_their_scope():
    """Gemma 3 27B on 2 H100 over pp 2: 80 KiB a token in its 10 global layers, 416 MiB a sequence in its 52
    windowed ones (1,024 positions each), of which each GPU holds half; and the round's links are the stages' sends."""
    r = evaluated(spec_file(GEMMA_PP2, "gemma3-pp2"))
    line = next(x for x in summary.terminal_lines(r) if "fits:" in x)
    assert ("KV 80 KiB/token (10 global layers) + 416 MiB/sequence (52 windowed at full window) (40 KiB/token + 208 "
            "MiB/sequence on each GPU)") in line
    assert "through 2 stages in turn, each stage's GPUs spending" in (s := summary.sentences(r)[0]) \
        and s.endswith("in their own stage-to-stage sends.")
    many = evaluated("llama70b-h100-tp8.yaml", ["parallelism.tp=4", "parallelism.pp=2"])
    assert summary.sentences(many)[0].endswith("in their own collectives and stage-to-stage sends.")


def test_the_disaggregation_row_says_its_whole_replicas_and_whose_links_carry_the_cache():
    """Llama 3.1 70B on one tp 8 replica of 8 H100 for 128 users: the balanced pools are 66% prefill, 34% decode,
    which one replica cannot build (at least 2, 1:1); one prompt's cache, 4,096 x 320 KiB = 1.34 GB, crosses the
    InfiniBand in 3.36 ms because each of the replica's 8 GPUs sends its 1/8 over its own 50 GB/s NIC: 167.8 MB / 50
    GB/s (a review read it as the whole cache over one link)."""
    r = evaluated("llama70b-h100-tp8.yaml")
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert row["setting"].startswith("66% of the GPUs prefill, 34% decode, in replicas of this layout (the users' 1 "
                                     "replica cannot be split: at least 2, 1 prefill and 1 decode)")
    t_kv = r.serving["techniques"]["numbers"]["kv_transfer_time"]
    assert t_kv == pytest.approx(4096 * 80 * 2 * 8 * 128 * 2 / (8 * 50e9), rel=1e-9)
    assert "3.36 ms, each of the replica's 8 GPUs sending its slice over its own" in row["ends"]


def test_page_1_says_a_prefill_bound_is_hypothetical_where_the_weights_do_not_fit():
    """Seed 000's 70B in bf16 on one H100 (141 GB of weights in 80 GB): page 1's table marks every row "capacity", and
    its sentence on the longest prefill said it "is compute-bound: at least 287 ms", the bound of a layout that cannot
    run (DeepSeek-V3 on 8 H20 read the same, a review of stop 87): it says it would be, were the weights to fit."""
    import re

    from shared import html

    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html("seed000-70b-h100.yaml")))
    assert "2,048-token prefill would be, were the weights to fit, compute-bound: at least" in text
    assert "2,048-token prefill is compute-bound" not in text
