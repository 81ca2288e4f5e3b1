"""Issue 30, "How it will be checked": published serving results that are not the project's own tests, against the
formulas of formulas/techniques.py evaluated at the conditions each source states.

Each test copies the facts it uses, with the source (title, address, table or figure), and says what the formula
claims for it:
- the **bound**: no measurement may beat it.  A verify step reads the weights at least once, as a plain step does,
  so a speed-up can never pass the tokens a verify step yields (E, at most the draft depth + 1), and at a batch where
  the verify step is compute-bound it can never pass E t(B) / t_v(B);
- the **direction**: speculation helps at batch 1 and helps less once the verify step turns compute-bound; chunked
  prefill lowers the time-between-tokens tail at load and raises the rate a TPOT target allows;
- the **size**, only where the formula claims to predict it (DeepSeek-V3's MTP at a memory-bound batch; Sarathi-Serve's
  P99 capacity gains within a factor 1.5, from the queueing model of the prefill stalls).  Where the
  measured size lies outside what the roofline gives, the test asserts what the formula says and the docstring
  reports the disagreement (docs/measurements.md, "Serving techniques against published results"); no test is tuned
  to pass.

Model shapes are the models' published configs (config.json on the Hugging Face hub), as in specs/models/; GPU roofs
are the vendors' dense bf16/fp16 peaks and HBM bandwidths, as in specs/hardware/ (H100 SXM 989.4 TFLOP/s and
3.35 TB/s; A100 SXM 80 GB 312 TFLOP/s and 2.039 TB/s).  Every parameter is read and used once per step, no
activation traffic (seed 003's accounting).
"""

from __future__ import annotations

import functools
import math

import pytest
from genreport.formulas import techniques as t
from genreport.formulas.glossary import sym
from genreport.model.techniques import (
    PROMPT_SPREADS,
    _layout_round,
    stall_share_mixed,
    tpot_share,
    ttft_quantile,
    ttft_share_mixed,
)
from shared import evaluated

H100 = {"P": 989.4e12, "W": 3.35e12, "C": 80 * 2**30}
A100 = {"P": 312e12, "W": 2.039e12, "C": 80e9}


def shape(n, layers, d, heads, kv_heads, vocab, d_h=128):
    """Glossary values of a dense decoder: N parameters, the input and output embeddings outside the blocks, K and V
    of every layer cached at 2 bytes (bf16/fp16)."""
    return {"N": n, "N_a": n, "N_e": 0.0, "N_p": n - 2 * vocab * d, "L": layers, "d": d, "H_q": heads, "d_h": d_h,
            "d_hp": d_h, "V": vocab, "b": 2.0, "c": 2.0 * layers * kv_heads * d_h * 2, "a": 0.0}


# meta-llama/Llama-3.1-8B-Instruct: 32 layers, d 4096, 32 heads, 8 KV heads, vocabulary 128,256, 8.03 B parameters
LLAMA31_8B = shape(8.03e9, 32, 4096, 32, 8, 128256)
# mistralai/Mistral-7B-v0.1: 32 layers, d 4096, 32 heads, 8 KV heads, vocabulary 32,000, 7.24 B parameters
MISTRAL_7B = shape(7.24e9, 32, 4096, 32, 8, 32000)
# 01-ai/Yi-34B: 60 layers, d 7168, 56 heads, 8 KV heads, vocabulary 64,000, 34.4 B parameters
YI_34B = shape(34.4e9, 60, 7168, 56, 8, 64000)
# lmsys/vicuna-7b-v1.3 and vicuna-33b-v1.3 (LLaMA 1 shapes): 32 layers d 4096 32 heads (MHA); 60 layers d 6656
# 52 heads (MHA); vocabulary 32,000; 6.74 B and 32.5 B parameters
VICUNA_7B = shape(6.74e9, 32, 4096, 32, 32, 32000)
VICUNA_33B = shape(32.5e9, 60, 6656, 52, 52, 32000)
# facebook/opt-13b: 40 layers, d 5120, 40 heads (MHA), vocabulary 50,272, 12.85 B parameters (tied embeddings)
OPT_13B = {**shape(12.85e9, 40, 5120, 40, 40, 50272), "N_p": 12.85e9 - 50272 * 5120}


def at(expr, env, **values):
    """``expr`` at ``env`` and ``values`` (each expression compiled once: SymPy's subs of the solved forms took
    seconds a call)."""
    names, fn = _compiled(expr)
    given = {**env, **values}
    return float(fn(*(given[n] for n in names)))


@functools.cache
def _compiled(expr):
    import sympy as sp

    names = tuple(sorted(str(x) for x in expr.free_symbols))
    return names, sp.lambdify([sym(n) for n in names], expr, "math")


def over(expr, env, *names):
    """``expr`` with ``env`` substituted, as a function of ``names`` (one substitution, not one per point)."""
    import sympy as sp

    return sp.lambdify([sym(n) for n in names], expr.subs({sym(k): v for k, v in env.items() if k not in names}))


def verify_bound(env, batch, context, width, tokens):
    """The strict bound on a speed-up at ``batch``: ``tokens`` yielded per verify step of ``width`` tokens per
    sequence, the draft free: E t(B) / t_v(B) with t_v the verify step's max(FLOPs / P, bytes / W)."""
    plain = at(t.decode_step_time(), env, B=batch, S=context)
    verify = at(t.verify_time(), env, B=batch, S=context, n_v=width)
    return tokens * plain / verify


# ----------------------------------------------------------------------------------------------- speculative decoding

def test_eagle3_in_sglang_stays_under_the_bound_and_falls_with_the_batch():
    """EAGLE-3 in SGLang, Llama 3.1 8B Instruct on one H100, MT-bench.

    Sources: SGLang documentation, "Speculative Decoding", Performance Highlights table
    (https://docs.sglang.io/advanced_features/speculative_decoding.html): 158.34 tokens/s without speculation,
    373.25 tokens/s with EAGLE-3 at batch 1, a 2.36x speed-up; Li et al., "EAGLE-3: Scaling up Inference
    Acceleration of Large Language Models via Training-Time Test", arXiv:2503.01840, abstract: "In the SGLang
    framework, EAGLE-3 achieves a 1.38x throughput improvement at a batch size of 64."  SGLang's defaults (same page):
    speculative_num_steps 5 (a draft at most 5 deep: E <= 6), speculative_num_draft_tokens 8 (8 tokens of the tree
    verified per sequence).  MT-bench's turns are short (prompts and answers of a few hundred tokens): the claims
    are checked at contexts of 128 to 1,024 tokens.

    Bound: both measurements stay under E t(B) / t_v(B) with every draft accepted (E = 6) and a free draft.
    Direction: the bound falls from batch 1 to 64 (the 8-token verify step turns compute-bound at 38-51 sequences),
    and so does the measurement.  Size: the roofline keeps 0.61 (context 128), 0.65 (256), 0.72 (512) and 0.86
    (1,024) of the batch-1 speed-up at batch 64; the measurement keeps 1.38 / 2.36 = 0.585, a little less than the
    roofline at every context (within 5% at 128 tokens, 32% below at 1,024): SGLang's drafting (5 sequential draft
    steps over 64 sequences, the tree's top-k) costs somewhat more at batch 64 than the verify step's FLOPs explain.
    The formula bounds this measurement and gets its direction; it predicts its size only at the shortest contexts."""
    measured_1 = 373.25 / 158.34
    measured_64 = 1.38
    assert measured_1 == pytest.approx(2.357, abs=1e-3)
    env = {**LLAMA31_8B, **H100}
    kept = {}
    for context in (128, 256, 512, 1024):
        bound_1 = verify_bound(env, 1, context, width=8, tokens=6)
        bound_64 = verify_bound(env, 64, context, width=8, tokens=6)
        assert bound_1 == pytest.approx(6.0)  # batch 1: the 8-token verify step is memory-bound, costs a plain step
        assert measured_1 < bound_1 and measured_64 < bound_64  # none beats the bound
        assert bound_64 < bound_1 and measured_64 < measured_1  # the direction matches
        kept[context] = bound_64 / bound_1
        assert measured_64 / measured_1 < kept[context]  # the measurement falls at least as far as the roofline
    assert kept[128] == pytest.approx(0.613, abs=1e-3) and kept[1024] == pytest.approx(0.857, abs=1e-3)
    assert kept[128] == pytest.approx(measured_64 / measured_1, rel=0.05)  # the size, at the shortest turns
    crossover = at(t.verify_crossover_batch(), env, S=1024, n_v=8)
    # hand count: 16.06 GB / (8 x 16.6 GFLOP / 295.3 FLOP/B - 1,024 x 128 KiB) = 50.9 sequences
    flops_tok = 2 * 8.03e9 + 4 * 32 * 32 * 128 * 1024
    assert crossover == pytest.approx(8.03e9 * 2 / (8 * flops_tok / (989.4e12 / 3.35e12) - 1024 * 131072), rel=1e-9)
    assert 50 < crossover < 52

def test_deepseek_v3_mtp_is_predicted_and_never_beats_its_expected_tokens():
    """DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, section 5.4.3: one MTP module, the second
    token accepted 85-90% of the time, "1.8 times TPS (Tokens Per Second)".

    Bound: one draft token (k = 1) yields E = 1 + p tokens per verify step, 1.85-1.90: 1.8x does not beat it.
    Size (predicted, batch memory-bound): E / (1 + t_d / t) with the MTP module's reads, 1.61 B parameters against
    the 37 B the model reads per token (tests/test_techniques.py counts them), gives 1.77-1.82: the measured 1.8x
    lies inside, within 2% of either end."""
    measured = 1.8
    draft_over_step = 1.613e9 / 37e9
    env = {**LLAMA31_8B, **H100}  # any memory-bound step: the speed-up is then the ratio alone
    step = at(t.decode_step_time(), env, B=1, S=4096)
    estimates = []
    for accept in (0.85, 0.90):
        tokens = at(t.expected_tokens(), {}, p_a=accept, k_d=1)
        assert measured < tokens
        estimates.append(at(t.speculative_speedup(), env, B=1, S=4096, p_a=accept, k_d=1, n_v=2,
                            t_d=draft_over_step * step))
    assert estimates[0] < measured < estimates[1]
    assert estimates[0] == pytest.approx(measured, rel=0.02) and estimates[1] == pytest.approx(measured, rel=0.02)


def test_medusa2_on_larger_models_is_not_a_roofline_effect():
    """Cai et al., "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads", ICML 2024,
    arXiv:2401.10774, figure "Speedup on different model sizes" (batch 1, one A100, MT-bench): Medusa-2 speeds up
    Vicuna-7B 2.83x, Vicuna-13B 2.83x and Vicuna-33B 2.35x.

    Direction: at batch 1 both models' verify steps are memory-bound (a 64-token tree: 2.9 ms of FLOPs against
    6.6 ms of weights for 7B, 14 ms against 32 ms for 33B), so at equal acceptance the formula gives the 33B model the
    same speed-up less a smaller head cost (each Medusa head ends in its own d x V output layer: 2.2% of 7B's reads,
    0.8% of 33B's).  The measured drop to 2.35x is therefore the heads' lower acceptance on the larger model (or the
    engine), not the roofline: the formula does not predict it, and says so here."""
    measured = {"7B": 2.83, "33B": 2.35}
    out = {}
    for name, model, d in (("7B", VICUNA_7B, 4096), ("33B", VICUNA_33B, 6656)):
        env = {**model, **A100}
        plain = at(t.decode_step_time(), env, B=1, S=1024)
        verify = at(t.verify_time(), env, B=1, S=1024, n_v=64)
        assert verify == pytest.approx(plain)  # the tree rides free at batch 1
        head_share = (d * d + d * 32000) / model["N"]  # one head: a d x d block and its own output layer
        out[name] = at(t.speculative_speedup(), env, B=1, S=1024, p_a=0.7, k_d=4, n_v=64,
                        t_d=4 * head_share * plain)
    assert out["33B"] > out["7B"]  # equal acceptance: the roofline favours the larger model ...
    assert measured["33B"] < measured["7B"]  # ... the measurement does not


# ----------------------------------------------------------------------------------------------- chunked prefill

# A100 80GB PCIe, the card of Sarathi-Serve's runs (its artifact, osdi-experiments/figure-5-6/README.md): NVIDIA's A100
# datasheet, 312 TFLOP/s dense fp16/bf16 and 1,935 GB/s (the SXM card's 2,039 GB/s above)
A100_PCIE = {"P": 312e12, "W": 1.935e12, "C": 80e9}
# Sarathi-Serve's chat trace (sarathi-serve data/processed_traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv,
# 30,731 requests): the mean prompt of each tenth of the prompts sorted by length, and the means of all (prompt
# 2,340 tokens, median 1,730; output 439, median 415), counted from the file
CHAT_DECILES = (33, 198, 580, 979, 1457, 2060, 2805, 3737, 4941, 6609)
CHAT_PROMPT, CHAT_OUTPUT = 2340, 439


def _highest(ok, hi, steps=28):
    """The model's bisection (genreport.model.techniques._highest), 28 halvings unless a test asks for more."""
    from genreport.model.techniques import _highest as highest

    return highest(ok, hi, steps)


def _p99_capacities(env, theta, lengths=CHAT_DECILES, prompt=CHAT_PROMPT, output=CHAT_OUTPUT):
    """The highest rates whose P99 time between tokens meets theta, with 512-token chunked prefill and with prompts
    prefilled first (vLLM's scheduler), for prompts of ``lengths`` (equally likely) and requests of ``prompt`` and
    ``output`` tokens (the trace's means) otherwise.

    Without chunks: the gap between tokens is the round t_r(lam) (``unchunked_round_time``, t_p the mean prefill)
    and the prefills that arrive during it and during each other (genreport.model.techniques.stall_share_mixed:
    Kendall's identity over the prompts' prefill times); the rate is where 99% of the gaps stay within theta.  With
    chunks: the least of the goodput ceilings (TPOT, compute, chunk budget: the step with a full chunk stays far
    below theta, checked), the request's FLOPs and bytes at the mean prompt.  Also the ratios the two earlier
    readings give: the mean-TPOT ceilings without chunks (``goodput_rate_unchunked``, ``unchunked_rate_compute``) and
    the rate where every stall counts (``stall_free_rate``)."""
    v = {"T_in": prompt, "T_out": output, "h_p": 0.0, "s_c": 512, "n_St": 1.0, "C_p": 512, "theta": theta, "q_p": 0.99}
    prefills = [at(_formula("prefill_alone_time"), env, S=0, **{**v, "T_in": x}) for x in lengths]
    v["t_p"] = sum(prefills) / len(prefills)

    def round_at(lam):
        return at(_formula("unchunked_round_time"), env, lam=lam, **v)

    def meets(lam):
        t_r = round_at(lam)
        return 0 < t_r < theta and stall_share_mixed(lam, t_r, prefills, [1 / len(lengths)] * len(lengths),
                                                      theta - t_r, grid=1e-3) >= 0.99

    edge = min(at(_formula(k), env, **v) for k in ("unchunked_rate_compute", "unchunked_rate_memory"))
    unchunked = _highest(meets, edge * (1 - 1e-9))
    chunked = min(at(_formula(k), env, **v) for k in ("goodput_rate_tpot", "goodput_rate_compute", "chunk_budget_rate"))
    step = at(_formula("steady_step_time"), env, lam=chunked, **v)
    full = at(_formula("mixed_time"), env, B=chunked * (output - 1) * step, S=prompt + output / 2, **v)
    mean = min(at(_formula("goodput_rate_unchunked"), env, **v), at(_formula("unchunked_rate_compute"), env, **v))
    return {"unchunked": unchunked, "chunked": chunked, "full_step": full, "round": round_at(unchunked),
            "running": unchunked * (output - 1) * at(_formula("unchunked_step_time"), env, lam=unchunked, **v),
            "mean_ceiling": mean, "stall_free": at(_formula("stall_free_rate"), env, **v), "prefills": prefills}


@functools.cache
def _formula(name: str):
    """``formulas.techniques.<name>()``, derived once (several are solved by SymPy) for the shapes above."""
    return getattr(t, name)()


def test_sarathi_serve_p99_capacity_from_the_prefill_stalls():
    """Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve", OSDI 2024,
    arXiv:2403.02310, abstract: chunked prefill raises the serving capacity under a P99 time-between-tokens (TBT)
    target 2.6x over vLLM for Mistral-7B on one A100 and 3.7x for Yi-34B on two (tensor parallel 2).  The conditions,
    from its artifact (github.com/microsoft/sarathi-serve, osdi-experiments/figure-5-6): A100 80GB PCIe; the strict
    targets P99 TBT 0.1 s (Mistral-7B) and 0.2 s (Yi-34B); capacity the highest rate meeting it (capacity_search:
    tbt_slo_quantile 0.99, and a median scheduling delay under 2 s); the vLLM baseline with max_num_seqs 128 and
    Sarathi-Serve with a 512-token budget; the chat trace (ShareGPT4, prompts median 1,730 and mean 2,340 tokens,
    outputs mean 439).  The abstract does not say which trace gave 2.6x and 3.7x; the chat trace is checked (the
    artifact ships its lengths).  Yi-34B on two A100s is one GPU with twice the roofs and memory (no all-reduce).

    The model (formulas/techniques.py, "the tail"): vLLM's scheduler prefills every waiting prompt before the next
    round (sarathi/core/scheduler/vllm_scheduler.py), so a gap between tokens is the round t_r plus every prefill of
    the prompts that arrived during it and during those prefills: a busy period, whose law Kendall's identity gives
    (the generalized Poisson law for one prompt length).  With chunks the tail is a step with a full 512-token chunk
    (27 ms, 60 ms), far within both targets, so the compute roof sets the chunked capacity.

    Size (claimed within a factor 1.5, a tolerance stated with these numbers in view: ten length classes and two
    bounds support no tighter claim): the P99 capacity ratio is 3.70 for Mistral-7B (2.05 against 7.61
    requests/s) and 3.31 for Yi-34B (0.98 against 3.23): 42% over the measured 2.6x and 11% under 3.7x.  The earlier
    readings bracket them: the mean-TPOT ceilings give 1.52x and 1.17x (the stalls averaged away), the rate where
    every stall counts 6.3x and 6.0x (lam t_r = -ln 0.99).  The prompt lengths matter: a half of the chat prompts
    (the tenths from 2,060 tokens) take longer than theta - t_r alone, so one of them arriving in a round misses the
    target; with every request at the medians (1,730 and 415 tokens) the model gives 2.72x for Mistral-7B (its median prefill of
    80 ms fits a gap) and 7.68x for Yi-34B (190 ms + 18 ms passes 0.2 s: every stall counts).
    Remaining disagreement: the ratio is of two bounds, each of a design whose engine runs at its own efficiency
    (a prefill of thousands of tokens nearer its peak than a 512-token mixed step); the trace is taken as ten
    lengths; the median scheduling delay target and the preemptions are not modelled.
    Bound: the unchunked P99 capacity lies below its mean ceiling (a tail target is stricter than the mean), the
    batches at it stay under vLLM's 128 sequences; no absolute capacity is taken from the paper (its figure 5 gives
    them only as bars)."""
    measured = {"mistral": 2.6, "yi": 3.7}
    envs = {"mistral": ({**MISTRAL_7B, **A100_PCIE}, 0.100),
            "yi": ({**YI_34B, "P": 2 * A100_PCIE["P"], "W": 2 * A100_PCIE["W"], "C": 2 * A100_PCIE["C"]}, 0.200)}
    got = {name: _p99_capacities(env, theta) for name, (env, theta) in envs.items()}
    ratio = {name: g["chunked"] / g["unchunked"] for name, g in got.items()}
    assert ratio["mistral"] == pytest.approx(3.70, abs=0.01) and ratio["yi"] == pytest.approx(3.31, abs=0.01)
    for name, g in got.items():
        theta = envs[name][1]
        assert 1 / 1.5 < ratio[name] / measured[name] < 1.5  # the size, within the stated factor
        assert g["chunked"] / g["mean_ceiling"] < measured[name] < g["chunked"] / g["stall_free"]  # the bracket
        assert g["chunked"] / g["mean_ceiling"] < ratio[name] < g["chunked"] / g["stall_free"]
        assert g["unchunked"] < g["mean_ceiling"] and g["running"] < 128  # vLLM's max_num_seqs
        assert g["full_step"] < theta / 3  # with chunks the tail never binds
        # about half of the prompts miss the target alone: prefill + round past theta from the 2,060-token tenth on
        alone = [p + g["round"] > theta for p in g["prefills"]]
        assert alone == [False] * 5 + [True] * 5
    # hand count of the mean-prompt prefill for Mistral-7B, compute-bound: (2 N_p T + 2 L H_q d_h T^2 + 2 V d) / P
    flops = 2 * MISTRAL_7B["N_p"] * 2060 + 2 * 32 * 32 * 128 * 2060**2 + 2 * 32000 * 4096
    assert got["mistral"]["prefills"][5] == pytest.approx(flops / 312e12, rel=1e-9)
    # every prompt at the chat trace's median: the one-length law (generalized Poisson)
    one = {name: _p99_capacities(env, theta, (1730,), 1730, 415) for name, (env, theta) in envs.items()}
    assert one["mistral"]["chunked"] / one["mistral"]["unchunked"] == pytest.approx(2.72, abs=0.02)
    assert one["yi"]["unchunked"] == pytest.approx(one["yi"]["stall_free"], rel=2e-3)  # m_s = 0: every stall counts


# ----------------------------------------------------------------------------------------------- disaggregation

def test_distserve_gain_comes_from_what_the_roofline_leaves_out():
    """Zhong et al., "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large Language Model
    Serving", OSDI 2024, and its summary (https://hao-ai-lab.github.io/blogs/distserve): "up to 4.48x goodput or
    10.2x tighter SLO" than vLLM; the chatbot workload serves OPT-13B on A100s (ShareGPT prompts of a few hundred
    tokens) under a TTFT target of 0.25 s and a TPOT target of 0.1 s (the paper's Table 1).

    Bound: a balanced pair of pools serves at most what one pool serves at the same batch (formulas/techniques.py,
    ``aggregated_tpot``); disaggregation gains only where the TPOT target holds the aggregated pool to a smaller
    batch than the disaggregated decode pool.  For OPT-13B at 0.1 s neither target binds first: the KV cache of its
    40 full-width heads (800 KiB a token) fills the 80 GB before the TPOT target is reached, in both designs, so the
    roofline gives the same requests per GPU-second (ratio 1.00).  The measured 4.48x is the queueing and the
    prefill-decode interference at the P90 SLO attainment that a steady-state bound does not model: the formula
    bounds it but does not predict it.  With a tight TPOT target (20 ms) the formula does predict a gain: the
    aggregated pool holds 11 sequences, the decode pool 21, 1.44x the requests per GPU-second."""
    env = {**OPT_13B, **A100}
    out = {}
    for theta in (0.100, 0.020):
        prompt, output = 750, 200
        v = {"T_in": prompt, "T_out": output, "h_p": 0.0, "s_c": 512, "C_p": 512}
        t_p = at(t.prefill_alone_time(), env, S=0, **v)
        context = prompt + output / 2
        fits = int((env["C"] - env["N"] * env["b"]) / ((prompt + output) * env["c"]))
        step_at, tpot_at = over(t.decode_step_time(), {**env, "S": context}, "B"), \
            over(t.aggregated_tpot(), {"t_pr": t_p, "T_out": output}, "t_s", "B")  # one GPU, no prefix: t_pr = t_p
        step = {B: float(step_at(B)) for B in range(1, fits + 1)}
        assert step[fits] == pytest.approx(at(t.decode_step_time(), env, B=fits, S=context), rel=1e-12)
        agg = max(B for B in step if float(tpot_at(step[B], B)) <= theta)
        dis = max(B for B in step if step[B] <= theta)
        per_gpu_agg = agg / ((output - 1) * at(t.aggregated_tpot(), {}, t_s=step[agg], B=agg, t_pr=t_p, T_out=output))
        per_gpu_dis = 1 / (t_p + (output - 1) * step[dis] / dis)  # one request's prefill and decode GPU-seconds
        out[theta] = (agg, dis, per_gpu_dis / per_gpu_agg, fits)
    agg, dis, ratio, fits = out[0.100]
    assert agg == dis == fits  # memory binds both designs at 0.1 s
    assert ratio == pytest.approx(1.0, abs=1e-9)
    assert ratio < 4.48  # the measured gain is not a roofline effect
    agg, dis, ratio, _ = out[0.020]
    assert (agg, dis) == (11, 21) and ratio == pytest.approx(1.437, abs=1e-3)  # a tight target holds one pool down


def test_distserve_tail_of_the_prefill_stalls_does_not_bind():
    """DistServe's targets (Zhong et al., OSDI 2024, Table 1: chatbot OPT-13B, TTFT 0.25 s and TPOT 0.1 s, 90% of
    the requests meeting both) against the queueing model of the prefill stalls that reproduces Sarathi-Serve's P99
    gains (formulas/techniques.py, the tail; vLLM prefills every waiting prompt first, Poisson arrivals).

    A request's TPOT is the mean of its 199 gaps t_r + K t_p, K the generalized Poisson law of a = lam t_r,
    rho = lam t_p: its mean is t_r + t_p a / (1 - rho) = t_u, the steady mean of ``unchunked_step_time`` exactly, and
    its spread over 199 gaps is small (variance a / (1 - rho)^3 a gap; the 90th percentile of the mean by the
    central limit, + 1.28 sigma / sqrt(199)).  At the rate where the caches fill (69 sequences of 950 tokens, 6.04
    requests/s; t_p 61 ms, t_r 36 ms) the P90 TPOT is 62.6 ms, within 0.1 s: the stalls do not bind the aggregated
    pool either, and the model leaves the 4.48x unexplained (the prefills take 37% of the time at that rate; the TTFT
    queue at P90: :func:`test_distserve_goodput_with_the_ttft_tail`)."""
    env = {**OPT_13B, **A100}
    v = {"T_in": 750, "T_out": 200, "h_p": 0.0, "s_c": 512, "C_p": 512, "theta": 0.1, "q_p": 0.99}
    v["t_p"] = t_p = at(_formula("prefill_alone_time"), env, S=0, **v)
    fits = int((env["C"] - env["N"] * env["b"]) / ((750 + 200) * env["c"]))
    edge = min(at(_formula(k), env, **v) for k in ("unchunked_rate_compute", "unchunked_rate_memory"))
    lam = _highest(lambda x: x * 199 * at(_formula("unchunked_step_time"), env, lam=x, **v) <= fits, edge * 0.999999,
                   steps=40)
    t_u = at(_formula("unchunked_step_time"), env, lam=lam, **v)
    t_r = at(_formula("unchunked_round_time"), env, lam=lam, **v)
    a, rho = lam * t_r, lam * t_p
    assert t_r + t_p * a / (1 - rho) == pytest.approx(t_u, rel=1e-12)  # the law's mean is the steady mean
    p90 = t_u + 1.2816 * t_p * math.sqrt(a / (1 - rho) ** 3 / 199)
    assert fits == 69 and lam == pytest.approx(6.04, abs=0.01) and rho == pytest.approx(0.37, abs=0.005)
    assert p90 == pytest.approx(0.0626, abs=5e-4) and p90 < 0.1  # the TPOT target does not bind


def test_distserve_goodput_with_the_ttft_tail():
    """DistServe's goodput (Zhong et al., OSDI 2024, section 2.2 and Table 1: the highest rate at which 90% of the
    requests meet both the TTFT target, 0.25 s, and the TPOT target, 0.1 s, for the chatbot, OPT-13B on A100s),
    aggregated against disaggregated, with the TTFT tail (formulas/techniques.py, "the tail: P90 TTFT") beside the
    stalls' TPOT tail (:func:`test_distserve_tail_of_the_prefill_stalls_does_not_bind`).  Read as: the highest rate
    whose P90 TTFT and P90 TPOT both meet the targets (each request's TPOT its mean gap, the P90 by the central limit
    as there); 750-token prompts, 200 outputs; t_p 61.3 ms, 69 sequences fit beside the weights.

    Aggregated (vLLM v0, prefills first): the TTFT is the M/D/1 wait of the prefills with the round t_r(lam) as the
    server's vacation (Fuhrmann and Cooper) plus t_p; alone its P90 meets 0.25 s up to 7.43 requests/s; the P90
    TPOT meets 0.1 s up to 6.68; the caches fill at 6.04, which binds (the P90 TTFT there is 141 ms).
    Disaggregated: a prefill GPU is the plain M/D/1 queue (no rounds), its P90 TTFT meets 0.25 s up to 11.49
    requests/s (rho 0.70); a decode GPU has no stalls and its caches bind at 69 sequences, a step of 36.2 ms:
    69 / (199 x 36.2 ms) = 9.59 requests/s; balanced pools (DistServe sizes them to the rate, section 4; fractional
    GPUs here, the KV transfer over NVLink not counted, which favours disaggregation) serve 1 / (1 / 11.49 + 1 / 9.59)
    = 5.23 requests/s per GPU: 0.87x the aggregated GPU's 6.04.

    So the model, with the TTFT queue in, still gives disaggregation no gain at DistServe's chatbot conditions: the
    direction disagrees with the measured up-to 4.48x (and its 10.2x tighter SLO is not computed here).  Step times
    k times the bound (an engine slower than the roofline; no measured k is used) do not turn it: the ratio stays
    between 0.76 and 0.91 for k from 1.5 to 3 (the same model, run while writing this test).  What is left out is what DistServe
    measures: ShareGPT's spread of prompt lengths (a long prompt's prefill stalls every running request and queues
    every prompt behind it), vLLM's batched prefills and preemption of running sequences when the caches fill, the
    joint 90% attainment (a request must meet both targets, stricter than two separate P90s), and the tensor-parallel
    prefill pool DistServe places (the spread, the joint attainment and DistServe's placement are taken in by
    :func:`test_distserve_with_the_prompt_spread_the_joint_attainment_and_its_placement`).  The gap is recorded in
    docs/measurements.md; the model is not tuned to close it."""
    env = {**OPT_13B, **A100}
    v = {"T_in": 750, "T_out": 200, "h_p": 0.0, "s_c": 512, "C_p": 512, "theta": 0.1, "q_p": 0.99}
    v["t_p"] = t_p = at(_formula("prefill_alone_time"), env, S=0, **v)
    fits = int((env["C"] - env["N"] * env["b"]) / ((750 + 200) * env["c"]))
    edge = min(at(_formula(k), env, **v) for k in ("unchunked_rate_compute", "unchunked_rate_memory")) * 0.999999

    def t_r(lam):
        return at(_formula("unchunked_round_time"), env, lam=lam, **v)

    def t_u(lam):
        return at(_formula("unchunked_step_time"), env, lam=lam, **v)

    def tpot_p90(lam):
        a, rho = lam * t_r(lam), lam * t_p
        return t_u(lam) + 1.2816 * t_p * math.sqrt(a / (1 - rho) ** 3 / 199)

    caches = _highest(lambda x: x * 199 * t_u(x) <= fits, edge, steps=40)
    ttft_only = _highest(lambda x: ttft_quantile(x, t_p, t_r(x)) <= 0.25, edge, steps=40)
    tpot_only = _highest(lambda x: tpot_p90(x) <= 0.1, edge, steps=40)
    aggregated = min(caches, ttft_only, tpot_only)
    assert (t_p, fits) == (pytest.approx(0.0613, abs=1e-4), 69)
    assert (caches, ttft_only, tpot_only) == (pytest.approx(6.04, abs=0.01), pytest.approx(7.43, abs=0.01),
                                              pytest.approx(6.68, abs=0.01))
    assert aggregated == caches and ttft_quantile(caches, t_p, t_r(caches)) == pytest.approx(0.141, abs=1e-3)
    prefill = _highest(lambda x: ttft_quantile(x, t_p, 0.0) <= 0.25, 0.999999 / t_p, steps=40)
    step = at(t.decode_step_time(), env, B=fits, S=850)
    decode = fits / (199 * step)
    assert prefill == pytest.approx(11.49, abs=0.01) and prefill * t_p == pytest.approx(0.70, abs=0.01)
    assert step == pytest.approx(0.0362, abs=1e-4) and decode == pytest.approx(9.59, abs=0.01)
    per_gpu = 1 / (1 / prefill + 1 / decode)
    assert per_gpu == pytest.approx(5.23, abs=0.01)
    ratio = per_gpu / aggregated
    assert ratio == pytest.approx(0.87, abs=0.01) and ratio < 1 < 4.48  # the measured direction is not given
    # bound: the aggregated GPU's rate is below what its compute and bandwidth allow, and so is the disaggregated one's
    assert aggregated < edge and per_gpu < 1 / (t_p + 199 * step / fits)


# DistServe's own settings (its artifact, github.com/LLMServe/DistServe, distserve/evaluation/2-benchmark-serving/
# 2-start-api-server.py at commit f06659f, MODEL_TO_PARALLEL_PARAMS): OPT-13B on vLLM at tp 1 (one A100, --engine-use-ray,
# max_num_batched_tokens 16384, max_num_seqs 1024, gpu_memory_utilization 0.95), on DistServe as (context_tp,
# context_pp, decoding_tp, decoding_pp) = (2, 1, 1, 1), the order the script unpacks them in: a prefill instance of
# two GPUs in tensor parallel and a decode instance of one GPU, 3 GPUs (until stop 75 read as two pipeline stages,
# review: the same 3.20 per GPU, the decode GPU binds) (ae-scripts/e2e/
# _plot.py: Backend("distserve", ..., 3), Backend("vllm", ..., 1)); goodput the per-GPU rate where 90% of the requests
# meet both targets (_plot.py get_attainment: ftl <= 0.25 s and tpot <= 0.1 s); the per-GPU rates run were 0.25-3
# requests/s for both (opt-13b-vllm-client.sh; opt-13b-distllm-client.sh: 0.75-9 requests/s over 3 GPUs).
DISTSERVE_PREFILL_TP = 2
DISTSERVE_INSTANCE_GPUS = 3
DISTSERVE_RATES_RUN = 3.0  # the highest per-GPU rate either design was run at (so its goodput is below it)
# the chat trace's shape: Sarathi-Serve's ShareGPT tenths over their mean (CHAT_DECILES / 2,339.9), the same spread
# at any mean prompt: genreport's ``serving.prompt_spread: sharegpt``
SHAREGPT_SHAPE = PROMPT_SPREADS["sharegpt"]
assert SHAREGPT_SHAPE == pytest.approx([x / (sum(CHAT_DECILES) / 10) for x in CHAT_DECILES], rel=1e-12)


def _distserve(lengths, output=200, prefill_tp=DISTSERVE_PREFILL_TP, outputs=(1.0,)):
    """Aggregated against disaggregated goodput per GPU at DistServe's chatbot targets (P90 of the requests meeting
    both TTFT 0.25 s and TPOT 0.1 s), OPT-13B on A100, prompts of ``lengths`` (equally likely) and ``output`` tokens.

    Aggregated (vLLM v0, prefills first): the TTFT is the M/G/1 wait over the prompts' prefill times with the round
    t_r as the server's vacation, plus the prompt's own prefill (genreport.model.techniques.ttft_share_mixed); a
    request's TPOT the mean of its gaps, each the round and an M/G/1 busy period of prefills (``tpot_share``); a
    request meets both with the product of the two shares (taken as independent); the caches' ceiling at the mean
    prompt as before.  Disaggregated: a prefill GPU is the M/G/1 queue with no vacation; DistServe's prefill
    instance of ``prefill_tp`` GPUs in tensor parallel takes t / prefill_tp for each prompt (its FLOPs split over the
    GPUs, no all-reduce counted: at least its rate); a decode GPU has no stalls (a step at 69 sequences is far under 0.1 s), its caches bind.  ``outputs``: the
    outputs' lengths over their mean ``output`` (equally likely); a request's TPOT share is then the mean of each
    length's (its mean of fewer or more gaps)."""
    env = {**OPT_13B, **A100}
    shares = [1 / len(lengths)] * len(lengths)
    prompt = sum(lengths) / len(lengths)
    v = {"T_in": prompt, "T_out": output, "h_p": 0.0, "s_c": 512, "C_p": 512, "theta": 0.1, "q_p": 0.99}
    pre = [at(_formula("prefill_alone_time"), env, S=0, **{**v, "T_in": x}) for x in lengths]
    v["t_p"] = t_p = sum(pre) / len(pre)
    fits = int((env["C"] - env["N"] * env["b"]) / ((prompt + output) * env["c"]))
    edge = min(at(_formula(k), env, **v) for k in ("unchunked_rate_compute", "unchunked_rate_memory")) * 0.999999

    def t_r(lam):
        return at(_formula("unchunked_round_time"), env, lam=lam, **v)

    def ttft_ok(lam, vacation):
        return ttft_share_mixed(lam, pre, shares, vacation, 0.25)

    def tpot_ok(lam):
        tr = t_r(lam)
        return sum(tpot_share(lam, tr, pre, shares, max(output * x - 1, 1.0), 0.1) for x in outputs) / len(outputs)

    out = {"t_p": t_p, "fits": fits, "prefills": pre,
           "caches": _highest(lambda x: x * (output - 1) * at(_formula("unchunked_step_time"), env, lam=x, **v) <= fits,
                              edge, steps=40),
           "ttft": _highest(lambda x: ttft_ok(x, t_r(x)) >= 0.9, edge, steps=40),
           "tpot": _highest(lambda x: tpot_ok(x) >= 0.9, edge, steps=40),
           "joint": _highest(lambda x: ttft_ok(x, t_r(x)) * tpot_ok(x) >= 0.9, edge, steps=40)}
    out["aggregated"] = min(out["caches"], out["joint"])
    step = at(t.decode_step_time(), env, B=fits, S=prompt + output / 2)
    out["decode"] = fits / ((output - 1) * step)
    out["prefill_gpu"] = _highest(lambda x: ttft_ok(x, 0.0) >= 0.9, 0.999999 / t_p, steps=40)
    split = [x / prefill_tp for x in pre]
    out["prefill_instance"] = _highest(lambda x: ttft_share_mixed(x, split, shares, 0.0, 0.25) >= 0.9,
                                       prefill_tp * 0.999999 / t_p, steps=40)
    out["balanced"] = 1 / (1 / out["prefill_gpu"] + 1 / out["decode"])  # fractional pools, per GPU
    out["placed"] = min(out["prefill_instance"], out["decode"]) / (prefill_tp + 1)  # DistServe's 2 + 1 GPUs, per GPU
    out["edge"] = edge
    return out


def test_distserve_with_the_prompt_spread_the_joint_attainment_and_its_placement():
    """DistServe (Zhong et al., OSDI 2024; chatbot, OPT-13B on A100, 90% of the requests meeting TTFT 0.25 s and
    TPOT 0.1 s; up to 4.48x vLLM's goodput per GPU, hao-ai-lab.github.io/blogs/distserve) with what
    :func:`test_distserve_goodput_with_the_ttft_tail` left out and the sources let the model take in:
    - the prompts' spread: the chat trace's shape (ShareGPT's tenths over their mean, :data:`SHAREGPT_SHAPE`, from
      33/2,339.9 to 6,609/2,339.9) at the 750-token mean (11 to 2,118 tokens), so prefills of 12.6 ms to 177 ms;
      the TTFT queue is then M/G/1 and a gap's stall an M/G/1 busy period (formulas/techniques.py, "the spread of prompts");
    - the joint attainment (DistServe's _plot.py counts a request only if it meets both targets): the product of the
      TTFT and TPOT shares;
    - DistServe's own placement (its artifact): a prefill instance of 2 GPUs in tensor parallel and a decode
      instance on 1, against vLLM on 1 GPU.

    One length (every prompt 750 tokens) gives the earlier test's numbers exactly (TTFT tail alone 7.43, TPOT tail
    6.68, caches 6.04 requests/s per GPU; the joint 6.68).  With the spread the aggregated GPU's TTFT tail alone
    allows 6.73 requests/s, its TPOT tail 6.53, both together 6.46, and the caches still bind first at 5.95 (the mean
    prompt's prefill, 63.8 ms, is longer than 750 tokens' 61.3: attention grows with the square of the length).  A
    prefill GPU alone meets the P90 TTFT up to 7.86 requests/s (11.49 with one length: the long prompts' prefills
    queue everyone behind them); a decode GPU's caches bind at 9.59.  Balanced fractional pools serve 4.32 per GPU,
    0.73x the aggregated GPU; DistServe's 2 + 1 placement serves min(23.60, 9.59) / 3 = 3.20 per GPU, 0.54x (its
    prefill instance, two GPUs in tensor parallel, meets the P90 TTFT up to 23.60 requests/s and is held to the
    decode GPU's 9.59).

    So the direction still disagrees: the spread hurts the disaggregated prefill queue more than the aggregated
    GPU, whose goodput the caches bind (69 sequences of 950 tokens, 800 KiB a token) in both designs, and a request
    that holds its cache on the aggregated GPU holds it as long on a decode GPU.  Bound: both measured goodputs lie
    under the per-GPU rates DistServe ran (at most 3 requests/s a GPU, so its 90% crossings are under 3), under the
    model's 5.95 (vLLM) and 3.20 (DistServe's placement).  Still left out (what the measured 4.48x must come from):
    the engines' own step times (vLLM in 2023 against DistServe's SwiftTransformer kernels; a bound has none),
    vLLM's preemption and recomputation when the caches fill (it admits up to 1,024 sequences; the model stops at
    the mean fill), its batched prefills (a batch of up to 16,384 tokens ends all its prompts together), the
    trace's true lengths under DistServe's filter (prompt + output < 2,048 tokens; the shape here is Sarathi-Serve's
    trace), and the output lengths' spread (200 for all, as the earlier tests; taken in by
    :func:`test_distserve_the_outputs_spread_does_not_turn_the_direction`: not the cause)."""
    measured = 4.48
    one = _distserve([750])
    assert (one["ttft"], one["tpot"], one["caches"]) == (pytest.approx(7.43, abs=0.01), pytest.approx(6.68, abs=0.01),
                                                         pytest.approx(6.04, abs=0.01))
    assert one["joint"] == pytest.approx(one["tpot"], abs=0.01) and one["aggregated"] == one["caches"]
    assert one["prefill_gpu"] == pytest.approx(11.49, abs=0.01) and one["balanced"] / one["aggregated"] == \
        pytest.approx(0.87, abs=0.01)
    got = _distserve([750 * r for r in SHAREGPT_SHAPE])
    assert min(got["prefills"]) == pytest.approx(0.0126, abs=2e-4) and max(got["prefills"]) == pytest.approx(0.177,
                                                                                                          abs=1e-3)
    # hand count of the longest tenth's prefill, compute-bound: (2 N_p T + 2 L H_q d_h T^2 + 2 V d) / P, T = 2,118.2
    longest = 750 * 6609 / 2339.9
    flops = 2 * OPT_13B["N_p"] * longest + 2 * 40 * 40 * 128 * longest**2 + 2 * 50272 * 5120
    assert max(got["prefills"]) == pytest.approx(flops / 312e12, rel=1e-9)
    assert got["t_p"] == pytest.approx(0.0638, abs=1e-4) and got["fits"] == 69
    assert (got["ttft"], got["tpot"], got["joint"], got["caches"]) == (
        pytest.approx(6.73, abs=0.01), pytest.approx(6.53, abs=0.01), pytest.approx(6.46, abs=0.01),
        pytest.approx(5.95, abs=0.01))
    assert got["joint"] <= min(got["ttft"], got["tpot"])  # the joint attainment is the stricter
    assert got["aggregated"] == got["caches"]
    assert got["prefill_gpu"] == pytest.approx(7.86, abs=0.01) and got["decode"] == pytest.approx(9.59, abs=0.01)
    assert got["prefill_instance"] == pytest.approx(23.60, abs=0.02)
    assert got["balanced"] == pytest.approx(4.32, abs=0.01) and got["placed"] == pytest.approx(3.20, abs=0.01)
    ratio, placed = got["balanced"] / got["aggregated"], got["placed"] / got["aggregated"]
    assert ratio == pytest.approx(0.73, abs=0.01) and placed == pytest.approx(0.54, abs=0.01)
    assert max(ratio, placed) < 1 < measured  # the direction still disagrees
    # none beats the bound: the measured goodputs lie under the rates run, and those under the model's
    assert DISTSERVE_RATES_RUN < got["aggregated"] and DISTSERVE_RATES_RUN < got["placed"]
    assert got["aggregated"] < got["edge"]


# The chat trace's outputs: the mean output of each tenth of its requests sorted by output length (the same file as
# CHAT_DECILES, Sarathi-Serve's data/processed_traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv, column
# num_decode_tokens, 30,731 requests: 2 to 1,000 tokens, mean 438.7, median 415); an output's length hardly follows
# its prompt's there (correlation 0.04 over the requests), so the two spreads are taken as independent
CHAT_OUTPUT_TENTHS = (43, 131, 227, 311, 380, 453, 535, 629, 756, 922)


def test_distserve_the_outputs_spread_does_not_turn_the_direction():
    """The candidate :func:`test_distserve_with_the_prompt_spread_the_joint_attainment_and_its_placement` left out:
    ShareGPT's spread of output lengths (a short output's TPOT is the mean of few gaps, so one prefill stall can push
    it over 0.1 s).  With the chat trace's output tenths over their mean (:data:`CHAT_OUTPUT_TENTHS`, 20 to 420 tokens
    at DistServe's 200-token mean) beside the prompts' spread, the aggregated GPU's TPOT tail alone allows 6.51
    requests/s (6.53 with every output 200 tokens), both tails 6.36 (6.46): the short outputs' few gaps widen the
    tail by little, because at these rates a gap's stall is short beside the 0.1 s target, and the caches still bind
    first at 5.95.  The ratio stays 0.73x: the outputs' spread is not what DistServe's 4.48x comes from."""
    mean = sum(CHAT_OUTPUT_TENTHS) / len(CHAT_OUTPUT_TENTHS)
    assert mean == pytest.approx(438.7, abs=0.05)
    prompts = [750 * r for r in SHAREGPT_SHAPE]
    same = _distserve(prompts)
    got = _distserve(prompts, outputs=[x / mean for x in CHAT_OUTPUT_TENTHS])
    assert min(200 * x / mean for x in CHAT_OUTPUT_TENTHS) == pytest.approx(19.6, abs=0.05)
    assert (same["tpot"], same["joint"]) == (pytest.approx(6.53, abs=0.01), pytest.approx(6.46, abs=0.01))
    assert (got["tpot"], got["joint"]) == (pytest.approx(6.51, abs=0.01), pytest.approx(6.36, abs=0.01))
    assert got["tpot"] < same["tpot"] and got["joint"] < same["joint"]  # the spread widens the tail, a little
    assert got["aggregated"] == got["caches"] == same["caches"]  # and the caches bind first as before
    assert got["balanced"] / got["aggregated"] == pytest.approx(0.73, abs=0.01)

def test_distserve_motivating_example_the_direction_holds_under_a_tight_tpot():
    """DistServe's motivating example (Zhong et al., OSDI 2024, arXiv:2401.09670, section 1 and Figure 1): a 13B model
    (the paper's OPT-13B) on one A100 80 GB, every prompt 512 tokens and every output 64, Poisson arrivals; goodput is
    the highest rate at which 90% of the requests meet P90 TTFT <= 0.4 s and P90 TPOT <= 0.04 s.  Measured: the
    colocated system (vLLM) 1.6 requests/s, a GPU running only prefills 5.6, a GPU running only decodes 10; two prefill
    GPUs and one decode GPU serve 10 requests/s, 3.3 per GPU: 2.1x the colocated GPU.

    The same formulas as the chatbot tests above, at these conditions (one length, so the one-length laws):
    - a prefill of 512 tokens, compute-bound: (2 N_p 512 + 2 L H_q d_h 512^2 + 2 V d) / P = 41.68 ms;
    - colocated (prefills first): the P90 TPOT binds at 11.05 requests/s (each request's mean of 63 gaps, the round
      and the prefill stalls: mean 32.5 ms there, rho 0.46); the TTFT tail alone would allow 17.85 and the caches
      16.04;
    - a prefill GPU: the M/D/1 queue's P90 TTFT meets 0.4 s up to 21.08 requests/s (rho 0.88);
    - a decode GPU: the caches bind at 115 sequences of 576 tokens, a step of 37.7 ms (within 0.04 s), so
      115 / (63 x 37.7 ms) = 48.37 requests/s;
    - balanced pools: 1 / (1 / 21.08 + 1 / 48.37) = 14.68 per GPU, 1.33x; DistServe's 2 + 1:
      min(2 x 21.08, 48.37) / 3 = 14.05 per GPU, 1.27x (and of the splits of three GPUs the model picks the same one).

    So here the direction agrees (gain 1.27-1.33x against the measured 2.1x): the 40 ms target holds the colocated
    GPU to the rate where its prefill stalls stay under the target, while a decode GPU runs every sequence its caches
    hold.  At the chatbot's 0.1 s target no stall binds and the model gives no gain
    (:func:`test_distserve_with_the_prompt_spread_the_joint_attainment_and_its_placement`): what the roofline
    predicts of disaggregation is this, a gain only where the TPOT target binds the colocated GPU first.  Size: the
    measured gain is 1.6-1.7x the model's.  None beats the bound: each measured rate lies under the model's (1.6 <
    11.05, 5.6 < 21.08, 10 < 48.37); the colocated system measured is furthest under it (6.9x against 3.8x and
    4.8x), which is the interference beyond the stall model (vLLM's steps slower than the bound, its batched
    prefills)."""
    measured = {"colocated": 1.6, "prefill": 5.6, "decode": 10.0, "placed": 3.3, "gain": 2.1}
    env = {**OPT_13B, **A100}
    prompt, output, ttft_target, tpot_target = 512, 64, 0.4, 0.04
    v = {"T_in": prompt, "T_out": output, "h_p": 0.0, "s_c": 512, "C_p": 512, "theta": tpot_target, "q_p": 0.99}
    v["t_p"] = t_p = at(_formula("prefill_alone_time"), env, S=0, **v)
    flops = 2 * OPT_13B["N_p"] * prompt + 2 * 40 * 40 * 128 * prompt**2 + 2 * 50272 * 5120
    assert t_p == pytest.approx(flops / 312e12, rel=1e-12) and t_p == pytest.approx(0.04168, abs=1e-5)
    fits = int((env["C"] - env["N"] * env["b"]) / ((prompt + output) * env["c"]))
    edge = min(at(_formula(k), env, **v) for k in ("unchunked_rate_compute", "unchunked_rate_memory")) * 0.999999

    def t_r(lam):
        return at(_formula("unchunked_round_time"), env, lam=lam, **v)

    def ttft_ok(lam, vacation):
        return ttft_share_mixed(lam, [t_p], [1.0], vacation, ttft_target)

    def tpot_ok(lam):
        return tpot_share(lam, t_r(lam), [t_p], [1.0], output - 1, tpot_target)

    caches = _highest(lambda x: x * (output - 1) * at(_formula("unchunked_step_time"), env, lam=x, **v) <= fits, edge,
                      steps=40)
    ttft_alone = _highest(lambda x: ttft_ok(x, t_r(x)) >= 0.9, edge, steps=40)
    joint = _highest(lambda x: ttft_ok(x, t_r(x)) * tpot_ok(x) >= 0.9, edge, steps=40)
    colocated = min(caches, joint)
    assert (caches, ttft_alone, colocated) == (pytest.approx(16.04, abs=0.01), pytest.approx(17.85, abs=0.01),
                                               pytest.approx(11.05, abs=0.01))
    mean_tpot = t_r(colocated) / (1 - colocated * t_p)  # the steady mean of a gap: the round and its stalls
    assert mean_tpot == pytest.approx(0.0325, abs=1e-4) and colocated * t_p == pytest.approx(0.46, abs=0.005)
    prefill = _highest(lambda x: ttft_ok(x, 0.0) >= 0.9, 0.999999 / t_p, steps=40)
    assert prefill == pytest.approx(21.08, abs=0.01) and prefill * t_p == pytest.approx(0.88, abs=0.005)
    step = at(t.decode_step_time(), env, B=fits, S=prompt + output / 2)
    assert fits == 115 and step == pytest.approx((env["N"] * 2 + 115 * 544 * env["c"]) / 2.039e12, rel=1e-12)
    assert step <= tpot_target  # the caches bind the decode GPU before the target does
    decode = fits / ((output - 1) * step)
    assert decode == pytest.approx(48.37, abs=0.01)
    balanced = 1 / (1 / prefill + 1 / decode)
    splits = {(p, 3 - p): min(p * prefill, (3 - p) * decode) / 3 for p in (1, 2)}
    assert max(splits, key=splits.get) == (2, 1)  # DistServe's split of three GPUs is the model's too
    placed = splits[2, 1]
    assert balanced / colocated == pytest.approx(1.33, abs=0.01) and placed / colocated == pytest.approx(1.27, abs=0.01)
    assert 1 < placed / colocated < measured["gain"]  # the direction agrees; the size is smaller
    # none beats the bound
    assert measured["colocated"] < colocated and measured["prefill"] < prefill and measured["decode"] < decode
    assert measured["placed"] < placed


# ----------------------------------------------------------------------------------------------- a finding

def test_the_caches_ceiling_is_an_upper_bound():
    """Found while checking Sarathi-Serve's shapes (issue 30): ``goodput_rate_capacity`` counted the sequences running
    at a rate as lam (T_out - 1) theta, each token taking the whole TPOT target theta, and gave 15.3 requests/s for
    Mistral-7B on A100 (1k prompts, 256 outputs, theta 100 ms), where the steady step takes 9 ms and far fewer
    sequences run.  The caches fill only where lam (T_out - 1) t_s(lam) (T_in + T_out / 2) c = C - N b (the running
    sequences hold 1,024 + 128 tokens each on average): by hand, with t_s(lam) = N b / (W - lam Q_r)
    (``steady_step_time``), lam = (C - N b) W / (255 x 1152 c N b + (C - N b) Q_r), 43.2 requests/s with
    t_s = 39 ms, below theta.  The ceiling is now that rate, an upper bound whatever theta (the
    step t_s is a lower bound, so a real engine runs at least as many sequences); here the compute ceiling, 16.9/s,
    binds first."""
    env = {**MISTRAL_7B, **A100}
    # the sequences hold c a token as their steps read it (c_h = c): the sliding window of Mistral-7B v0.1, 4,096,
    # lies past the 1,279-token last context
    v = {"T_in": 1024, "T_out": 256, "h_p": 0.0, "s_c": 512, "C_p": 512, "theta": 0.100, "M_d": 0.0, "c_d": 0.0,
         "c_h": env["c"], "c_s": env["c"]}
    room = env["C"] - env["N"] * env["b"]
    stream = env["N"] * env["b"]
    # Q_r by hand (request_bytes): 255 decode tokens at the mean context 1024 + 128, a 1k prompt written and each of
    # its two 512-token chunks reading the prompt before it (on average (1024 - 512) / 2 tokens)
    q_r = 255 * 1152 * env["c"] + 1024 * env["c"] * (1 + (1024 - 512) / (2 * 512))
    assert at(t.request_bytes(), env, **v) == pytest.approx(q_r, rel=1e-12)
    fill = room * env["W"] / (255 * 1152 * env["c"] * stream + room * q_r)
    assert fill == pytest.approx(43.2, abs=0.05)
    assert at(t.goodput_rate_capacity(), env, **v) == pytest.approx(fill, rel=1e-12)
    step = at(t.steady_step_time(), env, lam=fill, **v)
    assert step == pytest.approx(0.0394, abs=5e-4) and step < 0.100  # the TPOT target still holds there
    assert fill * 255 * step * 1152 * env["c"] == pytest.approx(room)  # the caches are full exactly there
    # the old count, lam 255 theta 1280 c = C - N b, sat below a rate an engine reaches
    assert room / (255 * 0.100 * 1280 * env["c"]) == pytest.approx(15.3, abs=0.05)
    assert at(t.goodput_rate_compute(), env, **v) == pytest.approx(16.9, abs=0.05)
    # no theta in it: a tighter target moves the TPOT ceiling, not the caches'; where the step at the caches' rate
    # (39 ms) is longer than the target (10 ms), the TPOT ceiling is the lower one, so the least of the two binds
    assert at(t.goodput_rate_capacity(), env, **{**v, "theta": 0.010}) == pytest.approx(fill, rel=1e-12)
    assert at(t.goodput_rate_tpot(), env, **{**v, "theta": 0.010}) < fill < at(t.goodput_rate_tpot(), env, **v)


def test_deepseek_v3_mtp_through_the_layout_says_at_which_batches_1_8x_is_possible():
    """The same DeepSeek-V3 result (1.8x, the second token accepted 85% of the time or more) through the report's
    own evaluation: specs/deepseek-v3-h200-ep8.yaml (DeepSeek-V3 in fp8 on 8 H200, expert parallel 8, 4k prompts,
    1k outputs), the verify round of the layout against its plain round (``_layout_round``: the collectives, each
    round's touched experts), at the mean context.

    Bound, with a free draft at 85%: at batch 1 the verify round's two tokens touch about twice the experts a plain
    round touches, so the bound is 1.32x and 1.8x could not have been measured there; it passes 1.8x at 16 sequences
    per replica (1.82x), and from 32 on every expert is read by both rounds and the bound is E = 1.85; past the verify
    round's compute crossover (about 170 sequences at this context) it falls again (1.58x at 210).  Size: with the MTP module's
    passes as the spec declares them (draft_layers: 1, one MoE layer and the shared output head: t_d 2.1-2.4% of a
    plain round at 32-128 sequences, its experts over ep 8) the estimate is 1.81x there, within 1% of 1.8x.  So the
    formula says DeepSeek's 1.8x was measured at a batch where every expert is already read (its deployment decodes
    with large expert-parallel batches, report section 3.4), and that the gain fades both below and above it."""
    measured = 1.8
    r = evaluated("deepseek-v3-h200-ep8.yaml")
    sv = r.spec.serving
    assert (sv.speculative.draft_tokens, sv.speculative.acceptance, sv.speculative.draft_layers) == (1, 0.85, 1)
    plain = evaluated("deepseek-v3-h200-ep8.yaml", ("serving.speculative.draft_cost=0",))  # the spec's head left out
    sp = plain.spec.serving.speculative
    assert (sp.draft_tokens, sp.acceptance, sp.draft_cost, sp.draft) == (1, 0.85, 0.0, None)  # a free draft at 85%
    bound = {b: _layout_round(plain, b)["mean"]["speedup"] for b in (1, 32, 64, 128, 210)}
    estimate = {b: _layout_round(r, b)["mean"]["speedup"] for b in (32, 64, 128)}
    assert bound[1] < measured  # at batch 1 this layout could not reach 1.8x
    for b in (32, 64, 128):
        assert bound[b] == pytest.approx(1.85, rel=1e-3) and measured < bound[b]
        assert estimate[b] == pytest.approx(measured, rel=0.01) and estimate[b] < bound[b]
    assert bound[210] < measured < bound[128]  # past the compute crossover the gain fades


def test_deepseek_v3_mtp_with_the_head_derived_from_its_layer():
    """The same measurement (DeepSeek-V3 technical report, arXiv:2412.19437, section 5.4.3: one MTP module, the second
    token accepted 85-90%, 1.8x TPS) with t_d derived rather than typed: ``serving.speculative.draft_layers: 1`` makes
    the draft one decoder layer shaped as the target's plus its shared output head (section 2.2: each MTP module one
    Transformer block sharing the embedding and output head; its block an MoE layer as the model's).  At batch 1 and
    4k context in fp8 the head's pass reads its layer's attention, shared expert and the 8 routed experts its token
    picks, 0.585 B, and the head's 129,280 x 7,168 = 0.927 B (1.512 B weights, 1 B each) against the target's
    37.6 B a token: t_d / t = 0.0405 (the typed 1.613 / 37 was 0.0436), so E / (1 + t_d / t) = 1.778 (p 0.85) to
    1.826 (p 0.90): the measured 1.8x lies inside, within 1.5% of either end; it never beats E = 1.85-1.90, the bound."""
    import numpy as np
    from genreport.formulas.compiled import load
    from genreport.model.draft import Draft, of_spec

    r = evaluated("deepseek-v3-h200-ep8.yaml", ("serving.speculative.draft_layers=1",
                                                  "serving.speculative.draft_tokens=1"))
    q, head = load(), of_spec(r.spec)
    one = Draft(head.model, head.precision, head.hardware, head.accounting, head=True)  # the ratio on one GPU, ep 1
    target = Draft(r.spec.model, r.spec.precision, r.spec.hardware, r.spec.accounting)
    f_d, q_d = one.ledgers(q, np.asarray([1.0]), 4096.0)
    f_t, q_t = target.ledgers(q, np.asarray([1.0]), 4096.0)
    assert float(one.env.values["N"]) == pytest.approx(12.434e9, rel=1e-3)  # the layer 11.5 B + the head 0.93 B
    assert q_d[0] == pytest.approx(1.512e9 + 4096 * 576, rel=1e-3)  # one MLA layer's 576 B a token in fp8
    w, p = one.env.values["W"], one.env.values["P"]
    t_d = float(one.time(q, 1, np.asarray([1.0]), 4096.0, 1.0, 1.0)[0])
    t = max(f_t[0] / p, q_t[0] / w)
    assert t_d == pytest.approx(q_d[0] / w) and t == pytest.approx(q_t[0] / w)  # both memory-bound
    assert t_d / t == pytest.approx(0.0405, abs=5e-4)
    measured, est = 1.8, []
    for accept in (0.85, 0.90):
        tokens = 1 + accept
        assert measured < tokens  # the bound: E tokens a verify step, never beaten
        est.append(tokens / (1 + t_d / t))
    assert est[0] < measured < est[1]
    assert est[0] == pytest.approx(1.778, abs=2e-3) and est[1] == pytest.approx(1.826, abs=2e-3)
    # the serving chapter at its own batch and layout (ep 8) with the derived head: under E as well
    n = r.serving["techniques"]["numbers"]
    assert n["draft_model"] == "an EAGLE/MTP head of 1 DeepSeek-V3 (671B) layer"
    assert 1.0 < n["speedup_mean"] < 1 + 0.85 and 1.0 < n["speedup_last"] < 1 + 0.85
