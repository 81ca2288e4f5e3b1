"""The memory-capacity ledger: KV cache, what fits, training state.

Source: seed 003 sections 3 and 4, figure 5.
"""

from __future__ import annotations

import sympy as sp

from .glossary import sym

L, H_kv, d_h, b_kv, C, N, b, c, S, k = (sym(x) for x in ("L", "H_kv", "d_h", "b_kv", "C", "N", "b", "c", "S", "k"))

# Training bytes per parameter, seed 003 section 4.
TRAINING_RECIPES: dict[str, tuple[tuple[str, int], ...]] = {
    "bf16-grads": (("bf16 weights", 2), ("bf16 gradients", 2), ("fp32 master weights", 4),
                   ("Adam m (fp32)", 4), ("Adam v (fp32)", 4)),
    "fp32-grads": (("bf16 weights", 2), ("fp32 gradients", 4), ("fp32 master weights", 4),
                   ("Adam m (fp32)", 4), ("Adam v (fp32)", 4)),
}
RECIPE_SOURCE = {
    "bf16-grads": "ZeRO mixed-precision Adam (Rajbhandari et al. 2020), seed 003 section 4",
    "fp32-grads": "Megatron Core BF16 with fp32 gradients, seed 003 section 4",
}


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


def recipe_bytes_per_param(recipe: str) -> int:
    """Bytes per parameter of a training recipe: 16 or 18."""
    return sum(v for _, v in TRAINING_RECIPES[recipe])
