"""Intensity of one weight matrix serving T tokens.

Source: seed 003 section 1 (weight-reuse intensity, full GEMM intensity,
saturation, crossover tokens).
"""

from __future__ import annotations

from .glossary import sym

T, b, n, m = (sym(x) for x in ("T", "b", "n", "m"))


def gemm_flops(n=n, m=m, T=T):
    """FLOPs of an (T x n) @ (n x m) product [FLOP]: 2 n m T (one multiply-add = 2 FLOPs)."""
    return 2 * n * m * T


def weight_reuse_intensity(T=T, b=b):
    """Weight-reuse intensity [FLOP/B]: I_W = 2 n m T / (n m b) = 2T/b; n and m cancel.  Seed 003 section 1."""
    return gemm_flops(n, m, T) / (n * m * b)


def gemm_intensity(n=n, m=m, T=T, b=b):
    """Full GEMM intensity [FLOP/B], reading the weight (n m), input (T n) and writing the output (T m) once.

    I = 2 n m T / (b (n m + T n + T m)).  Seed 003 section 1.
    """
    return gemm_flops(n, m, T) / (b * (n * m + T * n + T * m))
