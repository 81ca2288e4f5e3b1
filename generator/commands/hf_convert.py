"""config.json keys to a model spec: the architecture, attention (GQA, MLA, sliding windows, chunks, sinks), MoE
and FFN shapes.

Where a config holds something the model spec cannot describe, or leaves out a key whose transformers default
is taken, the conversion adds a note (a warning naming the key and what was assumed): ``import-hf`` prints the
notes and writes them into the YAML as comments.
"""

from __future__ import annotations

from genreport.commands.hf_config import (
    _Config,
)
from genreport.errors import SpecError

_BY_MODEL_TYPE = {
    "llama": "LlamaForCausalLM", "mistral": "MistralForCausalLM", "mixtral": "MixtralForCausalLM",
    "qwen2": "Qwen2ForCausalLM", "qwen2_moe": "Qwen2MoeForCausalLM", "qwen3": "Qwen3ForCausalLM",
    "qwen3_moe": "Qwen3MoeForCausalLM", "gemma2": "Gemma2ForCausalLM", "gemma3_text": "Gemma3ForCausalLM",
    "gemma3": "Gemma3ForConditionalGeneration", "phi3": "Phi3ForCausalLM", "deepseek_v2": "DeepseekV2ForCausalLM",
    "deepseek_v3": "DeepseekV3ForCausalLM", "gpt_oss": "GptOssForCausalLM", "llama4": "Llama4ForConditionalGeneration",
    "llama4_text": "Llama4ForCausalLM", "phimoe": "PhimoeForCausalLM", "glm4_moe": "Glm4MoeForCausalLM",
}


# architecture class -> (family written to the spec, default of tie_word_embeddings in transformers)
ARCHITECTURES: dict[str, tuple[str, bool]] = {
    "LlamaForCausalLM": ("llama", False),
    "MistralForCausalLM": ("mistral", False),
    "MixtralForCausalLM": ("mixtral", False),
    "Qwen2ForCausalLM": ("qwen2", False),
    "Qwen2MoeForCausalLM": ("qwen2-moe", False),
    "Qwen3ForCausalLM": ("qwen3", False),
    "Qwen3MoeForCausalLM": ("qwen3-moe", False),
    "Gemma2ForCausalLM": ("gemma2", True),
    "Gemma3ForCausalLM": ("gemma3", True),
    "Gemma3ForConditionalGeneration": ("gemma3", True),
    "Phi3ForCausalLM": ("phi3", False),
    "PhiMoEForCausalLM": ("phimoe", False),  # Phi-3.5-MoE's config.json (its remote code's class name)
    "PhimoeForCausalLM": ("phimoe", False),  # transformers' own class
    "DeepseekV2ForCausalLM": ("deepseek-v2", False),
    "DeepseekV3ForCausalLM": ("deepseek-v3", False),
    "GptOssForCausalLM": ("gpt-oss", False),
    "Llama4ForCausalLM": ("llama4", False),
    "Llama4ForConditionalGeneration": ("llama4", False),
    "Glm4MoeForCausalLM": ("glm4-moe", False),  # GLM-4.5, 4.6: GQA attention, DeepSeek-V3's MoE block
}

_PHIMOE = ("PhiMoEForCausalLM", "PhimoeForCausalLM")

# multimodal configs: the language model's keys are under text_config
_MULTIMODAL = ("Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration")

# transformers' defaults for keys that published configs leave out (Gemma3TextConfig, Llama4TextConfig)
_DEFAULTS = {
    "gemma3": {"vocab_size": 262208, "max_position_embeddings": 131072, "sliding_window": 4096},
    "llama4": {"vocab_size": 202048, "head_dim": 128, "intermediate_size_mlp": 16384, "attention_chunk_size": 8192,
               "interleave_moe_layer_step": 1},
    "qwen3": {"head_dim": 128},
}


_SWIGLU_ACTS = ("silu", "swish")


_GEGLU_ACTS = ("gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh", "gelu_python")

BY_HAND = ("write the model spec by hand instead: the keys are in specs/schema/model.schema.json, "
           "and docs/import-hf.md shows how")


# What marks a config.json whose layers (some or all) keep a fixed recurrent state per sequence instead of a KV cache
# that grows with the context: linear attention (Qwen3-Next's Gated DeltaNet, Kimi Linear, MiniMax's lightning
# attention) and state-space or recurrent layers (Mamba in Jamba, Nemotron-H, Granite 4, Falcon-H1; RecurrentGemma,
# RWKV, LFM2's convolutions).  The keys transformers' configs give such layers, and the layer kinds they list.
_RECURRENT_KEYS = ("full_attention_interval", "linear_num_value_heads", "linear_num_key_heads", "linear_key_head_dim",
                   "linear_attn_config", "attn_type_list", "layer_block_types", "hybrid_override_pattern",
                   "attn_layer_period", "attn_layer_offset", "mamba_d_state", "mamba_n_heads", "mamba_expand",
                   "ssm_state_size", "state_size", "time_step_rank", "block_types", "lru_width")
_RECURRENT_LAYERS = ("linear_attention", "mamba", "mamba2", "ssm", "recurrent", "rwkv", "conv", "deltanet",
                     "lightning_attention", "linear")


def _recurrent(cfg: _Config) -> None:
    """Refuse, naming the key that shows it, a model with recurrent-state layers (``_RECURRENT_KEYS``): genreport's
    formulas cache keys and values per token in every layer (full, sliding-window, chunked or MLA attention), so a
    layer whose state per sequence is fixed would be miscounted (as attention its reads grow with the context and the
    bound would exceed what an engine needs: no bound at all). The top object and a multimodal text_config."""
    for sub in (cfg, *((cfg.sub("text_config"),) if isinstance(cfg.data.get("text_config"), dict) else ())):
        types = sub.data.get("layer_types")
        kinds = sorted({t for t in types if isinstance(t, str) and any(k in t.lower() for k in _RECURRENT_LAYERS)}
                       if isinstance(types, list) else set())
        key = "layer_types" if kinds else next((k for k in _RECURRENT_KEYS if k in sub.data), None)
        if key is None:
            continue
        what = f"layer_types lists {', '.join(repr(k[:40]) for k in kinds[:3])}" if kinds else f"'{key}'"
        sub.error(key, f"config.json describes layers that keep a fixed state per sequence instead of a KV cache "
                       f"({what}: linear-attention or state-space layers), which genreport does not model",
                  "its formulas cache keys and values per token in every layer (full, sliding-window, chunked or MLA "
                  "attention); such a layer's state, reads and FLOPs are not among them, so no bound can be stated "
                  "for this model (docs/import-hf.md, 'Layers genreport does not model')")
        raise SpecError(cfg.findings)


def _architecture(cfg: _Config) -> str:
    archs = cfg.data.get("architectures")
    names = [a for a in archs if isinstance(a, str)] if isinstance(archs, list) else []
    for name in names:
        if name in ARCHITECTURES:
            return name
    model_type = cfg.data.get("model_type")
    model_type = model_type if isinstance(model_type, str) else None
    if not names and model_type in _BY_MODEL_TYPE:
        return _BY_MODEL_TYPE[model_type]
    supported = ", ".join(sorted(ARCHITECTURES))
    if names:
        cfg.error("architectures", f"architecture {', '.join(n[:60] for n in names[:3])} is not supported by import-hf",
                  f"supported: {supported}; or {BY_HAND}")
    else:
        cfg.error("model_type" if model_type else "", "config.json names no architecture"
                  + (f" (model_type {model_type!r} is not supported)" if model_type else ""),
                  f"add \"architectures\": [...]; supported: {supported}")
    raise SpecError(cfg.findings)


def _defaulted(cfg: _Config, family: str, key: str, minimum: int = 1) -> int:
    """A count that falls back on the transformers default of the family, with a note when it does."""
    default = _DEFAULTS.get(family, {}).get(key)
    if default is not None and not cfg.has(key):
        cfg.note(key, f"config.json has no '{cfg.path(key)}'", f"assumed the transformers default {default}")
    return cfg.int(key, default=default, minimum=minimum)


def convert(cfg: _Config, name: str | None = None) -> tuple[dict, dict[str, str]]:
    """Model-spec fields (in file order) and per-field comments, from a parsed config.json; notes go to
    ``cfg.notes``."""
    _recurrent(cfg)
    arch = _architecture(cfg)
    family, tie_default = ARCHITECTURES[arch]
    base = family.split("-")[0] if family.startswith("qwen3") else family  # qwen3 and qwen3-moe share defaults
    top = cfg
    if arch in _MULTIMODAL:
        if not isinstance(cfg.data.get("text_config"), dict):
            cfg.error("text_config", f"a multimodal {arch} config.json needs its 'text_config' object",
                      "use the model's full config.json from its Hugging Face repository")
            raise SpecError(cfg.findings)
        cfg = cfg.sub("text_config")
        top.note("vision_config" if top.has("vision_config") else "text_config",
                 "the vision tower is not modelled", "the language model (text_config) only")
    comments: dict[str, str] = {}

    layers = cfg.int("num_hidden_layers")
    hidden = cfg.int("hidden_size")
    heads = cfg.int("num_attention_heads")
    kv_heads = cfg.int("num_key_value_heads", default=heads)
    if not cfg.has("num_key_value_heads"):  # a KV head per query head: a GQA config without it read 10% large (QA)
        cfg.note("num_key_value_heads", "config.json has no 'num_key_value_heads'",
                 f"assumed the transformers default, num_attention_heads ({heads}): one KV head per query head")
    vocab = _defaulted(cfg, base, "vocab_size")
    mla = arch.startswith("Deepseek")
    if mla:
        head_dim = cfg.int("v_head_dim")
        comments["head_dim"] = "v_head_dim; MLA attention FLOPs use the absorbed-latent width instead"
    elif arch == "Qwen3ForCausalLM" or arch.startswith("Llama4"):
        head_dim = _defaulted(cfg, base, "head_dim")
    else:
        if arch == "Qwen3MoeForCausalLM" and not cfg.has("head_dim"):
            cfg.note("head_dim", "config.json has no 'head_dim'", "assumed hidden_size / num_attention_heads")
        # a hidden_size or head count that is not a count is its own finding: no second one for head_dim
        bad = any(f.path.split(".")[-1] in ("hidden_size", "num_attention_heads") for f in cfg.findings)
        if not cfg.has("head_dim") and hidden % heads and not bad:
            cfg.error("hidden_size", f"hidden_size {hidden:,} is not a multiple of num_attention_heads {heads:,}, and "
                      "config.json gives no head_dim", "give head_dim, or check hidden_size and num_attention_heads "
                      "against the model's published config")
            head_dim = 1
        else:
            head_dim = cfg.int("head_dim", default=hidden // heads if hidden % heads == 0 or bad else None) or 1
    act = cfg.get("hidden_activation") if arch.startswith("Gemma") else None
    act = act or cfg.get("hidden_act", "gelu_pytorch_tanh" if arch.startswith("Gemma") else "silu")
    if act in _SWIGLU_ACTS:
        ffn_kind = "swiglu"
    elif act in _GEGLU_ACTS:
        ffn_kind = "geglu"
    else:
        cfg.error("hidden_act", f"activation {_shown(act)} is not a gated SiLU or GELU",
                  f"import-hf knows {', '.join(_SWIGLU_ACTS + _GEGLU_ACTS)}")
        ffn_kind = "swiglu"
    if arch == "GptOssForCausalLM" and cfg.has("swiglu_limit"):
        cfg.note("swiglu_limit", f"the gated SiLU is clamped at {_shown(cfg.get('swiglu_limit'))}",
                 "no change to the shapes: counted as swiglu")

    moe, ffn_size = _moe(cfg, arch, layers, comments)
    if ffn_size is None:
        ffn_size = cfg.int("intermediate_size")
    attention = _attention(cfg, arch, layers, comments)
    if arch.startswith("Gemma3"):
        max_context = _defaulted(cfg, base, "max_position_embeddings")
    else:
        max_context = cfg.int("max_position_embeddings", default=0, minimum=0) or None
        if not cfg.has("max_position_embeddings"):
            cfg.note("max_position_embeddings", "config.json has no 'max_position_embeddings'",
                     "no maximum context written: prompts and contexts are not checked against one")
    if attention.get("sliding_window") and max_context and attention["sliding_window"] >= max_context:
        comments["attention"] = (f"sliding_window {attention['sliding_window']} >= max_position_embeddings "
                                 f"{max_context}: it never limits the cache, so it is left out")
        attention.pop("sliding_window")
        attention.pop("local_layers_per_global", None)
    tied = top.bool("tie_word_embeddings", tie_default)  # a text_config may override the top level
    if cfg is not top:
        tied = cfg.bool("tie_word_embeddings", tied)
    if not top.has("tie_word_embeddings") and not cfg.has("tie_word_embeddings"):
        cfg.note("tie_word_embeddings", "config.json has no 'tie_word_embeddings'",
                 f"assumed the transformers default of {arch}, {str(tie_default).lower()}: the output head "
                 + ("is the embedding, counted once" if tie_default else "is its own V d parameters"))
    qkv_bias, o_bias = _biases(cfg, arch)
    ffn_bias = arch == "GptOssForCausalLM" or (arch == "LlamaForCausalLM" and cfg.bool("mlp_bias", False))
    checkpoint = _quantization(top, arch)
    if cfg.int("num_nextn_predict_layers", default=0, minimum=0):
        n = cfg.int("num_nextn_predict_layers")
        cfg.note("num_nextn_predict_layers", (f"the checkpoint's {n} multi-token-prediction layers (each a decoder layer "
                 "beside the model, for speculative decoding) are" if n > 1 else "the checkpoint's multi-token-prediction "
                 "layer (a decoder layer beside the model, for speculative decoding) is") + " not counted in parameters",
                 f"a report spec models {'them' if n > 1 else 'it'} with serving.speculative.draft_layers: {n}")
    if cfg.findings:
        raise SpecError(cfg.findings)

    spec: dict = {
        "kind": "model",
        "name": name or "",
        "title": "",
        "family": family,
        "layers": layers,
        "hidden_size": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "ffn": {"size": ffn_size, "kind": ffn_kind},
        "vocab_size": vocab,
        "tied_embeddings": tied,
        "norm": "rmsnorm",
    }
    if arch in _PHIMOE:  # nn.LayerNorm with elementwise_affine: a weight and a bias (models/phimoe/modeling_phimoe.py)
        spec["norm"] = "layernorm"
        comments["norm"] = "LayerNorm, a weight and a bias vector each (input, post-attention and final norms)"
        if cfg.bool("lm_head_bias", False):
            cfg.note("lm_head_bias", "the output head's bias (vocab_size parameters) is not counted",
                     "a model spec has no head bias; the count is short by vocab_size")
    if arch.startswith("Gemma"):
        spec["norms_per_layer"] = 4
        comments["norms_per_layer"] = "input, post-attention, pre- and post-feed-forward RMSNorms"
    if qkv_bias:
        spec["qkv_bias"] = True
    if o_bias:
        spec["o_bias"] = True
    if ffn_bias:
        spec["ffn_bias"] = True
        comments["ffn_bias"] = ("the router and every expert's gate_up and down projections" if moe else
                                "mlp_bias: gate, up and down projections")
    spec["parameters"] = 0  # filled below, once the shapes are known
    if moe:
        spec["active_parameters"] = 0
        spec["moe"] = moe
    if attention:
        spec["attention"] = attention
    if max_context:
        spec["max_context"] = max_context
    if checkpoint:
        spec["checkpoint_precision"] = checkpoint
        comments["checkpoint_precision"] = "the checkpoint's formats (quantization_config); precision.weights: checkpoint"
    _count(spec, comments)
    if arch in _MULTIMODAL:
        comments["parameters"] += "; the language model only (the vision tower is not counted)"
    return spec, comments


def _biases(cfg: _Config, arch: str) -> tuple[bool, bool]:
    """(q/k/v biases, output-projection bias) as the transformers modeling code builds them."""
    if arch.startswith("Qwen2"):
        return True, False  # q, k and v carry biases, o_proj does not
    if arch == "Phi3ForCausalLM":
        if cfg.bool("attention_bias", False):
            cfg.note("attention_bias", "Phi3ForCausalLM builds its qkv_proj and o_proj without biases",
                     "no attention biases counted")
        return False, False
    if arch.startswith("Deepseek") or arch in ("MistralForCausalLM", "MixtralForCausalLM", "Glm4MoeForCausalLM"):
        return cfg.bool("attention_bias", False), False  # GLM-4.5: q, k and v with biases, o_proj without
    bias = cfg.bool("attention_bias", False)  # Llama, Qwen3, Gemma, Llama 4, gpt-oss: q, k, v and o alike
    return bias, bias


USES_CHECKPOINT = "written as checkpoint_precision; a report spec uses it with precision.weights: checkpoint"


def _quantization(cfg: _Config, arch: str) -> dict | None:
    """A quantized checkpoint's weight formats per tensor class (the model spec's checkpoint_precision), with a note
    saying what was read; None when the config has no quantization_config or one genreport cannot count.

    - mxfp4 (gpt-oss): transformers' Mxfp4 quantizer converts the routed experts only; modules_to_not_convert
      (attention, router, embedding, head) stay bf16: {experts: mxfp4, default: bf16}.
    - fp8 with weight_block_size [128, 128] (DeepSeek-V3): every linear layer in fp8 with an fp32 scale per block;
      the embedding and the head stay bf16: {default: fp8_block, embeddings: bf16}.  Without a block size the scales
      are per tensor or per channel (negligible): fp8.
    """
    q = cfg.get("quantization_config")
    if q is not None and not isinstance(q, dict):  # transformers reads it as a dict (QuantizationConfigMixin)
        cfg.error("quantization_config", f"'quantization_config' is {_shown(q)}, not an object of the checkpoint's "
                  "quantization settings", "fix 'quantization_config' in config.json: an object such as "
                  "{\"quant_method\": \"fp8\"}, or leave it out for an unquantized checkpoint")
    if not isinstance(q, dict):
        return None
    method = q.get("quant_method")
    method = method if isinstance(method, str) else "unknown"
    if method == "mxfp4":
        kept = q.get("modules_to_not_convert")
        rest = "attention, router, embeddings and head" if arch == "GptOssForCausalLM" else \
            (f"{len(kept)} module patterns" if isinstance(kept, list) else "the modules it lists")
        cfg.note("quantization_config", "the checkpoint stores the routed experts in MXFP4 (4-bit values with one "
                 f"8-bit scale per 32: 4.25 bits a weight) and keeps the {rest} in bf16", USES_CHECKPOINT)
        return {"experts": "mxfp4", "default": "bf16"}
    if method == "fp8":
        block = q.get("weight_block_size")
        if block == [128, 128]:
            cfg.note("quantization_config", "the checkpoint stores every linear layer in fp8 with one fp32 scale per "
                     "128 x 128 block (8.002 bits a weight) and the embedding and head in bf16", USES_CHECKPOINT)
            return {"default": "fp8_block", "embeddings": "bf16"}
        if block is None:
            cfg.note("quantization_config", "the checkpoint stores the linear layers in fp8 (per-tensor or per-channel "
                     "scales, not counted) and the embedding and head in bf16", USES_CHECKPOINT)
            return {"default": "fp8", "embeddings": "bf16"}
        cfg.note("quantization_config", f"fp8 with weight_block_size {_shown(block)}: only 128 x 128 blocks are "
                 "counted with their scales", "no checkpoint_precision written; the report spec chooses the weights")
        return None
    cfg.note("quantization_config", f"the checkpoint is quantized ({method[:40]})",
             "the spec counts parameters only; the weight precision is the report spec's")
    return None


def _moe(cfg: _Config, arch: str, layers: int, comments: dict[str, str]) -> tuple[dict | None, int | None]:
    """The moe block and the FFN size to record (one expert's width when every layer routes; None: the
    config's intermediate_size, the dense layers' width)."""
    shared_size, step, dense_size = 0, 1, None
    if arch in ("MixtralForCausalLM",) + _PHIMOE:  # PhiMoE's sparse block is Mixtral's (w1, w3, w2; no router bias)
        experts, active = cfg.int("num_local_experts"), cfg.int("num_experts_per_tok")
        size, shared, dense = cfg.int("intermediate_size"), 0, 0
    elif arch == "GptOssForCausalLM":
        experts = cfg.int("num_local_experts")
        active = cfg.int("num_experts_per_tok" if cfg.has("num_experts_per_tok") or not cfg.has("experts_per_token")
                         else "experts_per_token")
        size, shared, dense = cfg.int("intermediate_size"), 0, 0
        comments["moe"] = "the experts' gate and up projections are fused (gate_up_proj)"
    elif arch.startswith("Llama4"):
        experts, active = cfg.int("num_local_experts"), cfg.int("num_experts_per_tok")
        size, shared, dense = cfg.int("intermediate_size"), 1, 0
        step = _defaulted(cfg, "llama4", "interleave_moe_layer_step")
        _check_moe_layers(cfg, layers, step)
        comments["moe"] = "one shared expert of intermediate_size in every MoE layer; the router has no bias"
        if step > 1:
            dense_size = _defaulted(cfg, "llama4", "intermediate_size_mlp")
    elif arch in ("Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM"):
        experts, active = cfg.int("num_experts"), cfg.int("num_experts_per_tok")
        size, shared = cfg.int("moe_intermediate_size"), 0
        if arch == "Qwen2MoeForCausalLM" and cfg.get("shared_expert_intermediate_size", 0):
            width = cfg.int("shared_expert_intermediate_size")
            if width % size:
                shared, shared_size = 1, width
                comments["moe"] = (f"one shared expert of width {width}; its sigmoid gate "
                                   "(hidden_size weights a layer) is not counted")
            else:
                shared = width // size
                comments["moe"] = (f"shared expert of width {width} = {shared} x {size}; its sigmoid gate "
                                   "(hidden_size weights a layer) is not counted")
            cfg.note("shared_expert_intermediate_size", "the shared expert's sigmoid gate is not counted",
                     "hidden_size parameters a MoE layer left out")
        only = cfg.get("mlp_only_layers", [])
        if not isinstance(only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in only):
            cfg.error("mlp_only_layers", f"'{cfg.path('mlp_only_layers')}' is {_shown(only)}, not a list of layer "
                      "numbers", "write e.g. \"mlp_only_layers\": [0, 1] in config.json, or []")
            only = []
        elif only != list(range(len(only))):
            cfg.error("mlp_only_layers", f"dense layers {_shown(only) if len(only) > 8 else only} are not the leading ones",
                      "the spec supports leading dense layers only")
        dense = len(only)
        step = cfg.int("decoder_sparse_step", default=1)
        if step != 1 and dense:
            cfg.error("decoder_sparse_step", "MoE on every n-th layer together with mlp_only_layers cannot be "
                      "described", "the spec supports leading dense layers, then MoE on every n-th layer")
    elif arch.startswith("Deepseek") or arch == "Glm4MoeForCausalLM":  # Glm4MoeMoE is DeepseekV3MoE's block
        experts, active = cfg.int("n_routed_experts"), cfg.int("num_experts_per_tok")
        size = cfg.int("moe_intermediate_size")
        shared = cfg.int("n_shared_experts", default=0, minimum=0)
        dense = cfg.int("first_k_dense_replace", default=0, minimum=0)
        if cfg.int("moe_layer_freq", default=1) != 1:
            cfg.error("moe_layer_freq", "MoE on every n-th layer counted from the first (DeepSeek's "
                      "moe_layer_freq) cannot be described",
                      "the spec supports leading dense layers, then MoE on every layer_step-th layer after them")
    else:
        return None, None
    moe = {"experts": experts, "active_experts": active}
    if shared:
        moe["shared_experts"] = shared
    moe["expert_ffn_size"] = size
    if shared_size:
        moe["shared_expert_ffn_size"] = shared_size
    if dense:
        moe["first_dense_layers"] = dense
    if step > 1:
        moe["layer_step"] = step
    if dense >= layers:
        cfg.error("first_k_dense_replace" if arch.startswith("Deepseek") else "mlp_only_layers",
                  "every layer is dense", "check the config.json")
    elif (layers - dense) // step == 0:
        cfg.error("interleave_moe_layer_step" if arch.startswith("Llama4") else "decoder_sparse_step",
                  f"MoE on every {_nth(step)} layer leaves none of the {layers} layers routed", "check the config.json")
    if dense == 0 and step == 1:
        comments["ffn"] = "every layer is MoE: the width of one expert"
        if arch.startswith("Llama4") and cfg.has("intermediate_size_mlp"):
            comments["ffn"] += f" (intermediate_size_mlp {_shown(cfg.get('intermediate_size_mlp'))} is unused)"
        return moe, size
    if step > 1:
        n_moe = (layers - dense) // step
        comments["ffn"] = f"the {layers - n_moe} dense layers (MoE on every {_nth(step)} layer, {n_moe} of them)"
        return moe, dense_size
    comments["ffn"] = f"the {dense} leading dense layer{'s' if dense != 1 else ''}"
    return moe, None


def _check_moe_layers(cfg: _Config, layers: int, step: int) -> None:
    """Llama 4's explicit moe_layers must be the every-step-th pattern the spec describes."""
    listed = cfg.get("moe_layers")
    if listed is None:
        return
    want = list(range(step - 1, layers, step))
    if not isinstance(listed, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in listed):
        cfg.error("moe_layers", f"'{cfg.path('moe_layers')}' is {_shown(listed)}, not a list of layer numbers",
                  f"write the MoE layers' numbers, e.g. {want[:3]}..., or remove it")
    elif listed != want:
        cfg.error("moe_layers", f"MoE layers {listed if len(listed) <= 8 else _shown(listed)} are not every "
                  f"{_nth(step)} layer ({want[:4]}...)", "the spec supports MoE on every layer_step-th layer; "
                  + BY_HAND)


def _attention(cfg: _Config, arch: str, layers: int, comments: dict[str, str]) -> dict:
    out: dict = {}
    if arch.startswith("Deepseek"):
        out["kind"] = "mla"
        if cfg.has("q_lora_rank"):
            out["q_lora_rank"] = cfg.int("q_lora_rank")
        out["kv_lora_rank"] = cfg.int("kv_lora_rank")
        out["qk_rope_head_dim"] = cfg.int("qk_rope_head_dim")
        out["qk_nope_head_dim"] = cfg.int("qk_nope_head_dim")
        out["v_head_dim"] = cfg.int("v_head_dim")
        return out
    if arch.startswith("Llama4"):
        out = _llama4_attention(cfg, layers, comments)
    elif arch == "GptOssForCausalLM":
        types = cfg.get("layer_types")
        if not (isinstance(types, list) and types):
            cfg.note("layer_types", "config.json has no 'layer_types'",
                     "assumed the transformers default: sliding and full attention alternating, sliding first")
            types = ["sliding_attention" if (i + 1) % 2 else "full_attention" for i in range(layers)]
        out = _from_layer_types(cfg, types, layers, comments)
        out["sinks"] = True
        comments["attention"] = "; ".join(x for x in (comments.get("attention"), "one learned sink logit per query "
                                                      "head and layer") if x)
    else:
        types = cfg.get("layer_types")
        if isinstance(types, list) and types:
            out = _from_layer_types(cfg, types, layers, comments)
        elif arch.startswith("Gemma"):
            window = _defaulted(cfg, "gemma3", "sliding_window")  # 4096: the transformers default for Gemma 2 and 3
            key = "sliding_window_pattern" if cfg.has("sliding_window_pattern") or not cfg.has("_sliding_window_pattern") \
                else "_sliding_window_pattern"  # older Gemma 3 configs write it with a leading underscore
            if arch != "Gemma2ForCausalLM" and not cfg.has(key):
                cfg.note(key, f"config.json has no '{cfg.path(key)}'", "assumed the transformers default 6 "
                         "(five local layers, then a global one)")
            period = 2 if arch == "Gemma2ForCausalLM" else cfg.int(key, default=6, minimum=2)
            out["sliding_window"] = window
            out["local_layers_per_global"] = period - 1
            comments["attention"] = f"{period - 1} local ({window}-token window) layer{'s' if period > 2 else ''} " \
                                    "per global layer"
        elif arch.startswith("Qwen") and not cfg.bool("use_sliding_window", False):
            pass
        elif cfg.has("sliding_window"):
            window = cfg.int("sliding_window")
            if arch.startswith("Qwen"):
                first_full = cfg.int("max_window_layers", default=layers, minimum=0)
                if first_full < layers:
                    cfg.error("max_window_layers", f"only layers from {first_full} on use the window",
                              "the spec supports all layers windowed, or a regular local/global pattern")
            out["sliding_window"] = window
            comments["attention"] = f"every layer attends to the last {window} tokens"
    if arch == "Glm4MoeForCausalLM":
        if cfg.bool("use_qk_norm", False):  # Glm4MoeAttention: per-head RMSNorms of q and k (head_dim weights each)
            out["qk_norm"] = True
            comments["attention"] = "per-head q and k RMSNorms"
        if cfg.has("partial_rotary_factor"):
            cfg.note("partial_rotary_factor", f"RoPE turns {_shown(cfg.get('partial_rotary_factor'))} of each head's "
                     "dimensions", "no change to the shapes, the weights or the FLOPs counted")
    elif arch.startswith("Qwen3") or arch == "Gemma3ForCausalLM" or arch == "Gemma3ForConditionalGeneration":
        out["qk_norm"] = True
        comments["attention"] = "; ".join(x for x in (comments.get("attention"), "per-head q and k RMSNorms") if x)
    return out


def _llama4_attention(cfg: _Config, layers: int, comments: dict[str, str]) -> dict:
    """Chunked attention with a global no-RoPE layer every n-th (Llama 4)."""
    if cfg.bool("use_qk_norm", False):
        cfg.note("use_qk_norm", "Llama 4's q/k norm is an L2 norm without weights", "no parameters counted")
    if not cfg.has("attention_chunk_size") and "attention_chunk_size" in cfg.data:  # null: no chunking
        cfg.note("attention_chunk_size", "attention_chunk_size is null", "every layer attends to the whole context")
        return {}
    chunk = _defaulted(cfg, "llama4", "attention_chunk_size")
    types = cfg.get("layer_types")
    nope = cfg.get("no_rope_layers")
    if isinstance(types, list) and types:
        local = [t == "chunked_attention" for t in types]
        if len(types) != layers or any(t not in ("chunked_attention", "full_attention") for t in types):
            cfg.error("layer_types", "layer_types must list 'chunked_attention' or 'full_attention' once per layer",
                      "check the config.json")
            return {}
        key = "layer_types"
    elif isinstance(nope, list) and nope:  # 1: a RoPE layer, chunked; 0: a global no-RoPE layer
        if len(nope) != layers or any(v not in (0, 1) or isinstance(v, bool) for v in nope):
            cfg.error("no_rope_layers", "no_rope_layers must hold 1 (RoPE, chunked) or 0 (no RoPE, global) once per "
                      "layer", "check the config.json")
            return {}
        local, key = [v == 1 for v in nope], "no_rope_layers"
    else:
        key = "no_rope_layer_interval" if cfg.has("no_rope_layer_interval") or not cfg.has("nope_layer_interval") \
            else "nope_layer_interval"
        if not cfg.has(key):
            what = "an empty 'no_rope_layers'" if isinstance(nope, list) else "no 'no_rope_layers'"
            cfg.note("no_rope_layers" if isinstance(nope, list) else key,
                     f"config.json has {what} and no '{cfg.path(key)}'",
                     "assumed the transformers default: a global no-RoPE layer every 4th, the others chunked")
        interval = cfg.int(key, default=4, minimum=1)
        local = [(i + 1) % interval != 0 for i in range(layers)]
    n_local = sum(local)
    if n_local == 0:
        return {}
    if n_local == layers:
        comments["attention"] = f"every layer attends within its own {chunk}-token chunk"
        return {"chunk_size": chunk}
    period = layers // (layers - n_local)
    if local != [(i + 1) % period != 0 for i in range(layers)]:
        cfg.error(key, "chunked and global layers do not follow a regular pattern (one global layer after every "
                  "n chunked ones)", "the spec supports only that pattern; " + BY_HAND)
        return {}
    comments["attention"] = (f"{period - 1} chunked ({chunk}-token chunks) layer{'s' if period > 2 else ''} per "
                             f"global no-RoPE layer (from {key})")
    return {"chunk_size": chunk, "local_layers_per_global": period - 1}


def _nth(n: int) -> str:
    """'2nd', '3rd', '4th': for 'every 2nd layer'."""
    if n == 1:
        return "single"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _shown(value) -> str:
    return "a " + type(value).__name__ if isinstance(value, (dict, list)) else repr(value)[:60]


def _from_layer_types(cfg: _Config, types: list, layers: int, comments: dict[str, str]) -> dict:
    local = [t == "sliding_attention" for t in types]
    if len(types) != layers or any(t not in ("sliding_attention", "full_attention") for t in types):
        cfg.error("layer_types", "layer_types must list 'sliding_attention' or 'full_attention' once per layer",
                  "check the config.json")
        return {}
    n_local = sum(local)
    if n_local == 0:
        return {}
    window = cfg.int("sliding_window")
    if n_local == layers:
        comments["attention"] = f"every layer attends to the last {window} tokens"
        return {"sliding_window": window}
    period = layers // (layers - n_local)
    if local != [(i + 1) % period != 0 for i in range(layers)]:
        cfg.error("layer_types", "local and global layers do not follow a regular pattern "
                  "(one global layer after every n local ones)",
                  "the spec supports only that pattern; " + BY_HAND)
        return {}
    comments["attention"] = f"{period - 1} local ({window}-token window) layer{'s' if period > 2 else ''} " \
                            "per global layer (from layer_types)"
    return {"sliding_window": window, "local_layers_per_global": period - 1}


def _count(spec: dict, comments: dict[str, str]) -> None:
    """Fill parameters (and active_parameters) from the shapes."""
    from genreport.formulas.architecture import parameter_count
    from genreport.load.objects import moe_from
    from genreport.load.spec import Attention, Model, Source

    att = dict(spec.get("attention") or {})
    heads, kv = spec["heads"], spec["kv_heads"]
    kind = att.pop("kind", None) or ("mha" if kv == heads else "mqa" if kv == 1 else "gqa")
    moe = spec.get("moe")
    m = Model(
        name=spec["name"] or "imported", title="", family=spec["family"], layers=spec["layers"],
        hidden_size=spec["hidden_size"], heads=heads, kv_heads=kv, head_dim=spec["head_dim"],
        ffn_size=spec["ffn"]["size"], ffn_kind=spec["ffn"]["kind"], vocab_size=spec["vocab_size"],
        tied_embeddings=spec["tied_embeddings"], norm=spec["norm"], qkv_bias=bool(spec.get("qkv_bias")),
        declared_parameters=None, declared_active=None, moe=moe_from(moe) if moe else None,
        attention=Attention(kind=kind, **att), source=Source(""),
        norms_per_layer=spec.get("norms_per_layer", 2), o_bias=bool(spec.get("o_bias")),
        ffn_bias=bool(spec.get("ffn_bias")),
    )
    pc = parameter_count(m)
    spec["parameters"] = int(pc.total)
    comments["parameters"] = "computed from the shapes (config.json carries no count)"
    if moe:
        spec["active_parameters"] = int(pc.active)
        comments["active_parameters"] = ("computed: all but the routed experts, plus active_experts of them "
                                         "(both embedding tables included)")
