"""A prompt over pipeline stages (stop 71): the strict bound lets a schedule walk the prompt's pieces over the stages
(formulas.parallel.prefill_time_bound, max(X, (n_PP - r) w_s + r X_L)); what the stages are occupied for, which
prices prompt tokens, stays the prompt's pass through them (prefill_pass_bound, stated as prefill_occupancy_bound).

Hand counts use the committed specs with their layout changed: Llama 3.1 70B bf16 on 8 H100 at tp 2 x pp 4, and
DeepSeek-V3 fp8 on 16 H200 at tp 8 x pp 2 x ep 8, whose 61 layers make stages of 31 and 30."""

from __future__ import annotations

import re

import pytest
from genreport.commands.cli import main
from genreport.present import fmt, prose
from shared import SPECS, evaluated

PP4 = ("parallelism.tp=2", "parallelism.pp=4")
UNEVEN = ("parallelism.tp=8", "parallelism.dp=1", "parallelism.pp=2")


def _prefill(r, qid: str, i: int) -> float:
    return float(r.parallel.prefill[r.lead][qid][i])


def test_the_bound_is_the_last_stage_after_the_walk_and_the_pass_is_every_stage_in_turn():
    """70B at tp 2 x pp 4, 2,048 tokens (compute-bound): the bound is the last stage's ledger after 3 stages' dense
    weights (20 layers each at tp 2: 70.6e9 / 8 x 2 B at 3.35 TB/s, the seed accounting reading every parameter), the
    pass the 4 stages' ledgers in turn."""
    r = evaluated("llama70b-h100-tp8.yaml", PP4)
    i = r.spec.workloads.prefill_prompt.index(2048)
    x = max(_prefill(r, q, i) for q in ("prefill_time_compute_gpu", "prefill_time_memory_gpu", "prefill_time_comm"))
    walk = 70.6e9 / 8 * 2 / 3.35e12
    bound, passed = _prefill(r, "prefill_time_bound", i), _prefill(r, "prefill_occupancy_bound", i)
    assert x < bound <= x + 3 * walk * (1 + 1e-12)  # the last stage's ledger (no send) after the walk
    assert passed == pytest.approx(4 * x, rel=2e-3)  # four stages in turn, the last sending nothing on
    assert bound < passed < _prefill(r, "prefill_time_serial", i)


def test_uneven_stages_take_the_smallest_as_the_last():
    """DeepSeek-V3 at tp 8 x pp 2 x ep 8 (stages of 31 and 30 layers), 512 tokens: memory-bound, so the busiest stage's
    read of its weights binds; the walk and the last stage were counted as 30 and 31 layers (9.094 ms, 2.4% over the
    busiest stage's 8.882), where the last may be the 30-layer one after the 31-layer walk: the bound is the busiest
    stage's ledger."""
    r = evaluated("deepseek-v3-h200-ep8.yaml", UNEVEN)
    assert r.parallel.stage_layers == (31, 30)
    i = r.spec.workloads.prefill_prompt.index(512)
    x = max(_prefill(r, q, i) for q in ("prefill_time_compute_gpu", "prefill_time_memory_gpu", "prefill_time_comm"))
    # with what each GPU holds whole (DeepSeek-V3's MLA down-projections, norms and router: tests/test_tp_copies.py)
    # the first stage's dense read before the last stage's ledger (the walk) passes the busiest stage's 8.965 ms by
    # 0.4%, 9.003 ms: still no 31-layer last stage
    assert _prefill(r, "prefill_time_memory_gpu", i) == x
    assert x < _prefill(r, "prefill_time_bound", i) < 1.005 * x
    assert _prefill(r, "prefill_time_bound", i) == pytest.approx(9.0025e-3, rel=1e-4)


def test_derive_states_the_pass_as_the_report_does(capsys):
    """``derive prefill_pass_bound --spec`` at a layout fed one GPU's slice to a formula that divides the whole model
    itself (tp 2 x pp 4: 18.07 ms for the report's 144.6 ms); it now takes the whole model, as for the bound."""
    r = evaluated("llama70b-h100-tp8.yaml", PP4)
    i = r.spec.workloads.prefill_prompt.index(2048)
    sets = [x for s in PP4 for x in ("--set", s)]
    assert main(["derive", "prefill_pass_bound", "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), *sets, "--tokens",
                 "2048", "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert "the formula takes the whole model and divides it itself" in out
    value = float(re.search(r"t_pass,pre = ([0-9.e+-]+) s", out).group(1))
    assert value == pytest.approx(_prefill(r, "prefill_occupancy_bound", i), rel=1e-5)


def test_chapter_three_states_page_ones_prompt_rate():
    """Chapter 3 said "at least 24.7 ms (20,719 prompt tokens/s)" at tp 2 x pp 4 for a 512-token prompt, the prompt
    over its first token's bound, where page 1 gives the replica 57,493 prompt tokens/s (its 4 stages working on 4
    prompts, each stage its ledger for each): it now states the first token's bound and page 1's rate."""
    r = evaluated("llama70b-h100-tp8.yaml", PP4)
    lines = prose.prefill_lines(r)
    for row in (x for x in r.decision if x["workload"] == "prefill"):
        line = next(x for x in lines if x.startswith(f"{'An' if str(row['tokens'])[0] == '8' else 'A'} {row['tokens']:,}-"))
        assert f"the first token at least {fmt.time(row['time'])} after the prompt" in line
        assert f"at most {fmt.num(row['tokens_per_s'])} prompt tokens/s a replica" in line


def test_derive_of_the_occupancy_says_which_formula_states_it(capsys):
    """results.json states prefill_occupancy_bound from prefill_pass_bound's formula; derive refused the id with "did
    you mean 'prefill_pass_bound'?". It says whose number it is and what to run (likewise the rates, the one-card
    quantities and the searched GPU count)."""
    for qid, target in (("prefill_occupancy_bound", "genreport derive prefill_pass_bound --spec SPEC"),
                        ("decode_tokens_per_s_gpu_exact", "genreport derive decode_time_bound --spec SPEC"),
                        ("min_gpus_to_fit", "genreport plan MODEL --hardware GPU")):
        assert main(["derive", qid]) == 1
        err = capsys.readouterr().err
        assert f"'{qid}' is a results.json id with no formula of its own" in err and f"run: {target}" in err, err
