"""Properties of the many-GPU quantities (hypothesis): one GPU is the single-card report, bit for bit.

Formula level: random but valid models, GPUs and links, through the compiled quantities the reports use.
Spec level: catalog models and precisions through the loader and the evaluate stage, with
``parallelism: {tp: 1, pp: 1, ep: 1, dp: 1}`` against the same spec without the block.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from genreport.formulas.compiled import load
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.model.layout import fastest_schedule
from hypothesis import assume, given, settings
from hypothesis import strategies as st

Q = load()
SETTINGS = settings(max_examples=75, deadline=None, derandomize=True)


def val(qid: str, env: dict) -> float:
    args = {k: np.float64(v) for k, v in env.items()}
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(Q[qid](args))


@st.composite
def setups(draw, single: bool) -> dict:
    H_kv = draw(st.sampled_from([1, 2, 4, 8, 16]))
    G = draw(st.sampled_from([1, 2, 4, 8]))
    d_h = draw(st.sampled_from([64, 128, 256]))
    H_q = H_kv * G
    L = draw(st.integers(1, 160))
    N = draw(st.floats(1e8, 2e12))
    N_e = draw(st.floats(0.0, 0.3)) * N
    moe = draw(st.booleans())
    N_x = draw(st.floats(0.1, 0.9)) * (N - N_e) if moe else 0.0
    N_a = draw(st.floats(0.02, 1.0)) * (N - N_e)
    b_kv = draw(st.sampled_from([1.0, 2.0]))
    env = {
        "P": draw(st.floats(1e13, 1e16)), "W": draw(st.floats(1e11, 2e13)), "C": draw(st.floats(8e9, 5e11)),
        "N": N, "N_a": N_a, "N_e": N_e, "N_x": N_x, "L": float(L), "L_x": float(L) if moe else 0.0,
        "k_e": float(draw(st.sampled_from([1, 2, 8]))) if moe else 0.0,
        "E_x": float(draw(st.sampled_from([8, 16, 128, 256]))) if moe else 1.0,  # routed experts a layer (1: dense)
        "H_q": float(H_q), "H_kv": float(H_kv), "d_h": float(d_h), "d": float(H_q * d_h), "V": 32000.0,
        "N_p": N_a - 2 * 32000.0 * H_q * d_h,  # the blocks: active parameters without embedding and head
        "b": draw(st.sampled_from([0.5, 1.0, 2.0])), "b_kv": b_kv, "b_a": 2.0,
        "c": 2.0 * L * H_kv * d_h * b_kv, "a": draw(st.sampled_from([0.0, 0.0, 1e6])),
        "B": float(draw(st.integers(1, 4096))), "S": float(draw(st.integers(1, 131072))),
        "T": float(draw(st.integers(1, 32768))),
        "k_w": 2.0, "k_g": 2.0, "k_o": 12.0,
    }
    for g in ("TP", "PP", "EP", "DP"):
        env[f"W_{g}"] = draw(st.floats(1e9, 2e12))
        env[f"alpha_{g}"] = draw(st.floats(0.0, 2e-5))
        env[f"W_c{g}"] = env[f"W_{g}"] * draw(st.floats(0.3, 1.0))  # the library reaches at most the line rate
    # the library's costs (any in-switch bus bandwidth: measured over a whole domain, it may pass the line rate),
    # and the busiest expert GPU's reads over the mean
    # a library call costs at least one step of the link (NCCL's 6.6 us ring and 25 us NVLS calls against 0.6 us steps)
    env.update(tau_c=env["alpha_TP"] + draw(st.floats(0.0, 3e-5)), tau_s=env["alpha_TP"] + draw(st.floats(0.0, 3e-5)),
               s_TP=float(draw(st.integers(0, 1))),
               W_sTP=draw(st.floats(1e9, 4e12)))
    # the engine's fixed costs per kernel: k_L kernels a layer, tau_k each in decode, tau_l in prefill
    env.update(k_L=float(draw(st.integers(1, 40))), tau_k=draw(st.floats(0.0, 1e-5)), tau_l=draw(st.floats(0.0, 1e-5)))
    # the engine's one-shot all-reduce, where it runs one: its call costs at least a step of the link too
    env.update(o_TP=float(draw(st.integers(0, 1))), tau_o=env["alpha_TP"] + draw(st.floats(0.0, 1e-5)))
    # the experts' all-to-all as DeepEP runs it (engine.all_to_all: deepep), at shares of the line rate up to 1
    env.update(o_EP=float(draw(st.integers(0, 1))), e_Du=draw(st.floats(0.1, 1.0)), e_Do=draw(st.floats(0.1, 1.0)),
               e_Dl=draw(st.floats(0.1, 1.0)))
    if single:
        tp = pp = ep = dp = 1
    else:
        tp = draw(st.sampled_from([t for t in (1, 2, 4, 8, 16, 32) if H_q % t == 0]))
        pp = draw(st.integers(1, min(L, 16)))
        dp = draw(st.integers(1, 8))
        # experts over the tp x dp group: wider than a replica (ep > tp) is data-parallel attention, with all-to-alls
        ep = draw(st.sampled_from([e for e in (1, 2, 4, 8, 16, 32) if e <= tp * dp and (tp * dp) % e == 0])) \
            if moe else 1
    # pp need not divide L: the busiest stage holds ceil(L/pp) layers, n_PP = L / ceil(L/pp); n_st = pp stages
    # the memory held on the stage that holds the fewest tokens (genreport.model.stages): its own layers' share, here
    # the even split (a model of identical layers, no embedding on a stage of its own)
    env.update(n_TP=float(tp), n_PP=L / math.ceil(L / pp), n_St=float(pp), n_EP=float(ep), n_DP=float(dp),
               n_PW=L / math.ceil(L / pp), n_PK=L / math.ceil(L / pp), n_PT=L / math.ceil(L / pp),
               s_st=1.0 if pp > 1 else 0.0, kappa_B=1.0, kappa_L=1.0, kappa_F=1.0,  # stages of identical layers
               s_kv=float(min(tp, H_kv)),
               # what tensor parallelism holds whole on each GPU beyond one copy (norms, router, MLA's
               # down-projections: 0.1-1.5% of N a copy in the catalog), none on one GPU
               N_R=draw(st.floats(0.0, 0.02)) * env["N"] * (tp - 1),
               u_x=draw(st.floats(1.0, 4.0)) if ep > 1 else 1.0,
               # replicas of an expert group wider than one whose prompts it prefills at once: 1 (a prompt alone) to
               # all of them (n_EP / n_TP, the steady state a prompt's price takes)
               m_P=draw(st.floats(1.0, ep / tp)) if ep > tp else 1.0,
               # redundant expert replicas per routed expert (engine.redundant_experts): more bytes held, never less
               rho_x=draw(st.floats(0.0, 0.5)) if ep > 1 else 0.0,
               # the weights' share of the bandwidth in the estimate: below 1 for weight-only int8/int4 GEMMs
               e_w=1.0 if single else draw(st.sampled_from([1.0, 0.8, 0.53, 0.2])),
               # a large matmul's measured share of the peak in the estimate (MAMF: 0.51-0.87 in the catalog)
               e_m=1.0 if single else draw(st.sampled_from([1.0, 0.869, 0.709, 0.511])),
               # a small-M GEMM's measured share of the bandwidth on its weights in the serial prefill (0.657: H100 fp8)
               e_g=1.0 if single else draw(st.sampled_from([1.0, 0.657, 0.4])),
               # the attention's peak in the estimate over P: 1 in one format, below for an fp4 model on a bf16 cache
               P_a=env["P"] * (1.0 if single else draw(st.sampled_from([1.0, 0.5, 0.25]))))
    # two tiers: a group of n may have n_u < n GPUs in each scale-up domain and cross the NICs between domains (a
    # scale-out link no faster than the scale-up one, the library reaching at most its line rate); one tier otherwise
    for g, n in (("TP", tp), ("EP", ep)):
        u = draw(st.sampled_from([x for x in range(2, n) if n % x == 0] + [n]))
        env[f"n_u{g}"] = float(u)
        if u == n:
            env.update({f"W_o{g}": env[f"W_{g}"], f"alpha_o{g}": 0.0, f"W_co{g}": env[f"W_c{g}"]})
        else:
            w_o = env[f"W_{g}"] * draw(st.floats(0.01, 1.0))
            env.update({f"W_o{g}": w_o, f"alpha_o{g}": draw(st.floats(0.0, 2e-5)),
                        f"W_co{g}": w_o * draw(st.floats(0.3, 1.0))})
            if g == "TP":
                env["o_TP"] = 0.0  # the one-shot kernel reads its peers over the scale-up link only
    # the ring's protocols (NCCL's tuner): without the file's, LL128's and Simple's latencies are LL's and LL's bandwidth
    # the whole bus bandwidth; with them, every call and step at least LL's (14 and 8.4 us calls against 6.6, 1.9 and
    # 3.4 us steps against 0.6) and LL at a share of the bus bandwidth (half, at most NCCL's llMaxBw)
    if draw(st.booleans()):
        env.update(tau_c8=env["tau_c"] + draw(st.floats(0.0, 2e-5)), tau_cS=env["tau_c"] + draw(st.floats(0.0, 2e-5)),
                   alpha_8TP=env["alpha_TP"] * draw(st.floats(1.0, 6.0)),
                   alpha_STP=env["alpha_TP"] * draw(st.floats(1.0, 10.0)),
                   alpha_8oTP=env["alpha_oTP"] * draw(st.floats(1.0, 6.0)),
                   alpha_SoTP=env["alpha_oTP"] * draw(st.floats(1.0, 10.0)),
                   W_lTP=env["W_cTP"] * draw(st.floats(0.05, 0.5)), W_loTP=env["W_coTP"] * draw(st.floats(0.05, 0.5)))
        # what a Simple call pays where measured (nccl-tests: 12-27 us a call, 0.9-6 us a step), else the tuner's
        if draw(st.booleans()):
            env.update(tau_cSm=env["tau_c"] + draw(st.floats(0.0, 5e-5)),
                       alpha_SmTP=env["alpha_TP"] * draw(st.floats(1.0, 10.0)))
        else:
            env.update(tau_cSm=env["tau_cS"], alpha_SmTP=env["alpha_STP"])
    else:
        env.update(tau_c8=env["tau_c"], tau_cS=env["tau_c"], alpha_8TP=env["alpha_TP"], alpha_STP=env["alpha_TP"],
                   alpha_8oTP=env["alpha_oTP"], alpha_SoTP=env["alpha_oTP"], W_lTP=env["W_cTP"], W_loTP=env["W_coTP"],
                   tau_cSm=env["tau_c"], alpha_SmTP=env["alpha_TP"])
    # the bound's micro-batches: the least round of m = 1 .. min(pp, B) (layout.fastest_schedule, as at_batch finds it)
    env["m_b"] = float(fastest_schedule(env, pp))
    return env


@SETTINGS
@given(setups(single=True))
def test_one_gpu_is_the_single_card_formula_exactly(env):
    assert val("decode_time_comm", env) == 0.0
    assert val("prefill_time_comm", env) == 0.0
    assert val("weight_bytes_per_gpu", env) == val("weight_bytes", env)
    assert val("kv_bytes_per_token_per_gpu", env) == env["c"]
    assert val("kv_capacity_tokens_replica", env) == val("kv_capacity_tokens", env)
    assert val("capacity_batch_replica", env) == val("capacity_batch", env)
    assert val("decode_time_memory_gpu", env) == val("decode_time_memory", env)
    assert val("decode_time_compute_gpu", env) == val("decode_time_compute", env)
    single = max(val("decode_time_memory", env), val("decode_time_compute", env))
    # one stage: its GPU's larger ledger, up to the rounding of the 1 / W the compiled round shares with the last
    # stage's ledgers (formulas.parallel.pipelined: the same expressions on one stage)
    assert val("decode_time_bound", env) == pytest.approx(single, rel=1e-15, abs=0.0)
    # the estimate adds the kernels' fixed costs, L k_L tau_k on one GPU (one micro-batch, one stage)
    overhead = env["L"] * env["k_L"] * env["tau_k"]
    assert val("decode_time_overhead", env) == pytest.approx(overhead, rel=1e-12)
    assert val("decode_time_serial", env) == pytest.approx(single + overhead, rel=1e-12)
    # to the last bits: the estimate sums the weights' FLOPs at P and the attention's at P_a (= P here) apart
    assert val("decode_time_serial", dict(env, tau_k=0.0)) == pytest.approx(single, rel=4e-16, abs=0.0)
    # an attention peak below P (an fp4 model on a bf16 cache) only slows the estimate; the bound never reads it
    for q in ("decode_time_serial", "prefill_time_serial"):
        assert val(q, dict(env, P_a=env["P"] / 4)) >= val(q, env)
    assert val("decode_time_bound", dict(env, P_a=env["P"] / 4)) == val("decode_time_bound", env)
    # weight-only weights (e_w < 1) only slow the estimate; the bound never reads e_w
    assert val("decode_time_serial", dict(env, e_w=0.53)) >= val("decode_time_serial", env)
    assert val("prefill_time_serial", dict(env, e_w=0.53)) >= val("prefill_time_serial", env)
    # so does a matmul share below the peak (e_m < 1); the bound keeps the peak
    for q in ("decode_time_serial", "prefill_time_serial"):
        assert val(q, dict(env, e_m=0.709)) >= val(q, env)
    assert val("decode_time_bound", dict(env, e_m=0.709)) == val("decode_time_bound", env)
    assert val("prefill_time_bound", dict(env, e_m=0.709)) == val("prefill_time_bound", env)
    # and a small-GEMM share below the bandwidth (e_g < 1): the serial prefill's weights only, never the bound
    assert val("prefill_time_serial", dict(env, e_g=0.657)) >= val("prefill_time_serial", env)
    assert val("prefill_time_bound", dict(env, e_g=0.657)) == val("prefill_time_bound", env)
    assert env["B"] / val("decode_time_bound", env) == pytest.approx(val("decode_tokens_per_s", env), rel=1e-15, abs=0.0)
    single_prefill = max(val("prefill_time_compute", env), val("prefill_time_memory", env))
    # to the last bit but one: the pipeline's walk (0 on one stage) shares 1/W with the HBM ledger, which the generated
    # code then multiplies by where the single-card formula divides
    assert val("prefill_time_bound", env) == pytest.approx(single_prefill, rel=4e-16, abs=0.0)
    launches = env["L"] * env["k_L"] * env["tau_l"]  # each prefill kernel launched on its own
    assert val("prefill_time_serial", env) == pytest.approx(single_prefill + launches, rel=1e-12)
    assert val("prefill_time_serial", dict(env, tau_l=0.0)) == pytest.approx(single_prefill, rel=4e-16, abs=0.0)
    assert val("interconnect_bytes_prefill", env) == 0.0
    assert val("training_state_per_gpu_zero3", env) == pytest.approx(16.0 * env["N"], rel=4e-16, abs=0.0)


@SETTINGS
@given(setups(single=False))
def test_bound_below_serial_and_above_each_ledger(env):
    bound, serial = val("decode_time_bound", env), val("decode_time_serial", env)
    assert bound <= serial * (1 + 1e-12)
    m = env["m_b"]  # micro-batches of the bound's round (layout.fastest_schedule)
    walk = (env["n_PP"] - 1) / m  # busiest stages' worth a micro-batch walks besides the last, per m
    for ledger in ("decode_time_comm", "decode_time_memory_gpu", "decode_time_compute_gpu"):
        assert bound >= val(ledger, env) * (1 - 1e-12)  # every GPU does its round's work
        if ledger != "decode_time_comm":  # and no stage is faster than its compute or HBM traffic
            assert bound >= (walk + 1 / m) * val(ledger, env) * (1 - 1e-12)


@SETTINGS
@given(setups(single=False))
def test_the_bound_takes_the_fastest_schedule(env):
    """The round's bound is the least over every split of the B sequences into m = 1 .. min(pp, B) micro-batches
    (each a schedule some engine could run), vLLM's m = min(pp, B) among them; never above the estimate, which runs
    vLLM's."""
    bound = val("decode_time_bound", env)
    top = int(min(env["n_St"], env["B"]))
    rounds = [val("decode_time_bound", dict(env, m_b=float(m))) for m in range(1, top + 1)]
    assert bound == pytest.approx(min(rounds), rel=1e-12, abs=0.0)
    assert 1 <= env["m_b"] <= top and float(env["m_b"]).is_integer()
    if env["n_St"] == 1:
        assert env["m_b"] == 1.0


@SETTINGS
@given(setups(single=False))
def test_no_layout_beats_one_ideal_card_per_gpu(env):
    # with the experts inside the replica (ep <= tp), every GPU still streams at least its share of N b; with
    # data-parallel attention (ep > tp) the ep / tp replicas' tokens share each expert read, so a GPU may pass one
    # card at the replica's batch (setups draws such layouts since the experts' all-to-all tests, issue 27)
    assume(env["n_EP"] <= env["n_TP"])
    # per GPU of the replica: n_TP n_st of them (n_PP, L over the busiest stage's layers, is fewer where pp does not
    # divide L, and the busiest stage before the last leaves the output head to the last)
    per_gpu = env["B"] / (val("decode_time_bound", env) * env["n_TP"] * env["n_St"])
    assert per_gpu <= val("decode_tokens_per_s", env) * (1 + 1e-12)


@SETTINGS
@given(setups(single=False), st.floats(1.01, 10.0))
def test_slower_links_never_speed_up(env, k):
    slow = dict(env, W_TP=env["W_TP"] / k, alpha_TP=env["alpha_TP"] * k, W_EP=env["W_EP"] / k)
    assert val("decode_time_bound", slow) >= val("decode_time_bound", env) * (1 - 1e-12)
    assert val("decode_time_comm", slow) >= val("decode_time_comm", env) * (1 - 1e-12)


@SETTINGS
@given(setups(single=False))
def test_zero_stages_shrink_the_state(env):
    states = [val(f"training_state_per_gpu_zero{k}", env) for k in range(4)]
    assert all(a >= b * (1 - 1e-12) for a, b in zip(states, states[1:], strict=False))


SPEC = """\
kind: report
name: one
title: One GPU
hardware: {hw}
model: {model}
precision: {precision}
workloads:
  decode: {{batch: [{batch}], context: [{context}]}}
  prefill: {{prompt: [{context}]}}
"""


@settings(max_examples=20, deadline=None, derandomize=True)
@given(st.sampled_from(["llama-3.1-8b", "llama-3.1-70b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b",
                        "qwen3-30b-a3b", "phi-3-mini"]),
       st.sampled_from(["h100-sxm", "a100-sxm-80gb", "mi300x"]),
       st.sampled_from(["bf16", "int8", "int4", "fp16"]),
       st.integers(1, 512), st.integers(1, 65536))
def test_one_gpu_spec_reproduces_the_single_card_report(tmp_path_factory, model, hw, precision, batch, context):
    path = tmp_path_factory.mktemp("one") / "one.yaml"
    text = SPEC.format(hw=hw, model=model, precision=precision, batch=batch, context=context)
    path.write_text(text, encoding="utf-8")
    single = evaluate(load_report(path))
    path.write_text(text + "parallelism: {tp: 1, pp: 1, ep: 1, dp: 1}\n", encoding="utf-8")
    multi = evaluate(load_report(path))
    # the single-card entries are unchanged, bit for bit but for the rounding of the round: the rates divide by it, and
    # its compiled form evaluates the last stage's ledgers beside the busiest's (formulas.parallel.pipelined), the
    # same expressions on one stage, sharing a 1 / W that may round a last bit apart
    base = {(e.id, tuple(sorted(e.params.items()))): e.value for e in single.entries}
    got = {(e.id, tuple(sorted(e.params.items()))): e.value for e in multi.entries}
    assert set(base) <= set(got)
    for k, want in base.items():
        if isinstance(want, float) and isinstance(got[k], float):
            assert got[k] == pytest.approx(want, rel=1e-15, abs=0.0), k
        else:
            assert got[k] == want, k
    for acc in ("seed", "exact"):
        p, s = multi.parallel, single
        assert p.scalars[acc]["weight_bytes_per_gpu"] == s.scalars[acc]["weight_bytes"]
        assert p.scalars[acc]["kv_capacity_tokens_replica"] == s.scalars[acc]["kv_capacity_tokens"]
        np.testing.assert_allclose(p.decode[acc]["decode_tokens_per_s_replica"], s.decode[acc]["decode_tokens_per_s"],
                                   rtol=1e-15, atol=0.0)
        np.testing.assert_array_equal(p.decode[acc]["decode_time_memory_gpu"], s.decode[acc]["decode_time_memory"])
        np.testing.assert_allclose(p.decode[acc]["decode_time_bound"],
                                   np.maximum(s.decode[acc]["decode_time_memory"], s.decode[acc]["decode_time_compute"]),
                                   rtol=1e-15, atol=0.0)
        np.testing.assert_array_equal(p.per_context[acc]["capacity_batch_replica"],
                                      s.per_context[acc]["capacity_batch"])
        assert not np.any(p.decode[acc]["decode_time_comm"])
