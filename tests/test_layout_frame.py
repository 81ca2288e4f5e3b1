"""One evaluation at a layout: the seeds' formulas on one GPU's slice of the model.

Facts used (copied here with their sources):

* Llama 3.1 70B: 80 layers, hidden size 8192, 64 query heads, 8 KV heads, head dim 128, 70.6e9 parameters
  (Meta, Llama 3.1 model card and config.json); 320 KiB of bf16 KV per token = 2 x 80 x 8 x 128 x 2 B.
* H100 SXM: 80 GiB, 3.35 TB/s, 989.4 TFLOP/s dense bf16 (NVIDIA H100 datasheet).
* Tensor parallelism splits each layer's heads and FFN columns n_TP ways (Shoeybi et al. 2019, Megatron-LM,
  section 3); a pipeline stage holds L/n_PP layers (Narayanan et al. SC'21, section 2.2).

Hand counts for tp 8 (issue 26's table): 141.2e9 B / 8 = 17.65e9 B of weights per GPU, 17.65e9 / 3.35e12 =
5.27 ms per batch-1 step; (80 x 2^30 - 17.65e9) / 40,960 = 1,666,243 KV tokens per replica; 1,627 / 203 / 50
sequences of 1k / 8k / 32k.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
import sympy as sp
from genreport.commands.cli import main
from genreport.formulas import layout, parallel
from genreport.formulas.glossary import sym
from genreport.formulas.quantities import BY_ID
from genreport.load.loader import load_report
from genreport.model.env import Slice, layout_slice, make_env, routed_parameters, slice_values
from genreport.model.evaluate import evaluate
from shared import SPECS as ROOT_SPECS
from shared import derive_reads, evaluated, evaluated_text, rendered
from shared import page as page_of

GIB = 2**30

SPEC = """\
kind: report
name: {name}
title: Layout test
hardware: {hw}
model: {model}
precision: {precision}
engine: {{memory_reserve: 0, max_batched_tokens: 0, max_sequences: 0}}
parallelism: {{tp: {tp}, pp: {pp}, ep: {ep}, dp: {dp}}}
workloads:
  decode: {{batch: [1, 8, 64], context: [1k, 8k, 32k]}}
  prefill: {{prompt: [2k]}}
"""


def spec_at(tmp_path, model="llama-3.1-70b", hw="h100-sxm", precision="bf16", tp=1, pp=1, ep=1, dp=1):
    name = f"{model}-{hw}-{precision}-{tp}-{pp}-{ep}-{dp}".replace(".", "")
    path = tmp_path / f"{name}.yaml"
    path.write_text(SPEC.format(name=name, model=model, hw=hw, precision=precision, tp=tp, pp=pp, ep=ep, dp=dp),
                    encoding="utf-8")
    return load_report(path)


def value(r, qid, **params):
    e = r.entry(qid, **params)
    assert e is not None, (qid, params)
    return e.value


# ------------------------------------------------------------------------------------------- the formulas

SEED_IDS = ("weight_bytes", "weight_stream_time", "weight_flops_time", "kv_capacity_tokens", "attention_intensity",
            "critical_context", "decode_flops", "decode_bytes", "decode_time_memory", "decode_time_compute",
            "decode_intensity", "decode_intensity_ceiling", "crossover_batch", "capacity_batch", "prefill_flops",
            "prefill_bytes", "prefill_time_compute", "prefill_time_memory")


@pytest.mark.parametrize("qid", SEED_IDS)
def test_each_formula_at_the_layout_reduces_to_the_seeds_on_one_card(qid):
    expr = BY_ID[qid].expr()
    at_layout = layout.sliced(expr)
    assert at_layout.free_symbols & {sym("n_TP"), sym("n_PP")} or not (expr.free_symbols & set(layout.slice_inputs()))
    assert sp.simplify(layout.at_one_card(at_layout).subs(sym("N_x"), 0) - expr) == 0
    # with routed experts too: at 1 x 1 x 1 x 1 every GPU holds every expert
    assert sp.simplify(layout.at_one_card(at_layout) - expr) == 0


# Llama 3.1 70B's last pipeline stage of two holds 40 of its 80 layers (855,654,400 parameters each), the output head
# (128,256 x 8192) and the final norm, of the 70,553,706,496 its shapes count (tests/test_parallel.py): the memory
# formulas take that stage (genreport.model.stages), the time formulas the even split
# each GPU of tp 4 holds the norms whole (80 x 2 x 8,192 + 8,192 of them), 3 more copies (tests/test_tp_copies.py):
# the last stage's share of them (its 40 layers' and the final norm) beside its own
NORMS = 80 * 2 * 8192 + 8192
LAST_OF_TWO = ((40 * 855_654_400 + 128256 * 8192 + 8192 + 3 * (40 * 2 * 8192 + 8192))
               / (70_553_706_496 + 3 * NORMS))


def test_the_sliced_seed_ledgers_are_the_layout_formulas_of_one_gpu():
    """t_mem and t_comp of one GPU's slice equal formulas/parallel.py's per-GPU ledgers (one stage: m = 1).  The slice
    holds the redundant experts' replicas too (rho_x: its memory and capacity count them); a round reads each expert
    once, so the HBM ledgers agree without them."""
    one_stage = {sym("n_PP"): 1, sym("n_St"): 1, sym("s_st"): 0, sym("m_b"): 1}  # one stage: one micro-batch
    t_mem = layout.sliced(BY_ID["decode_time_memory"].expr()).subs(one_stage).subs(sym("rho_x"), 0)
    assert sp.simplify(t_mem - parallel.decode_time_memory_gpu().subs(one_stage).subs(sp.Min(1, sym("B")), 1)) == 0
    t_comp = layout.sliced(BY_ID["decode_time_compute"].expr())
    assert sp.simplify(t_comp - parallel.decode_time_compute_gpu()) == 0
    # the memory held: the stage that holds the fewest tokens (n_PW, n_PK), the even split where the stages are alike;
    # with stages the slice is a GPU of the busiest stage before the last, whose slice leaves the head to the last
    # stage (genreport.model.env.Env.held adds it back before n_PW divides the whole model)
    even = {sym("n_PW"): sym("n_PP"), sym("n_PK"): sym("n_PP"), sym("n_St"): 1}
    cap = layout.sliced(BY_ID["kv_capacity_tokens"].expr()).subs(sym("s_st"), 0)
    assert sp.simplify(cap - parallel.kv_capacity_tokens_replica().subs(even)) == 0
    w = layout.sliced(BY_ID["weight_bytes"].expr()).subs(sym("s_st"), 0)
    assert sp.simplify(w - parallel.weight_bytes_per_gpu().subs(even)) == 0
    # and with stages the busiest stage's ledgers are the slice's: its layers, the head on the last stage
    staged = {sym("n_St"): 2, sym("n_PP"): 2, sym("s_st"): 1}
    t_mem = layout.sliced(BY_ID["decode_time_memory"].expr()).subs(staged).subs(sym("rho_x"), 0)
    assert sp.simplify(t_mem - parallel.decode_time_memory_gpu().subs(staged).subs(sym("m_b"), 1)) == 0


def test_the_printed_slice_definitions_are_the_expressions():
    """formulas/slices.py's LaTeX names the same divisions as formulas/layout.slice_inputs."""
    from genreport.formulas.glossary import latex
    from genreport.formulas.slices import SLICE_DEFINITION, SLICE_LATEX

    for name, expr in layout.slice_inputs().items():
        dense, moe = SLICE_DEFINITION[name.name]
        printed = latex(expr.subs(sym("N_x"), 0) if name.name == "N" else expr)
        for tex in {dense, moe}:
            assert tex.startswith(SLICE_LATEX[name.name] + " = ")
        for part in ("n_{\\mathrm{TP}}", "n_{\\mathrm{PP}}", "s_{\\mathrm{kv}}", "N_{R}"):
            assert (part in printed) == (part in dense), (name, printed, dense)


@pytest.mark.parametrize("model,tp,pp,ep,dp", [("llama-3.1-70b", 8, 1, 1, 1), ("llama-3.1-70b", 4, 2, 1, 1),
                                               ("mixtral-8x22b", 4, 1, 8, 2), ("deepseek-v3", 1, 1, 8, 8),
                                               ("deepseek-v3", 8, 2, 8, 1)])
@pytest.mark.parametrize("accounting", ["seed", "exact"])
def test_the_numeric_slice_is_slice_inputs(model, tp, pp, ep, dp, accounting, tmp_path):
    spec = spec_at(tmp_path, model=model, hw="h200", precision="fp8", tp=tp, pp=pp, ep=ep, dp=dp)
    env = make_env(spec.hardware, spec.model, spec.precision, accounting, 0.0, spec.parallelism)
    cut = env.cut
    # n_PP is the layers over the busiest stage's: 61 / 31 for DeepSeek-V3's 61 layers over 2 stages (31 and 30)
    split = {61: {2: 61 / 31}}.get(spec.model.layers, {}).get(pp, pp)
    assert cut.split == pytest.approx(split, rel=1e-15)
    subs = {sym("n_TP"): tp, sym("n_PP"): split, sym("n_St"): pp, sym("s_st"): 1 if pp > 1 else 0, sym("n_EP"): ep, sym("s_kv"): cut.s_kv, sym("rho_x"): cut.rho,
            sym("N_x"): routed_parameters(env.card, env.pc, accounting), sym("N_R"): cut.copies}
    subs.update({sym(k): v for k, v in env.card.items()})
    for name, expr in layout.slice_inputs().items():
        assert float(expr.subs(subs)) == pytest.approx(env.values[name.name], rel=1e-12), name


def test_one_card_is_the_layout_one_by_one(tmp_path):
    """No separate code path: a spec with parallelism {tp: 1} states the single-card numbers bit for bit."""
    plain = evaluated("llama8b-h100.yaml")
    spec = plain.spec
    cut = layout_slice(spec.model, spec.parallelism)
    assert cut == Slice() and cut.trivial
    assert slice_values(plain.envs["seed"].card, cut, 0.0) == plain.envs["seed"].values
    one = evaluate(spec_at(tmp_path, model="llama-3.1-8b", tp=1))
    assert one.frame.many is False and one.one_card == {}
    ref = evaluate(load_report(_write(tmp_path, "llama-3.1-8b")))
    for qid in ("weight_bytes", "kv_capacity_tokens", "critical_context", "weight_stream_time"):
        assert one.scalars["seed"][qid] == ref.scalars["seed"][qid]
    for qid in ("decode_time_memory", "decode_intensity"):
        assert np.array_equal(one.decode["seed"][qid], ref.decode["seed"][qid])
    # the rate divides by the round, whose compiled form evaluates the last stage's ledgers beside the busiest
    # stage's (formulas.parallel.pipelined): on one stage the same number, up to the rounding of a shared 1 / W
    assert np.allclose(one.decode["seed"]["decode_tokens_per_s"], ref.decode["seed"]["decode_tokens_per_s"],
                       rtol=1e-15, atol=0.0)


def _write(tmp_path, model):
    path = tmp_path / "plain.yaml"
    text = SPEC.format(name="plain", model=model, hw="h100-sxm", precision="bf16", tp=1, pp=1, ep=1, dp=1)
    path.write_text(text.replace("parallelism: {tp: 1, pp: 1, ep: 1, dp: 1}\n", ""), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------- the numbers

def test_tp8_states_the_layout_numbers_by_hand(tmp_path):
    r = evaluate(spec_at(tmp_path, tp=8))
    # every GPU holds the norms whole (80 layers x 2 x 8,192 + the final 8,192 = 1,318,912 parameters, in bf16): the
    # replica holds 7 more copies of them, N_R = 9,232,384 (vLLM's RMSNorm weights are not sharded)
    copies = 7 * (80 * 2 * 8192 + 8192)
    assert copies == 9_232_384
    w = (141.2e9 + copies * 2) / 8
    assert value(r, "weight_bytes") == pytest.approx(w, rel=1e-12) and w == 17_652_308_096
    assert value(r, "weight_stream_time") == pytest.approx(w / 3.35e12, rel=1e-12)
    assert value(r, "kv_bytes_per_token") == 2 * 80 * 8 * 128 * 2 / 8
    assert math.floor(value(r, "kv_capacity_tokens")) == math.floor((80 * GIB - w) / 40960) == 1_666_187
    assert [value(r, "capacity_batch", context=s) for s in (1024, 8192, 32768)] == [1627, 203, 50]
    assert value(r, "parameters") == 70.6e9  # the model's count, not one GPU's
    assert value(r, "weight_bytes_one_card") == 141.2e9
    assert r.entry("kv_capacity_tokens_one_card").value is None  # one card holds no KV beside 141 GB
    assert value(r, "kv_capacity_tokens") == pytest.approx(value(r, "kv_capacity_tokens_replica"), rel=1e-12)
    assert r.verdicts["weights_fit"] is True and r.verdicts["weights_fit_one_card"] is False
    # every documented rate is the layout's: a replica's token/s at the strict bound of a round
    for b in (1, 8, 64):
        for s in (1024, 8192):
            tb = value(r, "decode_time_bound", batch=b, context=s)
            assert value(r, "decode_tokens_per_s", batch=b, context=s) == pytest.approx(b / tb, rel=1e-12)
            assert value(r, "decode_time_memory", batch=b, context=s) == pytest.approx(
                value(r, "decode_time_memory_gpu", batch=b, context=s), rel=1e-12)
            assert value(r, "decode_time_compute", batch=b, context=s) == pytest.approx(
                value(r, "decode_time_compute_gpu", batch=b, context=s), rel=1e-12)
    assert list(r.verdicts["decode_binds"][:, 0]) == ["bandwidth", "bandwidth", "bandwidth"]


def test_a_pipeline_streams_each_gpus_slice_once_per_micro_batch(tmp_path):
    r = evaluate(spec_at(tmp_path, tp=4, pp=2))
    assert value(r, "weight_bytes") == pytest.approx((141.2e9 + 3 * NORMS * 2) / 4 * LAST_OF_TWO, rel=1e-12)  # the last stage's
    assert value(r, "kv_bytes_per_token") == 2 * 80 * 8 * 128 * 2 / 8  # half the layers, a quarter of the heads
    for b in (1, 8, 64):  # m = min(pp, B) passes over the slice; the HBM ledger equals the layout formula's
        for s in (1024, 32768):
            assert value(r, "decode_time_memory", batch=b, context=s) == pytest.approx(
                value(r, "decode_time_memory_gpu", batch=b, context=s), rel=1e-12)
    # the crossover of a full pipeline, where compute meets m = n_PP weight passes over the busiest stage's slice:
    # B* = P m N_g b / ((2 N_a,g + 4 L_g H_q,g d_h S) W - P S c_g), its 40 layers without the output head (the last
    # stage's): N_g = N_a,g = (70.6e9 + 3 x 1,318,912 - 128,256 x 8,192) / 8 in the seed accounting, the norms each
    # GPU holds whole counted (N_R), 16 query heads, c_g = 40,960 B
    v = r.envs["seed"].values
    n_g = (70.6e9 + 3 * NORMS - 128256 * 8192) / 8
    assert v["N"] == pytest.approx(n_g, rel=1e-15) and v["N_a"] == pytest.approx(n_g, rel=1e-15)
    hand = v["P"] * 2 * n_g * 2 / ((2 * n_g + 4 * 40 * 16 * 128 * 1024) * v["W"] - v["P"] * 1024 * 40960)
    assert value(r, "crossover_batch", context=1024) == pytest.approx(hand, rel=1e-9)


def test_a_pipelines_printed_formulas_give_the_values_they_state(tmp_path):
    """Every chapter 1-4 formula block of a dense pipeline substitutes the inputs its stated value comes from: the
    crossover batch (a full pipeline streams the slice n_PP times, N_a once) printed arithmetic giving 931 beside
    the stated 1,862 for Llama 3.1 70B at tp 4 x pp 2 (twice the stage's, as the test above checks) when its block
    substituted one stream and printed N_a = N."""
    from genreport.formulas.variants import substitutions

    r = evaluate(spec_at(tmp_path, tp=4, pp=2))
    checked = 0
    for name, b in r.blocks.items():
        if name.startswith("tech_") or b.note or b.entry.value is None:
            continue
        vals = dict(b.inputs)
        for k, rule in substitutions(b.variant).items():  # what the printed variant writes in place of k
            if k in vals:
                vals[k] = 0.0 if rule == "0" else vals["N"] - (vals.get("N_e", 0.0) if rule != "N" else 0.0)
        shown = float(np.asarray(r.q[b.entry.id]({**r.envs[b.entry.accounting].at(), **vals}), dtype=float))
        assert shown == pytest.approx(b.entry.value, rel=1e-9), name
        checked += 1
    crossover = r.blocks["crossover"]
    assert crossover.inputs["N"] == pytest.approx(2 * crossover.inputs["N_a"], rel=1e-12)  # two micro-batches
    assert crossover.entry.value == pytest.approx(value(r, "crossover_batch", context=1024), rel=1e-12)
    assert checked >= 10


def test_the_kv_formula_names_the_gpus_bytes_per_token_c_g():
    """Chapter 4's KV-bytes formula at a layout states one GPU's bytes (Llama 3.1 70B at tp 8: 2 x 1 x 80 x 2 x 128 =
    40,960 B, the slice table's c_g; the whole model's c is 327,680 B): its left side reads c_g, not c.  One card
    keeps c."""
    from genreport.present.render import Formulas

    r = evaluated("llama70b-h100-tp8.yaml")
    b = r.blocks["kv"]
    assert b.entry.value == 2 * 1 * 80 * 2 * 128 == r.envs[r.lead].values["c"] != r.envs[r.lead].card["c"]
    assert Formulas(r).block(b)["symbolic_tex"].startswith("c_{g} = 2")
    one = evaluated("llama8b-h100.yaml")
    assert Formulas(one).block(one.blocks["kv"])["symbolic_tex"].startswith("c = 2")


def test_an_expert_group_inside_the_tp_group_names_no_link(tmp_path):
    """Mixtral 8x7B on 8 A100 40GB at tp 4 x ep 2 x dp 2: with ep <= tp each GPU runs its experts on every token the
    attention's all-reduce leaves it and the closing all-reduce sums them, no all-to-all (vLLM's expert parallelism
    inside the tensor-parallel group; formulas.parallel.ep_dispatches is 0): chapter 6 said "The ep group (2 GPUs)
    crosses scale-up" for a group that sends nothing; it says it sends nothing.  At ep 8 > tp 4 the group's link
    stays."""
    from shared import rendered

    def s7(**par):
        r = evaluate(spec_at(tmp_path, model="mixtral-8x7b", hw="a100-sxm-40gb", **par))
        html = rendered(r, "sections/s7_gpus.html.j2")
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html))

    inside = s7(tp=4, ep=2, dp=2)
    assert "The ep group (2 GPUs) crosses" not in inside and "The tp group (4 GPUs) crosses" in inside
    assert "The ep group (2 GPUs) sends nothing: with ep ≤ tp" in inside
    wider = s7(tp=4, ep=8, dp=2)
    assert "The ep group (8 GPUs) crosses" in wider and "sends nothing" not in wider


SERVED_PIPELINE = """\
kind: report
name: l70pp
title: Llama 2 70B in bf16 on 16 A100 80GB, served in chunks
hardware: a100-sxm-80gb
model: llama-2-70b
precision: bf16
parallelism: {tp: 8, pp: 2}
serving: {prompt: 4k, output: 512, tpot: 50 ms, users: 128, chunk: 512}
workloads:
  decode: {batch: [1, 64], context: [1k]}
"""


def test_a_served_pipelines_printed_formulas_and_derive_give_the_values_stated(tmp_path, capsys):
    """The serving chapter's blocks at tp 8 x pp 2 substitute the inputs their values come from: the chunked step
    (a round streams each slice once per micro-batch, N_a once) printed N_a = N, so its FLOP term read 2 N_g, and
    its arithmetic gave another number than the stated one (101.4 against 94.4 ms in a reviewer's report); and
    ``derive crossover_batch`` at the pipeline states the report's crossover (one stream gave half: 236 for 473)
    with N_a printed apart."""
    from genreport.formulas.variants import substitutions

    path = tmp_path / "l70pp.yaml"
    path.write_text(SERVED_PIPELINE, encoding="utf-8")
    r = evaluate(load_report(path))
    checked = set()
    for name, b in r.blocks.items():
        if b.note or b.entry.value is None:
            continue
        vals = dict(b.inputs)
        for k, rule in substitutions(b.variant).items():  # what the printed variant writes in place of k
            if k in vals:
                vals[k] = 0.0 if rule == "0" else vals["N"] - (vals.get("N_e", 0.0) if rule != "N" else 0.0)
        shown = float(np.ravel(np.asarray(r.q[b.entry.id]({**r.envs[b.entry.accounting].at(), **vals}),
                                          dtype=float))[0])
        assert shown == pytest.approx(b.entry.value, rel=1e-9), name
        checked.add(name)
    assert {"tech_chunked", "crossover"} <= checked
    chunked = r.blocks["tech_chunked"].inputs
    assert chunked["N"] == pytest.approx(2 * chunked["N_a"], rel=1e-12)  # two micro-batches' streams
    assert main(["derive", "crossover_batch", "--spec", str(path), "--context", "1k"]) == 0
    out = capsys.readouterr().out
    assert "2 N_a W" in out and "2 N W" not in out
    stated = value(r, "crossover_batch", context=1024)
    assert f"(rounded: {round(stated)})" in out and round(stated) > 400


@pytest.mark.parametrize("model,hw,precision,tp,pp,ep,dp", [
    ("llama-3.1-405b", "h100-sxm", "fp8", 8, 2, 1, 1),  # two nodes, pipeline across them
    ("deepseek-v3", "h200", "fp8", 1, 1, 8, 8),  # MLA, MoE, data-parallel attention over expert parallel
    ("mixtral-8x22b", "h100-sxm", "bf16", 4, 1, 4, 2),
    ("gemma-2-27b", "h100-sxm", "bf16", 2, 1, 1, 4),  # sliding windows on every other layer
])
def test_hard_layouts_state_one_gpu_and_one_replica(model, hw, precision, tp, pp, ep, dp, tmp_path):
    r = evaluate(spec_at(tmp_path, model=model, hw=hw, precision=precision, tp=tp, pp=pp, ep=ep, dp=dp))
    par = r.parallel
    assert value(r, "weight_bytes") == pytest.approx(value(r, "weight_bytes_per_gpu"), rel=1e-12)
    assert r.verdicts["weights_fit"] == (value(r, "weight_bytes") <= r.spec.hardware.capacity)
    cap = value(r, "kv_capacity_tokens")
    assert cap == pytest.approx(value(r, "kv_capacity_tokens_replica"), rel=1e-9)
    for s in r.spec.workloads.decode_context:
        assert value(r, "capacity_batch", context=s) == value(r, "capacity_batch_replica", context=s)
    binds = r.verdicts["decode_binds"]
    assert set(binds.ravel()) <= {"compute", "bandwidth", "interconnect", "capacity"}
    assert np.array_equal(par.binds, binds)
    for b in r.spec.workloads.decode_batch:
        for s in r.spec.workloads.decode_context:
            tps = value(r, "decode_tokens_per_s", batch=b, context=s)
            assert tps == pytest.approx(value(r, "decode_tokens_per_s_replica", batch=b, context=s), rel=1e-12)
            assert value(r, "decode_time_memory", batch=b, context=s) == pytest.approx(
                value(r, "decode_time_memory_gpu", batch=b, context=s), rel=1e-9)
    # no negative count anywhere, and the one-card counterparts under their own ids
    assert all(e.value is None or e.value >= 0 for e in r.entries if "capacity" in e.id)
    assert r.entry("weight_bytes_one_card") is not None


def test_mla_latent_is_replicated_over_the_tp_group(tmp_path):
    one = evaluate(spec_at(tmp_path, model="deepseek-v3", hw="h200", precision="fp8", tp=1, ep=8, dp=8))
    tp8 = evaluate(spec_at(tmp_path, model="deepseek-v3", hw="h200", precision="fp8", tp=8, ep=8, dp=1))
    assert value(tp8, "kv_bytes_per_token") == value(one, "kv_bytes_per_token")  # s_kv = 1: every GPU holds it
    # so one GPU's attention intensity falls n_TP times: each holds the whole latent for 1/8 of the heads
    assert value(tp8, "attention_intensity") == pytest.approx(value(one, "attention_intensity") / 8, rel=1e-12)


# ------------------------------------------------------------------------------------------- the outputs

def test_results_json_derive_and_the_summary_agree_with_the_layout(tmp_path, capsys):
    spec = spec_at(tmp_path, tp=4)
    r = evaluate(spec)
    assert main([str(spec.file), "--format", "json", "-o", str(tmp_path / "out")]) == 0
    doc = json.loads(next((tmp_path / "out").rglob("results.json")).read_text(encoding="utf-8"))
    q = {(e["id"], json.dumps(e["params"], sort_keys=True)): e["value"] for e in doc["quantities"]}
    assert q[("kv_capacity_tokens", "{}")] == pytest.approx(value(r, "kv_capacity_tokens"))
    assert q[("capacity_batch", json.dumps({"context": 32768}))] == value(r, "capacity_batch", context=32768) > 0
    assert doc["verdicts"]["weights_fit"] is True and doc["verdicts"]["weights_fit_one_card"] is False
    assert doc["verdicts"]["decode_binds"] == doc["parallel"]["decode_binds"]
    out = capsys.readouterr().out
    assert "per sequence" not in out or "at batch" in out
    capsys.readouterr()
    assert main(["derive", "capacity_batch", "--spec", str(spec.file)]) == 0
    text = capsys.readouterr().out
    assert "weights alone exceed" not in text
    context = int(re.search(r"S = (\d+)", text).group(1))
    assert f"B_cap = {int(value(r, 'capacity_batch', context=context))}" in text


def test_the_summary_names_per_user_and_total_rates_at_each_batch(tmp_path):
    from genreport.present import summary

    r = evaluate(spec_at(tmp_path, tp=8))
    lines = "\n".join(summary.terminal_lines(r))
    for m in re.finditer(r"([\d,]+) tok/s per user and ([\d,]+) in total per replica at batch ([\d,]+)", lines):
        per_user, total, batch = (int(x.replace(",", "")) for x in m.groups())
        assert per_user * batch == pytest.approx(total, rel=0.01)
    assert len(re.findall(r"tok/s per user and [\d,]+ in total per replica at batch", lines)) == 2


# ------------------------------------------------------------------------------------------- the report's text

def _report_html(spec) -> str:
    """The page a build of ``spec`` writes, its figures not drawn (the tests here read its words)."""
    return page_of(spec.file)


def _report_text(spec, html_text: str | None = None) -> str:
    html_text = html_text if html_text is not None else _report_html(spec)
    body = html_text.split("<!-- genreport live what-if -->")[0]
    body = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", body, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", body)
    import html as _html

    return re.sub(r"\s+", " ", _html.unescape(text))


@pytest.mark.parametrize("model,hw,precision,tp,pp,ep,dp", [
    ("llama-3.1-405b", "h100-sxm", "fp8", 8, 2, 1, 1),  # two nodes, the pipeline across them
    ("deepseek-v3", "h200", "fp8", 8, 2, 8, 1),  # MLA replicated over tp, MoE over ep, two stages over two nodes
    ("llama-3.1-70b", "h100-sxm", "bf16", 4, 1, 1, 2),
])
def test_every_page_states_the_layouts_numbers(model, hw, precision, tp, pp, ep, dp, tmp_path):
    from genreport.present import fmt

    spec = spec_at(tmp_path, model=model, hw=hw, precision=precision, tp=tp, pp=pp, ep=ep, dp=dp)
    r = evaluate(spec)
    page = _report_html(spec)
    text = _report_text(spec, page)
    # the one-card figures appear once, labelled, in chapter 1's frame
    one = r.one_card[r.lead]
    for shown in (fmt.time(one["weight_stream_time"]), fmt.gib(one["weight_bytes"])):
        assert text.count(shown) <= 1, (shown, text.count(shown))
    assert text.count("On one card the whole model would need") == 1
    # "would not fit" against the capacity the verdict takes (C: the card less the engine's reserve and one step's
    # activations on that card, at tp 1), not the label nor the layout's GPU's
    if not r.verdicts["weights_fit_one_card"]:
        assert f"of weights against the {fmt.gib(value(r, 'capacity_one_card'))} one card alone keeps for them" in text
    assert "Multi-GPU communication" not in text  # the interconnect is an input, not out of scope
    assert "one card's bandwidth and compute streaming the whole model" not in text
    # the layout's numbers, as a hand count gives them, on the pages that state capacity and time
    assert fmt.time(value(r, "weight_stream_time")) in text
    assert fmt.integer(value(r, "kv_capacity_tokens")) in text
    for s in r.spec.workloads.decode_context:
        assert fmt.integer(value(r, "capacity_batch", context=s)) in text
    if value(r, "kv_capacity_tokens"):
        assert "No KV cache fits" not in text
    assert f"One GPU of {r.frame.gpus}" in text and "per replica" in text
    # a pipeline's round streams each GPU's slice once per micro-batch: the text says the formulas count it so
    assert (f"With {pp} pipeline stages a round's B sequences pass each" in text) == (pp > 1)
    # the bound's split into micro-batches, beside the engines' (parallel.fastest_schedule)
    assert (f"into m b of 1 to min({pp}, B) micro-batches whose round is the least" in text) == (pp > 1)
    # and names the weights such a round streams apart from the slice N_g the table defines (N_s,g or N_r,g)
    streams = ("a round streams, in each of its m b micro-batches" if r.spec.model.moe is not None
               else "a round streams m b times the slice")
    assert (streams in text) == (pp > 1)
    # the printed formulas name one GPU's slice
    assert "N_{g}" in page
    if r.spec.model.attention.kind == "mla":  # c = L (r + rho) b_kv with the whole model's L is the whole model's c
        a = r.spec.model.attention
        width = a.kv_lora_rank + a.qk_rope_head_dim  # DeepSeek-V3: 512 + 64 (config.json)
        c = r.spec.model.layers * width * r.spec.precision.kv_bytes  # 61 x 576 x 1 = 35,136 B
        assert f"= {r.spec.model.layers} × {width} × {fmt.num(r.spec.precision.kv_bytes)} = {fmt.integer(c)} B" in text
        if pp > 1:  # one stage's GPU caches its 31 layers' share: 31 x 576 = 17,856 B, stated as c_g, not as c
            assert f"c g = {fmt.integer(value(r, 'kv_bytes_per_token'))} B" in text


@pytest.mark.parametrize("model,precision,tp,ep,dp,symbol", [
    ("llama-3.1-70b", "bf16", 8, 1, 1, None),  # dense: the slice it holds, N_g
    ("qwen3-30b-a3b", "bf16", 1, 1, 1, "N_{a}"),  # one card, batch 1: the active weights
    ("mixtral-8x7b", "bf16", 4, 4, 1, "N_{a,g}"),  # tp = ep: each GPU a share of every active weight
    ("deepseek-v3", "fp8", 1, 8, 8, "N_{s,g}"),  # data-parallel attention: the experts the replicas' tokens touch
])
def test_the_memory_bound_names_the_weights_it_streams(model, precision, tp, ep, dp, symbol, tmp_path):
    """Formula (1) substitutes the parameters one GPU streams in a batch-1 step; its symbol says which they are.
    The glossary's N_g is what a GPU holds (DeepSeek-V3 at ep 8 x dp 8: 98.35e9); a mixture of experts streams less:
    its active N_a,g where one token's experts are what the GPU reads, else N_s,g (DeepSeek-V3: 8 tokens, one a
    replica, touch 256 (1 - (1 - 8/256)^8) = 57.4 experts a layer, 7.18 of each GPU's 32).  Figure 1's bar and
    caption state the same parameters, whose bytes over W are the bound's time."""
    from genreport.present import figures
    from genreport.present.figures.style import num

    r = evaluate(spec_at(tmp_path, model=model, precision=precision, tp=tp, ep=ep, dp=dp))
    block = r.blocks["t_mem"]
    assert block.symbols.get("N") == symbol
    streamed = block.inputs["N"] - block.inputs.get("N_e", 0.0)
    b, w = r.envs[r.lead].values["b"], r.scalars[r.lead]["bandwidth"]
    assert streamed * b / w == pytest.approx(value(r, "weight_stream_time"), rel=1e-12)
    fig = figures.DRAWERS["fig1-decode-bounds"](r, None)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    caption = figures.captions(r)["fig1-decode-bounds"]
    if symbol is None:
        assert "N_g·b / W" in texts
        return
    plain = symbol.replace("{", "").replace("}", "")
    assert f"{plain}·b / W" in texts and f"{plain}·b/W" in caption
    assert f"{num(streamed / 1e9)} B × {num(b)} byte" in texts  # the bar's weights are the streamed ones
    if symbol == "N_{s,g}":
        assert num(streamed / 1e9) != num(r.envs[r.lead].values["N_a"] / 1e9)  # 34.9 B, not the 37 B active
        assert "2N_a/P" in caption  # the compute bound keeps the active weights


def test_a_layout_sweep_with_no_fitting_layout_says_so(tmp_path):
    """Llama 4 Maverick in bf16 (about 802 GB of weights) on H100s: no tensor-parallel layout of the sweep's up to 8
    GPUs holds it, so figure 9 draws no curve on a log axis (that raised "Data cannot be log-scaled") but says so."""
    import matplotlib
    from genreport.present import figures
    from genreport.present.figures import style

    r = evaluate(spec_at(tmp_path, model="llama-4-maverick", tp=8, pp=2, ep=8))
    assert r.many.scaling_batch1 and not any(x["fits"] for x in r.many.scaling_batch1)
    fig = figures.DRAWERS["fig9-gpu-rates"](r, None)
    widest = max(x["gpus"] for x in r.many.scaling_batch1)
    assert [t.get_text() for t in fig.axes[0].texts] == [
        f"No tensor-parallel layout up to {widest:,} GPUs holds the weights and one sequence."]
    captions = figures.captions(r)
    assert f"up to {widest:,} GPUs" in captions["fig9-gpu-rates"]
    # figure 8 (the ledgers against the degree) claims no best layout among replicas that cannot hold the model
    assert "No replica of the sweep (1, 2, 4, 8 GPUs) holds the weights" in captions["fig8-gpus"]
    assert "at best" not in captions["fig8-gpus"]
    with matplotlib.rc_context(figures.RC), style.layout(True):  # the phone's figure keeps it on the canvas
        fig = figures.DRAWERS["fig9-gpu-rates"](r, None)
    assert [bb.x1 <= fig.bbox.x1 for _, bb in style.text_boxes(fig)] == [True]


def test_page_one_other_roof_is_a_ratio_of_ledgers_not_of_the_pipelines_wait(tmp_path):
    """Page 1's "other roof" is how many times shorter the next ledger is than the binding one, both one GPU's.
    At batch 1 over 2 stages the strict bound is twice one GPU's HBM time (each stage waits for the other; Narayanan
    et al. SC'21, section 2.2), so the bound over the next ledger doubled the ratio chapter 1 states (tp 2 x pp 2:
    541x for a 271x ratio of ledgers); a prefill over 2 stages likewise, its links one of its ledgers."""
    r = evaluate(spec_at(tmp_path, tp=4, pp=2))
    rows = r.decision
    d1 = next(x for x in rows if x["workload"] == "decode")
    assert (d1["batch"], d1["roof"]) == (1, "bandwidth")
    t_mem = value(r, "decode_time_memory_gpu", batch=1, context=1024)
    # the pipeline's wait: the busiest stage's HBM time, then the last stage's, the same layers and the output head
    # (128,256 x 8,192 bf16 weights over its tp 4 GPUs; the seed accounting's 70.6e9 less the head on each stage)
    head = 128256 * 8192 * 2 / (4 * r.spec.hardware.bandwidth)
    assert d1["time"] == pytest.approx(2 * t_mem + head, rel=1e-3)  # the old ratio was twice
    nxt = max(value(r, "decode_time_compute_gpu", batch=1, context=1024), value(r, "decode_time_comm", batch=1,
                                                                                    context=1024))
    assert d1["other_roof"] == pytest.approx(t_mem / nxt, rel=1e-12)
    pre = next(x for x in rows if x["workload"] == "prefill")
    tc, tm = value(r, "prefill_time_compute", tokens=2048), value(r, "prefill_time_memory", tokens=2048)
    # a prompt may walk the stages in pieces (formulas.parallel.prefill_time_bound): the last stage's compute after
    # the first piece has passed the stage before it, which reads that stage's dense weights at least once
    v = r.envs[r.lead].values
    walk = (v["N"] - v["N_e"]) * v["b"] / v["W"]
    assert pre["time"] == pytest.approx(tc + walk, rel=1e-2)
    assert pre["time"] < 2 * tc  # the old bound: the whole prompt stage after stage, which a schedule may beat
    comm = float(r.parallel.prefill[r.lead]["prefill_time_comm"][0])  # its all-reduces: a ledger beside the two
    assert pre["other_roof"] == pytest.approx(tc / sorted((tc, tm, comm))[-2], rel=1e-12)


def test_page_one_names_the_ledger_the_other_roof_divides_by():
    """Llama 3.1 405B fp8 at tp 8 x pp 4 on H100: at batch 1 a GPU's next ledger after its HBM time is its
    interconnect (the round's all-reduces and stage send), not its compute, but page 1 read "84×" under "other roof"
    as if it were the other of the two roofs.  The row names the ledger; one GPU's rows name the other roof.
    Its "ms/token or TTFT" column read "15" for 15.15 ms (fmt.num rounds from 10 up)."""
    from genreport.present import fmt
    from shared import rendered

    r = evaluated("llama405b-h200-fp8-tp8.yaml", ("hardware=h100-sxm", "parallelism.pp=4"))
    d1 = r.decision[0]
    dec = r.parallel.decode[r.lead]
    t_mem, t_comm = dec["decode_time_memory_gpu"][0, 0], dec["decode_time_comm"][0, 0]
    assert (d1["batch"], d1["roof"], d1["other"]) == (1, "bandwidth", "interconnect")
    assert t_comm > dec["decode_time_compute_gpu"][0, 0] and d1["other_roof"] == pytest.approx(t_mem / t_comm)
    page = rendered(r, "sections/s0_summary.html.j2")
    assert f'<td class="n">{fmt.num(d1["other_roof"])}×&nbsp;interconnect</td>' in page  # one line (no-break space)
    assert "the interconnect, all of one GPU's step" in page
    # the "ms/token or TTFT" column keeps three significant digits: 15.2, not 15 (and 28.3, not 28, elsewhere)
    assert d1["ms_per_token"] == pytest.approx(15.15, abs=0.01) and '<td class="n">15.2</td>' in page
    one = evaluated("llama8b-h100.yaml").decision
    assert {(x["roof"], x["other"]) for x in one if x["workload"] == "decode"} <= {("bandwidth", "compute"),
                                                                                   ("compute", "bandwidth")}


def test_the_link_notes_of_chapter_6_are_sentences():
    """A layout wider than the scale-up domain on a GPU whose spec names no scale-out network (the L4: PCIe, one GPU
    a domain, NVIDIA L4 datasheet) gets a note per group; they ran together without a capital or a full stop ("...
    so the bound stays a lower bound the tp group spans 2 GPUs ...")."""
    page = " ".join(page_of("llama8b-a100.yaml", ["hardware=l4", "parallelism.tp=2", "parallelism.pp=2"]).split())
    for g, n in (("pp", 4), ("tp", 2)):
        # the L4's link is PCIe, a domain of 1: not "more than the 1 of one scale-up domain", which read as if the
        # GPUs had another link to leave by
        assert (f". The {g} group&#39;s {n} GPUs reach each other over PCIe Gen4 x16 (no NVLink), whose spec gives no "
                f"domain of peers at its full rate (domain 1) and no scale-out network: its {g} traffic is counted on "
                "it at 32 GB/s per direction a GPU, which a shared fabric (PCIe switches, the CPUs&#39; links) can only "
                "lower, so the bound stays a lower bound.") in page
    assert "lower bound the" not in page and "more than the 1 of one scale-up domain" not in page


def test_the_summarys_lever_sentence_states_the_time_its_numbers_are():
    """Llama 3.1 8B in bf16 on one H100 (the committed spec): the biggest lever's 4.79 ms -> 1.24 ms are the
    batch-1 time to stream the weights (chapter 5's lever table), not a decode step's; page 1 called them "the
    time per token", beside a first sentence that gives the step at context 128 (4.8 ms) and, on an L4 at 8k
    context, 28.6 ms against the lever's 26.8."""
    from genreport.present.summary import sentences
    from shared import evaluated

    r = evaluated("llama8b-h100.yaml")
    lever = next(s for s in sentences(r) if s.startswith("Beyond batching"))
    assert lever.startswith("Beyond batching, the biggest lever on the time to stream the weights is weights int4")
    assert "4.79 ms to 1.24 ms at batch 1" in lever and "time per token" not in lever
    assert r.blocks["t_mem"].entry.value == pytest.approx(4.79e-3, rel=2e-3)  # formula (1): 16.06 GB / 3.35 TB/s


@pytest.mark.parametrize("spec_name,qid,params", [
    ("llama70b-h100-tp8.yaml", "weight_bytes_per_gpu", {}),  # 70.6e9 x 2 B / 8 = 17.65e9 B (derive said 2.2e9)
    ("deepseek-v3-h200-ep8.yaml", "weight_bytes_per_gpu", {}),  # derive said -474 GB
    ("deepseek-v3-h200-ep8.yaml", "kv_capacity_tokens_replica", {}),
    ("deepseek-v3-h200-ep8.yaml", "decode_time_bound", {"batch": 1, "context": 1024}),
    ("deepseek-v3-h200-ep8.yaml", "memory_per_gpu", {"batch": 1, "context": 1024}),
    ("deepseek-v3-h200-ep8.yaml", "prefill_time_memory_gpu", {"tokens": 2048}),
    ("deepseek-v3-h200-ep8.yaml", "capacity_batch_replica", {"context": 1024}),
    ("deepseek-v3-h200-ep8.yaml", "kv_bytes_per_token", {}),  # MLA: 61 x 576 x 1 B, not 2 H_kv d_h L b_kv (8.5 MB)
    ("deepseek-v3-h200-ep8.yaml", "weight_stream_time", {}),  # at batch 1: the experts one token touches
    ("deepseek-v3-h200-ep8.yaml", "parameters", {}),  # the model's 671e9, not one GPU's slice
])
def test_derive_states_the_layouts_value(spec_name, qid, params, capsys):
    """``derive QID --spec`` at a layout gives the value results.json states (one number, one place). The layout's
    formulas (chapter 6) take the whole model and divide it themselves; derive fed them one GPU's slice and divided
    twice: w_g of Llama 3.1 70B bf16 on tp 8 came out 2.2 GB (70.6e9 x 2 B / 8 = 17.65 GB, Llama 3.1 config.json), of
    DeepSeek-V3 on tp 1 x ep 8 x dp 8 -474 GB."""
    r = evaluated(spec_name)
    derive_reads(spec_name, evaluated(spec_name))  # derive's evaluation of the spec: the session's (tests/shared.py)
    args = ["derive", qid, "--spec", str(ROOT_SPECS / spec_name), "--no-latex"]
    for k, v in params.items():
        args += [f"--{k}", str(v)]
    assert main(args) == 0
    out = capsys.readouterr().out
    got = float(re.search(r"^  \S+ = ([-\d.e+]+)", out.rsplit("\n  inputs:", 1)[-1], re.M).group(1))
    assert got == pytest.approx(value(r, qid, **params), rel=1e-5)
    if spec_name.startswith("llama70b") and qid == "weight_bytes_per_gpu":
        assert got == pytest.approx((70.6e9 + 7 * NORMS) * 2 / 8, rel=1e-6)  # and the norms held whole
    if qid == "kv_bytes_per_token":
        assert got == 61 * (512 + 64) * 1 and "c_g = L_g (r + rho) b_kv = 61 x 576 x 1 B" in out


def test_the_training_state_formula_substitutes_the_whole_models_n(tmp_path):
    """Chapter 5's k N: the recipe table, figure 7 and the stated value are the whole model's state on one card
    (ZeRO, Rajbhandari et al. SC'20, section 3: 16 B a parameter), so the formula substitutes N, not one GPU's
    N_g. At tp 8 of Llama 3.1 70B the substituted N_g (70.6e9 / 8 = 8.8e9) times 16 would be 141 GB, not the
    1,129 GB printed beside it (the rev8 review found 1.8175e10 x 16 = 1,163 GB printed for Qwen2.5 72B at tp 4)."""
    path = tmp_path / "train.yaml"
    path.write_text(SPEC.format(name="train", model="llama-3.1-70b", hw="h100-sxm", precision="bf16", tp=8, pp=1,
                                ep=1, dp=1).replace("  prefill: {prompt: [2k]}\n", "  prefill: {prompt: [2k]}\n"
                                "  training: {micro_batch_tokens: 8k, recipes: [bf16-grads]}\n"), encoding="utf-8")
    r = evaluate(load_report(path))
    block = r.blocks["train_bf16-grads"]
    assert block.inputs["N"] * block.inputs["k"] == pytest.approx(block.entry.value, rel=1e-12)
    assert block.inputs["N"] == pytest.approx(float(r.envs["seed"].card["N"]), rel=1e-12)  # the whole model
    assert block.symbols.get("N") == "N"  # printed N, not N_g


def test_the_lever_table_at_a_pipeline_states_the_replicas_round():
    """Mixtral 8x22B in fp8 on 16 H200 (tp 8 x pp 2): chapter 5's lever table gave "before 0.509 ms" with the caveat
    "the batch-1 bound follows bandwidth one for one", beside page 1's strict batch-1 bound of 1.02 ms per token:
    the table's times were one GPU's slice, and a batch-1 token passes the two stages one after the other. The table's
    times are now the replica's batch-1 round with no KV cache (the layout's decode_time_bound at context 0): page 1's
    batch-1 row less its KV cache read, and the chapter says so above the table."""
    from genreport.model.layout import decode_bound_at
    from shared import page as page_html

    over = ["parallelism.tp=4", "parallelism.pp=2"]  # Llama 3.1 70B bf16 on 8 H100: two stages of 4 GPUs
    r = evaluated("llama70b-h100-tp8.yaml", over)
    lever = next(x for x in r.levers if x["lever"] == "bandwidth-1.5")
    per_gpu = (70.6e9 + 3 * NORMS) * 2 / 8  # each GPU's even slice, HBM-bound (it holds its stage's: LAST_OF_TWO)
    assert r.parallel.scalars[r.lead]["weight_bytes_per_gpu"] == pytest.approx(
        (70.6e9 + 3 * NORMS) * 2 / 4 * LAST_OF_TWO, rel=1e-12)
    assert lever["before"] == pytest.approx(2 * per_gpu / r.spec.hardware.bandwidth, rel=1e-12)  # both stages in turn
    assert lever["before"] == decode_bound_at(r.spec, r.lead, 1.0, 0.0)
    assert lever["gain"] == pytest.approx(1.5, rel=1e-12)
    d1 = next(x for x in r.decision if x["workload"] == "decode" and x["batch"] == 1)
    assert lever["before"] < d1["time"] < 1.02 * lever["before"]  # the row adds its context's KV cache read
    page = " ".join(page_of("llama70b-h100-tp8.yaml", over).split())
    assert ("lever's effect on its ledger<span data-static> (on tp 4 × pp 2 the times are a replica's batch-1 round "
            "with no KV cache, chapter 6's bound at context 0: the largest of each GPU's compute, its slice of the "
            "weights and its links, through the 2 pipeline stages one after another; where the links hold that round, "
            "a lever of the GPU's own gains only as far as they allow, as its caveat says)</span>:") in page
    plain = " ".join(page_html("llama70b-h100-tp8.yaml").split())  # tensor parallel alone: no stages to pass
    assert ("its slice of the weights and its links; where the links hold that round" in plain)


def test_one_card_keeps_its_own_workspace_not_the_layouts_gpus():
    """Mixtral 8x22B in fp8 over tp 8 x pp 2 on H200: chapter 1 said the whole model "would not fit: 131 GiB of
    weights against the 126.4 GiB a card keeps", the usable memory of one GPU of the layout, whose one-step
    activation workspace holds an eighth of each expert's intermediate (formulas.memory.activation_workspace_moe:
    max(tp / ep, 1) ways). One card holding the whole model keeps its own workspace, at tp 1: 125.2 GiB, the same as
    an ep 8 GPU's (its experts whole). The verdict and results.json's capacity_one_card take that card's."""
    from genreport.load.objects import activation_workspace

    r = evaluated("mixtral8x22b-h100-tp8-ep8.yaml", ["hardware=h200", "precision=fp8", "parallelism.ep=1",
                                                      "parallelism.pp=2"])
    hw, model = r.spec.hardware, r.spec.model
    one = hw.capacity * (1 - hw.memory_reserve) - activation_workspace(model, 1, hw.max_batched_tokens,
                                                                       hw.max_sequences)
    assert value(r, "capacity_one_card") == pytest.approx(one, rel=1e-12)
    assert value(r, "capacity") - one == pytest.approx(1.25 * 2**30, rel=0.01)  # the layout's GPU keeps 1.25 GiB more
    assert r.frame.one_card["capacity"] == value(r, "capacity_one_card")
    assert not r.verdicts["weights_fit_one_card"]  # 131 GiB of weights
    ep = evaluated("mixtral8x22b-h100-tp8-ep8.yaml", ["hardware=h200", "precision=fp8", "parallelism.dp=2"])
    assert value(ep, "capacity_one_card") == pytest.approx(value(ep, "capacity"), rel=1e-12)  # experts whole, tp 1 alike


def test_the_collectives_named_are_the_ones_the_ledgers_charge():
    """Mixtral 8x22B at tp 8 x ep 2 (expert parallelism no wider than a replica's tensor-parallel group): every GPU
    holds its tp share of every expert, and the ledgers charge the experts' all-to-all only where n_EP > n_TP
    (max(0, min(1, n_EP - n_TP)) in decode_time_comm), so the chapter's "the collectives (...) on the critical path"
    names no expert all-to-alls there; at ep 8 x tp 1 it does (found on Mixtral 8x7B, tp 4 x ep 2 x dp 2)."""
    r = evaluated("mixtral8x22b-h100-tp8-ep8.yaml", ("parallelism.ep=2",))
    assert r.frame.collectives == ("tensor-parallel all-reduces",)
    assert float(r.value("decode_time_comm", batch=1, context=1024)) == pytest.approx(
        float(evaluated("mixtral8x22b-h100-tp8-ep8.yaml", ("parallelism.ep=1",)).value(
            "decode_time_comm", batch=1, context=1024)), rel=1e-12)  # the ep group adds nothing to the ledger
    wide = evaluated("mixtral8x22b-h100-tp8-ep8.yaml", ("parallelism.tp=1", "parallelism.dp=8"))
    assert wide.frame.collectives == ("expert all-to-alls",)


def test_a_what_if_is_titled_by_what_it_analyses():
    """`--set hardware=mi300x --set precision=fp8` on the 70B tp 8 spec: its h1, <title> and every PDF page's footer
    (string-set from the h1) said the spec's "Llama 3.1 70B in bf16 on 8 H100 SXM (tensor parallel)" above chapters
    analysing 8 MI300X in fp8. A what-if is titled by its model on its layout at its precision (here the 8B's one card,
    the cheaper build) and names the spec's title as what it changes; a report without a what-if keeps its spec's
    title.  The layout's "8 ×" is the same field (tests/test_golden.py: the 70B's committed meta line)."""
    from shared import built as shared_built
    from shared import page as page_html

    spec = "llama8b-h100.yaml"
    page = page_html(spec, ["hardware=mi300x", "precision=fp8"])
    headline = "What-if: Llama 3.1 8B on one AMD Instinct MI300X, fp8"
    assert f'<h1 data-live="headline">{headline}</h1>' in page and f"<title>{headline}</title>" in page
    assert "a what-if of the spec <code>llama8b-h100</code>, “Llama 3.1 8B on one H100 SXM: training lacks compute, decode lacks bandwidth”" in page
    plain = page_html(spec)
    assert '<h1 data-live="headline">Llama 3.1 8B on one H100 SXM: training lacks compute, decode lacks bandwidth</h1>' in plain
    assert "Llama 3.1 8B on one NVIDIA H100 SXM5 80GB, bf16 · spec <code>llama8b-h100</code>" in plain
    committed = (ROOT_SPECS.parent / "out" / "llama70b-h100-tp8" / "report.html").read_text(encoding="utf-8")
    assert "Llama 3.1 70B on 8 × NVIDIA H100 SXM5 80GB, bf16 · spec <code>llama70b-h100-tp8</code>" in committed
    # results.json says the same, and what made it: it named the spec's title and no override, so a what-if's numbers
    # could not be told from the spec's without the report beside them
    built = shared_built(spec, ("json",), ["hardware=mi300x", "precision=fp8"])
    doc = json.loads(built.files["results.json"])
    assert doc["what_if"] == {"title": headline, "overrides": ["hardware=mi300x", "precision=fp8"]}
    assert doc["spec"]["title"] == "Llama 3.1 8B on one H100 SXM: training lacks compute, decode lacks bandwidth"
    assert "what_if" not in json.loads(shared_built(spec, ("html", "json")).files["results.json"])


def test_uneven_stages_are_named_with_the_n_pp_the_formulas_use():
    """DeepSeek-V3's 61 layers (config.json num_hidden_layers) over tp 8 x pp 2: stages of 31 and 30 layers. The slice
    table's values are the busiest stage's (N_g = 671e9 / (8 x 61/31) = 42.62e9, L_g = 31), so chapter 1 says what
    n_PP is there, 61 / 31 = 1.97, which the printed N_g = N / (n_TP n_PP) and L_g = L / n_PP otherwise leave to be
    read as 2 (30.5 layers, 41.94e9 weights). Even stages (Llama 3 70B's 80 layers over pp 2) say nothing."""
    from shared import page

    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page("deepseek-v3-h200-ep8.yaml", [
        "parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1"])))
    assert ("The 61 layers do not divide into 2 even stages: 1 stage of 31 layers and 1 of 30 (vLLM gives the extra "
            "layers to the stages before the last, from the second-to-last back).") in text
    assert "so nPP in the time formulas is the layers over its layers, L / ⌈L / 2⌉ = 61 / 31 = 1.97, not 2." in text
    r = evaluated("deepseek-v3-h200-ep8.yaml", ["parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1"])
    assert r.frame.stage_layers == (31, 30) and r.frame.pp_split == pytest.approx(61 / 31, rel=1e-12)
    assert float(np.ravel(r.envs["seed"].values["L"])[0]) == pytest.approx(31, rel=1e-12)
    assert evaluated("llama70b-h100-tp8.yaml", ["parallelism.pp=2"]).frame.stage_layers == ()


def test_the_comparison_tables_of_a_layout_say_their_scope():
    """Chapter 6's "Other models" and "Other GPUs" compare whole models on one card (Llama 3.1 70B in bf16 does not fit
    one H100), which a report laid out over 8 GPUs marked "(this report)" beside "does not fit": the row is now this
    report's model or GPU, and the caption says the scope and points at chapter 7. A one-card report says nothing."""
    from shared import page

    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page("llama70b-h100-tp8.yaml", [
        "compare.hardware=[h200, b200]", "compare.models=[llama-3.1-8b]"]))).replace("&#39;", "'")
    assert "(this report's model)" in text and "(this report's GPU)" in text and "(this report)" not in text
    many = re.search(r"\d+\. Many GPUs: the interconnect ledger", text).group(0).split(".")[0]  # its number here
    assert ("Each model is whole on one GPU, the scope of a comparison of models, not spread as this report's tp 8 over "
            f"8 GPUs (chapter {many}).") in text
    assert ("Each GPU holds the whole model, the scope of a comparison of cards, not this report's tp 8 over 8 GPUs "
            f"(chapter {many}).") in text
    one = re.sub(r"<[^>]+>", "", page("llama8b-h100.yaml"))
    assert "(this report)" in one and "the scope of a comparison" not in one


def test_a_derated_estimate_at_a_layout_says_whose_rate_it_is(tmp_path):
    """The derated estimate (the spec's efficiency block) scales one GPU's compute and HBM ledgers; at a layout its
    tokens/s are one replica's and leave the links out, which the strict bound adds: said under its heading (Qwen3-235B
    over 8 MI300X, tp 4 x ep 8 x dp 2; the rate at batch 1 is the bandwidth ledger's, 966 tok/s ideal, times 0.8)."""
    from shared import page

    spec = tmp_path / "eff.yaml"
    spec.write_text("kind: report\nname: eff\ntitle: t\nhardware: mi300x\nmodel: qwen3-235b-a22b\nprecision: fp8\n"
                    "parallelism: {tp: 4, dp: 2, ep: 8}\n"
                    "efficiency: {bandwidth: 0.8, compute: 0.6, source: {title: made-up fractions for the test}}\n"
                    "workloads:\n  decode: {batch: [1], context: [2k]}\n")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page(spec))).replace("&#39;", "'")
    assert "At this layout its tokens/s are one replica's: the strict bound of a round in chapter" in text
    assert "(each GPU's compute, HBM and link ledgers, through the pipeline) with the two peaks scaled" in text
    r = evaluated(spec)
    d = r.derated["decode"]
    assert float(d["tokens_per_s"][0][0]) == pytest.approx(0.8 * float(d["ideal_tokens_per_s"][0][0]), rel=1e-9)


def test_a_derated_estimate_never_beats_the_bound_it_derates(tmp_path):
    """At tp 8 x pp 2 the derated rate scaled one GPU's ledgers, which cover half the layers: Llama 3.1 70B at batch 1
    at context 4k stated 300.8 tok/s derated beside the 188.0 ideal (ratio 1.6), an estimate faster than the strict bound. It now
    derates the replica's round (decode_time_bound with the peaks scaled): at most the ideal at every point, at least
    the smaller share of it, and exactly eta_W of it where the HBM ledger binds; the prompts alike
    (prefill_time_bound); results.json states the rate's scope, one replica's."""
    import json

    from shared import built

    spec = tmp_path / "eff.yaml"
    spec.write_text("kind: report\nname: eff\ntitle: t\nhardware: h100-sxm\nmodel: llama-3.1-70b\nprecision: bf16\n"
                    "parallelism: {tp: 8, pp: 2}\n"
                    "efficiency: {bandwidth: 0.8, compute: 0.6, source: {title: made-up fractions for the test}}\n"
                    "workloads:\n  decode: {batch: [1, 2, 16, 256], context: [1k, 32k]}\n  prefill: {prompt: [512, 8k]}\n")
    r = evaluated(spec)
    d, p = r.derated["decode"], r.derated["prefill"]
    tok, ideal = np.asarray(d["tokens_per_s"]), np.asarray(d["ideal_tokens_per_s"])
    assert np.all(tok <= ideal * (1 + 1e-12)) and np.all(tok >= 0.6 * ideal * (1 - 1e-12))
    assert tok[0, 0] == pytest.approx(0.8 * ideal[0, 0], rel=1e-12) and ideal[0, 0] == pytest.approx(189.33, abs=0.01)
    assert np.all(np.asarray(p["time"]) >= np.asarray(p["ideal_time"]) * (1 - 1e-12))
    assert list(p["ideal_time"]) == pytest.approx([r.value("prefill_time_bound", "seed", tokens=t) for t in (512, 8192)])
    entries = json.loads(built(spec, formats=("json",)).files["results.json"])["quantities"]
    assert {q["scope"] for q in entries if q["id"] == "decode_tokens_per_s_derated"} == {"replica"}


def test_a_derated_round_the_links_outlast_is_the_links(tmp_path):
    """Llama 3.1 8B over 8 L40S on PCIe at batch 1,024 and context 128: the all-reduces outlast both scaled ledgers
    (the efficiency block scales the peaks, not the links), so the derated round is the ideal one (ratio 1) and its
    ledger is the interconnect; the derated grid's binds said "bandwidth" there, which it is at batches 1 and 64."""
    spec = tmp_path / "effl.yaml"
    spec.write_text("kind: report\nname: effl\ntitle: t\nhardware: l40s\nmodel: llama-3.1-8b\nprecision: bf16\n"
                    "parallelism: {tp: 8}\n"
                    "efficiency: {bandwidth: 0.8, compute: 0.6, source: {title: made-up fractions for the test}}\n"
                    "workloads:\n  decode: {batch: [1, 64, 1024], context: [128]}\n")
    d = evaluated(spec).derated["decode"]
    assert [str(x) for x in np.ravel(d["binds"])] == ["bandwidth", "bandwidth", "interconnect"]
    assert list(np.ravel(d["ratio"])) == pytest.approx([0.8, 0.8, 1.0], rel=1e-12)


def test_a_layouts_training_state_is_judged_against_one_cards_room():
    """Chapter 5's training state is the whole model's, on one card: it was judged against the layout GPU's room
    (Qwen3-235B over tp 4 x ep 8 x dp 2 on MI300X: 171.1 GiB, its activation workspace at tp 4) while figure 7 and the
    frame's whole-model column gave one card's own (171.8 GiB, the workspace at tp 1). Both now read one card's."""
    from genreport.present.prose import training_lines

    r = evaluated("llama70b-h100-tp8.yaml", ["model=qwen3-235b-a22b", "hardware=mi300x", "precision=fp8",
                                             "parallelism.tp=4", "parallelism.dp=2", "parallelism.ep=8",
                                             "workloads.training.micro_batch_tokens=8k"])
    one = r.one_card[r.lead]["capacity"]
    layout_gpu = float(np.ravel(r.envs[r.lead].values["C"])[0])
    assert one > layout_gpu  # the layout GPU keeps more for activations (the tokens its expert group gathers)
    from genreport.present import fmt

    # at a layout the one card's room is the comparison, the layout's ZeRO share the verdict (stop 78)
    line = training_lines(r)[0]
    assert "On one card its state (" in line and f"would not fit in {fmt.gib(one)}" in line
    assert all(tr["cards_needed"] == math.ceil(tr["total"] / one) for tr in r.training)
    from shared import page

    page = page("llama70b-h100-tp8.yaml", ["model=qwen3-235b-a22b", "hardware=mi300x", "precision=fp8",
                                           "parallelism.tp=4", "parallelism.dp=2", "parallelism.ep=8",
                                           "workloads.training.micro_batch_tokens=8k"])
    assert f"<td>fits in {fmt.gib(one)} (one card)?</td>" in page  # the state table's row, as the figure's line


def test_groups_that_cross_the_same_link_are_named_in_one_sentence(tmp_path):
    """Qwen3-235B over 64 TPU v5p chips (tp 4 x ep 16 x dp 16): chapter 6 gave three sentences alike, "The dp group (16
    chips, spread over 64) crosses scale-up: ICI (6 ports per chip, 3D torus), 600 GB/s per direction, 1 µs per step.
    The ep group (16 chips) crosses scale-up: ICI ..., The tp group ...". Groups on the same link, alike, are named
    once; the tp group whose switch reduces in the network keeps its own (DeepSeek-V3 on 16 GB200: the dp and ep
    groups together, the tp group apart)."""
    from shared import rendered

    def s7(**kw):
        r = evaluate(spec_at(tmp_path, **kw))
        return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, "sections/s7_gpus.html.j2")))

    tpu = s7(model="qwen3-235b-a22b", hw="tpu-v5p", tp=4, ep=16, dp=16)
    assert ("The dp group (16 chips, spread over 64), the ep group (16 chips) and the tp group (4 chips) cross "
            "scale-up: ICI (6 ports per chip, 3D torus), 600 GB/s per direction, 1 µs per step.") in tpu
    assert tpu.count("600 GB/s per direction") == 1
    nvl = s7(model="deepseek-v3", hw="gb200", tp=4, ep=16, dp=4, precision="fp8")
    assert "The dp group (4 GPUs, spread over 16) and the ep group (16 GPUs) cross scale-up: NVLink 5" in nvl
    assert re.search(r"The tp group \(4 GPUs\) crosses scale-up: [^;]*; its switch reduces in the network\.", nvl)


@pytest.mark.parametrize("workload", ["training: {micro_batch_tokens: 16k}", "prefill: {prompt: [1k, 32k]}"])
def test_a_layout_that_decodes_nothing_has_its_many_gpu_chapter(tmp_path, workload):
    """A laid-out spec with no decode workload (Llama 3.1 405B training over tp 8 x pp 8; DeepSeek-V3 prefill over
    16 H200) stopped with an internal error: chapter 1 points at the many-GPU chapter ("the interconnect included
    (chapter 7)"), which was numbered only where the decode scaling was drawn.  The chapter is there, with its links
    and collectives, and says why it draws no scaling or fit map; page 1 says nothing of prompts a spec does not
    prefill."""
    from shared import page as page_html

    spec = tmp_path / "nodecode.yaml"
    spec.write_text("kind: report\nname: nodecode\ntitle: t\nhardware: h100-sxm\nmodel: llama-3.1-405b\nprecision: fp8\n"
                    f"parallelism: {{tp: 8, pp: 8}}\nworkloads:\n  {workload}\n", encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page_html(spec)))
    many = re.search(r"(\d+)\. Many GPUs: the interconnect ledger", text)
    assert many and f"the interconnect included (chapter {many.group(1)})" in text
    assert "crosses scale-up: NVLink 4" in text and "How a collective is costed." in text
    assert "This spec decodes nothing, so the chapter has no decode rounds to scale and no fit map" in text
    assert ("prompts at once" in text) == workload.startswith("prefill")


def test_figure_2s_caption_says_whose_weights_and_what_an_moe_token_reads():
    """DeepSeek-V3 in fp8 at ep 8 x dp 8 on H200: the caption of "the same weights, two ways to run them" read
    "(fp8, 98.4 GB)" beside a batch-1 token's "one load", the GPU's slice of 32 whole experts a layer of which a
    token reads its 8 of 256 across the group (a review).  It now says whose block it is and what a token and the
    prompt read of it: 8/256 = 3.1%; 8,192 tokens touch 256 (1 - (1 - 8/256)^8192) = 256.0 experts, all of them."""
    from genreport.present.figures.fig2_three_modes import caption2

    text = caption2(evaluated("deepseek-v3-h200-ep8.yaml"))
    assert "(fp8, 98.4 GB, one GPU's slice at tp 1 × dp 8 with ep 8)" in text
    assert ("a batch-1 token reads its 8 of the 256 routed experts a layer (3.1% of them), a prompt of 8,192 "
            "tokens all of them.") in text
    plain = caption2(evaluated("llama8b-h100.yaml"))  # one card, dense: as before
    assert "(bf16, 16.1 GB)" in plain and "routed" not in plain


def test_the_serving_view_is_solid_only_as_far_as_the_engine_runs():
    """Llama 3.1 70B on 8 H100 (specs/llama70b-h100-tp8.yaml): at 1k the caches hold 1,408 sequences, the engine runs
    256 (max_sequences).  The serving view drew its curve solid to the 1,408 (a review: Qwen3-235B on 8 MI300X drawn
    solid to 90k tok/s beside its caption's 32k at 256); it is solid to the engine's 256, marked there with a square,
    dash-dotted from there to what fits, and the caption says what the square and the dash-dots are."""
    import matplotlib
    import numpy as np
    from genreport.present import figures

    r = evaluated("llama70b-h100-tp8.yaml")
    run = float(r.curves["serving_engine_batch"][0])
    t_run = float(r.curves["serving_tokens_per_s_at_engine"][0])
    assert run == 256 < float(r.per_context[r.lead]["capacity_batch"][0])
    with matplotlib.rc_context(figures.RC):
        fig = figures.DRAWERS["fig7-serving"](r, None)
    lines = {ln.get_label(): ln for ln in fig.axes[0].get_lines()}
    solid = lines["S = 1k"]
    assert float(np.max(solid.get_ydata())) <= t_run * (1 + 1e-9)
    square = lines["engine's max_sequences"]
    assert square.get_marker() == "s" and float(square.get_ydata()[0]) == t_run
    cap = figures.captions(r)["fig7-serving"]
    assert "(batch 256, the engine's max_sequences; 1,408 fit)" in cap and "Squares: the engine's max_sequences" in cap


def test_the_frontiers_best_says_how_many_sequences_its_replicas_run():
    """DeepSeek-V3 on 8 H200 (ep 8 x dp 8, 128 users): "the frontier's best per GPU is ep8 dp8 at batch 165" beside the
    chapter's cheapest layout for the spec's users read as one batch; it is 165 on each of 8 replicas."""
    import re

    from genreport.present.figures.fig10_frontier import frontier_text

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    best = r.serving["frontier"]["best_at_target"]["serial"]
    text = frontier_text(r)
    m = re.search(r"is ep8 dp8 at batch ([\d,]+) on each of its 8 replicas \(([\d,]+) sequences, ([\d.]+)× the "
                  r"spec's 128 users\)", text)
    assert m, text[:300]
    assert int(m.group(1).replace(",", "")) == best["batch"]
    assert int(m.group(2).replace(",", "")) == 8 * best["batch"]
    assert float(m.group(3)) == pytest.approx(8 * best["batch"] / 128, rel=5e-3)


def test_a_pipelines_prefill_says_which_schedule_its_bound_allows():
    """Llama 3.1 70B in bf16 over tp 4 x pp 2: the prefill bound lets the prompt's pieces walk the stages in turn
    (TeraPipe); a review read the table's TTFT beside an engine's stage-after-stage pass without a word on it.  The
    chapter says both, the pass being what the rates take (prefill_occupancy_bound)."""
    over = ["parallelism.tp=4", "parallelism.pp=2"]
    r = evaluated("llama70b-h100-tp8.yaml", over)
    g = r.parallel.prefill[r.lead]
    assert g["prefill_occupancy_bound"][0] > g["prefill_time_bound"][0]
    page = " ".join(page_of("llama70b-h100-tp8.yaml", over).split())
    assert ("Across the 2 pipeline stages the prefill's bound lets a schedule split each prompt into pieces that walk "
            "the stages in turn (TeraPipe, Li et al., ICML 2021; SGLang's chunked pipeline parallelism)") in page
    assert "An engine that passes the whole prompt stage after stage, as vLLM and TensorRT-LLM do" in page
    assert "Across the 1 pipeline" not in page_of("llama70b-h100-tp8.yaml")


def test_the_inputs_table_says_how_the_library_runs_the_all_reduce_on_the_link():
    """Qwen3-235B on 8 MI300X at tp 8 x ep 8: the inputs table said the all-reduce is "ring, or in-switch where
    faster" on a full mesh with no switch (chapter 6: all pairs at once), and listed the ep group's link and the
    experts' all-to-all where the ep group, inside the tp group, sends nothing (a review)."""
    from genreport.present.render import _inputs, _library_all_reduce
    from shared import evaluated_text

    r = evaluated_text("kind: report\nname: q235i\ntitle: t\nhardware: mi300x\nmodel: qwen3-235b-a22b\nprecision: fp8\n"
                       "parallelism: {tp: 8, ep: 8}\nworkloads:\n  decode: {batch: [1, 32], context: [2k]}\n",
                       "q235i.yaml")
    rows = {row["what"]: row["value"] for row in _inputs(r)}
    assert rows["tensor-parallel all-reduce (serial estimate)"] == (
        "the collectives library's (all pairs at once in the full mesh, or the ring where faster)")
    assert not any(w.startswith("ep group's link") for w in rows) and "experts' all-to-all (serial estimate)" not in rows
    h100 = evaluated("llama70b-h100-tp8.yaml")  # NVLink 4 with NVLS: the switch reduces
    assert _library_all_reduce(h100.parallel.links["tp"]) == "the collectives library's (ring, or in-switch where faster)"
    ds = {row["what"] for row in _inputs(evaluated("deepseek-v3-h200-ep8.yaml"))}  # ep 8 over dp 8: it sends
    assert "experts' all-to-all (serial estimate)" in ds


def test_an_moes_elasticities_leave_the_batch_out():
    """DeepSeek-V3: "decode token/s, batch 1" gave B +0.97, holding fixed the weights a step reads, which grow with the
    batch as its tokens touch more experts (a review measured +0.25 going to batch 2 for Qwen3-235B).  The batch's
    elasticity is left out for a mixture of experts, and the chapter says why; a dense model keeps it."""
    from genreport.model.shown import sensitivities

    rows = sensitivities(evaluated("deepseek-v3-h200-ep8.yaml"))
    assert rows and all("B" not in row["e"] for row in rows)
    assert "For a mixture of experts N is the weights a step reads" in " ".join(page_of("deepseek-v3-h200-ep8.yaml").split())
    dense = sensitivities(evaluated("llama8b-h100.yaml"))
    assert any("B" in row["e"] for row in dense)


def test_the_roofline_caption_says_where_the_engines_batch_sits():
    """Llama 3.1 405B in fp8 on 8 H200: at 1k the caches hold 2,559 sequences and the caption said decode reaches
    1,940 FLOP/B there, crossing the ridge (412), where the engine runs 256 at once: 443, still right of it; at 8k 319
    fit, 256 run: 238.  The caption says both (decode_intensity at the engine's batch)."""
    import numpy as np
    from genreport.present import figures

    r = evaluated("llama405b-h200-fp8-tp8.yaml")
    want = [float(np.ravel(r.q["decode_intensity"](r.envs[r.lead].at(batch=256.0, context=float(s))))[0])
            for s in (1024, 8192)]
    assert [round(x) for x in want] == [443, 238]
    cap = figures.captions(r)["fig6-roofline"]
    assert ("The engine runs at most 256 sequences at once (its max_sequences), where decode reaches 443 at S = 1k "
            "and 238 at S = 8k.") in cap
    assert "The engine runs at most" not in figures.captions(evaluated("llama8b-h100.yaml"))["fig6-roofline"]


def test_a_pipelines_chunk_is_said_to_be_a_rounds():
    """Over tp 4 x pp 2 a round has 2 steps, each with the spec's budget: the chunk beside the decode tokens is the
    round's, over both budgets, and was printed beside "a step budget of 8,192 tokens" as if it were one step's (a
    review: "a step budget of 2,048 tokens, 2 steps a round: 256 decode tokens and a prompt chunk of 3,840")."""
    r = evaluated("llama70b-h100-tp8.yaml", ["parallelism.tp=4", "parallelism.pp=2"])
    row = next(x for x in r.serving["techniques"]["rows"] if x["technique"] == "chunked prefill")
    assert ", 2 steps a round (one per micro-batch): " in row["setting"]
    assert row["setting"].endswith(" a round") or "no room for a prompt chunk" in row["setting"]
    one = next(x for x in evaluated("llama70b-h100-tp8.yaml").serving["techniques"]["rows"]
               if x["technique"] == "chunked prefill")
    assert " a round" not in one["setting"]


@pytest.mark.parametrize("model,pp,uneven", [("llama-4-maverick", 2, False), ("gemma-3-1b", 4, True)])
def test_chapter_1_says_the_global_layers_fall_unevenly_only_where_they_do(model, pp, uneven):
    """Llama 4 Maverick at pp 2 holds 6 global (chunked-attention-free) layers of 24 on each stage, the same share:
    chapter 1 said "the global layers ... fall unevenly on the stages" for any model with windowed or chunked layers
    (a review of stop 87); Gemma 3 1B at pp 4 puts one on each of 6, 7, 7 and 6 layers, which is uneven."""
    text = (f"kind: report\nname: globals-{model}\ntitle: {model} pp {pp}\nhardware: h100-sxm\nmodel: {model}\n"
            f"precision: bf16\nparallelism: {{pp: {pp}}}\nworkloads:\n  decode: {{batch: [1], context: [4k]}}\n")
    r = evaluated_text(text, f"globals-{model}")
    assert r.frame.stage_memory["uneven_globals"] is uneven
    assert ("fall unevenly on the stages" in rendered(r)) is uneven


def test_no_figure_of_nothing_where_no_tensor_parallel_layout_fits():
    """Llama 4 Maverick in bf16 (802 GB) at tp 8 x pp 2 x ep 8 on H100: its 40 query heads allow tensor parallelism up
    to 8 GPUs, none of which holds the weights, and chapter 6's tok/s-per-GPU figure was an empty frame with that
    sentence in it (a review of stop 87): now the sentence stands as prose, and the figures after it keep their
    numbers consecutive."""
    text = ("kind: report\nname: mav-bf16-pp2\ntitle: Llama 4 Maverick bf16 on 16 H100\nhardware: h100-sxm\n"
            "model: llama-4-maverick\nprecision: bf16\nparallelism: {tp: 8, pp: 2, ep: 8}\n"
            "workloads:\n  decode: {batch: [1, 8], context: [1k]}\n")
    from shared import built, spec_file

    r = evaluated_text(text, "mav-bf16-pp2")
    assert r.many is not None and not r.many.tp_fits
    html = built(spec_file(text, "mav-bf16-pp2")).files["report.html"].decode("utf-8")
    assert 'id="fig9-gpu-rates"' not in html and 'id="fig8-gpus"' in html
    assert "No tensor-parallel layout up to 8 GPUs holds the weights and one sequence at this context." in html
    numbers = [int(n) for n in re.findall(r"<strong>Figure (\d+)\.</strong>", html)]
    assert numbers == list(range(1, len(numbers) + 1))
