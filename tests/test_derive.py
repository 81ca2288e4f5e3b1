"""``genreport derive`` and formulas/solve.py: closed forms solved for any symbol (issue 5).

Reference numbers are computed by hand from the spec values quoted here (Llama 3.1 8B: N = 8.03e9,
L = 32, H_q = 32, H_kv = 8, d_h = 128; H100 SXM: P = 989.4 TFLOP/s, W = 3.35 TB/s, C = 80 GiB; bf16),
and seed 003 section 3 for S* = 2 W N / (P c - 4 W L d).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from genreport.commands.cli import main as cli_main
from genreport.formulas import solve as so
from genreport.formulas.compiled import load
from genreport.formulas.glossary import sym
from genreport.formulas.quantities import BY_ID
from genreport.load.loader import load_report
from genreport.model.evaluate import make_env
from shared import ROOT, SPECS, derive_reads

SPEC = str(ROOT / "specs" / "llama8b-h100.yaml")

# Hand values (see the module docstring).
N, L, HQ, HKV, DH = 8.03e9, 32.0, 32.0, 8.0, 128.0
P, W, C = 989.4e12, 3.35e12, 80 * 2.0**30
B_W = B_KV = 2.0
KV = 2 * L * HKV * DH * B_KV  # c = 131,072 B/token
S_STAR = 2 * N * W / (P * KV - 4 * W * L * HQ * DH)  # 420.56 tokens, seed 003 section 3


def run(capsys, *argv) -> tuple[int, str, str]:
    rc = cli_main(["derive", *argv])
    out = capsys.readouterr()
    return rc, out.out, out.err


def number_after(text: str, prefix: str) -> float:
    m = re.search(re.escape(prefix) + r"\s*([-+0-9.e]+)", text)
    assert m, f"no '{prefix}' in:\n{text}"
    return float(m.group(1))


# ----------------------------------------------------------------------------------------------- pure functions

def test_critical_context_closed_form_is_the_seeds():
    W_, N_, P_, c, L_, H_q, d_h = (sym(x) for x in ("W", "N", "P", "c", "L", "H_q", "d_h"))
    expr = so.quantity_expr("critical_context", "seed")
    assert sp.simplify(expr - 2 * W_ * N_ / (P_ * c - 4 * W_ * L_ * H_q * d_h)) == 0
    qsym, _ = so.quantity_symbol("critical_context")
    assert so.text(qsym, expr) == "S* = 2 N W/(P c - 4 H_q L W d_h)"


def test_solving_for_w_and_substituting_back_gives_w():
    s = so.solve_quantity("critical_context", sym("W"), "seed")
    (root,) = s.branches[0].roots
    assert so.text(s.target, root, s.names) == "W = P S* c/(4 H_q L S* d_h + 2 N)"
    qsym, _ = so.quantity_symbol("critical_context")
    back = root.subs(qsym, so.quantity_expr("critical_context", "seed"))
    assert sp.simplify(back - sym("W")) == 0


def test_quantity_symbol_names():
    assert so.plain_name("critical_context", "S^{*}") == "S*"
    assert so.plain_name("crossover_batch", "B^{*}(S)") == "B*"
    assert so.plain_name("decode_intensity_ceiling", r"I_{\infty}(S)") == "I_inf"
    assert so.quantity_symbol("ridge_point")[0] == sym("R")  # a glossary name is the glossary symbol


def test_target_inside_c_expands_c_and_floor_is_dropped():
    s = so.solve_quantity("capacity_batch", sym("H_kv"), "seed", value=sp.Integer(128))
    assert s.expanded == ("c",) and s.floor_dropped
    (root,) = s.branches[0].roots
    C_, N_, b, L_, S_, b_kv, d_h = (sym(x) for x in ("C", "N", "b", "L", "S", "b_kv", "d_h"))
    assert sp.simplify(root - (C_ - N_ * b) / (256 * L_ * S_ * b_kv * d_h)) == 0


def test_max_is_split_into_its_branches():
    s = so.solve_quantity("decode_tokens_per_s", sym("S"), "seed")
    labels = [b.label for b in s.branches]
    assert sorted(labels) == ["compute-bound", "memory-bound"]
    assert all(b.roots for b in s.branches)


def test_a_symbol_the_quantity_does_not_contain():
    s = so.solve_quantity("decode_intensity_ceiling", sym("W"), "seed")
    assert not s.branches and "does not depend on W" in s.note
    ridge = so.value_expr(so.parse_value("ridge_point", BY_ID), "seed")
    s = so.solve_quantity("decode_intensity_ceiling", sym("W"), "seed", value=ridge)
    (root,) = s.branches[0].roots  # I_inf(S) = P/W solved for W: the same W as critical_context at S* = S
    crit = so.solve_quantity("critical_context", sym("W"), "seed").branches[0].roots[0]
    qsym, _ = so.quantity_symbol("critical_context")
    assert sp.simplify(root - crit.subs(qsym, sym("S"))) == 0


def test_parse_value_never_sympifies():
    v = so.parse_value("0.9*ridge_point", BY_ID)
    assert so.value_expr(v, "seed") == sp.Rational(9, 10) * sym("P") / sym("W")
    assert so.value_expr(so.parse_value("8k", BY_ID), "seed") == 8192
    assert so.value_expr(so.parse_value("N/2", BY_ID), "seed") == sym("N") / 2  # the glossary N, not sympy.N
    for bad in ('__import__("os")', "E", "I", "S**2", "1+2", "ridge_point()", "x.y", ""):
        with pytest.raises(so.BadValue):
            so.parse_value(bad, BY_ID)


def test_numeric_roots_bracket_and_bisect():
    assert so.numeric_roots(lambda x: x**2 - 2.0) == pytest.approx([2**0.5], rel=1e-9)
    assert so.numeric_roots(lambda x: (x - 3.0) * (x - 4000.0)) == pytest.approx([3.0, 4000.0], rel=1e-9)
    assert so.numeric_roots(lambda x: 1.0 / (x - 5.0)) == []  # a pole is not a root
    assert so.numeric_roots(lambda x: x + 1.0) == []


# ----------------------------------------------------------------------------------------------- the command

def test_derive_critical_context_prints_the_closed_form(capsys):
    rc, out, _ = run(capsys, "critical_context")
    assert rc == 0
    assert "S* = 2 N W/(P c - 4 H_q L W d_h)" in out
    assert r"S^{*} = \frac{2 N W}{P c - 4 H_{q} L W d_{h}}" in out


def test_derive_critical_context_with_the_spec(capsys):
    rc, out, _ = run(capsys, "critical_context", "--spec", SPEC)
    assert rc == 0
    assert number_after(out.split("inputs:")[1], "S* =") == pytest.approx(S_STAR, rel=1e-5)
    assert round(S_STAR) == 421 and "(rounded: 421)" in out


def test_derive_for_w_round_trips_to_the_input_bandwidth(capsys):
    rc, out, _ = run(capsys, "critical_context", "--for", "W", "--spec", SPEC)
    assert rc == 0
    assert "W = P S* c/(4 H_q L S* d_h + 2 N)" in out
    assert number_after(out, "    W =") == pytest.approx(W, rel=1e-5)


def test_bandwidth_for_a_critical_context_of_1024(capsys):
    want = P * 1024 * KV / (2 * N + 4 * L * HQ * DH * 1024)  # 8.0012 TB/s
    rc, out, _ = run(capsys, "critical_context", "--for", "W", "--at", "critical_context=1024", "--spec", SPEC)
    assert rc == 0
    assert "W = 512 P c/(2048 H_q L d_h + N)" in out
    assert number_after(out.split("at S* = 1024")[1], "    W =") == pytest.approx(want, rel=1e-5)
    # the same question asked of the ceiling: I_inf(1024) = P/W
    rc, out2, _ = run(capsys, "decode_intensity_ceiling", "--for", "W", "--at", "decode_intensity_ceiling=ridge_point",
                      "--context", "1024", "--spec", SPEC)
    assert rc == 0
    assert number_after(out2.split("at I_inf = ridge_point")[1], "    W =") == pytest.approx(want, rel=1e-5)


def test_kv_heads_at_which_a_batch_fits(capsys):
    want = (C - N * B_W) / (2 * 128 * L * 8192 * DH * B_KV)  # 4.065: at most 4 KV heads
    rc, out, _ = run(capsys, "capacity_batch", "--for", "H_kv", "--at", "capacity_batch=128", "--context", "8k",
                     "--spec", SPEC)
    assert rc == 0
    assert "expanded c = 2 L H_kv d_h b_kv" in out and "floor dropped" in out
    tail = out.split("at B_cap = 128")[1]
    assert number_after(tail, "    H_kv =") == pytest.approx(want, rel=1e-5)
    assert "while H_kv <=" in tail


def test_batch_reaching_90_percent_of_peak(capsys):
    rc, out, _ = run(capsys, "decode_intensity", "--for", "B", "--at", "decode_intensity=0.9*ridge_point",
                     "--context", "128", "--spec", SPEC)
    assert rc == 0
    batch = number_after(out.split("at I = 0.9*ridge_point")[1], "    B =")
    env = make_env(*_spec_parts(), "seed").at(batch=batch, context=128.0)
    q = load()
    assert float(q["decode_intensity"](env)) == pytest.approx(0.9 * P / W, rel=1e-6)
    # at 8k the ceiling is below 0.9 R: no batch gets there
    rc, out, _ = run(capsys, "decode_intensity", "--for", "B", "--at", "decode_intensity=0.9*ridge_point",
                     "--context", "8k", "--spec", SPEC)
    assert "is not positive" in out


def _spec_parts():
    spec = load_report(Path(SPEC))
    return spec.hardware, spec.model, spec.precision


def test_no_closed_form_falls_back_to_a_numeric_root(capsys, monkeypatch):
    rc, out, _ = run(capsys, "critical_context", "--for", "W", "--at", "critical_context=1024", "--spec", SPEC)
    closed = number_after(out.split("at S* = 1024")[1], "    W =")
    monkeypatch.setattr(so, "_solve", lambda *a, **k: ((), "SymPy found no closed form"))
    rc, out, _ = run(capsys, "critical_context", "--for", "W", "--at", "critical_context=1024", "--spec", SPEC)
    assert rc == 0
    tail = out.split("at S* = 1024")[1]
    assert "SymPy found no closed form" in tail and "numeric root" in tail
    assert number_after(tail, "    W =") == pytest.approx(closed, rel=1e-5)


def test_mixture_of_experts_batch_needs_a_numeric_root(capsys, tmp_path):
    models = {p.stem for p in (ROOT / "specs" / "models").glob("*.yaml")}
    if "mixtral-8x7b" not in models:
        pytest.skip("no mixtral-8x7b in the catalog")
    spec = tmp_path / "moe.yaml"
    spec.write_text("kind: report\nname: moe\ntitle: t\nhardware: h200\nmodel: mixtral-8x7b\nprecision: bf16\n"
                    "workloads:\n  decode:\n    batch: [1]\n    context: [1k]\n")
    rc, out, _ = run(capsys, "decode_intensity", "--for", "B", "--at", "decode_intensity=0.5*ridge_point",
                     "--spec", str(spec))
    assert rc == 0
    tail = out.split("at I = 0.5*ridge_point")[1]
    assert "mixture of experts" in tail and "numeric root" in tail
    batch = number_after(tail.split("numeric root")[0].splitlines()[-1], "B =")
    s = load_report(spec)
    env = make_env(s.hardware, s.model, s.precision, "seed").at(batch=batch, context=1024.0)
    assert float(load()["decode_intensity"](env)) == pytest.approx(0.5 * float(env["P"]) / float(env["W"]), rel=1e-6)


def test_elasticities_option(capsys):
    rc, out, _ = run(capsys, "weight_stream_time", "--spec", SPEC, "--elasticities")
    assert rc == 0
    assert re.search(r"W\s+-1\.0000", out) and re.search(r"N\s+\+1\.0000", out)


def test_elasticities_of_a_quantity_with_no_value_are_none(capsys):
    """Llama 3.1 8B on one H100 at 1,024 tokens: the ceiling 2 N / (S c) + 4 H_q L d_h / c stays below the ridge
    (the hand count: 4 x 32 x 32 x 128 / 131,072 = 4 FLOP/B of attention, 2 x 8.03e9 / (1024 x 131,072) = 119.6 of
    weights, 123.6 < 989.4e12 / 3.35e12 = 295.3), so B* = N P b / (...) has a negative denominator and no value;
    its derivatives (P +1.0, c -1.5 ...) are not a quantity's elasticities, and the report's sensitivity table
    leaves the row out (model/shown.py: sensitivities)."""
    ceiling = 4 * HQ * L * DH / KV + 2 * N / (1024 * KV)
    assert ceiling < P / W  # the hand count: no batch crosses the ridge at 1,024 tokens
    rc, out, _ = run(capsys, "crossover_batch", "--spec", SPEC, "--context", "1024", "--elasticities")
    assert rc == 0 and "B* = none" in out
    tail = out.split("B* = none")[1]
    assert "elasticities: none: B* has no value at this point" in tail
    assert not re.search(r"^\s+[A-Za-z_]+\s+[-+]\d\.\d{4}$", tail, re.M)  # no derivative printed
    # where it has a value the elasticities stay: at 1,024 tokens on Mixtral 8x22B, tp 8 x ep 8
    rc, out, _ = run(capsys, "crossover_batch", "--spec", str(SPECS / "mixtral8x22b-h100-tp8-ep8.yaml"),
                     "--context", "1024", "--elasticities")
    assert rc == 0 and "B* = none" not in out and re.search(r"^\s+N\s+\+1\.0000$", out, re.M)


def test_an_moes_elasticities_leave_the_batch_out(capsys):
    """DeepSeek-V3 reads the experts its batch touches, so N grows with B; d ln q / d ln B at fixed N (+0.97 at batch
    1) is not what a larger batch does, and the report's table leaves B out for a mixture of experts. A dense model
    keeps B."""
    rc, out, _ = run(capsys, "decode_tokens_per_s", "--spec", str(SPECS / "deepseek-v3-h200-ep8.yaml"),
                     "--batch", "1", "--context", "32768", "--elasticities")
    tail = out.split("elasticities d ln q")[1]
    assert rc == 0 and "B left out" in tail and not re.search(r"^\s+B\s+[-+]", tail, re.M)
    assert re.search(r"^\s+W\s+\+1\.0000$", tail, re.M)
    rc, out, _ = run(capsys, "decode_tokens_per_s", "--spec", SPEC, "--batch", "1", "--context", "1024",
                     "--elasticities")
    tail = out.split("elasticities d ln q")[1]
    assert rc == 0 and "B left out" not in tail and re.search(r"^\s+B\s+\+", tail, re.M)


def test_list_and_errors(capsys):
    rc, out, _ = run(capsys, "--list")
    assert rc == 0 and "critical_context" in out and "decode_tokens_per_s" in out
    rc, _, err = run(capsys, "critical_contxt")
    assert rc == 1 and "no quantity 'critical_contxt'" in err and "did you mean 'critical_context'" in err
    rc, _, err = run(capsys, "critical_context", "--for", "Z")
    assert rc == 1 and "no symbol 'Z'" in err
    rc, _, err = run(capsys, "critical_context", "--for", "W", "--at", 'critical_context=__import__("os")')
    assert rc == 1 and "cannot read" in err
    rc, _, err = run(capsys, "critical_context", "--at", "critical_context=5")
    assert rc == 1 and "needs --for SYMBOL" in err


def test_exact_suffix_selects_the_exact_accounting(capsys):
    rc, out, _ = run(capsys, "critical_context_exact", "--spec", SPEC)
    assert rc == 0 and "accounting: exact" in out
    exact = number_after(out.split("inputs:")[1], "S* =")
    spec = load_report(Path(SPEC))
    env = make_env(spec.hardware, spec.model, spec.precision, "exact").at()
    assert exact == pytest.approx(float(np.asarray(load()["critical_context"](env))), rel=1e-5)


# DeepSeek-V3 fp8 on 16 H200 at tp 8 x pp 2 (the committed ep8 spec's model, another layout), and gpt-oss-20b at its
# checkpoint's formats (MXFP4 experts, bf16 rest: openai/gpt-oss-20b config.json quantization_config) on one H20 in
# the exact accounting: the layouts where rev4 found derive stating another number than results.json (task h30p).
PP2 = ("parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1", "parallelism.ep=1", "serving.chunk=2048")
OSS = ("model=gpt-oss-20b", "precision.weights=checkpoint", "hardware=h20", "accounting=exact")


def _stated(capsys, qid: str, spec: str, sets: tuple, *args) -> tuple[float, str]:
    from genreport.commands.cli import main

    argv = ["derive", qid, "--spec", spec, "--no-latex", *args]
    for s in sets:
        argv += ["--set", s]
    assert main(argv) == 0
    out = capsys.readouterr().out
    line = [x for x in out.splitlines() if x.startswith("  ") and x.split("=")[0].strip() in ("tok_s", "I")][-1]
    return float(line.split("=")[-1].split()[0]), out


@pytest.mark.parametrize("spec, sets, qid, acc, args, params", [
    ("deepseek-v3-h200-ep8.yaml", PP2, "decode_tokens_per_s", "seed", ("--batch", "1", "--context", "1k"),
     {"batch": 1, "context": 1024}),
    ("deepseek-v3-h200-ep8.yaml", PP2, "intensity_at_capacity", "seed", ("--context", "1k"), {"context": 1024}),
    ("llama8b-h100.yaml", OSS, "intensity_at_capacity", "exact", ("--context", "1k"), {"context": 1024}),
])
def test_derive_states_the_reports_number_at_its_scope(capsys, spec, sets, qid, acc, args, params):
    """At pp 2 derive stated one GPU's step (2,026 token/s at batch 1) for the replica's round rate the report
    states (1,030: the token passes both stages), and the closed form's intensity at capacity with the held N b for
    the bytes read (217 FLOP/B; the report's 165 reads what the capacity batch reads, each micro-batch streaming
    the slice again); gpt-oss-20b's 224.5 against 226.4 (mixed formats: a step reads the MXFP4 experts' bytes and
    not the input embedding).  derive now prints the report's value and says its scope."""
    from shared import evaluated

    r = evaluated(spec, sets)
    derive_reads(spec, evaluated(spec, sets), sets)  # derive's evaluation: the session's (tests/shared.py)
    want = r.value(qid if acc == "seed" else qid + "_exact", acc, **params)
    got, out = _stated(capsys, qid, str(SPECS / spec), sets, *args)
    assert got == pytest.approx(want, rel=1e-5)
    assert "scope: the report's value" in out


@pytest.mark.parametrize("qid,argv,prefix", [("kv_capacity_tokens", ("--batch", "1"), "S_max ="),
                                              ("capacity_batch", ("--batch", "1", "--context", "8k"), "B_cap =")])
def test_a_batch_beside_a_capacity_keeps_every_expert_held(capsys, qid, argv, prefix):
    """A capacity holds every weight a GPU keeps: `--batch 1` beside it made DeepSeek-V3's N the experts one
    token reads at tp 1 x ep 8 x dp 8 (kv_capacity_tokens 8.1% above the report's).  derive states the report's."""
    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    derive_reads("deepseek-v3-h200-ep8.yaml", evaluated("deepseek-v3-h200-ep8.yaml"))
    params = {} if qid == "kv_capacity_tokens" else {"context": 8192}
    (want,) = [e.value for e in r.entries if e.id == qid and e.params == params]
    rc, out, _ = run(capsys, qid, "--spec", str(SPECS / "deepseek-v3-h200-ep8.yaml"), "--no-latex", *argv)
    assert rc == 0 and "the batch given does not enter" in out
    assert number_after(out, prefix) == pytest.approx(want, rel=1e-5)
    # the header names the point the quantity takes, no "batch = 1" beside the note that the batch does not enter
    header = next(line for line in out.splitlines() if line.startswith("deepseek-v3-h200-ep8 ("))
    assert "batch = " not in header and ("context = 8192" in header) == (qid == "capacity_batch")


def test_critical_context_past_a_window_says_the_closed_form_does_not_hold(capsys, tmp_path):
    """gpt-oss-20b (24 layers, 12 of them windowed at 128; specs/models/gpt-oss-20b.yaml from its config.json) on
    one H100: the report states S* solved numerically with the windows; derive printed that value under the
    closed form and inputs that give another, and a --context shrank c before solving (a third value)."""
    from shared import evaluated

    spec = tmp_path / "oss.yaml"
    spec.write_text("kind: report\nname: oss\ntitle: t\nhardware: h100-sxm\nmodel: gpt-oss-20b\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n")
    derive_reads(spec, results := evaluated(spec))  # derive's evaluation of the spec: this one
    (want,) = [e.value for e in results.entries if e.id == "critical_context"]
    rc, out, _ = run(capsys, "critical_context", "--spec", str(spec), "--no-latex")
    value = re.compile(r"^  S\* = ([0-9.e+]+) token", re.M)
    assert rc == 0 and float(value.search(out).group(1)) == pytest.approx(want, rel=1e-5)
    closed = number_after(out, "the closed form above at these inputs gives")
    assert closed < want and "sliding window" in out
    rc, out, _ = run(capsys, "critical_context", "--spec", str(spec), "--no-latex", "--context", "1k")
    assert rc == 0 and float(value.search(out).group(1)) == pytest.approx(want, rel=1e-5)


def test_the_pools_share_with_a_prefix_cache_is_the_chapters(capsys):
    """With prefix caching a prefill replica prefills the prompt's uncached part alone at the layout (the serving
    chapter's disaggregation row: serving.prompt_prefill, the rows' prefill); derive took the whole TTFT for t_pr and
    stated another share than the chapter (Llama 3.1 405B fp8 at tp 8 x pp 2 on 16 H100, prefix 0.2: 0.594 for the
    chapter's 0.539)."""
    from shared import evaluated

    sets = ("model=llama-3.1-405b", "precision=fp8", "parallelism.pp=2", "serving.prefix_hit=0.2")
    r = evaluated("llama70b-h100-tp8.yaml", sets)
    derive_reads("llama70b-h100-tp8.yaml", evaluated("llama70b-h100-tp8.yaml", sets), sets)
    share = r.serving["techniques"]["numbers"]["prefill_share"]
    sets_argv = [x for s in sets for x in ("--set", s)]
    rc, out, _ = run(capsys, "balanced_prefill_gpus", "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--no-latex",
                     *sets_argv)
    assert rc == 0
    assert number_after(out, "n_P* =") == pytest.approx(share, rel=1e-5)
    assert "t_pr = " in out and "of the prompt's uncached part at the layout (the rows' prefill)" in out


def test_a_pipeline_rounds_streamed_weights_are_not_called_n_g(capsys):
    """At tp 8 x pp 2 a steady-state round streams the GPU's slice once per micro-batch, min(n_PP, B) N_g: the report
    calls it N_r,g (the slice table and glossary define N_g as the slice a GPU holds, 25.23B for Llama 3.1 405B fp8 on
    16 H100, its first stage's: the output head, 128,256 x 16,384, is the last stage's). derive printed
    "N_g = 5.07312e+10" (the even split's) under "a symbol marked _g holds that GPU's slice"."""
    sets = ("model=llama-3.1-405b", "precision=fp8", "parallelism.pp=2", "serving.prefix_hit=0.2")
    argv = [x for s in sets for x in ("--set", s)]
    rc, out, _ = run(capsys, "goodput_rate_tpot", "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--no-latex", *argv)
    assert rc == 0
    inputs = next(line for line in out.splitlines() if line.startswith("  inputs: "))
    assert "N_r,g = 5.04722e+10" in inputs and "N_g = " not in inputs
    rc, out, _ = run(capsys, "crossover_batch", "--spec", str(SPECS / "llama70b-h100-tp8.yaml"), "--no-latex", *argv,
                     "--context", "1k")
    inputs = next(line for line in out.splitlines() if line.startswith("  inputs: "))
    # the crossover as the report states it (Env.crossover_at): a full pipeline streams the slice n_PP times (N_r,g)
    # and computes with it once (N_a,g), printed apart; one stream (N_g) gave half the report's batch
    assert rc == 0 and "N_r,g = 5.04722e+10" in inputs and "N_a,g = 2.52361e+10" in inputs and "N_g = " not in inputs


# ----------------------------------------------------------------------------------------------- windows and chunks
#
# Gemma 3 27B (specs/models/gemma-3-27b.yaml, from its config.json): 62 layers, five 1,024-token sliding-window layers
# per global one (52 windowed, 10 global), head_dim 128.  Llama 4 Maverick (llama-4-maverick.yaml): 48 layers, three
# chunked layers of 8,192-token chunks per global one (36 chunked, 12 global), head_dim 128.

WINDOWED = """\
kind: report
name: win
title: Gemma 3 27B on 4 L4
hardware: l4
model: gemma-3-27b
precision: {weights: int4, kv_cache: fp8, compute: bf16}
parallelism: {tp: 4}
workloads:
  decode: {batch: [1, 32], context: [4k, 64k]}
  prefill: {prompt: [1k, 32k]}
"""


def _value(out: str) -> float:
    """The value line's number: the last line but the scope line a layout's value ends with."""
    last = [line for line in out.strip().splitlines() if not line.startswith("  scope: ")][-1]
    return float(last.split("=")[-1].split()[0])


def test_a_windowed_models_inputs_say_why_d_h_is_not_its_own(capsys, tmp_path):
    """At a 4k context a token of Gemma 3 27B reads (10 x 4,096 + 52 x 1,024) / (62 x 4,096) = 0.371 of the positions of
    62 full layers: derive prints d_h = 47.48 and says why; a model without windows gets no such line."""
    spec = tmp_path / "win.yaml"
    spec.write_text(WINDOWED)
    rc, out, _ = run(capsys, "decode_time_bound", "--spec", str(spec))
    share = (10 * 4096 + 52 * 1024) / (62 * 4096)
    assert rc == 0 and f"d_h = {128 * share:.6g}" in out
    assert (f"(62 layers: 10 global, 52 windowed (1,024 tokens); at S = 4,096 a token attends {share:.4g} of the "
            f"positions it would in full layers, so d_h = 128 x {share:.4g}, and c is the cache of the positions read)"
            in out)
    rc, out, _ = run(capsys, "decode_time_bound", "--spec", str(spec), "--at", "d_h=64")  # the user's d_h: no reason
    assert rc == 0 and "d_h = 64" in out and "layers:" not in out
    rc, out, _ = run(capsys, "decode_time_bound", "--spec", SPEC)
    assert rc == 0 and "layers:" not in out and "d_h = 128" in out


def test_a_chunked_layer_at_a_chunk_boundary_reads_nothing(capsys, tmp_path):
    """Maverick at S = 8,192: its 36 chunked layers start a new chunk and read S mod 8,192 = 0 tokens, so a token
    attends 12 / 48 = 0.25 of the positions: d_h = 32 in the inputs, with the reason."""
    spec = tmp_path / "mav.yaml"
    spec.write_text("kind: report\nname: mav\ntitle: t\nhardware: b200\nmodel: llama-4-maverick\nprecision: fp8\n"
                    "parallelism: {tp: 8, ep: 8}\nworkloads:\n  decode: {batch: [1], context: [8k]}\n")
    rc, out, _ = run(capsys, "decode_time_bound", "--spec", str(spec))
    assert rc == 0 and "d_h = 32," in out
    assert "36 chunked (8,192-token chunks; S mod 8,192 = 0 tokens of the current one)" in out
    assert "a token attends 0.25 of the positions" in out


def test_at_a_workload_symbol_evaluates_the_point_there(capsys, tmp_path):
    """--at T=32768 on the windowed spec, whose first prompt is 1k: the windows' share follows the prompt (a 32k prompt
    attends 0.2129 of the causal attention of full layers), so the value is --tokens 32768's and the report's, not
    the 1k prompt's d_h applied at 32k (4.59 s where the report says 3.71 s); the same for --at S."""
    from genreport.model.evaluate import evaluate

    spec = tmp_path / "win.yaml"
    spec.write_text(WINDOWED)
    report = evaluate(load_report(spec)).parallel.prefill["seed"]["prefill_time_bound"][1]
    at = run(capsys, "prefill_time_bound", "--spec", str(spec), "--at", "T=32768")
    given = run(capsys, "prefill_time_bound", "--spec", str(spec), "--tokens", "32768")
    assert at[0] == given[0] == 0 and _value(at[1]) == _value(given[1]) == pytest.approx(report, rel=1e-5)
    assert "a prompt of T = 32,768 tokens attends 0.2129 of the causal attention" in at[1]
    s_at = run(capsys, "decode_time_bound", "--spec", str(spec), "--at", "S=65536")
    s_given = run(capsys, "decode_time_bound", "--spec", str(spec), "--context", "64k")
    assert _value(s_at[1]) == _value(s_given[1]) and "at S = 65,536" in s_at[1]
    # the point itself, so no input is set apart from it: the same lines as --context gives, no "--at" scope
    assert s_at[1] == s_given[1] and "inputs set with --at" not in s_at[1]
    assert s_at[1].strip().splitlines()[-1].startswith("  scope: one replica's (4 GPUs of tp 4")  # the report's, stated
