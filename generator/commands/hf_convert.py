"""config.json keys to a model spec: the architecture, attention (GQA, MLA, sliding windows), MoE and FFN shapes."""

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
    "deepseek_v3": "DeepseekV3ForCausalLM",
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
    "DeepseekV2ForCausalLM": ("deepseek-v2", False),
    "DeepseekV3ForCausalLM": ("deepseek-v3", False),
}


_SWIGLU_ACTS = ("silu", "swish")


_GEGLU_ACTS = ("gelu", "gelu_new", "gelu_fast", "gelu_pytorch_tanh", "gelu_python")


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
                  f"supported: {supported}")
    else:
        cfg.error("model_type" if model_type else "", "config.json names no architecture"
                  + (f" (model_type {model_type!r} is not supported)" if model_type else ""),
                  f"add \"architectures\": [...]; supported: {supported}")
    raise SpecError(cfg.findings)


def convert(cfg: _Config, name: str | None = None) -> tuple[dict, dict[str, str]]:
    """Model-spec fields (in file order) and per-field comments, from a parsed config.json."""
    arch = _architecture(cfg)
    family, tie_default = ARCHITECTURES[arch]
    top = cfg
    if arch == "Gemma3ForConditionalGeneration":
        text_cfg = cfg.data.get("text_config")
        if not isinstance(text_cfg, dict):
            cfg.error("text_config", "a multimodal Gemma 3 config.json needs its 'text_config' object",
                      "use the model's full config.json from its Hugging Face repository")
            raise SpecError(cfg.findings)
        cfg = _Config(cfg.file, cfg.text, text_cfg, ("text_config",), cfg.findings)
    comments: dict[str, str] = {}

    layers = cfg.int("num_hidden_layers")
    hidden = cfg.int("hidden_size")
    heads = cfg.int("num_attention_heads")
    kv_heads = cfg.int("num_key_value_heads", default=heads)
    vocab = cfg.int("vocab_size", default=262208 if arch == "Gemma3ForConditionalGeneration" else None)
    mla = arch.startswith("Deepseek")
    if mla:
        head_dim = cfg.int("v_head_dim")
        comments["head_dim"] = "v_head_dim; MLA attention FLOPs use the absorbed-latent width instead"
    else:
        head_dim = cfg.int("head_dim", default=hidden // heads if hidden % heads == 0 else None)
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

    moe, ffn_size = _moe(cfg, arch, layers, comments)
    if ffn_size is None:
        ffn_size = cfg.int("intermediate_size")
    attention = _attention(cfg, arch, layers, comments)
    max_context = cfg.int("max_position_embeddings", default=0, minimum=0) or None
    if attention.get("sliding_window") and max_context and attention["sliding_window"] >= max_context:
        comments["attention"] = (f"sliding_window {attention['sliding_window']} >= max_position_embeddings "
                                 f"{max_context}: it never limits the cache, so it is left out")
        attention.pop("sliding_window")
        attention.pop("local_layers_per_global", None)
    tied = top.bool("tie_word_embeddings", tie_default)  # a text_config may override the top level
    if cfg is not top:
        tied = cfg.bool("tie_word_embeddings", tied)
    qkv_bias = True if arch.startswith("Qwen2") else cfg.bool("attention_bias", False)
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
    if qkv_bias:
        spec["qkv_bias"] = True
    spec["parameters"] = 0  # filled below, once the shapes are known
    if moe:
        spec["active_parameters"] = 0
        spec["moe"] = moe
    if attention:
        spec["attention"] = attention
    if max_context:
        spec["max_context"] = max_context
    _count(spec, comments)
    if arch == "Gemma3ForConditionalGeneration":
        comments["parameters"] += "; the language model only (the vision tower is not counted)"
    return spec, comments


def _moe(cfg: _Config, arch: str, layers: int, comments: dict[str, str]) -> tuple[dict | None, int | None]:
    """The moe block and, when every layer routes, the FFN size to record (one expert's width)."""
    if arch == "MixtralForCausalLM":
        experts, active = cfg.int("num_local_experts"), cfg.int("num_experts_per_tok")
        size, shared, dense = cfg.int("intermediate_size"), 0, 0
    elif arch in ("Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM"):
        experts, active = cfg.int("num_experts"), cfg.int("num_experts_per_tok")
        size, shared = cfg.int("moe_intermediate_size"), 0
        if arch == "Qwen2MoeForCausalLM" and cfg.get("shared_expert_intermediate_size", 0):
            width = cfg.int("shared_expert_intermediate_size")
            if width % size:
                cfg.error("shared_expert_intermediate_size", f"a shared expert of width {width} is not a whole "
                          f"number of routed experts of width {size}", "the spec counts shared experts in "
                          "units of moe_intermediate_size")
            shared = width // size
            comments["moe"] = (f"shared expert of width {width} = {shared} x {size}; its sigmoid gate "
                               "(hidden_size weights a layer) is not counted")
        if cfg.int("decoder_sparse_step", default=1) != 1:
            cfg.error("decoder_sparse_step", "MoE layers that are not consecutive cannot be described",
                      "the spec supports leading dense layers, then every layer routed")
        only = cfg.get("mlp_only_layers", [])
        if not isinstance(only, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in only):
            cfg.error("mlp_only_layers", f"'{cfg.path('mlp_only_layers')}' is {_shown(only)}, not a list of layer "
                      "numbers", "write e.g. \"mlp_only_layers\": [0, 1] in config.json, or []")
            only = []
        elif only != list(range(len(only))):
            cfg.error("mlp_only_layers", f"dense layers {_shown(only) if len(only) > 8 else only} are not the leading ones",
                      "the spec supports leading dense layers only")
        dense = len(only)
    elif arch.startswith("Deepseek"):
        experts, active = cfg.int("n_routed_experts"), cfg.int("num_experts_per_tok")
        size = cfg.int("moe_intermediate_size")
        shared = cfg.int("n_shared_experts", default=0, minimum=0)
        dense = cfg.int("first_k_dense_replace", default=0, minimum=0)
        if cfg.int("moe_layer_freq", default=1) != 1:
            cfg.error("moe_layer_freq", "MoE on every n-th layer cannot be described",
                      "the spec supports leading dense layers, then every layer routed")
    else:
        return None, None
    moe = {"experts": experts, "active_experts": active}
    if shared:
        moe["shared_experts"] = shared
    moe["expert_ffn_size"] = size
    if dense:
        moe["first_dense_layers"] = dense
    if dense >= layers:
        cfg.error("first_k_dense_replace" if arch.startswith("Deepseek") else "mlp_only_layers",
                  "every layer is dense", "check the config.json")
    if dense == 0:
        comments["ffn"] = "every layer is MoE: the width of one expert"
        return moe, size
    comments["ffn"] = f"the {dense} leading dense layer{'s' if dense != 1 else ''}"
    return moe, None


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
    types = cfg.get("layer_types")
    if isinstance(types, list) and types:
        return _from_layer_types(cfg, types, layers, comments)
    if arch.startswith("Gemma"):
        window = cfg.int("sliding_window", default=4096)  # the transformers default for Gemma 2 and 3
        key = "sliding_window_pattern" if cfg.has("sliding_window_pattern") or not cfg.has("_sliding_window_pattern") \
            else "_sliding_window_pattern"  # older Gemma 3 configs write it with a leading underscore
        period = 2 if arch == "Gemma2ForCausalLM" else cfg.int(key, default=6, minimum=2)
        out["sliding_window"] = window
        out["local_layers_per_global"] = period - 1
        comments["attention"] = f"{period - 1} local ({window}-token window) layer{'s' if period > 2 else ''} " \
                                "per global layer"
        return out
    if arch.startswith("Qwen") and not cfg.bool("use_sliding_window", False):
        return out
    if cfg.has("sliding_window"):
        window = cfg.int("sliding_window")
        if arch.startswith("Qwen"):
            first_full = cfg.int("max_window_layers", default=layers, minimum=0)
            if first_full < layers:
                cfg.error("max_window_layers", f"only layers from {first_full} on use the window",
                          "the spec supports all layers windowed, or a regular local/global pattern")
        out["sliding_window"] = window
        comments["attention"] = f"every layer attends to the last {window} tokens"
    return out


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
                  "the spec supports only that pattern")
        return {}
    comments["attention"] = f"{period - 1} local ({window}-token window) layer{'s' if period > 2 else ''} " \
                            "per global layer (from layer_types)"
    return {"sliding_window": window, "local_layers_per_global": period - 1}


def _count(spec: dict, comments: dict[str, str]) -> None:
    """Fill parameters (and active_parameters) from the shapes."""
    from genreport.formulas.architecture import parameter_count
    from genreport.load.spec import Attention, Model, MoE, Source

    att = dict(spec.get("attention") or {})
    heads, kv = spec["heads"], spec["kv_heads"]
    kind = att.pop("kind", None) or ("mha" if kv == heads else "mqa" if kv == 1 else "gqa")
    moe = spec.get("moe")
    m = Model(
        name=spec["name"] or "imported", title="", family=spec["family"], layers=spec["layers"],
        hidden_size=spec["hidden_size"], heads=heads, kv_heads=kv, head_dim=spec["head_dim"],
        ffn_size=spec["ffn"]["size"], ffn_kind=spec["ffn"]["kind"], vocab_size=spec["vocab_size"],
        tied_embeddings=spec["tied_embeddings"], norm=spec["norm"], qkv_bias=bool(spec.get("qkv_bias")),
        declared_parameters=None, declared_active=None,
        moe=MoE(moe["experts"], moe["active_experts"], moe["expert_ffn_size"], moe.get("shared_experts", 0),
                moe.get("first_dense_layers", 0)) if moe else None,
        attention=Attention(kind=kind, **att), source=Source(""),
    )
    pc = parameter_count(m)
    spec["parameters"] = int(pc.total)
    comments["parameters"] = "computed from the shapes (config.json carries no count)"
    if moe:
        spec["active_parameters"] = int(pc.active)
        comments["active_parameters"] = "computed: all but the routed experts, plus active_experts of them"
