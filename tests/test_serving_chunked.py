"""A decode round of a model with chunked attention layers (Llama 4, issue 30/27): every step time takes the cache a
step reads (serving._read_c: a chunked layer the S mod chunk tokens of its current chunk), every capacity the cache a
sequence holds (up to the whole chunk).  The serving chapter's TPOT rows, the lever row, ``plan`` and the frontier's
point at the same batch are one number.

Llama 4 Scout (meta-llama/Llama-4-Scout-17B-16E config.json, text_config,
https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E/blob/main/config.json): 48 layers, attention_chunk_size
8192, no_rope_layers every 4th layer (the global ones: 12 global, 36 chunked), 8 KV heads of head_dim 128; a bf16 KV
cache holds K and V, 2 x 8 x 128 x 2 B = 4,096 B per position and layer.
"""

from __future__ import annotations

import numpy as np
import pytest
from genreport.model.env import make_env
from genreport.model.plan import Shape, plan
from genreport.model.serving import _mean_context_values, _read_c
from shared import evaluated

SPEC = "llama70b-h100-tp8.yaml"  # 8 H100 over NVLink, tp 8; the model swapped for Scout
PROMPT, OUTPUT = 12 * 1024, 512  # the last context 12,799: 4,607 tokens into the second chunk, not min(S, chunk)
OVERRIDES = ("model=llama-4-scout", f"serving.prompt={PROMPT}", f"serving.output={OUTPUT}", "serving.users=16",
             "serving.prefix_hit=0.5")
CHUNK, POSITION = 8192, 2 * 8 * 128 * 2  # tokens; B per position and layer (K and V, 8 KV heads x 128, bf16)
GLOBAL, CHUNKED = 12, 36


def _read(s: float) -> float:
    """KV bytes a step at context s reads, by hand: s positions in each global layer, s mod 8192 in each chunked."""
    return POSITION * (GLOBAL * s + CHUNKED * (s % CHUNK))


def _held(s: float) -> float:
    """KV bytes one sequence at context s holds, by hand: s in each global layer, min(s, 8192) in each chunked."""
    return POSITION * (GLOBAL * s + CHUNKED * min(s, CHUNK))


@pytest.fixture(scope="module")
def r():
    return evaluated(SPEC, OVERRIDES)


def test_the_cache_a_step_reads_and_a_sequence_holds_by_hand(r):
    spec = r.spec
    env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting)
    last = float(PROMPT + OUTPUT - 1)
    assert _read(last) == 4096 * (12 * 12799 + 36 * 4607) == 1_308_426_240
    assert _held(last) == 4096 * (12 * 12799 + 36 * 8192) == 1_837_056_000
    assert float(_read_c(env, last)) * last == pytest.approx(_read(last), rel=1e-12)
    assert float(np.ravel(env.at(context=last)["c"])[0]) * last == pytest.approx(_held(last), rel=1e-12)
    # the request's rounds at S = T + 1 .. T + T_o - 1, each reading its own chunk: their mean S c(S) over the mean
    # context is the c the closed form of the decode time takes
    rounds = [_read(float(s)) for s in range(PROMPT + 1, PROMPT + OUTPUT)]
    mean, c_bar, _ = _mean_context_values(env, PROMPT, OUTPUT)
    assert mean == PROMPT + OUTPUT / 2
    assert c_bar * mean == pytest.approx(sum(rounds) / len(rounds), rel=1e-12)


def test_chapter_lever_plan_and_frontier_time_one_round(r):
    sv, spec = r.spec.serving, r.spec
    rows = r.serving["rows"]
    batches = [row["batch"] for row in rows]
    assert batches[:2] == [1, 16] and len(batches) == 3  # one request, the users, the most the TPOT target allows
    own = next(x for x in r.serving["frontier"]["layouts"] if x["titled"])
    for row in rows[1:]:
        b = row["batch"]
        k = own["batch"].index(b)
        for est in ("bound", "serial"):
            found = plan(spec.model, spec.hardware, b, sv.prompt + sv.output - 1, None, ("bf16",), 8, spec.accounting,
                         est, shape=Shape(sv.prompt, sv.output))
            p = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 1, 1, 1))
            assert p.batch == b
            assert row[est]["tpot"] == pytest.approx(p.tpot, rel=1e-12), (b, est)
            assert row[est]["tokens_per_s_gpu"] == pytest.approx(p.tokens_per_s_gpu, rel=1e-12), (b, est)
            assert row[est]["tpot"] == pytest.approx(own[est]["tpot"][k], rel=1e-12), (b, est)
            assert row[est]["tokens_per_s_gpu"] == pytest.approx(own[est]["tokens_per_s_gpu"][k], rel=1e-12)
    tech = r.serving["techniques"]
    assert tech["batch"] == batches[-1]
    for lever in tech["rows"]:  # every lever row starts from the chapter's busiest TPOT ...
        if lever["technique"] != "prefill/decode disaggregation":
            assert lever["tpot"][0] == rows[-1]["bound"]["tpot"], lever["technique"]
        else:  # ... but disaggregation, which starts from one pool that prefills between its rounds and ends there
            assert lever["tpot"] == (tech["numbers"]["one_pool_tpot"], rows[-1]["bound"]["tpot"])


def test_a_step_reads_less_than_the_cache_holds(r):
    """The round at the last context is faster than one that read the whole held cache (what the chapter timed before
    this fix): the HBM ledger of a memory-bound round at 16 sequences drops by 16 x (held - read) / 8 GPUs / W."""
    from genreport.formulas.compiled import load
    from genreport.model.layout import at_batch
    from genreport.model.techniques import layout_inputs

    last = float(PROMPT + OUTPUT - 1)
    _par, q, _env, lay, cv, read = layout_inputs(r.spec, last)
    assert float(read["c"]) * last == pytest.approx(_read(last), rel=1e-12)
    assert float(cv["c"]) * last == pytest.approx(_held(last), rel=1e-12)
    row = r.serving["rows"][1]
    t_read = float(q["decode_time_bound"](at_batch(read, lay, 16.0, busiest=False)))
    t_held = float(q["decode_time_bound"](at_batch(cv, lay, 16.0, busiest=False)))
    assert row["bound"]["tpot"] == pytest.approx(t_read, rel=1e-12)
    assert t_held > t_read
    mem = load()["decode_time_memory_gpu"]
    drop = float(mem(at_batch(cv, lay, 16.0, busiest=False))) - float(mem(at_batch(read, lay, 16.0, busiest=False)))
    w = float(np.ravel(read["W"])[0])
    assert drop == pytest.approx(16 * (_held(last) - _read(last)) / 8 / w, rel=1e-9)


def test_capacities_take_the_cache_a_sequence_holds(r):
    """The prefix-caching row's capacity without a shared prefix is the chapter's: sequences of the last context whose
    whole chunks fit (a step's smaller read would let more in, and they would not fit as they go on)."""
    tech = r.serving["techniques"]
    assert tech["numbers"]["prefix_capacity_before"] == int(r.serving["capacity_batch"])
    assert tech["numbers"]["prefix_capacity_after"] > tech["numbers"]["prefix_capacity_before"]


# The shared prefix's bytes a sequence still holds, per prefix token and GPU: the 6,144-token prefix lies in the first
# chunk, and every decode context here in the second, so only the 12 global layers hold it (4,096 B a layer and
# position over 8 GPUs), not the 36 chunked ones (their current chunk starts at 8,192)
C_S = 12 * 4096 / 8


def _balance(r, rate: float, c_h: float) -> tuple[float, float]:
    """(the caches Little's law's running sequences hold at ``rate``, the room beside the weights a GPU holds): the
    sequences lam (T_out - 1) t_s(lam) at the steady step, each holding its T_in + T_out / 2 tokens at c_h per token
    less the shared h_p T_in prefix at C_S, which is held once; the room C less the weights one GPU holds (no draft
    here)."""
    from genreport.model.techniques import _inputs

    sv = r.spec.serving
    env = _inputs(r, r.serving["techniques"]["batch"], float(sv.prompt + sv.output - 1))
    # the step at the weights the ceiling's own steady state streams (techniques.capacity_weights: its running
    # sequences' decode and prompt tokens touch the experts), not the chapter's batch's
    streamed = {**env, **r.serving["techniques"]["capacity_weights"]}
    # and each cache read at the mean decode context, as the steady state's formulas count it (techniques.report)
    at_mean = _inputs(r, r.serving["techniques"]["batch"], sv.prompt + sv.output / 2)
    t_s = float(np.ravel(r.q["steady_step_time"]({**streamed, "c": at_mean["c"], "d_h": at_mean["d_h"],
                                                   "lam": rate}))[0])
    running = rate * (sv.output - 1) * t_s
    held = r.envs[r.lead].at(context=float(sv.prompt + sv.output - 1))
    room = env["C"] - float(np.ravel(held["N"])[0]) * float(np.ravel(held["b"])[0])
    prefix = sv.prefix_hit * sv.prompt
    return running * ((sv.prompt + sv.output / 2) * c_h - prefix * C_S) + prefix * C_S, room


def test_the_kv_cache_room_counts_the_cache_a_sequence_holds(r):
    """Issue 30: ``goodput_rate_capacity`` fills the room with what the running sequences hold, c_h a token, while
    their steps read c.  Scout's decode contexts 12,289 .. 12,799 all lie in the second chunk: a sequence holds all
    8,192 positions of a chunked layer's first chunk's worth (min(S, 8192)) and S in a global one, so by hand
    S c_held(S) = 4,096 (12 S + 36 x 8,192), affine in S: its mean over the rounds is its value at the mean context
    12,544, and at tp 8 each GPU holds an eighth (8 KV heads over 8 GPUs: s_kv = 8)."""
    from genreport.model.serving import held_mean_c
    from genreport.model.techniques import _inputs

    mean = PROMPT + OUTPUT / 2
    c_h = _held(mean) / mean / 8
    assert c_h * 8 * mean == 4096 * (12 * 12544 + 36 * 8192) == 1_824_522_240
    assert held_mean_c(r.envs[r.lead], PROMPT, OUTPUT) == pytest.approx(c_h, rel=1e-12)
    from genreport.model.serving import prefix_held_mean_c

    assert prefix_held_mean_c(r.envs[r.lead], PROMPT, OUTPUT, PROMPT * 0.5) == pytest.approx(C_S, rel=1e-12)
    n = r.serving["techniques"]["numbers"]
    held, room = _balance(r, n["goodput_rate_capacity"], c_h)
    assert held == pytest.approx(room, rel=1e-9)  # the ceiling's running sequences fill the room exactly
    # the cache a step reads at the last context, 4,607 tokens into its chunk, is less: counted as held it let a
    # higher rate through, whose sequences hold more than the room
    env = _inputs(r, r.serving["techniques"]["batch"], float(PROMPT + OUTPUT - 1))
    assert env["c"] * 8 * (PROMPT + OUTPUT - 1) == pytest.approx(_read(PROMPT + OUTPUT - 1), rel=1e-12)
    assert env["c"] < 0.75 * c_h
    old = float(np.ravel(r.q["goodput_rate_capacity"]({**env, "c_h": env["c"],
                                                        "C": room + env["N"] * env["b"]}))[0])
    assert old > 1.07 * n["goodput_rate_capacity"]  # 32.0 against 29.7 requests/s per replica
    assert _balance(r, old, c_h)[0] > room
    # the rate figure's unchunked stop counts the same sequences: B_h at the mean context with c_h
    assert r.serving["techniques"]["rates"]["held_sequences_mean"] == pytest.approx(
        (room - 0.5 * PROMPT * C_S) / (mean * c_h - 0.5 * PROMPT * C_S), rel=1e-12)


def test_the_chunked_prefill_row_compares_a_prompts_ttft_like_with_like():
    """The chunked-prefill lever row printed max(the chapter's TTFT, the chunked TTFT): the first is the prompt
    alone through the layout (its interconnect included), the second the prompt in chunks beside the batch on one
    GPU's ledgers, so DeepSeek-V3 on 8 H200 read 167 ms -> 231 ms (and where the chunked one was the smaller,
    "52.2 -> 52.2 ms", two quantities in one row).  The row now takes the chunked TTFT over the same prompt in one
    step alone, both one GPU's ledgers, times the chapter's TTFT, as its TPOT takes the step's cost, and at least the
    steps the prompt's chunks ride in, each the row's TPOT (here those: 180 ms, the ratio's 88.6)."""
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    t = r.serving["techniques"]
    n, row = t["numbers"], next(x for x in t["rows"] if x["technique"] == "chunked prefill")
    assert row["ttft"][0] == r.serving["rows"][-1]["bound"]["ttft"]
    assert n["chunked_ttft_ratio"] == pytest.approx(n["chunked_ttft"] / n["chunked_ttft_alone"], rel=1e-12)
    steps = r.spec.serving.prompt / n["chunk_tokens"] * row["tpot"][1]
    assert row["ttft"][1] == pytest.approx(max(row["ttft"][0] * n["chunked_ttft_ratio"], steps), rel=1e-12)
    assert row["ttft"][1] == pytest.approx(steps, rel=1e-12) and steps > row["ttft"][0] * n["chunked_ttft_ratio"]
    assert 1 < n["chunked_ttft_ratio"] < n["chunked_ttft"] / row["ttft"][0]  # 1.06x, where the mix of the two was 1.39x
    assert "against the prompt in one step alone" in row["note"]
    # where the chapter's prompt is one GPU's ledgers (Llama 3.1 70B at tp 8: its all-reduces never bind), the
    # row's prompt alone is the chapter's TTFT to the last bit: the same accounting
    r70 = evaluated("llama70b-h100-tp8.yaml")
    assert r70.serving["techniques"]["numbers"]["chunked_ttft_alone"] == r70.serving["rows"][-1]["bound"]["ttft"]
