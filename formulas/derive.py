"""Closed forms derived by SymPy: limits and solved crossovers, never typed by hand.

Each function returns the derived expression; :mod:`formulas.quantities` records
the derivation steps so the report can show them.
"""

from __future__ import annotations

from functools import cache

import sympy as sp

from . import decode, gemm
from .glossary import sym
from .roofline import ridge

B, S, T, R = sym("B"), sym("S"), sym("T"), sym("R")


def _single_root(eq, var):
    roots = sp.solve(eq, var, dict=False)
    if len(roots) != 1:
        raise ValueError(f"expected one root for {var}, SymPy found {roots}")
    return sp.factor(roots[0])


@cache
def decode_intensity_ceiling():
    """lim_{B -> oo} I(B, S) = (2 N_a + 4 L H_q d_h S) / (S c + a).  Seed 003 section 3."""
    return sp.factor(sp.limit(decode.decode_intensity(), B, sp.oo))


@cache
def critical_context():
    """S* where the ceiling meets the ridge: solve ceiling(S) = P/W for S.  Seed 003 section 3."""
    return _single_root(sp.Eq(decode_intensity_ceiling(), ridge()), S)


@cache
def crossover_batch():
    """B* where I(B, S) meets the ridge at context S: solve for B.  Seed 003 section 3, figure 4."""
    return _single_root(sp.Eq(decode.decode_intensity(), ridge()), B)


@cache
def gemm_saturation():
    """lim_{T -> oo} of the full GEMM intensity = 2 n m / (b (n + m)).  Seed 003 section 1."""
    return sp.factor(sp.limit(gemm.gemm_intensity(), T, sp.oo))


@cache
def gemm_crossover_tokens():
    """Tokens per weight load where the full GEMM intensity reaches the ridge.  Seed 003 section 1."""
    return _single_root(sp.Eq(gemm.gemm_intensity(), ridge()), T)


@cache
def weight_reuse_intensity():
    """2 n m T / (n m b), cancelled to 2T/b.  Seed 003 section 1."""
    return sp.cancel(gemm.weight_reuse_intensity())


@cache
def attention_intensity():
    """4 H_q d_h S / (2 H_kv d_h S b_kv), cancelled to 2 H_q/(H_kv b_kv).  Seed 003 section 3."""
    return sp.cancel(decode.attention_intensity())
