"""Counting a model's parameters and KV bytes from its shapes (plain numbers, no SymPy).

These feed the symbols N, N_a, N_e, d_h and c of the roofline formulas:

* dense: N = L (attention + FFN + norms) + embedding + head (+ final norm);
* mixture of experts: routed and shared experts, leading dense layers, and the
  expected number of distinct experts a decode batch touches;
* multi-head latent attention (DeepSeek-V2/V3): the cached latent plus the
  decoupled RoPE key per layer, and the absorbed attention FLOPs;
* sliding-window layers (Mistral, Gemma 2/3): a local layer caches at most its window.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ParameterCount:
    embedding: int  # input embedding V d
    lm_head: int  # output head V d (0 when tied)
    attention: int  # all layers
    ffn_dense: int  # dense FFN layers
    experts_routed: int  # all routed experts, all MoE layers
    experts_shared: int
    router: int
    norms: int
    expert_size: int  # parameters of one routed expert
    moe_layers: int
    active_routed: int  # routed experts used per token, all MoE layers

    @property
    def total(self) -> int:
        return (self.embedding + self.lm_head + self.attention + self.ffn_dense + self.experts_routed
                + self.experts_shared + self.router + self.norms)

    @property
    def active(self) -> int:
        """Parameters used for one token (all of them for a dense model)."""
        return self.total - self.experts_routed + self.active_routed

    @property
    def blocks(self) -> int:
        """Transformer-block parameters: everything but the embedding and the head."""
        return self.total - self.embedding - self.lm_head

    @property
    def ffn_share_of_blocks(self) -> float:
        return (self.ffn_dense + self.experts_routed + self.experts_shared) / self.blocks


def _ffn_matrices(kind: str) -> int:
    return 3 if kind in ("swiglu", "geglu") else 2


def attention_params_per_layer(m) -> int:
    d, a = m.hidden_size, m.attention
    if a.kind == "mla":
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        q = (d * a.q_lora_rank + a.q_lora_rank + a.q_lora_rank * m.heads * qk) if a.q_lora_rank else d * m.heads * qk
        kv = d * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank \
            + a.kv_lora_rank * m.heads * (a.qk_nope_head_dim + a.v_head_dim)
        o = m.heads * a.v_head_dim * d
        return q + kv + o
    q = d * m.heads * m.head_dim
    kv = 2 * d * m.kv_heads * m.head_dim
    o = m.heads * m.head_dim * d
    bias = (m.heads + 2 * m.kv_heads) * m.head_dim if m.qkv_bias else 0
    return q + kv + o + bias


def parameter_count(m) -> ParameterCount:
    """Parameters of model spec ``m`` by matrix, from its shapes."""
    d, L = m.hidden_size, m.layers
    per_norm = 2 * d if m.norm == "layernorm" else d
    emb = m.vocab_size * d
    head = 0 if m.tied_embeddings else m.vocab_size * d
    attn = L * attention_params_per_layer(m)
    mats = _ffn_matrices(m.ffn_kind)
    norms = L * 2 * per_norm + per_norm
    if m.moe is None:
        ffn = L * mats * d * m.ffn_size
        return ParameterCount(emb, head, attn, ffn, 0, 0, 0, norms, 0, 0, 0)
    moe_layers = L - m.moe.first_dense_layers
    expert = mats * d * m.moe.expert_ffn_size
    return ParameterCount(
        embedding=emb, lm_head=head, attention=attn,
        ffn_dense=m.moe.first_dense_layers * mats * d * m.ffn_size,
        experts_routed=moe_layers * m.moe.experts * expert,
        experts_shared=moe_layers * m.moe.shared_experts * expert,
        router=moe_layers * d * m.moe.experts, norms=norms, expert_size=expert, moe_layers=moe_layers,
        active_routed=moe_layers * m.moe.active_experts * expert,
    )


def expected_experts_touched(experts: int, active: int, batch):
    """Expected distinct experts a batch of B tokens touches in one layer, routing uniformly at random.

    E (1 - (1 - k/E)^B): one token touches k, a large batch touches all E.
    """
    batch = np.asarray(batch, dtype=float)
    return experts * (1.0 - (1.0 - active / experts) ** batch)


def parameters_read(m, batch, pc: ParameterCount | None = None):
    """Parameters streamed by one decode step at batch B: all of a dense model, the touched experts of an MoE."""
    pc = pc or parameter_count(m)
    if m.moe is None:
        return np.full(np.shape(batch), float(pc.total))
    touched = expected_experts_touched(m.moe.experts, m.moe.active_experts, batch)
    return pc.total - pc.experts_routed + pc.moe_layers * touched * pc.expert_size


def kv_elements_per_token_layer(m) -> float:
    """Cached elements per token per layer: 2 H_kv d_h, or the MLA latent plus its RoPE key."""
    a = m.attention
    if a.kind == "mla":
        return float(a.kv_lora_rank + a.qk_rope_head_dim)
    return float(2 * m.kv_heads * m.head_dim)


def local_layers(m) -> int:
    """Layers that attend within a sliding window."""
    a = m.attention
    if not a.sliding_window:
        return 0
    if not a.local_layers_per_global:
        return m.layers
    period = a.local_layers_per_global + 1
    return m.layers - m.layers // period  # every period-th layer is global


def kv_bytes_per_token(m, b_kv: float) -> float:
    """c: KV bytes per token over all layers, at a context within every window."""
    return m.layers * kv_elements_per_token_layer(m) * b_kv


def kv_bytes_per_token_at(m, b_kv: float, context):
    """Effective c at context S: local layers cache at most their window, so c(S) = KV(S) / S."""
    context = np.asarray(context, dtype=float)
    per_layer = kv_elements_per_token_layer(m) * b_kv
    n_local = local_layers(m)
    if n_local == 0:
        return np.full(context.shape, m.layers * per_layer)
    window = float(m.attention.sliding_window)
    cached = (m.layers - n_local) * context + n_local * np.minimum(context, window)
    return per_layer * cached / context


def attended_fraction(m, context):
    """f(S): the share of S that a new token attends to, averaged over layers; 1 without sliding windows.

    A local layer attends to (and caches) at most its window w, so over L layers a token at context S reads
    sum_l min(S, w_l) = f(S) L S cached positions, f(S) = ((L - n) S + n min(S, w)) / (L S) with n local layers.
    The same f scales the KV bytes per token (:func:`kv_bytes_per_token_at`) and the attention FLOPs
    (4 L H_q d_h S, through d_h).
    """
    context = np.asarray(context, dtype=float)
    n_local = local_layers(m)
    if n_local == 0:
        return np.ones(context.shape)
    window = float(m.attention.sliding_window)
    return ((m.layers - n_local) * context + n_local * np.minimum(context, window)) / (m.layers * context)


def attention_head_dim_for_flops(m) -> float:
    """d_h such that 4 L H_q d_h S counts the attention FLOPs of one token.

    MLA with absorbed projections scores against the (r + rho)-wide latent and
    mixes values in the r-wide latent: 2 H_q (2r + rho) S FLOPs per layer.
    """
    a = m.attention
    if a.kind == "mla":
        return (2 * a.kv_lora_rank + a.qk_rope_head_dim) / 2.0
    return float(m.head_dim)
