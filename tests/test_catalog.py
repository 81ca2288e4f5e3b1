"""The built-in catalog (issue 6, "Breadth"): every spec loads, its numbers match their sources,
parameter and KV counts match independent hand calculations, import-hf reproduces the catalog,
and a report evaluates for every model on every GPU.

Published numbers are copied here with their source, so the tests read nothing outside the project.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest
from genreport.commands import import_hf as importhf
from genreport.commands.cli import main as cli_main
from genreport.errors import Findings, SpecError
from genreport.formulas import architecture as arch
from genreport.formulas.compiled import load as load_compiled
from genreport.load.loader import _read_kind as read_kind
from genreport.load.loader import (
    check_hardware,
    check_model,
    hardware_from,
    load_hardware,
    load_model,
    load_report,
    model_from,
)
from genreport.load.spec import Precision, Workloads
from genreport.model.evaluate import evaluate, make_env
from genreport.write.results import results_json
from shared import ROOT

HW_DIR = ROOT / "specs" / "hardware"
MODEL_DIR = ROOT / "specs" / "models"
HF_DIR = ROOT / "tests" / "fixtures" / "hf"

HW_FILES = sorted(HW_DIR.glob("*.yaml"))
MODEL_FILES = sorted(MODEL_DIR.glob("*.yaml"))

GiB = 2**30

REQUIRED_HARDWARE = {
    "h100-sxm", "h100-pcie", "h100-nvl", "h200", "h20", "b200", "gb200", "a100-sxm-40gb", "a100-sxm-80gb",
    "l40s", "l4", "rtx-4090", "mi300x", "mi325x", "gaudi3", "tpu-v5e", "tpu-v5p",
}
REQUIRED_MODELS = {
    "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "llama-3.2-1b", "llama-3.2-3b", "mistral-7b",
    "mixtral-8x7b", "qwen2.5-7b", "qwen2.5-72b", "qwen3-30b-a3b", "deepseek-v3", "gemma-2-9b", "gemma-2-27b",
    "phi-3-mini", "gpt-oss-120b", "gpt-oss-20b", "llama-4-scout", "llama-4-maverick", "gemma-3-27b", "qwen3-32b",
    "qwen3-235b-a22b",
}


@pytest.fixture(scope="module")
def hardware():
    return {p.stem: load_hardware(p) for p in HW_FILES}


@pytest.fixture(scope="module")
def models():
    return {p.stem: load_model(p) for p in MODEL_FILES}


# ----------------------------------------------------------------------------------------------- loading

def test_catalog_is_complete(hardware, models):
    assert REQUIRED_HARDWARE <= set(hardware)
    assert REQUIRED_MODELS <= set(models)


@pytest.mark.parametrize("path", HW_FILES, ids=lambda p: p.stem)
def test_hardware_spec_loads_cleanly(path):
    doc = read_kind(path, "hardware")
    hw = hardware_from(doc)
    found = Findings()
    check_hardware(doc, hw, found)
    assert not found.items, [f.format() for f in found.items]
    assert hw.name == path.stem
    assert hw.source.title and hw.source.url and hw.source.date
    assert path.read_text().startswith("# yaml-language-server: $schema=../schema/hardware.schema.json")
    if hw.price_per_hour is not None:
        assert "indicative" in hw.sources["price"].title.lower()
        assert hw.sources["price"].date  # a price is only as good as its date
    if hw.power_watts is not None:
        assert hw.sources["power"].title and hw.sources["power"].url


@pytest.mark.parametrize("path", MODEL_FILES, ids=lambda p: p.stem)
def test_model_spec_loads_cleanly(path):
    doc = read_kind(path, "model")
    m = model_from(doc)
    found = Findings()
    check_model(doc, m, found)
    assert not found.items, [f.format() for f in found.items]
    assert m.name == path.stem
    assert m.source.title and m.source.date
    assert m.source.url or m.name.startswith("seed"), "cite the config.json"  # seed000-70b cites seed 000 itself


@pytest.mark.parametrize("path", HW_FILES, ids=lambda p: p.stem)
def test_sparse_peaks_are_twice_dense(path):
    """Sparse (2:4) figures live only under peak.sparse and are about 2x the dense ones."""
    hw = load_hardware(path)
    for fmt, sparse in hw.sparse.items():
        assert fmt in hw.dense
        assert sparse / hw.dense[fmt] == pytest.approx(2.0, rel=0.02), fmt


# Datasheet values (capacity in bytes, bandwidth in B/s, dense bf16 FLOP/s), with the unit reading stated.
# Sources: the `source` block of each spec; NVIDIA/AMD/Google/Intel datasheets as cited there.
DATASHEET = {
    "h100-sxm": (80 * GiB, 3.35e12, 989.4e12),     # H100 datasheet; seed 003: 80 GiB
    "h100-pcie": (80 * GiB, 2.0e12, 756.5e12),     # H100 datasheet, 1,513 TFLOPS bf16 with sparsity
    "h100-nvl": (94 * GiB, 3.9e12, 835.5e12),      # H100 datasheet, 1,671 with sparsity
    "h200": (141 * GiB, 4.8e12, 989.4e12),         # H200 datasheet "141 GB", read as GiB like every label (nvidia-smi 143,771 MiB)
    "h20": (96 * GiB, 4.0e12, 148e12),             # Alibaba InferSim hardware/gpu.py: fp16 148, 96
    "b200": (180 * GiB, 7.7e12, 2.25e15),          # HGX B200: 36 PF bf16 sparse / 8 GPUs / 2; 7.7 TB/s (Blackwell datasheet)
    "gb200": (186 * GiB, 8e12, 2.5e15),            # GB200 NVL72: 360 PF bf16 sparse / 72 / 2
    "a100-sxm-40gb": (40 * GiB, 1.555e12, 312e12),  # A100 datasheet, 40GB SXM column
    "a100-sxm-80gb": (80 * GiB, 2.039e12, 312e12),  # A100 datasheet, 80GB SXM column
    "l40s": (48 * GiB, 864e9, 362.05e12),          # L40S datasheet
    "l4": (24 * GiB, 300e9, 121e12),               # L4 datasheet, 242 with sparsity
    "rtx-4090": (24 * GiB, 1008e9, 165.2e12),      # Ada whitepaper, FP32 accumulate
    "mi300x": (192 * GiB, 5.3e12, 1307.4e12),      # AMD datasheet; ROCm table VRAM 192 GiB
    "mi325x": (256 * GiB, 6.0e12, 1307.4e12),      # AMD product page; ROCm table VRAM 256 GiB
    "gaudi3": (128 * GiB, 3.7e12, 1835e12),            # Intel Gaudi 3 white paper
    "tpu-v5e": (16 * GiB, 819e9, 197e12),              # cloud.google.com/tpu/docs/v5e
    "tpu-v5p": (95 * GiB, 2765e9, 459e12),             # cloud.google.com/tpu/docs/v5p
}


@pytest.mark.parametrize("name", sorted(DATASHEET))
def test_hardware_matches_datasheet(hardware, name):
    cap, bw, bf16 = DATASHEET[name]
    hw = hardware[name]
    assert hw.capacity == pytest.approx(cap)
    assert hw.bandwidth == pytest.approx(bw)
    assert hw.dense["bf16"] == pytest.approx(bf16)


def test_seed_hardware_unchanged(hardware):
    """Seeds 000 and 003 depend on these three entries."""
    assert hardware["h100-sxm"].dense["bf16"] == 989.4e12 and hardware["h100-sxm"].capacity == 80 * GiB
    assert hardware["h200"].bandwidth == pytest.approx(4.8e12, rel=1e-12) and hardware["h200"].capacity == 141 * 2**30
    assert hardware["a100-sxm-80gb"].bandwidth == pytest.approx(2.039e12, rel=1e-12)


# ----------------------------------------------------------------------------------------------- parameters

# Published parameter counts. Exact counts are the BF16 checkpoints' totals as shown by Hugging Face
# (safetensors metadata of each repository named in the spec's source.url); DeepSeek-V3 is the
# technical report's 671B (arXiv:2412.19437, main model without the MTP module).
PUBLISHED = {
    "llama-3.1-8b": 8_030_261_248,     # meta-llama/Llama-3.1-8B
    "llama-3.1-70b": 70_553_706_496,   # meta-llama/Llama-3.1-70B
    "llama-3.1-405b": 405_853_388_800,  # meta-llama/Llama-3.1-405B
    "llama-3.2-1b": 1_235_814_400,     # meta-llama/Llama-3.2-1B
    "llama-3.2-3b": 3_212_749_824,     # meta-llama/Llama-3.2-3B
    "mistral-7b": 7_241_732_096,       # mistralai/Mistral-7B-v0.1
    "mixtral-8x7b": 46_702_792_704,    # mistralai/Mixtral-8x7B-v0.1
    "qwen2.5-7b": 7_615_616_512,       # Qwen/Qwen2.5-7B (model card: 7.61B)
    "qwen2.5-72b": 72_706_203_648,     # Qwen/Qwen2.5-72B (model card: 72.7B)
    "qwen3-30b-a3b": 30_532_122_624,   # Qwen/Qwen3-30B-A3B (model card: 30.5B)
    "deepseek-v3": 671e9,              # DeepSeek-V3 technical report
    "gemma-2-9b": 9_241_705_984,       # google/gemma-2-9b
    "gemma-2-27b": 27_227_128_320,     # google/gemma-2-27b
    "phi-3-mini": 3_821_079_552,       # microsoft/Phi-3-mini-4k-instruct
    "gemma-3-1b": 999_885_952,         # google/gemma-3-1b-pt
}
# Published active counts: Mixtral paper "13B" (12.9B in the announcement), Qwen3 card 3.3B,
# DeepSeek-V3 README_WEIGHTS 36.6B without the input embedding (+0.93B embedding lookup = 37.5B).
PUBLISHED_ACTIVE = {"mixtral-8x7b": 12.9e9, "qwen3-30b-a3b": 3.3e9, "deepseek-v3": 36.6e9 + 129280 * 7168}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_parameter_count_matches_published(models, name):
    m = models[name]
    pc = arch.parameter_count(m)
    assert pc.total == pytest.approx(PUBLISHED[name], rel=0.01)
    assert pc.total == pytest.approx(m.declared_parameters, rel=0.01)


@pytest.mark.parametrize("name", sorted(PUBLISHED_ACTIVE))
def test_active_parameters_match_published(models, name):
    assert arch.parameter_count(models[name]).active == pytest.approx(PUBLISHED_ACTIVE[name], rel=0.02)


def test_exact_counts_by_hand(models):
    """Independent hand counts for three architectures (every matrix and norm written out)."""
    # Llama 3.2 1B: tied embedding, GQA 32/8, head_dim 64.
    d, L, V, ff = 2048, 16, 128256, 8192
    attn = d * 32 * 64 + 2 * d * 8 * 64 + 32 * 64 * d
    assert arch.parameter_count(models["llama-3.2-1b"]).total == V * d + L * (attn + 3 * d * ff + 2 * d) + d
    # Qwen2.5 7B: q/k/v biases, untied head.
    d, L, V, ff = 3584, 28, 152064, 18944
    attn = d * 28 * 128 + 2 * d * 4 * 128 + 28 * 128 * d + (28 + 2 * 4) * 128
    assert arch.parameter_count(models["qwen2.5-7b"]).total == 2 * V * d + L * (attn + 3 * d * ff + 2 * d) + d
    # DeepSeek-V3: MLA with q and kv low-rank norms, 3 dense layers, 58 MoE layers of 256 + 1 experts, router.
    d, L, V, H = 7168, 61, 129280, 128
    q = d * 1536 + 1536 + 1536 * H * (128 + 64)
    kv = d * (512 + 64) + 512 + 512 * H * (128 + 128)
    o = H * 128 * d
    expert = 3 * d * 2048
    total = 2 * V * d + L * (q + kv + o + 2 * d) + d + 3 * 3 * d * 18432 + 58 * (257 * expert + d * 256)
    assert arch.parameter_count(models["deepseek-v3"]).total == total


# ----------------------------------------------------------------------------------------------- KV cache

def test_kv_bytes_per_token_hand_calculations(models):
    bf16 = 2.0
    # DeepSeek-V3 MLA: 61 layers x (kv_lora_rank 512 + rope 64) x 2 B.
    assert arch.kv_bytes_per_token(models["deepseek-v3"], bf16) == 61 * (512 + 64) * 2 == 70272
    # Mixtral 8x7B GQA: 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 B.
    assert arch.kv_bytes_per_token(models["mixtral-8x7b"], bf16) == 2 * 32 * 8 * 128 * 2 == 131072
    # Llama 3 8B: 128 KiB/token (kv-planner's validation target, peers.md section 7).
    assert arch.kv_bytes_per_token(models["llama-3.1-8b"], bf16) == 128 * 1024
    assert arch.kv_bytes_per_token(models["llama-3.1-70b"], bf16) == 2 * 80 * 8 * 128 * 2
    assert arch.kv_bytes_per_token(models["qwen3-30b-a3b"], bf16) == 2 * 48 * 4 * 128 * 2
    assert arch.kv_bytes_per_token(models["phi-3-mini"], bf16) == 2 * 32 * 32 * 96 * 2
    assert arch.kv_bytes_per_token(models["gemma-2-9b"], 1.0) == 2 * 42 * 8 * 256  # fp8 KV


def test_sliding_window_effective_kv(models):
    g = models["gemma-2-9b"]  # 21 local (4096 window) + 21 global layers, 2 x 8 x 256 x 2 B = 8192 B each
    assert arch.local_layers(g) == 21
    per_layer = 2 * 8 * 256 * 2
    c = arch.kv_bytes_per_token_at(g, 2.0, [1024, 4096, 32768, 131072])
    assert c[0] == c[1] == 42 * per_layer
    assert c[2] == pytest.approx(per_layer * (21 * 32768 + 21 * 4096) / 32768)  # = 21 x 8192 x 1.125
    assert c[2] == pytest.approx(193536)
    assert c[3] == pytest.approx(per_layer * (21 + 21 * 4096 / 131072))
    # Gemma 3 1B: global layers 5, 11, 17, 23 (sliding_window_pattern 6); 22 local with a 512 window.
    g3 = models["gemma-3-1b"]
    assert arch.local_layers(g3) == 22
    assert float(arch.kv_bytes_per_token_at(g3, 2.0, 32768)) == pytest.approx(1024 * (4 + 22 * 512 / 32768))
    # Mistral 7B v0.1: every layer windowed at 4096, so c falls as 1/S past the window.
    mi = models["mistral-7b"]
    assert float(arch.kv_bytes_per_token_at(mi, 2.0, 32768)) == pytest.approx(131072 * 4096 / 32768)
    # A model without a window is unaffected by context.
    assert np.all(arch.kv_bytes_per_token_at(models["llama-3.1-8b"], 2.0, [1, 10**6]) == 131072)


def test_sliding_window_attention_flops(models, hardware):
    """Windowed layers attend to min(S, w) positions: the decode FLOPs count that, not 4 L H_q d_h S.

    Hand counts: Mistral 7B v0.1 (32 layers, 32 query heads of 128, all windowed at 4096) and Gemma 2 9B
    (42 layers, 16 query heads of 256, 21 of them windowed at 4096).
    """
    q = load_compiled()
    hw = hardware["h100-sxm"]
    bf16 = Precision("bf16", "bf16", "bf16")
    for name, s, attended in (
        ("mistral-7b", 16384, 32 * 4096),                 # sum over layers of min(S, w)
        ("mistral-7b", 2048, 32 * 2048),                  # inside the window nothing changes
        ("gemma-2-9b", 32768, 21 * 32768 + 21 * 4096),
    ):
        m = models[name]
        env = make_env(hw, m, bf16, "exact")
        heads_width = m.heads * m.head_dim
        want = 2 * env.values["N_a"] + 4 * heads_width * attended    # one token, batch 1
        got = float(q["decode_flops"](env.at(batch=1.0, context=float(s))))
        assert got == pytest.approx(want, rel=1e-12), name
        # Attention intensity (FLOPs per KV byte) does not depend on the window: both scale by f(S).
        kv = float(np.asarray(env.at(context=float(s))["c"])) * s
        assert 4 * heads_width * attended / kv == pytest.approx(2 * m.heads / m.kv_heads / 2.0)
    # Without a window d_h stays the model's head dimension at every context.
    llama = make_env(hw, models["llama-3.1-8b"], bf16, "exact")
    assert llama.at(context=[1.0, 1e6])["d_h"] == 128


# ----------------------------------------------------------------------------------------------- MoE

def test_expected_experts_touched():
    e = arch.expected_experts_touched
    assert e(8, 2, 1) == pytest.approx(2)                       # one token: its k experts
    assert e(8, 2, 2) == pytest.approx(8 * (1 - 0.75**2))       # 3.5 for Mixtral at batch 2
    assert e(256, 8, 4096) == pytest.approx(256, rel=1e-12)     # a large batch touches them all
    b = np.array([1, 2, 4, 16, 64, 256, 1024], dtype=float)
    t = e(256, 8, b)
    assert np.all(np.diff(t) > 0) and np.all(t <= 256) and np.all(t <= 8 * b)


def test_critical_context_past_a_sliding_window(models, hardware):
    """Within its window a windowed layer attends to every position, so the closed-form S* holds up to w;
    past w, S* is the numeric root of the ceiling with the windows, or None where the ceiling levels off."""
    from genreport.model.evaluate import critical_context

    q = load_compiled()
    bf16 = Precision("bf16", "bf16", "bf16")
    # H100: every windowed catalog model's S* lies inside its window; the closed form stands.
    for name in ("mistral-7b", "gemma-2-9b", "gemma-2-27b", "gemma-3-1b"):
        env = make_env(hardware["h100-sxm"], models[name], bf16, "seed")
        value, numeric = critical_context(q, env)
        assert not numeric and value == pytest.approx(float(q["critical_context"](env.at())), rel=0), name
    # H20 (ridge 37): Gemma 3 1B's closed form, 2,276, is past its 512 window; the true root is further out.
    env = make_env(hardware["h20"], models["gemma-3-1b"], bf16, "seed")
    closed = float(q["critical_context"](env.at()))
    value, numeric = critical_context(q, env)
    assert numeric and closed > 512 and value > closed
    ridge = env.values["P"] / env.values["W"]
    assert float(q["decode_intensity_ceiling"](env.at(context=value))) == pytest.approx(ridge, rel=1e-9)
    # Mistral 7B, every layer windowed: past 4096 the ceiling is flat. With the ridge pushed low enough that
    # the closed form lands past the window, the ceiling never falls below the ridge: no critical context.
    env = make_env(hardware["h100-sxm"], models["mistral-7b"], bf16, "seed")
    env.values["P"] = env.values["W"] * 30.0
    assert float(q["critical_context"](env.at())) > 4096
    assert critical_context(q, env) == (None, True)
    flat = [float(q["decode_intensity_ceiling"](env.at(context=s))) for s in (4096.0, 32768.0, 1e6)]
    assert flat == pytest.approx([flat[0]] * 3, rel=1e-12) and flat[0] > 30.0


@pytest.mark.parametrize("name", ["mixtral-8x7b", "qwen3-30b-a3b", "deepseek-v3"])
def test_moe_crossover_closed_form_matches_the_numeric_root(models, hardware, name):
    """B*(S) is solved at a fixed N (every expert), but a decode batch streams only the experts it touches.

    At every catalog MoE's crossover the batch is large enough to touch all experts, so the closed form and the
    root of I(B, S) = P/W with N(B) agree; where the closed form is negative neither exists.
    """
    q = load_compiled()
    hw = hardware["h100-sxm"]
    m = models[name]
    for acc in ("seed", "exact"):
        env = make_env(hw, m, Precision("bf16", "bf16", "bf16"), acc)
        ridge = env.values["P"] / env.values["W"]
        for s in (128.0, 1024.0, 8192.0):
            closed = float(q["crossover_batch"](env.at(context=s)))

            def excess(b, s=s, env=env, ridge=ridge):
                return float(q["decode_intensity"](env.at(batch=b, context=s))) - ridge

            if excess(1e7) < 0:  # the intensity never reaches the ridge
                assert closed < 0, (acc, s)
                continue
            lo, hi = 1.0, 1e7
            for _ in range(100):
                mid = (lo * hi) ** 0.5
                lo, hi = (mid, hi) if excess(mid) < 0 else (lo, mid)
            assert closed == pytest.approx(hi, rel=1e-9), (acc, s)
            assert float(arch.parameters_read(m, hi, arch.parameter_count(m))) == pytest.approx(
                arch.parameter_count(m).total, rel=1e-6)  # every expert is read at that batch


def test_parameters_read_moe(models):
    ds = models["deepseek-v3"]
    pc = arch.parameter_count(ds)
    read = arch.parameters_read(ds, np.array([1.0, 1e6]), pc)
    assert read[0] == pytest.approx(pc.active)   # one token reads exactly the active parameters
    assert read[1] == pytest.approx(pc.total)    # a huge batch reads every expert
    dense = models["llama-3.1-8b"]
    assert np.all(arch.parameters_read(dense, np.array([1.0, 64.0])) == arch.parameter_count(dense).total)


# ----------------------------------------------------------------------------------------------- import-hf

SHAPE_FIELDS = ("layers", "hidden_size", "heads", "kv_heads", "head_dim", "ffn_size", "ffn_kind", "vocab_size",
                "tied_embeddings", "norm", "qkv_bias", "moe", "attention", "max_context", "norms_per_layer", "o_bias",
                "ffn_bias")
FIXTURES = sorted(p.stem for p in HF_DIR.glob("*.json"))
CATALOG_FIXTURES = [n for n in FIXTURES if (MODEL_DIR / f"{n}.yaml").is_file()]


def _import(tmp_path: Path, name: str):
    out = tmp_path / f"{name}.yaml"
    assert importhf.main([str(HF_DIR / f"{name}.json"), "--name", name, "-o", str(out)]) == 0
    return out, load_model(out)


@pytest.mark.parametrize("name", CATALOG_FIXTURES)
def test_import_hf_reproduces_catalog(tmp_path, models, name):
    out, got = _import(tmp_path, name)
    want = models[name]
    for f in SHAPE_FIELDS:
        assert getattr(got, f) == getattr(want, f), f
    assert got.declared_parameters == pytest.approx(want.declared_parameters, rel=0.01)
    text = out.read_text()
    assert text.startswith("# yaml-language-server: $schema=")
    schema = (out.parent / text.splitlines()[0].split("$schema=", 1)[1]).resolve()
    assert schema == (ROOT / "specs" / "schema" / "model.schema.json").resolve()


def test_every_catalog_model_has_a_fixture():
    assert REQUIRED_MODELS <= set(CATALOG_FIXTURES)


def test_import_hf_multimodal_gemma3(tmp_path):
    _, m = _import(tmp_path, "gemma-3-12b")
    assert (m.layers, m.hidden_size, m.heads, m.kv_heads, m.head_dim, m.ffn_size) == (48, 3840, 16, 8, 256, 15360)
    assert (m.ffn_kind, m.vocab_size, m.tied_embeddings) == ("geglu", 262208, True)
    assert (m.attention.sliding_window, m.attention.local_layers_per_global) == (1024, 5)
    assert arch.local_layers(m) == 40


def test_import_hf_stdout_and_default_name(capsys):
    assert importhf.main([str(HF_DIR / "mixtral-8x7b.json")]) == 0
    out = capsys.readouterr().out
    assert "name: mixtral-8x7b-v0.1\n" in out and "experts: 8" in out
    # standard output may be saved anywhere: the $schema is the installed package's schema, by absolute path
    first = out.splitlines()[0]
    schema = Path(first.split("$schema=", 1)[1])
    assert first.startswith("# yaml-language-server: $schema=/") or schema.is_absolute()
    assert schema.is_file() and schema.resolve() == (ROOT / "specs" / "schema" / "model.schema.json").resolve()


def test_import_hf_layer_types(tmp_path):
    cfg = json.loads((HF_DIR / "gemma-3-1b.json").read_text())
    del cfg["sliding_window_pattern"]
    cfg["layer_types"] = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(26)]
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg))
    out = tmp_path / "g.yaml"
    assert importhf.main([str(p), "-o", str(out)]) == 0
    m = load_model(out)
    assert m.name == "gemma-3-1b-pt" and arch.local_layers(m) == 22
    cfg["layer_types"][0] = "full_attention"  # irregular: not representable
    p.write_text(json.dumps(cfg))
    with pytest.raises(SpecError, match="regular pattern"):
        importhf.import_config(p)


def _cli(args, capsys):
    rc = cli_main(["import-hf", *args])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


def test_import_hf_errors_name_file_and_key(tmp_path, capsys):
    cfg = json.loads((HF_DIR / "llama-3.1-8b.json").read_text())
    del cfg["hidden_size"]
    p = tmp_path / "config.json"
    p.write_text(json.dumps(cfg, indent=2))
    rc, err = _cli([str(p)], capsys)
    assert rc == 1 and "config.json" in err and "hidden_size" in err

    cfg = json.loads((HF_DIR / "llama-3.1-8b.json").read_text())
    cfg["architectures"] = ["MambaForCausalLM"]
    p.write_text(json.dumps(cfg, indent=2))
    rc, err = _cli([str(p)], capsys)
    assert rc == 1 and "MambaForCausalLM" in err and "not supported" in err and "config.json:3:" in err

    p.write_text('{"hidden_size": 4096,\n  "layers": }')
    rc, err = _cli([str(p)], capsys)
    assert rc == 1 and "not valid JSON" in err and "config.json:2:" in err

    rc, err = _cli([str(tmp_path / "absent.json")], capsys)
    assert rc == 1 and "absent.json" in err

    cfg = json.loads((HF_DIR / "qwen3-30b-a3b.json").read_text())
    cfg["num_experts"] = "many"
    p.write_text(json.dumps(cfg, indent=2))
    rc, err = _cli([str(p)], capsys)
    assert rc == 1 and "num_experts" in err

    rc, err = _cli([str(HF_DIR / "llama-3.1-8b.json"), "--name", "Bad Name"], capsys)
    assert rc == 1 and "not a catalog name" in err


def test_fixture_sources_are_cited():
    text = (HF_DIR / "SOURCES.md").read_text()
    for name in FIXTURES:
        assert f"{name}.json" in text, name
        json.loads((HF_DIR / f"{name}.json").read_text())  # stays valid JSON


# ----------------------------------------------------------------------------------------------- reports

WORK = Workloads(decode_batch=(1, 16, 256), decode_context=(1024, 32768), prefill_prompt=(2048,),
                 training_tokens=8192, optimizer="adamw", recipes=("bf16-grads",))
BF16 = Precision("bf16", "bf16", "bf16")
SCALARS = ("peak_flops", "bandwidth", "capacity", "ridge_point", "parameters", "weight_bytes", "weight_stream_time",
           "kv_bytes_per_token", "attention_intensity", "training_flops_per_token")


def test_numbers_for_every_model_on_every_gpu(hardware, models):
    """The whole cross product: the report's headline quantities are finite and consistent (in-process)."""
    q = load_compiled()
    batch, ctx = np.array(WORK.decode_batch, float)[:, None], np.array(WORK.decode_context, float)[None, :]
    pairs = 0
    for m in models.values():
        for hw in hardware.values():
            for acc in ("seed", "exact"):
                env = make_env(hw, m, BF16, acc)
                base = env.at()
                s = {qid: float(q[qid](base)) for qid in SCALARS}
                assert all(math.isfinite(v) and v > 0 for v in s.values()), (m.name, hw.name, acc, s)
                assert s["ridge_point"] == pytest.approx(hw.dense["bf16"] / hw.bandwidth)
                streamed = s["weight_bytes"] * (1 - env.values["N_e"] / env.values["N"])  # the embedding is a lookup
                assert s["weight_stream_time"] == pytest.approx(streamed / hw.bandwidth)
                grid = env.at(batch=batch, context=ctx)
                tps = np.broadcast_to(np.asarray(q["decode_tokens_per_s"](grid), float), (3, 2))
                assert np.all(np.isfinite(tps)) and np.all(tps > 0)
                assert np.all(np.diff(tps, axis=0) > 0)  # a bigger batch never lowers throughput
            pairs += 1
    assert pairs == len(models) * len(hardware)


def test_full_report_json_for_every_model_and_every_gpu(hardware, models):
    """evaluate() and results.json for a diagonal that covers each model and each GPU at least once."""
    base = load_report(ROOT / "specs" / "llama8b-h100.yaml")
    ms, hws = sorted(models.values(), key=lambda m: m.name), sorted(hardware.values(), key=lambda h: h.name)
    for i in range(max(len(ms), len(hws))):
        m, hw = ms[i % len(ms)], hws[i % len(hws)]
        gemms = (("attention projection (d x d)", m.hidden_size, m.hidden_size),
                 ("FFN matrix (d x d_ff)", m.hidden_size, m.ffn_size))
        spec = dataclasses.replace(base, name=f"{m.name}-{hw.name}", hardware=hw, model=m, precision=BF16,
                                   workloads=WORK, gemms=gemms, compare_hardware=(), compare_models=(),
                                   seed=None, warnings=())
        doc = json.loads(results_json(evaluate(spec)))
        assert doc["inputs"]["hardware"]["name"] == hw.name
        assert doc["inputs"]["hardware"]["capacity"] == hw.capacity


def test_the_serving_gpus_have_a_price_and_a_board_power():
    """plan ranks by $/M tokens: the GPUs practitioners compare (issue 29) are priced, with their board power."""
    for name in ("h100-sxm", "h200", "b200", "mi300x", "a100-sxm-80gb", "l40s", "l4"):
        hw = hardware_from(read_kind(ROOT / "specs" / "hardware" / f"{name}.yaml", "hardware"))
        assert hw.price_per_hour and hw.power_watts, name
    # board power as the vendors print it: H100 SXM 700 W, B200 1,000 W, MI300X 750 W (datasheets cited in the files)
    watts = {n: hardware_from(read_kind(ROOT / "specs" / "hardware" / f"{n}.yaml", "hardware")).power_watts
             for n in ("h100-sxm", "b200", "mi300x")}
    assert watts == {"h100-sxm": 700, "b200": 1000, "mi300x": 750}


def test_every_gpu_has_a_price_or_says_why_not():
    """Issue 29: every GPU file carries an indicative $/h with its source and date, or its notes say why none is
    published (H20: sold only in China; Gaudi 3: no cloud publishes a rate); plan's price line repeats the reason."""
    unpriced = {}
    for path in sorted((ROOT / "specs" / "hardware").glob("*.yaml")):
        hw = hardware_from(read_kind(path, "hardware"))
        if hw.price_per_hour is None:
            assert hw.notes.startswith("No price:"), path.name
            unpriced[hw.name] = hw.notes
        else:
            assert hw.sources["price"].date, path.name
    assert set(unpriced) == {"h20", "gaudi3"}
    h100_nvl = hardware_from(read_kind(ROOT / "specs" / "hardware" / "h100-nvl.yaml", "hardware"))
    assert h100_nvl.price_per_hour == 3.07  # RunPod on demand (gpu.blog listing, cited in the file)


def test_plan_says_why_a_gpu_has_no_price(capsys):
    from genreport.commands.cli import main

    assert main(["plan", "llama-3.1-8b", "--hardware", "h20,h100-sxm", "--gpus", "1", "--weights", "fp8"]) == 0
    out = capsys.readouterr().out
    assert "h20 no price (the H20 is sold only in China" in out and "--price h20=USD)" in out


def test_import_hf_notes_the_defaults_it_takes_for_heads_head_and_context(tmp_path, capsys):
    """Llama 3.1 8B's config.json without num_key_value_heads, tie_word_embeddings and max_position_embeddings: the
    transformers defaults (32 KV heads, an untied head, no maximum) are taken, each with a note naming the key, where
    the KV heads' went unsaid and the count read 8.84B for 8.03B (QA, stop 81)."""
    import json

    cfg = json.loads((HF_DIR / "llama-3.1-8b.json").read_text())
    for key in ("num_key_value_heads", "tie_word_embeddings", "max_position_embeddings"):
        cfg.pop(key)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    out = tmp_path / "m.yaml"
    assert importhf.main([str(path), "--name", "m", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "num_key_value_heads: config.json has no 'num_key_value_heads'; assumed the transformers default, " \
           "num_attention_heads (32): one KV head per query head" in err
    assert "tie_word_embeddings: config.json has no 'tie_word_embeddings'; assumed the transformers default of " \
           "LlamaForCausalLM, false" in err
    assert "no maximum context written" in err
    m = load_model(out)
    assert (m.kv_heads, m.tied_embeddings, m.max_context) == (32, False, None)
