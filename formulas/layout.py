"""One GPU of a layout: the seeds' inputs replaced by the slice of the model that one GPU holds and computes.

A replica is n_TP x n_PP GPUs (:mod:`.parallel`).  Each GPU holds L/n_PP layers, H_q/n_TP query heads of each,
its share of the KV heads (H_kv/s_kv, s_kv = min(n_TP, H_kv); MLA's latent is replicated, s_kv = 1), the
non-expert weights split n_TP n_PP ways and the routed experts max(n_TP, n_EP) n_PP ways.  Substituting these
slices for the seeds' symbols turns every single-card formula (seed 003: t_mem = Q/W, S_max = (C - N b)/c,
I_KV, S*, B*(S), ...) into the formula of one GPU of the layout; at n_TP = n_PP = n_EP = 1 (s_kv = 1) each
slice is the symbol itself, so the seeds' formulas are the layout's at 1 x 1 x 1 x 1.

A decode round of a replica streams each GPU's weight slice once per micro-batch (m = min(n_PP, B)); the
closed forms in B (the crossover batch) take the pipeline full, m = n_PP.

With pipeline stages the GPU is one of the busiest stage before the last (ceil(L/pp) layers): the output head (V d
parameters, its FLOPs, its vocabulary rows) is the last stage's (parallel.at_last_stage), so the slice leaves it out,
s_st of it (1 with stages, 0 on one, where the one stage holds it).

The numbers are computed from these expressions by :mod:`genreport.model.env` (a test checks the two agree),
and printed by the report with the per-GPU symbols of :data:`SLICE_LATEX`.
"""

from __future__ import annotations

from . import parallel
from .glossary import sym
from .slices import SLICE_DEFINITION, SLICE_LATEX, SLICE_MEANING  # noqa: F401 - re-exported

n_TP, n_PP, n_EP, N_x, s_kv, m_b, rho_x = (sym(x) for x in ("n_TP", "n_PP", "n_EP", "N_x", "s_kv", "B", "rho_x"))
N, N_a, N_e, N_p, L, H_q, H_kv, V, c, a = (sym(x) for x in ("N", "N_a", "N_e", "N_p", "L", "H_q", "H_kv", "V", "c", "a"))

SOURCE = ("Shoeybi et al. 2019, Megatron-LM, section 3 (heads and FFN columns split n_TP ways); Narayanan et al. "
          "SC'21, section 2.2 (L/n_PP layers per stage)")


def replica_share():
    """Ways the non-expert weights and the FLOPs of a token are split over one replica [1]: n_TP n_PP."""
    return n_TP * n_PP


def slice_inputs() -> dict:
    """The seeds' symbols -> their per-GPU value at the layout, as SymPy expressions in the layout's symbols."""
    share = replica_share()
    head = parallel.head_parameters() * parallel.s_st  # the last stage's, with stages
    return {
        # parameters: w_g / b, with what tensor parallelism holds whole on each GPU (N_R)
        N: (N + parallel.N_R - head - N_x * (1 - (1 + rho_x) * n_TP / parallel.expert_split())) / share,
        N_a: (N_a + parallel.N_R - head) / share, N_e: N_e / share, N_p: (N_p + parallel.N_R) / share,
        V: V * (1 - parallel.s_st) / share, a: a / share,
        L: L / n_PP, H_q: H_q / n_TP, H_kv: H_kv / s_kv, c: c / (n_PP * s_kv),
    }


def sliced(expr):
    """``expr`` (a single-card formula) for one GPU of the layout."""
    return expr.xreplace(slice_inputs())


def at_one_card(expr):
    """``expr`` at the layout 1 x 1 x 1 x 1 (no redundant experts)."""
    return expr.subs({n_TP: 1, n_PP: 1, n_EP: 1, s_kv: 1, sym("n_St"): 1, sym("s_st"): 0, rho_x: 0, parallel.N_R: 0})
