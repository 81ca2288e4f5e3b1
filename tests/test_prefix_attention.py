"""A prompt's uncached part attends to its cached prefix (stop 88's review of a 405B on 8 B200 with half of each
8k prompt cached: the prefix caching row counted the uncached 4,096 tokens as a fresh prompt, 8.39e6 query-key pairs
a layer, the rate figure's t_p 16.8e6, the prompts' compute batch 25.2e6; the TTFT with the collectives came out
below the one without).  Every count now takes the pairs the uncached positions h T .. T attend to: T^2 (1 - h^2) / 2
a layer without windows, and past a window w each position's w, counted here position by position."""

from __future__ import annotations

import numpy as np
import pytest
from genreport.formulas import architecture as arch
from genreport.load.loader import load_model
from genreport.model.stages import layer_kinds
from shared import SPECS, evaluated


def _pairs_by_position(model, first: int, last: int) -> float:
    """Query-key pairs positions first+1 .. last attend to, summed over the layers (position t sees t keys in a global
    layer, min(t, w) in a windowed one, t mod c + ... in a chunked one), one position at a time."""
    t = np.arange(first + 1, last + 1, dtype=float)
    kinds = layer_kinds(model)
    total = 0.0
    for kind in kinds:
        if kind == "global":
            total += t.sum()
        elif kind == "windowed":
            total += np.minimum(t, model.attention.sliding_window).sum()
        else:
            c = model.attention.chunk_size
            total += ((t - 1) % c + 1).sum()
    return total


@pytest.mark.parametrize("name,prompt,hit", [("gemma-3-27b", 16384, 0.5), ("gemma-3-27b", 6000, 0.25),
                                             ("llama-4-scout", 20000, 0.3), ("llama-3.1-8b", 4096, 0.5)])
def test_the_uncached_tokens_attended_share_counts_position_by_position(name, prompt, hit):
    model = load_model(SPECS / "models" / f"{name}.yaml")
    cached = prompt * hit
    tokens = prompt - cached
    g = float(arch.prefill_attended_fraction_after(model, tokens, cached))
    # the formulas' count of the uncached tokens, L (T^2 - (h T)^2) / 2 pairs with no window, times g
    counted = g * model.layers * (prompt**2 - cached**2) / 2
    # by position: t attends to t keys (the formulas' T^2 / 2 is the continuous count of 1 + ... + T, and a window's
    # w T - w^2 / 2 of min(1, w) + ... + min(T, w): half a key a position apart, under 1e-3 of the whole here; the
    # counts this replaced were off by (1 + h) / (1 - h) or 1 / (1 - h))
    exact = _pairs_by_position(model, int(cached), prompt)
    assert counted == pytest.approx(exact, rel=1e-3)
    if arch.bounded_layers(model):
        # a fresh prompt of as many tokens attends to fewer positions in its global layers, and the old count, the
        # fresh prompt's share g(U) taken over the whole prompt's pairs, is more than the windowed layers compute
        fresh = float(arch.prefill_attended_fraction(model, tokens))
        assert fresh * model.layers * (prompt**2 - cached**2) / 2 > exact


def test_the_prefix_rows_ttft_is_at_least_the_rate_figures_and_a_fresh_prompts():
    """Gemma 3 27B on 2 H100 (tp 2), 16k prompts with half cached: the prefix caching row's TTFT (the uncached part
    alone at the layout, its collectives included) is at least the rate figure's t_p (the same tokens on one GPU's
    slice, none), and both count the cached half's attention: more than a fresh 8k prompt's prefill."""
    over = ["model=gemma-3-27b", "parallelism.tp=2", "serving.prompt=16k", "serving.prefix_hit=0.5",
            "serving.output=256"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    tq = r.serving["techniques"]
    prefix = {row["technique"]: row for row in tq["rows"]}["prefix caching"]
    fresh = evaluated("llama70b-h100-tp8.yaml", over[:2] + ["serving.prompt=8k", "serving.output=256"])
    assert prefix["ttft"][1] >= tq["rates"]["prefill_alone_time"] * (1 - 1e-12)
    assert prefix["ttft"][1] > fresh.serving["rows"][-1]["bound"]["ttft"]


GOSS_MI300X = """\
kind: report
name: goss-mi300x-serve
title: gpt-oss-120b bf16 on 2 MI300X (tp 2), serving
hardware: mi300x
model: gpt-oss-120b
precision: bf16
parallelism: {tp: 2}
workloads:
  decode: {batch: [1, 64], context: [32k]}
serving: {prompt: 32k, output: 1k, ttft: 5 s, tpot: 50 ms, prefix_hit: 0.5}
"""


def test_derive_states_the_chunked_ttft_results_json_states_and_says_whose_the_row_is(capsys):
    """gpt-oss-120b (windowed layers) on 2 MI300X, half of each 32k prompt cached (stop 88's review): derive took the
    chunk's head dim over a fresh prompt of the uncached tokens (104.98 ms where results.json said 104.51), and said
    "as the serving chapter states it" beside the chunked row's 108 ms, which is the layout's (the pair's one xGMI
    link carries the mixed step's all-reduces). derive states results.json's number and says whose the row's is."""
    from genreport.commands.cli import main
    from shared import derive_reads, evaluated_text, spec_file

    path = spec_file(GOSS_MI300X, "goss-mi300x-serve")
    r = evaluated_text(GOSS_MI300X, "goss-mi300x-serve")
    derive_reads(path, r)
    tq = r.serving["techniques"]
    row = next(x for x in tq["rows"] if x["technique"] == "chunked prefill")
    assert row["ttft"][1] > tq["numbers"]["chunked_ttft"]  # the layout's links
    assert main(["derive", "chunked_ttft", "--spec", str(path)]) == 0
    out = capsys.readouterr().out
    value = float(out.split("t_TTFT,chunk = ")[-1].split()[0])
    assert value == pytest.approx(tq["numbers"]["chunked_ttft"], rel=1e-5)
    assert "scope: one GPU's ledgers, no collectives, as results.json states it" in out
    assert f"the chunked prefill row's TTFT, {row['ttft'][1]:.6g} s, is the layout's" in out
    assert "as the serving chapter states it" not in out



GEMMA_PREFIX = """\
kind: report
name: gemma-prefix
title: Gemma 3 27B on one H100, 99% of each prompt cached
hardware: h100-sxm
model: gemma-3-27b
precision: bf16
workloads:
  decode: {batch: [8], context: [8k]}
serving: {prompt: 8k, output: 512, ttft: 2 s, tpot: 50 ms, prefix_hit: 0.99}
"""


def test_a_windowed_models_prefix_prefill_bound_stays_under_what_it_must_read(capsys):
    """Gemma 3 27B (52 windowed layers of 1,024 positions, 10 global) on one H100, 8k prompts 99% cached: the uncached
    81.92 tokens' prefill is memory-bound. What any engine reads: the weights once, the new tokens' KV in every layer,
    and the cached prefix's KV once, all 8,110 positions in a global layer and at most its window in a windowed one.
    Counting h_p T_in c for the prefix put derive's t_p at 17.37 ms above that 16.47 ms (a review of stop 88); the
    prefix reads are left out now, and every figure of that prefill stays under it: the rate figure's t_p, the prefix
    caching row's TTFT at the layout, the chunked row's alone, derive's."""
    from genreport.commands.cli import main
    from genreport.formulas import architecture as arch
    from shared import derive_reads, evaluated_text, spec_file

    path = spec_file(GEMMA_PREFIX, "gemma-prefix")
    r = evaluated_text(GEMMA_PREFIX, "gemma-prefix")
    derive_reads(path, r)
    m, v = r.spec.model, r.envs[r.lead].values
    prompt, hit = 8192.0, 0.99
    uncached, cached = prompt * (1 - hit), prompt * hit
    per_layer = arch.kv_elements_per_token_layer(m) * 2.0  # bf16 cache
    window = float(m.attention.sliding_window)
    reads = per_layer * (arch.global_layers(m) * cached + arch.local_layers(m) * min(cached, window))
    must = (float(v["N"]) * float(v["b"]) + uncached * m.layers * per_layer + reads) / float(v["W"])
    tq = r.serving["techniques"]
    assert main(["derive", "prefill_alone_time", "--spec", str(path)]) == 0
    derived = float(capsys.readouterr().out.split("t_p = ")[-1].split()[0])
    for t in (tq["rates"]["prefill_alone_time"], tq["numbers"]["prefix_ttft"], tq["numbers"]["chunked_ttft_alone"],
              derived):
        assert t <= must, (t, must)
    assert 0.97 * must < tq["numbers"]["prefix_ttft"]  # and not far under: the weights are most of it


def test_the_prefix_rows_compute_batch_is_whole_prompts_before_and_the_chapters_after():
    """Llama 3.1 70B on 8 H100 (tp8), half of each 4k prompt cached: the chapter's compute batch B_P counts each
    prompt's uncached half (539 sequences at the 50 ms target), the prefix caching row says so and gives the whole
    prompts' (305: the committed report's, no cache) beside it; the TTFT sentence names whose TTFT the rows give."""
    from shared import words

    spec, hit = "llama70b-h100-tp8.yaml", ["serving.prefix_hit=0.5"]
    plain, cached = evaluated(spec).serving, evaluated(spec, hit).serving
    assert (plain["compute_batch"], cached["compute_batch"]) == (305, 539)
    n = cached["techniques"]["numbers"]
    assert n["prefix_compute_batch_before"] == plain["compute_batch"]
    row = next(x for x in cached["techniques"]["rows"] if x["technique"] == "prefix caching")
    assert "a replica's compute keeps 305 → 539 sequences at the TPOT target" in row["ends"]
    assert cached["uncached_share"] == 0.5 and plain["prefix_hit"] == 0.0
    text = words(evaluated(spec, hit), "s9_serving")
    assert "at least 37.5 ms at this layout for the 50% of a prompt the prefix cache leaves (the rows' TTFT; a " \
           "whole prompt takes 73.7 ms, the prefix caching row below)" in text
    assert "its prompt's 50% the prefix cache leaves, which attends to the cached part too" in text
    assert "the prefix cache leaves (the rows' TTFT" not in words(evaluated(spec), "s9_serving")


GEMMA_L40S = """\
kind: report
name: gemma27-l40s
title: Gemma 3 27B in fp8 on one L40S (fp8 KV cache)
hardware: l40s
model: gemma-3-27b
precision: {weights: fp8, kv_cache: fp8}
parallelism: {tp: 1}
serving: {prompt: 16k, output: 512, ttft: 5 s, tpot: 80 ms, users: 16, prefix_hit: 0.9}
workloads:
  decode: {batch: [1, 8], context: [1k, 16k]}
"""


def test_a_windowed_models_shared_prefix_is_its_global_layers_and_derive_agrees(tmp_path, capsys):
    """Gemma 3 27B on one L40S, 90% of each 16k prompt cached (stop 89's review, by hand in tests/test_techniques.py):
    the prefix caching row fits 19 -> 56 sequences at the last context (it read 147: every layer's prefix counted as
    shared, where the 52 windowed layers hold only their last 1,024 positions), derive prefix_capacity_batch at that
    context says the same, and the goodput's KV cache room counts the prefix each running sequence still holds
    (about 1.24 requests/s; 1.59 before), the page's script the same (tests/test_live_serving.py)."""
    from genreport.commands.cli import main

    path = tmp_path / "gemma27-l40s.yaml"
    path.write_text(GEMMA_L40S, encoding="utf-8")
    n = evaluated(path).serving["techniques"]["numbers"]
    assert (n["prefix_capacity_before"], n["prefix_capacity_after"]) == (19, 56)
    assert n["goodput_rate_capacity"] == pytest.approx(1.24, abs=0.01)
    assert main(["derive", "prefix_capacity_batch", "--context", "16895", "--spec", str(path)]) == 0
    out = capsys.readouterr().out
    assert "c_s = 40960 B/token" in out and "(floor: 56)" in out, out
