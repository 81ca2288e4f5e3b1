"""Measured performance against the roofline: MFU, MBU, their ratio, and a derated bound.

A measurement gives the time t of one step (a decode step at batch B and context S,
or one prefill of T tokens).  The step's model FLOPs F and bytes Q come from the
formulas of :mod:`formulas.decode` and :mod:`formulas.quantities`, so the achieved
rates are F/t and Q/t.

Sources:

* MFU: Chowdhery et al. 2022, "PaLM: Scaling Language Modeling with Pathways",
  arXiv:2204.02311, section 4.1 and appendix B (observed model FLOP/s over peak).
* MFU and MBU for decode, and nvidia-smi utilisation not being either: seed 003
  section 5 ("what the framework explains").
* The three bottleneck states read from the two utilisations: seed 000, "how to
  tell where you are stuck".
"""

from __future__ import annotations

import sympy as sp

from .glossary import sym
from .roofline import ridge

F, Q, P, W, t = (sym(n) for n in ("F", "Q", "P", "W", "t"))
eta_P, eta_W = sym("eta_P"), sym("eta_W")

PALM = "Chowdhery et al. 2022, PaLM (arXiv:2204.02311), section 4.1 and appendix B"


def achieved_flops(F=F, t=t):
    """Achieved model FLOP/s of a measured step [FLOP/s]: F / t.

    F [FLOP] are the model's FLOPs of the step (not the hardware's, which may
    include recomputation); t [s] is the measured step time.  PaLM appendix B.

    >>> achieved_flops().subs({F: 16.06e9, t: 1 / 126.9})
    2038014000000.00
    """
    return F / t


def achieved_bandwidth(Q=Q, t=t):
    """Achieved memory bandwidth of a measured step [B/s]: Q / t.  Seed 003 section 5.

    >>> achieved_bandwidth().subs({Q: 16.06e9, t: 1 / 126.9})
    2038014000000.00
    """
    return Q / t


def mfu(F=F, t=t, P=P):
    """Model FLOPs utilisation [1]: MFU = (F / t) / P.

    Achieved useful FLOP/s over the dense peak P [FLOP/s].  Defined in PaLM
    (Chowdhery et al. 2022, section 4.1, appendix B); seed 003 section 5 uses it
    for decode, where it is "a few per cent".

    >>> float(mfu().subs({F: 16.06e9, t: 1 / 126.9, P: 989.4e12}))  # doctest: +ELLIPSIS
    0.00205...
    """
    return achieved_flops(F, t) / P


def mbu(Q=Q, t=t, W=W):
    """Model bandwidth utilisation [1]: MBU = (Q / t) / W.

    Achieved bytes per second over the peak bandwidth W [B/s].  Seed 003 section 5:
    in decode MBU is typically 70-80 % while MFU is a few per cent.

    >>> round(float(mbu().subs({Q: 16.06e9, t: 1 / 126.9, W: 3.35e12})), 3)
    0.608
    """
    return achieved_bandwidth(Q, t) / W


def intensity(F=F, Q=Q):
    """Arithmetic intensity of the step [FLOP/B]: I = F / Q.  Seed 000 rule 6."""
    return F / Q


def utilisation_ratio():
    """MFU / MBU, simplified by SymPy [1]: the step time t cancels, leaving (F / Q) / (P / W).

    >>> utilisation_ratio()
    F*W/(P*Q)
    """
    return sp.simplify(mfu() / mbu())


def ratio_identity_holds() -> bool:
    """Verify symbolically that MFU / MBU = I / R when both come from the same interval.

    Both utilisations divide by the same t, so their ratio is the step's intensity
    over the ridge R = P / W (seed-figures section 4, derived relation).

    >>> ratio_identity_holds()
    True
    """
    return sp.simplify(utilisation_ratio() - intensity() / ridge()) == 0


def derated_time(F=F, Q=Q, P=P, W=W, eta_P=eta_P, eta_W=eta_W):
    """Derated step time [s]: max(F / (eta_P P), Q / (eta_W W)).

    The ideal bound of :func:`formulas.roofline.time_bound` with each peak scaled by
    an achievable fraction (eta_P of peak compute, eta_W of peak bandwidth), as a
    spec's ``efficiency`` block states them.  With eta = 1 it is the ideal bound.

    >>> derated_time().subs({eta_P: 1, eta_W: 1}) == sp.Max(F / P, Q / W)
    True
    """
    return sp.Max(F / (eta_P * P), Q / (eta_W * W))
