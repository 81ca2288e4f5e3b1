"""One decode step at batch B and context S: FLOPs, bytes, intensity.

Source: seed 003 section 3, the decode intensity I(B) = (2N + 4LdS) B / (N b + B S c),
generalised: the attention width is H_q d_h (= d for Llama), N_a are the
parameters that do arithmetic (= N for dense models), N_e are parameters not
streamed (0 in the seed accounting: all N are read each step), and a is the
optional activation traffic per sequence.
"""

from __future__ import annotations

from .glossary import sym

N, N_a, N_e, L, H_q, H_kv, d_h, b, b_kv, B, S, c, a = (
    sym(x) for x in ("N", "N_a", "N_e", "L", "H_q", "H_kv", "d_h", "b", "b_kv", "B", "S", "c", "a")
)


def attention_flops_per_token(L=L, H_q=H_q, d_h=d_h, S=S):
    """Attention FLOPs of one new token over S cached tokens [FLOP]: 4 L H_q d_h S.

    Q K^T and A V are 2 H_q d_h S multiply-adds per layer, i.e. 4 H_q d_h S FLOPs
    (seed 003 writes "multiply-adds"; the value is FLOPs, see its slips).
    """
    return 4 * L * H_q * d_h * S


def decode_flops(B=B, S=S):
    """FLOPs of one decode step [FLOP]: (2 N_a + 4 L H_q d_h S) B.  Seed 003 section 3."""
    return (2 * N_a + attention_flops_per_token(S=S)) * B


def decode_bytes(B=B, S=S):
    """Bytes of one decode step [B]: (N - N_e) b + B (S c + a).  Weights once, KV per sequence."""
    return (N - N_e) * b + B * (S * c + a)


def decode_intensity(B=B, S=S):
    """Decode intensity I(B, S) [FLOP/B] = FLOPs / bytes.  Seed 003 section 3."""
    return decode_flops(B, S) / decode_bytes(B, S)


def attention_flops_per_layer_seq(S=S):
    """Attention FLOPs per layer and sequence [FLOP]: 4 H_q d_h S."""
    return 4 * H_q * d_h * S


def kv_bytes_per_layer_seq(S=S):
    """KV bytes read per layer and sequence [B]: 2 H_kv d_h S b_kv (K and V)."""
    return 2 * H_kv * d_h * S * b_kv


def attention_intensity():
    """Attention (KV) intensity [FLOP/B]: 4 H_q d_h S / (2 H_kv d_h S b_kv) = 2 H_q / (H_kv b_kv).

    Independent of batch and context; H_q/H_kv for 2-byte KV.  Seed 003 section 3.
    """
    return attention_flops_per_layer_seq() / kv_bytes_per_layer_seq()
