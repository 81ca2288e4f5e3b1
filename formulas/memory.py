"""The memory-capacity ledger: KV cache, what fits, training state.

Source: seed 003 sections 3 and 4, figure 5.
"""

from __future__ import annotations

import sympy as sp

from .architecture import FUSED_MOE_CHUNK_TOKENS
from .glossary import sym
from .recipes import RECIPE_SOURCE, TRAINING_RECIPES, recipe_bytes_per_param  # noqa: F401 - re-exported

L, H_kv, d_h, b_kv, C, N, b, c, S, k = (sym(x) for x in ("L", "H_kv", "d_h", "b_kv", "C", "N", "b", "c", "S", "k"))
T_w, n_sq, d, d_ff, V, n_TP = (sym(x) for x in ("T_w", "n_sq", "d", "d_ff", "V", "n_TP"))
k_e, d_fx, s_x, g_x = (sym(x) for x in ("k_e", "d_fx", "s_x", "g_x"))

# Bytes of one activation element (bf16/fp16: vLLM runs the activations in the model dtype for every weight format)
# and of one logit (fp32: vLLM's sampler upcasts the logits to float32).
ACTIVATION_ELEMENT_BYTES = 2
LOGIT_BYTES = 4


def activation_workspace():
    """Peak activation bytes one engine step sets aside on one GPU [B]: T_w 2 (2 d + 3 d_ff / n_TP) + n_sq V 4.

    vLLM profiles one forward pass of max_num_batched_tokens (T_w) tokens before it sizes the KV cache and gives
    the cache only what is left (vLLM V1 gpu_worker.determine_available_memory); the largest tensors live at once
    are the residual stream and the normed hidden state (2 d per token, replicated on the tensor-parallel GPUs)
    and the FFN's gate and up outputs with their product (3 d_ff per token, split n_TP ways), in bf16.  The
    logits are computed only for the sampled positions (vLLM's logits_indices: one per sequence), at most
    max_num_seqs (n_sq) rows of the whole vocabulary in fp32, gathered on every GPU.  The attention's Q, K, V
    ((H_q + 2 H_kv) d_h per token) are smaller than 3 d_ff for every dense model here.
    """
    return (T_w * ACTIVATION_ELEMENT_BYTES * (2 * d + 3 * d_ff / n_TP)
            + n_sq * V * LOGIT_BYTES)


def activation_workspace_moe():
    """Peak activation bytes of one engine step in an MoE layer on one GPU [B]:
    2 (d T_w + d g_x T_w + M k_e (max(2 d_fx / s_x, d) + d_fx / s_x)) + n_sq V 4, M = min(g_x T_w, 32768).

    vLLM's fused MoE (vllm/model_executor/layers/fused_moe/fused_moe.py, fused_experts_impl) holds, for the M =
    min(tokens, VLLM_FUSED_MOE_CHUNK_SIZE = 32768) tokens the layer runs on and their k_e routed experts each, one
    buffer ``cache13`` of M k_e max(N, K) elements (the gate-and-up output, N = 2 d_fx / s_x, and later the down
    output, K = d, share it) and ``intermediate_cache2`` of M k_e N / 2 (the activated product, live beside the
    first), in the activation dtype.  s_x: the ways one expert's intermediate is split (n_TP / n_EP with the experts
    split tensor-parallel, 1 where each GPU holds whole experts).  Every GPU sizes them for all the routed pairs of
    the tokens that reach it, its own experts' or not.  Beside them live the step's residual stream (d T_w, the
    rank's own tokens) and the normed hidden state the layer runs on (d g_x T_w).

    g_x: the replicas whose tokens reach one GPU's MoE layer, max(n_EP / n_TP, 1).  Inside a replica (n_EP <= n_TP)
    the tokens stay on every GPU of the tensor-parallel group: g_x = 1.  With data-parallel attention (n_EP > n_TP,
    SGLang's DeepSeek layout) every rank's tokens are gathered before a sparse layer and each GPU runs its experts
    on all of them (SGLang python/sglang/srt/layers/communicator.py, commit fd3907ee, LayerScatterModes: a sparse
    layer's mlp_mode is ScatterMode.FULL, "[abcd, abcd, abcd, abcd]" for TP=4, DP=2, unless a MoE all-to-all backend
    dispatches; layers/dp_attention.py, commit 00161092, get_global_dp_buffer: (global_dp_buffer_len, hidden_size)
    in the model dtype, the ranks' tokens summed or padded to the longest); so the layer's buffers grow with the
    n_EP / n_TP replicas' tokens, not the rank's own (SGLang divides its --chunked-prefill-size by dp_size for
    this reason, "to avoid MoE kernel issues", server_args.py: T_w here is the rank's step).  A model with dense FFN
    layers too (DeepSeek-V3's first three) peaks at the larger of this and :func:`activation_workspace`'s FFN term.
    The logits term is the last pipeline stage's only.
    """
    m = sp.Min(g_x * T_w, FUSED_MOE_CHUNK_TOKENS)
    return (ACTIVATION_ELEMENT_BYTES * (d * T_w + d * g_x * T_w
                                        + m * k_e * (sp.Max(2 * d_fx / s_x, d) + d_fx / s_x))
            + n_sq * V * LOGIT_BYTES)


def kv_bytes_per_token(L=L, H_kv=H_kv, d_h=d_h, b_kv=b_kv):
    """KV-cache bytes per token [B]: c = 2 L H_kv d_h b_kv (K and V, every layer).  Seed 003 section 3."""
    return 2 * L * H_kv * d_h * b_kv


def weight_bytes(N=N, b=b):
    """Weight bytes [B]: N b.  Seed 003 section 4."""
    return N * b


def kv_capacity_tokens():
    """KV tokens that fit beside the weights [token]: (C - N b) / c.  Seed 003 section 3."""
    return (C - weight_bytes()) / c


def capacity_batch():
    """Sequences of context S that fit [1]: floor((C - N b) / (S c)).  Seed 003 section 3."""
    return sp.floor(kv_capacity_tokens() / S)


def training_state_bytes(k=k, N=N):
    """Training state before activations [B]: k N, k = 16 (bf16 grads) or 18 (fp32 grads).  Seed 003 section 4."""
    return k * N
