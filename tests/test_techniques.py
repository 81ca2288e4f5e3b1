"""Issue 30: what serving engines do to the roofline (formulas/techniques.py), checked by hand and at the limits.

Hand counts use Llama 3.1 8B on one H100 SXM in bf16 (seed 003: N = 8.03e9, b = 2 B, c = 128 KiB per token, P =
989.4 TFLOP/s, W = 3.35 TB/s) and DeepSeek-V3's published speculative-decoding result.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp
from genreport.formulas import decode
from genreport.formulas import techniques as t
from genreport.formulas.glossary import sym
from genreport.formulas.quantities import _prefill_bytes, _prefill_flops

LLAMA8B_H100 = {  # seed 003's accounting: every parameter read and used, no activation traffic
    "N": 8.03e9, "N_a": 8.03e9, "N_e": 0.0, "N_p": 8.03e9 - 2 * 128256 * 4096, "L": 32, "d": 4096, "H_q": 32,
    "d_h": 128, "d_hp": 128, "V": 128256, "b": 2.0, "c": 131072.0, "c_h": 131072.0, "c_s": 131072.0, "a": 0.0, "P": 989.4e12, "W": 3.35e12, "C": 80 * 2**30,
    "h_p": 0.0,  # no prefix cache
}


def at(expr, **values):
    """``expr`` at seed 003's inputs and ``values``: each symbol replaced by its number in one pass (``xreplace``:
    ``subs`` with twenty numbers took 0.1-0.5 s an expression, substituting and simplifying one symbol at a time)."""
    env = {**LLAMA8B_H100, **values}
    return float(expr.xreplace({sym(k): sp.Float(v) if isinstance(v, float) else sp.Integer(v) for k, v in env.items()}))


def test_expected_tokens_is_the_closed_form_of_its_sum():
    """Leviathan et al., eq. (1): sum_{i=0}^{k} p^i = (1 - p^(k+1)) / (1 - p)."""
    summed = t.expected_tokens_sum().doit()
    p, k = sym("p_a"), sym("k_d")
    for pv, kv in ((0.8, 3), (0.5, 1), (0.9, 5)):
        assert float(summed.subs({p: pv, k: kv})) == pytest.approx(float(t.expected_tokens().subs({p: pv, k: kv})))
    assert sp.limit(t.expected_tokens(), p, 0) == 1  # nothing accepted: one token per step, plain decode
    assert sp.limit(t.expected_tokens().subs(k, 3), p, 1) == 4  # every draft accepted: k + 1
    assert float(t.expected_tokens().subs({p: 0.85, k: 1})) == pytest.approx(1.85)


def test_no_drafts_is_todays_decode():
    """k_d = 0 (n_v = 1: one token per sequence verified; or acceptance 0 with a free draft) at any batch: the
    verify step is a decode step."""
    k, n = sym("k_d"), sym("n_v")
    for batch in (1, 64, 4096):
        plain = at(t.decode_step_time(), B=batch, S=1024)
        assert at(t.verify_time().subs({k: 0, n: 1}), B=batch, S=1024) == pytest.approx(plain)
        assert at(t.speculative_speedup().subs({k: 0, n: 1, sym("t_d"): 0}), B=batch, S=1024, p_a=0.7) == \
            pytest.approx(1.0)
        # acceptance 0 with a free draft: one token per step, and the verify step costs a plain one while it is
        # memory-bound (batch 1 and 64 here), more past the crossover
        got = at(t.speculative_speedup().subs(sym("t_d"), 0), B=batch, S=1024, p_a=1e-12, k_d=3, n_v=4)
        assert got == pytest.approx(1.0) if batch < 100 else got < 1.0


def test_deepseek_v3_mtp_reproduces_its_published_speedup():
    """DeepSeek-V3 Technical Report, section 5.4.3: with one MTP module the second token is accepted 85-90% of
    the time and generation runs 1.8x faster.  At a memory-bound batch the verify step reads what a decode step
    reads, so the speed-up is E / (1 + t_d / t): the MTP head reads one transformer block with 9 of its experts
    (MLA attention 187 M, 9 x 3 x 7168 x 2048 = 396 M, the 2 x 7168 x 7168 = 103 M projection) and the shared
    output head (129,280 x 7,168 = 927 M): 1.61 B parameters against the 37 B the main model reads per token."""
    draft_over_step = 1.613e9 / 37e9
    for accept, low, high in ((0.85, 1.76, 1.79), (0.90, 1.81, 1.83)):
        e = 1 + accept  # k_d = 1
        speedup = e / (1 + draft_over_step)
        assert low < speedup < high
    # the same through the formula, at batch 1 of a model whose step is memory-bound (t_d as that fraction)
    step = at(t.decode_step_time(), B=1, S=4096)
    got = at(t.speculative_speedup(), B=1, S=4096, p_a=0.85, k_d=1, n_v=2, t_d=draft_over_step * step)
    assert got == pytest.approx(1.85 / (1 + draft_over_step), rel=1e-12) and 1.75 < got < 1.8


def test_the_benefit_ends_at_the_breakeven_batch():
    """Llama 3.1 8B on H100, 3 drafts accepted 80% of the time, a free draft: the speed-up is E = 2.952 while the
    verify step is memory-bound, then falls.  At context 128 it reaches 1 at the solved batch; at 1,024 it never
    does: the KV reads grow with the batch as fast as the verify FLOPs, and the speed-up levels off at
    E R / ((k + 1) I_ceil(S)) = 2.952 x 295.3 / (4 x 123.7) = 1.76 (no physical break-even: the solved root is
    negative)."""
    values = {"p_a": 0.8, "k_d": 3, "n_v": 4, "t_d": 0.0}
    e = at(t.expected_tokens(), **values)
    assert e == pytest.approx(1 + 0.8 + 0.64 + 0.512)
    short = {**values, "S": 128}
    b_verify = at(t.verify_crossover_batch(), **short)
    b_even = at(t.speculative_breakeven_batch(), **short)
    assert 1 < b_verify < b_even
    # hand count of the verify crossover: (N b) / ((k+1) (2 N_a + 4 L H_q d_h S) / R - S c), R = P / W
    ridge = 989.4e12 / 3.35e12
    flops_tok = 2 * 8.03e9 + 4 * 32 * 32 * 128 * 128
    assert b_verify == pytest.approx(8.03e9 * 2 / (4 * flops_tok / ridge - 128 * 131072), rel=1e-9)
    assert at(t.speculative_speedup(), B=1, **short) == pytest.approx(e)
    assert at(t.speculative_speedup(), B=b_even, **short) == pytest.approx(1.0, rel=1e-9)
    assert at(t.speculative_speedup(), B=b_even / 2, **short) > 1 > at(t.speculative_speedup(), B=2 * b_even, **short)
    long = {**values, "S": 1024}
    assert at(t.speculative_breakeven_batch(), **long) < 0
    ceiling = (2 * 8.03e9 + 4 * 32 * 32 * 128 * 1024) / (1024 * 131072)
    assert at(t.speculative_speedup(), B=1e7, **long) == pytest.approx(e * ridge / (4 * ceiling), rel=1e-3)
    assert 1.75 < e * ridge / (4 * ceiling) < 1.77


def test_a_draft_tree_verifies_its_nodes():
    """A draft tree (SpecInfer, Medusa, EAGLE) runs n_v tokens of each sequence through the target, its nodes, while
    at most its depth k_d + 1 are accepted: SGLang's default EAGLE tree, 5 steps deep with 8 tokens verified.  The
    verify FLOPs are B n_v F_1, so the crossover batch moves down from the chain's (n_v = k_d + 1 = 6) to
    N b / (8 F_1 / R - S c); a tree of k_d + 1 nodes is the chain itself.  Hand counts at context 1,024: the chain
    turns compute-bound at 79.1 sequences, the 8-node tree at 50.9."""
    ridge = 989.4e12 / 3.35e12
    flops_tok = 2 * 8.03e9 + 4 * 32 * 32 * 128 * 1024
    crossover = {}
    for n in (6, 8):
        crossover[n] = at(t.verify_crossover_batch(), S=1024, k_d=5, n_v=n)
        assert crossover[n] == pytest.approx(8.03e9 * 2 / (n * flops_tok / ridge - 1024 * 131072), rel=1e-9)
    assert (crossover[6], crossover[8]) == (pytest.approx(79.1, abs=0.05), pytest.approx(50.9, abs=0.05))
    # the FLOPs: n_v tokens a sequence; the bytes: the weights and each cache once, whatever the tree
    assert at(t.verify_flops(), B=16, S=1024, n_v=8) == pytest.approx(16 * 8 * flops_tok, rel=1e-12)
    assert at(t.verify_bytes(), B=16, S=1024) == pytest.approx(at(t.decode_step_time(), B=16, S=1024) * 3.35e12)
    # past both crossovers the tree costs 8/6 of the chain's verify time at the same accepted tokens
    big = {"B": 512, "S": 1024, "p_a": 0.8, "k_d": 5, "t_d": 0.0}
    assert at(t.speculative_speedup(), **big, n_v=6) == pytest.approx(8 / 6 * at(t.speculative_speedup(), **big, n_v=8))


def test_chunk_limits_are_todays_decode_and_prefill():
    T = sym("T")
    prompt = 2048
    # a whole prompt as one chunk, no decode tokens: the prefill's FLOPs and bytes
    assert at(t.mixed_flops(B=0, C_p=prompt), T_in=prompt, S=0) == pytest.approx(at(_prefill_flops().subs(T, prompt)))
    assert at(t.mixed_bytes(B=0, C_p=prompt), T_in=prompt, s_c=prompt, S=0) == \
        pytest.approx(at(_prefill_bytes().subs(T, prompt)))
    # no chunk: a decode step
    for batch in (1, 256):
        assert at(t.mixed_flops(C_p=0), B=batch, S=4096, T_in=prompt) == at(decode.decode_flops(), B=batch, S=4096)
        assert at(t.mixed_bytes(C_p=0), B=batch, S=4096, T_in=prompt, s_c=512) == \
            at(decode.decode_bytes(), B=batch, S=4096)


def test_a_chunk_raises_the_intensity_and_costs_the_running_users():
    """64 decode sequences at 4k context plus a 512-token chunk of a 4k prompt: the step carries 576 tokens per
    weight pass instead of 64, its intensity rises, and every running user's token waits for the longer step."""
    v = {"B": 64, "S": 4096, "T_in": 4096, "s_c": 512}
    plain = at(decode.decode_intensity(), B=64, S=4096)
    mixed = at(t.mixed_intensity(C_p=512), **v)
    assert mixed > 3 * plain
    t_plain, t_mixed = at(t.decode_step_time(), B=64, S=4096), at(t.mixed_time(C_p=512), **v)
    assert t_mixed > t_plain
    # hand count of the mixed bytes: 16.06 GB + 64 x 4096 x 128 KiB + 512 x 128 KiB + (4096 - 512)/2 x 128 KiB
    assert at(t.mixed_bytes(C_p=512), **v) == pytest.approx(
        8.03e9 * 2 + 64 * 4096 * 131072 + 512 * 131072 + 1792 * 131072)


def test_steady_state_of_continuous_batching():
    """The step time solves its own ledger (Little's law over the steps); at no load it is the weights' stream
    time; the goodput rate meets the TPOT target exactly; the balanced pools serve one rate."""
    lam, theta = sym("lam"), sym("theta")
    v = {"T_in": 2048, "T_out": 256, "h_p": 0.0, "s_c": 512, "C_p": 512}
    ts = t.steady_step_time()
    stream = 8.03e9 * 2 / 3.35e12
    assert at(ts, lam=1e-9, **v) == pytest.approx(stream, rel=1e-6)
    # the solution satisfies t W = N b + lam t Q_r
    t_at = at(ts, lam=20.0, **v)
    q_r = at(t.request_bytes(), **v)
    assert t_at * 3.35e12 == pytest.approx(8.03e9 * 2 + 20.0 * t_at * q_r)
    # hand count of Q_r: 255 x (2048 + 128) x 128 KiB + 2048 x 128 KiB x (1 + (2048 - 512) / 1024)
    assert q_r == pytest.approx(255 * 2176 * 131072 + 2048 * 131072 * (1 + 1536 / 1024))
    target = 0.030
    rate = at(t.goodput_rate_tpot(), theta=target, **v)
    assert at(ts, lam=rate, **v) == pytest.approx(target)
    assert at(t.steady_concurrency(), lam=rate, **v) == pytest.approx(rate * 255 * target)
    assert at(t.goodput_rate_tpot(), theta=0.9 * stream, **v) < 0  # below the weights' stream time: no rate
    assert at(t.goodput_rate_compute(), **v) > 0
    # prefix caching: a 75% hit rate carries fewer prompt bytes, so the same target allows a higher rate
    assert at(t.goodput_rate_tpot(), theta=target, **{**v, "h_p": 0.75}) > rate
    # hand count of the compute ceiling: P / (255 (2 N_a + 4 L H_q d_h 2176) + 2 N_p 2048 + 2 L H_q d_h 2048^2 + 2 V d)
    f_r = (255 * (2 * 8.03e9 + 4 * 32 * 32 * 128 * 2176) + 2 * LLAMA8B_H100["N_p"] * 2048
           + 2 * 32 * 32 * 128 * 2048**2 + 2 * 128256 * 4096)
    assert at(t.goodput_rate_compute(), **v) == pytest.approx(989.4e12 / f_r)
    del lam, theta


@pytest.mark.parametrize("stages", [1, 2])
def test_disaggregated_pools_balance(stages):
    """Balanced pools (DistServe, section 3): n_P k_pp / t_pr = (n_S - n_P) B / ((T_out - 1) t_s), so n_P = n_S t_pr B /
    (t_pr B + k_pp (T_out - 1) t_s); by hand 16 x 32 / (32 + 10.22) = 12.13 GPUs for whole replicas, 16 x 32 /
    (32 + 20.44) = 9.76 for prefill instances of two pipeline stages (a prompt admitted every t_pr / 2, section 3.1)."""
    v = {"B": 128, "t_pr": 0.25, "t_s": 0.02, "T_out": 512, "n_S": 16, "k_pp": stages}
    n_p = at(t.balanced_prefill_gpus(), **v)
    assert n_p == pytest.approx(16 * 32 / (32 + stages * 511 * 0.02), rel=1e-12)
    assert n_p == pytest.approx({1: 12.127, 2: 9.7635}[stages], abs=1e-3)
    assert at(t.prefill_pool_rate(), n_P=n_p, **v) == pytest.approx(at(t.decode_pool_rate(), n_D=16 - n_p, **v))
    assert at(t.prefill_pool_rate(), n_P=1, **v) == pytest.approx(stages / 0.25)
    # 32k tokens of 128 KiB over a 50 GB/s link: 85.9 ms
    assert at(t.kv_transfer_time(), T_in=32768, W_kv=50e9) == pytest.approx(32768 * 131072 / 50e9)


def test_shared_prefixes_fit_more_sequences():
    """No hit rate: the seeds' capacity batch (C - N b) / (S c); a shared half of the prompt held once: more."""
    plain = at(t.prefix_capacity_batch(), S=8192, h_p=0.0, T_in=4096, M_d=0, c_d=0)  # no draft model
    assert math.floor(plain) == 65  # seed 003's 65 sequences at 8k
    assert at(t.prefix_capacity_batch(), S=8192, h_p=0.5, T_in=4096, M_d=0, c_d=0) > 1.3 * plain


def test_the_prompts_of_one_stall_follow_the_generalized_poisson_law():
    """The tail without chunked prefill (formulas/techniques.py): vLLM v0 prefills every waiting prompt before the
    next round, so the prompts K prefilled in one gap are a busy period of a queue with constant service t_p started
    by the Poisson(lam t_r) prompts of the round.  Given n to start, K is Borel-Tanner (Tanner, Biometrika 48, 1961);
    mixed over the Poisson start it is the generalized Poisson law a (a + rho k)^(k-1) e^(-a - rho k) / k! (Consul
    and Jain, Technometrics 15, 1973), a = lam t_r, rho = lam t_p.  Checked: the closed form against the mixture, its
    total and mean a / (1 - rho), the report's float form, and Kendall's identity over two prompt lengths by hand."""
    from genreport.model.techniques import stall_pmf, stall_quantile, stall_share_mixed

    lam, t_r, t_p = 4.0, 0.012, 0.08
    a, rho = lam * t_r, lam * t_p
    pmf = t.stall_prompts_pmf()
    k, n = sym("k_s"), sp.Symbol("n")
    given = t.stall_prompts_given(n)
    values = {sym("lam"): lam, sym("t_r"): t_r, sym("t_p"): t_p}
    for kv in range(1, 7):  # P(K = k) = sum_n Poisson(a)(n) BorelTanner(k | n); no start (n = 0) gives K = 0
        mixed = sum(math.exp(-a) * a**nv / math.factorial(nv) * float(given.subs({**values, n: nv, k: kv}))
                    for nv in range(1, kv + 1))
        closed = float(pmf.subs({**values, k: kv}))
        assert closed == pytest.approx(mixed, rel=1e-12) and stall_pmf(kv, a, rho) == pytest.approx(closed, rel=1e-12)
    assert float(pmf.subs({**values, k: 0})) == pytest.approx(math.exp(-a), rel=1e-12) == stall_pmf(0, a, rho)
    probs = [stall_pmf(kv, a, rho) for kv in range(400)]
    assert sum(probs) == pytest.approx(1.0, abs=1e-12)
    assert sum(kv * p for kv, p in enumerate(probs)) == pytest.approx(a / (1 - rho), rel=1e-9)
    # the P99 gap: e^(-a) = 0.953 < 0.99; with one prefill 0.953 + 0.048 e^(-0.368) = 0.986; two, + 0.048 (0.688)
    # e^(-0.688) / 2 = 0.995: two prefills
    assert stall_pmf(1, a, rho) == pytest.approx(0.048 * math.exp(-0.368), rel=1e-12)
    assert stall_pmf(2, a, rho) == pytest.approx(0.048 * 0.688 * math.exp(-0.688) / 2, rel=1e-12)
    assert stall_quantile(a, rho) == 2.0 and stall_quantile(0.005, rho) == 0.0  # e^(-0.005) = 0.995 >= 0.99
    assert stall_quantile(a, 1.0) == math.inf  # the prefills alone take all the time
    # one length through Kendall's identity is the same law
    for m in range(4):
        assert stall_share_mixed(lam, t_r, [t_p], [1.0], m * t_p, grid=t_p / 8) == pytest.approx(
            sum(probs[: m + 1]), rel=1e-12)
    # two lengths by hand (10 ms and 150 ms, 30% and 70%), a gap of 10 ms: none arrived (e^(-lam t_r)), or one short
    # one arrived and nothing during it: P(stall = y) = t_r / (t_r + y) P(A(t_r + y) = y), one short prompt in
    # t_r + y = 22 ms and no long one, t_r / 0.022 x (lam 0.3 x 0.022) e^(-lam 0.022)
    by_hand = math.exp(-lam * t_r) + t_r * lam * 0.3 * math.exp(-lam * (t_r + 0.010))
    assert stall_share_mixed(lam, t_r, [0.010, 0.150], [0.3, 0.7], 0.0105, grid=1e-3) == pytest.approx(by_hand,
                                                                                                        rel=1e-12)


def test_the_stall_free_rate_solves_its_balance():
    """Where no whole prefill fits a gap (m_s = 0), the P-q_p time between tokens meets the target while
    e^(-lam t_r(lam)) >= q_p: the closed form of ``stall_free_rate`` gives lam t_r(lam) = -ln q_p, t_r the round alone
    (``unchunked_round_time``, t_u (1 - lam t_p)).  Llama 3.1 8B on H100, 4k prompts, 512 outputs, t_p 70 ms: by hand
    t_r = N b (1 - lam t_p) / (W (1 - lam t_p) - lam 511 (4,096 + 256) c)."""
    v = {"T_in": 4096, "T_out": 512, "t_p": 0.07, "q_p": 0.99}
    lam = at(t.stall_free_rate(), **v)
    nb, c, w = 8.03e9 * 2, 131072.0, 3.35e12
    t_r = nb * (1 - lam * 0.07) / (w * (1 - lam * 0.07) - lam * 511 * 4352 * c)
    assert at(t.unchunked_round_time(), lam=lam, **v) == pytest.approx(t_r, rel=1e-12)
    assert lam * t_r == pytest.approx(-math.log(0.99), rel=1e-12)
    assert 0 < lam < at(t.unchunked_rate_memory(), **v)  # the smaller root, where the rounds still fit
    assert at(t.unchunked_round_time(), lam=0.0, **v) == pytest.approx(nb / w, rel=1e-12)  # no arrivals
    # the m_s of a gap: (50 ms - 4.8 ms) / 70 ms holds no whole prefill
    assert float(t.stall_gap_prompts().subs({sym("theta"): 0.05, sym("t_r"): 0.0048, sym("t_p"): 0.07})) == 0
    # chunked prefill: the share of steps with a chunk, lam T_in t_s / C_p (Little's law over the prompt tokens)
    assert at(t.chunk_step_share(), lam=2.0, t_s=0.01, C_p=512, h_p=0.0, **v) == pytest.approx(2 * 4096 * 0.01 / 512)


def test_the_mean_ttft_with_the_prefills_queued_first():
    """``unchunked_ttft``: (t_r + t_p) / 2 + t_p / (2 (1 - lam t_p)), the mean over the branching steps of a stall
    (S_1 ~ Poisson(lam t_r), S_(i+1) ~ Poisson(lam t_p S_i)) weighted by their time.  By hand at lam 5/s, t_r 20 ms,
    t_p 60 ms: a = 0.1, rho = 0.3, the cycle 0.02 + 0.06 x 0.1 / 0.7 = 28.571 ms, sum E[S_i^2] = (0.1 + 0.01 +
    0.03 / 0.7) / 0.91 = 0.16797; (0.02 (0.01 + 0.06 x 1.05) + 0.0036 x 0.1 / 0.7 + 1.3 x 0.0036 x 0.16797 / 2) /
    0.028571 = 82.857 ms (a simulation of the scheduler, 100,000 prompts, gave 82.88 ms)."""
    v = {sym("lam"): 5.0, sym("t_r"): 0.02, sym("t_p"): 0.06}
    got = float(t.unchunked_ttft().subs(v))
    squares = (0.1 + 0.01 + 0.03 / 0.7) / 0.91
    by_hand = (0.02 * (0.01 + 0.06 * 1.05) + 0.0036 * 0.1 / 0.7 + 1.3 * 0.0036 * squares / 2) / (0.02 + 0.006 / 0.7)
    assert got == pytest.approx(by_hand, rel=1e-12) == pytest.approx(0.082857, abs=1e-6)
    assert got == pytest.approx((0.02 + 0.06) / 2 + 0.06 / (2 * 0.7), rel=1e-12)
    assert float(t.unchunked_ttft().subs({**v, sym("lam"): 0})) == pytest.approx(0.01 + 0.06)  # t_r / 2 + t_p


def test_the_ttft_tail_erlang_and_the_transform():
    """The TTFT tail (formulas/techniques.py, "the tail: P90 TTFT").  Erlang's M/D/1 waiting time (Erlang 1909,
    Crommelin 1932) by hand at lam 5/s, t_p 60 ms (rho 0.3), a wait of 100 ms (floor(0.1 / 0.06) = 1: two terms):
    0.7 (e^0.5 - 0.2 e^0.2) = 0.98311.  The Pollaczek-Khinchine transform with the round's residual (Fuhrmann and
    Cooper 1985) gives the mean t_p + lam t_p^2 / (2 (1 - rho)) + t_r / 2, which is ``unchunked_ttft`` (derived from
    the branching steps of a stall) exactly.  The numerical inversion (genreport.model.techniques ``ttft_law``, every
    length rounded down to a grid of t_p / 64) never passes the exact share and stays within 1% of it; its mean
    is within a grid step of the closed form; and a simulation of the prefills-first scheduler (vLLM v0: the waiting
    prompts prefilled one at a time, first come first served, a round of t_r whenever none waits; 40,000 prompts)
    lands within 3% of its P90 (by the run below: 203.4 ms simulated, 202.5 ms from the transform)."""
    import numpy as np
    from genreport.model.techniques import ttft_law, ttft_quantile

    lam, t_p, t_r = sym("lam"), sym("t_p"), sym("t_r")
    share = float(t.prefill_wait_share(sp.Rational(1, 10)).subs({lam: 5, t_p: sp.Rational(3, 50)}).doit())
    by_hand = 0.7 * (math.exp(0.5) - 0.2 * math.exp(0.2))
    assert share == pytest.approx(by_hand, rel=1e-12) == pytest.approx(0.98311, abs=1e-5)
    assert sp.cancel(t.queued_ttft_mean() - t.unchunked_ttft()) == 0
    assert sp.cancel(t.queued_ttft_mean(vacation=0) - (t_p + lam * t_p**2 / (2 * (1 - lam * t_p)))) == 0
    grid, cdf = ttft_law(5.0, 0.06, 0.0)
    assert grid == pytest.approx(0.06 / 64) and cdf[int(round(0.1 / grid))] >= share - 1e-12
    assert cdf[int(round(0.1 / grid))] == pytest.approx(share, abs=0.01)
    for rho in (0.3, 0.9):  # the mean of the inverted law against the closed form
        grid, cdf = ttft_law(rho / 0.06, 0.06, 0.036)
        mean = 0.06 + grid * float(np.sum(1 - cdf[:-1]))
        closed = float(t.queued_ttft_mean().subs({lam: rho / 0.06, t_p: 0.06, t_r: 0.036}))
        assert closed - grid * (1 + rho / (1 - rho)) <= mean <= closed + 1e-9
    # the scheduler, simulated: prefills first, one prompt at a time, rounds of 36 ms whenever none waits (rho 0.6)
    rng = np.random.default_rng(30)
    arrive = np.cumsum(rng.exponential(0.06 / 0.6, 40_000))
    now, ttft = 0.0, []
    for x in arrive:
        if x > now:  # the server was on its rounds: it comes back at the end of the round in progress
            now += math.ceil((x - now) / 0.036) * 0.036
        now += 0.06
        ttft.append(now - x)
    simulated = float(np.quantile(ttft, 0.9))
    assert simulated == pytest.approx(ttft_quantile(0.6 / 0.06, 0.06, 0.036), rel=0.03)
    assert ttft_quantile(0.6 / 0.06, 0.06, 0.036) == pytest.approx(0.2025, abs=5e-4)
    assert ttft_quantile(1 / 0.06, 0.06, 0.036) == math.inf  # rho 1: the queue grows without end


def test_the_prompt_spread_m_g_1_queue_and_its_limits():
    """The spread of prompts (formulas/techniques.py, "the spread of prompts"; genreport.model.techniques
    ``ttft_law_mixed``, ``tpot_share``).  Limits: one length and one stage give ``ttft_law``'s law exactly; a
    pipeline of 2 stages is the M/D/1 queue of t_p / 2 plus the prompt's whole t_p; the Pollaczek-Khinchine mean at
    c_v = 0 is ``queued_ttft_mean`` and, with two stages and no vacation, DistServe's D + R D^2 / (4 (2 - R D))
    (Zhong et al., OSDI 2024, section 3.1), by hand 0.06 + 10 x 0.0036 / (4 x 1.4) = 66.43 ms at R 10/s, D 60 ms.
    Two lengths by hand: prefills of 20 and 100 ms, equally likely, at 8 prompts/s: E[t] 60 ms, E[t^2] 0.0052 s^2,
    rho 0.48, so the mean TTFT 0.06 + 8 x 0.0052 / (2 x 0.52) = 100 ms exactly; the inverted law's mean is within
    its grid rounding of it, and a simulation (first come first served, 40,000 prompts) lands within 3% of its P90.
    The TPOT share with one length is the central limit of the generalized Poisson gaps the DistServe test takes
    (variance a t_p^2 / (1 - rho)^3 a gap: ``stall_gap_variance`` at c_v = 0)."""
    from statistics import NormalDist

    import numpy as np
    from genreport.model.techniques import (
        tpot_share,
        ttft_law,
        ttft_law_mixed,
        ttft_quantile,
        ttft_quantile_mixed,
        ttft_share_mixed,
    )

    lam, t_p, t_r = sym("lam"), sym("t_p"), sym("t_r")
    # the closed forms' limits
    assert sp.cancel(t.queued_ttft_mean_spread(1).subs(t.c_v, 0) - t.queued_ttft_mean()) == 0
    distserve = t_p + lam * t_p**2 / (4 * (2 - lam * t_p))
    assert sp.cancel(t.queued_ttft_mean_spread(2, 0).subs(t.c_v, 0) - distserve) == 0
    assert float(distserve.subs({lam: 10, t_p: 0.06})) == pytest.approx(0.06 + 0.036 / 5.6, rel=1e-12)
    assert float(distserve.subs({lam: 10, t_p: 0.06})) == pytest.approx(0.06643, abs=1e-5)
    a, rho = lam * t_r, lam * t_p
    assert sp.cancel(t.stall_gap_variance().subs(t.c_v, 0) - a * t_p**2 / (1 - rho) ** 3) == 0
    # one length, one stage: ttft_law's law and quantile exactly; two stages: the M/D/1 of t_p / 2 and the whole t_p
    for x, v in ((5.0, 0.0), (10.0, 0.036)):
        grid, offset, cdf = ttft_law_mixed(x, [0.06], [1.0], v)
        assert offset == 0.06 and np.array_equal(cdf, ttft_law(x, 0.06, v)[1])
        assert ttft_quantile_mixed(x, [0.06], [1.0], v) == ttft_quantile(x, 0.06, v)
    assert ttft_quantile_mixed(20.0, [0.06], [1.0], 0.0, stages=2) == pytest.approx(
        ttft_quantile(20.0, 0.03, 0.0) + 0.03, rel=1e-12)
    assert ttft_quantile_mixed(1 / 0.06, [0.06], [1.0], 0.0) == math.inf  # rho 1
    # two lengths by hand
    mean_hand = 0.06 + 8 * 0.0052 / (2 * 0.52)
    assert mean_hand == pytest.approx(0.100, rel=1e-12)
    c2 = 0.0052 / 0.06**2 - 1
    assert float(t.queued_ttft_mean_spread(1, 0).subs({lam: 8, t_p: 0.06, t.c_v: math.sqrt(c2)})) == pytest.approx(
        mean_hand, rel=1e-12)
    grid, offset, cdf = ttft_law_mixed(8.0, [0.02, 0.1], [0.5, 0.5], 0.0)
    mean = offset + grid * float(np.sum(1 - cdf[:-1]))
    assert mean_hand - grid * (2 + 0.48 / 0.52) <= mean <= mean_hand + 1e-9  # every length rounded down
    rng = np.random.default_rng(30)
    arrive = np.cumsum(rng.exponential(1 / 8.0, 40_000))
    service = rng.choice([0.02, 0.1], 40_000)
    now, ttft = 0.0, np.empty(40_000)
    for i, (x, s) in enumerate(zip(arrive, service, strict=True)):
        now = max(now, x) + s
        ttft[i] = now - x
    assert float(np.quantile(ttft, 0.9)) == pytest.approx(ttft_quantile_mixed(8.0, [0.02, 0.1], [0.5, 0.5], 0.0),
                                                          rel=0.03)
    share = ttft_share_mixed(8.0, [0.02, 0.1], [0.5, 0.5], 0.0, 0.2)
    assert share == pytest.approx(float(np.mean(ttft <= 0.2)), abs=0.01)
    # the TPOT share with one length: the generalized Poisson gaps' central limit
    x, tr, tp, gaps = 6.0, 0.036, 0.061, 199
    sd = tp * math.sqrt(x * tr / (1 - x * tp) ** 3 / gaps)
    assert tpot_share(x, tr, [tp], [1.0], gaps, 0.08) == pytest.approx(NormalDist(tr / (1 - x * tp), sd).cdf(0.08),
                                                                       rel=1e-12)


def test_the_prompt_spread_in_the_serving_chapter():
    """``serving.prompt_spread: sharegpt`` (genreport.model.techniques.PROMPT_SPREADS: the ShareGPT chat trace's ten
    tenths over their mean, Sarathi-Serve's sharegpt_8k trace) on the 70B at tp 8 (4k prompts, 512 outputs, TTFT 2 s,
    TPOT 50 ms): ten prompt lengths whose mean is the spec's 4,096 tokens, 58 to 11,569 tokens (4,096 x 33 / 2,339.9
    and x 6,609 / 2,339.9); the queue's t_p is the mean of their prefills (76.3 ms, longer than the 4k prompt's
    73.7 ms: attention grows with the square of the length).  Without chunks the P99 capacity rises from 1.80 to 3.21
    requests/s: every 4k prefill (73.7 ms) passes the 50 ms target in a gap, while the short half of the chat prompts
    fit one; the P90 TTFT at the curve's end rises from 287 to 506 ms (the long prompts queue everyone behind them).
    The stall law over one length is the generalized Poisson law's k t_p (within the grid)."""
    from genreport.model.techniques import PROMPT_SPREADS, stall_quantile, stall_quantile_mixed
    from shared import evaluated

    assert sum(PROMPT_SPREADS["sharegpt"]) / 10 == pytest.approx(1.0, rel=1e-12) and PROMPT_SPREADS["none"] == (1.0,)
    base = evaluated("llama70b-h100-tp8.yaml").serving["techniques"]["rates"]
    ra = evaluated("llama70b-h100-tp8.yaml", ("serving.prompt_spread=sharegpt",)).serving["techniques"]["rates"]
    assert "prompt_classes" not in base  # none: the one-length laws, as before
    classes = ra["prompt_classes"]
    assert sum(classes) / 10 == pytest.approx(4096, rel=1e-12)
    assert classes[0] == pytest.approx(4096 * 33 / 2339.9, rel=1e-12) and round(classes[-1]) == 11569
    assert ra["prefill_alone_time"] == pytest.approx(sum(ra["prefill_classes"]) / 10, rel=1e-12)
    assert base["prefill_alone_time"] == pytest.approx(0.0737, abs=1e-4) and ra["prefill_alone_time"] == \
        pytest.approx(0.0763, abs=1e-4)
    assert base["unchunked"]["p99_rate"] == pytest.approx(1.80, abs=0.01)
    assert ra["unchunked"]["p99_rate"] == pytest.approx(3.21, abs=0.01)
    # at the curves' ends, where the engine's 256 sequences run (0.287 and 0.506 at the caches' limit, before the
    # engine's max_sequences stopped them)
    assert base["unchunked"]["stops_at"] == ra["unchunked"]["stops_at"] == "engine"
    assert base["unchunked"]["ttft_p90"][-1] == pytest.approx(0.274, abs=1e-3)
    assert ra["unchunked"]["ttft_p90"][-1] == pytest.approx(0.482, abs=1e-3)
    # with chunks the tail is over the lengths too (review, stop 75: the mean prompt's step was taken, 1.80 requests/s as
    # with one length): the spec's 8,192-token budget holds a prompt of up to 8,192 - B tokens whole, so each length's
    # chunk makes a step of its own; the P99 is the step where the shares of the longest steps pass 1%
    ch = ra["chunked"]
    assert base["chunked"]["p99_rate"] == pytest.approx(1.80, abs=0.01)
    assert ch["p99_rate"] == pytest.approx(3.17, abs=0.01) and ch["p99_binds"] == "P99 TBT target"
    assert ch["p99_prompt"] == classes[5] and ch["p99_whole_prompt"] and not ch["p99_plain"]  # 3,606 tokens, whole
    r = evaluated("llama70b-h100-tp8.yaml", ("serving.prompt_spread=sharegpt",))
    from genreport.model.techniques import _eval, _inputs

    env = {**_inputs(r, 1.0, ra["mean_context"]), "S": ra["mean_context"]}
    for i in (20, 40, 63):
        lam, t_s, busy = ch["rate"][i], ch["tpot"][i], ch["running"][i]
        kinds = []
        for x in classes:
            part = min(8192 - busy, x)  # the budget beside the running sequences' decode tokens (one stage)
            step = _eval(r, "chunked_step_time", {**env, "lam": lam, "B": busy, "T_in": x, "C_p": part})
            kinds.append((step, lam / 10 * x * t_s / part))  # that length's prompt tokens a step over its chunk
        kinds.sort(reverse=True)
        scale, seen, tail = max(1.0, sum(k[1] for k in kinds)), 0.0, t_s
        for step, share in kinds:
            seen += share / scale
            if seen > 0.01:
                tail = step
                break
        assert ch["p99"][i] == pytest.approx(tail, rel=1e-9), i
    # the stall law over one length: k t_p of the generalized Poisson law, up to the grid (t_p / 32)
    for lam, t_r in ((2.0, 0.04), (8.0, 0.03)):
        one = stall_quantile(lam * t_r, lam * 0.0737) * 0.0737
        assert one - 0.0737 / 32 - 1e-12 <= stall_quantile_mixed(lam, t_r, [0.0737], [1.0]) <= one + 1e-12


def test_the_kv_cache_room_is_the_prefix_capacity_at_the_mean_context():
    """``goodput_rate_capacity`` solves lam (T_out - 1) t_s(lam) ((T_in + T_out / 2) (c_h + c_d) - h_p T_in (c_s +
    c_d)) = C - N b - M_d - h_p T_in (c_s + c_d) (SymPy's solution of that balance is its closed form; c_h the cache
    a sequence holds, while the step's bytes in t_s read c; c_s what its cached prefix still holds, c_h where every
    layer is global), so at its rate Little's law's running sequences are exactly those
    ``prefix_capacity_batch`` fits at the mean context T_in + T_out / 2: one counting of the caches, the shared
    prefix held once in both (PagedAttention, RadixAttention).  Llama 3.1 8B on an H100 (seed 003; full attention,
    so c_h = c = 128 KiB), 4k prompts, 512 outputs, half of each prompt shared: by hand the room (80 GiB - 16.06 GB -
    2,048 x 128 KiB) over (4,352 - 2,048) x 128 KiB per sequence is 230.4 sequences."""
    lam = sym("lam")
    v = {"T_in": 4096, "T_out": 512, "h_p": 0.5, "s_c": 8192, "C_p": 2048, "M_d": 0.0, "c_d": 0.0}
    kv, prefix = sym("c_h") + sym("c_d"), sym("h_p") * sym("T_in") * (sym("c_s") + sym("c_d"))
    balance = sp.Eq(lam * (sym("T_out") - 1) * t.steady_step_time() * (t.mean_decode_context() * kv - prefix),
                    sym("C") - sym("N") * sym("b") - sym("M_d") - prefix)
    (solved,) = sp.solve(balance, lam)
    assert sp.simplify(solved - t.goodput_rate_capacity()) == 0
    rate = at(t.goodput_rate_capacity(), **v)
    running = rate * 511 * at(t.steady_step_time(), lam=rate, **v)
    held = (80 * 2**30 - 8.03e9 * 2 - 2048 * 131072) / ((4352 - 2048) * 131072)
    assert held == pytest.approx(230.4, abs=0.05)
    assert running == pytest.approx(held, rel=1e-12)
    assert at(t.prefix_capacity_batch(), S=4352, **v) == pytest.approx(held, rel=1e-12)
    # no prefix shared: the whole mean context per sequence, as before
    assert at(t.goodput_rate_capacity(), **{**v, "h_p": 0.0}) < rate


def test_the_engines_max_sequences_is_a_ceiling_of_the_goodput():
    """``goodput_rate_engine`` solves lam (T_out - 1) t_s(lam) = M_s (Little's law's running sequences at the engine's
    max_sequences; SymPy's solution of that balance is its closed form), so at its rate M_s sequences decode at once.
    Llama 3.1 8B on an H100 (seed 003), 4k prompts, 512 outputs, M_s = 256 (vLLM's max_num_seqs): by hand
    lam = 256 W / (511 (N - N_e) b + 256 Q_r).  A review found the serving chapter's goodput of Qwen3-235B on 8 MI300X
    at 39 requests/s, set by the KV cache room, where 1,399 sequences would run and the engine runs 256 (23.0/s)."""
    lam = sym("lam")
    v = {"T_in": 4096, "T_out": 512, "h_p": 0.0, "s_c": 8192, "C_p": 4096, "M_s": 256.0}
    (solved,) = sp.solve(sp.Eq(t.steady_concurrency(), sym("M_s")), lam)
    assert sp.simplify(solved - t.goodput_rate_engine()) == 0
    rate = at(t.goodput_rate_engine(), **v)
    q_r = at(t.request_bytes(), **v)
    n_b = 8.03e9 * 2  # N b, N_e = 0 in seed accounting
    assert rate == pytest.approx(256 * 3.35e12 / (511 * n_b + 256 * q_r), rel=1e-12)
    assert rate * 511 * at(t.steady_step_time(), lam=rate, **v) == pytest.approx(256, rel=1e-12)


def test_the_chapter_and_the_rate_figure_stop_at_the_engines_max_sequences():
    """Qwen3-235B-A22B in fp8 on 8 MI300X (tp 8 x ep 8), 1k prompts and 1k outputs: the caches hold about 1,400
    sequences at the mean context, the engine runs 256, so the goodput is the engine's ceiling (its rate: 256 running
    at the steady step of the weights their tokens touch), the rate figure's curves stop there, and the chapter names
    it; an engine with no max_sequences (0) has no such ceiling and the KV cache room binds."""
    from genreport.model.techniques import capacity_weights
    from shared import evaluated_text, page, spec_file

    text = ("kind: report\nname: q235\ntitle: t\nhardware: mi300x\nmodel: qwen3-235b-a22b\nprecision: fp8\n"
            "parallelism: {tp: 8, ep: 8}\nworkloads:\n  decode: {batch: [1, 32], context: [2k]}\n"
            "serving:\n  prompt: 1k\n  output: 1k\n  tpot: 50 ms\n  users: 128\n")
    r = evaluated_text(text, "q235.yaml")
    tech = r.serving["techniques"]
    n = tech["numbers"]
    assert n["max_sequences"] == 256 and n["goodput_binds"] == "engine's max_sequences"
    assert n["goodput_rate"] == n["goodput_rate_engine"] < n["goodput_rate_capacity"] / 1.5
    w = tech["engine_weights"]
    assert w == {k: capacity_weights(r.envs[r.lead], w, r.spec.serving, 256.0)[k] for k in w}  # a fixed point
    for kind in ("chunked", "unchunked"):
        curve = tech["rates"][kind]
        assert curve["stops_at"] == "engine", kind
        assert curve["running"][-1] == pytest.approx(256, rel=1e-6), kind
    words = " ".join(page(spec_file(text, "q235.yaml")).split())  # no figure drawn: the words are the test's
    assert "and the engine's max_sequences (" in words and "is the least of the five:" in words
    free = evaluated_text(text + "engine: {max_sequences: 0}\n", "q235free.yaml").serving["techniques"]["numbers"]
    assert "goodput_rate_engine" not in free and "max_sequences" not in free
    assert free["goodput_rate"] == min(free[k] for k in ("goodput_rate_tpot", "goodput_rate_compute",
                                                         "goodput_rate_capacity", "chunk_budget_rate"))
    assert free["goodput_rate"] > n["goodput_rate"]  # the chunk budget binds next, 3.4x the engine's rate


def test_the_chunked_row_says_its_chunks_carry_what_the_prefix_cache_leaves():
    """With a prefix cache the chunks carry only the prompt's uncached part, so the chunked-prefill row's TTFT takes
    the prefix cache's hit as well (gpt-oss-120b with 30% cached read "6.69 ms -> 5.42 ms" under chunked prefill, a
    gain that is the prefix cache's): the setting says so; without a prefix cache it says nothing of it."""
    from shared import evaluated

    def chunked(overrides):
        r = evaluated("llama70b-h100-tp8.yaml", overrides)
        return next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "chunked prefill")

    row = chunked(["serving.prefix_hit=0.3"])
    assert row["setting"].endswith(", of the 70% of the prompt the prefix cache leaves (its TTFT, before and after, is that part's, as the rows')")
    assert "prefix cache" not in chunked(["serving.prefix_hit=0"])["setting"]


def test_a_chunks_prompt_tokens_pass_the_layouts_links():
    """Qwen3-235B-A22B in fp8 on 8 MI300X (tp 8 x ep 8), 4k prompts at batch 256: a step with a 4,096-token chunk
    all-reduces its 4,352 tokens over the mesh (prefill_time_comm at T = B + C_p), longer than its ledgers on one GPU,
    so the decode users pay that step, not the GPU's ledgers alone (a review: "TPOT 11.5 ms -> 11.5 ms" where page 1
    said the 4k prefill is interconnect-bound, 24.8 ms of all-reduces).  The row's cost is max(t_mix, links(B + C_p))
    / max(t_dec, links(B)); one GPU has no links and keeps t_mix / t_dec."""
    from genreport.model.layout import point_values
    from genreport.model.techniques import _step_links
    from shared import evaluated, evaluated_text

    text = ("kind: report\nname: q235c\ntitle: t\nhardware: mi300x\nmodel: qwen3-235b-a22b\nprecision: fp8\n"
            "parallelism: {tp: 8, ep: 8}\nworkloads:\n  decode: {batch: [1, 256], context: [2k]}\n"
            "serving:\n  prompt: 4k\n  output: 1k\n  tpot: 50 ms\n  users: 256\n")
    r = evaluated_text(text, "q235c.yaml")
    tech = r.serving["techniques"]
    n = tech["numbers"]
    row = next(x for x in tech["rows"] if x["technique"] == "chunked prefill")
    batch, chunk = tech["batch"], n["chunk_tokens"]
    v = point_values(r.spec, r.lead, "prefill_time_comm", tokens=float(batch + chunk))
    assert n["chunked_step_links"] == pytest.approx(float(r.q["prefill_time_comm"](v)), rel=1e-12)
    assert n["chunked_step_links"] > n["chunked_step_time"]  # the links hold the mixed step
    assert row["tpot"][1] == pytest.approx(row["tpot"][0] * n["chunked_cost"], rel=1e-12)
    assert row["tpot"][1] >= n["chunked_step_links"] * (1 - 1e-9)  # no chunked step beats its own collectives
    assert "its collectives over the links take at least" in row["ends"]
    one = evaluated("llama8b-h100.yaml")
    assert _step_links(one, 4096.0) == 0.0


def test_a_prefix_a_window_has_passed_is_not_shared():
    """Gemma 3 27B in fp8 on one L40S, fp8 cache, 16k prompts 90% cached, 512 out (stop 89's review, by hand): at the
    last context 16,895 its 10 global layers hold the whole 14,745.6-token prefix (40,960 B a prefix token), its 52
    windowed layers their last 1,024 positions, all past the prefix.  The room 44.884e9 - 27.009e9 B less the prefix
    once, 14,745.6 x 40,960 B, over each sequence's own bytes, 16,895 x 53,869.4 - 14,745.6 x 40,960 (its global
    suffix 2,149.4 x 40,960 and 52 x 1,024 x 4,096 of windows): 56 sequences, where sharing every layer's prefix
    counted 147.  With every layer global c_s = c and the count is the old (S - h T) (c + c_d) one."""
    from genreport.formulas import architecture as arch
    from genreport.load.loader import load_model
    from shared import SPECS

    m = load_model(SPECS / "models" / "gemma-3-27b.yaml")
    prefix, last = 16384 * 0.9, 16384 + 512 - 1
    assert arch.kv_prefix_positions_held(m, last, prefix) == pytest.approx(10 * prefix, rel=1e-12)
    assert arch.kv_prefix_positions_held(m, 15000.0, prefix) == pytest.approx(10 * prefix + 52 * (prefix - 13976))
    assert arch.kv_positions_held(m, last) == 10 * last + 52 * 1024
    c = 4096 * (10 * last + 52 * 1024) / last  # fp8: 2 x 16 KV heads x 128 x 1 B = 4,096 B a layer and position
    c_s = 4096 * 10
    v = {"C": 44.884e9, "N": 27.009e9, "b": 1.0, "M_d": 0.0, "c_d": 0.0, "S": last, "T_in": 16384, "h_p": 0.9,
         "c": c, "c_s": c_s}
    by_hand = (44.884e9 - 27.009e9 - prefix * 40960) / (last * 4096 * (10 * last + 52 * 1024) / last - prefix * 40960)
    assert at(t.prefix_capacity_batch(), **v) == pytest.approx(by_hand, rel=1e-12)
    assert math.floor(by_hand) == 56
    assert math.floor(at(t.prefix_capacity_batch(), **{**v, "c_s": c})) == 147  # every layer's prefix shared
    full = {**v, "c_s": v["c"]}
    old = (44.884e9 - 27.009e9 - prefix * c) / ((last - prefix) * c)
    assert at(t.prefix_capacity_batch(), **full) == pytest.approx(old, rel=1e-12)
