"""The catalog's key numbers (``genreport list``), counted as a report counts them (``env.card_values``), and the
KV headline of a model with windowed or chunked layers (``list``, the terminal summary, page 1)."""

from __future__ import annotations

from genreport.formulas import architecture as arch


def model_facts(m) -> dict:
    """Parameters and active parameters as seed 003's accounting declares them (the shapes' count when
    undeclared), the bf16 KV bytes (every layer per token within the windows; the global layers per token and
    the windowed or chunked layers per sequence at full window), and the attention kinds in words."""
    pc = arch.parameter_count(m)
    total = float(m.declared_parameters or pc.total)
    active = (float(m.declared_active or pc.active * total / pc.total)) if m.moe else total
    kind = [m.attention.kind]
    if m.moe:
        routed = arch.moe_layer_count(m)
        kind.append(f"MoE {m.moe.active_experts}/{m.moe.experts}" + (f" on {routed}/{m.layers}"
                                                                     if routed < m.layers else ""))
    local, chunked = arch.local_layers(m), arch.chunked_layers(m)
    if local:
        kind.append(f"window {m.attention.sliding_window}" + (f" on {local}/{m.layers}" if local < m.layers else ""))
    if chunked:
        kind.append(f"chunks {m.attention.chunk_size}" + (f" on {chunked}/{m.layers}" if chunked < m.layers else ""))
    if m.attention.sinks:
        kind.append("sinks")
    kv = arch.kv_headline(m, 2.0)
    return {"parameters": total, "active": active, "kv_bytes_per_token_bf16": kv["bytes_per_token_full"],
            "kv_bytes_per_token_global_bf16": kv["bytes_per_token_global"],
            "kv_bytes_per_sequence_windowed_bf16": kv["bytes_per_sequence_windowed"],
            "kind": ", ".join(kind)}


def kv_facts(m, b_kv: float, free_bytes: float | None = None, contexts=()) -> dict:
    """The KV headline at KV precision ``b_kv`` bytes (:func:`formulas.architecture.kv_headline`): the global
    layers' bytes per token, the windowed or chunked layers' bytes per sequence at full window, and with the
    bytes free beside the weights the longest context of one sequence and the sequences that fit at each
    context.  ``bounded`` says whether the model has windowed or chunked layers at all."""
    out = arch.kv_headline(m, b_kv, free_bytes, contexts)
    out["bounded"] = bool(arch.bounded_layers(m))
    return out


def hardware_facts(hw) -> dict:
    """The bf16 ridge point P/W (0 without a bf16 peak)."""
    return {"ridge_bf16": hw.dense.get("bf16", 0.0) / hw.bandwidth}
