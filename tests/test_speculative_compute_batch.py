"""B_P with speculative decoding (issue 30, "speculative decoding"): the most sequences a replica keeps speculating at
the TPOT target with their prompts' prefills, ``compute_batch_speculative`` (formulas/techniques.py).

A round verifies n_v tokens of each sequence and runs k_d draft passes, and keeps E = (1 - p_a^(k_d+1)) / (1 - p_a)
tokens on average (Leviathan, Kalman and Matias, ICML 2023, eq. 1), so each kept token costs n_v / E verified tokens'
FLOPs and k_d / E draft passes: B_P,spec = n_TP n_st P (T_out - 1) theta / ((T_out - 1) (n_v f(S) + k_d f_d) / E
+ F_p), f(S) = 2 N_a + 4 L H_q d_h S at the mean context S = T_in + T_out / 2 (seed 003, section 3), F_p the prompt's
prefill 2 N_p T_in + 2 L H_q d_hp T_in^2 + 2 V d, f_d the draft's FLOPs for one sequence per pass.

Hand counts copied here with their sources:
- DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json: hidden 7,168, 61 layers, 128 heads, q_lora_rank 1,536,
  kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim 128, v_head_dim 128, vocabulary 129,280,
  moe_intermediate_size 2,048, 1 shared and 8 of 256 routed experts; 37B activated parameters, DeepSeek-V3
  Technical Report, arXiv:2412.19437, table 1 and section 2.2: the MTP module one decoder layer sharing the output
  head; section 5.4.3: the second token accepted 85-90% of the time); MLA's absorbed decode head dim (512 + 64 +
  512) / 2 = 544 and its prefill (MHA) form (192 + 128) / 2 = 160; H200 1,978.9 TFLOP/s dense fp8 (NVIDIA's H200
  page, 3,958 TFLOPS with sparsity);
- Llama 3.1 70B (meta-llama/Llama-3.1-70B config.json: 80 layers, d 8,192, 64 query heads of 128, vocabulary
  128,256; 70.6e9 parameters by Meta's count), Llama 3.2 1B (meta-llama/Llama-3.2-1B config.json: 16 layers, 32
  query heads of 64, tied embeddings; 1.2358e9 parameters, its model card), H100 SXM 989.4 TFLOP/s dense bf16
  (NVIDIA's H100 datasheet).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp
from genreport import load_spec
from genreport.commands.cli import main
from genreport.formulas import techniques as t
from genreport.formulas.compiled import load
from genreport.formulas.glossary import sym
from genreport.model.draft import speculative_inputs
from genreport.model.env import make_env
from genreport.model.serving import compute_batch, compute_batch_values
from shared import SPECS, evaluated

DEEPSEEK, LLAMA = "deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml"


def _expected(p: float, k: int) -> float:
    return (1 - p ** (k + 1)) / (1 - p)


def _b_p(gpus, peak, prompt, output, tpot, f_token, f_prompt, n_v=1, k=0, f_d=0.0, tokens=1.0):
    """B_P by hand: gpus x peak x (T_out - 1) x theta over a request's FLOPs, its decode part per kept token."""
    return gpus * peak * (output - 1) * tpot / ((output - 1) * (n_v * f_token + k * f_d) / tokens + f_prompt)


# DeepSeek-V3 fp8 on 8 H200, ep 8 x dp 8 (tp 1: one replica is one GPU), 4k + 1k tokens at 50 ms
DS_N_A, DS_V, DS_D = 37e9, 129280, 7168
DS_S = 4096 + 1024 / 2  # the mean context
DS_F = 2 * DS_N_A + 4 * 61 * 128 * 544 * DS_S
# the prompt: N_p = N_a less the embedding and the head (2 V d), which the prefill counts once (2 V d)
DS_PROMPT = 2 * (DS_N_A - 2 * DS_V * DS_D) * 4096 + 2 * 61 * 128 * 160 * 4096 ** 2 + 2 * DS_V * DS_D
# the MTP head's active parameters: one MLA layer, one MoE layer's shared and 8 routed experts with its router, the
# layer's norms (2 x 7,168, q 1,536, kv 512) and the final norm (7,168), and the output head V d it shares
DS_HEAD = (7168 * 1536 + 1536 * 128 * 192 + 7168 * (512 + 64) + 512 * 128 * (128 + 128) + 128 * 128 * 7168
           + 9 * 3 * 7168 * 2048 + 7168 * 256 + 2 * 7168 + 1536 + 512 + 7168 + DS_V * DS_D)
DS_F_D = 2 * DS_HEAD + 4 * 1 * 128 * 544 * DS_S


def test_deepseek_v3_mtp_by_hand():
    """DeepSeek-V3's MTP, k_d = 1 at p_a = 0.85: E = 1.85, n_v = 2, the head's one pass a round (f_d = 2 x 1.512e9
    + its attention at the mean context = 4.307 GFLOP).  Plain: 1 x 1,978.9 TFLOP/s x 1,023 x 0.05 s / (1,023 x
    1.523e11 + 3.300e14) = 208.43; speculating the decode part grows by 2 / 1.85 and the head's 1 / 1.85 passes:
    202.18, 202 whole sequences (3% fewer)."""
    assert DS_HEAD == 1_512_004_608
    assert _expected(0.85, 1) == pytest.approx(1.85)
    plain = _b_p(1, 1978.9e12, 4096, 1024, 0.05, DS_F, DS_PROMPT)
    spec = _b_p(1, 1978.9e12, 4096, 1024, 0.05, DS_F, DS_PROMPT, n_v=2, k=1, f_d=DS_F_D, tokens=1.85)
    assert plain == pytest.approx(208.43, abs=0.01) and spec == pytest.approx(202.18, abs=0.01)
    r = evaluated(DEEPSEEK)
    sv = r.serving
    assert (sv["compute_batch"], sv["compute_batch_speculative"]) == (int(plain), int(spec)) == (208, 202)
    # the model's inputs are these: f_d from the head's ledgers at the mean context (serving.draft_pass_flops)
    spec_ = r.spec
    env = make_env(spec_.hardware, spec_.model, spec_.precision, spec_.accounting)
    v = compute_batch_values(env, spec_.parallelism, 4096, 1024, 0.05, 0.0, speculative_inputs(spec_))
    assert v["f_d"] == pytest.approx(DS_F_D, rel=1e-12) and (v["n_v"], v["k_d"], v["p_a"]) == (2.0, 1.0, 0.85)
    assert float(load()["compute_batch_speculative"](v)) == pytest.approx(spec, rel=1e-12)
    # the speculative lever row says it beside the plain one; the frontier's speculative curve of the spec's layout
    row = next(x for x in sv["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert ("speculating, a replica's compute keeps at most 202 sequences at the TPOT target with their prompts' "
            "prefills, 208 decoding plainly (each kept token costs 2 / 1.85 verified tokens and 1 / 1.85 draft "
            "passes)") in row["ends"]
    own = next(x for x in sv["frontier"]["layouts"] if x["titled"])
    assert (own["compute_batch"], own["speculative"]["compute_batch"]) == (208, 202)


def test_derive_states_the_speculative_compute_batch(capsys):
    """``derive compute_batch_speculative --spec`` evaluates the chapter's inputs: the whole model over the
    replica's GPUs, serving.speculative's k_d, p_a, n_v and the head's f_d."""
    assert main(["derive", "compute_batch_speculative", "--spec", str(SPECS / DEEPSEEK)]) == 0
    out = capsys.readouterr().out
    value = float(out.strip().splitlines()[-1].split("=")[-1])
    assert value == pytest.approx(_b_p(1, 1978.9e12, 4096, 1024, 0.05, DS_F, DS_PROMPT, 2, 1, DS_F_D, 1.85),
                                  rel=1e-5)
    assert "f_d = 4.30747e+09 FLOP" in out and "speculating with serving.speculative" in out


def test_derive_takes_the_speculation_from_at_where_the_spec_has_none(tmp_path, capsys):
    """A spec with a TPOT target and no serving.speculative: ``derive compute_batch_speculative`` still takes the
    whole model over the replica's GPUs (one GPU's slice would be divided by them twice) and asks for p_a, k_d, n_v
    and f_d; given them, the committed 70B spec's number (3 drafts at 0.8, a draft_cost: f_d = 0), 293.6."""
    text = (SPECS / LLAMA).read_text(encoding="utf-8")
    plain = tmp_path / "plain.yaml"
    plain.write_text("\n".join(x for x in text.splitlines() if "speculative:" not in x) + "\n", encoding="utf-8")
    assert main(["derive", "compute_batch_speculative", "--spec", str(plain)]) != 0
    assert "needs f_d, k_d, n_v, p_a" in capsys.readouterr().err
    assert main(["derive", "compute_batch_speculative", "--spec", str(plain), "--at", "p_a=0.8", "--at", "k_d=3",
                 "--at", "n_v=4", "--at", "f_d=0"]) == 0
    value = float(capsys.readouterr().out.strip().splitlines()[-1].split("=")[-1])
    hand = _b_p(8, 989.4e12, 4096, 512, 0.05, L_F, L_PROMPT, n_v=4, k=3, f_d=0.0, tokens=_expected(0.8, 3))
    assert value == pytest.approx(hand, rel=1e-5) and int(hand) == evaluated(LLAMA).serving["compute_batch_speculative"]


# Llama 3.1 70B bf16 on 8 H100 SXM (tp 8), 4k + 512 tokens
L_S = 4096 + 512 / 2
L_F = 2 * 70.6e9 + 4 * 80 * 64 * 128 * L_S
L_PROMPT = 2 * (70.6e9 - 2 * 128256 * 8192) * 4096 + 2 * 80 * 64 * 128 * 4096 ** 2 + 2 * 128256 * 8192
L_F_D = 2 * 1.2358e9 + 4 * 16 * 32 * 64 * L_S  # Llama 3.2 1B: tied embeddings, its head the embedding matrix
PLAN = ["llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--prompt", "4k",
        "--output", "512", "--batch", "256", "--tpot", "40ms"]


def _tp8(capsys, *extra):
    assert main(["plan", *PLAN, *extra, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    return next(r for r in doc["rows"] if (r["tp"], r["pp"], r["ep"], r["dp"]) == (8, 1, 1, 1))


def test_a_plan_row_speculating_stops_at_the_speculative_compute_batch(capsys):
    """``plan --speculative 4,0.7,llama-3.2-1b`` at 40 ms: the plain row stops where its prompts fill the compute,
    8 x 989.4 TFLOP/s x 511 x 0.04 s / (511 x 1.526e11 + 5.83e14) = 244.7; speculating, each kept token costs
    5 / 2.773 verified tokens and 4 / 2.773 passes of the 1B draft (f_d = 3.04 GFLOP): 222.85.  The row speculates at
    222 and stops there (it stopped at 244, the plain B_P, with more compute than the replica has)."""
    e = _expected(0.7, 4)
    plain = _b_p(8, 989.4e12, 4096, 512, 0.04, L_F, L_PROMPT)
    spec = _b_p(8, 989.4e12, 4096, 512, 0.04, L_F, L_PROMPT, n_v=5, k=4, f_d=L_F_D, tokens=e)
    assert plain == pytest.approx(244.72, abs=0.01) and spec == pytest.approx(222.85, abs=0.01)
    row = _tp8(capsys)
    assert (row["batch"], row["limit"]) == (int(plain), "prompts") == (244, "prompts")
    row = _tp8(capsys, "--speculative", "4,0.7,llama-3.2-1b")
    assert (row["batch"], row["limit"], row["speculative"]) == (int(spec), "prompts", "on") == (222, "prompts", "on")
    assert row["capacity_batch"] > 244 and row["tpot"] < 0.04  # neither the draft's room nor the target stops it
    # a draft_cost states the drafts' time, not their FLOPs (f_d = 0): 4 / 2.952 verified tokens a kept token alone
    row = _tp8(capsys, "--speculative", "3,0.8")
    cost = _b_p(8, 989.4e12, 4096, 512, 0.04, L_F, L_PROMPT, n_v=4, k=3, f_d=0.0, tokens=_expected(0.8, 3))
    assert (row["batch"], row["limit"], row["speculative"]) == (int(cost), "prompts", "on") == (234, "prompts", "on")
    # no acceptance: speculation does not pay, the row decodes plainly and its compute keeps the plain B_P
    row = _tp8(capsys, "--speculative", "4,0,llama-3.2-1b")
    assert (row["batch"], row["limit"], row["speculative"]) == (244, "prompts", "off")


def test_a_draft_in_fp8_beside_a_bf16_target_costs_its_own_peaks_time(capsys):
    """A draft computes at its own peak: Llama 3.2 1B in fp8 beside the bf16 70B on 8 H100 runs its passes at
    1,978.9 TFLOP/s (H100 SXM dense fp8, NVIDIA's datasheet) where the target's tokens run at 989.4, so each pass costs
    f_d x 989.4 / 1,978.9 of the target's FLOP/s: 223.20, not the 222.85 of the draft counted at the bf16 peak, which
    is below what the compute keeps and so no upper bound (QA, stop 77).  ``plan --speculative 4,0.7,llama-3.2-1b@fp8``
    stops its row at 223."""
    spec = _b_p(8, 989.4e12, 4096, 512, 0.04, L_F, L_PROMPT, n_v=5, k=4, f_d=L_F_D * 989.4 / 1978.9,
                tokens=_expected(0.7, 4))
    assert spec == pytest.approx(223.20, abs=0.01)
    row = _tp8(capsys, "--speculative", "4,0.7,llama-3.2-1b@fp8")
    assert (row["batch"], row["limit"], row["speculative"]) == (int(spec), "prompts", "on") == (223, "prompts", "on")


def test_the_draft_model_in_the_chapter_by_hand():
    """The committed 70B spec with serving.speculative's draft_model llama-3.2-1b, 4 drafts at 0.7 (the what-if the
    live page tests too): the chapter's B_P,spec is the hand count's, at its 50 ms target."""
    over = ["serving.speculative.draft_model=llama-3.2-1b", "serving.speculative.draft_tokens=4",
            "serving.speculative.acceptance=0.7"]
    sv = evaluated(LLAMA, over).serving
    plain = _b_p(8, 989.4e12, 4096, 512, 0.05, L_F, L_PROMPT)
    spec = _b_p(8, 989.4e12, 4096, 512, 0.05, L_F, L_PROMPT, n_v=5, k=4, f_d=L_F_D, tokens=_expected(0.7, 4))
    assert (sv["compute_batch"], sv["compute_batch_speculative"]) == (int(plain), int(spec)) == (305, 278)
    # at 40 ms the chapter's batch is the plain B_P, 244, past the 222 its compute keeps speculating: the lever row
    # says so (its TPOT and tok/s are speculation's at the chapter's batch, as every lever row's)
    sv = evaluated(LLAMA, over + ["serving.tpot=40 ms", "serving.users=256"]).serving
    assert (sv["tpot_batch"], sv["compute_batch"], sv["compute_batch_speculative"]) == (244, 244, 222)
    row = next(x for x in sv["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert row["ends"].endswith("speculating, a replica's compute keeps at most 222 sequences at the TPOT target with "
                                "their prompts' prefills, 244 decoding plainly (each kept token costs 5 / 2.77 "
                                "verified tokens and 4 / 2.77 draft passes): fewer than this row's 244")


def test_no_speculation_is_todays_compute_batch_exactly():
    """p_a = 0 with n_v = 1 and k_d = 0 (or f_d = 0): E = 1, one verified token a kept token and no draft, the plain
    B_P, symbolically and to the last bit of the compiled formulas and serving.compute_batch."""
    # a request of T_out >= 2 tokens (B_P has no decode round below): T_out = 2 + r, r >= 0, so min(E, T_out - 1) = 1
    r = sp.Symbol("r", nonnegative=True)
    at_two = {sym("T_out"): 2 + r}
    zero = {sym("p_a"): 0, sym("n_v"): 1, sym("k_d"): 0}
    plain = t.compute_batch().subs(at_two)
    assert sp.simplify(t.compute_batch_speculative().subs(zero).subs(at_two) - plain) == 0
    no_draft = {sym("p_a"): 0, sym("n_v"): 1, sym("f_d"): 0}
    assert sp.simplify(t.compute_batch_speculative().subs(no_draft).subs(at_two) - plain) == 0
    q = load()
    for name in (DEEPSEEK, LLAMA):
        spec = load_spec(SPECS / name)
        sv = spec.serving
        env = make_env(spec.hardware, spec.model, spec.precision, spec.accounting)
        plain = compute_batch(env, spec.parallelism, sv.prompt, sv.output, sv.tpot, sv.prefix_hit)
        assert compute_batch(env, spec.parallelism, sv.prompt, sv.output, sv.tpot, sv.prefix_hit,
                             (0, 0.0, 0.0, 1)) == plain
        v = compute_batch_values(env, spec.parallelism, sv.prompt, sv.output, sv.tpot, sv.prefix_hit)
        for k_d, f_d in ((0.0, 1e12), (3.0, 0.0)):
            got = q["compute_batch_speculative"](dict(v, p_a=0.0, n_v=1.0, k_d=k_d, f_d=f_d))
            assert float(np.asarray(got)) == float(np.asarray(q["compute_batch"](v)))


def test_the_bound_is_the_balance_it_comes_from():
    """B sequences verify a round every t_r = E theta (TPOT t_r / E at the target); the round's FLOPs per second,
    B (n_v F_1 + k_d f_d) / t_r, and the prompts of the B E / ((T_out - 1) t_r) requests retired a second, at the
    replica's n_TP n_St P: solved for B by SymPy, compute_batch_speculative."""
    b, e = sp.Symbol("b", positive=True), sp.Symbol("E_R", positive=True)  # E_R: request_expected_tokens, below
    n = sym("n_TP") * sym("n_St") * sym("P")
    t_r = e * sym("theta")
    f_1 = 2 * sym("N_a") + 4 * sym("L") * sym("H_q") * sym("d_h") * t.mean_decode_context()
    rate = b * (sym("n_v") * f_1 + sym("k_d") * sym("f_d")) / t_r \
        + b * e / ((sym("T_out") - 1) * t_r) * (t.request_flops() - (sym("T_out") - 1) * f_1)
    (solved,) = sp.solve(sp.Eq(rate, n), b)
    assert sp.simplify(solved.subs(e, t.request_expected_tokens()) - t.compute_batch_speculative()) == 0


# Gemma 3 27B (google/gemma-3-27b-pt config.json: 62 layers, 52 of them sliding over 1,024 tokens, 10 global, 32
# query heads of 128) with a one-layer EAGLE/MTP head, 8k + 1k at 30 ms on one H100
GEMMA_HEAD = """\
kind: report
name: gemma3-27b-head
title: Gemma 3 27B speculating with a one-layer head on one H100
hardware: h100-sxm
model: gemma-3-27b
precision: bf16
workloads:
  decode: {batch: [1], context: [1k]}
serving:
  prompt: 8k
  output: 1k
  tpot: 30 ms
  speculative: {draft_tokens: 4, acceptance: 0.7, draft_layers: 1}
"""


@pytest.mark.parametrize("qid", ["compute_batch", "compute_batch_speculative"])
def test_derive_says_where_a_windowed_models_d_h_is_read(capsys, qid):
    """``derive compute_batch[_speculative] --spec`` on a model with windowed layers explained d_h = 33.28 as "a
    prompt of T = nan tokens attends 0.26 of the causal attention": the formula takes no S and no T, and that d_h is the
    decode's at the mean context S = 8,192 + 1,024 / 2 = 8,704, where (10 x 8,704 + 52 x 1,024) / (62 x 8,704) =
    0.26 of the positions are attended (d_hp, the prompt's, is another)."""
    from shared import spec_file

    assert main(["derive", qid, "--spec", str(spec_file(GEMMA_HEAD, "gemma3-27b-head"))]) == 0
    out = capsys.readouterr().out
    share = (10 * 8704 + 52 * 1024) / (62 * 8704)
    assert f"d_h = {128 * share:.6g}" in out and "nan" not in out, out
    assert f"at S = 8,704 a token attends {share:.4g} of the positions it would in full layers" in out, out


def test_a_two_token_output_keeps_no_sequence_by_hand():
    """A 2-token output at the committed 70B's 50 ms target: one round of 50 ms holds 8 x 989.4 TFLOP/s x 0.05 s =
    3.96e14 FLOP of the replica's compute, less than one request's prompt (6.0e14 FLOP) and its decode token, so B_P =
    0.66 and, speculating (3 drafts at 0.8 with a draft_cost: n_v = 4, E = 2.95 but one token to make: E_R = 1), 0.66
    too: not one sequence.  The
    lever row says it keeps no sequence, never "at most 0 sequences" (QA of stop 78)."""
    f_token = 2 * 70.6e9 + 4 * 80 * 64 * 128 * (4096 + 2 / 2)
    plain = _b_p(8, 989.4e12, 4096, 2, 0.05, f_token, L_PROMPT)
    # a round yields at most the one token the request makes after its first: E_R = min(2.95, 1) = 1
    spec = _b_p(8, 989.4e12, 4096, 2, 0.05, f_token, L_PROMPT, n_v=4, k=3, tokens=min(_expected(0.8, 3), 1))
    assert 0.6 < spec < plain < 0.7
    sv = evaluated(LLAMA, ["serving.output=2"]).serving
    assert (sv["compute_batch"], sv["compute_batch_speculative"], sv["tpot_batch"]) == (0, 0, 0)
    row = next(x for x in sv["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert ("speculating, a replica's compute keeps no sequence at the TPOT target with its prompt's prefill, nor "
            "decoding plainly (each kept token costs 4 / 1.00 verified tokens") in row["ends"]
    assert "at most 0" not in row["ends"]



def test_a_round_yields_at_most_the_tokens_the_request_still_makes(capsys):
    """E_R = min(E, T_out - 1) (formulas/techniques.py request_expected_tokens): a request with one decode token to
    make (a 2-token output) gets one from its round, whatever E = 2.952 (3 drafts at 0.8), so its verify round of 4
    tokens and its drafts cost more than a plain round: plan credited such requests 2.81x (two reviews, stop 78);
    speculation is now off there, the rows as plain decoding's.  With 2 to make, 2 tokens a round (the lever row says
    2.00); from 3 on, E itself."""
    e_r = t.request_expected_tokens().subs({sym("p_a"): sp.Rational(4, 5), sym("k_d"): 3})
    e = sp.Rational(369, 125)  # 1 + 0.8 + 0.64 + 0.512
    assert e == pytest.approx(_expected(0.8, 3))
    assert [e_r.subs(sym("T_out"), n) for n in (2, 3, 4, 513)] == [1, 2, e, e]
    plan = ["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--prompt", "4k", "--output", "2", "--tpot", "5ms",
            "--users", "128", "--format", "json"]
    assert main([*plan, "--speculative", "3,0.8"]) == 0
    spec_rows = json.loads(capsys.readouterr().out)["rows"]
    assert main(plan) == 0
    plain_rows = json.loads(capsys.readouterr().out)["rows"]
    assert spec_rows and all(x["speculative"] == "off" for x in spec_rows), [x["speculative"] for x in spec_rows]
    def key(x):
        return x["precision"], x["tp"], x["pp"], x["ep"], x["dp"], x["batch"], x["tpot"], x["tokens_per_s_gpu"]

    assert [key(x) for x in spec_rows] == [key(x) for x in plain_rows]
    assert all(x["spec_speedup"] < 1 for x in spec_rows)
    sv = evaluated(LLAMA, ["serving.output=3"]).serving
    row = next(x for x in sv["techniques"]["rows"] if x["technique"] == "speculative decoding")
    assert row["note"].startswith("2.00 tokens per verify step")


def test_the_chapter_writes_the_capped_tokens_it_gives():
    """The speculative paragraph wrote "E = (1 - p_a^(k_d+1)) / (1 - p_a) = 1.00 tokens" for a 2-token output, the
    closed form beside E_R's value (stop 78): it gives E, then E_R = min(E, T_out - 1) with the value."""
    from shared import words

    text = words(evaluated(LLAMA, ["serving.output=2"]), "s9_serving")  # the chapter's words, no report built
    assert "tokens on average (Leviathan et al.), at most the Tout − 1 a request makes after its first: ER = min(E, " \
           "Tout − 1) = 1.00 tokens." in text
    text = words(evaluated(LLAMA), "s9_serving")
    assert "ER = min(E, Tout − 1) = 2.95 tokens." in text
