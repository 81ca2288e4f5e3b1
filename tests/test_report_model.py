"""One report model: every number computed once, in the evaluation stage, and shown from there (issue 13).

Each test reproduces a defect seen before the report model existed.
"""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest
from genreport.commands.cli import main as cli_main
from genreport.load.loader import load_report
from genreport.model.evaluate import evaluate
from genreport.write.build import build
from shared import ROOT, built, evaluated
from shared import page as page_of

SPEC_70B = ROOT / "specs" / "seed000-70b-h100.yaml"


def _spec(tmp_path, name, body):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"kind: report\nname: {name}\ntitle: {name}\n{body}")
    return path


def test_moe_with_activation_traffic_builds(tmp_path):
    """Defect 1: an MoE with activation_bytes crashed the HTML build (KeyError 'full+a'), and its JSON had
    no LaTeX for 36 of 61 quantities."""
    spec = _spec(tmp_path, "mx", "hardware: h100-sxm\nmodel: mixtral-8x7b\nprecision: fp8\nworkloads:\n"
                 "  decode: {batch: [1, 64], context: [2k, 32k], activation_bytes: \"1 MB\"}\n"
                 "  prefill: {prompt: [2k]}\n")
    made = build(spec, formats=("html", "json"))
    doc = json.loads(made.files["results.json"])
    assert all(q["latex"] for q in doc["quantities"]), [q["id"] for q in doc["quantities"] if not q["latex"]]
    assert "report.html" in made.files


def test_moe_levers_agree_with_the_summary():
    """Defect 2: the Mixtral report said 7.69 ms per token in the summary and 27.9 ms in the levers table
    (the levers retyped the formula with every expert streamed)."""
    r = evaluated("llama8b-h100.yaml", ["model=mixtral-8x7b"])
    t1 = max(r.s("weight_stream_time"), r.s("weight_flops_time"))
    timed = [lv for lv in r.levers if lv["kind"] == "time"]
    assert timed and all(lv["before"] == t1 for lv in timed)
    bw = next(lv for lv in r.levers if lv["lever"] == "bandwidth-1.5")
    assert bw["after"] == pytest.approx(t1 / 1.5)  # bandwidth-bound at batch 1: follows W one for one


def test_derive_agrees_with_the_report_past_a_sliding_window(tmp_path, capsys):
    """Defect 3: Gemma 3 1B on H100 at 200 TFLOP/s: S* = 5,949 in the report, 1,348 from derive."""
    spec = _spec(tmp_path, "g3", "hardware: h100-sxm\nmodel: gemma-3-1b\nprecision: bf16\nworkloads:\n"
                 "  decode: {batch: [1, 64], context: [2k, 32k]}\n")
    over = ["hardware.peak.dense.bf16=200 TFLOP/s"]
    r = evaluate(load_report(spec, overrides=over))
    s_star = r.s("critical_context")
    assert r.lead in r.numeric_critical_context and s_star == pytest.approx(5949, abs=1)
    assert cli_main(["derive", "critical_context", "--spec", str(spec), "--set", over[0], "--no-latex"]) == 0
    out = capsys.readouterr().out
    assert f"S* = {s_star:.6g} token" in out
    assert cli_main(["derive", "critical_context", "--spec", str(spec), "--at", "P=200e12", "--no-latex"]) == 0
    assert f"S* = {s_star:.6g} token" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["derive", "crossover_batch", "--spec", "specs/llama8b-h100.yaml", "--context", "8k"],
    ["derive", "kv_capacity_tokens", "--spec", "specs/seed000-70b-h100.yaml"],
    ["derive", "capacity_batch", "--spec", "specs/seed000-70b-h100.yaml", "--context", "4k"],
])
def test_derive_prints_no_impossible_value(argv, capsys, monkeypatch):
    """Defect 6: derive printed B* = -16 and S_max = -165,102 tokens."""
    monkeypatch.chdir(ROOT)
    assert cli_main([*argv, "--no-latex"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert "= none:" in last and not re.search(r"= -\d", last), last


def test_a_model_that_does_not_fit_states_no_negative_count():
    """Defect 6 in the report: the 70B on one H100 printed -165,102 tokens and batch -41."""
    made = built(SPEC_70B, formats=("html", "json"))  # the session's build (tests/test_golden.py compares it)
    html = made.files["report.html"].decode()
    text = re.sub(r"<[^>]+>", " ", html)
    assert not re.search(r"-\s?\d[\d,]*\s*(tokens|sequences)", text)
    assert "-165,102" not in text and ">-41<" not in html
    doc = json.loads(made.files["results.json"])
    for q in doc["quantities"]:
        if q["id"].startswith(("kv_capacity_tokens", "capacity_batch", "crossover_batch", "critical_context")):
            assert q["value"] is None or q["value"] >= 0, q
            if q["value"] is None:
                assert q["reason"], q


def test_the_report_model_is_frozen():
    r = evaluated("llama8b-h100.yaml")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.entries = ()  # type: ignore[misc]
    grid = r.decode[r.lead]["decode_tokens_per_s"]
    with pytest.raises(ValueError):
        grid[0, 0] = 1.0
    assert isinstance(r.curves["decode_intensity"], np.ndarray) and not r.curves["decode_intensity"].flags.writeable


def test_formula_blocks_state_the_model_value():
    """A formula block shows the entry of the model, never a value of its own."""
    r = evaluated("llama8b-h100.yaml")
    for name, b in r.blocks.items():
        e = r.entry(b.entry.id, b.entry.accounting, **b.entry.params)
        if e is not None and b.entry.id != "critical_context":
            assert b.entry.value == e.value, name
    assert r.blocks["critical"].entry.value == r.s("critical_context")


def test_nothing_downstream_calls_the_formulas():
    """Presentation, writing and commands read the report model; only model/ evaluates compiled formulas."""
    offenders = []
    for folder in ("present", "write", "commands"):
        for path in (ROOT / "generator" / folder).rglob("*.py"):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"(\.q\[[^\]]+\]|load\(\)\[[^\]]+\])\(", line) or "make_env(" in line:
                    offenders.append(f"{path.relative_to(ROOT)}:{i}")
    assert not offenders, offenders


def test_template_context_is_typed_and_every_field_is_used():
    """The templates read a typed context with no unused keys, and do no arithmetic."""
    import dataclasses as dc

    import jinja2.meta
    from genreport.present.render import ReportContext, _env

    env = _env()
    used: set[str] = set()
    texts = []
    for path in [*(ROOT / "templates").glob("*.j2"), *(ROOT / "templates" / "sections").glob("*.j2")]:
        source = env.loader.get_source(env, str(path.relative_to(ROOT / "templates")))[0]
        texts.append(source)
        used |= jinja2.meta.find_undeclared_variables(env.parse(source))
    names = {f.name for f in dc.fields(ReportContext)}
    assert names - used == set(), f"context fields no template reads: {sorted(names - used)}"
    loop_vars = {"g", "ref", "n", "fr", "best", "ra", "why", "spx", "plain", "budget_words", "spec_row", "pools_row", "past",
                 "whole_prompt", "goodput_clause", "ttft_tail"}  # set inside a branch or loop; jinja2.meta reports them conservatively
    assert used - names - loop_vars == set(), f"templates read undeclared names: {sorted(used - names - loop_vars)}"
    for source in texts:  # no arithmetic inside {{ }} (formatting filters only)
        for expr in re.findall(r"\{\{(.*?)\}\}", source, re.S):
            code = re.sub(r"\"[^\"]*\"|'[^']*'", "''", expr).split("|")[0]  # string literals are text, not sums
            assert not re.search(r"[\w)\]]\s*[-+*/]\s*[\w(]", code), expr


def test_page_ones_lever_is_the_rows_gain_not_the_batch_one_levers():
    """Page 1's "best lever" stated the batch-1, weights-only gain of int4 weights beside every bandwidth-bound decode
    row: "weights int4 (group 128): 3.88× latency" on Llama 3.1 8B bf16 at batch 512, context 1,024 on one H100, where
    the step reads 16.06 GB of weights and 512 x 1,024 x 128 KiB = 68.7 GB of KV cache (2 x 32 layers x 8 KV heads x
    128 x 2 B a token: Meta, Llama 3.1 config.json). int4 (0.5 B + a 2 B scale per 128 weights) leaves the cache as
    it is: (16.06 + 68.72) / (4.14 + 68.72) = 1.16x, less than the 1.5x that 1.5 times the bandwidth gives there."""
    r = evaluated("llama8b-h100.yaml")
    row = next(row for row in r.decision if row["label"] == "decode B = 512, S = 1,024")
    weights = r.s("weight_bytes")
    kv = 512 * 1024 * r.s("kv_bytes_per_token")
    assert kv == pytest.approx(68.72e9, rel=1e-3)
    int4 = (weights + kv) / (weights * (0.5 + 2 / 128) / 2 + kv)
    assert int4 == pytest.approx(1.16, abs=0.005)
    assert row["lever"] == {"change": "bandwidth ×1.5", "gain": pytest.approx(1.5, rel=1e-9), "effect": "latency"}
    batch1 = next(lv for lv in r.levers if lv["lever"] == "weights-int4")["gain"]
    assert batch1 == pytest.approx(3.88, abs=0.005) and all(
        (row["lever"] or {}).get("gain") != batch1 for row in r.decision if row["batch"] != 1)


def test_an_moe_trainings_intensity_counts_what_a_token_computes(tmp_path):
    """Chapter 3 counts a training step's compute as 6 N_a T (each token computes with k of E routed experts) and
    its weight traffic as three passes over all N weights (every expert is read): I = 6 N_a T / (3 N b) = 2T N_a /
    (N b), the intensity the "other roof" compares with the ridge. Qwen3-30B-A3B (Qwen/Qwen3-30B-A3B model card:
    30.5B total, 3.3B activated) training 4,096 tokens at bf16: 4,096 x 3.3 / 30.5 ~ 443 FLOP/B, not 4,096; a dense
    model (Llama 3.1 8B, N_a = N at seed 003's accounting) keeps 2T/b = 8,192."""
    from genreport.model import decision

    path = tmp_path / "q3.yaml"
    path.write_text("kind: report\nname: q3t\ntitle: Qwen3 30B-A3B training on one H100\nhardware: h100-sxm\n"
                    "model: qwen3-30b-a3b\nprecision: bf16\nworkloads:\n  decode: {batch: [1], context: [1k]}\n"
                    "  training: {micro_batch_tokens: 4k, recipes: [bf16-grads]}\n")
    r = evaluated(path)
    v = r.envs[r.lead].values
    assert r.verdicts["training_intensity"] == pytest.approx(4096 * float(v["N_a"]) / float(v["N"]), rel=1e-9)
    assert r.verdicts["training_intensity"] == pytest.approx(4096 * 3.3 / 30.5, rel=0.03)
    row = next(x for x in decision.rows(r) if x["workload"] == "training")
    assert row["other_roof"] == pytest.approx(r.verdicts["training_intensity"] / r.scalars[r.lead]["ridge_point"])
    assert evaluated("llama8b-h100.yaml").verdicts["training_intensity"] == 8192


def test_chapter_3s_table_says_where_a_routed_experts_load_sits():
    """Chapter 3's table once said "right / right / right" of Mixtral 8x22B's 512, 2k and 8k prefills on H100 (2T/b =
    512, 2,048, 8,192 against the ridge 295) beside the sentence that one load of a routed expert serves T k / E
    tokens (k 2 of E 8: 128, 512, 2,048 FLOP/B; the first left of the ridge). The table now has a row for the routed
    experts' load and says their side; a dense model's table has no such row."""
    from shared import html

    page = re.sub(r"\s+", " ", html("mixtral8x22b-h100-tp8-ep8.yaml"))
    page = re.sub(r'<span data-fact="[a-z_0-9]+">([^<]*)</span>', r"\1", page)  # the page's live numbers, as built
    assert ("<td>a routed expert's weight-reuse intensity (a load serves T k / E tokens)</td><td class=\"n\">128 / 512 / 2,048</td>"
            in page), page[page.find("a load serves"):][:400]
    assert "right / right / right; routed experts left / right / right" in page
    dense = re.sub(r"<script.*?</script>", "", html("llama8b-h100.yaml"), flags=re.S)  # the text, not the page's code
    assert "routed experts" not in re.sub(r"\s+", " ", dense)


def test_chapter_3s_training_column_is_the_rows_2t_over_b():
    """Qwen3 30B-A3B (N 30.5B, N_a 3.3B: Qwen/Qwen3-30B-A3B model card) trained on 8,192-token micro-batches: chapter
    3's "weight-reuse intensity" row once gave training 886 FLOP/B (2T/b times N_a / N, the step's intensity) beside
    the prefills' 2T/b and figure 4's training 8,192 (2T/b at the recipes' b = 2): one row, two definitions. The
    cell is now 2T/b = 8,192 as the row and the figure define it, and chapter 5 says the step's 886 is the micro-batch
    times N_a / N (its text once said "the micro-batch size" beside the formula's 886)."""
    from shared import html

    page = re.sub(r"\s+", " ", page_of("llama8b-h100.yaml", ["model=qwen3-30b-a3b"]))
    row = page[page.find("<td data-static>weight-reuse intensity ("):][:200]
    assert row.startswith("<td data-static>weight-reuse intensity (bf16, upper bound)</td><td class=\"n\" data-static>8,192</td>"), row
    assert "the micro-batch size times N<sub>a</sub> / N in 16-bit weights" in page
    dense = re.sub(r"\s+", " ", html("llama8b-h100.yaml"))
    assert "N<sub>a</sub> / N in 16-bit" not in dense and "weight-reuse intensity is the micro-batch size in" in dense


def test_the_gemm_crossover_is_set_beside_the_tokens_2t_over_b_needs():
    """Gemma 3 27B in fp8 on H100 NVL (1,671 TFLOP/s dense fp8, 3.9 TB/s: NVIDIA H100 NVL datasheet; ridge 428): chapter
    2 said one load must serve 233 tokens "to reach the ridge, not 428", but at b = 1 B the weight-reuse intensity 2T/b
    reaches 428 at T = 214; 428 is the token count only at b = 2. The sentence now names R b / 2."""
    from shared import html

    r = evaluated("llama8b-h100.yaml", ["precision=fp8", "model=gemma-3-27b", "hardware=h100-nvl"])
    g = r.gemm[0]
    ridge = r.scalars[r.lead]["ridge_point"]
    assert ridge == pytest.approx(1670.5e12 / 3.9e12, rel=1e-3)
    assert g["weight_crossover"] == pytest.approx(ridge / 2, rel=1e-12)
    page = re.sub(r"\s+", " ", page_of("llama8b-h100.yaml",
                                        ["precision=fp8", "model=gemma-3-27b", "hardware=h100-nvl"]))
    assert "to reach the ridge, not 214 (the T of 2T/b = 428 at b = 1 B): activations add traffic" in page
    assert "to reach the ridge, not 295: activations add traffic" in re.sub(r"\s+", " ", html("llama8b-h100.yaml"))


def test_page_1s_kv_headline_of_a_model_windowed_in_every_layer():
    """Mistral 7B v0.1 (32 layers, 8 KV heads of 128, sliding window 4,096: mistralai/Mistral-7B-v0.1 config.json) keeps
    at most 32 x 4,096 x 2 x 8 x 128 x 2 B = 512 MiB a sequence in bf16. Page 1 said "past it 0 KiB per token in the 0
    global layers plus 512 MiB per sequence in the 32 windowed ones"; it says every layer is windowed. On several GPUs
    the figures past the window are the whole model's (Gemma 3 27B on 2 H100 NVL: 40 KiB a token in its 10 global
    layers, 20 on each GPU), beside a per-GPU KV figure, and each GPU's share follows them."""

    page = re.sub(r"\s+", " ", page_of("llama8b-h100.yaml", ["model=mistral-7b"]))
    assert "past it a fixed 512 MiB per sequence, every one of the 32 layers windowed</span>" in page
    assert "0 global layers" not in page
    two = re.sub(r"\s+", " ", page_of("llama8b-h100.yaml", ["model=gemma-3-27b", "hardware=h100-nvl", "precision=fp8",
                                                          "parallelism.tp=2"]))
    assert ("past it 40 KiB per token in the 10 global layers plus 208 MiB per sequence in the 52 windowed ones "
            "(20 KiB and 104 MiB on each GPU)</span>") in two


def test_a_per_class_models_gemm_rows_take_each_matrix_at_its_own_bytes():
    """gpt-oss-20b at its checkpoint's formats (openai/gpt-oss-20b config.json: hidden 2,880, expert width 2,880;
    experts mxfp4, 4.25 bits, the rest bf16) on H100: chapter 2's 2,880 x 2,880 attention projection is bf16, so with
    its activations it reads 2nmT / (2 (nm + T (n + m))) = 256 x 2,880 / (2,880 + 512) = 217 FLOP/B at 256 tokens and
    saturates at nm / (n + m) = 1,440; the report took the model's mean 0.658 B (661 and 4,380). The FFN matrix is an
    expert's, at mxfp4's 0.531 B. Chapter 3's weight-reuse row keeps 2T/b over all the weights."""
    r = evaluated("llama8b-h100.yaml", ["model=gpt-oss-20b", "precision.weights=checkpoint"])
    att, ffn = r.gemm
    i = att["tokens"].index(256)
    assert att["intensity"][i] == pytest.approx(256 * 2880 / (2880 + 512), rel=1e-12)
    assert att["saturation"] == pytest.approx(1440, rel=1e-12) and att["b"] == 2
    assert ffn["b"] == pytest.approx(4.25 / 8) and ffn["intensity"][i] == pytest.approx(
        2 * 2880 * 2880 * 256 / (4.25 / 8 * (2880 * 2880 + 256 * 5760)), rel=1e-12)
    assert att["weight_reuse"][i] == pytest.approx(r.value("weight_reuse_intensity", "seed", tokens=256), rel=1e-12)
    assert r.blocks["gemm_sat_0"].inputs["b"] == 2


def test_a_graph_replay_is_named_as_the_vendors_stack_names_it():
    """Chapter 6 and the inputs table called decode's captured kernels a "CUDA graph replay" on every GPU, Gaudi 3 and
    MI300X included: ROCm captures hipGraphs (HIP graphs), Intel Gaudi's PyTorch bridge HPU Graphs."""
    from genreport.present.render import _inputs

    # a TPU runs the step XLA compiled from its traced graph (PyTorch/XLA docs, "PyTorch on XLA Devices": the graph is
    # compiled and executed on the device; JAX jit): a compiled XLA graph, not a CUDA graph (Qwen3 32B on 8 TPU v5e)
    for hardware, name in (("mi300x", "HIP graph"), ("gaudi3", "HPU graph"), ("h100-sxm", "CUDA graph"),
                           ("tpu-v5e", "compiled XLA graph")):
        # a replay's cost the spec gives (only NVIDIA's is sourced by default: tests/test_inputs_table.py)
        r = evaluated("llama70b-h100-tp8.yaml", [f"hardware={hardware}", "engine.graph_kernel=0.5 us"])
        assert r.spec.hardware.graph == name
        (row,) = [x for x in _inputs(r) if x["symbol"] == "τ_k"]
        assert f"({name} replay)" in row["value"], row
    text = (ROOT / "templates" / "sections" / "s7_gpus.html.j2").read_text()
    assert "CUDA graph" not in text and "{{ hw.graph }}" in text


def test_training_takes_the_recipes_bf16_peak_whatever_the_served_format():
    """Llama 3.1 8B served in fp8 on one H100 SXM: the training micro-batch was timed at the fp8 peak (1,979 TFLOP/s
    dense, NVIDIA's H100 datasheet) while the recipes hold bf16 weights and run bf16 GEMMs (mixed precision,
    Micikevicius et al., ICLR 2018): its step, its ridge and what binds it now take the bf16 peak (989 TFLOP/s), the
    step twice the fp8 one, and the training chapter says so."""
    from genreport.present import prose
    from shared import evaluated

    r = evaluated("llama8b-h100.yaml", ("precision=fp8",))
    hw, t = r.spec.hardware, r.spec.workloads.training_tokens
    env = r.envs["seed"].values
    step = r.value("training_step_time_compute", "seed", tokens=t)
    assert step == pytest.approx(6 * float(env["N_a"]) * t / hw.dense["bf16"], rel=1e-12)
    assert step == pytest.approx(2 * 6 * float(env["N_a"]) * t / hw.dense["fp8"], rel=1e-2)
    assert r.verdicts["training_compute"] == "bf16"
    assert r.verdicts["training_ridge"] == pytest.approx(hw.dense["bf16"] / hw.bandwidth, rel=1e-12)
    row = next(x for x in r.decision if x["workload"] == "training")
    assert row["time"] == step
    line = prose.training_lines(r)[0]
    assert "the bf16 ridge" in line and "a micro-batch at the bf16 peak" in line and "mixed precision" in line


def test_training_step_at_a_layout_says_its_scope():
    """At tp 2 the training line's compute time is one GPU's, its slice of the model (half the one-card FLOPs: the
    ratio of the two evaluated values), and the line says so, beside the state it compares with one card's memory."""
    from genreport.present import prose
    from shared import evaluated

    one = evaluated("llama8b-h100.yaml")
    two = evaluated("llama8b-h100.yaml", ("parallelism.tp=2",))
    t = one.spec.workloads.training_tokens
    step_one = one.value("training_step_time_compute", "seed", tokens=t)
    step_two = two.value("training_step_time_compute", "seed", tokens=t)
    assert step_two == pytest.approx(step_one / 2, rel=0.05)
    assert "a micro-batch at the bf16 peak" in prose.training_lines(one)[0]
    line = prose.training_lines(two)[0]
    assert "a micro-batch per GPU (its slice of the model) at the bf16 peak" in line and "On one card its state" in line


def test_a_training_step_below_the_ridge_is_bound_by_its_weight_traffic():
    """DeepSeek-V3 trained over tp 8 on H200, 2,048-token micro-batches, the seed accounting (671e9 and 37e9 declared
    parameters, DeepSeek-V3 Technical Report, arXiv:2412.19437; H200 bf16 dense 989.4 TFLOP/s and 4.8 TB/s, its
    datasheet): one GPU's slice is N = (671e9 + N_R) / 8 = 84.777e9 weights, N_a = (37e9 + N_R) / 8 = 5.527e9 a token
    (N_R what each GPU holds whole). FLOPs 6 N_a T take 68.6 ms at the peak; three passes over the bf16 weights,
    3 x 2 N = 508.7 GB, take 106.0 ms at the bandwidth (I = 2 T N_a / (N b) = 133.5 FLOP/B, below the ridge 206.1).  Page 1's row gives the
    larger, bandwidth, with the compute ledger 1.54x shorter; it once gave the compute time under 'bandwidth' with an
    other roof of 0.55x (a DeepSeek-V3 report on 16 H100, tp 8 x pp 2, read 58.4 ms and 0.765x)."""
    r = evaluated("deepseek-v3-h200-ep8.yaml", ["parallelism.tp=8", "parallelism.dp=1",
                                                "workloads.training.micro_batch_tokens=2k"])
    row = next(x for x in r.decision if x["workload"] == "training")
    # each GPU also holds and computes with its whole MLA down-projections, norms and router (N_R = 7 x 1,030,904,832,
    # tests/test_tp_copies.py): N_g = 84.777e9, N_a,g = 5.527e9
    n_g, n_a = (671e9 + 7 * 1_030_904_832) / 8, (37e9 + 7 * 1_030_904_832) / 8
    compute, memory = 6 * n_a * 2048 / 989.4e12, 3 * 2 * n_g / 4.8e12
    assert r.value("training_step_time_compute", "seed", tokens=2048) == pytest.approx(compute, rel=1e-12)
    assert r.verdicts["training_intensity"] == pytest.approx(2 * 2048 * n_a / (n_g * 2), rel=1e-12)
    assert (row["roof"], row["other"]) == ("bandwidth", "compute")
    assert row["time"] == pytest.approx(memory, rel=1e-12) == pytest.approx(0.10597130216, rel=1e-9)
    assert row["other_roof"] == pytest.approx(memory / compute, rel=1e-12) == pytest.approx(1.5438, abs=1e-4)
    assert row["tokens_per_s"] == pytest.approx(2048 / memory, rel=1e-12)
    from genreport.present.prose import training_lines

    assert "bandwidth bounds its GEMMs, at least 106 ms a micro-batch per GPU (its slice of the model) for its three " \
           "passes over the weights at the bandwidth (68.6 ms at the bf16 peak)" in training_lines(r)[0]
    # above the ridge (8,192 tokens: I = 452 FLOP/B) the row stays the compute time, its other roof I / ridge
    r8 = evaluated("deepseek-v3-h200-ep8.yaml", ["parallelism.tp=8", "parallelism.dp=1",
                                                 "workloads.training.micro_batch_tokens=8k"])
    row8 = next(x for x in r8.decision if x["workload"] == "training")
    assert row8["roof"] == "compute" and row8["time"] == pytest.approx(4 * compute, rel=1e-12)
    assert row8["other_roof"] == pytest.approx(4 * compute / memory, rel=1e-12)


def test_an_elasticity_that_barely_enters_reads_approximately_zero():
    """Gemma 3 1B's one KV head over tp 4 x pp 26 on GB200, a 1M-token context (far past its 512-token windows):
    the batch that crosses the ridge moves with the cached window's inputs by -5.42e-05 of a percent per percent,
    which the table printed as "-5.42e-05" beside "0" for inputs that do not enter. It prints "≈0", and the
    paragraph says what that means only where such a value is in the table."""
    from genreport.present import fmt
    from genreport.present.render import _sensitivities

    assert [fmt.elasticity(v) for v in (None, 0.0, -5.42e-05, 4.9e-4, 5e-4, -0.688, 2.5)] == \
        ["", "0", "≈0", "≈0", "0.0005", "-0.688", "2.5"]
    spec = ROOT / "specs" / "llama8b-h100.yaml"
    r = evaluated(spec, ["model=gemma-3-1b", "hardware=gb200", "precision=int4", "parallelism.tp=4",
                         "parallelism.pp=26", "workloads.decode.context=[1, 1M]"])
    table = _sensitivities(r)
    values = [v for row in table["rows"] for v in row["values"] if v is not None]
    assert table["tiny"] == any(0 < abs(v) < 5e-4 for v in values) is True
    assert not _sensitivities(evaluated("llama8b-h100.yaml"))["tiny"]
