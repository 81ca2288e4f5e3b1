"""The catalog's key numbers (``genreport list``), counted as a report counts them (``env.card_values``)."""

from __future__ import annotations

from genreport.formulas import architecture as arch


def model_facts(m) -> dict:
    """Parameters and active parameters as seed 003's accounting declares them (the shapes' count when
    undeclared), bf16 KV bytes per token of the full-attention layout, and the attention kinds in words."""
    pc = arch.parameter_count(m)
    total = float(m.declared_parameters or pc.total)
    active = (float(m.declared_active or pc.active * total / pc.total)) if m.moe else total
    kind = [m.attention.kind]
    if m.moe:
        kind.append(f"MoE {m.moe.active_experts}/{m.moe.experts}")
    if arch.local_layers(m):
        kind.append(f"window {m.attention.sliding_window}")
    return {"parameters": total, "active": active, "kv_bytes_per_token_bf16": float(arch.kv_bytes_per_token(m, 2.0)),
            "kind": ", ".join(kind)}


def hardware_facts(hw) -> dict:
    """The bf16 ridge point P/W (0 without a bf16 peak)."""
    return {"ridge_bf16": hw.dense.get("bf16", 0.0) / hw.bandwidth}
