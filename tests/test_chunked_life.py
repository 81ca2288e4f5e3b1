"""The chunked-prefill lever row's tok/s per GPU and $/M over a batch's life (genreport.model.techniques.
chunked_life_cost): a batch's prompts ride along some of its rounds, not every one.

A deployment review (stop 86) found Gemma 3 27B in int4 on two RTX 4090 (pp 2) at 32k + 1k tokens reading "tok/s
per GPU 148 -> 1.4, $/M out 1.30 -> 137": every round was charged a whole 16k-token chunk, so a batch's 8 prompts
were counted 1,023 / 16 = 64 times over.  Its TPOT (a token's wait while a chunk rides along) stays the mixed step's.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from genreport.formulas.compiled import load
from genreport.model.techniques import chunked_life_cost
from genreport.present import fmt
from shared import evaluated_text

GEMMA_4090 = """\
kind: report
name: gemma3-27b-4090-int4-pp2
title: Gemma 3 27B with int4 weights on 2 RTX 4090 (pipeline parallel)
hardware: rtx-4090
model: gemma-3-27b
precision: {weights: int4, kv_cache: bf16, compute: bf16, group_size: 128}
parallelism: {pp: 2}
workloads:
  decode: {batch: [1, 16], context: [4k, 32k]}
serving: {prompt: 32k, output: 1k, ttft: 20 s, tpot: 80 ms, users: 4}
"""


def test_the_mean_cost_by_hand():
    """B = 8 requests of 1,000 uncached prompt tokens and 101 output tokens, chunks of 2,000 beside a step 5x a plain
    one: n_c = 8 x 1,000 / 2,000 = 4 mixed steps of the batch's 100 rounds, (4 x 5 + 96) / 100 = 1.16; prompts that
    need more mixed steps than the batch has rounds (B = 800: 400 for 100) cost 400 x 5 / 100 = 20; no chunk, or one
    output token (no round), leaves the step's cost."""
    def life(batch, uncached, chunk, output, cost):  # the quantities of formulas/techniques.py, as the row takes them
        return chunked_life_cost(SimpleNamespace(q=load()), {"B": float(batch), "T_in": uncached, "h_p": 0.0,
                                                             "C_p": chunk, "T_out": float(output)}, cost)

    assert life(8, 1000.0, 2000.0, 101, 5.0) == (4.0, pytest.approx(1.16, rel=1e-15))
    assert life(800, 1000.0, 2000.0, 101, 5.0) == (400.0, pytest.approx(20.0, rel=1e-15))
    assert life(8, 1000.0, 0.0, 101, 5.0) == (0.0, 5.0)
    assert life(8, 1000.0, 2000.0, 1, 5.0) == (0.0, 5.0)
    # a chunk of every round's budget: the same cost as the mixed step itself
    assert life(100, 2000.0, 2000.0, 101, 5.0)[1] == pytest.approx(5.0, rel=1e-15)
    # a prefix cache's hit leaves fewer tokens to ride along: n_c = 8 x 1,000 x (1 - 0.5) / 2,000 = 2
    v = {"B": 8.0, "T_in": 1000.0, "h_p": 0.5, "C_p": 2000.0}
    assert load()["chunked_steps"](v) == 2.0


def test_a_sliding_window_model_in_int4_over_two_stages():
    """Gemma 3 27B (5 global layers in 6, a 1,024-token window) in int4 at pp 2 on RTX 4090s: the row's batch of 8
    brings 8 x 32,768 prompt tokens in chunks of C_p a round, n_c = 8 x 32,768 / C_p mixed steps of its 1,023
    rounds; its tok/s per GPU and $/M take the mean cost, its TPOT the mixed step."""
    r = evaluated_text(GEMMA_4090, "gemma3-27b-4090-int4-pp2")
    tech = r.serving["techniques"]
    n, batch = tech["numbers"], tech["batch"]
    row = next(x for x in tech["rows"] if x["technique"] == "chunked prefill")
    steps = batch * 32768 / n["chunk_tokens"]
    assert n["chunked_steps"] == pytest.approx(steps, rel=1e-12)
    life = (steps * n["chunked_cost"] + (1023 - steps)) / 1023
    assert n["chunked_life_cost"] == pytest.approx(life, rel=1e-12)
    assert row["per_gpu"][1] == pytest.approx(row["per_gpu"][0] / life, rel=1e-12)
    assert row["usd"][1] == pytest.approx(row["usd"][0] * life, rel=1e-12)
    assert row["tpot"][1] == pytest.approx(row["tpot"][0] * n["chunked_cost"], rel=1e-12)
    assert n["chunked_cost"] > 50 and 1 < life < 5  # the mixed step is costly, the batch's life much less so
    assert row["per_gpu"][1] > row["per_gpu"][0] / 5  # it read 148 -> 1.4
    assert (f"tok/s per GPU and $/M over a batch's life: its {batch:,} prompts' chunks ride along "
            f"{fmt.sig3(steps)} of its 1,023 rounds") in row["note"]


def test_a_ratio_near_a_whole_number_is_not_printed_as_one():
    """A block's dimensionless result that rounds to a whole number keeps its digits: a mean round of 1.000019 plain
    rounds (a long request whose prompts ride along few of its rounds) read "= 1" (the review of this stop); whole
    numbers, values of 10 and more (rounded on purpose) and the others print as before."""
    from genreport.present.render import format_value

    assert format_value(1.000019, "1") == "1.00002"
    assert (format_value(2.0, "1"), format_value(2.49974, "1"), format_value(12.4, "1")) == ("2", "2.5", "12")
    assert format_value(0.999996, "1") == "0.999996"
    assert format_value(1.000019, "s") != "1.00002"  # a time keeps its own format
