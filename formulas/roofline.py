"""Ridge point, the two lower bounds of a step, and the attainable roof.

Source: seed 000 "ridge" section; seed 003 section 1 and figure 1.
"""

from __future__ import annotations

import sympy as sp

from .glossary import sym

P, W, F, Q, R = (sym(n) for n in ("P", "W", "F", "Q", "R"))


def ridge(P=P, W=W):
    """Ridge point [FLOP/B]: R = P / W.  Seed 000 "ridge"; seed 003 section 1.

    >>> ridge().subs({sym('P'): 989.4e12, sym('W'): 3.35e12}).round(2)
    295.34
    """
    return P / W


def time_compute(F=F, P=P):
    """Compute lower bound of a step [s]: F / P.  Seed 003 figure 1."""
    return F / P


def time_memory(Q=Q, W=W):
    """Memory lower bound of a step [s]: Q / W.  Seed 003 figure 1."""
    return Q / W


def time_bound(F=F, Q=Q, P=P, W=W):
    """The step cannot be faster than the larger lower bound [s]: max(F/P, Q/W)."""
    return sp.Max(time_compute(F, P), time_memory(Q, W))


def attainable(intensity, P=P, W=W):
    """Attainable FLOP/s at intensity I [FLOP/s]: min(P, W I).  Seed 000 roofline figure."""
    return sp.Min(P, W * intensity)


def utilisation_at(intensity, P=P, W=W):
    """Fraction of peak usable at intensity I below the ridge: I / R.  Seed 000 ("idle 2/3 at 100")."""
    return intensity / ridge(P, W)
