"""How a report states a value: the critical context (a numeric root past a sliding window), why a value is
absent, and the printed formula of a quantity in an accounting.  Used by the evaluation stage and ``derive``."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from genreport.formulas import architecture as arch
from genreport.model.env import Env
from genreport.model.values import physical


def _clean(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def _root(x) -> float | None:
    """A crossover root: negative or infinite means the curve never reaches the ridge."""
    x = float(x)
    return x if math.isfinite(x) and x > 0 else None


def critical_context(q, env: Env) -> tuple[float | None, bool]:
    """S*, and whether it had to be found numerically because of sliding windows.

    The closed form S* = 2 N W / (P c - 4 H_q L W d_h) assumes every layer attends to all S positions. Windowed
    layers attend to at most w, which changes nothing up to S = w. When the closed form lands past w, S* is
    the root of I_inf(S) = P/W with the windows (c and d_h scaled by f(S), see ``Env.at``), found by bisection;
    None when the ceiling levels off above the ridge (every layer windowed: past w nothing grows with S).
    """
    closed = _root(q["critical_context"](env.at()))
    model = env.model
    if closed is None or not arch.local_layers(model) or closed <= float(model.attention.sliding_window):
        return closed, False
    ridge = env.values["P"] / env.values["W"]

    def excess(s: float) -> float:
        return float(q["decode_intensity_ceiling"](env.at(context=s, reads=True))) - ridge

    lo, hi = float(model.attention.sliding_window), 1e15
    if excess(hi) >= 0:
        return None, True
    for _ in range(200):  # log-space bisection: excess(lo) > 0 >= excess(hi)
        mid = math.sqrt(lo * hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if excess(mid) > 0 else (lo, mid)
    return hi, True


def intensity_at_capacity(q, env: Env, context, overrides: dict | None = None):
    """The decode intensity at the capacity-limited batch, as a report states it: B_cap from the weights a GPU holds
    (capacity_batch at ``context``), then decode_intensity at B_cap with the weights a step at B_cap reads (an MoE
    batch touches only some experts; at pp > 1 each stage's micro-batch streams the slice again; mixed formats read
    their own bytes per weight), not the closed form's one N b for both.  ``overrides``: inputs set by derive's
    --at, at both steps.  Returns (intensity, B_cap, the inputs at B_cap); the intensity is NaN where no sequence
    fits."""
    ctx = np.asarray(context, dtype=float)
    given = dict(overrides or {})
    cap = np.maximum(np.asarray(q["capacity_batch"]({**env.held(context=ctx), **given}), dtype=float), 0)
    at_cap = {**env.at(context=ctx, batch=np.maximum(cap, 1)), **given}
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(cap >= 1, q["decode_intensity"](at_cap), np.nan)
    return value, cap, at_cap


def stated_value(q, env: Env, qid: str, values: dict) -> tuple[float | None, str]:
    """The value a report states for ``qid`` at the inputs ``values`` (an ``env.at(...)`` point, possibly with
    inputs overridden), and why there is none: the same rules as :func:`evaluate` (``derive`` uses this)."""
    c = q[qid]
    if qid == "critical_context":
        scalar = {k: float(v) for k, v in values.items() if k in env.values and np.ndim(v) == 0}
        value, _ = critical_context(q, replace(env, values={**env.values, **scalar}))
        if value is not None:
            return value, ""
        return None, physical(qid, -1.0)[1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return physical(qid, np.asarray(c(values), dtype=float), c.integer)


def closed_form(qid: str, values: dict) -> float:
    """The printed closed form of ``qid`` at ``values`` as it stands (NaN where it has no value): what ``derive``
    sets beside a stated value the closed form does not give (S* past a sliding window)."""
    from genreport.formulas.compiled import load

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return float(np.ravel(np.asarray(load()[qid](values), dtype=float))[0])


def critical_reason(r, acc: str) -> str:
    """Why a report states no critical context."""
    sc = r.scalars[acc]
    if sc["attention_intensity"] is not None and sc["attention_intensity"] < sc["ridge_point"]:
        w = int(r.spec.model.attention.sliding_window or 0)
        return (f"every layer attends to at most {w:,} positions, so the decode ceiling levels off above the ridge: "
                "every context can cross it with a large enough batch")
    return "the attention intensity is at or above the ridge, so every context can cross it with a large enough batch"


def variant_of(r, acc: str) -> str:
    """The printed variant of the formulas for an accounting of this report (:mod:`formulas.variants`)."""
    from genreport.formulas.variants import variant_for

    return variant_for(acc, r.spec.model.moe is not None, bool(r.spec.workloads.activation_bytes))


def point_variant(r, acc: str, env: dict, args=("N_a",)) -> str:
    """The printed variant of a formula evaluated at ``env``: the accounting's (:func:`variant_of`), unless that
    variant's N_a = N (or N_a = N - N_e) is not what the point computes with.  A pipeline's round streams each
    GPU's slice once per micro-batch (N, N_e times min(n_PP, B)) while each token still computes with the slice
    once (N_a): printed with N_a = N, the FLOP terms would show the streamed weights and the arithmetic would not
    give the value stated (Llama 2 70B at tp 8 x pp 2: B* = 236, stated 473).  There N_a stays its own symbol:
    the seed accounting's ``moe`` variant (N_e = 0, as the seed's), else ``full``.  ``args``: the formula's
    symbols (a formula without N_a keeps the accounting's variant)."""
    return streamed_variant(variant_of(r, acc), env, args)


def streamed_variant(variant: str, env: dict, args=("N_a",)) -> str:
    """:func:`point_variant` from the accounting's printed ``variant`` (``derive`` has no report to ask)."""
    from genreport.formulas.variants import substitutions

    rule = substitutions(variant).get("N_a")
    if rule is None or "N_a" not in env or "N_a" not in args:
        return variant
    n, n_a = float(np.ravel(env["N"])[0]), float(np.ravel(env["N_a"])[0])
    n_e = float(np.ravel(env.get("N_e", 0.0))[0])
    held = n if rule == "N" else n - n_e
    if math.isclose(n_a, held, rel_tol=1e-9):
        return variant
    return "moe" + ("+a" if variant.endswith("+a") else "") if variant.startswith("seed") else "full"


def latex_of(r, qid: str, acc: str, variant: str | None = None) -> str:
    from genreport.formulas.compiled import render_latex

    c = r.q[qid]
    return f"{c.symbol} = {render_latex(c.latex[variant or variant_of(r, acc)], c.args)}"
