"""Hostile input, round five (stop 89's review): valid inputs at their edges whose output said what has no physical
value (a negative room, a speculative gain of a request with no decode round)."""

from __future__ import annotations

from shared import evaluated, words


def _numbers(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj


def test_one_card_keeps_nothing_where_its_workspace_takes_all_the_reserve_leaves():
    """Llama 3.1 70B at tp 8 with a 400,000-token engine step: each GPU of the layout holds an eighth of the step's
    activations (51.7 GiB kept), one card the whole step, more than its 80 GiB less the reserve: the chapter read
    "131.5 GiB of weights against the -4.416 GiB one card alone keeps for them" and results.json's capacity_one_card
    was -4.74e9 B.  The room is 0 and the sentence says why."""
    over = ["engine.max_batched_tokens=400000"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    assert r.one_card["seed"]["capacity"] == 0.0 and r.one_card["exact"]["capacity"] == 0.0
    assert r.scalars["seed"]["capacity"] > 0  # the layout's GPU keeps room
    from genreport.write.results import document

    negative = [(p, x) for p, x in _numbers(document(r)) if x < 0]
    assert not [p for p, _ in negative if "capacity" in p], negative
    text = words(r, "s1_waiting")
    assert ("131.5 GiB of weights against nothing one card alone keeps for them (one card's workspace for the "
            "engine's step takes all of its 80 GiB the reserve leaves") in text
    assert "-4.4" not in text


def test_a_one_token_request_does_not_speculate(capsys, tmp_path):
    """Llama 3.1 70B on 8 H100 with its speculative block and one output token: the chapter read "E_R = min(E, T_out
    - 1) = 2.95 tokens", a speculative row of 2.6x and a cheapest layout that "speculates ... 2.81x", though the request
    decodes nothing (derive speculative_request_tokens gave 0).  The spec's speculation is left out with a warning
    at its block; no speculative row, formula or sentence; the technique sentence names only what is there."""
    from genreport.commands.cli import main

    over = ["serving.output=1"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    assert r.spec.serving.speculative is None
    assert "speculative decoding" not in [row["technique"] for row in r.serving["techniques"]["rows"]]
    assert not r.serving["cheapest"].get("speculative")
    text = words(r, "s9_serving")
    assert "E R = min" not in text and "It speculates" not in text and "speculative decoding is" not in text.lower()
    assert "(a request's last token). Chunked prefill takes one GPU's ledgers" in text
    assert main(["specs/llama70b-h100-tp8.yaml", "--set", "serving.output=1", "--format", "json", "-o",
                 str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "serving.speculative: warning: a request of one output token has no decode round to speculate" in err
    # and its TPOT target judges a decode step no such request takes: said at the target's line (stop 90's review:
    # "the TPOT target is missed even by one request alone" beside a chapter saying it sets no rate)
    assert ("specs/llama70b-h100-tp8.yaml:22:3: serving.tpot: warning: a request of one output token has no decode "
            "round: its TPOT target judges one decode step at the last context") in err


LLAMA405_TWO_NODES = """\
kind: report
name: llama405-two-nodes
title: Llama 3.1 405B in fp8 on 16 H100 SXM (tp 8 x pp 2)
hardware: h100-sxm
model: llama-3.1-405b
precision: fp8
parallelism: {tp: 8, pp: 2}
workloads:
  decode: {batch: [1, 8], context: [1k, 32k]}
serving: {prompt: 32k, output: 256, ttft: 1 s, tpot: 50 ms, users: 32}
"""


def test_a_ttft_met_at_the_bound_and_missed_by_the_estimate_says_both(tmp_path):
    """Llama 3.1 405B fp8 on 16 H100 (tp 8 x pp 2), 32k prompts under a 1 s TTFT target (stop 89's hard-regime
    review): the strict bound's prefill, 979 ms (3.08e16 FLOPs over 16 x 1,979 TFLOP/s and the output head), meets
    it while the serial estimate's 3.74 s does not; page 1 said "meets them" and the chapter "met" with no word of it."""
    path = tmp_path / "llama405.yaml"
    path.write_text(LLAMA405_TWO_NODES, encoding="utf-8")
    r = evaluated(path)
    row = r.serving["rows"][0]
    assert row["bound"]["ttft"] < 1.0 < row["serial"]["ttft"] and r.serving["ttft_met"]
    text = words(r, "s9_serving", "s0_summary")
    assert "The TTFT target is met: at least 979 ms at this layout, while the serial estimate, 3.74 s, misses it." in text
    assert "at the strict bound (the serial estimate's TTFT, 3.74 s, misses its target);" in text
    assert ", while the serial estimate" not in words(evaluated("llama70b-h100-tp8.yaml"), "s9_serving")


def test_a_rate_past_the_goodput_says_no_engine_holds_its_steady_state():
    """Llama 3.1 70B on 8 H100 at 34 requests/s (the hostile review of stop 89): "a step takes 71.4 ms with 1,240
    sequences decoding", past the compute roof (12), the engine's 256 sequences and the caches' 313, with no word.
    The sentence names the goodput it passes; a rate within it reads as before."""
    text = words(evaluated("llama70b-h100-tp8.yaml", ["serving.rate=34"]), "s9_serving")
    assert ("At the spec's 34 requests/s a step takes 71.4 ms with 1,240 sequences decoding, past the 12 requests/s "
            "the compute roof allows: no engine holds that steady state.") in text
    assert "The goodput of one replica (8 GPUs, each computing its slice of every request), in the steady state" in text
    within = words(evaluated("llama70b-h100-tp8.yaml", ["serving.rate=5"]), "s9_serving")
    assert "sequences decoding." in within and "no engine holds" not in within.split("At the spec's")[1][:200]


def test_derive_finds_no_share_past_1(capsys):
    """``derive speculative_expected_tokens --for p_a --at speculative_expected_tokens=20``: with 3 draft tokens a verify
    step yields at most 4, and the numeric root p_a = 2.26427 was printed as a solution (the hostile review of stop
    89), where ``--at p_a=1.5`` is refused.  A share's root past 1 is no solution; E = 3 still finds p_a = 0.8105."""
    from genreport.commands.cli import main

    ask = ["derive", "speculative_expected_tokens", "--for", "p_a", "--spec", "specs/llama70b-h100-tp8.yaml", "--at"]
    assert main([*ask, "speculative_expected_tokens=20"]) == 0
    out = capsys.readouterr().out
    assert "2.26427" not in out and "no p_a below 1 reaches this value" in out, out
    assert main([*ask, "speculative_expected_tokens=3"]) == 0
    assert "p_a = 0.810536" in capsys.readouterr().out


def test_a_request_that_does_not_fit_is_named_at_its_last_context():
    """A 100,000,000-token prompt and 512 out: "no sequence of 100,000,512 tokens fits" beside "a request's last
    context ... 100,000,511" (the hostile review of stop 89); the capacity counts the last context, prompt + output -
    1, and the sentence names it."""
    r = evaluated("llama70b-h100-tp8.yaml", ["serving.prompt=100000000"])
    assert r.serving["last_context"] == 100_000_511 and not r.serving["holds"]
    assert "no sequence of 100,000,511 tokens fits beside its weights" in words(r, "s9_serving")


def test_a_rate_just_past_the_goodput_shows_the_digits_that_part_them():
    """``serving.rate=11.99`` beside a goodput of 11.9725 (11.9709 since each GPU holds the norms whole) read "At the spec's 12 requests/s ... past the 12 requests/s
    the compute roof allows" (stop 89's review of its own changes): the goodput takes six digits where both round alike."""
    text = words(evaluated("llama70b-h100-tp8.yaml", ["serving.rate=11.99"]), "s9_serving")
    assert "past the 11.9709 requests/s the compute roof allows" in text, text[text.find("At the spec's"):][:300]


def test_the_whole_prompts_ttft_aside_follows_its_ttft_before_the_estimates():
    """Both asides of the TTFT sentence (a prefix hit; an estimate past the target): "for a whole prompt" belongs to
    the bound's TTFT, not after "the serial estimate ... misses it"."""
    r = evaluated("llama70b-h100-tp8.yaml", ["serving.prefix_hit=0.5", "serving.ttft=50 ms"])
    text = words(r, "s9_serving")
    assert r.serving["rows"][0]["serial"]["ttft"] > 0.05 > r.serving["rows"][0]["bound"]["ttft"]
    assert "at this layout for the 50% of a prompt the prefix cache leaves (the rows' TTFT;" in text
    assert "the prefix caching row below), while the serial estimate," in text


def test_derive_s_prefix_capacity_at_a_context_inside_the_prefix_and_on_an_uneven_pipeline(capsys):
    """Stop 89's review of its own changes: (1) Gemma 3 27B at its first decode context, 1,024 tokens, inside a
    14,746-token cached prefix, printed B_cap,h = 2.96e17 (c_s took the whole prefix where the context holds 1,024 of
    it); it says no sequence fits, as a model of global layers does. (2) Gemma 3 27B over 4 uneven stages (15/16/16/15
    layers): derive read 389.8 where the row's 373 fit (the step's c and C, not the binding stage's), and its goodput's
    KV room 4.88 where results.json's is 4.937 (c_s not scaled to that stage)."""
    from genreport.commands.cli import main

    assert main(["derive", "prefix_capacity_batch", "--context", "1024", "--spec", "specs/llama70b-h100-tp8.yaml",
                 "--set", "model=gemma-3-27b", "--set", "serving.prompt=16k", "--set", "serving.prefix_hit=0.9"]) == 0
    # no value, and why: the context is inside the cached prefix (stop 91: it said the weights exceed the memory)
    assert "none: the context, 1,024 tokens, is shorter than the 14,746 tokens a prefix cache holds" in \
        capsys.readouterr().out
    sets = ["model=gemma-3-27b", "parallelism.tp=1", "parallelism.pp=4", "serving.prompt=4096", "serving.output=2048",
            "serving.prefix_hit=0.999"]
    n = evaluated("llama70b-h100-tp8.yaml", sets).serving["techniques"]["numbers"]
    flags = [x for s in sets for x in ("--set", s)]
    assert main(["derive", "prefix_capacity_batch", "--context", "6143", "--spec", "specs/llama70b-h100-tp8.yaml",
                 *flags]) == 0
    assert f"(floor: {n['prefix_capacity_after']})" in capsys.readouterr().out
    assert main(["derive", "goodput_rate_capacity", "--spec", "specs/llama70b-h100-tp8.yaml", *flags]) == 0
    out = capsys.readouterr().out  # derive prints its value to six digits
    assert f"lambda_C = {n['goodput_rate_capacity']:.6g} 1/s" in out, (n["goodput_rate_capacity"], out[-400:])


def test_a_missed_ttft_of_a_prefix_cached_request_names_the_whole_prompt_too():
    """The aside's other branch (a TTFT target missed): the review's own fix first left it undefined there."""
    text = words(evaluated("llama70b-h100-tp8.yaml", ["serving.prefix_hit=0.5", "serving.ttft=1 ms"]), "s9_serving")
    assert ("missed: the prefill alone takes at least 37.5 ms at this layout for the 50% of a prompt the prefix cache "
            "leaves (the rows' TTFT; a whole prompt takes 73.7 ms") in text


def test_a_prefix_no_window_still_holds_is_not_said_to_be_held_once():
    """Mistral-7B (every layer a 4,096-token window) with half of each 8k prompt cached: at the last context, 8,703,
    every window has passed the 4,096-token prefix, so nothing is shared and the count stays 115; the row read
    "115 → 115 (the shared prefix held once)" (stop 89's review)."""
    r = evaluated("llama70b-h100-tp8.yaml", ["model=mistral-7b", "parallelism.tp=1", "serving.prompt=8k",
                                             "serving.prefix_hit=0.5"])
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "prefix caching")
    assert "115 → 115 (no layer still holds the prefix at that context: its windows have passed it)" in row["ends"]
