"""Issue 30 in the report: the serving chapter's engine techniques at the spec's layout, each from its formula."""

from __future__ import annotations

import json

import pytest
from genreport.commands.cli import main
from genreport.formulas import techniques as t
from genreport.formulas.glossary import sym
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from shared import evaluated

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


def test_each_technique_is_a_row_with_its_formula(report):
    r, _ = report
    tq = r.serving["techniques"]
    assert [row["technique"] for row in tq["rows"]] == ["speculative decoding", "chunked prefill", "prefix caching",
                                                         "prefill/decode disaggregation"]
    assert tq["chunk"] == 512  # as written (V0's chunked-prefill budget); the default is the engine's 8192
    for name in ("tech_speculative", "tech_chunked", "tech_goodput", "tech_pools", "tech_kv"):
        assert name in r.blocks
    n = tq["numbers"]
    assert n["expected_tokens"] == pytest.approx(1 + 0.8 + 0.64 + 0.512)
    # the speed-up is E t_s / (t_v + t_d) from the rounds at the layout (tp 8, the all-reduces included), at the
    # chapter's batch and the request's mean context, drafts 10% of a plain round
    e = 1 + 0.8 + 0.64 + 0.512
    assert n["draft_time"] == pytest.approx(0.1 * n["plain_round"], rel=1e-12)
    assert n["speedup"] == pytest.approx(e * n["plain_round"] / (n["verify_round"] + n["draft_time"]), rel=1e-9)
    block = r.blocks["tech_speculative"]
    assert block.entry.value == pytest.approx(n["speedup"], rel=1e-12)  # the printed formula is the number used
    assert block.inputs["t_v"] == n["verify_round"] and block.inputs["t_s"] == n["plain_round"]
    # hand count, per GPU of tp 8 (Meta's 70.6e9 parameters in fp8, 163,840 B of fp8 KV per token; H100 at
    # 1,979 TFLOP/s fp8 dense and 3.35 TB/s): at the chapter's batch the plain round streams the weights and the
    # caches; the verify round's 4 B tokens make it compute-bound
    batch, mean = tq["batch"], 4096 + 512 / 2
    plain = (70.6e9 + batch * mean * 163840) / 8 / 3.35e12
    verify = 4 * batch * (2 * 70.6e9 + 4 * 80 * 64 * 128 * mean) / 8 / 1979e12
    assert n["plain_round"] == pytest.approx(plain, rel=2e-3)
    assert n["verify_round"] == pytest.approx(max(plain, verify), rel=2e-3)
    # one GPU's ledgers (no interconnect) give the formula speculative_speedup: the layout's is within 1% of it here
    env = r.envs[r.lead].at(batch=float(batch), context=mean)
    step = max(float(r.q["decode_time_memory"](env)), float(r.q["decode_time_compute"](env)))
    values = {sym(k): float(v) for k, v in env.items() if k in ("N", "N_a", "N_e", "L", "H_q", "d_h", "b", "c", "a",
                                                                "P", "W", "B", "S")}
    values.update({sym("p_a"): 0.8, sym("k_d"): 3, sym("t_d"): 0.1 * step})
    assert n["speedup"] == pytest.approx(float(t.speculative_speedup().subs(values)), rel=0.01)
    # the KV transfer between two replicas of tp 8 (16 GPUs, past the 8-GPU NVLink domain): each GPU sends its
    # eighth of the prompt's 4,096 x 163,840 B over its own 50 GB/s ConnectX-7 (DGX H100 user guide)
    assert n["kv_transfer_time"] == pytest.approx(4096 * 163840 / (8 * 50e9), rel=1e-12)
    assert n["kv_link"].startswith("scale-out")
    # prefix caching halves the prompt the prefill computes: TTFT halves
    prefix = tq["rows"][2]
    assert prefix["ttft"][1] == pytest.approx(prefix["ttft"][0] / 2)


def test_goodput_meets_the_target_exactly(report):
    r, _ = report
    n = r.serving["techniques"]["numbers"]
    assert n["goodput_rate"] == min(n["goodput_rate_tpot"], n["goodput_rate_compute"], n["goodput_rate_capacity"])
    # at the TPOT-limited rate the steady step time is the target (50 ms): the solved rate solves its equation
    env = r.envs[r.lead].at(batch=1.0, context=4096.0)
    values = {sym(k): float(v) for k, v in env.items() if k in ("N", "N_e", "b", "c", "a", "W")}
    values.update({sym("T_in"): 4096, sym("T_out"): 512, sym("h_p"): 0.5, sym("s_c"): 512,
                   sym("lam"): n["goodput_rate_tpot"]})
    assert float(t.steady_step_time().subs(values)) == pytest.approx(0.050, rel=1e-9)
    assert n["rate"] == 2 and n["steady_step_time"] > 0 and n["steady_concurrency"] == pytest.approx(
        2 * 511 * n["steady_step_time"])


def test_the_chapter_and_results_json_state_them(report, tmp_path):
    _, path = report
    assert main([str(path), "--format", "json,html", "-o", str(tmp_path), "-q"]) == 0
    doc = json.loads((tmp_path / "sv" / "results.json").read_text())
    assert doc["serving"]["techniques"]["rows"][0]["technique"] == "speculative decoding"
    html = (tmp_path / "sv" / "report.html").read_text()
    assert "What serving engines do to it" in html and "speculative decoding" in html
    assert "max_num_batched_tokens (engine.max_batched_tokens" in html


@pytest.mark.parametrize("bad, message", [
    ("speculative: {draft_tokens: 3, acceptance: 1.2}", "acceptance"),
    ("speculative: {draft_tokens: 0, acceptance: 0.8}", "draft_tokens"),
    ("prefix_hit: 1", "prefix_hit"),
    ("rate: -3", "rate"),
])
def test_bad_technique_inputs_name_the_line(tmp_path, capsys, bad, message):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("  rate: 2\n  prefix_hit: 0.5\n  speculative: {draft_tokens: 3, acceptance: 0.8, "
                                 "draft_cost: 0.1}\n", f"  {bad}\n"))
    assert main([str(path), "--format", "json", "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml:" in err and message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_no_serving_block_no_techniques(tmp_path):
    r = evaluated("llama8b-h100.yaml")
    assert r.serving is None and not any(k.startswith("tech_") for k in r.blocks)
