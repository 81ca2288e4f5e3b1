"""results.json's entries at a workload point that cannot run say so: ``"fits": false`` and why (``unfit``), the
value kept as the tables state it beside "capacity" (docs/results.md, "Points that cannot run"); derive says it under
the value.  A consumer reading decode_tokens_per_s alone took 23.87 tok/s for Llama 3.1 70B in bf16 on one H100,
whose weights do not fit (review, stop 91)."""

from __future__ import annotations

import numpy as np
from genreport.model.values import NO_FIT
from genreport.write.results import document
from shared import evaluated


def _marked(doc) -> dict[tuple, dict]:
    return {(q["id"], tuple(sorted(q["params"].items()))): q for q in doc["quantities"] if "fits" in q}


def test_every_capacity_point_and_only_those_are_marked_at_a_layout():
    """Llama 3.1 70B at tp 2 on H100 (committed): a replica holds 33, 4 and 1 sequences of 1k, 8k and 32k tokens
    (verdicts.decode_binds "capacity" past them); each entry at those points, in both accountings, is marked with
    its replica's count, and no entry at a point that runs is."""
    r = evaluated("llama70b-h100-tp2.yaml")
    doc = document(r)
    binds = np.asarray(r.verdicts["decode_binds"])
    w = r.spec.workloads
    assert list(r.per_context["seed"]["capacity_batch"]) == [33, 4, 1]
    for q in doc["quantities"]:
        p = q["params"]
        if set(p) != {"batch", "context"} or q["id"].startswith("min_gpus_to_fit"):
            assert "fits" not in q, q
            continue
        i, j = list(w.decode_batch).index(p["batch"]), list(w.decode_context).index(p["context"])
        assert ("fits" in q) == (binds[i, j] == "capacity"), q
        if "fits" in q:
            assert q["fits"] is False and q["value"] is not None  # the value stays
    q = next(x for x in doc["quantities"] if x["id"] == "decode_tokens_per_s"
             and x["params"] == {"batch": 128, "context": 8192})
    assert q["unfit"] == "128 sequences of 8,192 tokens do not fit: only 4 fit per replica"
    one = next(x for x in doc["quantities"] if x["id"] == "decode_tokens_per_s"
               and x["params"] == {"batch": 8, "context": 32768})
    assert one["unfit"] == "8 sequences of 32,768 tokens do not fit: only 1 fits per replica"


def test_weights_that_do_not_fit_mark_every_decode_and_prefill_point():
    """Llama 3.1 70B in bf16 on one H100 (seed 000's, committed): 141 GB of weights in 80 GB. Every decode and prefill
    entry says the weights' own reason; the seeds' numbers are still stated (about 24 tok/s at batch 1)."""
    doc = document(evaluated("seed000-70b-h100.yaml"))
    rate = next(q for q in doc["quantities"] if q["id"] == "decode_tokens_per_s"
                and q["params"] == {"batch": 1, "context": 1024})
    assert round(rate["value"]) == 24 and rate["fits"] is False and rate["unfit"] == NO_FIT
    prefill = [q for q in doc["quantities"] if q["id"].startswith("prefill_")]
    assert prefill and all(q.get("fits") is False and q["unfit"] == NO_FIT for q in prefill)
    # a pass over the weights has no cache of its own
    assert all("fits" not in q for q in doc["quantities"] if q["id"].startswith("weight_reuse_intensity"))


def test_a_prompt_too_long_for_a_replica_is_marked_and_the_shorter_ones_are_not():
    """Llama 3.1 70B at tp 2: one replica holds 34,202 tokens beside its weights (prompt_fits' docstring), so a
    102,400-token prompt does not fit while 8,192 does; both accountings mark the same prompt."""
    r = evaluated("llama70b-h100-tp2.yaml", ["workloads.prefill.prompt=[8k, 100k]"])
    assert r.verdicts["prefill_fits"] == [True, False]
    doc = document(r)
    long = [q for q in doc["quantities"] if q["params"] == {"tokens": 102400} and "fits" in q]
    assert {q["id"] for q in long} >= {"prefill_time_bound", "prefill_time_bound_exact", "prefill_time_compute",
                                       "prefill_time_serial", "prefill_occupancy_bound", "prefill_occupancy_serial"}
    assert all(q["unfit"].startswith("one prompt of 102,400 tokens does not fit") and "of a replica" in q["unfit"]
               for q in long)
    assert not [q for q in doc["quantities"] if q["params"] == {"tokens": 8192} and "fits" in q]


def test_an_moe_over_two_accountings_takes_each_accountings_own_count():
    """DeepSeek-V3 at tp 8 x ep 8 on H200 (committed): the seed accounting holds 886 sequences of 1,024 tokens, the
    exact one 872: at batch 880 (a what-if's grid) the exact entries are marked and the seed ones are not."""
    r = evaluated("deepseek-v3-h200-ep8.yaml", ["workloads.decode.batch=[1, 880]"])
    assert r.per_context["seed"]["capacity_batch"][0] == 886 and r.per_context["exact"]["capacity_batch"][0] == 872
    doc = document(r)
    at = {q["id"]: q for q in doc["quantities"] if q["params"] == {"batch": 880, "context": 1024}}
    assert "fits" not in at["decode_time_memory"] and at["decode_time_memory_exact"]["fits"] is False
    assert at["decode_time_memory_exact"]["unfit"] == "880 sequences of 1,024 tokens do not fit: only 872 fit per replica"


def test_derive_says_a_point_does_not_run(capsys):
    from genreport.commands import derive

    assert derive.main(["decode_tokens_per_s", "--spec", "specs/llama8b-h100.yaml", "--batch", "1024",
                        "--context", "8192"]) == 0
    out = capsys.readouterr().out
    assert "does not run: 1,024 sequences of 8,192 tokens do not fit: only 65 fit (the value is what it would be" in out
    assert derive.main(["decode_tokens_per_s", "--spec", "specs/llama8b-h100.yaml", "--batch", "1",
                        "--context", "8192"]) == 0
    assert "does not run" not in capsys.readouterr().out


def test_derive_says_it_off_the_grid_too(capsys):
    """Away from the spec's grid derive evaluates the point as the report would (Results.at) and says so there too:
    70B in bf16 on one H100 at 2,048 tokens (the grid has 128, 1,024, 4,096); 34 sequences of 1,024 tokens at tp 2,
    where 33 fit; a 65,536-token prompt beside a replica's 34,202 tokens (review, stop 92)."""
    from genreport.commands import derive

    cases = [(["decode_tokens_per_s", "--spec", "specs/seed000-70b-h100.yaml", "--batch", "1", "--context", "2048"],
              "does not run: the weights alone exceed the memory capacity"),
             (["decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp2.yaml", "--batch", "34", "--context", "1024"],
              "does not run: 34 sequences of 1,024 tokens do not fit: only 33 fit per replica"),
             (["prefill_time_bound", "--spec", "specs/llama70b-h100-tp2.yaml", "--tokens", "65536"],
              "does not run: one prompt of 65,536 tokens does not fit")]
    for argv, said in cases:
        assert derive.main(argv) == 0
        assert said in capsys.readouterr().out, argv
    assert derive.main(["decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp2.yaml", "--batch", "33",
                        "--context", "1024"]) == 0
    assert "does not run" not in capsys.readouterr().out
    # and whose number it is, off the grid as on it (the docs review of stop 92: no scope line off the grid)
    assert derive.main(["decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp2.yaml", "--batch", "20",
                        "--context", "1024"]) == 0
    assert ("scope: one replica's (2 GPUs of tp 2 x pp 1 x ep 1 x dp 1) (off the report's grid, as the report would "
            "state it here)") in capsys.readouterr().out
    # the evaluation at a point is the spec's own: the same point of another spec (tp 8 holds them) runs
    assert derive.main(["decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp2.yaml", "--batch", "34",
                        "--context", "1024"]) == 0
    assert "does not run" in capsys.readouterr().out
    assert derive.main(["decode_tokens_per_s", "--spec", "specs/llama70b-h100-tp8.yaml", "--batch", "34",
                        "--context", "1024"]) == 0
    assert "does not run" not in (out := capsys.readouterr().out) and "tp 8 x pp 1" in out


def test_no_capacity_limited_batch_is_no_intensity_there_never_a_negative_one(capsys):
    """intensity_at_capacity where not one sequence of the context fits: the closed form's batch is negative and derive
    printed "-269.902 FLOP/B" (70B in bf16 on one H100); results.json said "undefined at these inputs". Both now say
    why, and derive prints no negative number (review, stop 92)."""
    from genreport.commands import derive
    from genreport.model.values import NO_CAPACITY_BATCH

    doc = document(evaluated("seed000-70b-h100.yaml"))
    at = [q for q in doc["quantities"] if q["id"] == "intensity_at_capacity"]
    assert at and all(q["value"] is None and q["reason"] == NO_CAPACITY_BATCH["intensity_at_capacity"] for q in at)
    assert derive.main(["intensity_at_capacity", "--spec", "specs/seed000-70b-h100.yaml", "--context", "1024"]) == 0
    out = capsys.readouterr().out
    assert "I = none: not one sequence of this context fits beside the weights" in out
    assert "-269" not in out and not any(w.startswith("-") and w[1:2].isdigit() for w in out.split())


GEMMA_PP4 = """\
kind: report
name: g27-pp4-l4
title: Gemma 3 27B int4 on 4 L4 (pp 4)
hardware: l4
model: gemma-3-27b
precision: {weights: int4}
parallelism: {pp: 4}
workloads:
  decode:
    batch: [1, 5, 6]
    context: [118000]
"""


def test_the_memory_a_point_is_judged_against_is_stated_at_its_context():
    """Gemma 3 27B in int4 at pp 4 on L4: at 118,000 tokens the last stage binds (3 global layers, and the logits'
    workspace, 256 sequences x 262,208 x 4 B = 268,500,992 B, which only the last stage keeps), so its GPU's C is
    capacity - 268,500,992 B = 21.69 GB. results.json's scalar capacity (21.96 GB, another stage's) sat beside
    memory_per_gpu 21.81 GB at (6, 118000), marked "does not fit": a consumer comparing the two read the opposite.
    capacity_at_context states the C the point is judged against (review, stop 92)."""
    from shared import evaluated_text

    r = evaluated_text(GEMMA_PP4, "g27-pp4-l4")
    cap, at = r.value("capacity"), r.value("capacity_at_context", context=118000)
    assert cap - at == 256 * 262_208 * 4
    six, five = r.value("memory_per_gpu", batch=6, context=118000), r.value("memory_per_gpu", batch=5, context=118000)
    assert five <= at < six < cap  # the point's own C decides, as its "fits": false says
    assert r.entry("memory_per_gpu", batch=6, context=118000).unfit == \
        "6 sequences of 118,000 tokens do not fit: only 5 fit per replica"
    # on one card every context's is the capacity itself
    one = evaluated("llama8b-h100.yaml")
    assert {one.value("capacity_at_context", context=s) for s in one.spec.workloads.decode_context} == \
        {one.value("capacity")}


def test_the_tables_fits_cell_is_page_ones_past_the_engines_limit():
    """DeepSeek-V3 at batch 880 and 1,024 tokens: 886 fit a replica's memory, its engine runs 256 at once. Page 1 says
    "yes, ≤ 886; past max_sequences (256)"; `genreport table` said "yes" (review, stop 92)."""
    r = evaluated("deepseek-v3-h200-ep8.yaml", ["workloads.decode.batch=[1, 880]"])
    _, rows = r.decision_table()
    cells = {row[0]: row[-1] for row in rows}
    assert cells["decode B = 880, S = 1,024"] == "yes, ≤ 886; past max_sequences (256)"
    assert cells["decode B = 1, S = 1,024"] == "yes, ≤ 886"
