"""derive prints a layout's serial round as named terms: the sum of its named parts, each part's closed form on its
own line, then each part's value and the whole's.  Printed whole, decode_time_serial at Mixtral 8x22B tp 8 x ep 8
was a 10 KB line; request_decode_time_serial at tp 8 x pp 2 with --elasticities passed derive's 15 s limit
(differentiating the whole expression symbolically).  The parts are formulas/parallel.py's: decode_time_serial =
pipelined(w + x_TP + x_EP + x_PP, w + x_TP + x_EP + x_back), w = max(t_comp, t_mem) + t_o (Narayanan et al. SC'21,
section 2.2: the pipeline's round; Shoeybi et al. 2019: the all-reduces on the critical path).
"""

from __future__ import annotations

import re

import pytest
from genreport.commands.cli import main
from shared import MAVERICK_TWO_NODES, SPECS, derive_reads, evaluated, evaluated_text, spec_file


def _parts(out: str) -> dict[str, float]:
    line = re.search(r"^  parts: (.*)$", out, re.M).group(1)
    return {k: float(v) for k, v in re.findall(r"(\w+) = ([0-9.e+-]+) s", line)}


def test_the_serial_round_at_tp8_ep8_is_named_parts(capsys):
    derive_reads("mixtral8x22b-h100-tp8-ep8.yaml", evaluated("mixtral8x22b-h100-tp8-ep8.yaml"))  # the session's
    assert main(["derive", "decode_time_serial", "--spec", str(SPECS / "mixtral8x22b-h100-tp8-ep8.yaml")]) == 0
    out = capsys.readouterr().out
    # was one 10 KB line; 8.8 KB, x_TP's line 4.5 KB, with the ring's three protocols (LL, LL128, Simple) each in its
    # ring and hierarchical forms (stop 50); x_TP a 15 KB line with the protocol NCCL's tuner runs, each condition
    # writing out the protocols' prices: 8.2 KB, the longest line 1.4 KB, with the ring (r_TP) and each protocol's
    # price (p_) and charge (c_) named (stop 66)
    assert len(out) < 10_000 and max(len(line) for line in out.splitlines()) < 2000
    names = re.findall(r"^      (\w+) = ", out, re.M)
    assert names == ["t_comp", "t_mem", "t_o", "x_TP", "r_TP", "p_LL", "p_LL128", "p_S", "c_LL", "c_LL128", "c_S",
                     "x_EP", "x_PP", "x_back", "h_comp", "h_mem"]
    assert re.search(r"^  t_serial = Max\(.*Max\(t_comp, t_mem\)", out, re.M)
    p = _parts(out)
    whole = float(re.search(r"^  t_serial = ([0-9.e+-]+) s", out, re.M).group(1))
    # one stage (n_PP = 1): the round is w + x_TP + x_EP + x_PP, each part the serial estimate's
    assert max(p["t_comp"], p["t_mem"]) + p["t_o"] + p["x_TP"] + p["x_EP"] + p["x_PP"] == pytest.approx(whole, rel=1e-5)
    # batch 1: a 12 KiB message, which the tuner prices cheapest with LL (15.2 us against 40.7 and 56.0), charged the
    # same; 2 all-reduces a layer, 56 layers, the ring's (no switch reduction charged cheaper, no one-shot kernel)
    assert min(("LL", "LL128", "S"), key=lambda k: p["p_" + k]) == "LL"
    assert p["r_TP"] == p["c_LL"] and p["x_TP"] == pytest.approx(2 * 56 * p["r_TP"], rel=1e-5)


def test_a_requests_serial_rounds_at_tp8_pp2_with_elasticities(capsys):
    spec = spec_file(MAVERICK_TWO_NODES, "svmav")  # its evaluation made once a run (test_derive_serving.py too)
    derive_reads(spec, evaluated_text(MAVERICK_TWO_NODES, "svmav"))
    assert main(["derive", "request_decode_time_serial", "--spec", str(spec), "--elasticities"]) == 0
    out = capsys.readouterr().out
    p = _parts(out)
    whole = float(re.search(r"^  \S+ = ([0-9.e+-]+) s$", out.split("  parts:")[1], re.M).group(1))
    w = max(p["t_comp"], p["t_mem"]) + p["t_o"]
    busy = w + p["x_TP"] + p["x_EP"] + p["x_PP"]
    # the last stage: the same 24 layers and the output head (formulas.parallel.at_last_stage, r = 1), no send on
    last = max(p["t_comp"] + p["h_comp"], p["t_mem"] + p["h_mem"]) + p["t_o"] + p["x_TP"] + p["x_EP"] + p["x_back"]
    # two stages, a batch of at least 2 (m = 2 micro-batches): max(X, X_L, (X + X_L) / 2)
    assert whole == pytest.approx(max(busy, last, (busy + last) / 2), rel=1e-5)
    el = dict(re.findall(r"^    (\w+)\s+([+-][0-9.]+)$", out, re.M))
    assert float(el["T_o"]) == pytest.approx(1.0, abs=0.05)  # the request's rounds: about T_o - 1 of them


@pytest.mark.parametrize("qid", ["decode_time_serial", "request_decode_time_serial", "compute_batch",
                                 "compute_batch_speculative"])
def test_the_named_parts_put_back_are_the_formula(qid):
    """derive's named parts (commands/derive.py ``_terms``) restate how formulas/parallel.py composes the serial round;
    with each part's closed form put back the whole must be the formula itself, so a change to one is seen in the
    other.  Checked at random positive inputs (the pieces hold Max/Min, which SymPy does not always cancel; compiled, as substituting
    into the whole takes minutes) against the formula as the report computes it: formulas/_generated.py, which
    tests/test_regen.py regenerates from formulas/ (building the SymPy formula again here took 4 s more a quantity)."""
    import random

    import sympy as sp
    from genreport.commands.derive import _terms
    from genreport.formulas.compiled import load

    whole, named = _terms(qid)
    with sp.evaluate(False):  # put back as written: SymPy's Max/Min comparing the substituted parts took 1.2 s a call
        put_back = whole
        for _ in range(3):  # the parts made of parts: x_TP of r_TP, r_TP of the protocols' prices and charges
            put_back = put_back.xreplace({s: e for s, _, e in named})
    assert not put_back.free_symbols & {s for s, _, _ in named}
    formula = load()[qid]
    symbols = sorted(put_back.free_symbols, key=str)
    assert set(formula.fn_args) == {str(s) for s in symbols}
    ours = sp.lambdify(symbols, put_back, modules=["math", {"Max": max, "Min": min}])
    rng = random.Random(46)
    for _ in range(20):
        point = [rng.choice([1, 2, 3, 8, 64]) * rng.uniform(0.5, 2.0) for _ in symbols]
        assert ours(*point) == pytest.approx(float(formula(dict(zip(map(str, symbols), point, strict=True)))), rel=1e-9)


def test_the_crossover_batch_is_named_candidates(capsys):
    """comm_hbm_crossover_batch written out repeats the protocols' lines in each candidate's condition (55 KB with the
    tuner's choice); derive names the lines (p_ priced, g_ charged less the ledger), each candidate and its condition,
    and states which hold.  70B at tp 8 on H100, 128 tokens of context: LL's root, 92.6, where the tuner runs LL (a
    1.52 MB message per call: 6.6 + 14 x 0.6 + 14/8 x 1.52 MB / 141 GB/s = 33.8 us against LL128's 14 + 14 x 1.9 +
    14/8 x 1.52 MB / 414 GB/s = 47.0 and Simple's 61.9); the stated batch is the largest that holds."""
    spec = str(SPECS / "llama70b-h100-tp8.yaml")
    assert main(["derive", "comm_hbm_crossover_batch", "--spec", spec, "--context", "128"]) == 0
    out = capsys.readouterr().out
    assert len(out) < 8000 and max(len(line) for line in out.splitlines()) < 600
    names = re.findall(r"^      (\w+)(?:\(B\))? = ", out, re.M)
    assert names == ["p_LL", "p_LL128", "p_S", "g_LL", "g_LL128", "g_S", "b_LL", "k_LL", "b_LL128", "k_LL128", "b_S",
                     "k_S", "s_LL_LL128", "k_LL_LL128", "s_LL_S", "k_LL_S", "s_LL128_S", "k_LL128_S"]
    line = re.search(r"^  candidates: (.*)$", out, re.M).group(1)
    held = {k: float(v) for k, v in re.findall(r"(k_\w+) = ([0-9.e+-]+)(?:,|$)", line)}
    assert set(held) == {"k_LL"} and 85 < held["k_LL"] < 100
    stated = float(re.search(r"^  B_x\* = ([0-9.e+-]+)", out, re.M).group(1))
    assert stated == pytest.approx(max(held.values()), rel=1e-5)


def test_a_ring_all_reduce_inside_a_formula_prints_by_name(capsys):
    """Written out, the protocol NCCL's tuner runs repeats every protocol's two forms in each condition: derive printed
    decode_time_comm_estimate at 70B tp 8 in 60 KB (21 KB before the tuner's choice).  The ring prints as
    t_ring(n, Z), said once under the formula; the value is the formula's, which the printing does not touch."""
    spec = str(SPECS / "llama70b-h100-tp8.yaml")
    assert main(["derive", "decode_time_comm_estimate", "--spec", spec]) == 0
    out = capsys.readouterr().out
    assert len(out) < 10_000
    formula = re.search(r"^  tilde\{t\}_x = (.*)$", out, re.M).group(1)
    assert "t_ring(n_TP, B b_a d/Min(B, n_St))" in formula and "Piecewise" not in formula
    assert re.search(r"^  LaTeX: .*t_\{ring\}", out, re.M)
    assert re.search(r"^  where t_ring\(n, Z\): one ring all-reduce", out, re.M)
    value = float(re.search(r"^  tilde\{t\}_x = ([0-9.e+-]+) s$", out, re.M).group(1))
    # batch 1: 80 layers x 2 all-reduces of 16 KiB with LL, 6.6 + 14 x 0.6 us + 14/8 x 16,384 B / 141 GB/s
    assert value == pytest.approx(160 * (15.0e-6 + 14 / 8 * 16384 / 141e9), rel=1e-5)


def test_the_crossover_batch_on_one_gpu_has_no_candidate_and_no_error(capsys):
    """The same quantity for Llama 3.1 8B on one L40S (tp 1: no all-reduce): a candidate's condition compared 0/0
    (no collective, no protocol to price) and derive stopped with "internal error: TypeError: Invalid NaN
    comparison"; a root below zero was listed as a candidate batch. Each is said in words, and B_x* has none."""
    spec = str(SPECS / "llama8b-h100.yaml")
    assert main(["derive", "comm_hbm_crossover_batch", "--spec", spec, "--set", "hardware=l40s",
                 "--context", "4096", "--no-latex"]) == 0
    out = capsys.readouterr().out
    line = re.search(r"^  candidates: (.*)$", out, re.M).group(1)
    assert "k_LL_LL128 = (no value: its condition has none at this spec)" in line
    assert "k_LL = none (-29.2343 is not a batch)" in line
    assert not re.findall(r"k_\w+ = -", line)  # no negative count stated as a batch
    assert re.search(r"^  B_x\* = none", out, re.M)


def test_b_p_speculating_prints_as_the_report_writes_it(capsys):
    """``derive compute_batch_speculative`` printed a sum of 30 terms over one denominator with "p_a p_a^k_d" in it
    (review, stop 77): now the replica's compute over the request's FLOPs, each part named and written as built, and
    the parts' values at a spec (DeepSeek-V3's MTP head: E = (1 - 0.85^2) / 0.15 = 1.85 tokens a round; the
    formula's own B_P, 202.179, tests/test_speculative_compute_batch.py counts by hand)."""
    assert main(["derive", "compute_batch_speculative", "--spec", str(SPECS / "deepseek-v3-h200-ep8.yaml")]) == 0
    out = capsys.readouterr().out
    assert "  B_P,theta,spec = C_r/(F_p + (T_out - 1) (F_1 n_v + f_d k_d)/E)\n" in out
    assert "      C_r = P n_St n_TP theta (T_out - 1)\n" in out
    # E capped at the tokens the request makes after its first (formulas/techniques.py request_expected_tokens)
    assert "      E = Min((1 - p_a^(k_d + 1))/(1 - p_a), T_out - 1)\n" in out and "p_a p_a^k_d" not in out
    assert re.search(r"^  parts: C_r = [0-9.e+]+ FLOP, F_1 = [0-9.e+]+ FLOP, F_p = [0-9.e+]+ FLOP, E = 1.85 token$",
                     out, re.M), out
    assert re.search(r"^  inputs: .*f_d = 4.30747e\+09 FLOP.*k_d = 1 token.*n_v = 2", out, re.M), out
    assert "  B_P,theta,spec = 202.179" in out
