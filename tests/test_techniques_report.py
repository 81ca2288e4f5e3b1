"""Issue 30 in the report: the serving chapter's engine techniques at the spec's layout, each from its formula."""

from __future__ import annotations

import json

import numpy as np
import pytest
from genreport.commands.cli import main
from genreport.formulas import techniques as t
from genreport.formulas.glossary import sym
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.model.techniques import draft_memory
from genreport.present import fmt
from shared import ROOT, evaluated

SPEC = """\
kind: report
name: sv
title: Llama 3.1 70B in fp8 on 8 H100, served with engine techniques
hardware: h100-sxm
model: llama-3.1-70b
precision: fp8
parallelism: {tp: 8}
serving:
  prompt: 4k
  output: 512
  tpot: 50 ms
  users: 128
  chunk: 512
  rate: 2
  prefix_hit: 0.5
  speculative: {draft_tokens: 3, acceptance: 0.8, draft_cost: 0.1}
workloads:
  decode: {batch: [1, 64], context: [4k]}
"""


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("sv") / "sv.yaml"
    path.write_text(SPEC)
    return evaluate(load_report(path)), path


def _two_k(path):
    """The serving chapter's busiest row (the bound) of the module's spec with 2,048-token prompts and no cache."""
    return evaluated(path, ("serving.prompt=2048", "serving.prefix_hit=0")).serving["rows"][-1]["bound"]


def _uncached_half(r, qid: str = "prefill_time_bound") -> float:
    """The layout's ``qid`` for the uncached 2,048 tokens of a 4,096-token prompt whose first half a prefix cache
    holds, by hand: a fresh 2k prompt's values with d_h tripled, for the 2,048 tokens attend to the 2,048 cached ones
    too: 2,048 x (2,048 + 2 x 2,048) / 2 pairs a layer, 3 x the fresh prompt's 2,048^2 / 2 (a review of stop 88: the
    prefix caching row's TTFT left that attention out, under the rate figure's t_p of the same tokens)."""
    from genreport.model.env import make_env
    from genreport.model.layout import at_prompt, layout_base

    spec = r.spec
    env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting)
    _, base, _ = layout_base(env, spec.model, spec.hardware, spec.precision, spec.parallelism, spec.accounting)
    pre = at_prompt(base, env.with_layout(spec.parallelism), 2048.0)
    return float(r.q[qid]({**pre, "d_h": 3 * pre["d_h"]}))


def test_each_technique_is_a_row_with_its_formula(report):
    r, path = report
    tq = r.serving["techniques"]
    assert [row["technique"] for row in tq["rows"]] == ["speculative decoding", "chunked prefill", "prefix caching",
                                                         "prefill/decode disaggregation"]
    assert tq["chunk"] == 512  # as written (V0's chunked-prefill budget); the default is the engine's 8192
    for name in ("tech_speculative", "tech_chunked", "tech_goodput", "tech_pools", "tech_kv"):
        assert name in r.blocks
    n = tq["numbers"]
    assert n["expected_tokens"] == pytest.approx(1 + 0.8 + 0.64 + 0.512)
    # the speed-up is E t_s / (t_v + t_d) from the rounds at the layout (tp 8, the all-reduces included), at the
    # chapter's batch, drafts 10% of a plain round; at the request's last context (the one that divides the TPOT)
    # and at its mean context (the one that divides the decode time: tok/s and $/M)
    e = 1 + 0.8 + 0.64 + 0.512
    # hand count, per GPU of tp 8 (Meta's 70.6e9 parameters in fp8, 163,840 B of fp8 KV per token; H100 at
    # 1,979 TFLOP/s fp8 dense and 3.35 TB/s): at the chapter's batch the plain round streams the weights and the
    # caches; the verify round's 4 B tokens make it compute-bound
    batch = tq["batch"]
    for ctx, context in (("last", 4096 + 512 - 1), ("mean", 4096 + 512 / 2)):
        plain = (70.6e9 + batch * context * 163840) / 8 / 3.35e12
        verify = 4 * batch * (2 * 70.6e9 + 4 * 80 * 64 * 128 * context) / 8 / 1979e12
        assert n[f"plain_round_{ctx}"] == pytest.approx(plain, rel=2e-3)
        assert n[f"verify_round_{ctx}"] == pytest.approx(max(plain, verify), rel=2e-3)
        assert n[f"draft_time_{ctx}"] == pytest.approx(0.1 * n[f"plain_round_{ctx}"], rel=1e-12)
        assert n[f"speedup_{ctx}"] == pytest.approx(e * n[f"plain_round_{ctx}"] / (n[f"verify_round_{ctx}"]
                                                                                   + n[f"draft_time_{ctx}"]), rel=1e-9)
        block = r.blocks["tech_speculative" if ctx == "last" else "tech_speculative_mean"]
        assert block.entry.value == pytest.approx(n[f"speedup_{ctx}"], rel=1e-12)  # the printed formula is the number
        assert block.inputs["t_v"] == n[f"verify_round_{ctx}"] and block.inputs["t_s"] == n[f"plain_round_{ctx}"]
        assert block.entry.params == {"batch": batch, "context": int(context)}
    # the lever row: TPOT (a time per token at the last token) over the last context's speed-up, the chapter's TPOT
    # being that plain round; tok/s per GPU and $/M with the mean context's, the decode rounds summed there
    spec_row, busiest = tq["rows"][0], r.serving["rows"][-1]["bound"]
    assert spec_row["tpot"][0] == busiest["tpot"] == pytest.approx(n["plain_round_last"], rel=1e-12)
    assert spec_row["tpot"][1] == pytest.approx(n["plain_round_last"] / n["speedup_last"], rel=1e-12)
    assert spec_row["per_gpu"][1] == pytest.approx(busiest["tokens_per_s_gpu"] * n["speedup_mean"], rel=1e-12)
    assert spec_row["usd"][1] == pytest.approx(busiest["usd_per_mtok_out"] / n["speedup_mean"], rel=1e-12)
    assert n["speedup_last"] > n["speedup_mean"]  # the longer context's caches keep the verify round memory-bound longer
    mean = 4096 + 512 / 2
    # one GPU's ledgers (no interconnect) give the formula speculative_speedup: the layout's is within 1% of it here
    env = r.envs[r.lead].at(batch=float(batch), context=mean)
    step = max(float(r.q["decode_time_memory"](env)), float(r.q["decode_time_compute"](env)))
    values = {sym(k): float(v) for k, v in env.items() if k in ("N", "N_a", "N_e", "L", "H_q", "d_h", "b", "c", "a",
                                                                "P", "W", "B", "S")}
    values.update({sym("p_a"): 0.8, sym("k_d"): 3, sym("n_v"): 4, sym("t_d"): 0.1 * step})
    assert n["speedup_mean"] == pytest.approx(float(t.speculative_speedup().subs(values)), rel=0.01)
    # the KV transfer between two replicas of tp 8 (16 GPUs, past the 8-GPU NVLink domain): each GPU sends its
    # eighth of the prompt's 4,096 x 163,840 B over its own 50 GB/s ConnectX-7 (DGX H100 user guide)
    assert n["kv_transfer_time"] == pytest.approx(4096 * 163840 / (8 * 50e9), rel=1e-12)
    assert n["kv_link"].startswith("scale-out")
    # prefix caching halves the prompt the prefill computes: the TTFT is the uncached 2,048 tokens' alone at the
    # layout, attending to the cached 2,048 too (compute-bound: a little over half the whole prompt's, more than a
    # fresh 2k prompt's)
    prefix = tq["rows"][2]
    half = _two_k(path)
    assert prefix["ttft"][1] == pytest.approx(_uncached_half(r), rel=1e-12) == n["prefix_ttft"]
    assert half["ttft"] < prefix["ttft"][1] < 0.55 * prefix["ttft"][0]
    # the rate figure's t_p, the same tokens on one GPU's slice without the collectives, is no more than it
    assert tq["rates"]["prefill_alone_time"] <= prefix["ttft"][1]


def test_the_one_pool_rate_reads_as_page_ones_rates(report):
    """The disaggregation row's one-pool rate is a rate of tokens per GPU, printed as page 1 prints one (fmt.num:
    "2,976 tok/s per GPU"), not to the hundredth as the requests/s beside it ("1,435.74 tok/s per GPU" read at six
    significant digits where every other rate has three)."""
    import re

    from genreport.present import fmt

    r, _ = report
    (row,) = [x for x in r.serving["techniques"]["rows"] if x["technique"] == "prefill/decode disaggregation"]
    before = r.serving["techniques"]["numbers"]["one_pool_tokens_per_s_gpu"]
    said = re.search(r"prefills between its rounds [^:]*: ([0-9.,]+) tok/s per GPU", row["ends"]).group(1)
    assert said == fmt.num(before) and "." not in said and before >= 10


def test_goodput_meets_the_target_exactly(report):
    r, _ = report
    n = r.serving["techniques"]["numbers"]
    assert n["goodput_rate"] == min(n["goodput_rate_tpot"], n["goodput_rate_compute"], n["goodput_rate_capacity"],
                                    n["chunk_budget_rate"])
    # at the TPOT-limited rate the steady step time is the target (50 ms): the solved rate solves its equation
    env = r.envs[r.lead].at(batch=1.0, context=4096.0)
    values = {sym(k): float(v) for k, v in env.items() if k in ("N", "N_e", "b", "c", "a", "W")}
    values.update({sym("T_in"): 4096, sym("T_out"): 512, sym("h_p"): 0.5, sym("s_c"): 512, sym("C_p"): 512,
                   sym("lam"): n["goodput_rate_tpot"]})
    assert float(t.steady_step_time().subs(values)) == pytest.approx(0.050, rel=1e-9)
    assert n["rate"] == 2 and n["steady_step_time"] > 0 and n["steady_concurrency"] == pytest.approx(
        2 * 511 * n["steady_step_time"])


# Hand counts per GPU of tp 8 (derive's tests use the same): Llama 3.1 70B in fp8, Meta's 70.6e9 parameters at 1 B,
# 80 layers x 2 x 8 KV heads x 128 x 1 B of KV per token, each GPU holding an eighth of both; H100 SXM 3.35 TB/s;
# C = 80 GiB less vLLM's 10% reserve and one engine step's activations at the spec's 512-token chunk (vLLM's one
# max_num_batched_tokens: 512 tokens x 2 B x (2 x 8,192 + 3 x 28,672 / 8) + 256 sampled positions x 128,256 x 4 B of
# fp32 logits = 159,121,408 B, formulas.memory).
# each GPU holds the 1,318,912 norm weights whole, 7 more copies in the replica (tests/test_tp_copies.py)
NB, C_KV, W = (70.6e9 + 7 * 1_318_912) / 8, 163840 / 8, 3.35e12
CAP = 0.9 * 80 * 2**30 - (512 * 2 * (2 * 8192 + 3 * 28672 / 8) + 256 * 128256 * 4)


def _request_bytes(t_in=4096, t_out=512, h=0.5, s_c=512):
    """Q_r (request_bytes): 511 decode tokens at the mean context 4,096 + 256, the uncached half of the prompt
    written and each of its chunks reading the prompt before it."""
    prompt = t_in * (1 - h)
    return (t_out - 1) * (t_in + t_out / 2) * C_KV + prompt * C_KV * (1 + (t_in * (1 + h) - s_c) / (2 * s_c))


def test_the_goodput_takes_the_least_of_four_ceilings_per_replica_and_per_gpu(report):
    """The chapter's four ceilings by hand, per replica of tp 8 (each GPU's slice of every request): the TPOT
    target t_s(lam) = theta, the KV cache room (the caches fill at the steady step of that rate, each running
    sequence at the mean context 4,352 less the shared half of the prompt, which is held once) and the chunk budget
    (lam (T_in (1 - h_p) + T_out - 1) t_s(lam) = s_c), with t_s(lam) = N b / (W - lam Q_r); the goodput per GPU is
    an eighth."""
    r, _ = report
    n = r.serving["techniques"]["numbers"]
    q_r = _request_bytes()
    assert n["goodput_rate_tpot"] == pytest.approx((W - NB / 0.050) / q_r, rel=1e-6)
    assert r.envs[r.lead].values["C"] == pytest.approx(CAP, rel=1e-12)
    # the room beside the weights and the 2,048-token prefix all share (PagedAttention's shared blocks, SGLang's
    # RadixAttention: held once, as the prefix-caching row counts it); each running sequence holds its own
    # 4,352 - 2,048 = 2,304 tokens on average (Little's law's time average over its 511 decode steps).  Charging
    # each sequence the whole 4,352 with no prefix shared said 64.8 requests/s.
    room = CAP - NB - 2048 * C_KV
    assert n["goodput_rate_capacity"] == pytest.approx(room * W / (511 * 2304 * C_KV * NB + room * q_r), rel=1e-6)
    assert n["goodput_rate_capacity"] == pytest.approx(68.46, abs=0.005)
    assert n["chunk_budget_rate"] == pytest.approx(512 * W / ((4096 * 0.5 + 511) * NB + 512 * q_r), rel=1e-6)
    # prefix caching, per replica as well: the shared half of the prompt held once, at the last context 4,607
    assert n["prefix_capacity_after"] == int((CAP - NB - 0.5 * 4096 * C_KV) / ((4607 - 2048) * C_KV))
    assert n["prefix_capacity_before"] == int((CAP - NB) / (4607 * C_KV))
    # a 512-token budget, its 511 x lam t_s decode tokens first: the prompts fall behind (37.3 requests/s) before the
    # compute roof (42.2) is reached,
    # so the chunk budget sets the goodput (without it the chapter stated the compute roof's rate)
    assert n["chunk_budget_rate"] == pytest.approx(37.3, abs=0.05)
    assert n["chunk_budget_rate"] < n["goodput_rate_compute"] < n["goodput_rate_capacity"] < n["goodput_rate_tpot"]
    assert n["goodput_binds"] == "chunk budget" and n["goodput_rate"] == n["chunk_budget_rate"]
    assert n["replica_gpus"] == 8 and n["goodput_rate_per_gpu"] == pytest.approx(n["goodput_rate"] / 8, rel=1e-12)
    # chunks of 2,048 tokens: the budget moves past the compute roof, which binds
    wide = evaluate(load_report(report[1], overrides=["serving.chunk=2048"]))
    m = wide.serving["techniques"]["numbers"]
    assert m["chunk_budget_rate"] == pytest.approx(2048 * W / ((4096 * 0.5 + 511) * NB + 2048 * _request_bytes(s_c=2048)),
                                                   rel=1e-6)
    assert m["goodput_binds"] == "compute roof" and m["goodput_rate"] == m["goodput_rate_compute"]


def test_the_rate_figure_stops_at_the_chapters_chunk_budget(report):
    """One number, one place (issue 30's review): the rate figure's chunked curve stops at the chunk budget the
    chapter states (``chunk_budget_rate``, evaluated once), not at a second count of its own.  The figure's own
    bisection counted the prompt tokens alone against the 512-token budget, 2,048 lam t_s = 512, so it stopped later
    (41.3 requests/s, its goodput star there) than the chapter's 37.3, where the 511 lam t_s decode tokens share the
    budget (vLLM's max_num_batched_tokens counts the running decodes first: vllm/v1/core/sched/scheduler.py,
    token_budget)."""
    r, _ = report
    tq = r.serving["techniques"]
    n, ch = tq["numbers"], tq["rates"]["chunked"]
    assert ch["stops_at"] == "chunk budget" and ch["limits"]["chunk budget"] == n["chunk_budget_rate"]
    assert ch["stop"] == n["chunk_budget_rate"] == ch["goodput"] == n["goodput_rate"]
    # hand count at the curve's last rate: the decode tokens (Little's law) and the uncached half of the 4,096-token
    # prompts a step of t_s carries fill the 512-token budget exactly (a dense model: its step reads all its weights)
    lam, t_s = ch["rate"][-1], ch["tpot"][-1]
    assert ch["running"][-1] == pytest.approx(lam * 511 * t_s, rel=1e-12)
    assert lam * (511 + 4096 * 0.5) * t_s == pytest.approx(512, rel=1e-9)
    # and by hand from the step t_s = N b / (W - lam Q_r) of one GPU's slice (tp 8, fp8)
    assert lam == pytest.approx(512 * W / ((4096 * 0.5 + 511) * NB + 512 * _request_bytes()), rel=1e-6)


def test_one_symbol_for_each_prefill_time(report):
    """t_p meant two times with prefix caching (issue 30's review): the rate figure's tail took t_p, half of the
    4,096-token prompt prefilled alone on one GPU's slice of tp 8 (no collectives), and the disaggregation row's
    printed formula t_p = the chapter's TTFT, the whole prompt at the replica with its all-reduces.  Now the pools
    take t_pr (printed t_{p,R}); the glossary defines both, each once."""
    from genreport.formulas.glossary import BY_NAME

    r, path = report
    tq = r.serving["techniques"]
    ttft = r.serving["rows"][-1]["bound"]["ttft"]
    pools = r.blocks["tech_pools"]
    # with prefix caching a prefill replica prefills the uncached part only (rev13): the 2,048 uncached tokens alone
    # at the layout, attending to the cached half too
    h_p = r.spec.serving.prefix_hit
    assert h_p > 0
    assert "t_pr" in pools.inputs and "t_p" not in pools.inputs
    assert pools.inputs["t_pr"] == pytest.approx(_uncached_half(r, "prefill_pass_bound"), rel=1e-12)
    assert pools.inputs["t_pr"] > _two_k(path)["prefill"]
    # the rows' TTFT is the same uncached half at the layout (K 1 of stop 92: one prompt, one scope in the chapter),
    # the rate figure's t_p that half on one GPU's slice without its collectives: at most the rows' (here equal, the
    # prefill compute-bound), half the whole prompt's
    assert ttft == pytest.approx(_uncached_half(r), rel=1e-12)
    t_p = tq["rates"]["prefill_alone_time"]
    assert t_p <= ttft < 0.6 * tq["numbers"]["prefix_ttft_before"]
    # by hand, the uncached 2,048 tokens on one GPU of tp 8 are compute-bound: 2 x 70.6e9 / 8 x 2,048 FLOPs and
    # more (attention, the head) at 1,979 TFLOP/s fp8
    assert t_p > 2 * 70.6e9 / 8 * 2048 / 1979e12
    assert BY_NAME["t_pr"].latex == r"t_{p,\mathrm{R}}" and BY_NAME["t_p"].latex == "t_{p}"
    assert "uncached" in BY_NAME["t_p"].meaning and "whole prompt" in BY_NAME["t_pr"].meaning
    assert sym("t_p") not in t.balanced_prefill_gpus().free_symbols


def test_the_chapter_and_results_json_state_them(report):
    """results.json and the page as a build writes them (``results_json``; ``shared.page``: no figure drawn)."""
    from genreport.write.results import results_json
    from shared import page as page_of

    r, path = report
    doc = json.loads(results_json(r, None))
    assert doc["serving"]["techniques"]["rows"][0]["technique"] == "speculative decoding"
    html = page_of(path)
    assert "What serving engines do to it" in html and "speculative decoding" in html
    assert 'the chunk budget\n(<span data-sv="numbers.chunk_budget_rate" data-f="rps" data-none="none">37 requests/s' in html  # the fourth ceiling, stated and binding, per replica and GPU
    assert "(8 GPUs, each computing its slice of every request), in the steady state of one GPU's ledgers (no " \
           "collectives), is the least of the five: <strong>37 requests/s</strong>, 4.66 per GPU, set by the chunk " \
           "budget." in html
    tq = doc["serving"]["techniques"]["numbers"]
    assert tq["goodput_binds"] == "chunk budget" and tq["chunk_budget_rate"] == tq["goodput_rate"]
    # speculative decoding's two speed-ups, each named by its context, in results.json and in the prose
    assert tq["speedup_last"] > tq["speedup_mean"] > 1 and "speedup" not in tq
    assert ("TPOT is the TPOT above over its speed-up at that last token (<span data-sv=\"numbers.speedup_last\" "
            f'data-f="f2">{tq["speedup_last"]:.2f}</span>×)') in html
    assert f'mean context, <span data-sv="mean_context" data-f="integer">4,352</span> (<span ' \
           f'data-sv="numbers.speedup_mean" data-f="f2">{tq["speedup_mean"]:.2f}</span>×' in html
    assert "max_num_batched_tokens (engine.max_batched_tokens" in html
    # the two prefill times in words: the disaggregation's t_p,R the whole prompt at the replica, the tail's t_p not
    assert ("each prompt taking\nt<sub>p,R</sub> at a prefill replica: the prompt's uncached part at the layout, "
            "its collectives\nincluded, the rows' TTFT (not the rate figure's") in html
    assert "a prefill of the uncached prompt alone on one GPU's slice, no collectives" in html


@pytest.mark.parametrize("bad, message", [
    ("speculative: {draft_tokens: 3, acceptance: 1.2}", "acceptance"),
    ("speculative: {draft_tokens: 0, acceptance: 0.8}", "draft_tokens"),
    ("prefix_hit: 1", "prefix_hit"),
    ("rate: -3", "rate"),
    ("speculative: {draft_tokens: 3}", "neither acceptance nor accepted_length"),
    ("speculative: {draft_tokens: 3, accepted_length: 4.5}", "is not below draft_tokens + 1 = 4"),
    ("speculative: {draft_tokens: 3, acceptance: 0.8, verify_tokens: 3}", "fewer than draft_tokens + 1 = 4"),
    ("speculative: {draft_tokens: 3, accepted_length: 1}", "accepted_length"),
    ("speculative: {draft_tokens: 3, acceptance: 0.5, accepted_length: 3.2}", "not accepted_length 3.2"),
])
def test_bad_technique_inputs_name_the_line(tmp_path, capsys, bad, message):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("  rate: 2\n  prefix_hit: 0.5\n  speculative: {draft_tokens: 3, acceptance: 0.8, "
                                 "draft_cost: 0.1}\n", f"  {bad}\n"))
    assert main([str(path), "--format", "json", "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml:" in err and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_the_mean_accepted_length_gives_the_acceptance(tmp_path):
    """serving.speculative.accepted_length (tau, the tokens a verify step yields, as EAGLE, Spec-Bench, vLLM and
    SGLang report it) in place of the acceptance: p_a solves (1 - p_a^(k+1)) / (1 - p_a) = tau.  Hand counts:
    one draft token yields 1 + p_a (tau 1.85 is DeepSeek-V3's 85%); two yield 1 + p + p^2 (p = 0.5: 1.75); near
    tau = 1 nothing is accepted and near k + 1 everything is.  Both given and agreeing (within 1%) is accepted."""
    from genreport.load.objects import acceptance_for_length

    assert acceptance_for_length(1, 1.85) == pytest.approx(0.85, abs=1e-12)
    assert acceptance_for_length(2, 1.75) == pytest.approx(0.5, abs=1e-12)
    assert acceptance_for_length(3, 1.0 + 1e-9) < 1e-8 and acceptance_for_length(3, 4.0 - 1e-9) > 1 - 1e-8
    rows = {}
    for name, block in (("tau", "{draft_tokens: 3, accepted_length: 2.952, draft_cost: 0.1}"),
                        ("both", "{draft_tokens: 3, acceptance: 0.8, accepted_length: 2.95, draft_cost: 0.1}")):
        path = tmp_path / f"{name}.yaml"
        path.write_text(SPEC.replace("{draft_tokens: 3, acceptance: 0.8, draft_cost: 0.1}", block))
        rows[name] = load_report(path).serving.speculative
    assert rows["tau"].acceptance == pytest.approx(0.8, abs=1e-12)  # 1 + 0.8 + 0.64 + 0.512 = 2.952
    assert rows["both"].acceptance == 0.8  # the acceptance as given where the two agree


def test_no_serving_block_no_techniques(tmp_path):
    r = evaluated("llama8b-h100.yaml")
    assert r.serving is None and not any(k.startswith("tech_") for k in r.blocks)


@pytest.fixture(scope="module")
def ceilings():
    """The single-card formulas of the chapter's steady state and chunked step, and each put through
    formulas.layout.sliced, as functions of their symbols' names (solved once for the module)."""
    import sympy as sp
    from genreport.formulas.layout import sliced

    exprs = {"goodput_rate_tpot": t.goodput_rate_tpot(), "goodput_rate_compute": t.goodput_rate_compute(),
             "goodput_rate_capacity": t.goodput_rate_capacity(), "chunk_budget_rate": t.chunk_budget_rate(),
             "chunked_step_time": t.mixed_time(C_p=t.prompt_chunk())}

    def fn(expr):
        names = sorted(x.name for x in expr.free_symbols)
        f = sp.lambdify([sym(x) for x in names], expr, "math")
        return lambda known: f(*(known[x] for x in names))

    return {k: (fn(e), fn(sliced(e))) for k, e in exprs.items()}


@pytest.mark.parametrize("name", ["llama70b-h100-tp8.yaml", "deepseek-v3-h200-ep8.yaml"])
def test_the_steady_state_and_chunks_are_one_gpus_slice_of_the_layout(name, ceilings):
    """Issue 30: chunked prefill, the steady state's ceilings and prefix caching are evaluated at the layout's
    per-GPU slice, the frame of the report: each equals its single-card formula put through formulas.layout.sliced
    (N, c, H_q, ... of one GPU: tp 8 splits the 70B's weights and KV heads eight ways; DeepSeek-V3's EP 8 leaves each
    GPU a replica's attention and an eighth of the routed experts) at the whole model's values, and differs from one
    card holding everything (but for DeepSeek-V3's compute roof and compute-bound mixed step: a replica of one GPU
    computes every active parameter of its tokens).  Its rates are a replica's; per GPU over the replica's tp x pp GPUs."""
    r = evaluated(name)
    sv, env = r.spec.serving, r.envs[r.lead]
    tq = r.serving["techniques"]
    n, cut = tq["numbers"], env.cut
    known = {**env.card, "n_TP": cut.tp, "n_PP": cut.split, "n_EP": cut.ep, "s_kv": cut.s_kv, "rho_x": cut.rho,
             "N_R": cut.copies,
             "N_x": env.n_routed(), "T_in": sv.prompt, "T_out": sv.output, "h_p": sv.prefix_hit, "s_c": sv.chunk,
             "C_p": min(sv.chunk, sv.prompt * (1 - sv.prefix_hit)),
             "theta": sv.tpot, "B": tq["batch"], "S": tq["context"], "n_St": float(r.spec.parallelism.pp),
             "s_st": 1.0 if r.spec.parallelism.pp > 1 else 0.0}
    # the draft's weights and KV bytes a token per GPU (DeepSeek-V3's MTP head, draft_layers: 1; 0 for the 70B's
    # typed draft_cost), from the one place the chapter takes them
    known["M_d"], known["c_d"] = draft_memory(r.spec, tq["context"])
    # c_h is one GPU's, as c_d: full attention (the 70B's GQA, DeepSeek-V3's MLA) holds what a step reads, c_g
    known["c_h"] = known["c"] / (cut.split * cut.s_kv)
    known["c_s"] = known["c_h"]  # and every layer is global: the cached prefix is held whole (c_s = c_h)
    # d_hp: the prompt chunk's head dim, MLA's prefill (MHA) form (DeepSeek-V3: (128 + 64 + 128) / 2 = 160, its decode
    # tokens' absorbed d_h 544), the decode tokens' d_h for other attention (the 70B's GQA)
    known["d_hp"] = 160.0 if name.startswith("deepseek") else known["d_h"]
    assert (known["M_d"] > 0) == name.startswith("deepseek")
    for qid, (one_card, at_layout) in ceilings.items():
        assert n[qid] == pytest.approx(at_layout(known), rel=1e-9), qid
        # a replica of one GPU computes every active parameter of its tokens: the compute roof, and the mixed step
        # where it is compute-bound (DeepSeek-V3's 4k prompt in one 8,192-token chunk), are one card's
        if cut.share > 1 or qid not in ("goodput_rate_compute", "chunked_step_time"):
            assert one_card(known) != pytest.approx(at_layout(known), rel=1e-3), qid  # not one card's
    gpus = 8 if name.startswith("llama") else 1  # tp 8: one replica of 8 GPUs; dp 8 x ep 8: 8 replicas of one
    assert n["replica_gpus"] == gpus and n["goodput_rate_per_gpu"] == pytest.approx(n["goodput_rate"] / gpus)


def test_the_kv_capacity_rate_fills_the_room_beside_the_weights_held_once():
    """A pipeline stage holds its slice once but a round streams it once per micro-batch, min(n_PP, B) times
    (Narayanan et al. SC'21, section 2.2): the KV capacity's rate is where Little's law's running sequences,
    lam (T_out - 1) t_s(lam) of them at the mean context, fill C - N_held b, with t_s(lam) the round's steady step.
    Taking the streamed N for the held one left Llama 3.1 70B bf16 on pp 2 (65.7 GiB of weights a GPU, streamed
    twice a round) no room at all: "none: the KV capacity allows no rate" beside a figure whose curve ran on."""
    from genreport.model.techniques import _inputs

    r = evaluated("llama70b-h100-tp8.yaml", ["parallelism.tp=1", "parallelism.pp=2"])
    sv, tq = r.spec.serving, r.serving["techniques"]
    n, batch, last = tq["numbers"], float(tq["batch"]), float(sv.prompt + sv.output - 1)
    env = _inputs(r, batch, last)
    n_h = float(np.ravel(r.envs[r.lead].at(context=last)["N"])[0])  # the even slice
    assert env["N"] == pytest.approx(2 * n_h, rel=1e-12)  # two micro-batches a round: the slice streamed twice
    lam = n["goodput_rate_capacity"]
    assert lam is not None and lam > 0
    t_s = float(r.q["steady_step_time"]({**env, "lam": lam}))
    running = lam * (sv.output - 1) * t_s
    # the room is the stage's that holds the fewest tokens (Env.held: its weights, its memory), the even slice above
    # what a round streams
    stage = r.envs[r.lead].held(context=last)
    room = float(np.ravel(stage["C"])[0]) - float(np.ravel(stage["N"])[0]) * float(np.ravel(stage["b"])[0])
    assert running * (sv.prompt + sv.output / 2) * env["c"] == pytest.approx(room, rel=1e-9)
    assert n["goodput_rate"] == min(n["goodput_rate_tpot"], n["goodput_rate_compute"], lam, n["chunk_budget_rate"])


def test_the_chunk_is_what_the_budget_leaves_beside_the_decode_tokens():
    """A chunked-prefill step's budget holds the running sequences' decode tokens first and a prompt chunk in what is
    left (vLLM v1, vllm/v1/core/sched/scheduler.py Scheduler.schedule: the running requests are scheduled from
    token_budget = max_num_batched_tokens before the waiting ones; Sarathi-Serve, Agrawal et al., OSDI 2024,
    section 4: the token budget counts the decode tokens and the prefill chunk together), as the chapter's own chunk
    budget rate counts them.  The lever row took a whole budget of prompt tokens beside the batch (Mixtral 8x22B on
    8 MI300X, a 2,048-token budget beside 2,024 decode sequences: a 2,048-token prompt in one step, TTFT 34.7 ms,
    where 24 tokens a step take 86 steps, 2.96 s).  The 70B on 8 H100 at a 512-token budget: the chunk is 512 - B
    and the prompt takes 4,096 / (512 - B) mixed steps; at a budget under the batch no prompt chunk rides along."""
    r = evaluated("llama70b-h100-tp8.yaml", ("serving.chunk=512",))
    tq = r.serving["techniques"]
    n, batch = tq["numbers"], tq["batch"]
    row = next(x for x in tq["rows"] if x["technique"] == "chunked prefill")
    assert 0 < batch < 512 and n["chunk_tokens"] == 512 - batch
    assert n["chunked_ttft"] == pytest.approx(4096 / (512 - batch) * n["chunked_step_time"], rel=1e-12)
    assert row["ttft"][1] == pytest.approx(n["chunked_ttft"], rel=1e-12)
    assert row["setting"] == f"a step budget of 512 tokens: {batch:,} decode tokens and a prompt chunk of {512 - batch}"
    assert n["chunk_admits_rate"] == pytest.approx((512 - batch) / (4096 * n["chunked_step_time"]), rel=1e-12)
    # the rate figure's tail step at the P99 capacity: a chunk of what the budget leaves beside the running
    # sequences there, not "a whole prompt: the 512-token budget holds it" (the 4,096-token prompt)
    tail = tq["rates"]["chunked"]
    assert not tail["p99_whole_prompt"] and 0 < tail["p99_chunk"] < 512
    assert evaluated("llama70b-h100-tp8.yaml").serving["techniques"]["rates"]["chunked"]["p99_whole_prompt"]
    from genreport.present import figures

    assert ("every step carries up to 512 tokens, the running sequences' decode tokens and a prompt chunk in what they "
            "leave") in " ".join(figures.captions(r)["fig11-rates"].split())

    # a pipeline of 2 stages runs a step per micro-batch in flight, each with its own budget: the round leaves
    # 2 x 512 - B prompt tokens beside its B decode tokens
    tq = evaluated("llama70b-h100-tp8.yaml", ("parallelism.tp=4", "parallelism.pp=2", "serving.chunk=512")) \
        .serving["techniques"]
    assert 512 < tq["numbers"]["chunk_tokens"] == 2 * 512 - tq["batch"] < 4096

    r = evaluated("llama70b-h100-tp8.yaml", ("serving.chunk=128",))
    tq = r.serving["techniques"]
    n, batch = tq["numbers"], tq["batch"]
    row = next(x for x in tq["rows"] if x["technique"] == "chunked prefill")
    assert batch >= 128 and n["chunk_tokens"] == 0 and n["chunked_ttft"] is None and row["ttft"][1] is None
    assert batch > 128  # more decode tokens than the budget: they pass it (an engine would not run them in one step)
    assert row["ends"].startswith(f"the {batch:,} decode tokens alone pass the budget of 128 (an engine schedules no "
                                  "more tokens a step than its budget")


def test_chunk_budget_ceiling_is_one_number_and_the_lever_rows_admission_says_it_is_another():
    """DeepSeek-V3 fp8 on 16 H200 at tp 8 x pp 2, chunk 2048, its MTP draft (the committed spec's serving block):
    the goodput text's chunk-budget rate and figure 10's chunked stop are one quantity, the steady state's ceiling
    (25.2 requests/s: a round's 2 steps of 2,048 tokens each; one step's budget read 16.1 before stop 90); the lever
    row's 'one chunk a step admits 20.6 requests/s' is admission at the chapter's batch (986 running, a chunk of 3,110
    over the round's 2 steps), while that batch retires 26.4: no steady state.  Its words now say so, in the report
    and on the live page (rev4, task h30p)."""
    from shared import evaluated

    # with no engine limit: the engine's 256 sequences would stop the curve first (goodput_rate_engine)
    r = evaluated("deepseek-v3-h200-ep8.yaml", ("parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1",
                                                "parallelism.ep=1", "serving.chunk=2048", "engine.max_sequences=0"))
    tech = r.serving["techniques"]
    n, chunked = tech["numbers"], tech["rates"]["chunked"]
    assert chunked["stops_at"] == "chunk budget" and chunked["stop"] == n["chunk_budget_rate"]
    assert n["goodput_binds"] == "chunk budget" and n["goodput_rate"] == n["chunk_budget_rate"]
    # another quantity, another value (the steady ceiling counts the round's 2 x 2,048 tokens, a steady batch's)
    # (25.17 before each GPU computed with and streamed what tensor parallelism holds whole: tests/test_tp_copies.py)
    assert n["chunk_budget_rate"] == pytest.approx(25.02, rel=2e-3) and n["chunk_admits_rate"] < 0.85 * n["chunk_budget_rate"]
    row = next(x for x in tech["rows"] if x["technique"] == "chunked prefill")
    assert (f"at this batch one chunk a step admits {fmt.sig3(n['chunk_admits_rate'])} requests/s per replica and the "
            f"batch retires {fmt.sig3(n['batch_retires_rate'])} requests/s, each round a mixed step at the last token (admission "
            "at the chapter's batch, not the chunk budget's steady-state ceiling the goodput takes)") in row["ends"]


def test_the_chunk_of_a_partly_cached_prompt_reads_the_same_in_the_row_and_the_prose():
    """With prefix caching the chunk that holds a whole uncached prompt is T_in (1 - h_p), not a whole number: Llama
    3.1 70B in fp8 on 72 GB200 (4,096-token prompts, 40% cached) printed "a prompt chunk of 2,458" in the lever row
    and "here 2,457" in the chunked-prefill paragraph beside it (4,096 x 0.6 = 2,457.6: one rounded, one cut).
    Both round it now."""
    import re

    from shared import rendered

    r = evaluated("llama70b-h100-tp8.yaml", ("serving.prefix_hit=0.4",))
    tq = r.serving["techniques"]
    assert tq["numbers"]["chunk_tokens"] == pytest.approx(4096 * 0.6, rel=1e-12)  # the whole uncached prompt
    row = next(x for x in tq["rows"] if x["technique"] == "chunked prefill")
    assert row["setting"].endswith("a prompt chunk of 2,458, of the 60% of the prompt the prefix cache leaves (its TTFT, "
                                   "before and after, is that part's, as the rows')")
    html = rendered(r, "sections/s9_serving.html.j2")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    assert "or the whole uncached prompt where that holds it; here 2,458)" in text


def test_the_chunked_ttft_of_a_partly_cached_prompt_is_not_the_whole_prompts_prefill():
    """Qwen2.5 7B int8 on one RTX 4090, 30,720-token prompts 70% cached: the chunked-prefill row's TTFT read
    "3.57 s -> 3.57 s", the whole prompt's prefill alone, where its chunks carry only the 9,216 uncached tokens
    (8,185 and the rest: 1.07 s, about the prefix-caching row's 1.07 s). The row took the larger of its chunked TTFT
    and the whole prompt's; it now takes the chapter's TTFT over the uncached part (the prefix-caching row's) times
    chunked over alone (chunked_ttft_ratio). The 70B on 8 H100, 4,096-token prompts 70% cached: one 1,229-token chunk
    beside the batch's decode tokens, not the whole prompt's TTFT."""
    r = evaluated("llama70b-h100-tp8.yaml", ("serving.prefix_hit=0.7",))
    tq = r.serving["techniques"]
    n = tq["numbers"]
    chunked = next(x for x in tq["rows"] if x["technique"] == "chunked prefill")
    prefix = next(x for x in tq["rows"] if x["technique"] == "prefix caching")
    # the chapter's rows: the uncached part alone at the layout (serving.prompt_prefill); the whole prompt's is the
    # prefix caching row's before
    ttft, whole = r.serving["rows"][-1]["bound"]["ttft"], prefix["ttft"][0]
    # the row is chunking's alone: before, the uncached part alone at the layout (the rows', the prefix caching row's
    # after; a review of stop 88 found the whole prompt's there, the cache's gain counted as the chunks')
    assert chunked["ttft"][0] == prefix["ttft"][1] == ttft < whole
    assert n["chunk_tokens"] == pytest.approx(4096 * 0.3, rel=1e-12)  # the whole uncached part in one chunk
    assert n["chunked_ttft_ratio"] >= 1.0
    steps = n["chunk_tokens"] and 4096 * 0.3 / n["chunk_tokens"] * chunked["tpot"][1]  # the steps its chunks ride in
    assert chunked["ttft"][1] == pytest.approx(max(prefix["ttft"][1] * n["chunked_ttft_ratio"], steps), rel=1e-12)
    assert prefix["ttft"][1] <= chunked["ttft"][1] < whole
    # without a cached prefix: the chapter's whole-prompt TTFT times chunked over alone
    tq = evaluated("llama70b-h100-tp8.yaml").serving["techniques"]
    row = next(x for x in tq["rows"] if x["technique"] == "chunked prefill")
    steps = 4096 / tq["numbers"]["chunk_tokens"] * row["tpot"][1]
    assert row["ttft"][1] == pytest.approx(max(row["ttft"][0] * tq["numbers"]["chunked_ttft_ratio"], steps), rel=1e-12)


@pytest.mark.parametrize(("pp", "words"), [
    (4, "here a whole prompt: the round's 4 steps of 2,048 tokens (one per micro-batch) hold it beside"),
    (1, "prompt tokens: what the 2,048-token budget leaves beside"),
])
def test_the_tails_chunk_names_the_rounds_steps_at_a_pipeline(pp, words):
    """DeepSeek-V3 bf16 on 32 H100 (tp 8 x pp 4, 2,048-token chunks, 4,096-token prompts) read "here a whole prompt:
    the 2,048-token budget holds it": a 2,048-token step cannot hold 4,096 prompt tokens; the round's 4 steps, one
    per micro-batch (formulas.techniques.prompt_chunk, n_St s_c - B), do. One step (pp 1) keeps the budget's words,
    and there the chunk is what the budget leaves."""
    import re

    from shared import rendered

    r = evaluated("llama70b-h100-tp8.yaml", (f"parallelism.pp={pp}", "serving.chunk=2k"))
    tq = r.serving["techniques"]
    assert tq["chunk_steps"] == pp
    assert tq["rates"]["chunked"]["p99_whole_prompt"] == (pp == 4)
    html = rendered(r, "sections/s9_serving.html.j2")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))
    assert words in text
    assert "2,048-token budget holds it" not in text


def test_the_tpot_ceiling_is_one_steady_state_at_a_pipeline():
    """DeepSeek-V3 bf16 on 32 H100 (tp 8 x pp 4, MTP, 2,048-token chunks): formula (22) gave 4.82 requests/s, N the
    weights a round streams at the chapter's batch of 222, while the rate figure's chunked curve, whose steady steps
    stream the experts their own lam theta (T_out - 1 + T_in) tokens touch, met the TPOT target up to 1.24.  The rate
    and its weights are one fixed point (techniques.steady_tpot_rate): (22), the goodput and the figure state that one
    value; (22) and the chunked step (21) name those weights N_s,g, not N_g (the slice the table defines), and the
    frame's pipeline sentence says what each symbol is.  Facts: DeepSeek-V3's shapes (specs/models/deepseek-v3.yaml,
    its config.json), the H100 SXM's 3.35 TB/s (specs/hardware/h100-sxm.yaml, NVIDIA's datasheet)."""
    from shared import evaluated
    from shared import page as page_of

    over = ("hardware=h100-sxm", "precision=bf16", "parallelism.tp=8", "parallelism.pp=4", "parallelism.dp=1",
            "parallelism.ep=1", "engine.max_batched_tokens=2048")
    r = evaluated("deepseek-v3-h200-ep8.yaml", over)
    t = r.serving["techniques"]
    n, ch = t["numbers"], t["rates"]["chunked"]
    assert n["goodput_binds"] == ch["goodput_binds"] == "TPOT target"
    assert n["goodput_rate_tpot"] == n["goodput_rate"] == ch["goodput"]
    assert ch["goodput_tpot"] == pytest.approx(0.05, rel=1e-6)  # the figure's own step at that rate meets theta
    sv = r.spec.serving
    lam, block = n["goodput_rate"], r.blocks["tech_goodput"]
    tokens = lam * sv.tpot * (sv.output - 1 + sv.prompt)  # Little's law: the decode and prompt tokens of a step
    streamed = float(np.ravel(r.envs[r.lead].at(batch=tokens)["N"])[0])
    assert block.inputs["N"] == pytest.approx(streamed, rel=1e-9) == t["tpot_weights"]["N"]
    at_batch = dict(block.inputs, N=float(np.ravel(r.envs[r.lead].at(batch=float(t["batch"]))["N"])[0]))
    assert float(r.q["goodput_rate_tpot"](at_batch)) > 3 * lam  # the old reading: the chapter's batch's weights
    assert block.symbols == {"N": r"N_{s,g}"} and r.blocks["tech_chunked"].symbols == {"N": r"N_{s,g}"}
    page = page_of("deepseek-v3-h200-ep8.yaml", over)
    assert "(N_g · min(n<sub>PP</sub>, B))" not in page
    assert "N<sub>s,g</sub> in the formulas of such a round, not N<sub>g</sub>, the slice the table above defines" in page
    # 81.16B: a GPU of the busiest stage before the last, the output head the last stage's, with the MLA
    # down-projections, norms and router it holds whole (81.04B before them: tests/test_tp_copies.py)
    assert "Here N<sub>s,g</sub> is the 81.16B parameters one GPU streams in a step at that rate" in page


def test_a_link_is_named_short_in_running_text():
    """The H100 NVL's scale-up link is "NVLink 4 bridge between the two GPUs of a pair; PCIe Gen5 x16 otherwise"
    (specs/hardware/h100-nvl.yaml, NVIDIA's H100 NVL product brief): the KV-transfer sentence read "...; PCIe Gen5 x16
    otherwise link in 0.178 ms".  Running text names a link up to its first ";" or ", " outside parentheses."""
    from genreport.load.spec import short_link
    from shared import evaluated

    assert short_link("NVLink 4 (18 links, NVSwitch; HGX H100 8-GPU)") == "NVLink 4 (18 links, NVSwitch; HGX H100 8-GPU)"
    assert short_link("400 Gb/s NDR InfiniBand, one ConnectX-7 per GPU (DGX H100)") == "400 Gb/s NDR InfiniBand"
    r = evaluated("llama70b-h100-tp8.yaml", ("hardware=h100-nvl", "parallelism.tp=1", "precision=fp8"))
    n = r.serving["techniques"]["numbers"]
    assert n["kv_link"] == "scale-up NVLink 4 bridge between the two GPUs of a pair"
    ends = next(x["ends"] for x in r.serving["techniques"]["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert "crosses the scale-up NVLink 4 bridge between the two GPUs of a pair link in " in ends and "otherwise" not in ends


def test_disaggregated_pools_are_whole_expert_parallel_groups():
    """DeepSeek-V3 on 8 H200 at tp 1, ep 8 (SGLang's layout): one expert-parallel group spans all 8 GPUs, so no
    replica of one GPU runs its MoE layers alone and a pool of 51% of them (4.1 GPUs) cannot run.  The 128 users take
    that one group (serving_report.ep_group_replicas): the row splits the smallest deployment that can be split, 2
    groups of 8, one prefilling, one decoding, at the lesser of the two pools' rates.  A busy prefill group has all 8
    replicas prefilling at once, so each prompt occupies its one-GPU replica for its whole work, F / P = 166.68 ms at
    4,096 tokens (Request.prefill_bound, m_P = 8), not its 82.0 ms TTFT alone, whose experts the whole group runs:
    the prefill group is the lesser pool (48.0 prompts/s against 49.5 requests/s retired)."""
    from genreport.model.techniques import whole_group_pools

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    tq = r.serving["techniques"]
    n, row = tq["numbers"], next(x for x in tq["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert r.serving["gpus_for_users"] == 8 and r.serving["ep_group_replicas"] == 8
    assert 0.5 < n["prefill_share"] < 0.52  # the balanced share: a fractional pool, as the formula says
    assert (n["pool_group_gpus"], n["pool_prefill_groups"], n["pool_decode_groups"], n["pool_gpus"]) == (8, 1, 1, 16)
    assert row["setting"].startswith("1 of 2 expert-parallel groups of 8 GPUs prefill, 1 decode")
    assert "disaggregation needs at least 2, 16 GPUs" in row["setting"] and "51%" not in row["setting"]
    # by hand: a prefill group of 8 one-GPU replicas admits 8 / t_pr prompts/s, t_pr a prompt's occupancy of its
    # replica (2 N_p T + 2 L H_q d_hp T^2 + 2 V d over the fp8 peak, tests/test_prefill_ep.py's count at 4,096
    # tokens); a decode group retires 8 B / ((T_o - 1) t_s)
    base = r.serving["rows"][-1]["bound"]
    flops = 2 * (37e9 - 2 * 129280 * 7168) * 4096 + 2 * 61 * 128 * 160 * 4096**2 + 2 * 129280 * 7168
    t_pr = base["prefill"] * (1 - r.spec.serving.prefix_hit)
    assert t_pr == pytest.approx(flops / 1978.9e12, rel=1e-9) == pytest.approx(0.16668, abs=5e-6)
    assert base["ttft"] == pytest.approx(0.08202, abs=5e-6) and row["ttft"][1] == pytest.approx(
        base["ttft"] + n["kv_transfer_time"])  # the pools' TTFT: the prompt alone, then its cache's transfer
    assert "(a prompt occupying its replica 167 ms while the group's 8 replicas all prefill)" in row["ends"]
    rate_p = 8 / t_pr
    rate_d = 8 * tq["batch"] / ((r.spec.serving.output - 1) * n["pool_round"])
    assert n["pool_prefill_rate"] == pytest.approx(rate_p) and n["pool_decode_rate"] == pytest.approx(rate_d)
    assert rate_p < rate_d and rate_p == pytest.approx(48.00, abs=0.005) and rate_d == pytest.approx(49.52, abs=0.005)
    # 16 GPUs serve the lesser, against 16 GPUs all decoding: here the prefill group's, 48.00 / (2 x 49.52)
    per_gpu = base["tokens_per_s_gpu"]
    assert n["pool_gain"] == pytest.approx(min(rate_p, rate_d) / (2 * rate_d)) == pytest.approx(0.4846, abs=1e-4)
    assert row["per_gpu"][1] == pytest.approx(per_gpu * n["pool_gain"]) == pytest.approx(n["pool_tokens_per_s_gpu"])
    # against one pool of these replicas prefilling between its rounds at the 50 ms target, each prompt stalling its
    # replica's rounds for the same 166.68 ms: it holds its batch to 147 of 165, so the pools gain a little (1.03x)
    assert row["per_gpu"][0] == n["one_pool_tokens_per_s_gpu"] and n["one_pool_tpot"] <= r.spec.serving.tpot
    assert n["one_pool_batch"] == 147
    assert row["gain"] == pytest.approx(row["per_gpu"][1] / row["per_gpu"][0]) and row["gain"] == pytest.approx(1.03,
                                                                                                            abs=0.01)
    assert row["usd"][1] == pytest.approx(row["usd"][0] / row["gain"])
    # the rounding: p = round(f n / G) within 1 .. n / G - 1, half up; one group is taken as two
    assert whole_group_pools(0.34, 8, 8) == (1, 1, 16)
    assert whole_group_pools(0.34, 32, 8) == (1, 3, 32)  # 1.36 groups -> 1
    assert whole_group_pools(0.375, 64, 8) == (3, 5, 64)  # 3.0
    assert whole_group_pools(0.4375, 32, 8) == (2, 2, 32)  # 1.75 -> 2
    assert whole_group_pools(0.125, 32, 8) == (1, 3, 32)  # 0.5 rounds up to 1
    assert whole_group_pools(0.99, 24, 8) == (2, 1, 24)  # at most all groups but one


def test_a_dense_models_pools_stay_a_balanced_share():
    """Llama 3.1 70B at tp 8 (no experts, ep 1): a replica serves alone, the split stays the balanced share f of the
    GPUs and the pools' tok/s per GPU 1 - f of the replicas' decoding alone, no whole groups; against one pool that
    prefills between its rounds, the row's before, the pools serve what it serves at the same batch (the ideal of
    ``aggregated_tpot``), so they gain only by the batch the TPOT target takes from the one pool."""
    r = evaluated("llama70b-h100-tp8.yaml")
    tq = r.serving["techniques"]
    n, row = tq["numbers"], next(x for x in tq["rows"] if x["technique"] == "prefill/decode disaggregation")
    f = n["prefill_share"]
    assert "pool_group_gpus" not in n and "in replicas of this layout" in row["setting"]
    assert row["setting"].startswith(f"{f:.0%} of the GPUs prefill")
    base = r.serving["rows"][-1]["bound"]
    assert row["per_gpu"][1] == base["tokens_per_s_gpu"] * (1 - f)
    # one pool at the users' batch would serve what the pools serve (their balance is that pool's work per request) ...
    sv, batch = r.spec.serving, tq["batch"]
    t_pr, t_s = row["ttft"][0], 1 / base["tokens_per_s_user"]
    assert base["tokens_per_s_gpu"] * (1 - f) == pytest.approx(batch / (8 * (t_s + batch * t_pr / (sv.output - 1))),
                                                               rel=1e-9)
    # ... but its TPOT (the round at the last context plus the prompts it prefills meanwhile) misses the 50 ms target
    # there, so it runs a smaller batch: 223, its TPOT within the target, batch 224's past it
    assert base["tpot"] + batch * t_pr / (sv.output - 1) > sv.tpot
    one = n["one_pool_batch"]
    assert one == 223 and n["one_pool_tpot"] <= sv.tpot and row["tpot"][0] == n["one_pool_tpot"]
    assert row["per_gpu"][0] == n["one_pool_tokens_per_s_gpu"] < row["per_gpu"][1]
    assert row["gain"] == pytest.approx(row["per_gpu"][1] / row["per_gpu"][0]) == pytest.approx(1.014, abs=1e-3)
    assert "meets the 50 ms TPOT target up to batch 223" in row["ends"] and row["ends"].endswith("the pools 1.01×")


def test_the_one_pool_without_a_target_and_where_it_misses_one():
    """The disaggregation row's before, one pool prefilling whole prompts between its rounds, at its edges (Llama 3.1
    70B on 8 H100): without a TPOT target it runs the chapter's batch and serves what the balanced pools serve (their
    balance is its work per request: the row a tie, 1.00x); under a target no batch meets (1 ms, the weights alone
    stream in more), its numbers are batch 1's and the row says it misses the target there."""
    free = evaluated("llama70b-h100-tp8.yaml", ("serving={prompt: 4k, output: 512, ttft: 2 s, users: 128}",))
    tq = free.serving["techniques"]
    n, row = tq["numbers"], next(x for x in tq["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert free.spec.serving.tpot is None and n["one_pool_batch"] == tq["batch"] == 128
    assert row["gain"] == pytest.approx(1.0, rel=1e-9) and row["per_gpu"][0] == pytest.approx(row["per_gpu"][1])
    assert "prefills between its rounds at batch 128 (no TPOT target)" in row["ends"]
    assert n["replica_gpus"] == 8  # one replica's rates, with or without a target
    miss = evaluated("llama70b-h100-tp8.yaml", ("serving.users=1", "serving.tpot=1 ms"))
    tq = miss.serving["techniques"]
    n, row = tq["numbers"], next(x for x in tq["rows"] if x["technique"] == "prefill/decode disaggregation")
    assert n["one_pool_batch"] == 0 and row["tpot"][0] == n["one_pool_tpot"] > 0.001
    assert "misses the 1 ms TPOT target even at batch 1" in row["ends"]
    one = miss.serving["rows"][0]["bound"]  # batch 1 alone: its round, and one prompt prefilled per 511 rounds
    assert n["one_pool_tpot"] == pytest.approx(one["tpot"] + row["ttft"][0] / 511, rel=1e-9)


def test_a_one_token_output_has_no_decode_rate_and_says_so():
    """A request of one output token has no decode round: the rate a batch or a decode pool finishes requests at has no
    bound (T_out - 1 = 0 rounds). The chunked-prefill and disaggregation rows printed it "inf requests/s"; the chunked
    row says "without limit (a one-token output has no decode round)", and no disaggregation row is stated (Llama 3.1 70B over 8 H100 in 2 replicas, a chunk budget
    of 8k; the live page's port alike: tests/test_live_serving.py's case of the same inputs)."""
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml", ["parallelism.dp=2", "serving.output=1", "serving.chunk=8k"])
    rows = {row["technique"]: row for row in r.serving["techniques"]["rows"]}
    text = " ".join(row["ends"] for row in rows.values())
    assert "inf" not in text.split() and "inf " not in text
    # and no pools: no decode pool has work (tests/test_serving_edges.py; plan --disaggregate refuses --output 1)
    assert "prefill/decode disaggregation" not in rows
    # nor a chunked-prefill row: no decode token rides beside a chunk (its "256 decode tokens" and "the decode users
    # pay 4.34x" once described a step no such request takes)
    assert "chunked prefill" not in rows and "chunked_step_time" not in r.serving["techniques"]["numbers"]


def test_a_one_token_requests_goodput_is_its_prefills():
    """A one-token request leaves with its prefill: Little's law keeps lambda (T_out - 1) t_s = 0 sequences decoding, so
    the TPOT target, the KV cache room and the engine's max_sequences set no rate (the last two reduced to W / Q_r,
    the memory's own limit, under the caches' and the engine's names: "19,968 requests/s" for Llama 3.1 70B on 8 H100);
    the goodput is the least of the compute roof and the chunk budget, and the rate figure's curves stop at the same
    compute roof, their goodput not set by a TPOT target (it read 12.1 requests/s "set by the TPOT target")."""
    from shared import words

    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=1", "serving.rate=5"])
    tech = r.serving["techniques"]
    n = tech["numbers"]
    assert n["prefill_only"] is True
    assert not {"goodput_rate_tpot", "goodput_rate_capacity", "goodput_rate_engine"} & set(n)
    assert n["goodput_rate"] == min(n["goodput_rate_compute"], n["chunk_budget_rate"]) == n["goodput_rate_compute"]
    assert n["goodput_binds"] == "compute roof"
    # the compute roof by hand: one GPU's peak over its slice of the prompt's FLOPs, the same roof the rate
    # figure's chunked curve stops at
    ra = tech["rates"]
    assert ra["one_token"] and ra["tpot_target"] is None
    assert ra["chunked"]["limits"]["compute"] == pytest.approx(n["goodput_rate_compute"], rel=1e-12)
    assert ra["chunked"]["p99_rate"] is None and ra["unchunked"]["p99_rate"] is None
    for kind in ("chunked", "unchunked"):
        assert ra[kind]["goodput_binds"] != "TPOT target", kind
    # no time per output token, between tokens or in a stall: no array of steps no user waits on (the unchunked
    # "round" of no sequence once read 8.6e13 s at the curve's end), and the curve without chunks stops where the
    # prefills run back to back, 1 / t_p, named so (it was named by whichever of two equal floats was smaller)
    for kind in ("chunked", "unchunked"):
        assert ra[kind]["tpot"] == [] and ra[kind]["p99"] == [] and ra[kind]["goodput_tpot"] is None
    assert ra["unchunked"]["stops_at"] == "prefills"
    assert ra["unchunked"]["stop"] == pytest.approx(1 / ra["prefill_alone_time"], rel=1e-12)
    # no step runs while no prompt waits: at no load the P90 TTFT is the prefill itself, with chunks and without
    # (a vacation of one steady step added 4.7 ms to a 128-token prompt's 5.27 ms)
    for kind in ("chunked", "unchunked"):
        assert ra[kind]["ttft_p90"][0] == pytest.approx(ra[kind]["ttft"][0], rel=1e-3), kind
    assert ra["unchunked"]["ttft_tail_rate"] > 0
    text = words(r, "s9_serving")
    assert "is the least of the two: 14 requests/s, 1.7 per GPU, set by the compute roof" in text
    # the spec's rate against the compute roof, not a steady "step" of 5.27 ms, the weights' stream, which no step
    # carrying a prompt takes
    share = 5 / n["goodput_rate_compute"]
    assert n["rate_compute_share"] == pytest.approx(share, rel=1e-12) and round(share * 100) == 37
    assert "At the spec's 5 requests/s its prompts take 37% of its compute" in text
    assert "a step takes" not in text and "sequences decoding." not in text
    assert "A one-token request has no decode round, so no technique of the table acts on it" in text
    assert "the decode users pay" not in text and "a round that waits for a whole prefill" not in text
    assert "The tail: With the prompts queued" in text and "each prompt served in turn" in text
    assert "P99 capacity" not in text and "set by the prefills back to back" in text


def test_a_one_token_requests_prefix_cache_lifts_its_compute_roof():
    """With half of each 4k prompt cached the prefill-only service's roof doubles or so: one GPU of tp 8 prefills the
    uncached half, its linear layers' FLOPs halved and its attention's three quarters of the causal square (the
    second half attends to the first), 3.713e13 FLOP where the whole prompt takes 7.289e13 (a review's hand count):
    13.6 → 26.6 requests/s per replica at 989.4 TFLOP/s. The prefix row said only the sequences that fit, which set
    no rate for such a request."""
    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=1", "serving.prefix_hit=0.5"])
    n = r.serving["techniques"]["numbers"]
    copies = 2 * 7 * 1_318_912 / 8  # each GPU computes with the norms it holds whole (tests/test_tp_copies.py)
    assert n["prefix_compute_roof_before"] == pytest.approx(989.4e12 / (7.289e13 + copies * 4096), rel=2e-4)
    assert n["goodput_rate_compute"] == pytest.approx(989.4e12 / (3.713e13 + copies * 2048), rel=2e-4)
    (row,) = r.serving["techniques"]["rows"]
    assert row["technique"] == "prefix caching"
    assert "; the compute roof 14 → 27 requests/s per replica (a prompt's uncached part prefilled" in row["ends"]


def test_a_pipelines_chunk_budget_counts_each_steps_budget():
    """Over a pipeline the steady step is a round, each stage streaming its slice once per micro-batch, and each of the
    round's steps takes its own budget (as the chunked row's prompt chunk counts it): Llama 3.1 70B at tp 4 x pp 2
    with a budget of 128 tokens, one-token 4k prompts. A round streams 2 x 8.69e9 x 2 B at 3.35 TB/s = 10.38 ms (the
    prompt tokens' own bytes add little), so 2 x 128 tokens a round admit 256 / (4,096 x 10.38 ms) = 6.0 requests/s;
    the formula took one step's 128 and read 3.0, which became the chapter's goodput (a review of stop 90)."""
    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=1", "parallelism.tp=4", "parallelism.pp=2",
                                             "serving.chunk=128"])
    n = r.serving["techniques"]["numbers"]
    assert n["chunk_budget_rate"] == pytest.approx(6.0, rel=0.01) and n["goodput_binds"] == "chunk budget"
    one = evaluated("llama70b-h100-tp8.yaml", ["serving.output=1", "serving.chunk=128"])  # one stage: one step's
    assert one.serving["techniques"]["numbers"]["chunk_budget_rate"] == pytest.approx(128 / (4096 * 8.825e9 * 2
                                                                                               / 3.35e12), rel=0.01)


def test_a_two_token_outputs_lever_rows_never_say_zero_sequences_or_a_whole_pool():
    """Llama 3.1 70B on 8 H100, 4,096 + 2-token requests (QA review): the prompts take the compute, so B_P = 0; the
    speculative row read "keeps at most 0 sequences ..., 0 decoding plainly", and the pools' row "100% of the GPUs
    prefill, 0% decode" for a prefill share just under 1."""
    from genreport.model.techniques import _pool_share

    r = evaluated("llama70b-h100-tp8.yaml", ["serving.output=2"])
    rows = {x["technique"]: x for x in r.serving["techniques"]["rows"]}
    ends = rows["speculative decoding"]["ends"]
    assert "at most 0" not in ends and " 0 decoding" not in ends
    assert "keeps no sequence at the TPOT target with its prompt's prefill, nor decoding plainly" in ends
    setting = rows["prefill/decode disaggregation"]["setting"]
    assert "100%" not in setting and " 0% decode" not in setting, setting
    assert [_pool_share(x) for x in (0.0046, 0.76, 0.24, 0.99536, 1.0, 0.0)] == ["0.46%", "76%", "24%", "99.54%",
                                                                                "100%", "0%"]


def test_a_round_with_a_chunk_past_the_tpot_target_says_so():
    """Llama 3.1 70B on 8 H100 (the committed spec: 50 ms TPOT target, 128 users): a round that carries a 4,096-token
    prompt's chunk beside the batch takes 78.6 ms, and the chunked row said only "the decode users pay 3.99x" (a review
    of stop 88 found a 405B's 47.9 ms beside a 40 ms target so); it names the target it misses, and says nothing where
    a 100 ms target holds it."""
    from genreport.present import fmt
    from shared import evaluated

    for target, past in ((None, True), ("100 ms", False)):
        r = evaluated("llama70b-h100-tp8.yaml", () if target is None else (f"serving.tpot={target}",))
        row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "chunked prefill")
        words = f"; a round with a chunk takes {fmt.time(row['tpot'][1])}, past the {fmt.time(r.spec.serving.tpot)} TPOT target"
        assert (row["tpot"][1] > r.spec.serving.tpot) is past
        assert (words in row["ends"]) is past, row["ends"]


def test_the_disaggregation_rows_ttft_before_counts_the_prefix_hit_as_its_after_does():
    """Stop 89's hard-regime review: with half of each prompt cached, the disaggregation row read "73.7 ms -> 40.9
    ms" on the 70B on 8 H100: its "after" is the uncached part's prefill plus the KV transfer, its "before" the whole
    prompt's, so the prefix cache's gain read as disaggregation's.  Both now prefill the uncached part (the prefix
    caching row's after, as the chunked row's before), and the transfer is what disaggregation adds."""
    r = evaluated("llama70b-h100-tp8.yaml", ("serving.prefix_hit=0.5",))
    tq = r.serving["techniques"]
    rows = {x["technique"]: x for x in tq["rows"]}
    prefix, pools = rows["prefix caching"], rows["prefill/decode disaggregation"]
    assert pools["ttft"][0] == prefix["ttft"][1] == rows["chunked prefill"]["ttft"][0]
    assert pools["ttft"][1] == pytest.approx(prefix["ttft"][1] + tq["numbers"]["kv_transfer_time"], rel=1e-12)
    assert pools["ttft"][1] > pools["ttft"][0]


def test_a_one_token_builds_page_keeps_its_speculative_block_for_a_what_if():
    """The loader leaves a one-token request's speculative block out of the build (no decode round to speculate), but
    the page's inputs keep it: a what-if to 512 output tokens on that page speculated nothing where a build of the
    same spec shows the speculative row (stop 90's second review); the page's own port leaves it out again while the
    output is one token (techniques.js)."""
    from genreport.load.loader import load_report
    from genreport.present import live

    spec = load_report(ROOT / "specs" / "llama70b-h100-tp8.yaml", overrides=["serving.output=1"])
    assert spec.serving.speculative is None and spec.serving.speculative_left_out is not None
    page = live.inputs(spec)["serving"]["speculative"]
    assert page is not None and page["draft_tokens"] == 3 and page["acceptance"] == 0.8
    assert "acceptance" in live.set_rules(spec)["paths"]["serving"]["speculative"]  # still settable on the page
    whole = load_report(ROOT / "specs" / "llama70b-h100-tp8.yaml")
    assert live.inputs(whole)["serving"]["speculative"] == page
