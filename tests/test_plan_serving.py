"""``plan`` answers a deployment question (issue 29): several GPUs, a request shape, TTFT/TPOT targets, users,
separate weight and KV-cache formats, prices; sorted by $/M tokens.  Hand counts copied here with their sources."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import pytest
from genreport.commands.cli import main
from shared import ROOT


def _json(capsys, *args):
    assert main(["plan", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_four_gpus_ranked_by_cost(capsys):
    """Question (b): Llama 3.1 70B at batch 64, 8k, on H100, H200, B200 and MI300X: cheapest per million tokens."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm,h200,b200,mi300x", "--batch", "64", "--context", "8k")
    rows = doc["rows"]
    assert {r["hardware"] for r in rows} == {"h100-sxm", "h200", "b200", "mi300x"}
    cost = [r["usd_per_mtok_out"] for r in rows]
    # a request of one token (plan --context): no decode to price per request, so $/M output tokens ranks them
    assert cost == sorted(cost) and all(r["usd_per_request"] is None for r in rows)
    assert doc["sorted_by"] == ("$ per request (its prompt and its output; $/M output tokens where no prompt is "
                                "priced: --context alone)")
    # hand count, H100 fp8 (fp8 KV) tp 8 at batch 64, context 8,192: weights 70.6e9 B / 8 (Meta's count) and KV
    # 80 layers x 2 x 8 heads x 128 x 1 B / 8 GPUs = 20,480 B per token per GPU, at 3.35 TB/s (NVIDIA datasheet)
    h = next(r for r in rows if (r["hardware"], r["precision"], r["tp"], r["pp"]) == ("h100-sxm", "fp8", 8, 1))
    assert h["kv_cache"] == "fp8" and h["batch"] == 64
    t = (70.6e9 / 8 + 64 * 8192 * 20480) / 3.35e12
    assert h["tpot"] == pytest.approx(t, rel=1e-3)
    assert h["tokens_per_s_gpu"] == pytest.approx(64 / t / 8, rel=1e-3)
    assert h["usd_per_mtok_out"] == pytest.approx(2.99 / (64 / t / 8 * 3600) * 1e6, rel=1e-3)  # $2.99/h, catalog
    assert h["joules_per_token"] == pytest.approx(700 / (64 / t / 8), rel=1e-3)  # 700 W, NVIDIA datasheet
    assert h["tokens_per_s_node"] == pytest.approx(8 * h["tokens_per_s_gpu"])  # HGX H100: 8 GPUs a node


def test_request_shape_users_and_gpus(capsys):
    """Question (a): Qwen2.5-72B at 32k on 4 x H100 for 16 users: bf16 holds 14 sequences of 32k, fp8 all 16."""
    doc = _json(capsys, "qwen2.5-72b", "--hardware", "h100-sxm", "--gpus", "4", "--context", "32k", "--users", "16")
    assert doc["rows"] and all(r["gpus"] == 4 for r in doc["rows"])
    bf16 = next(r for r in doc["rows"] if (r["precision"], r["tp"]) == ("bf16", 4))
    # 72.7e9 x 2 B / 4 = 36.35e9 B of weights per GPU in 0.9 x 80 GiB; KV 80 x 2 x 8 x 128 x 2 B / 4 per token
    # (Qwen's config.json); the engine's activation workspace at tp 4 (hidden 8192, intermediate 29568, vocab
    # 152064): 8192 x 2 B x (2 x 8192 + 3 x 29568 / 4) + 256 x 152064 x 4 B = 0.631e9 + 0.156e9 = 0.787e9 B;
    # (0.9 x 85.90e9 - 36.35e9 - 0.787e9) / (81,920 x 32,768) = 14.97 -> 14 sequences (15.3 -> 15 without it)
    assert bf16["capacity_batch"] == 14
    # 16 users need two such replicas, 8 on each: the row is that deployment's (plan's limit "users")
    assert bf16["gpus_for_users"] == 8 and bf16["batch"] == 8 and bf16["limit"] == "users"
    fp8 = next(r for r in doc["rows"] if (r["precision"], r["tp"]) == ("fp8", 4))
    assert fp8["batch"] == 16 and fp8["gpus_for_users"] == 4
    assert fp8["tokens_per_s_user"] == pytest.approx(1 / fp8["tpot"])  # one generated token: 1 / TPOT


def test_users_are_shared_by_dp_replicas(capsys):
    """Question (c): DeepSeek-V3 fp8 with 128 concurrent 4k requests: one 8 x H200 node holds them."""
    doc = _json(capsys, "deepseek-v3", "--hardware", "h200", "--weights", "fp8", "--context", "4k", "--users", "128",
                "--sort", "gpus")
    best = doc["rows"][0]
    assert best["gpus_for_users"] == 8 and best["gpus"] == 8
    for r in doc["rows"]:
        assert r["batch"] * r["dp"] <= 128 + r["dp"] - 1  # no replica takes more than its share of the users
        assert r["gpus_for_users"] >= r["gpus"]
    assert [r["gpus_for_users"] for r in doc["rows"]] == sorted(r["gpus_for_users"] for r in doc["rows"])


def test_weights_and_kv_cache_are_separate(capsys):
    """Question (d): gpt-oss-120b on one H100: int4 weights with an fp8 KV cache hold more sequences than bf16 KV."""
    doc = _json(capsys, "gpt-oss-120b", "--hardware", "h100-sxm", "--gpus", "1", "--weights", "bf16,int4",
                "--kv-cache", "bf16,fp8", "--prompt", "7k", "--output", "1k")
    kv = {r["kv_cache"]: r for r in doc["rows"] if r["precision"] == "int4"}
    assert set(kv) == {"bf16", "fp8"}
    assert kv["fp8"]["concurrency"] >= 2 * kv["bf16"]["concurrency"] - 1  # one byte per element, not two
    assert doc["prompt"] == 7168 and doc["output"] == 1024 and doc["context"] == 8191  # the last: P + T - 1
    r = kv["fp8"]
    assert r["e2e"] == pytest.approx(r["ttft"] + 1023 / r["tokens_per_s_user"], rel=1e-9)
    # --precision is the old name of --weights; its KV cache is stated in the KV column
    doc = _json(capsys, "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--precision", "fp8,int4")
    assert {(r["precision"], r["kv_cache"]) for r in doc["rows"]} == {("fp8", "fp8"), ("int4", "bf16")}


def test_targets_reject_layouts(capsys):
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--prompt", "8k", "--output", "256",
                "--ttft", "200ms", "--tpot", "20ms")
    assert doc["rows"] and all(r["ttft"] <= 0.2 and r["tpot"] <= 0.02 for r in doc["rows"])
    assert doc["rejected"]["misses the TTFT target"] > 0


def test_price_override_and_csv(capsys):
    doc = _json(capsys, "llama-3.1-8b", "--hardware", "h100-sxm,b200", "--gpus", "1", "--weights", "bf16",
                "--price", "b200=1.0")
    assert doc["prices"]["b200"] == 1.0 and doc["rows"][0]["hardware"] == "b200"  # the cheap B200 now wins
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and {"ttft", "tpot", "e2e", "usd_per_mtok_in", "usd_per_mtok_out", "kv_cache"} <= set(rows[0])


def test_unpriced_gpu_sorts_by_speed_and_says_so(capsys):
    doc = _json(capsys, "llama-3.1-8b", "--hardware", "h100-sxm,gaudi3", "--gpus", "1")
    assert doc["sorted_by"] == "tok/s per GPU"
    assert all(r["usd_per_mtok_out"] is None for r in doc["rows"] if r["hardware"] == "gaudi3")


def test_table_states_the_int4_caveat(capsys):
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--gpus", "2", "--limit", "50",
                 "--weights", "bf16,fp8,int8,int4"]) == 0
    out = capsys.readouterr().out
    assert "charges no dequantization" in out and "TTFT ms" in out and "$/M out" in out and "KV" in out
    assert "not tried" not in out  # the formats were named


def test_default_weights_leave_int8_int4_out_and_say_how_to_add_them(capsys):
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--gpus", "2", "--limit", "0"]) == 0
    out = capsys.readouterr().out
    rows = [line.split()[0] for line in out.splitlines() if line.split()[:1] in (["bf16"], ["fp8"], ["int8"], ["int4"])]
    assert rows and set(rows) <= {"bf16", "fp8"}
    assert "not tried: int8, int4 weights" in out and "--weights bf16,fp8,int8,int4" in out
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--gpus", "2")
    assert doc["weights"] == ["bf16", "fp8"] and doc["weights_not_tried"] == ["int8", "int4"]


def test_an_fp8_checkpoint_leaves_out_only_narrower_formats():
    """DeepSeek-V3 ships fp8 weights with a scale per 128 x 128 block (its config.json): bf16, fp8 and int8 store those
    values in as many bytes or more, so only int4 is a format the default left out; gpt-oss's default tensors are bf16
    (its experts mxfp4), so fp8, int8 and int4 are."""
    from genreport.load.loader import load_model
    from genreport.model.plan import formats_not_tried

    def model(name):
        return load_model(ROOT / "specs" / "models" / f"{name}.yaml")

    assert formats_not_tried(model("deepseek-v3"), ("checkpoint",)) == ("int4",)
    assert formats_not_tried(model("gpt-oss-120b"), ("checkpoint",)) == ("fp8", "int8", "int4")
    assert formats_not_tried(model("llama-3.1-8b"), ("bf16", "fp8")) == ("int8", "int4")


@pytest.mark.parametrize("args, text", [
    (["--ttft", "2"], "--ttft 2:"),
    (["--price", "b200=5"], "not one of the GPUs asked"),
    (["--price", "h100-sxm=-1"], "is not GPU=USD per hour"),
    (["--kv-cache", "fp9"], "unknown format fp9"),
    (["--sort", "gpus"], "needs --users"),
    (["--prompt", "4k", "--output", "1k", "--context", "8k"], "is not the last context of --prompt 4k and --output 1k"),
    (["--prompt", "4k", "--context", "1k"], "is shorter than --prompt 4k"),
    (["--output", "9k"], "leaves no prompt in the last context of 8,192 tokens"),
])
def test_bad_options(capsys, args, text):
    assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", *args]) == 1
    err = capsys.readouterr().err
    assert text in err and "hint:" in err and "Traceback" not in err


def test_plan_the_report_and_its_frontier_search_the_same_gpus():
    """plan's --max-gpus default, the serving chapter's cheapest layout and its frontier figure search one set of
    layouts: up to an NVL72 domain (the figure said 'up to 64 GPUs' while plan tried 72)."""
    import inspect

    from genreport.commands.plan import _parser
    from genreport.model import frontier, plan

    assert inspect.signature(frontier.frontier).parameters["max_gpus"].default == plan.MAX_GPUS == 72
    assert inspect.signature(plan.plan).parameters["max_gpus"].default == plan.MAX_GPUS
    assert "default 72, an NVL72 domain" in " ".join(_parser().format_help().split())
    import contextlib
    import io
    import json

    from genreport.commands.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["plan", "llama-3.1-70b", "--hardware", "h100-sxm", "--format", "json", "-q"]) == 0
    assert json.loads(out.getvalue())["max_gpus"] == plan.MAX_GPUS


# Llama 3.1 70B in bf16 at tp 8 on H100 SXM, plan's defaults (10% reserve, one 8,192-token step's activations): per GPU
# 0.9 x 80 GiB - 8,192 x 2 B x (2 x 8,192 + 3 x 28,672 / 8) - 256 x 128,256 x 4 B = 76,733,480,960 B (Meta's
# config.json, NVIDIA's datasheet; tests/test_speculative_draft.py), the weights 70.6e9 x 2 B / 8 and 40,960 B of KV a
# token (80 layers x 2 x 8 KV heads x 128 x 2 B / 8): room for 1,442,467.8 tokens a GPU.
ROOM_TOKENS = (0.9 * 80 * 2**30 - (8192 * 2 * (2 * 8192 + 3 * 28672 / 8) + 256 * 128256 * 4) - 70.6e9 * 2 / 8) / 40960


@pytest.mark.parametrize("args", [("--prompt", "4k", "--output", "513"), ("--context", "4608", "--output", "513"),
                                  ("--context", "4608", "--prompt", "4k"),
                                  ("--context", "4608", "--prompt", "4k", "--output", "513")])
def test_context_is_the_last_context(capsys, args):
    """Issue 30: --context is the request's last context, prompt + output - 1 (the step that makes the last token
    reads the prompt and the output - 1 tokens before it), what the serving chapter times TPOT and counts capacity at;
    any two of the three give the third.  4,096 + 513 tokens: last context 4,608, where a tp-8 replica holds
    floor(1,442,467.8 / 4,608) = 313 sequences (prompt + output, 4,609 tokens, held 312)."""
    assert int(ROOM_TOKENS / 4608) == 313 and int(ROOM_TOKENS / 4609) == 312
    base = ("llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--batch", "1")
    doc = _json(capsys, *base, *args)
    assert (doc["prompt"], doc["output"], doc["context"]) == (4096, 513, 4608)
    row = next(r for r in doc["rows"] if (r["tp"], r["pp"], r["ep"], r["dp"]) == (8, 1, 1, 1))
    assert row["capacity_batch"] == 313
    assert main(["plan", *base, *args]) == 0
    assert "4,096 prompt + 513 generated tokens (last context 4,608: TPOT and capacity there)" in capsys.readouterr().out


def test_context_alone_decodes_at_that_context(capsys):
    """--context S alone: a prompt of S tokens and one generated, the last context S (decode at context S)."""
    doc = _json(capsys, "llama-3.1-70b", "--hardware", "h100-sxm", "--weights", "bf16", "--gpus", "8", "--batch", "1",
                "--context", "4608")
    assert (doc["prompt"], doc["output"], doc["context"]) == (4608, 1, 4608)
    assert next(r for r in doc["rows"] if (r["tp"], r["pp"]) == (8, 1))["capacity_batch"] == 313


def test_plan_row_at_the_chapter_layout_is_the_chapter(capsys):
    """One number: plan's row for the serving chapter's layout (Llama 3.1 70B bf16 at tp 8 on H100, 4k + 512) has the
    chapter's TPOT, tok/s per GPU and capacity at each of its batches, to 1e-12; the cheapest layout the chapter names
    is timed as serving.request times that layout (both at the last context 4,607)."""
    from genreport.load.spec import Parallelism
    from genreport.model.plan import Shape, plan, plan_precision
    from genreport.model.serving import request
    from shared import evaluated

    r = evaluated("llama70b-h100-tp8.yaml")
    spec, sv, ch = r.spec, r.spec.serving, r.serving
    shape = Shape(sv.prompt, sv.output)
    assert shape.last_context == ch["last_context"] == 4607
    for row in ch["rows"]:
        b = row["batch"]
        found = plan(spec.model, spec.hardware, b, None, None, ("bf16",), 8, spec.accounting, shape=shape)
        p = next(x for x in found.rows if (x.tp, x.pp, x.ep, x.dp) == (8, 1, 1, 1))
        assert p.batch == b and p.capacity_batch == ch["capacity_batch"] == int(ROOM_TOKENS / 4607) == 313
        assert p.tpot == pytest.approx(row["bound"]["tpot"], rel=1e-12, abs=0)
        assert p.tokens_per_s_gpu == pytest.approx(row["bound"]["tokens_per_s_gpu"], rel=1e-12, abs=0)
        assert p.ttft == pytest.approx(row["bound"]["ttft"], rel=1e-12, abs=0)
    cheap = ch["cheapest"]
    prec = plan_precision(cheap["precision"], spec.model)
    prec = dataclasses.replace(prec, kv_cache=cheap["kv_cache"])
    par = Parallelism(cheap["tp"], cheap["pp"], cheap["ep"], cheap["dp"])
    one = request(spec.model, spec.hardware, prec, par, cheap["batch"], sv.prompt, sv.output, spec.accounting)
    plain = cheap["tpot_plain"] if cheap["speculative"] else cheap["tpot"]
    assert plain == pytest.approx(one.tpot_bound, rel=1e-12, abs=0)


def test_plan_names_the_hardware_it_costs_without_a_kernel_cost(capsys):
    """No per-kernel cost is sourced for a TPU (spec.NO_KERNEL_COST): plan's footnote names it; the H100's are sourced
    (NVIDIA, "Getting Started with CUDA Graphs"; pegainfer (3))."""
    assert main(["plan", "llama-3.1-8b", "--hardware", "tpu-v5e,h100-sxm", "--gpus", "1", "--estimate", "serial"]) == 0
    out = capsys.readouterr().out
    (note,) = [line for line in out.splitlines() if line.startswith("no sourced per-kernel cost")]
    assert "Google Cloud TPU v5e" in note and "H100" not in note and "XLA compiles" in note
    assert main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "1"]) == 0
    assert "no sourced per-kernel cost" not in capsys.readouterr().out


@pytest.mark.parametrize("name", ["deepseek-v3-h200-ep8.yaml", "llama70b-h100-tp8.yaml"])
def test_the_frontier_holds_what_plan_holds_at_every_layout(name):
    """Figure 10's layouts (the serving chapter's frontier) each count the sequences a replica holds with that
    layout's own memory, the capacity less the reserve and its own step's activations (env.usable_at), as ``plan`` and
    ``point`` count them; they took the report's layout's (hw.usable), so Llama 3.1 70B bf16 at pp 2 on H100 held 8
    sequences of 4,096 + 512 tokens in the figure and 6 in ``plan`` (one stage's step at tp 1 needs the activations
    of all 8,192 tokens unsplit).  DeepSeek-V3 (MLA, an MoE, data-parallel attention) and a dense model."""
    from genreport.load.spec import Parallelism
    from genreport.model.frontier import MAX_BATCH
    from genreport.model.plan import point
    from genreport.model.serving import last_context
    from shared import evaluated

    r = evaluated(name)
    s, f = r.spec, r.serving["frontier"]
    last = float(last_context(s.serving.prompt, s.serving.output))
    held = {}
    for lay in f["layouts"]:
        par = Parallelism(lay["tp"], lay["pp"], lay["ep"], lay["dp"], lay["redundant_experts"])
        p = point(s.model, s.hardware, s.precision, par, 1.0, last)
        held[lay["label"]] = (lay["capacity_batch"], int(min(p.capacity_batch, MAX_BATCH)))
    assert len(held) > 30
    assert all(a == b for a, b in held.values()), {k: v for k, v in held.items() if v[0] != v[1]}
    if name.startswith("llama70b"):
        assert held["pp2"] == (6, 6)


def test_the_tensor_parallel_sweep_fits_each_degree_in_its_own_memory():
    """Figure 7's sweep (tensor parallelism alone) marks a degree whose replica does not hold the weights and the
    batch; each degree has its own activation workspace.  DeepSeek-V3 fp8 on GB200 laid out as ep 72 x dp 72 (32
    redundant experts, 4 a GPU): at that layout an MoE layer runs on 72 ranks' tokens, so a GPU may use 154.8 GiB,
    while at tp 4 it may use 166.1 GiB and holds the 157 GiB of fp8 weights (with what each GPU holds whole:
    tests/test_tp_copies.py) and 273 sequences of 1,024 tokens (the
    fit map's 4 GPUs); the sweep crossed tp 4 out with the report's layout's 154.8 GiB."""
    from genreport.load.loader import load_report
    from genreport.load.spec import Parallelism
    from genreport.model.env import usable_at
    from genreport.model.plan import fit_map, point, scaling

    s = load_report(ROOT / "specs" / "deepseek-v3-h200-ep8.yaml",
                    ("hardware=gb200", "parallelism.dp=72", "parallelism.ep=72", "engine.redundant_experts=32"))
    hw, m = s.hardware, s.model
    assert hw.usable / 2**30 == pytest.approx(154.79, abs=0.01)
    assert usable_at(hw, m, 4) / 2**30 == pytest.approx(166.12, abs=0.01)
    rows = {x["tp"]: x for x in scaling(m, hw, s.precision, 1.0, 1024.0)}
    for tp, row in rows.items():
        p = point(m, hw, s.precision, Parallelism(tp), 1.0, 1024.0)
        assert row["fits"] == (p.weights_fit and p.capacity_batch >= 1), tp
    four = point(m, hw, s.precision, Parallelism(4), 1.0, 1024.0)
    assert rows[4]["fits"] and four.capacity_batch == 273 and not rows[2]["fits"]
    assert fit_map(m, hw, [1024])["fp8"] == [4.0]


def test_plan_fills_an_nvl72_domain_with_redundant_experts(capsys):
    """Issue 27 (layouts): data-parallel attention over an expert group that fills the 72-GPU NVL72 domain, as SGLang
    runs DeepSeek-V3 on GB200 NVL72: 72 does not divide the 256 routed experts, so the group holds 32 redundant
    replicas (EPLB), ceil(256 / 72) = 4 slots a GPU, 4 x 72 - 256 = 32.  A GPU then holds the weights of a GPU of the
    64-GPU group exactly (256 / 64 = 4 experts a GPU; the same non-expert share at the same tp), and the bound reads
    the experts a batch touches once over 72 GPUs.  Qwen3-235B's 128 experts: 2 x 72 - 128 = 16; Mixtral's 8 experts
    on 72 GPUs would be whole copies, not an expert group: not tried.  A power-of-two domain adds nothing."""
    from genreport.load.loader import load_model
    from genreport.load.spec import Parallelism
    from genreport.model.plan import dp_attention_layouts, redundant_to_even

    ds = load_model(ROOT / "specs" / "models" / "deepseek-v3.yaml")
    assert redundant_to_even(256, 72) == 32 and redundant_to_even(128, 72) == 16 and redundant_to_even(256, 64) == 0
    filled = [p for p in dp_attention_layouts(ds, 72) if p.redundant_experts]
    assert filled == [Parallelism(tp, 1, 72, 72 // tp, 32) for tp in (1, 2, 4, 8)]
    assert [p.label() for p in filled][:2] == ["ep72+32 dp72", "tp2 ep72+32 dp36"]
    assert dp_attention_layouts(ds, 64) == [p for p in dp_attention_layouts(ds, 72) if not p.redundant_experts
                                            and p.gpus <= 64]
    qwen = load_model(ROOT / "specs" / "models" / "qwen3-235b-a22b.yaml")
    assert {p.redundant_experts for p in dp_attention_layouts(qwen, 72)} == {0, 16}
    mixtral = load_model(ROOT / "specs" / "models" / "mixtral-8x22b.yaml")
    assert all(p.gpus <= 8 and not p.redundant_experts for p in dp_attention_layouts(mixtral, 72))

    doc = _json(capsys, "deepseek-v3", "--hardware", "gb200", "--weights", "fp8", "--batch", "64", "--context", "8k")
    rows = {(r["tp"], r["ep"], r["dp"]): r for r in doc["rows"]}
    full, even = rows[1, 72, 72], rows[1, 64, 64]
    assert full["redundant_experts"] == 32 and even["redundant_experts"] == 0 and full["gpus"] == 72
    assert full["weight_bytes_per_gpu"] == pytest.approx(even["weight_bytes_per_gpu"], rel=1e-12)
    assert full["concurrency"] == 72 * full["capacity_batch"]
    assert main(["plan", "deepseek-v3", "--hardware", "gb200", "--weights", "fp8", "--batch", "64", "--context", "8k",
                 "--limit", "0"]) == 0
    out = capsys.readouterr().out
    assert " 72+32 " in out
    assert ("ep72+32: 72 GPUs hold the 256 routed experts and 32 redundant replicas, 4 a GPU (EPLB copies the most "
            "loaded experts; SGLang's --ep-num-redundant-experts), where 72 does not divide the experts") in out
    assert main(["plan", "deepseek-v3", "--hardware", "gb200", "--weights", "fp8", "--format", "csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert {r["redundant_experts"] for r in table if r["ep"] == "72"} == {"32"}


def test_the_frontier_names_the_redundant_experts_of_a_domain_filling_layout():
    """DeepSeek-V3 on 8 H200 (the committed spec): figure 9 draws the four 72-GPU layouts among the 105 plan tries,
    and its caption says what ep72+32 is."""
    from genreport.present.figures.fig10_frontier import caption10
    from shared import evaluated

    r = evaluated("deepseek-v3-h200-ep8.yaml")
    f = r.serving["frontier"]
    filled = sorted(x["label"] for x in f["layouts"] if x["redundant_experts"])
    assert filled == ["ep72+32 dp72", "tp2 ep72+32 dp36", "tp4 ep72+32 dp18", "tp8 ep72+32 dp9"]
    assert "ep72+32: 72 GPUs hold the 256 routed experts and 32 redundant replicas, 4 a GPU" in caption10(r)
    plain = evaluated("llama70b-h100-tp8.yaml")
    assert "redundant" not in caption10(plain)


def test_page_one_and_the_serving_chapter_name_the_redundant_experts_of_the_cheapest_layout():
    """9,000 users of DeepSeek-V3 on GB200 NVL72 with 32k prompts: the cheapest layout that meets the targets fills the
    domain, ep 72 with 32 redundant experts x dp 72; page 1 and chapter 7 say so (they said "ep 72", which holds 3.56
    experts a GPU on average and 4 on the busiest).  (With 4k prompts the cheapest was tp 2 x ep 72+32 x dp 36 until
    each GPU of tp 2 held its MLA down-projections, norms and router whole, tests/test_tp_copies.py: now tp 1 x ep 64
    x dp 64, data-parallel attention, as SGLang runs DeepSeek-V3.)"""
    import re

    from shared import evaluated, rendered

    r = evaluated("deepseek-v3-h200-ep8.yaml", ["hardware=gb200", "serving.users=9000", "serving.prompt=32k"])
    c = r.serving["cheapest"]
    assert (c["gpus"], c["tp"], c["ep"], c["dp"], c["redundant_experts"]) == (72, 1, 72, 72, 32)
    for page in ("sections/s0_summary.html.j2", "sections/s9_serving.html.j2"):
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", rendered(r, page)))
        assert "72 GPUs, tp 1 × dp 72 with ep 72 (32 redundant experts)" in text, page


def test_cost_ranks_a_request_its_prompt_with_it(capsys):
    """Deployment review, stop 75: "cheapest" ranked by $/M output tokens alone, so Llama 3.1 405B fp8 at 2k + 256 on
    H100 listed tp 64 (64 GPUs over 8 nodes, its prompts across the scale-out network) fourth at $2.686/M out, where
    a request costs 4.1x tp 8's.  A request's cost is its prompt at $/M in and its output - 1 decode tokens at $/M
    out: tp 8, (2,048 x 0.341 + 255 x 1.711) / 10^6 = $0.001134; the rows rank by it."""
    doc = _json(capsys, "llama-3.1-405b", "--hardware", "h100-sxm", "--weights", "fp8", "--prompt", "2k",
                "--output", "256")
    rows = doc["rows"]
    per = [r["usd_per_request"] for r in rows]
    assert per == sorted(per) and doc["sorted_by"].startswith("$ per request")
    tp8 = next(r for r in rows if (r["tp"], r["pp"]) == (8, 1))
    assert tp8["usd_per_request"] == pytest.approx(
        (2048 * tp8["usd_per_mtok_in"] + 255 * tp8["usd_per_mtok_out"]) / 1e6, rel=1e-12)
    assert tp8["usd_per_request"] == pytest.approx(0.001134, rel=2e-3) and rows[0] is tp8 or rows[0] == tp8
    tp64 = next(r for r in rows if (r["tp"], r["pp"]) == (64, 1))
    assert tp64["usd_per_request"] > 4 * tp8["usd_per_request"] and rows.index(tp64) > 8


def test_a_group_over_the_scale_out_network_is_marked(capsys):
    """Deployment review, stop 75: tp 16-64 over InfiniBand was listed beside tp 8 with nothing in the table to say its
    all-reduces cross nodes; such a group's degree carries a * and the notes say what it means."""
    from genreport.commands.cli import main

    assert main(["plan", "llama-3.1-405b", "--hardware", "h100-sxm", "--weights", "fp8", "--prompt", "2k",
                 "--output", "256", "--limit", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    cells = [line.split() for line in lines if line.startswith("fp8 ")]
    assert any(c[3] == "16*" for c in cells) and any(c[3] == "8" for c in cells)
    assert not any(c[3] in ("8*", "4*", "2*", "1*") for c in cells)  # an HGX H100's 8 GPUs share NVLink
    assert "*: the group's collectives cross the scale-out network between nodes" in lines[-1]


def test_plan_of_a_spec_takes_its_prefix_cache_in_the_prompts_compute(tmp_path, capsys):
    """QA, stop 75: ``plan SPEC`` took a spec's prompts whole where the serving chapter takes the uncached part
    (serving.prefix_hit), so the spec's own layout read 215 sequences where the chapter's compute_batch said 385.
    Llama 3.1 70B bf16 tp 8 at 4k + 512, 20 ms, half of each prompt cached: plan's row and the chapter agree."""
    import json
    import re

    from genreport.commands.cli import main
    from shared import ROOT, evaluated

    text = (ROOT / "specs" / "llama70b-h100-tp8.yaml").read_text()
    text = re.sub(r"(?m)^  tpot: .*$", "  tpot: 20 ms\n  prefix_hit: 0.5", text)
    text = re.sub(r"(?m)^  (speculative|users): .*\n", "", text)
    spec = tmp_path / "cached.yaml"
    spec.write_text(text)
    r = evaluated(spec)
    assert main(["plan", str(spec), "--format", "json", "--gpus", "8", "--weights", "bf16", "--batch", "1000"]) == 0
    row = next(x for x in json.loads(capsys.readouterr().out)["rows"] if (x["tp"], x["pp"], x["kv_cache"]) ==
               (8, 1, r.spec.precision.kv_cache))
    b_p = r.serving["compute_batch"]
    assert row["limit"] == "prompts" and row["batch"] == b_p == r.serving["tpot_batch"]
    unc = evaluated(spec, ("serving.prefix_hit=0",)).serving["compute_batch"]
    assert unc < b_p  # the whole prompts take more of the compute
