"""The memory-capacity ledger: KV cache, what fits, training state.

Source: seed 003 sections 3 and 4, figure 5.
"""

from __future__ import annotations

import sympy as sp

from .glossary import sym
from .recipes import RECIPE_SOURCE, TRAINING_RECIPES, recipe_bytes_per_param  # noqa: F401 - re-exported

L, H_kv, d_h, b_kv, C, N, b, c, S, k = (sym(x) for x in ("L", "H_kv", "d_h", "b_kv", "C", "N", "b", "c", "S", "k"))

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
