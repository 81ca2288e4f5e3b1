"""Properties of the roofline quantities over random but valid models and GPUs (hypothesis).

The environments are built like :func:`genreport.model.evaluate.make_env` builds them (glossary symbol -> SI
value) and every number comes from the compiled quantities of :mod:`formulas.compiled`, the same
functions the reports use.  Activation traffic ``a`` is 0 (the seeds' convention) unless a test says
otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from genreport.formulas.compiled import load
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from shared import ROOT

Q = load()
REL = 1e-9
SETTINGS = settings(max_examples=75, deadline=None, derandomize=True)


def val(qid: str, env: dict, **point) -> float:
    """A compiled quantity at ``env`` updated with ``point``, in IEEE arithmetic (x/0 -> inf, not an error)."""
    args = {k: np.float64(v) for k, v in {**env, **point}.items()}
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(Q[qid](args))


@st.composite
def gpus(draw) -> dict:
    return {
        "P": draw(st.floats(1e13, 1e16)),  # FLOP/s
        "W": draw(st.floats(1e11, 2e13)),  # B/s
        "C": draw(st.floats(8e9, 5e11)),  # B
    }


@st.composite
def models(draw, a_zero: bool = True) -> dict:
    H_kv = draw(st.sampled_from([1, 2, 4, 8, 16, 32]))
    G = draw(st.sampled_from([1, 2, 4, 8, 16]))
    d_h = draw(st.sampled_from([64, 80, 96, 128, 192, 256]))
    H_q = H_kv * G
    L = draw(st.integers(1, 160))
    N = draw(st.floats(1e8, 2e12))
    N_e = draw(st.floats(0.0, 0.3)) * N  # not streamed (input embedding)
    N_a = draw(st.floats(0.02, 1.0)) * (N - N_e)  # arithmetic parameters (MoE: a fraction)
    env = {
        "N": N, "N_a": N_a, "N_e": N_e, "L": float(L), "H_q": float(H_q), "H_kv": float(H_kv), "d_h": float(d_h),
        "d": float(H_q * d_h), "d_ff": float(4 * H_q * d_h), "V": 32000.0, "G": float(G),
        "b": draw(st.sampled_from([0.5, 0.5625, 1.0, 2.0, 4.0])),
        "b_kv": draw(st.sampled_from([1.0, 2.0])),
        "a": 0.0 if a_zero else draw(st.floats(0.0, 1e7)),
    }
    env["c"] = val("kv_bytes_per_token", env)
    return env


def envs(a_zero: bool = True):
    return st.builds(lambda g, m: {**g, **m}, gpus(), models(a_zero))


batches = st.integers(1, 65536).map(float)
contexts = st.integers(1, 1 << 20).map(float)


@SETTINGS
@given(envs(a_zero=False), batches, contexts)
def test_step_time_bound_is_at_least_each_lower_bound(env, B, S):
    t_mem = val("decode_time_memory", env, B=B, S=S)
    t_comp = val("decode_time_compute", env, B=B, S=S)
    bound = B / val("decode_tokens_per_s", env, B=B, S=S)
    assert bound >= t_mem * (1 - REL) and bound >= t_comp * (1 - REL)
    assert bound == pytest.approx(max(t_mem, t_comp), rel=REL)


@SETTINGS
@given(envs(a_zero=False), batches, batches, contexts)
def test_decode_intensity_rises_with_batch_below_its_ceiling(env, B1, B2, S):
    lo, hi = sorted((B1, B2))
    i_lo = val("decode_intensity", env, B=lo, S=S)
    i_hi = val("decode_intensity", env, B=hi, S=S)
    ceiling = val("decode_intensity_ceiling", env, S=S)
    assert i_lo <= i_hi * (1 + REL)
    assert i_hi <= ceiling * (1 + REL)


@SETTINGS
@given(envs(a_zero=False), st.sampled_from([0.5, 0.5625, 1.0, 2.0]), batches, contexts)
def test_weight_only_quantisation_never_raises_the_memory_bound(env, b_small, B, S):
    assume(b_small <= env["b"])
    small = {**env, "b": b_small}  # weights only: the KV cache (b_kv, c) is unchanged
    assert val("decode_time_memory", small, B=B, S=S) <= val("decode_time_memory", env, B=B, S=S) * (1 + REL)
    assert val("weight_stream_time", small) <= val("weight_stream_time", env) * (1 + REL)
    assert val("decode_intensity", small, B=B, S=S) >= val("decode_intensity", env, B=B, S=S) * (1 - REL)


@SETTINGS
@given(envs(), contexts, contexts)
def test_ceiling_falls_as_context_grows(env, S1, S2):
    lo, hi = sorted((S1, S2))
    assert val("decode_intensity_ceiling", env, S=hi) <= val("decode_intensity_ceiling", env, S=lo) * (1 + REL)


@SETTINGS
@given(envs(), contexts)
def test_crossover_batch_puts_the_intensity_at_the_ridge(env, S):
    ridge = val("ridge_point", env)
    ceiling = val("decode_intensity_ceiling", env, S=S)
    assume(abs(ceiling / ridge - 1) > 1e-6)  # at the ceiling itself the root runs off to infinity
    b_star = val("crossover_batch", env, S=S)
    exists = math.isfinite(b_star) and b_star > 0
    assert exists == (ceiling > ridge)  # the ridge is reachable only below the critical context
    if exists:
        assert val("decode_intensity", env, B=b_star, S=S) == pytest.approx(ridge, rel=1e-6)


@SETTINGS
@given(envs())
def test_critical_context_solves_ceiling_equals_ridge(env):
    ridge = val("ridge_point", env)
    s_star = val("critical_context", env)
    if math.isfinite(s_star) and s_star > 0:
        assert val("decode_intensity_ceiling", env, S=s_star) == pytest.approx(ridge, rel=1e-6)
        # shorter contexts have a ceiling above the ridge, longer ones below
        assert val("decode_intensity_ceiling", env, S=s_star / 2) > ridge
        assert val("decode_intensity_ceiling", env, S=s_star * 2) < ridge
    else:  # attention alone out-intensifies the ridge: the ceiling never falls to it
        assert val("decode_intensity_ceiling", env, S=float(1 << 30)) > ridge * (1 - 1e-6)


@SETTINGS
@given(st.integers(1, 1 << 17).map(float), st.integers(1, 1 << 17).map(float), st.integers(1, 1 << 20).map(float),
       st.sampled_from([0.5, 1.0, 2.0, 4.0]))
def test_gemm_intensity_is_below_weight_reuse_and_saturation(n, m, T, b):
    env = {"n": n, "m": m, "T": T, "b": b}
    full = val("gemm_intensity", env)
    assert full < val("weight_reuse_intensity", env)
    assert full < val("gemm_saturation", env)
    assert val("weight_reuse_intensity", env) == pytest.approx(2 * T / b, rel=REL)  # n and m cancel


@SETTINGS
@given(gpus(), st.integers(1, 1 << 17).map(float), st.integers(1, 1 << 17).map(float),
       st.sampled_from([0.5, 1.0, 2.0, 4.0]))
def test_gemm_crossover_reaches_the_ridge(gpu, n, m, b):
    env = {**gpu, "n": n, "m": m, "b": b}
    ridge = val("ridge_point", env)
    sat = val("gemm_saturation", env)
    assume(abs(sat / ridge - 1) > 1e-6)
    t_star = val("gemm_crossover_tokens", env)
    exists = math.isfinite(t_star) and t_star > 0
    assert exists == (sat > ridge)
    if exists:
        assert val("gemm_intensity", env, T=t_star) == pytest.approx(ridge, rel=1e-6)


def test_vectorised_evaluation_matches_pointwise():
    """The grids of evaluate() broadcast batch x context; the compiled functions must agree point by point."""
    env = {"P": 989.4e12, "W": 3.35e12, "C": 80 * 2**30, "N": 8.03e9, "N_a": 8.03e9, "N_e": 0.0, "L": 32.0,
           "H_q": 32.0, "H_kv": 8.0, "d_h": 128.0, "b": 2.0, "b_kv": 2.0, "a": 0.0, "c": 131072.0}
    B = np.array([1.0, 64.0, 4096.0])[:, None]
    S = np.array([128.0, 8192.0])[None, :]
    grid = Q["decode_intensity"]({**env, "B": B, "S": S})
    for i in range(3):
        for j in range(2):
            assert grid[i, j] == pytest.approx(val("decode_intensity", env, B=B[i, 0], S=S[0, j]), rel=REL)


def test_evaluate_survives_a_ridge_equal_to_the_attention_intensity():

    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    spec = ROOT / "specs" / "llama8b-h100.yaml"
    # Llama 3.1 8B bf16: I_KV = G = 4 FLOP/B (seed 003 section 3); 989.4 TFLOP/s / 247.35 TB/s = 4 FLOP/B
    r = evaluate(load_report(spec, overrides=["hardware.memory.bandwidth=247.35 TB/s"]))
    assert r.scalars["seed"]["critical_context"] is None
