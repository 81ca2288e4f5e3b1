"""Weights per tensor class and the block-scaled formats (issue 28): bytes held and read, counted by hand.

Formats, with their scales (the sources are copied here, as load/spec.py cites them):
- MXFP4: OCP Microscaling Formats (MX) Specification v1.0, section 5: a block of k = 32 FP4 (E2M1) elements shares
  one 8-bit E8M0 scale: 4 + 8/32 = 4.25 bits.
- NVFP4: NVIDIA developer blog, "Introducing NVFP4 for Efficient and Accurate Low-Precision Inference" (2025):
  16 E2M1 values share one FP8 (E4M3) scale, plus one FP32 scale per tensor: 4 + 8/16 = 4.5 bits.
- fp8 with block scales: DeepSeek-V3 Technical Report (arXiv:2412.19437), section 3.3.2: weights scaled per
  128 x 128 block, one fp32 scale each: 8 + 32/16384 bits.

gpt-oss-120b counted by hand from its config.json (hidden 2880, 36 layers, 128 experts of width 2880, vocabulary
201088, untied head; every expert has gate_up 2 x 2880 x 2880 + down 2880 x 2880 weights and 2 x 2880 + 2880
biases):
- one expert: 3 x 2880^2 + 3 x 2880 = 24,891,840; all routed experts: 36 x 128 x 24,891,840 = 114,701,598,720;
- the model: 116,829,156,672 (test_model_families checks it against the card), so 2,127,557,952 in bf16;
- the input embedding: 201,088 x 2,880 = 579,133,440;
- the experts' biases, 36 x 128 x 3 x 2880 = 39,813,120, stay bf16 beside the MXFP4 blocks (the checkpoint's
  gate_up_proj_bias and down_proj_bias; stop 71: they were counted at the matrices' 4.25 bits).
"""

from __future__ import annotations

import json

import pytest
from genreport import evaluate, load_spec
from genreport.commands.cli import main as cli_main
from genreport.errors import SpecError
from shared import ROOT

EXPERT = 3 * 2880 * 2880 + 3 * 2880
assert EXPERT == 24_891_840
EXPERTS = 36 * 128 * EXPERT
assert EXPERTS == 114_701_598_720
TOTAL = 116_829_156_672
REST = TOTAL - EXPERTS
assert REST == 2_127_557_952
EMBED = 201_088 * 2880
MXFP4, NVFP4, FP8_BLOCK = 4.25 / 8, 4.5 / 8, (8 + 32 / (128 * 128)) / 8
BIASES = 36 * 128 * 3 * 2880
MATRICES = EXPERTS - BIASES
assert (MATRICES, BIASES) == (114_661_785_600, 39_813_120)
HELD_EXPERTS = MATRICES * MXFP4 + BIASES * 2.0  # the routed experts as the checkpoint holds them
EXPERT_HELD = 3 * 2880 * 2880 * MXFP4 + 3 * 2880 * 2.0  # one expert

# gpt-oss model card (OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card", arXiv:2508.10925, table 1): the checkpoint
# of gpt-oss-120b is 60.8 GiB (experts in MXFP4, the rest in bf16).
PUBLISHED_CHECKPOINT = 60.8 * 2**30


def report(tmp_path, precision: str, model="gpt-oss-120b", hardware="h100-sxm", extra="", name="r"):
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"kind: report\nname: {name}\ntitle: t\nhardware: {hardware}\nmodel: {model}\n"
                    f"precision: {precision}\naccounting: exact\nengine: {{memory_reserve: 0, max_batched_tokens: 0, max_sequences: 0}}\n{extra}"
                    "workloads:\n  decode: {batch: [1, 64], context: [1k]}\n  prefill: {prompt: [2k]}\n")
    return path


def entry(r, qid, **params):
    return next(e.value for e in r.entries if e.id == qid and all(e.params.get(k) == v for k, v in params.items()))


def test_gpt_oss_120b_with_its_shipped_precisions_is_the_published_checkpoint(tmp_path):
    spec = load_spec(report(tmp_path, "{weights: checkpoint}"))
    assert spec.precision.weights == "mxfp4+bf16" and spec.precision.compute == "bf16"  # dequantized on an H100
    r = evaluate(spec)
    held = HELD_EXPERTS + REST * 2.0
    assert held == 65_248_815_744.0
    assert r.scalars["exact"]["weight_bytes"] == pytest.approx(held, rel=1e-12)
    assert abs(held / PUBLISHED_CHECKPOINT - 1) < 0.001  # 65.25 GB against 65.28 GB: -0.05% (-0.15% with 4-bit biases)
    assert spec.precision.weight_bytes == pytest.approx(held / TOTAL, rel=1e-12)  # the inputs table's mean b
    # "int4 everywhere" (group 32) landed near the size by accident and reads attention at 4 bits: 65.7 GB
    int4 = evaluate(load_spec(report(tmp_path, "{weights: int4, group_size: 32}", name="i")))
    assert int4.scalars["exact"]["weight_bytes"] == pytest.approx(TOTAL * (0.5 + 2 / 32), rel=1e-12)


def test_a_decode_step_reads_the_touched_experts_at_their_bits_and_the_rest_at_16(tmp_path):
    r = evaluate(load_spec(report(tmp_path, "{weights: {experts: mxfp4, default: bf16}}")))
    # batch 1 touches 4 experts a layer; the input embedding is a row lookup, not streamed (exact accounting)
    weights = 36 * 4 * EXPERT_HELD + (REST - EMBED) * 2.0
    assert weights == 5_002_902_144
    # KV at 1,024 tokens: 18 global layers of 2 x 8 heads x 64 x 2 B a token, 18 windowed layers of 128 tokens
    kv = 18 * 2 * 8 * 64 * 2 * 1024 + 18 * 2 * 8 * 64 * 2 * 128
    assert entry(r, "decode_bytes_exact", batch=1, context=1024) == pytest.approx(weights + kv, rel=1e-12)
    # the seed accounting reads the declared active count, input embedding included, the experts at 4.25 bits
    active = 5.712e9  # gpt-oss-120b.yaml active_parameters, both embedding tables counted
    seed = (active - 36 * 4 * EXPERT) * 2.0 + 36 * 4 * EXPERT_HELD
    # (the declared counts scale the routed experts by (N - N_a) / (total - active) = 1.0000076)
    assert entry(r, "decode_bytes", batch=1, context=1024) == pytest.approx(seed + kv, rel=2e-5)
    # a pass over a prompt reads every weight but the input embedding, at their own bits
    assert entry(r, "prefill_bytes_exact", tokens=2048) > HELD_EXPERTS + (REST - EMBED) * 2.0


def test_a_gpus_slice_holds_its_share_of_each_class(tmp_path):
    layout = "parallelism: {tp: 2, ep: 4, dp: 2}\n"
    r = evaluate(load_spec(report(tmp_path, "{weights: checkpoint}", extra=layout)))
    # tp 2: everything else halves, but for what each GPU holds whole in bf16, one more copy (tests/test_tp_copies.py):
    # the norms (36 x 2 x 2,880 + 2,880), the routers (36 x (2,880 x 128 + 128)) and the attention output's biases
    # (36 x 2,880); ep 4: each GPU holds a quarter of the routed experts
    copies = 36 * 2 * 2880 + 2880 + 36 * (2880 * 128 + 128) + 36 * 2880
    assert copies == 13_589_568
    want = (REST + copies) * 2.0 / 2 + HELD_EXPERTS / 4
    assert r.parallel.scalars["exact"]["weight_bytes_per_gpu"] == pytest.approx(want, rel=1e-12)
    assert r.scalars["exact"]["weight_bytes"] == pytest.approx(want, rel=1e-12)  # the report's per-GPU weights


def test_nvfp4_on_b200_takes_the_fp4_peak_and_is_dequantized_where_there_is_none(tmp_path):
    r = evaluate(load_spec(report(tmp_path, "{weights: {experts: nvfp4}, compute: fp4}", hardware="b200")))
    assert r.scalars["exact"]["weight_bytes"] == pytest.approx(MATRICES * NVFP4 + (BIASES + REST) * 2.0, rel=1e-12)
    assert r.scalars["exact"]["peak_flops"] == pytest.approx(9e15)  # B200 dense fp4, its hardware file
    bf16 = load_spec(report(tmp_path, "{weights: {experts: nvfp4}}", hardware="b200", name="b"))
    assert bf16.precision.compute == "bf16"  # like int4: unless compute says fp4, the bf16 peak applies
    with pytest.raises(SpecError, match="has no dense fp4 peak"):
        load_spec(report(tmp_path, "{weights: {experts: nvfp4}, compute: fp4}", name="h"))


def test_deepseek_v3_fp8_with_block_scales(tmp_path):
    r = evaluate(load_spec(report(tmp_path, "{weights: checkpoint}", model="deepseek-v3", hardware="h200")))
    total = r.params.total
    embeddings = 2 * 129_280 * 7168  # untied input embedding and head, in bf16 (config.json: vocab 129280, hidden 7168)
    want = (total - embeddings) * FP8_BLOCK + embeddings * 2.0
    assert FP8_BLOCK == 1.000244140625
    assert r.scalars["exact"]["weight_bytes"] == pytest.approx(want, rel=1e-12)
    assert r.spec.precision.compute == "fp8"  # fp8_block is computed in fp8
    plain = evaluate(load_spec(report(tmp_path, "fp8", model="deepseek-v3", hardware="h200", name="p")))
    extra = r.scalars["exact"]["weight_bytes"] - plain.scalars["exact"]["weight_bytes"]
    assert extra == pytest.approx((total - embeddings) * 32 / 16384 / 8 + embeddings, rel=1e-9)  # scales + bf16


def test_one_format_is_unchanged_and_a_mapping_of_one_format_equals_it(tmp_path):
    one = evaluate(load_spec(report(tmp_path, "int4", name="a")))
    same = evaluate(load_spec(report(tmp_path, "{weights: {default: int4}, compute: bf16, kv_cache: bf16}", name="b")))
    a = {(e.id, json.dumps(e.params, sort_keys=True)): e.value for e in one.entries}
    b = {(e.id, json.dumps(e.params, sort_keys=True)): e.value for e in same.entries}
    assert a == b
    assert one.spec.precision.weight_bytes == 0.5 and not one.spec.precision.classes


def test_set_a_class_and_the_checkpoint_of_a_model_without_one(tmp_path):
    path = report(tmp_path, "bf16")
    spec = load_spec(path, ["precision.weights.experts=nvfp4"])
    assert spec.precision.format_of("experts") == "nvfp4" and spec.precision.format_of("attention") == "bf16"
    assert evaluate(spec).scalars["exact"]["weight_bytes"] == pytest.approx(MATRICES * NVFP4 + (BIASES + REST) * 2.0, rel=1e-12)
    with pytest.raises(SpecError, match="Llama 3.1 8B has no checkpoint_precision") as err:
        load_spec(report(tmp_path, "{weights: checkpoint}", model="llama-3.1-8b", name="l"))
    assert "precision.weights" in str(err.value)


def test_precision_checkpoint_is_short_for_weights_checkpoint(tmp_path):
    """``precision: checkpoint`` (what ``plan --weights checkpoint`` says) is ``{weights: checkpoint}``: the same
    formats and numbers; ``--set precision=checkpoint`` and a part set beside it work; a model without
    checkpoint_precision is refused at the shorthand's own line; the live page's rule for ``precision`` takes it."""
    short = load_spec(report(tmp_path, "checkpoint", name="s"))
    long = load_spec(report(tmp_path, "{weights: checkpoint}", name="l"))
    assert short.precision == long.precision and short.precision.weights == "mxfp4+bf16"
    assert evaluate(short).scalars["exact"]["weight_bytes"] == pytest.approx(HELD_EXPERTS + REST * 2.0, rel=1e-12)
    kv = load_spec(report(tmp_path, "bf16", name="k"), ["precision=checkpoint", "precision.kv_cache=fp8"])
    assert (kv.precision.weights, kv.precision.kv_cache) == ("mxfp4+bf16", "fp8")
    with pytest.raises(SpecError, match="Llama 3.1 8B has no checkpoint_precision") as err:
        load_spec(report(tmp_path, "checkpoint", model="llama-3.1-8b", name="n"))
    assert ":6:" in str(err.value)  # the line of 'precision: checkpoint'
    from genreport.load.setrules import rules

    table = rules(("report", "precision"))
    assert "checkpoint" in table["rules"][table["paths"]["precision"]][1]


def test_results_and_inputs_table_state_each_class(tmp_path):
    out = tmp_path / "out"
    assert cli_main([str(report(tmp_path, "{weights: checkpoint}")), "--format", "json", "-o", str(out), "-q"]) == 0
    p = json.loads((out / "r" / "results.json").read_text())["inputs"]["precision"]
    assert p["weights_by_class"]["experts"] == {"format": "mxfp4", "bytes_per_weight": MXFP4, "parameters": MATRICES,
                                                "compute": "bf16"}  # an H100 has no fp4 peak: dequantized to bf16
    assert p["weights_by_class"]["attention"]["format"] == "bf16"
    assert p["bytes_per_weight"] == pytest.approx((HELD_EXPERTS + REST * 2) / TOTAL, rel=1e-12)


FIXTURES = ROOT / "tests" / "fixtures" / "hf"


def test_import_hf_writes_the_checkpoint_precision(tmp_path, capsys):
    """gpt-oss's quant_method mxfp4 (modules_to_not_convert: attention, router, embedding, head) and DeepSeek-V3's
    fp8 with weight_block_size [128, 128] become the model spec's checkpoint_precision."""
    from genreport.load.loader import load_model

    out = tmp_path / "oss.yaml"
    assert cli_main(["import-hf", str(FIXTURES / "gpt-oss-120b.json"), "-o", str(out)]) == 0
    assert "precision.weights: checkpoint" in capsys.readouterr().err
    assert dict(load_model(out).checkpoint_weights) == {"experts": "mxfp4", "attention": "bf16",
                                                        "embeddings": "bf16", "default": "bf16"}
    r = evaluate(load_spec(report(tmp_path, "{weights: checkpoint}", model=str(out))))
    assert r.scalars["exact"]["weight_bytes"] == pytest.approx(HELD_EXPERTS + REST * 2.0, rel=1e-12)
    # DeepSeek-V3's published config.json (huggingface.co/deepseek-ai/DeepSeek-V3) carries this block
    cfg = json.loads((FIXTURES / "deepseek-v3.json").read_text())
    cfg["quantization_config"] = {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
                                  "weight_block_size": [128, 128]}
    (tmp_path / "config.json").write_text(json.dumps(cfg, indent=2))
    out = tmp_path / "v3.yaml"
    assert cli_main(["import-hf", str(tmp_path / "config.json"), "-o", str(out)]) == 0
    assert dict(load_model(out).checkpoint_weights) == {"experts": "fp8_block", "attention": "fp8_block",
                                                        "embeddings": "bf16", "default": "fp8_block"}
    cfg["quantization_config"]["weight_block_size"] = [64, 64]  # a block genreport does not count: said, not written
    (tmp_path / "config.json").write_text(json.dumps(cfg, indent=2))
    assert cli_main(["import-hf", str(tmp_path / "config.json"), "-o", str(out), "--force"]) == 0
    assert "only 128 x 128 blocks" in capsys.readouterr().err and load_model(out).checkpoint_weights == ()


def test_plan_tries_the_checkpoint_precision(capsys):
    """`plan --precision checkpoint` lays out the shipped formats: one GPU of gpt-oss-120b holds the 65.25 GB."""
    from genreport.load.loader import load_model
    from genreport.model.plan import plan_precision

    model = load_model(ROOT / "specs" / "models"
                       / "gpt-oss-120b.yaml")
    prec = plan_precision("checkpoint", model)
    assert prec.format_of("experts") == "mxfp4" and prec.compute == "bf16"
    assert prec.weight_bytes == pytest.approx((HELD_EXPERTS + REST * 2.0) / TOTAL, rel=1e-12)
    assert cli_main(["plan", "gpt-oss-120b", "--hardware", "h100-sxm", "--precision", "checkpoint", "--batch", "1",
                     "--context", "1k", "--memory-reserve", "0", "--accounting", "exact", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    one = next(r for r in rows if r["gpus"] == 1)
    assert one["weight_bytes_per_gpu"] == pytest.approx(HELD_EXPERTS + REST * 2.0, rel=1e-12)
    assert cli_main(["plan", "llama-3.1-8b", "--hardware", "h100-sxm", "--precision", "checkpoint"]) == 1
    assert "no checkpoint_precision" in capsys.readouterr().err
