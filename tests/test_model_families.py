"""Today's model families imported and counted right (issue 28): gpt-oss (MoE with biases, alternating 128-token
windows, attention sinks), Llama 4 (chunked attention with a global layer every 4th, MoE on every k-th layer, a
shared expert), Gemma 3 (5:1 local/global, defaults the config leaves out), Qwen3 dense and MoE (q/k norms,
head_dim not hidden / heads), Phi-4 and the DeepSeek-R1 distills.

Every parameter count is written out matrix by matrix from the transformers modeling code of the architecture;
the published counts are copied here with their source.  The configs are tests/fixtures/hf/ (SOURCES.md cites
each).  Nothing here reads the network or files outside the project.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from genreport.commands import import_hf as importhf
from genreport.commands.cli import main as cli_main
from genreport.errors import SpecError
from genreport.formulas import architecture as arch
from genreport.load.loader import load_hardware, load_model
from genreport.model.catalog import kv_facts, model_facts
from shared import ROOT

HF = ROOT / "tests" / "fixtures" / "hf"
MODELS = ROOT / "specs" / "models"
GiB = 2**30
H100 = 80 * GiB  # specs/hardware/h100-sxm.yaml: 80 GiB (seed 003)


def imported(tmp_path: Path, name: str, notes: list | None = None):
    out = tmp_path / f"{name}.yaml"
    text, _ = importhf.import_config(HF / f"{name}.json", name, out, notes)
    out.write_text(text)
    return load_model(out), text


# ----------------------------------------------------------------------------------------------- hand counts
# Each: (total, active) written out per matrix.  active counts both embedding tables, as the catalog does.

def _gpt_oss(layers: int, experts: int) -> tuple[int, int]:
    """GptOssForCausalLM (transformers models/gpt_oss/modeling_gpt_oss.py): q/k/v/o with biases
    (attention_bias), one sink logit per head (self.sinks, num_attention_heads), a router Linear(d, E) with bias,
    experts gate_up_proj [E, d, 2 f] + bias [E, 2 f] and down_proj [E, f, d] + bias [E, d], two RMSNorms a layer,
    an untied head."""
    d, h, kv, hd, f, v = 2880, 64, 8, 64, 2880, 201088
    attn = d * h * hd + h * hd + 2 * (d * kv * hd + kv * hd) + h * hd * d + d + h
    expert = d * 2 * f + 2 * f + f * d + d
    router = d * experts + experts
    norms = 2 * d
    total = layers * (attn + experts * expert + router + norms) + 2 * v * d + d
    active = layers * (attn + 4 * expert + router + norms) + 2 * v * d + d
    return total, active


def _llama4(experts: int, step: int) -> tuple[int, int]:
    """Llama4ForConditionalGeneration's language model (models/llama4/modeling_llama4.py): q/k/v/o without bias, the
    q/k L2 norm without weights, MoE layers of E experts (gate_up_proj [E, d, 2 f], down_proj [E, f, d]), one
    shared expert (a Llama4TextMLP of intermediate_size) and a router Linear(d, E) without bias; dense layers
    of intermediate_size_mlp; two RMSNorms a layer; an untied head."""
    d, L, h, kv, hd, f, f_mlp, v = 5120, 48, 40, 8, 128, 8192, 16384, 202048
    attn = d * h * hd + 2 * d * kv * hd + h * hd * d
    n_moe = L // step
    moe_layer = attn + experts * 3 * d * f + 3 * d * f + d * experts + 2 * d
    dense_layer = attn + 3 * d * f_mlp + 2 * d
    total = n_moe * moe_layer + (L - n_moe) * dense_layer + 2 * v * d + d
    active = total - n_moe * (experts - 1) * 3 * d * f
    return total, active


def _gemma3_27b() -> int:
    """Gemma3ForConditionalGeneration's language model: 62 layers, GeGLU, four RMSNorms a layer, per-head q/k
    RMSNorms of head_dim 128, vocab 262208 (the Gemma3TextConfig default), tied embedding."""
    d, L, h, kv, hd, f, v = 5376, 62, 32, 16, 128, 21504, 262208
    layer = d * h * hd + 2 * d * kv * hd + h * hd * d + 3 * d * f + 4 * d + 2 * hd
    return L * layer + v * d + d


def _qwen3(d, L, h, kv, f, v=151936, experts=0, k=0, hd=128) -> tuple[int, int]:
    """Qwen3 / Qwen3-MoE: q/k/v/o without bias, per-head q and k RMSNorms (2 head_dim a layer), two RMSNorms a
    layer, SwiGLU (or E experts of width f and a router Linear(d, E) without bias), an untied head."""
    attn = d * h * hd + 2 * d * kv * hd + h * hd * d + 2 * hd
    if not experts:
        total = L * (attn + 3 * d * f + 2 * d) + 2 * v * d + d
        return total, total
    total = L * (attn + experts * 3 * d * f + d * experts + 2 * d) + 2 * v * d + d
    return total, total - L * (experts - k) * 3 * d * f


def _phimoe() -> tuple[int, int]:
    """PhiMoEForCausalLM (transformers models/phimoe/modeling_phimoe.py): q/k/v/o with biases (attention_bias
    true), 16 Mixtral-shaped experts (w1, w3 of d x f, w2 of f x d, no bias), a router Linear(d, E) without bias,
    two LayerNorms a layer and a final one, each a weight and a bias; an untied head, whose bias (lm_head_bias,
    32,064 values) the spec does not count."""
    d, L, h, kv, hd, f, v, experts, k = 4096, 32, 32, 8, 128, 6400, 32064, 16, 2
    attn = d * h * hd + h * hd + 2 * (d * kv * hd + kv * hd) + h * hd * d + d
    layer = attn + experts * 3 * d * f + d * experts + 2 * 2 * d
    total = L * layer + 2 * v * d + 2 * d
    return total, total - L * (experts - k) * 3 * d * f


COUNTS = {  # name: (total, active) by hand
    "gpt-oss-120b": _gpt_oss(36, 128),
    "gpt-oss-20b": _gpt_oss(24, 32),
    "llama-4-scout": _llama4(16, 1),
    "llama-4-maverick": _llama4(128, 2),
    "gemma-3-27b": (_gemma3_27b(), _gemma3_27b()),
    "qwen3-32b": _qwen3(5120, 64, 64, 8, 25600),
    "qwen3-235b-a22b": _qwen3(4096, 94, 64, 4, 1536, experts=128, k=8),
    "phi-4": ((40 * (5120 * 5120 * 2 + 2 * 5120 * 1280 + 3 * 5120 * 17920 + 2 * 5120) + 2 * 100352 * 5120 + 5120),) * 2,
    "deepseek-r1-distill-llama-8b": (8_030_261_248,) * 2,  # Llama 3.1 8B's shapes (test_catalog.PUBLISHED)
    "deepseek-r1-distill-qwen-7b": (7_615_616_512,) * 2,   # Qwen2.5 7B's shapes (test_catalog.PUBLISHED)
    "phi-3.5-moe": _phimoe(),  # 41,873,121,280 and 6,640,967,680
}

# Published counts.  gpt-oss: OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (arXiv:2508.10925), Table 1:
# 116.83B total / 5.13B active, 20.91B / 3.61B, where "active" leaves out the input embedding (the
# unembedding is counted).  Llama 4: Meta's model card, 109B / 17B (Scout) and 400B / 17B (Maverick) for the
# whole model with its vision encoder.  Gemma 3 27B: the language model holds 27.01B (the SigLIP tower about
# 0.4B more).  Qwen3 model cards: 32.8B; 235B total / 22B activated; 30.5B / 3.3B.  Phi-4: 14.7B
# (huggingface.co/microsoft/phi-4, "14B" in the card).
CARD = {  # name: (total, active or None, active excludes the input embedding, digits the card prints)
    "gpt-oss-120b": (116.83e9, 5.13e9, True),
    "gpt-oss-20b": (20.91e9, 3.61e9, True),
    "llama-4-maverick": (400e9, 17e9, False),
    "gemma-3-27b": (27.01e9, None, False),
    "qwen3-32b": (32.8e9, None, False),
    "qwen3-235b-a22b": (235e9, 22e9, False),
    "phi-4": (14.7e9, None, False),
    "phi-3.5-moe": (41.9e9, 6.6e9, False),  # huggingface.co/microsoft/Phi-3.5-MoE-instruct: 41.9B, 6.6B active
}


def _half_unit(x: float) -> float:
    """Half a unit of the last digit a card prints: 22e9 -> 0.5e9, 5.13e9 -> 0.005e9."""
    text = f"{x / 1e9:g}"
    decimals = len(text.split(".")[1]) if "." in text else 0
    return 0.5 * 10.0 ** -decimals * 1e9


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_imported_counts_match_the_hand_counts(tmp_path, name):
    m, _ = imported(tmp_path, name)
    pc = arch.parameter_count(m)
    total, active = COUNTS[name]
    assert pc.total == total
    assert pc.active == active


@pytest.mark.parametrize("name", sorted(CARD))
def test_counts_match_the_model_cards(tmp_path, name):
    """Within 0.5%, or within the rounding of the card's printed figure where that is coarser (22B, 17B)."""
    m, _ = imported(tmp_path, name)
    pc = arch.parameter_count(m)
    total, active, no_input_embedding = CARD[name]
    assert abs(pc.total - total) <= max(0.005 * total, _half_unit(total)), pc.total
    if active is not None:
        mine = pc.active - (pc.embedding if no_input_embedding else 0)
        assert abs(mine - active) <= max(0.005 * active, _half_unit(active) + 0.005 * active), mine


def test_llama4_scout_against_its_card():
    """The card's 109B counts the vision encoder, which the spec leaves out: the language model is 107.77B,
    1.1% less; its 17.17B active is the card's 17B to the card's two digits."""
    total, active = COUNTS["llama-4-scout"]
    assert total == 107_769_861_120 and 0.985 < total / 109e9 < 0.99
    assert abs(active - 17e9) <= 0.5e9


def test_the_catalog_entries_are_the_imports(tmp_path):
    """Each catalog spec declares the shapes' counts (gpt-oss: both embedding tables, unlike the card's active)."""
    for name in ("gpt-oss-120b", "gpt-oss-20b", "llama-4-scout", "llama-4-maverick", "gemma-3-27b", "qwen3-32b",
                 "qwen3-235b-a22b"):
        want = load_model(MODELS / f"{name}.yaml")
        got, _ = imported(tmp_path, name)
        assert (got.moe, got.attention, got.norms_per_layer, got.o_bias, got.qkv_bias, got.ffn_bias) == \
            (want.moe, want.attention, want.norms_per_layer, want.o_bias, want.qkv_bias, want.ffn_bias), name
        total, active = COUNTS[name]
        assert want.declared_parameters == pytest.approx(total, rel=0.005), name
        if want.moe:
            assert want.declared_active == pytest.approx(active, rel=0.005), name
        assert want.source.url.startswith("https://huggingface.co/") and want.source.date


# ----------------------------------------------------------------------------------------------- shapes

def test_gpt_oss_shapes(tmp_path):
    m, text = imported(tmp_path, "gpt-oss-120b")
    a = m.attention
    assert (a.sliding_window, a.local_layers_per_global, a.sinks) == (128, 1, True)
    assert (arch.local_layers(m), arch.global_layers(m)) == (18, 18)
    assert (m.moe.experts, m.moe.active_experts, m.moe.expert_ffn_size, m.ffn_bias) == (128, 4, 2880, True)
    assert m.qkv_bias and m.o_bias and m.head_dim == 64 and m.max_context == 131072 and not m.tied_embeddings
    assert "MXFP4" in text and "4.25 bits" in text  # the quantization_config, as a comment


def test_llama4_shapes(tmp_path):
    scout, _ = imported(tmp_path, "llama-4-scout")
    mav, _ = imported(tmp_path, "llama-4-maverick")
    for m in (scout, mav):
        assert (m.attention.chunk_size, m.attention.local_layers_per_global) == (8192, 3)
        assert (arch.chunked_layers(m), arch.global_layers(m), arch.local_layers(m)) == (36, 12, 0)
        assert m.moe.shared_experts == 1 and m.moe.active_experts == 1
    assert (scout.moe.layer_step, arch.moe_layer_count(scout), scout.ffn_size) == (1, 48, 8192)
    assert (mav.moe.layer_step, arch.moe_layer_count(mav), mav.ffn_size) == (2, 24, 16384)
    assert scout.max_context == 10485760 and mav.max_context == 1048576
    pc = arch.parameter_count(mav)  # the 24 dense layers use intermediate_size_mlp
    assert pc.ffn_dense == 24 * 3 * 5120 * 16384 and pc.moe_layers == 24


def test_gemma3_27b_defaults(tmp_path):
    notes: list = []
    m, text = imported(tmp_path, "gemma-3-27b", notes)
    assert (m.vocab_size, m.max_context, m.attention.sliding_window, m.attention.local_layers_per_global) == \
        (262208, 131072, 1024, 5)
    assert (m.norms_per_layer, m.attention.qk_norm, arch.local_layers(m)) == (4, True, 52)
    said = " ".join(importhf.note_text(n) for n in notes)
    for key in ("vocab_size", "max_position_embeddings", "sliding_window_pattern"):
        assert f"text_config.{key}" in said and f"text_config.{key}" in text
    assert all(n.line > 1 for n in notes)  # pointed at text_config or the key


def test_qwen3_head_dim_and_qk_norm(tmp_path):
    m, _ = imported(tmp_path, "qwen3-32b")
    assert m.head_dim == 128 != m.hidden_size // m.heads and m.attention.qk_norm
    assert arch.norm_params(m) == 64 * (2 * 5120 + 2 * 128) + 5120
    cfg = json.loads((HF / "qwen3-32b.json").read_text())
    del cfg["head_dim"]  # Qwen3Config's default is 128, not hidden_size / heads = 80
    p = tmp_path / "qwen3.config.json"
    p.write_text(json.dumps(cfg, indent=2))
    notes: list = []
    text, name = importhf.import_config(p, notes=notes)
    assert name == "qwen3" and "head_dim: 128" in text and any(n.path == "head_dim" for n in notes)


def test_the_distills_import_under_their_names(tmp_path):
    for stem, family in (("deepseek-r1-distill-llama-8b", "llama"), ("deepseek-r1-distill-qwen-7b", "qwen2")):
        text, name = importhf.import_config(HF / f"{stem}.json")
        assert name == stem and f"family: {family}\n" in text


def test_phi_3_5_moe_is_mixtral_shaped_with_layernorms_and_biases(tmp_path):
    """Phi-3.5-MoE: Mixtral's experts (16, top-2) behind LayerNorms and biased attention; its 131,072-token sliding
    window is the whole context, so no window is written; the head's bias is noted, not counted."""
    notes: list = []
    m, text = imported(tmp_path, "phi-3.5-moe", notes)
    assert (m.layers, m.hidden_size, m.heads, m.kv_heads, m.head_dim, m.ffn_size) == (32, 4096, 32, 8, 128, 6400)
    assert (m.moe.experts, m.moe.active_experts, m.norm, m.qkv_bias, m.o_bias) == (16, 2, "layernorm", True, True)
    assert not m.attention.sliding_window and m.max_context == 131072 and not m.tied_embeddings
    assert "lm_head_bias" in text and any("lm_head_bias" in str(n) for n in notes)
    assert _phimoe() == (41_873_121_280, 6_640_967_680)


def test_phi4_is_phi3_shaped(tmp_path):
    m, _ = imported(tmp_path, "phi-4")
    assert (m.layers, m.hidden_size, m.heads, m.kv_heads, m.head_dim, m.ffn_size) == (40, 5120, 40, 10, 128, 17920)
    assert not m.attention.sliding_window and m.max_context == 16384
    assert importhf.default_name(HF / "phi-4.json", json.loads((HF / "phi-4.json").read_text())) == "phi-4"


# ----------------------------------------------------------------------------------------------- KV

def test_windowed_kv_is_bit_identical_to_the_old_formula():
    """Windowed models (no chunks) keep exactly the numbers of the formula before chunks existed."""
    def old_c(m, b_kv, s):
        s = np.asarray(s, dtype=float)
        per = arch.kv_elements_per_token_layer(m) * b_kv
        n = arch.local_layers(m)
        if n == 0:
            return np.full(s.shape, m.layers * per)
        return per * ((m.layers - n) * s + n * np.minimum(s, float(m.attention.sliding_window))) / s

    s = np.array([1.0, 100.0, 512.0, 1000.0, 4096.0, 32768.0, 131072.0, 1e6])
    for path in sorted(MODELS.glob("*.yaml")):
        m = load_model(path)
        if arch.chunked_layers(m):
            continue
        assert np.array_equal(arch.kv_bytes_per_token_at(m, 2.0, s), old_c(m, 2.0, s)), m.name
        assert np.array_equal(arch.kv_cache_bytes_per_token_at(m, 2.0, s), old_c(m, 2.0, s)), m.name


def test_chunked_kv_reads_and_holds():
    """Llama 4 Scout: 12 global layers, 36 chunked (8192), 2 x 8 x 128 x 2 = 4096 B a position and layer."""
    m = load_model(MODELS / "llama-4-scout.yaml")
    per = 4096
    s = np.array([1000.0, 8191.0, 8192.0, 10000.0, 32768.0, 40000.0])
    read = arch.kv_bytes_per_token_at(m, 2.0, s) * s
    held = arch.kv_cache_bytes_per_token_at(m, 2.0, s) * s
    for si, r, h in zip(s, read, held, strict=True):
        assert r == pytest.approx(per * (12 * si + 36 * (si % 8192)), rel=1e-12)  # what a step at S must read
        assert h == pytest.approx(per * (12 * si + 36 * min(si, 8192)), rel=1e-12)  # what the cache must hold
        assert r <= h
    f = arch.attended_fraction(m, s)
    assert np.allclose(f * 48 * s, 12 * s + 36 * np.mod(s, 8192))
    assert arch.attended_fraction(m, 4096.0) == 1.0 and arch.kv_bytes_per_token_at(m, 2.0, 4096.0) == 48 * per


def test_a_decode_step_reads_the_chunk_so_far_and_the_capacity_holds_the_chunk(tmp_path):
    """Llama 4 Scout at S = 8192 (a chunk boundary) and 10000: a decode step reads S mod 8192 tokens of each chunked
    layer, the cache holds min(S, 8192); the bytes of a step follow the read, the capacity the held."""
    from genreport import evaluate, load_spec

    spec = tmp_path / "s.yaml"
    spec.write_text("kind: report\nname: s\ntitle: t\nhardware: h200\nmodel: llama-4-scout\nprecision: int4\n"
                    "accounting: exact\nengine: {memory_reserve: 0, max_batched_tokens: 0, max_sequences: 0}\n"
                    "workloads:\n  decode: {batch: [1, 4], context: [8k, 10000]}\n")
    r = evaluate(load_spec(spec))
    env = r.envs["exact"]
    per = 4096  # 2 x 8 KV heads x 128 x 2 B, a position and layer
    for s in (8192.0, 10000.0):
        read = float(env.at(batch=1.0, context=s)["c"]) * s
        held = float(env.at(context=s)["c"]) * s
        assert read == pytest.approx(per * (12 * s + 36 * (s % 8192)), rel=1e-12)
        assert held == pytest.approx(per * (12 * s + 36 * min(s, 8192)), rel=1e-12)
    weights = float(env.at(batch=4.0)["N"] - env.values["N_e"]) * 0.5
    step = next(e.value for e in r.entries if e.id == "decode_bytes_exact" and e.params == {"batch": 4, "context": 8192})
    assert step == pytest.approx(weights + 4 * per * 12 * 8192, rel=1e-9)  # the chunked layers start a new chunk
    cap = next(e.value for e in r.entries if e.id == "capacity_batch_exact" and e.params == {"context": 8192})
    free = r.scalars["exact"]["capacity"] - r.scalars["exact"]["weight_bytes"]
    assert cap == int(free // (per * 48 * 8192))  # every layer holds 8192 positions


@pytest.mark.parametrize("name, global_b, windows_b", [
    ("gemma-3-27b", 10 * 2 * 16 * 128 * 2, 52 * 1024 * 2 * 16 * 128 * 2),     # 80 KiB/token, 416 MiB/sequence
    ("gpt-oss-120b", 18 * 2 * 8 * 64 * 2, 18 * 128 * 2 * 8 * 64 * 2),         # 36 KiB/token, 4.5 MiB/sequence
    ("gpt-oss-20b", 12 * 2 * 8 * 64 * 2, 12 * 128 * 2 * 8 * 64 * 2),
    ("llama-4-scout", 12 * 2 * 8 * 128 * 2, 36 * 8192 * 2 * 8 * 128 * 2),     # 48 KiB/token, 1.125 GiB/sequence
    ("llama-3.1-8b", 32 * 2 * 8 * 128 * 2, 0),
])
def test_kv_headline(name, global_b, windows_b):
    m = load_model(MODELS / f"{name}.yaml")
    assert arch.kv_bytes_per_token_global(m, 2.0) == global_b
    assert arch.kv_bytes_per_sequence_windowed(m, 2.0) == windows_b
    f = model_facts(m)
    assert (f["kv_bytes_per_token_global_bf16"], f["kv_bytes_per_sequence_windowed_bf16"]) == (global_b, windows_b)


def test_capacity_by_hand_on_an_h100():
    """Sequences at 32k and 128k and the longest single context beside the weights, counted by hand."""
    cases = [  # model, weight bytes (seed: declared N x bytes per weight), global B/token, windows B/sequence
        ("gemma-3-27b", 27.009e9 * 2, 81920, 436207616),                      # bf16
        ("gpt-oss-120b", 116.83e9 * (0.5 + 2 / 32), 36864, 4718592),          # int4, group 32: 65.7 GB
        ("llama-4-scout", 107.77e9 * (0.5 + 2 / 32), 49152, 1207959552),      # int4, group 32
    ]
    for name, weights, g, w in cases:
        m = load_model(MODELS / f"{name}.yaml")
        free = H100 - weights
        for s in (32768, 131072):
            assert arch.kv_sequences_that_fit(m, 2.0, free, s) == math.floor(free / (g * s + w)), (name, s)
        assert arch.kv_tokens_that_fit(m, 2.0, free) == math.floor((free - w) / g), name
        kv = kv_facts(m, 2.0, free, (32768, 131072))
        assert kv["bounded"] and kv["sequences"] == {s: math.floor(free / (g * s + w)) for s in (32768, 131072)}
    # the numbers themselves (issue 28: about 6x the headline of 496 KiB a token for Gemma 3 27B)
    g3 = load_model(MODELS / "gemma-3-27b.yaml")
    free = H100 - 27.009e9 * 2
    assert arch.kv_sequences_that_fit(g3, 2.0, free, 32768) == 10
    assert arch.kv_sequences_that_fit(g3, 2.0, free, 131072) == 2
    assert arch.kv_tokens_that_fit(g3, 2.0, free) == 383851
    assert free / arch.kv_bytes_per_token(g3, 2.0) == pytest.approx(62770.4, abs=0.1)  # the old headline
    oss = load_model(MODELS / "gpt-oss-120b.yaml")
    free = H100 - 116.83e9 * (0.5 + 2 / 32)
    assert [arch.kv_sequences_that_fit(oss, 2.0, free, s) for s in (32768, 131072)] == [16, 4]
    assert arch.kv_tokens_that_fit(oss, 2.0, free) == 547356


def test_kv_tokens_that_fit_edges():
    mistral = load_model(MODELS / "mistral-7b.yaml")  # every layer windowed: a full window fits, so any context
    assert arch.kv_tokens_that_fit(mistral, 2.0, 1e9) is None
    assert arch.kv_tokens_that_fit(mistral, 2.0, 131072 * 100) == 100  # within the window: every layer counts
    assert arch.kv_tokens_that_fit(mistral, 2.0, 0.0) == 0
    llama = load_model(MODELS / "llama-3.1-8b.yaml")
    assert arch.kv_tokens_that_fit(llama, 2.0, 131072 * 1000.5) == 1000
    assert arch.kv_sequences_that_fit(llama, 2.0, -5.0, 1024) == 0


def test_the_summary_states_both_kv_parts_and_agrees_with_the_ledger(tmp_path):
    """The terminal summary of a Gemma 3 27B report: the global and windowed parts and the sequences that fit,
    equal to the report's capacity ledger (capacity_batch)."""
    from genreport import evaluate, load_spec
    from genreport.present.summary import terminal_lines

    spec = tmp_path / "g3.yaml"
    spec.write_text("kind: report\nname: g3\ntitle: Gemma 3 27B on one H100\nhardware: h100-sxm\n"
                    "model: gemma-3-27b\nprecision: bf16\nengine: {memory_reserve: 0, max_batched_tokens: 0, max_sequences: 0}\nworkloads:\n  decode: {batch: [1, 8], context: [32k, 128k]}\n")
    r = evaluate(load_spec(spec))
    line = next(x for x in terminal_lines(r) if "fits:" in x)
    assert "80 KiB/token (10 global layers)" in line and "416 MiB/sequence (52 windowed" in line
    assert "383,851 tokens for one sequence (past the model's 131,072)" in line  # memory for more than it reads
    ledger = {e.params["context"]: e.value for e in r.entries if e.id == "capacity_batch"}
    assert ledger == {32768: 10, 131072: 2}
    assert "10 sequences at 32,768" in line and "2 sequences at 131,072" in line
    llama = load_spec(ROOT / "specs" / "llama8b-h100.yaml")
    assert any(x.endswith("KV tokens left") for x in terminal_lines(evaluate(llama)))  # no windows: as before


def test_one_sequences_context_is_read_against_the_models_longest(tmp_path):
    """Mistral 7B windows every layer, so a full window fitting means any context fits the memory; the summary says
    the model's own longest context (max_position_embeddings 32,768), not "any context"."""
    from genreport import evaluate, load_spec
    from genreport.present.summary import terminal_lines

    spec = tmp_path / "m7.yaml"
    spec.write_text("kind: report\nname: m7\ntitle: Mistral 7B on one H100\nhardware: h100-sxm\nmodel: mistral-7b\n"
                    "precision: bf16\nworkloads:\n  decode: {batch: [1, 8], context: [4k, 32k]}\n")
    line = next(x for x in terminal_lines(evaluate(load_spec(spec))) if "fits:" in x)
    assert "one sequence of the model's longest context (32,768), 115 sequences at 4,096" in line, line


def test_list_shows_both_kv_parts(capsys):
    assert cli_main(["list", "models"]) == 0
    out = capsys.readouterr().out
    header = next(x for x in out.splitlines() if x.startswith("name"))
    assert "KV KiB/token bf16" in header and "+ MiB/seq windows" in header
    row = next(x.split() for x in out.splitlines() if x.startswith("gemma-3-27b "))
    assert "80" in row and "416" in row and "131,072" in row
    row = next(x for x in out.splitlines() if x.startswith("llama-4-maverick "))
    assert "chunks 8192 on 36/48" in row and "MoE 1/128 on 24/48" in row


# ----------------------------------------------------------------------------------------------- names, $schema

def test_names_from_the_cache_folder_and_the_file(tmp_path):
    snap = tmp_path / "hub" / "models--openai--gpt-oss-20b" / "snapshots" / ("ab12" * 10)
    snap.mkdir(parents=True)
    shutil.copy(HF / "gpt-oss-20b.json", snap / "config.json")
    text, name = importhf.import_config(snap / "config.json")
    assert name == "gpt-oss-20b" and "title: gpt-oss-20b\n" in text
    assert 'url: "https://huggingface.co/openai/gpt-oss-20b"' in text
    p = tmp_path / "Phi-4.config.json"  # X.config.json -> x, not x.config
    cfg = json.loads((HF / "phi-4.json").read_text())
    del cfg["_name_or_path"]
    p.write_text(json.dumps(cfg))
    assert importhf.import_config(p)[1] == "phi-4"
    folder = tmp_path / "Qwen3-32B"
    folder.mkdir()
    shutil.copy(HF / "qwen3-32b.json", folder / "config.json")
    assert importhf.import_config(folder / "config.json")[1] == "qwen3-32b"
    cfg["_name_or_path"] = "/root/.cache/huggingface/hub/models--microsoft--phi-4/snapshots/" + "0" * 40
    p.write_text(json.dumps(cfg))
    text, name = importhf.import_config(p)
    assert name == "phi-4" and "https://huggingface.co/microsoft/phi-4" in text
    loose = tmp_path / ("f" * 40)  # a hash folder outside a cache: named after the model type, not the hash
    loose.mkdir()
    shutil.copy(HF / "gpt-oss-20b.json", loose / "config.json")
    assert importhf.import_config(loose / "config.json")[1] == "gpt_oss"


def test_the_schema_line_works_outside_the_repository(tmp_path, capsys):
    out = tmp_path / "elsewhere" / "m.yaml"
    out.parent.mkdir()
    assert importhf.main([str(HF / "gpt-oss-120b.json"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    ref = out.read_text().splitlines()[0].split("$schema=", 1)[1]
    assert Path(ref).is_absolute() and Path(ref).is_file()
    assert json.loads(Path(ref).read_text())["title"] == "genreport model spec"
    assert "quantization_config: note:" not in err and "gpt-oss-120b.json:" in err and "note: quantization_config" in err
    moved = tmp_path / "moved.yaml"  # the file moved elsewhere keeps a schema that resolves
    shutil.move(out, moved)
    assert Path(moved.read_text().splitlines()[0].split("$schema=", 1)[1]).is_file()
    text, _ = importhf.import_config(HF / "gpt-oss-120b.json", out=MODELS / "gpt-oss-120b.yaml")
    assert text.startswith("# yaml-language-server: $schema=../schema/model.schema.json\n")  # the catalog's own


def test_output_is_deterministic(tmp_path):
    for name in ("gpt-oss-120b", "llama-4-maverick", "gemma-3-27b"):
        a = importhf.import_config(HF / f"{name}.json", out=tmp_path / "a.yaml")
        b = importhf.import_config(HF / f"{name}.json", out=tmp_path / "a.yaml")
        assert a == b


# ----------------------------------------------------------------------------------------------- spec checks

def test_a_window_and_chunks_together_are_refused(tmp_path):
    text = (MODELS / "llama-4-scout.yaml").read_text().replace("  chunk_size: 8192", "  chunk_size: 8192\n"
                                                                "  sliding_window: 4096")
    p = tmp_path / "both.yaml"
    p.write_text(text)
    with pytest.raises(SpecError, match="sliding window and chunked attention together") as e:
        load_model(p)
    f = e.value.findings[0]
    assert f.file.endswith("both.yaml") and f.line > 1 and f.hint


def test_a_layer_step_that_leaves_no_moe_layer_is_refused(tmp_path):
    p = tmp_path / "step.yaml"
    p.write_text((MODELS / "llama-4-maverick.yaml").read_text().replace("layer_step: 2", "layer_step: 64"))
    with pytest.raises(SpecError, match="leaves no MoE layer"):
        load_model(p)


def test_the_catalog_models_evaluate_on_an_h100():
    """Every new catalog model in a report (one card; int4 where bf16 does not fit) evaluates to finite numbers."""
    import dataclasses

    from genreport import evaluate, load_spec
    from genreport.load.spec import Precision

    base = load_spec(ROOT / "specs" / "llama8b-h100.yaml")
    hw = load_hardware(ROOT / "specs" / "hardware" / "h100-sxm.yaml")
    for name in ("gpt-oss-120b", "gpt-oss-20b", "llama-4-scout", "llama-4-maverick", "gemma-3-27b", "qwen3-32b",
                 "qwen3-235b-a22b"):
        m = load_model(MODELS / f"{name}.yaml")
        spec = dataclasses.replace(base, name=name, model=m, hardware=hw, compare_models=(), compare_hardware=(),
                                   precision=Precision("int4", "bf16", "bf16", 32), seed=None, warnings=(),
                                   workloads=dataclasses.replace(base.workloads, measured=()),
                                   gemms=(("FFN matrix (d x d_ff)", m.hidden_size, m.ffn_size),))
        r = evaluate(spec)
        values = [e.value for e in r.entries if isinstance(e.value, float)]
        assert values and all(math.isfinite(v) for v in values), name


def test_a_prefill_counts_the_attention_its_windows_compute(tmp_path):
    """Gemma 3 27B (10 global layers, 52 with a 1,024-token window; 32 query heads of 128): a prompt's position t
    attends to t positions in a global layer and min(t, 1024) in a windowed one (FlashAttention's window_size and
    vLLM's sliding-window attention skip the rest), so a 32k prefill's attention is 4 H_q d_h (10 T^2 / 2 + 52 (w T
    - w^2 / 2)), not 2 L H_q d_h T^2: the prefill counted every layer as global, 3.07 s instead of 2.48 s at the
    bound for a 32k prompt on 2 L40S and 21.3 s instead of 11.4 s for 128k.  Within the window nothing changes."""
    from genreport import evaluate, load_spec

    spec = tmp_path / "g3.yaml"
    spec.write_text("kind: report\nname: g3\ntitle: t\nhardware: l40s\nmodel: gemma-3-27b\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1], context: [4k]}\n  prefill: {prompt: [512, 32k]}\n")
    r = evaluate(load_spec(spec))
    n_p = r.envs["seed"].values["N_p"]
    head = 2 * 262208 * 5376  # the output head on the last position (vocab_size 262,208, hidden_size 5,376)
    flops = {e.params["tokens"]: e.value for e in r.entries if e.id == "prefill_flops"}
    w, t = 1024, 32768
    assert flops[t] == pytest.approx(2 * n_p * t + head + 4 * 32 * 128 * (10 * t * t / 2 + 52 * (w * t - w * w / 2)),
                                     rel=1e-12)
    assert flops[512] == pytest.approx(2 * n_p * 512 + head + 2 * 62 * 32 * 128 * 512**2, rel=1e-12)
    assert arch.prefill_attended_fraction(load_model(MODELS / "llama-3.1-8b.yaml"), 1e6) == 1.0
    scout = load_model(MODELS / "llama-4-scout.yaml")  # 12 global layers, 36 in 8,192-token chunks
    t = 20000.0
    assert arch.prefill_attended_fraction(scout, t) * 48 * t * t / 2 == pytest.approx(
        12 * t * t / 2 + 36 * (2 * 8192**2 / 2 + (t - 2 * 8192) ** 2 / 2), rel=1e-12)
    # the layout's prefill (page 1, the serving chapter's TTFT) counts the same: tp 2 halves the single card's FLOPs
    spec.write_text(spec.read_text() + "parallelism: {tp: 2}\nserving: {prompt: 32k, output: 512}\n")
    tp2 = evaluate(load_spec(spec))
    ttft = tp2.serving["rows"][0]["bound"]["ttft"]
    assert ttft == pytest.approx(flops[32768] / 2 / r.scalars["seed"]["peak_flops"], rel=2e-3)  # norms replicated


def test_page_one_names_chunked_layers_chunked():
    """Llama 4 Scout's local layers are chunked (attention_chunk_size 8,192, meta-llama/Llama-4-Scout-17B-16E
    config.json: three of every four layers), not windowed; page 1's model box called them "the 36 windowed ones"
    (rev14). Gemma 2's local layers are windowed (sliding_window 4,096, google/gemma-2-9b config.json)."""
    from shared import evaluated

    scout = evaluated("llama8b-h100.yaml", ("model=llama-4-scout", "precision=int4"))
    assert scout.facts["kv_bounded_kind"] == "chunked" and scout.facts["kv_bounded_layers"] == 36
    gemma = evaluated("llama8b-h100.yaml", ("model=gemma-2-9b",))
    assert gemma.facts["kv_bounded_kind"] == "windowed"
    from shared import page as page_of  # the words on page 1, from the template (a build's page, no figure drawn)

    page = page_of("llama8b-h100.yaml", ("model=llama-4-scout", "precision=int4"))
    assert "in the 36 chunked ones" in page and "windowed ones" not in page


def test_the_headers_accounting_says_what_a_mixture_of_experts_reads():
    """Seed 003's accounting reads all N parameters every step for a dense model; for a mixture of experts it reads
    the declared active count at batch 1 and the experts the batch touches beyond it (docs/results.md), where the
    header of an MoE report said "all N parameters read every step"."""
    import html as markup

    from shared import html

    moe = markup.unescape(html("mixtral8x22b-h100-tp8-ep8.yaml"))
    assert "accounting: seed 003's (the declared counts; a step reads the experts its tokens touch)" in moe
    assert "all N parameters read every step" not in moe
    assert "accounting: seed 003's (all N parameters read every step)" in markup.unescape(html("llama8b-h100.yaml"))


def _glm45() -> tuple[int, int]:
    """Glm4MoeForCausalLM (transformers models/glm4_moe/modeling_glm4_moe.py): q/k/v with biases (attention_bias),
    o_proj without, per-head q and k RMSNorms (use_qk_norm, head_dim each); the first 3 layers dense (SwiGLU of
    intermediate_size), the other 89 DeepSeek-V3's MoE block: 160 routed experts of moe_intermediate_size, 1 shared of
    the same width, a router Linear(d, E) (its e_score_correction_bias, E values a layer, not counted); two RMSNorms a
    layer, an untied head; the MTP layer (num_nextn_predict_layers) not counted."""
    d, L, h, kv, hd, f, fm, v, E, k, dense = 5120, 92, 96, 8, 128, 12288, 1536, 151552, 160, 8, 3
    attn = d * h * hd + h * hd + 2 * (d * kv * hd + kv * hd) + h * hd * d + 2 * hd
    total = dense * (attn + 3 * d * f + 2 * d) + (L - dense) * (attn + (E + 1) * 3 * d * fm + d * E + 2 * d) \
        + 2 * v * d + d
    return total, total - (L - dense) * (E - k) * 3 * d * fm


def test_glm_4_5_is_deepseeks_moe_block_behind_gqa_attention(tmp_path):
    """GLM-4.5 (tests/fixtures/hf/SOURCES.md): 352,797,814,784 parameters by hand, 33,632,251,904 active (both
    embedding tables; without them 32.08B, the card's "32B active"; the card's 355B total counts the MTP layer,
    about 4B more, which import-hf leaves out with a note). Its KV cache is GQA's: 92 layers x 2 x 8 heads x 128 x 2 B
    = 376,832 B a token in bf16; it evaluates on 8 H200 at tp 8."""
    notes: list = []
    m, text = imported(tmp_path, "glm-4.5", notes)
    pc = arch.parameter_count(m)
    assert (pc.total, pc.active) == _glm45() == (352_797_814_784, 33_632_251_904)
    assert m.kv_heads == 8 and m.head_dim == 128 and m.attention.qk_norm and m.qkv_bias and not m.o_bias
    assert (m.moe.experts, m.moe.active_experts, m.moe.shared_experts, m.moe.first_dense_layers) == (160, 8, 1, 3)
    assert m.family == "glm4-moe" and not m.tied_embeddings
    assert arch.kv_bytes_per_token(m, 2) == 92 * 2 * 8 * 128 * 2 == 376_832
    assert {n.path for n in notes} >= {"partial_rotary_factor", "num_nextn_predict_layers"}
    assert "serving.speculative.draft_layers: 1" in text
    spec = tmp_path / "glm.yaml"
    spec.write_text(f"kind: report\nname: glm\ntitle: GLM-4.5 on 8 H200\nhardware: h200\nmodel: {tmp_path / 'glm-4.5.yaml'}\n"
                    "precision: fp8\nparallelism: {tp: 8}\nworkloads:\n  decode: {batch: [1, 64], context: [8k]}\n")
    from genreport.load.loader import load_report
    from genreport.model.evaluate import evaluate

    r = evaluate(load_report(spec))
    assert r.verdicts["weights_fit"] and r.s("kv_capacity_tokens") > 0


def test_a_context_past_the_models_longest_is_warned_with_separators(tmp_path, capsys):
    """Qwen3-30B-A3B's max_position_embeddings is 40,960 (its config.json); a 131,072-token context is computed with
    a warning that writes both numbers as the report writes counts ("131,072", not "131072")."""
    spec = tmp_path / "q.yaml"
    spec.write_text("kind: report\nname: q\ntitle: q\nhardware: h100-sxm\nmodel: qwen3-30b-a3b\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1], context: [1k, 128k]}\n")
    assert cli_main([str(spec), "--format", "json", "-o", str(tmp_path / "out"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "context 131,072 exceeds the model's maximum 40,960" in err, err


def test_a_prompt_or_a_request_past_the_models_longest_is_warned_too(tmp_path, capsys):
    """Hostile review, stop 75: a prefill prompt of 1M tokens and a serving request of 200k + 10 on Llama 3.1 8B
    (max_position_embeddings 131,072) passed with no word, where a decode context past it was warned; both are now
    warned at their own lines, and --strict refuses them."""
    spec = tmp_path / "l.yaml"
    spec.write_text("kind: report\nname: l\ntitle: l\nhardware: h100-sxm\nmodel: llama-3.1-8b\nprecision: bf16\n"
                    "workloads:\n  decode: {batch: [1], context: [1k]}\n  prefill: {prompt: [2k, 1m]}\n"
                    "serving: {prompt: 200k, output: 10}\n")
    assert cli_main([str(spec), "--format", "json", "-o", str(tmp_path / "out"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "l.yaml:9:" in err and "prompt 1,048,576 exceeds the model's maximum context 131,072" in err, err
    assert "l.yaml:10:" in err and ("a request's last context, prompt 204,800 + output 10 - 1, exceeds the model's "
                                    "maximum context 131,072") in err, err
    assert "prompt 2,048" not in err
    assert cli_main([str(spec), "--format", "json", "-o", str(tmp_path / "out"), "-q", "--strict"]) == 1
